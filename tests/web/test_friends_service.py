"""Games between two people in the service (webapp/services/friends.py): the clock and
abandonment on a made-up time, and races between two servers sharing one database."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import redis

from tests.web.holding_pool import HoldingPool
from webapp import protocol
from webapp.services import GameError, GameService
from webapp.services import presence as presence_module
from webapp.services.friends import Friends, room, wall_ms
from webapp.services.presence import LocalPresence, Presence, SharedPresence
from webapp.store import open_store

CREATOR, GUEST, OTHER = "creator-token", "guest-token", "someone-else"
START = 5_000_000


class Time:
    """A made-up time source (ms since the epoch) the test moves on by hand.

    Each shared presence given to ``beats`` vouches again for its players whenever the
    time moves, as its heartbeat thread would while its process lives.
    """

    def __init__(self) -> None:
        self._now = START
        self.beats: list[SharedPresence] = []

    def __call__(self) -> int:
        return self._now

    @property
    def now(self) -> int:
        return self._now

    @now.setter
    def now(self, value: int) -> None:
        self._now = value
        for presence in self.beats:
            presence.heartbeat()


class Server:
    """One server's service and friends on a database; what it sent."""

    def __init__(
        self,
        database: str,
        time: Time,
        timers: bool = False,
        redis_url: str | None = None,
    ) -> None:
        self.sent: list[tuple[str, Any, str]] = []
        self.service = GameService(
            open_store(database),
            HoldingPool(set()),  # type: ignore[arg-type]
            lambda event, payload, to: self.sent.append((event, payload, to)),
            seed=0,
        )
        self.presence: Presence = LocalPresence()
        if redis_url is not None:  # one of several processes sharing Redis
            self.presence = SharedPresence(redis.Redis.from_url(redis_url), time, beat=3600)
            time.beats.append(self.presence)
        self.friends = Friends(self.service, now_ms=time, timers=timers, presence=self.presence)

    def close(self) -> None:
        self.friends.close()
        self.service.close()


@pytest.fixture
def time() -> Time:
    return Time()


@pytest.fixture
def server(tmp_path: Path, time: Time) -> Iterator[Server]:
    made = Server(str(tmp_path / "games.db"), time)
    yield made
    made.close()


@pytest.fixture(params=["alone", "redis"])
def either(request: pytest.FixtureRequest, tmp_path: Path, time: Time) -> Iterator[Server]:
    """A server alone (its sockets tell who is here), or one of several sharing Redis."""
    shared = request.getfixturevalue("redis_url") if request.param == "redis" else None
    made = Server(str(tmp_path / "games.db"), time, redis_url=shared)
    yield made
    made.close()


def seated_game(server: Server, **settings: Any) -> str:
    record, invite = server.friends.create("connect4", {"starts": "me", **settings}, owner=CREATOR)
    server.friends.seat(record.id, invite, GUEST)
    return record.id


def refused(action: Any, *args: Any) -> str:
    with pytest.raises(GameError) as caught:
        action(*args)
    return caught.value.code


# -- the clock ---------------------------------------------------------------------------


def test_the_state_carries_both_clocks_and_whose_runs(server: Server, time: Time) -> None:
    game = seated_game(server, clock={"initial": 60, "increment": 2})
    record = server.friends.move(game, "4", CREATOR)
    time.now += 1_500
    clock = server.friends.state(record, GUEST)["friend"]["clock"]
    assert clock == {
        "initial_ms": 60_000,
        "increment_ms": 2_000,
        "remaining_ms": [60_000, 58_500],
        "running": 1,
    }
    time.now += 500
    record = server.friends.move(game, "4", GUEST)
    assert server.friends.state(record, None)["friend"]["clock"]["remaining_ms"] == [
        60_000,
        60_000,  # 60 - 2 + the increment
    ]


def test_a_reconnecting_page_gets_the_time_left_now(server: Server, time: Time) -> None:
    game = seated_game(server, clock={"initial": 30, "increment": 0})
    server.friends.move(game, "4", CREATOR)
    time.now += 12_345  # the page was away meanwhile
    record = server.service.get(game)
    assert server.friends.state(record, GUEST)["friend"]["clock"]["remaining_ms"] == [
        30_000,
        17_655,
    ]


def test_the_flag_falls_and_the_other_side_wins(server: Server, time: Time) -> None:
    game = seated_game(server, clock={"initial": 5, "increment": 0})
    server.friends.move(game, "4", CREATOR)
    time.now += 4_999
    server.friends.check_flag(game)
    assert server.service.get(game).status == "playing"
    time.now += 1
    server.friends.check_flag(game)
    record = server.service.get(game)
    assert (record.status, record.winner) == ("won", 0)
    assert record.friend is not None and record.friend["end"] == "flag"
    view = server.friends.state(record, CREATOR)["friend"]["clock"]
    assert view["running"] is None and view["remaining_ms"] == [5_000, 0]
    ended = [p for e, p, to in server.sent if e == protocol.STATE and to == room(game, None)]
    assert ended[-1]["status"] == "won"


def test_a_move_after_the_flag_fell_is_refused_and_ends_the_game(
    server: Server, time: Time
) -> None:
    game = seated_game(server, clock={"initial": 5, "increment": 0})
    server.friends.move(game, "4", CREATOR)
    time.now += 6_000  # no timer here: the move finds the flag down
    assert refused(server.friends.move, game, "4", GUEST) == protocol.GAME_OVER
    record = server.service.get(game)
    assert (record.moves, record.status, record.winner) == ("4", "won", 0)


def test_the_flag_timer_ends_the_game_on_its_own(tmp_path: Path) -> None:
    clocked = Server(str(tmp_path / "games.db"), Time(), timers=True)
    clocked.friends.now_ms = wall_ms  # the timer waits real time: a short clock
    try:
        game = seated_game(clocked, clock={"initial": 0.2, "increment": 0})
        clocked.friends.move(game, "4", CREATOR)
        # The flag waits on the process's one timer thread, never on a thread of its own.
        assert not [t for t in threading.enumerate() if isinstance(t, threading.Timer)]
        done = threading.Event()
        deadline = 60.0  # a bound on a hang, never a pace

        def over() -> bool:
            return clocked.service.get(game).status != "playing"

        while not over() and deadline > 0:
            done.wait(0.05)
            deadline -= 0.05
        record = clocked.service.get(game)
        assert record.friend is not None
        assert (record.status, record.winner, record.friend["end"]) == ("won", 0, "flag")
    finally:
        clocked.close()


# -- abandonment --------------------------------------------------------------------------


def test_a_player_gone_a_minute_lets_the_other_claim_the_win(either: Server, time: Time) -> None:
    game = seated_game(either)
    record = either.service.get(game)
    either.friends.connected("creator-sid", record, CREATOR)
    either.friends.connected("guest-sid", record, GUEST)
    either.friends.move(game, "4", CREATOR)
    either.friends.move(game, "4", GUEST)
    assert refused(either.friends.claim, game, "win", CREATOR) == protocol.TOO_EARLY
    either.friends.disconnected("guest-sid")
    time.now += 59_999
    assert refused(either.friends.claim, game, "win", CREATOR) == protocol.TOO_EARLY
    time.now += 1
    state = either.friends.state(either.service.get(game), CREATOR)
    assert state["friend"]["gone_ms"] == [None, 60_000]
    assert refused(either.friends.claim, game, "win", OTHER) == protocol.NOT_YOUR_SEAT
    record = either.friends.claim(game, "win", CREATOR)
    assert record.friend is not None
    assert (record.status, record.winner, record.friend["end"]) == ("won", 0, "abandon")


def test_a_second_tab_keeps_the_player_here(either: Server, time: Time) -> None:
    game = seated_game(either)
    record = either.service.get(game)
    either.friends.connected("tab-1", record, GUEST)
    either.friends.connected("tab-2", record, GUEST)
    either.friends.disconnected("tab-1")
    time.now += 120_000
    assert refused(either.friends.claim, game, "abort", CREATOR) == protocol.TOO_EARLY
    either.friends.disconnected("tab-2")
    time.now += 30_000
    either.friends.connected("tab-3", record, GUEST)  # a reload comes back in time
    time.now += 60_000
    assert refused(either.friends.claim, game, "abort", CREATOR) == protocol.TOO_EARLY


def test_before_move_2_a_gone_player_means_an_abort_without_result(
    either: Server, time: Time
) -> None:
    game = seated_game(either)
    either.friends.connected("creator-sid", either.service.get(game), CREATOR)
    either.friends.move(game, "4", CREATOR)
    time.now += 61_000  # the guest never came
    assert refused(either.friends.claim, game, "win", CREATOR) == protocol.TOO_EARLY
    record = either.friends.claim(game, "abort", CREATOR)
    assert record.friend is not None
    assert (record.status, record.winner, record.friend["end"]) == ("aborted", None, "aborted")
    assert refused(either.friends.claim, game, "abort", CREATOR) == protocol.GAME_OVER


def test_nobody_took_the_seat_the_creator_may_abort_at_once(server: Server) -> None:
    record, invite = server.friends.create("connect4", {}, owner=CREATOR)
    assert refused(server.friends.claim, record.id, "win", CREATOR) == protocol.TOO_EARLY
    assert "invite_url" in server.friends.state(record, CREATOR)["friend"]
    called_off = server.friends.claim(record.id, "abort", CREATOR)
    assert called_off.status == "aborted"
    # Called off, the game invites nobody: no link for the creator to send on, and a link
    # sent before seats no one.
    assert "invite_url" not in server.friends.state(called_off, CREATOR)["friend"]
    assert refused(server.friends.seat, record.id, invite, GUEST) == protocol.GAME_OVER
    after = server.service.store.get(record.id)
    assert after is not None and after.friend is not None and after.friend["guest_hash"] is None


# -- races between two servers on one database -----------------------------------------------


@pytest.fixture
def two_servers(tmp_path: Path, time: Time) -> Iterator[tuple[Server, Server]]:
    database = str(tmp_path / "shared.db")
    first, second = Server(database, time), Server(database, time)
    yield first, second
    first.close()
    second.close()


def at_once(*actions: Any) -> list[str]:
    """Run each action in its own thread at the same instant: "ok" or each refusal's code."""
    start = threading.Barrier(len(actions), timeout=60)  # a bound on a hang, not a pace
    results: list[str] = [""] * len(actions)

    def run(index: int) -> None:
        start.wait()
        try:
            actions[index]()
            results[index] = "ok"
        except GameError as err:
            results[index] = err.code

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(actions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def test_two_browsers_taking_the_seat_at_once_exactly_one_wins(
    two_servers: tuple[Server, Server],
) -> None:
    first, second = two_servers
    for _ in range(10):
        record, invite = first.friends.create("connect4", {}, owner=CREATOR)
        results = at_once(
            partial(first.friends.seat, record.id, invite, "browser-a"),
            partial(second.friends.seat, record.id, invite, "browser-b"),
            partial(second.friends.seat, record.id, invite, "browser-c"),
        )
        assert sorted(results) == ["ok", protocol.SEAT_TAKEN, protocol.SEAT_TAKEN]
        seated = first.service.get(record.id).friend
        assert seated is not None and seated["guest_hash"] is not None


def test_a_move_sent_after_seeing_an_older_position_is_refused(server: Server) -> None:
    game = seated_game(server)
    server.friends.move(game, "4", CREATOR, 0)
    assert refused(server.friends.move, game, "4", GUEST, 0) == protocol.NOT_YOUR_TURN
    assert refused(server.friends.move, game, "4", GUEST, "1") == protocol.BAD_REQUEST
    assert server.friends.move(game, "4", GUEST, 1).moves == "44"


def test_both_seats_moving_at_once_exactly_one_move_is_applied(
    two_servers: tuple[Server, Server],
) -> None:
    first, second = two_servers
    game = seated_game(first)
    for ply in range(8):
        mover, waiter = (CREATOR, GUEST) if ply % 2 == 0 else (GUEST, CREATOR)
        results = at_once(
            partial(first.friends.move, game, "1", mover, ply),
            partial(second.friends.move, game, "2", mover, ply),  # the same player's second tab
            partial(second.friends.move, game, "3", waiter, ply),
        )
        assert results.count("ok") == 1, results
        assert results[2] == protocol.NOT_YOUR_TURN
        assert len(first.service.get(game).moves) == ply + 1


def test_a_finished_game_keeps_no_absence_and_absences_are_bounded(
    server: Server, time: Time, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = seated_game(server)
    server.friends.move(game, "4", CREATOR)
    server.friends.resign(game, GUEST)
    state = server.friends.state(server.service.get(game), CREATOR)  # a later look at it
    assert state["friend"]["gone_ms"] == [None, None]
    assert isinstance(server.presence, LocalPresence)
    assert not [seat for seat in server.presence._gone if seat[0] == game]
    monkeypatch.setattr(presence_module, "GONE_KEPT", 6)
    for _ in range(10):  # games nobody joins: two absences each, the oldest dropped
        server.friends.create("connect4", {"starts": "me"}, owner=CREATOR)
    assert len(server.presence) == 6


def test_the_recent_games_give_the_creators_side(server: Server) -> None:
    record, invite = server.friends.create("connect4", {"starts": "friend"}, owner=CREATOR)
    server.friends.seat(record.id, invite, GUEST)
    mine = server.service.games_of(CREATOR)
    assert [(g["id"], g["human_side"]) for g in mine] == [(record.id, 1)]


def test_the_recent_games_of_the_second_seat_give_its_side(server: Server) -> None:
    """The friend who took the seat finds the game among their recent games, on their side."""
    record, invite = server.friends.create("connect4", {"starts": "friend"}, owner=CREATOR)
    assert server.service.games_of(GUEST) == []  # not theirs until they sit
    server.friends.seat(record.id, invite, GUEST)
    theirs = server.service.games_of(GUEST)
    assert [(g["id"], g["human_side"]) for g in theirs] == [(record.id, 0)]
    assert server.service.games_of(OTHER) == []
