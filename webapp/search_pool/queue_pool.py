"""``QueuePool``: the search pool's interface, with the searches run by hosts on the shared queue.

A web process started with ``--redis`` hands its searches to the queue
(``queue.py``) instead of running them itself; search hosts (``python -m
webapp.search_host``) run them. The game service sees the same pool as ever
(submit, cancel, has_room, position, stats, close; ``on_result``), and this is
what changes behind it:

* an engine move is searched *and applied* by the host (compare-and-set on the
  game's version), which tells the game's room itself through the Socket.IO
  message queue: the move is made even if the web process that asked is gone.
  The host then replies "settled" (no result): the service finds the game moved
  on and forgets its search, or, if the game still waits, tries again;
* an analysis (or a scores search) is run by a host and its result comes back
  here, to ``on_result``, and the service sends it on as in one process;
* ``on_progress`` is never called: the host streams the depths to the room
  itself and keeps them in Redis (``depths``: a page joining anywhere gets them);
* ``on_queued`` is called, about every ``PLACES_SECONDS``, with a waiting job's
  place in its shared queue when it changed (among the first ``PLACES_SCANNED``);
* an engine search another web process already queued for the same game and
  position is followed, not queued again: its end is told to both;
* per owner and per game, searches not settled are counted in Redis across
  every web process (``owner_limit``, ``game_limit``), as one pool bounds them;
* ``cancel`` sets the job's cancel key, which the host running it polls.

Replies come back on a Redis list of this pool's own, read by one thread; a
reply for a job cancelled meanwhile is dropped. A job whose message is gone
from the queue (taken and acknowledged) with no reply for ``LOST_SECONDS`` is
reported as ``LOST`` (its reply was lost with Redis, say): the service then
looks at the game again rather than wait for ever. No callback runs once
``close()`` has begun.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable
from itertools import count
from typing import Any
from uuid import uuid4

import redis

from webapp.search_pool.dispatch import Dispatcher, SerialExecutor
from webapp.search_pool.jobs import (
    PoolBusy,
    Priority,
    ProgressCallback,
    QueuedCallback,
    ResultCallback,
    SearchJob,
)
from webapp.search_pool.queue import (
    ANALYSIS,
    CLAIM,
    COUNT_UNITS,
    HOST_SECONDS,
    HOSTS,
    KEY_SECONDS,
    MARK,
    NAMESPACE,
    PLAY,
    TAKE_UNITS,
    cancel_key,
    count_key,
    depths_key,
    engine_key,
    epoch_key,
    job_payload,
    make_broker,
    message_of,
    queue_key,
    queue_of,
    replies_key,
    reply,
    settle_claim,
)

log = logging.getLogger(__name__)

#: Seconds the reply reader waits on its list before looking at ``close()``.
LISTEN_SECONDS = 1.0
#: Seconds a Redis call may take before it counts as unavailable.
REDIS_TIMEOUT = 5.0
#: Seconds between two looks for jobs whose message is gone with no reply...
SWEEP_SECONDS = 10.0
#: ...and how long such a job may stay so before it is reported lost.
LOST_SECONDS = 10.0
#: The error ``on_result`` gets for a lost job.
LOST = "the search's reply was lost"
#: The error followers of an engine search get when its asker could not queue it.
NOT_QUEUED = "the search was not queued"
#: Seconds between two looks at the places of this process's waiting jobs...
PLACES_SECONDS = 1.0
#: ...among the first this many messages of a queue (a place past them is not told).
PLACES_SCANNED = 50
#: Seconds a job's unit of its per-owner and per-game counters lives unless given back
#: (a web process that died with searches under way holds their units this long at most).
COUNT_SECONDS = 600


class QueuePool:
    """``SearchPool``'s interface over the shared queue at ``url`` (see the module's docstring).

    ``queue_limit`` bounds the messages waiting in the play queue, ``analysis_limit``
    (``queue_limit`` unless given) those in the analysis queue: past it, ``submit``
    raises PoolBusy (as does a Redis that cannot be reached). Moves and analyses
    have a queue each, so waiting analyses never make a move busy.
    """

    def __init__(
        self,
        url: str,
        queue_limit: int = 2000,
        analysis_limit: int | None = None,
        owner_limit: int = 32,
        game_limit: int = 8,
    ) -> None:
        self.url, self.queue_limit = url, queue_limit
        self.owner_limit, self.game_limit = owner_limit, game_limit
        self.limits = {PLAY: queue_limit, ANALYSIS: analysis_limit or queue_limit}
        self.size = 0  # searches at once are the hosts' (see stats)
        self.uid = uuid4().hex  # names this process's reply list
        # Results are applied off the reply thread, a game's in order (``dispatch.py``).
        self.dispatch = Dispatcher(SerialExecutor(name="queue-results"))
        self.on_progress: ProgressCallback = self.dispatch.on_progress
        self.on_result: ResultCallback = self.dispatch.on_result
        self.on_queued: QueuedCallback = self.dispatch.on_queued
        self.redis = redis.Redis.from_url(url, socket_timeout=REDIS_TIMEOUT)
        # BLPOP blocks for LISTEN_SECONDS: its client waits longer than that.
        self._listener = redis.Redis.from_url(url, socket_timeout=REDIS_TIMEOUT + LISTEN_SECONDS)
        self.broker = make_broker(url, queues=(PLAY, ANALYSIS))
        self._lock = threading.Lock()
        self._gate = threading.RLock()  # held while a callback runs; close() takes it
        self._ids = count(1)
        self._jobs: dict[int, tuple[SearchJob, str]] = {}  # job id -> (job, uid), not settled
        self._by_uid: dict[str, int] = {}
        self._messages: dict[int, str] = {}  # job id -> its message's id in the broker
        self._gone: dict[int, float] = {}  # job id -> when its message was first seen gone
        self._counted: dict[int, list[tuple[str, str]]] = {}  # job id -> (counter, its unit)
        self._claimed: dict[int, str] = {}  # job id -> the claim it leads (engine searches)
        self._told: dict[int, int] = {}  # job id -> the place last told
        self._closed = False
        self._done = threading.Event()
        self._started = False

    # -- life cycle ---------------------------------------------------------------------
    def start(self, start_thread: Callable[..., Any] | None = None) -> None:
        """Start reading replies (``start_thread(fn)`` runs fn on a thread)."""
        with self._lock:
            if self._closed or self._started:
                raise RuntimeError("a pool starts once, before it is closed")
            self._started = True
        if start_thread is None:
            threading.Thread(target=self._listen, name="queue-replies", daemon=True).start()
        else:
            start_thread(self._listen)

    def wait_ready(self, timeout: float) -> bool:
        """True: the hosts warm up on their own."""
        return not self._closed

    def close(self) -> None:
        """Stop reading replies; no callback is called from now on. Idempotent.

        Jobs already queued stay queued: a host still runs them (an engine move
        is still made), and their replies expire unread.
        """
        with self._gate, self._lock:
            if self._closed:
                return
            self._closed = True
            self._jobs.clear()
            self._by_uid.clear()
            counted = [unit for units in self._counted.values() for unit in units]
            self._counted.clear()
        with contextlib.suppress(redis.RedisError):
            self._uncount(counted)
        if self._started:
            with contextlib.suppress(redis.RedisError):  # wakes the reader: it ends at once
                self.redis.rpush(replies_key(self.uid), reply("", None, None))
            self._done.wait(LISTEN_SECONDS + REDIS_TIMEOUT + 1)
        self.dispatch.close()
        for client in (self.redis, self._listener):
            with contextlib.suppress(redis.RedisError):
                client.close()
        self.broker.close()

    # -- jobs -----------------------------------------------------------------------------
    def submit(self, job: SearchJob) -> int:
        """Put ``job`` on its queue and return its id; PoolBusy when the queue is full,
        Redis cannot be reached, or the pool is closed."""
        queue = queue_of(job.priority)
        if not self._room_in(queue):
            raise PoolBusy(f"the {queue} queue is full or unavailable")
        uid = uuid4().hex
        with self._lock:
            if self._closed:
                raise PoolBusy("the search pool is shut down")
            job.id = next(self._ids)
            self._jobs[job.id], self._by_uid[uid] = (job, uid), job.id  # before a quick reply
        claim = engine_key(job.game_id, job.moves) if job.priority == Priority.ENGINE else ""
        try:
            if claim and job.game_id:
                held = self.redis.eval(CLAIM, 1, claim, uid, KEY_SECONDS,
                                       f"{NAMESPACE}:followers:", self.uid)  # fmt: skip
                if held is not None and self._follow(job, uid, held.decode()):
                    return job.id
                with self._lock:
                    self._claimed[job.id] = claim
            self._count(job, uid)
            epoch = self._bump_epoch(job) if job.priority == Priority.ENGINE else None
            sent = self.broker.enqueue(message_of(job_payload(job, uid, self.uid, epoch)))
            message = sent.options["redis_message_id"]
            if claim and job.game_id:
                self.redis.eval(MARK, 1, claim, uid, message)  # followers can watch it too
        except redis.RedisError as err:
            self._release(self._forget(job.id), unclaim=True)
            raise PoolBusy(f"the search queue is unavailable ({type(err).__name__})") from None
        except PoolBusy:
            self._release(self._forget(job.id), unclaim=True)
            raise
        with self._lock:
            if job.id in self._jobs:
                self._messages[job.id] = message
        return job.id

    def depths(self, game_id: str, moves: str) -> list[dict[str, Any]]:
        """The ``thinking`` rows the game's engine search at ``moves`` has sent so far,
        whichever web process asked for it and whichever host runs it."""
        try:
            rows = [json.loads(row) for row in self.redis.lrange(depths_key(game_id), 0, -1)]
        except redis.RedisError:
            return []
        return [row for row in rows if row.get("moves") == moves]

    def has_room(
        self, priority: Priority = Priority.ENGINE, owner: str = "", game_id: str = ""
    ) -> bool:
        """True when ``submit`` of such a job would be accepted now: its queue's bound, and
        the owner's and the game's searches in the whole cluster."""
        if self._closed or not self._room_in(queue_of(priority)):
            return False
        if priority == Priority.SCORES:
            return True
        bounds = self._bounds(priority, owner, game_id)
        if not bounds:
            return True
        try:
            counts = self.redis.eval(COUNT_UNITS, len(bounds), *[key for key, _, _ in bounds])
        except redis.RedisError:
            return False
        return all(int(n or 0) < limit for n, (_, limit, _) in zip(counts, bounds, strict=True))

    def sheds(self, priority: Priority, count: int = 1) -> bool:
        """False: the hosts shed SCORES work from their own queues, which this process does
        not count; a job submitted here is taken, and shed there if it must be."""
        return False

    def position(self, job_id: int) -> int | None:
        """A waiting job's place in its shared queue (1 = next), or None if it is not
        waiting (or past the first ``PLACES_SCANNED``)."""
        return self._places([job_id]).get(job_id)

    def cancel(self, job_id: int) -> None:
        """Forget a job and tell the hosts (a running search stops within a second)."""
        forgotten = self._forget(job_id)
        self._release(forgotten)
        if forgotten is None:
            return
        job, uid = forgotten[0], forgotten[1]
        job.cancelled = True
        try:
            if job.priority == Priority.ENGINE and job.game_id:  # a new ask searches anew
                settle_claim(self.redis, job.game_id, job.moves, uid, followers=False)
            self.redis.set(cancel_key(uid), 1, ex=KEY_SECONDS)
            if job.priority == Priority.ENGINE:
                self._bump_epoch(job)
        except redis.RedisError as err:  # the host finishes it; its result is dropped
            log.warning("search %s not cancelled on the queue: %s", uid, err)

    def stats(self) -> dict[str, Any]:
        """What ``/healthz`` reports: the hosts seen lately, their search processes, the
        messages waiting in each queue, and this process's searches not yet settled."""
        with self._lock:
            waiting, closed = len(self._jobs), self._closed
        base: dict[str, Any] = {"queue": "redis", "closed": closed, "unsettled": waiting}
        try:
            hosts = self.redis.hgetall(HOSTS)
            depths = {queue: int(self.redis.llen(queue_key(queue))) for queue in (PLAY, ANALYSIS)}
        except redis.RedisError as err:
            return base | {"redis": f"unavailable: {type(err).__name__}", "workers": 0, "alive": 0}
        now = time.time()
        live = [json.loads(beat) for beat in hosts.values()]
        live = [beat for beat in live if now - beat["at"] < HOST_SECONDS]
        return base | {
            "redis": "ok",
            "hosts": len(live),
            "workers": sum(beat["workers"] for beat in live),
            "alive": sum(beat["alive"] for beat in live),
            "busy": sum(beat["busy"] for beat in live),
            "queued": depths,
        }

    # -- inside -----------------------------------------------------------------------------
    def _room_in(self, queue: str) -> bool:
        try:
            return int(self.redis.llen(queue_key(queue))) < self.limits[queue]
        except redis.RedisError:
            return False

    def _bump_epoch(self, job: SearchJob) -> int | None:
        """A game's engine search starts or stops: scores of its last position are moot."""
        if not job.game_id:
            return None
        key = epoch_key(job.game_id)
        with self.redis.pipeline() as pipe:
            pipe.incr(key)
            pipe.expire(key, KEY_SECONDS * 24)
            epoch, _ = pipe.execute()
        return int(epoch)

    def _follow(self, job: SearchJob, uid: str, held: str) -> bool:
        """Make ``job`` wait for the engine search another process claimed (``held``: "uid
        [message id]"); False if it is this process's own (then ``job`` claims anew)."""
        leader, _, message = held.partition(" ")
        with self._lock:
            if leader in self._by_uid:
                self.redis.set(engine_key(job.game_id, job.moves), uid, ex=KEY_SECONDS)
                return False
            self._by_uid.pop(uid, None)
            if job.id not in self._jobs:
                return True  # cancelled meanwhile
            self._jobs[job.id], self._by_uid[leader] = (job, leader), job.id
            if message:
                self._messages[job.id] = message
        log.info("engine search in %s: following %s, queued by another process", job.game_id,
                 leader)  # fmt: skip
        return True

    def _bounds(self, priority: Priority, owner: str, game_id: str) -> list[tuple[str, int, str]]:
        """The counters a job of this kind takes a unit of: (key, limit, why refused)."""
        queue = queue_of(priority)
        bounds = []
        if owner:
            why = f"you already have {self.owner_limit} searches waiting"
            bounds.append((count_key(queue, "owner", owner), self.owner_limit, why))
        if game_id:
            why = f"this game already has {self.game_limit} searches waiting"
            bounds.append((count_key(queue, "game", game_id), self.game_limit, why))
        return bounds

    def _count(self, job: SearchJob, uid: str) -> None:
        """Take a unit (``uid``) of each of the job's counters; PoolBusy (and none taken)
        past a bound. One script: two processes cannot both take a bound's last unit."""
        if job.priority == Priority.SCORES:
            return  # shed by the hosts, never refused
        bounds = self._bounds(job.priority, job.owner, job.game_id)
        if not bounds:
            return
        keys = [key for key, _, _ in bounds]
        full = int(
            self.redis.eval(
                TAKE_UNITS, len(keys), *keys, uid, COUNT_SECONDS, *[n for _, n, _ in bounds]
            )
        )
        if full:
            raise PoolBusy(bounds[full - 1][2])
        with self._lock:
            self._counted[job.id] = [(key, uid) for key in keys]

    def _uncount(self, units: list[tuple[str, str]]) -> None:
        """Give back units (each its own: another process's count is never touched)."""
        if not units:
            return
        with self.redis.pipeline() as pipe:
            for key, uid in units:
                pipe.zrem(key, uid)
            pipe.execute()

    def _forget(self, job_id: int) -> tuple[SearchJob, str, list[tuple[str, str]], str] | None:
        """Drop a job from this pool's books: (job, uid, its counters, its claim)."""
        with self._lock:
            entry = self._jobs.pop(job_id, None)
            self._messages.pop(job_id, None)
            self._gone.pop(job_id, None)
            self._told.pop(job_id, None)
            counted = self._counted.pop(job_id, [])
            claim = self._claimed.pop(job_id, "")
            if entry is None:
                return None
            self._by_uid.pop(entry[1], None)
            return entry[0], entry[1], counted, claim

    def _release(
        self,
        forgotten: tuple[SearchJob, str, list[tuple[str, str]], str] | None,
        unclaim: bool = False,
    ) -> None:
        """Give back the counters of a forgotten job (Redis errors: they expire); ``unclaim``:
        it was never queued, so its claim goes and whoever followed it hears so (and asks
        again)."""
        if forgotten is None:
            return
        job, uid, counted, claim = forgotten
        with contextlib.suppress(redis.RedisError):
            self._uncount(counted)
            if unclaim and claim:
                for follower in settle_claim(self.redis, job.game_id, job.moves, uid):
                    self.redis.rpush(replies_key(follower), reply(uid, None, NOT_QUEUED))

    def _places(self, job_ids: list[int]) -> dict[int, int]:
        """The places (1 = next) of those jobs that wait among their queue's first messages."""
        with self._lock:
            asked = [
                (i, self._messages[i], self._jobs[i][0]) for i in job_ids if i in self._messages
            ]
        if not asked:
            return {}
        try:
            with self.redis.pipeline(transaction=False) as pipe:
                for _, message, job in asked:
                    queue = queue_key(queue_of(job.priority))
                    lpos = ("LPOS", queue, message, "MAXLEN", PLACES_SCANNED)
                    pipe.execute_command(*lpos)  # type: ignore[no-untyped-call]
                found = pipe.execute()
        except redis.RedisError:
            return {}
        return {
            i: int(at) + 1 for (i, _, _), at in zip(asked, found, strict=True) if at is not None
        }

    def _tell_places(self) -> None:
        """``on_queued`` for each waiting job whose place changed since last told."""
        with self._lock:
            waiting = list(self._messages)[:PLACES_SCANNED]
        for job_id, place in sorted(self._places(waiting).items(), key=lambda item: item[1]):
            with self._lock:
                entry = self._jobs.get(job_id)
                if entry is None or self._told.get(job_id) == place:
                    continue
                self._told[job_id] = place
            with self._gate:
                if self._closed:
                    return
                try:
                    self.on_queued(entry[0], place)
                except Exception:  # a callback's bug must not stop the replies
                    log.exception("search queue: on_queued failed for job %d", job_id)

    def _sweep(self) -> None:
        """Report the jobs whose message left the queue long ago with no reply as LOST."""
        with self._lock:
            messages = list(self._messages.items())
        if not messages:
            return
        with self.redis.pipeline() as pipe:
            for job_id, message_id in messages:
                job, _ = self._jobs.get(job_id, (None, ""))
                queue = PLAY if job is None else queue_of(job.priority)
                pipe.hexists(f"{queue_key(queue)}.msgs", message_id)
            present = pipe.execute()
        now, lost = time.monotonic(), []
        with self._lock:
            for (job_id, _), there in zip(messages, present, strict=True):
                if there or job_id not in self._jobs:
                    self._gone.pop(job_id, None)
                elif now - self._gone.setdefault(job_id, now) >= LOST_SECONDS:
                    lost.append(self._jobs[job_id][1])
        for uid in lost:
            log.warning("search %s: no reply and no message: reported lost", uid)
            with self._lock:
                lost_id = self._by_uid.get(uid)
                job = None if lost_id is None else self._jobs[lost_id][0]
                claim = "" if lost_id is None else self._claimed.get(lost_id, "")
            if job is not None and claim:  # its followers are told too; a new ask searches anew
                for follower in settle_claim(self.redis, job.game_id, job.moves, uid):
                    self.redis.rpush(replies_key(follower), reply(uid, None, LOST))
            self._settle({"uid": uid, "result": None, "error": LOST})

    def _listen(self) -> None:
        self._done.clear()  # a supervised restart: running again, close() waits for it
        key = replies_key(self.uid)
        swept = placed = time.monotonic()
        try:
            while not self._closed:
                if time.monotonic() - swept >= SWEEP_SECONDS:
                    swept = time.monotonic()
                    with contextlib.suppress(redis.RedisError):
                        self._sweep()
                if time.monotonic() - placed >= PLACES_SECONDS:
                    placed = time.monotonic()
                    self._tell_places()
                try:
                    item = self._listener.blpop([key], timeout=LISTEN_SECONDS)
                except redis.RedisError as err:
                    log.error("search replies unreadable: %s", err)
                    self._done.wait(LISTEN_SECONDS)
                    continue
                if item is not None:
                    try:
                        self._settle(json.loads(item[1]))
                    except Exception:  # a malformed reply must not stop the others
                        log.exception("search queue: a reply dropped: %.200r", item[1])
        finally:
            self._done.set()

    def _settle(self, answer: dict[str, Any]) -> None:
        with self._lock:
            job_id = self._by_uid.get(answer["uid"])
        forgotten = None if job_id is None else self._forget(job_id)
        self._release(forgotten)
        if forgotten is None:
            return  # cancelled meanwhile (or a job a host ran twice)
        entry = forgotten[0], forgotten[1]
        with self._gate:
            if self._closed:
                return
            try:
                self.on_result(entry[0], answer["result"], answer["error"])
            except Exception:  # a callback's bug must not stop the replies
                log.exception("search queue: on_result failed for job %d", entry[0].id)
