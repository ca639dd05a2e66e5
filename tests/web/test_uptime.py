"""No server up, no clock running (webapp/services/uptime.py): an outage is given back to
the player on move once, by one of the servers that start after it; a server up meanwhile
means there was none. On a made-up time, two servers sharing one database."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web.helpers import wait_until
from tests.web.test_friends_service import GUEST, Server, Time, seated_game
from webapp.services import uptime as uptime_module
from webapp.services.uptime import Uptime

CLOCK = {"initial": 60, "increment": 0}


@pytest.fixture
def time() -> Time:
    return Time()


@pytest.fixture
def database(tmp_path: Path) -> str:
    return str(tmp_path / "games.db")


@pytest.fixture
def servers(database: str, time: Time) -> Iterator[list[Server]]:
    """Servers on one database, made on demand (a restart is a new one)."""
    made: list[Server] = []
    yield made
    for server in made:
        server.close()


def started(servers: list[Server], database: str, time: Time) -> tuple[Server, Uptime]:
    server = Server(database, time)
    servers.append(server)
    up = Uptime(server.service.store, server.friends, now_ms=time)
    up.start()
    return server, up


def guest_left(server: Server, game: str) -> int:
    record = server.service.get(game)
    left: int = server.friends.state(record, GUEST)["friend"]["clock"]["remaining_ms"][1]
    return left


def test_an_outage_is_not_charged_to_the_player_on_move(
    servers: list[Server], database: str, time: Time
) -> None:
    """The attack report's case: the server stopped 10 s into the guest's turn and came back
    60 s later. The guest had lost 70 s of a minute (the flag fell on the first look)."""
    before, up = started(servers, database, time)
    game = seated_game(before, clock=CLOCK)
    before.friends.move(game, "4", "creator-token")  # the guest's time runs
    time.now += 10_000
    up.close()  # SIGTERM: its last mark
    before.close()
    servers.remove(before)
    time.now += 60_000
    after, up = started(servers, database, time)
    assert guest_left(after, game) == 50_000  # the outage given back
    time.now += 5_000
    assert guest_left(after, game) == 45_000  # and the clock runs again from the restart
    assert after.friends.move(game, "4", GUEST).status == "playing"
    up.close()


def test_a_server_up_meanwhile_means_no_outage(
    servers: list[Server], database: str, time: Time
) -> None:
    first, up = started(servers, database, time)
    game = seated_game(first, clock=CLOCK)
    first.friends.move(game, "4", "creator-token")
    time.now += 20_000
    up.close()  # a beat 0 s ago: this server is up (and stays up, serving the game)
    time.now += 2_000
    _, second_up = started(servers, database, time)
    assert guest_left(first, game) == 38_000  # every second since the move is charged
    second_up.close()


def test_of_two_servers_starting_after_an_outage_one_gives_it_back(
    servers: list[Server], database: str, time: Time, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, up = started(servers, database, time)
    game = seated_game(first, clock=CLOCK)
    first.friends.move(game, "4", "creator-token")
    time.now += 10_000
    up.close()
    time.now += 30_000
    ups: list[Uptime] = []
    for _ in range(2):
        server = Server(database, time)
        servers.append(server)
        ups.append(Uptime(server.service.store, server.friends, now_ms=time))
    stale = first.service.store.last_alive()  # what both read before either started
    ups[0].start()
    # The second read the same time before the first claimed the outage: it claims too late.
    monkeypatch.setattr(ups[1].store, "last_alive", lambda: stale)
    ups[1].start()
    assert guest_left(first, game) == 50_000  # given back once, not twice (80 s of 60)
    for each in ups:
        each.close()


def test_a_running_server_marks_itself_up(
    servers: list[Server], database: str, time: Time, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(uptime_module, "BEAT_SECONDS", 0.01)
    server, up = started(servers, database, time)
    time.now += 3_000
    wait_until(lambda: server.service.store.last_alive() == time.now)
    up.close()
