"""Who is connected to a game between two people, and since when a player has not been.

A player whose pages have all gone lets the other claim the game after a while
(``Friends.claim``). Two ways to know it, one interface (``Presence``):

* ``LocalPresence``: every page of a game connects to this one process, so its
  sockets are the whole truth (the default, with no Redis).
* ``SharedPresence``: several web processes share Redis, and a player's pages may
  connect to any of them. Each process vouches, per seat it has sockets of, until a
  time a little ahead (a field of the seat's hash in Redis, refreshed by a heartbeat
  thread); a seat is present while any process's field is still ahead of now. A
  process whose last socket of a seat leaves drops its field and, if no other
  process vouches, writes when the seat went (the seat's gone key). A process that
  dies without a word stops refreshing: its field runs out, and the seat counts as
  gone from that moment.

Times are milliseconds since the epoch. ``SharedPresence`` reads them from Redis
(``TIME`` inside its scripts), one clock for every process: a web host whose clock
is off cannot vouch too long, nor see a connected player gone. A seat never seen at
all counts as gone from the first look at it: a later claim than the truth, never an
earlier one. After a Redis error, a process answers "present" for a while (its own
fields may have run out meanwhile) and writes again what it could not.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import Protocol

import redis

log = logging.getLogger(__name__)

#: A seat: (game id, side).
Seat = tuple[str, int]

#: The most seat absences ``LocalPresence`` keeps (the oldest go first).
GONE_KEPT = 20_000
#: Seconds between two heartbeats of ``SharedPresence`` (its fields last three of them).
BEAT_SECONDS = 5.0
#: How long a seat's keys stay in Redis after their last write (a game nobody ends).
KEEP_MS = 24 * 3600 * 1000


class Presence(Protocol):
    """Sockets of the players of games, and how long a seat has had none."""

    def arrived(self, sid: str, seat: Seat, at: int) -> bool:
        """Socket ``sid`` plays ``seat``; True if the seat was gone (the other side is told)."""
        ...

    def left(self, sid: str, at: int) -> list[Seat]:
        """Socket ``sid`` went: the seats it played that now have no socket anywhere."""
        ...

    def gone_ms(self, game_id: str, at: int) -> list[int | None]:
        """For each side of the game, how long it has had no socket (None: it has one)."""
        ...

    def mark_gone(self, seat: Seat, at: int) -> None:
        """A seat nobody holds a socket of yet: gone from ``at`` unless known otherwise."""
        ...

    def forget(self, game_id: str) -> None:
        """The game is over: nobody can claim it, its absences go."""
        ...

    def close(self) -> None: ...


class Sockets:
    """The sockets of this process, per seat they play (shared by both presences)."""

    def __init__(self) -> None:
        self.guard = threading.Lock()
        self._seats: dict[str, set[Seat]] = {}  # sid -> the seats it plays
        self.here: Counter[Seat] = Counter()  # seat -> its sockets in this process

    def add(self, sid: str, seat: Seat) -> bool:
        """Count ``sid`` for ``seat`` (under ``guard``); True if it is the seat's first here."""
        seats = self._seats.setdefault(sid, set())
        if seat in seats:
            return False
        seats.add(seat)
        self.here[seat] += 1
        return self.here[seat] == 1

    def remove(self, sid: str) -> list[Seat]:
        """Forget ``sid`` (under ``guard``): the seats with no socket left here."""
        emptied = []
        for seat in self._seats.pop(sid, set()):
            self.here[seat] -= 1
            if self.here[seat] <= 0:
                del self.here[seat]
                emptied.append(seat)
        return emptied


class LocalPresence:
    """Presence when every page connects to this process (see the module docstring)."""

    def __init__(self) -> None:
        self.sockets = Sockets()
        # seat -> since when (ms) it has had no socket; the oldest go past GONE_KEPT (one
        # unknown again counts from its next look), and a game's go when it ends.
        self._gone: OrderedDict[Seat, int] = OrderedDict()

    def arrived(self, sid: str, seat: Seat, at: int) -> bool:
        with self.sockets.guard:
            self.sockets.add(sid, seat)
            return self._gone.pop(seat, None) is not None

    def left(self, sid: str, at: int) -> list[Seat]:
        with self.sockets.guard:
            emptied = self.sockets.remove(sid)
            for seat in emptied:
                self._note(seat, at)
            return emptied

    def gone_ms(self, game_id: str, at: int) -> list[int | None]:
        with self.sockets.guard:
            return [self._gone_ms((game_id, side), at) for side in (0, 1)]

    def mark_gone(self, seat: Seat, at: int) -> None:
        with self.sockets.guard:
            if seat not in self.sockets.here and seat not in self._gone:
                self._note(seat, at)

    def forget(self, game_id: str) -> None:
        with self.sockets.guard:
            for side in (0, 1):
                self._gone.pop((game_id, side), None)

    def close(self) -> None:
        pass

    def __len__(self) -> int:
        """How many absences are kept."""
        return len(self._gone)

    def _gone_ms(self, seat: Seat, at: int) -> int | None:
        if seat in self.sockets.here:
            return None
        since = self._gone.get(seat)
        if since is None:  # unknown here: from now
            since = self._note(seat, at)
        return max(0, at - since)

    def _note(self, seat: Seat, since: int) -> int:
        """``seat`` gone since ``since`` (under the guard); the oldest past GONE_KEPT go."""
        self._gone[seat] = since
        self._gone.move_to_end(seat)
        while len(self._gone) > GONE_KEPT:
            self._gone.popitem(last=False)
        return since


# -- Redis ------------------------------------------------------------------------------
# KEYS: a seat's hash (process -> vouched until, ms) and its gone key (gone since, ms).
# ARGV "at": "" for Redis's own clock (every process reads the same one), or a time in
# ms (a made-up clock, in tests).

_NOW = """
local function now(at)
  if at ~= '' then return tonumber(at) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
"""

#: ARGV: process, span, keep, at -> 1 if no other process vouched for the seat.
_ARRIVE = (
    _NOW
    + """
local at = now(ARGV[4])
local was_gone = 1
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  if fields[i] ~= ARGV[1] and tonumber(fields[i + 1]) > at then was_gone = 0 end
end
redis.call('HSET', KEYS[1], ARGV[1], at + tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('DEL', KEYS[2])
return was_gone
"""
)

#: ARGV: process, at, keep -> 1 if the seat is gone everywhere now (its gone key written).
_LEAVE = (
    _NOW
    + """
local at = now(ARGV[2])
redis.call('HDEL', KEYS[1], ARGV[1])
for _, vouched in ipairs(redis.call('HVALS', KEYS[1])) do
  if tonumber(vouched) > at then return 0 end
end
redis.call('SET', KEYS[2], at, 'PX', ARGV[3])
return 1
"""
)

#: KEYS: side 0's hash and gone key, side 1's. ARGV: at, keep -> per side, -1 if some
#: process vouches for it, else how long it has been gone: since the later of its gone
#: key and the last field that ran out (a process that died), or from now if neither.
_GONE = (
    _NOW
    + """
local at = now(ARGV[1])
local out = {}
for side = 0, 1 do
  local since = nil
  local here = false
  for _, vouched in ipairs(redis.call('HVALS', KEYS[2 * side + 1])) do
    local t = tonumber(vouched)
    if t > at then here = true elseif since == nil or t > since then since = t end
  end
  if here then
    out[side + 1] = -1
  else
    local noted = redis.call('GET', KEYS[2 * side + 2])
    if noted and (since == nil or tonumber(noted) > since) then since = tonumber(noted) end
    if since == nil then
      since = at
      redis.call('SET', KEYS[2 * side + 2], at, 'PX', ARGV[2])
    end
    out[side + 1] = math.max(0, at - since)
  end
end
return out
"""
)

#: KEYS: a seat's gone key. ARGV: at, keep -> the seat gone from now unless known already.
_MARK = (
    _NOW
    + """
redis.call('SET', KEYS[1], now(ARGV[1]), 'PX', ARGV[2], 'NX')
return 0
"""
)

#: KEYS: seats' hashes. ARGV: process, span, keep, at -> vouch again for each seat whose
#: hash is still there (a game that ended has none: its keys are not made again).
_BEAT = (
    _NOW
    + """
local vouched = now(ARGV[4]) + tonumber(ARGV[2])
for _, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 1 then
    redis.call('HSET', key, ARGV[1], vouched)
    redis.call('PEXPIRE', key, ARGV[3])
  end
end
return 0
"""
)


def presence_key(seat: Seat) -> str:
    return f"lookahead:presence:{seat[0]}:{seat[1]}"


def gone_key(seat: Seat) -> str:
    return f"lookahead:gone:{seat[0]}:{seat[1]}"


class SharedPresence:
    """Presence across the web processes sharing ``client``'s Redis (the module docstring).

    ``beat``: seconds between two heartbeats; a process vouches for three of them, so a
    process that died counts as gone within ``3 * beat`` seconds. Times come from Redis
    (``TIME``), unless ``now_ms`` is given (a made-up clock, in tests): then from it, and
    the ``at`` of each call. A Redis error counts as "present": a claim is refused rather
    than granted on what could not be read; and for three beats after a write of this
    process failed (its fields may have run out), the process answers "present" too,
    while its heartbeat writes them again. ``close`` closes ``client``.
    """

    def __init__(
        self,
        client: redis.Redis,
        now_ms: Callable[[], int] | None = None,
        beat: float = BEAT_SECONDS,
    ) -> None:
        self.client, self.now_ms, self.beat = client, now_ms, beat
        self.process = secrets.token_hex(8)
        self.sockets = Sockets()
        self._arrive = client.register_script(_ARRIVE)
        self._leave = client.register_script(_LEAVE)
        self._gone = client.register_script(_GONE)
        self._mark = client.register_script(_MARK)
        self._beat = client.register_script(_BEAT)
        self._unwritten: set[Seat] = set()  # seats here whose field a failure left unwritten
        self._doubt_until = 0  # until when (``_local_ms``) a failure makes every seat present
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def arrived(self, sid: str, seat: Seat, at: int) -> bool:
        with self.sockets.guard:
            first = self.sockets.add(sid, seat)
            self._start()
        if not first:
            return False
        try:
            return self._write(seat, self._at(at))
        except redis.RedisError as err:
            log.warning("presence of %s not written: %s", seat, err)
            with self.sockets.guard:
                self._failed()
                self._unwritten.add(seat)  # the next heartbeat tries again
            return False

    def left(self, sid: str, at: int) -> list[Seat]:
        with self.sockets.guard:
            emptied = self.sockets.remove(sid)
            self._unwritten.difference_update(emptied)
        gone = []
        for seat in emptied:
            try:
                keys = [presence_key(seat), gone_key(seat)]
                went = self._leave(keys, [self.process, self._at(at), KEEP_MS])
                with self.sockets.guard:
                    if seat in self.sockets.here:  # a socket of it arrived here meanwhile,
                        self._write(seat, self._at(at))  # its field dropped by this: again
                        continue  # (and its gone key cleared): the seat never went
                if went:
                    gone.append(seat)
            except redis.RedisError as err:  # its field runs out by itself
                log.warning("absence of %s not written: %s", seat, err)
        return gone

    def gone_ms(self, game_id: str, at: int) -> list[int | None]:
        with self.sockets.guard:
            if self._local_ms() < self._doubt_until:
                return [None, None]
        seats = [(game_id, 0), (game_id, 1)]
        keys = [key for seat in seats for key in (presence_key(seat), gone_key(seat))]
        try:
            found = self._gone(keys, [self._at(at), KEEP_MS])
        except redis.RedisError as err:
            log.warning("presence in %s not read: %s", game_id, err)
            return [None, None]
        return [None if int(ms) < 0 else int(ms) for ms in found]

    def mark_gone(self, seat: Seat, at: int) -> None:
        try:
            self._mark([gone_key(seat)], [self._at(at), KEEP_MS])
        except redis.RedisError as err:  # the first look at it counts from then
            log.warning("absence of %s not written: %s", seat, err)

    def forget(self, game_id: str) -> None:
        seats = [(game_id, 0), (game_id, 1)]
        with self.sockets.guard:
            self._unwritten.difference_update(seats)
        try:
            self.client.delete(*[key(seat) for seat in seats for key in (presence_key, gone_key)])
        except redis.RedisError as err:  # they expire
            log.warning("presence in %s not forgotten: %s", game_id, err)

    def close(self) -> None:
        self._stop.set()
        with self.sockets.guard:
            thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=10)
        self.client.close()

    def _write(self, seat: Seat, at: int | str) -> bool:
        """Vouch for ``seat`` and clear its gone key: True if no other process vouched."""
        keys = [presence_key(seat), gone_key(seat)]
        return bool(self._arrive(keys, [self.process, self._span(), KEEP_MS, at]))

    def _span(self) -> int:
        """How long a field vouches (ms): three beats."""
        return int(3 * self.beat * 1000)

    def _at(self, at: int) -> int | str:
        """The time a script goes by: Redis's own ("") unless a made-up clock is given."""
        return "" if self.now_ms is None else at

    def _local_ms(self) -> int:
        """This process's clock, for its own waits only (never compared with another's)."""
        return int(time.monotonic() * 1000) if self.now_ms is None else self.now_ms()

    def _failed(self) -> None:
        """A write failed (under the guard): answer "present" for the next three beats."""
        self._doubt_until = self._local_ms() + self._span()

    def _start(self) -> None:
        """The heartbeat thread, from the first socket of a player (under the guard)."""
        if self._thread is None and not self._stop.is_set():
            self._thread = threading.Thread(target=self._run, name="presence", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.beat):
            try:
                self.heartbeat()
            except Exception:  # a bug here must not stop the heartbeat for good
                log.exception("presence heartbeat failed")

    def heartbeat(self) -> None:
        """Vouch again for every seat with a socket here, up to three beats ahead; write
        again the seats a failure left unwritten (or lost: Redis may have restarted)."""
        with self.sockets.guard:
            seats = list(self.sockets.here)
            unwritten = [seat for seat in seats if seat in self._unwritten]
        if not seats:
            return
        at = "" if self.now_ms is None else self.now_ms()
        try:
            for seat in unwritten:
                self._write(seat, at)
                with self.sockets.guard:
                    self._unwritten.discard(seat)
            keys = [presence_key(seat) for seat in seats]
            self._beat(keys, [self.process, self._span(), KEEP_MS, at])
        except redis.RedisError as err:
            log.warning("presence heartbeat failed: %s", err)
            with self.sockets.guard:
                self._failed()
                self._unwritten.update(seat for seat in seats if seat in self.sockets.here)
