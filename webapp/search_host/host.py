"""``SearchHost``: one machine's search processes, fed from the shared queue.

The host runs a local ``SearchPool`` (the same processes, priorities,
preemption and crash handling as a single server) and two Dramatiq workers
that take messages: ``play`` messages on as many threads as the pool has
processes, ``analysis`` messages on one fewer (at least one), so a host never
takes more analyses than it has processes besides the one kept for moves.
A Dramatiq thread only waits: the search runs in the pool's processes.

* An engine move: the host checks the game is still at the position asked
  for, then hands it to a ``Searches`` of its own, the service's code that a
  single server runs: depths streamed to the game's room, the move applied
  under the game's lock only if the game's version is still the one searched
  (compare-and-set), the room told, the scores of the other moves searched
  and stored. The message is acknowledged once the game has moved on, so a
  host that dies mid-search leaves it to another (``queue.HEARTBEAT_TIMEOUT``);
  a second run finds the game moved on, so nothing is applied twice.
* An analysis, a scores search or a search explorer's trace (the message's
  ``kind``): run in the pool, at the message's priority (never on the process
  kept for moves; a move preempts it), its result sent back to the web
  process that asked (which sends it on to its client).

Every room is reached through Flask-SocketIO's message queue (``emit``); the
depths of an engine search are also kept in Redis for the length of the search
(``queue.depths_key``), so that a page joining through any web process gets
them. An engine search ended (moved on or cancelled) is told to the web
process that asked and to those that followed it (``queue.engine_key``).
A cancelled job (its cancel key, see ``watch.py``) stops within a second;
a job still running when the host stops is put back on its queue.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
from dataclasses import dataclass, field
from typing import Any, ClassVar

import dramatiq
import redis

from webapp import protocol
from webapp.search_host.watch import Watch
from webapp.search_pool import PoolBusy, SearchJob, SearchPool
from webapp.search_pool.dispatch import dispatcher_of
from webapp.search_pool.local_pool import DEFAULT_SEARCH
from webapp.search_pool.queue import (
    ACTORS,
    ANALYSIS,
    HEARTBEAT_TIMEOUT,
    KEY_SECONDS,
    PLAY,
    depths_key,
    job_of,
    make_broker,
    message_of,
    replies_key,
    reply,
    settle_claim,
)
from webapp.services.locks import Emit, GameLocks
from webapp.services.searches import Searches
from webapp.services.state import engine_to_move
from webapp.store import GameStore, StoreError, describe

log = logging.getLogger(__name__)

#: Seconds between two looks at a cancel or a stop while a Dramatiq thread waits for a search.
WAIT = 0.05
#: Seconds the pool's processes get to start (and warm up) before the host takes jobs.
READY_SECONDS = 300.0
#: Milliseconds an idle Dramatiq consumer waits between two polls: a move's pickup delay,
#: also after the previous move (a host's heartbeat goes with each poll).
POLL_MS = 25
#: Seconds a stopping host gives its Dramatiq threads to hand their jobs back.
STOP_SECONDS = 10.0
#: The outcomes of an engine-move message.
MOVED_ON, CANCELLED, HANDED_BACK = "the game moved on", "cancelled", "handed back"


#: The dispatcher's kind of a search run for a web process.
REMOTE = "remote"


@dataclass(eq=False)
class Remote:
    """The tag of a search run for a web process: settled by the pool's ``on_result``."""

    kind: ClassVar[str] = REMOTE

    uid: str
    done: threading.Event = field(default_factory=threading.Event)
    result: dict[str, Any] | None = None
    error: str | None = None

    def settle(self, result: dict[str, Any] | None, error: str | None) -> None:
        self.result, self.error = result, error
        self.done.set()


class SearchHost:
    """``concurrency`` search processes taking jobs from the queue at ``url``."""

    def __init__(
        self,
        url: str,
        store: GameStore,
        emit: Emit,
        *,
        concurrency: int = 2,
        search_fn: str = DEFAULT_SEARCH,
        warm_up: bool = True,
        seed: int | None = None,
        heartbeat_timeout: float = HEARTBEAT_TIMEOUT,
    ) -> None:
        self.url, self.store, self.emit = url, store, emit
        self.host_id = f"{socket.gethostname()}:{os.getpid()}"
        self.redis = redis.Redis.from_url(url, socket_timeout=5.0)
        self.pool = SearchPool(max(1, concurrency), warm_up=warm_up, search_fn=search_fn)
        self.locks = GameLocks()
        self.searches = Searches(store, self.pool, self._emit, self.locks, seed)
        self._route_callbacks()
        self.watch = Watch(self.redis, self.host_id, self.pool.stats)
        threads = {PLAY: self.pool.size, ANALYSIS: max(1, self.pool.size - self.pool.reserve)}
        self.brokers = {
            queue: make_broker(url, heartbeat_timeout=heartbeat_timeout) for queue in threads
        }
        self.workers: list[dramatiq.Worker] = []
        self._threads = threads
        self.closing = threading.Event()
        self._settled = threading.Condition()  # notified when an engine result was handled

    # -- life cycle ---------------------------------------------------------------------
    def start(self) -> None:
        """Start the processes, wait for them to be ready, then take jobs."""
        self.pool.start()
        if not self.pool.wait_ready(READY_SECONDS):
            raise RuntimeError("the search processes did not start")
        self.watch.start()
        handlers = {PLAY: self.play, ANALYSIS: self.analyse}
        for queue, broker in self.brokers.items():
            worker = dramatiq.Worker(
                broker, queues={queue}, worker_threads=self._threads[queue], worker_timeout=POLL_MS
            )
            # One message per thread, none waiting here: a busy host leaves moves to others.
            worker.queue_prefetch = self._threads[queue]
            worker.start()
            dramatiq.Actor(
                handlers[queue],
                broker=broker,
                actor_name=ACTORS[queue],
                queue_name=queue,
                priority=0,
                options={},
            )
            self.workers.append(worker)
        log.info(
            "search host %s: %d processes, taking moves and analyses from %s",
            self.host_id,
            self.pool.size,
            describe(self.url),
        )

    def stop(self) -> None:
        """Hand running jobs back to their queues, stop taking jobs, stop the processes."""
        self.closing.set()
        for worker in self.workers:
            worker.stop(timeout=int(STOP_SECONDS * 1000))
        self.searches.close()
        self.pool.close()
        self.watch.stop()
        for broker in self.brokers.values():
            broker.close()

    # -- an engine move (a Dramatiq thread) ---------------------------------------------
    def play(self, payload: dict[str, Any]) -> None:
        uid = payload["uid"]
        cancelled = self.watch.track(uid)
        try:
            outcome = self._play(payload, cancelled)
        finally:
            self.watch.untrack(uid)
        if outcome == HANDED_BACK:
            self._hand_back(payload)
            return
        game_id = payload["game_id"]
        if outcome == MOVED_ON:
            self.watch.watch_scores(game_id, payload["epoch"], lambda: self._moved_on(game_id))
        try:
            self.redis.delete(depths_key(game_id))
            followers = settle_claim(self.redis, game_id, payload["moves"], uid)
        except redis.RedisError as err:
            log.error("engine search %s: its followers not told: %s", uid, err)
            followers = []
        for pool_uid in [payload["reply_to"], *followers]:
            self._reply(payload | {"reply_to": pool_uid}, None, f"engine move: {outcome}")

    def _play(self, payload: dict[str, Any], cancelled: threading.Event) -> str:
        """Search until the game has moved on from the position asked for (by this host's
        move or another's), the job is cancelled, or the host stops."""
        game_id, moves = payload["game_id"], payload["moves"]
        while True:
            if cancelled.is_set() or self.watch.cancelled(payload["uid"]):
                return CANCELLED
            if self.closing.is_set():
                return HANDED_BACK
            failed = False
            with self.locks.hold(game_id):
                try:
                    record = self.store.get(game_id)
                except StoreError as err:
                    log.error("engine move in %s waits for the store: %s", game_id, err)
                    record, failed = None, True
                here = record is not None and record.moves == moves and engine_to_move(record)
                if here and not self.searches.thinking(game_id):
                    self._forget_depths(game_id)  # a new search: the last one's are moot
                # A second message for a game this host searches waits for that search.
                # Once started, the engine's options are scored here as on one server:
                # they go with its move, or join it once their pass is in.
                if record is not None and here and self.searches.try_start_engine(record):
                    self.searches.position_changed(record)
            if failed:
                self.closing.wait(1.0)
                continue
            if not here:
                return MOVED_ON
            # Its retries included; a result found stale (the game's version moved with
            # its position unchanged) ends it too, and the loop searches again.
            with self._settled:
                while self.searches.thinking(game_id) and not cancelled.is_set():
                    if self.closing.is_set():
                        return HANDED_BACK
                    self._settled.wait(WAIT)  # woken as soon as a result is applied
            if cancelled.is_set():
                with self.locks.hold(game_id):
                    self.searches.stop_engine(game_id)
                return CANCELLED

    # -- an analysis, scores search or trace (a Dramatiq thread) -------------------------
    def analyse(self, payload: dict[str, Any]) -> None:
        uid = payload["uid"]
        cancelled = self.watch.track(uid)
        try:
            if self.watch.cancelled(uid):
                return
            tag = Remote(uid)
            try:
                job = job_of(payload, tag)
            except (ValueError, TypeError, KeyError) as err:  # a sender this host cannot serve
                self._reply(payload, None, f"the search host cannot run this job: {err}")
                return
            try:
                self.pool.submit(job)
            except PoolBusy as busy:
                self._reply(payload, None, f"the search host is busy: {busy}")
                return
            while not tag.done.wait(WAIT):
                if cancelled.is_set() or self.closing.is_set():
                    self.pool.cancel(job.id)
                    if not cancelled.is_set():
                        self._hand_back(payload)
                    return
            self._reply(payload, tag.result, tag.error)
        finally:
            self.watch.untrack(uid)

    # -- inside -------------------------------------------------------------------------
    def _route_callbacks(self) -> None:
        """The pool reports to ``self.searches`` (engine moves, their scores: registered by
        it) and to the waiting Dramatiq threads (searches run for a web process)."""
        dispatch = dispatcher_of(self.pool)
        dispatch.register(REMOTE, self._on_remote_result)
        dispatch.on_settled(self._on_settled)

    @staticmethod
    def _on_remote_result(job: SearchJob, found: dict[str, Any] | None, error: str | None) -> None:
        job.tag.settle(found, error)

    def _on_settled(self, job: SearchJob) -> None:
        if not isinstance(job.tag, Remote):
            with self._settled:
                self._settled.notify_all()

    def _emit(self, event: str, payload: dict[str, Any], room: str) -> None:
        """Emit to the room; an engine search's depths are also kept for pages joining."""
        if event == protocol.THINKING:
            try:
                key = depths_key(room)
                with self.redis.pipeline() as pipe:
                    pipe.rpush(key, json.dumps(payload))
                    pipe.expire(key, KEY_SECONDS)
                    pipe.execute()
            except redis.RedisError as err:
                log.warning("depths in %s not kept: %s", room, err)
        self.emit(event, payload, room)

    def _forget_depths(self, game_id: str) -> None:
        try:
            self.redis.delete(depths_key(game_id))
        except redis.RedisError as err:
            log.warning("depths in %s not dropped: %s", game_id, err)

    def _reply(
        self, payload: dict[str, Any], result: dict[str, Any] | None, error: str | None
    ) -> None:
        key = replies_key(payload["reply_to"])
        try:
            with self.redis.pipeline() as pipe:
                pipe.rpush(key, reply(payload["uid"], result, error))
                pipe.expire(key, KEY_SECONDS)
                pipe.execute()
        except redis.RedisError as err:
            log.error("reply to %s lost: %s", payload["reply_to"], err)

    def _moved_on(self, game_id: str) -> None:
        """The game moved on through another process: its display work here is moot (the
        scores and pondering of the position this host's move left, and that move's line)."""
        self.searches.live.stop(game_id)
        self.searches.lines.stop(game_id)

    def _hand_back(self, payload: dict[str, Any]) -> None:
        """Put a job this host will not finish back on its queue, for another host."""
        message = message_of(payload)
        try:
            self.brokers[message.queue_name].enqueue(message)
        except redis.RedisError as err:
            log.error("search %s not handed back: %s", payload["uid"], err)
