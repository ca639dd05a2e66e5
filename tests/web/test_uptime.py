"""No server up, no clock running (webapp/services/uptime.py): an outage is recorded once,
by one of the servers that start after it, and every clock read afterwards, on any of
them, gives it back once to the player on move; a server up meanwhile means there was
none. On a made-up time, servers sharing one database."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web.helpers import wait_until
from tests.web.test_friends_service import CREATOR, GUEST, Server, Time, seated_game
from webapp.services import uptime as uptime_module
from webapp.services.uptime import Uptime
from webapp.store import StoreUnavailable

CLOCK = {"initial": 60, "increment": 0}


@pytest.fixture
def time() -> Time:
    return Time()


@pytest.fixture
def database(tmp_path: Path) -> str:
    return str(tmp_path / "games.db")


@pytest.fixture
def quick_beats(monkeypatch: pytest.MonkeyPatch) -> None:
    """A beat every 10 ms (of the real clock): a test waits for one, not for 5 s."""
    monkeypatch.setattr(uptime_module, "BEAT_SECONDS", 0.01)


@pytest.fixture
def servers() -> Iterator[list[tuple[Server, Uptime]]]:
    """Servers on one database, made on demand (a restart is a new one), closed after."""
    made: list[tuple[Server, Uptime]] = []
    yield made
    for server, up in made:
        up.close()
        server.close()


def started(
    servers: list[tuple[Server, Uptime]], database: str, time: Time, start: bool = True
) -> tuple[Server, Uptime]:
    server = Server(database, time)
    up = Uptime(server.service.store, server.friends, now_ms=time)
    servers.append((server, up))
    if start:
        up.start()
    return server, up


def stopped(servers: list[tuple[Server, Uptime]], server: Server) -> None:
    """SIGTERM: its last mark, then gone."""
    (up,) = [up for each, up in servers if each is server]
    up.close()
    server.close()
    servers[:] = [(each, other) for each, other in servers if each is not server]


def left(server: Server, game: str) -> list[int]:
    record = server.service.get(game)
    times: list[int] = server.friends.state(record, GUEST)["friend"]["clock"]["remaining_ms"]
    return times


def test_an_outage_is_not_charged_to_the_player_on_move(
    servers: list[tuple[Server, Uptime]], database: str, time: Time
) -> None:
    """The attack report's case: the server stopped 10 s into the guest's turn and came back
    60 s later. The guest had lost 70 s of a minute (the flag fell on the first look)."""
    before, _ = started(servers, database, time)
    game = seated_game(before, clock=CLOCK)
    before.friends.move(game, "4", CREATOR)  # the guest's time runs
    time.now += 10_000
    stopped(servers, before)
    time.now += 60_000
    after, _ = started(servers, database, time)
    assert left(after, game) == [60_000, 50_000]  # the outage given back
    time.now += 5_000
    assert left(after, game) == [60_000, 45_000]  # and the clock runs again from the restart
    assert after.friends.move(game, "4", GUEST).status == "playing"
    assert left(after, game) == [60_000, 45_000]  # saved so: given back once, not again


def test_a_server_up_meanwhile_means_no_outage(
    servers: list[tuple[Server, Uptime]], database: str, time: Time
) -> None:
    first, up = started(servers, database, time)
    game = seated_game(first, clock=CLOCK)
    first.friends.move(game, "4", CREATOR)
    time.now += 20_000
    up.close()  # a mark now (a beat): this server is up, serving the game
    time.now += 2_000
    second, _ = started(servers, database, time)
    assert second.friends.outages == ()
    assert left(second, game) == left(first, game) == [60_000, 38_000]  # all of it charged


def test_servers_starting_together_record_the_outage_once_and_each_gives_it_back_once(
    servers: list[tuple[Server, Uptime]], database: str, time: Time, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, _ = started(servers, database, time)
    game = seated_game(first, clock=CLOCK)
    first.friends.move(game, "4", CREATOR)
    time.now += 10_000
    stopped(servers, first)
    time.now += 30_000
    a, up_a = started(servers, database, time, start=False)
    b, up_b = started(servers, database, time, start=False)
    stale = a.service.store.last_alive()  # what both read before either recorded anything
    up_a.start()
    # b read the same time before a recorded the outage: its claim comes too late, and it
    # learns the outage a recorded.
    monkeypatch.setattr(up_b.store, "last_alive", lambda: stale)
    up_b.start()
    assert a.friends.outages == b.friends.outages == ((stale, time.now),)
    assert left(a, game) == left(b, game) == [60_000, 50_000]
    time.now += 1_000
    a.friends.move(game, "4", GUEST)  # saved on a, with the outage given back
    time.now += 2_000
    assert left(b, game) == [58_000, 49_000]  # b gives it no second time


@pytest.mark.usefixtures("quick_beats")
def test_a_store_down_at_start_up_is_asked_again_at_the_next_beat(
    servers: list[tuple[Server, Uptime]],
    database: str,
    time: Time,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, _ = started(servers, database, time)
    game = seated_game(first, clock=CLOCK)
    first.friends.move(game, "4", CREATOR)
    stopped(servers, first)
    time.now += 60_000
    server, up = started(servers, database, time, start=False)
    real, failures = server.service.store.last_alive, [1]

    def down_once() -> int | None:
        if failures:
            failures.pop()
            raise StoreUnavailable("the database is locked")
        return real()

    monkeypatch.setattr(up.store, "last_alive", down_once)
    up.start()
    assert server.friends.outages == ()  # not known yet, and no mark that would hide it
    wait_until(lambda: server.friends.outages != ())
    assert left(server, game) == [60_000, 60_000]


@pytest.mark.usefixtures("quick_beats")
def test_a_running_server_marks_itself_up(
    servers: list[tuple[Server, Uptime]], database: str, time: Time
) -> None:
    server, _ = started(servers, database, time)
    time.now += 3_000
    wait_until(lambda: server.service.store.last_alive() == time.now)
