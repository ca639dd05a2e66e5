"""The shared search queue on Redis: its queues, keys and messages, for web processes and hosts.

Several web processes (``QueuePool``) put search jobs on Redis; search hosts
(``python -m webapp.search_host``) take them. Dramatiq's Redis broker carries the
jobs: a host takes a message and acknowledges it only once the job is done,
and a host that stops sending heartbeats for ``HEARTBEAT_TIMEOUT`` seconds
has its unacknowledged messages put back on their queue for another host.

Two queues, so that analyses never delay a move: ``PLAY`` (the engine's moves)
and ``ANALYSIS`` (analyses, the scores of the moves not played, and the search
explorer's traces). A host takes a move only when it has a thread free for
moves. A message carries its job's ``kind`` (a search or a trace, see
``jobs.py``); one without (from an older web process) is a search.

Beside the broker's own keys (``NAMESPACE:play`` ...), a few plain keys:

* ``cancel_key(uid)``   set when a web process cancels a job (hosts poll it)
* ``epoch_key(game)``   bumped when a game's engine search starts or stops: a
                        host drops the scores it computes for a position left
* ``replies_key(pool)`` a list a web process reads: "job uid is settled"
* ``HOSTS``             a hash of host id -> its last heartbeat (``/healthz``)
* ``engine_key(game, moves)``  the engine search asked for a game's position: "uid
                        [message id]". A second web process asking the same search
                        follows it (``followers_key(uid)``: its pool's uid) instead
                        of queueing another; the host that ends it tells them all
* ``depths_key(game)``  the ``thinking`` rows of the game's engine search so far
                        (a host appends them), replayed to a page joining anywhere
* ``count_key(...)``    searches not settled per owner and per game, every web
                        process's together: the per-browser bounds of the cluster. A
                        sorted set of job uids scored by when each unit lapses
                        (``TAKE_UNITS``, ``COUNT_UNITS``): given back one by one, and
                        a unit whose web process died lapses alone, however busy the
                        owner stays.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

import dramatiq
from dramatiq.brokers.redis import RedisBroker

from webapp.engine.search import Limits
from webapp.engine.trace import ORDERINGS
from webapp.search_pool.jobs import KINDS, SEARCH, Priority, SearchJob

#: The queues, and the Dramatiq actor that takes each one's messages.
PLAY, ANALYSIS = "play", "analysis"
ACTORS = {PLAY: "play", ANALYSIS: "analyse"}
#: The prefix of every key (Dramatiq's queues and ours).
NAMESPACE = "lookahead"
HOSTS = f"{NAMESPACE}:hosts"
#: Seconds without a heartbeat before a host's jobs go back on their queue (at most
#: 30 s, the promise; a host polls several times a second, so 10 s is never a live one).
HEARTBEAT_TIMEOUT = 10.0
#: Commands per million that also requeue a dead host's jobs: a host polls each queue
#: ~40 times a second, so a dead host's jobs are back about a second past the timeout.
MAINTENANCE_CHANCE = 25_000
#: Seconds the keys of a job (its cancel flag, a reply list) outlive it.
KEY_SECONDS = 3600
#: Seconds a host's heartbeat in ``HOSTS`` counts for.
HOST_SECONDS = 10.0


def cancel_key(uid: str) -> str:
    return f"{NAMESPACE}:cancel:{uid}"


def epoch_key(game_id: str) -> str:
    return f"{NAMESPACE}:epoch:{game_id}"


def replies_key(pool_uid: str) -> str:
    return f"{NAMESPACE}:replies:{pool_uid}"


def engine_key(game_id: str, moves: str) -> str:
    return f"{NAMESPACE}:engine:{game_id}:{moves}"


def followers_key(uid: str) -> str:
    return f"{NAMESPACE}:followers:{uid}"


def depths_key(game_id: str) -> str:
    return f"{NAMESPACE}:depths:{game_id}"


def count_key(queue: str, what: str, name: str) -> str:
    """The units of ``queue``'s searches not settled for one owner or game (``what``)."""
    return f"{NAMESPACE}:units:{queue}:{what}:{name}"


#: Take a unit of each of KEYS (``count_key`` sets) for one job, all or none (ARGV: the
#: job's uid, the seconds a unit lives, then one limit per key). Units past their time
#: are dropped first. 0: taken; k > 0: refused, KEYS[k] is full.
TAKE_UNITS = """
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1e6
local ttl = tonumber(ARGV[2])
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if redis.call('ZCARD', key) >= tonumber(ARGV[2 + i]) then return i end
end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, now + ttl, ARGV[1])
  redis.call('EXPIRE', key, math.ceil(ttl))
end
return 0
"""

#: The live units of each of KEYS (``count_key`` sets), in order.
COUNT_UNITS = """
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1e6
local counts = {}
for i, key in ipairs(KEYS) do counts[i] = redis.call('ZCOUNT', key, '(' .. now, '+inf') end
return counts
"""


#: Claim a game position's engine search (KEYS[1] its ``engine_key``; ARGV: the new
#: claim, its seconds, the followers' key prefix, this pool's uid). Nil: claimed, queue
#: it. Otherwise the claim held ("uid [message id]"), which this pool now follows.
CLAIM = """
local held = redis.call("get", KEYS[1])
if not held then
  redis.call("set", KEYS[1], ARGV[1], "EX", ARGV[2])
  return nil
end
local followers = ARGV[3] .. string.match(held, "^(%S+)")
redis.call("sadd", followers, ARGV[4])
redis.call("expire", followers, ARGV[2])
return held
"""
#: The claimed search is queued as message ARGV[2] (KEYS[1] the claim, ARGV[1] its uid).
MARK = """
if redis.call("get", KEYS[1]) == ARGV[1] then
  redis.call("set", KEYS[1], ARGV[1] .. " " .. ARGV[2], "KEEPTTL")
end
"""
#: An engine search ends (KEYS: its claim, its followers; ARGV[1]: its uid): the claim
#: goes if it is still this search's, and (ARGV[2] "1") the followers to tell are returned.
SETTLE = """
local held = redis.call("get", KEYS[1])
if held and string.match(held, "^(%S+)") == ARGV[1] then
  redis.call("del", KEYS[1])
end
if ARGV[2] ~= "1" then
  return {}
end
local followers = redis.call("smembers", KEYS[2])
redis.call("del", KEYS[2])
return followers
"""


def settle_claim(
    client: Any, game_id: str, moves: str, uid: str, followers: bool = True
) -> list[str]:
    """End the claim of engine search ``uid`` so that nobody follows it from now on; the
    pools that followed it (their uids), taken: the caller tells them. ``followers``
    False leaves them to whoever ends the search (a cancel: the host replies)."""
    keys = [engine_key(game_id, moves), followers_key(uid)]
    told = client.eval(SETTLE, len(keys), *keys, uid, "1" if followers else "0")
    return [each.decode() if isinstance(each, bytes) else str(each) for each in told]


def queue_key(queue: str) -> str:
    """The Redis list of the messages waiting in ``queue`` (Dramatiq's layout)."""
    return f"{NAMESPACE}:{queue}"


def queue_of(priority: Priority) -> str:
    return PLAY if priority == Priority.ENGINE else ANALYSIS


def make_broker(
    url: str, *, heartbeat_timeout: float = HEARTBEAT_TIMEOUT, queues: tuple[str, ...] = ()
) -> RedisBroker:
    """A Dramatiq broker on ``url`` with no middleware (no retries, no time limit: a
    job's outcome is always reported, never raised) and ``queues`` declared."""
    broker = RedisBroker(  # type: ignore[no-untyped-call]
        url=url,
        namespace=NAMESPACE,
        middleware=[],
        heartbeat_timeout=int(heartbeat_timeout * 1000),
        maintenance_chance=MAINTENANCE_CHANCE,
    )
    for queue in queues:
        broker.declare_queue(queue)
    return broker


def job_payload(
    job: SearchJob, uid: str, reply_to: str, epoch: int | None = None
) -> dict[str, Any]:
    """What a message carries: the job, who to tell (``reply_to``), and its ``uid``."""
    return {
        "uid": uid,
        "reply_to": reply_to,
        "epoch": epoch,
        "kind": job.kind,
        "ordering": job.ordering,
        "game": job.game,
        "moves": job.moves,
        "algorithm": job.algorithm,
        "limits": asdict(job.limits),
        "seed": job.seed,
        "move_scores": job.move_scores,
        "progress": job.progress,
        "priority": int(job.priority),
        "owner": job.owner,
        "game_id": job.game_id,
        "turn": job.turn,
    }


def job_of(payload: dict[str, Any], tag: Any = None) -> SearchJob:
    """The job a message asks for (a new one, with ``tag``); ValueError if its kind or
    ordering is not one this host knows (a message from a newer or a broken sender)."""
    kind, ordering = payload.get("kind", SEARCH), payload.get("ordering", "engine")
    if kind not in KINDS or ordering not in ORDERINGS:
        raise ValueError(f"unknown job kind {kind!r} or ordering {ordering!r}")
    return SearchJob(
        payload["game"],
        payload["moves"],
        payload["algorithm"],
        Limits(**payload["limits"]),
        seed=payload["seed"],
        tag=tag,
        move_scores=payload["move_scores"],
        priority=Priority(payload["priority"]),
        owner=payload["owner"],
        game_id=payload["game_id"],
        kind=kind,
        ordering=ordering,
        progress=bool(payload.get("progress", True)),  # a sender of before: reported
        turn=str(payload.get("turn") or ""),  # a sender of before: the owner's turn
    )


def message_of(payload: dict[str, Any]) -> dramatiq.Message[Any]:
    """The Dramatiq message for a job's payload, on the queue its priority picks."""
    queue = queue_of(Priority(payload["priority"]))
    return dramatiq.Message(
        queue_name=queue, actor_name=ACTORS[queue], args=(payload,), kwargs={}, options={}
    )


def reply(uid: str, result: dict[str, Any] | None, error: str | None) -> str:
    """A reply as it goes on a web process's reply list."""
    return json.dumps({"uid": uid, "result": result, "error": error})
