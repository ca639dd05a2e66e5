"""Who is connected to a game between two people when several processes share Redis
(webapp/services/presence.py ``SharedPresence``): two servers on one database and one
Redis, on a made-up time; the real processes are in tests/scale/test_friends_cluster.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from tests.servers import free_port
from tests.web.test_friends_service import CREATOR, GUEST, Server, Time, refused, seated_game
from webapp import protocol
from webapp.services.presence import SharedPresence, gone_key, presence_key

ABANDON = protocol.ABANDON_SECONDS * 1000


@pytest.fixture
def time() -> Time:
    return Time()


@pytest.fixture
def servers(tmp_path: Path, time: Time, redis_url: str) -> Iterator[tuple[Server, Server]]:
    a = Server(str(tmp_path / "games.db"), time, redis_url=redis_url)
    b = Server(str(tmp_path / "games.db"), time, redis_url=redis_url)
    yield a, b
    a.close()
    b.close()


def played_twice(a: Server, b: Server) -> str:
    """A seated game, the creator's page on A and the guest's on B, a move each."""
    game = seated_game(a)
    a.friends.connected("creator-sid", a.service.get(game), CREATOR)
    b.friends.connected("guest-sid", b.service.get(game), GUEST)
    a.friends.move(game, "4", CREATOR)
    b.friends.move(game, "4", GUEST)
    return game


def test_a_player_connected_to_another_process_cannot_be_claimed_against(
    servers: tuple[Server, Server], time: Time
) -> None:
    a, b = servers
    game = played_twice(a, b)
    time.now += 10 * ABANDON  # A's heartbeat goes on all along
    assert b.friends.state(b.service.get(game), GUEST)["friend"]["gone_ms"] == [None, None]
    assert refused(b.friends.claim, game, "win", GUEST) == protocol.TOO_EARLY
    assert refused(a.friends.claim, game, "win", CREATOR) == protocol.TOO_EARLY


def test_a_player_leaving_another_process_lets_the_other_claim_after_the_grace(
    servers: tuple[Server, Server], time: Time
) -> None:
    a, b = servers
    game = played_twice(a, b)
    a.friends.disconnected("creator-sid")
    # A told everyone (its rooms are Redis's in the app): the creator is gone from now.
    told = [payload for event, payload, _ in a.sent if event == protocol.STATE]
    assert told[-1]["friend"]["gone_ms"] == [0, None]
    time.now += ABANDON - 1
    assert refused(b.friends.claim, game, "win", GUEST) == protocol.TOO_EARLY
    time.now += 1
    assert b.friends.state(b.service.get(game), GUEST)["friend"]["gone_ms"] == [ABANDON, None]
    record = b.friends.claim(game, "win", GUEST)
    assert record.friend is not None
    assert (record.status, record.winner, record.friend["end"]) == ("won", 1, "abandon")
    # The game is over: nothing of its seats is kept in Redis.
    client = a_client(a)
    assert not client.exists(*[k((game, s)) for s in (0, 1) for k in (presence_key, gone_key)])


def a_client(server: Server) -> redis.Redis:
    assert isinstance(server.presence, SharedPresence)
    return server.presence.client


def test_a_second_tab_on_another_process_keeps_the_player_here(
    servers: tuple[Server, Server], time: Time
) -> None:
    a, b = servers
    game = played_twice(a, b)
    b.friends.connected("creator-tab-on-b", b.service.get(game), CREATOR)
    a.friends.disconnected("creator-sid")
    time.now += 2 * ABANDON
    assert refused(b.friends.claim, game, "win", GUEST) == protocol.TOO_EARLY
    b.friends.disconnected("creator-tab-on-b")
    time.now += ABANDON
    assert b.friends.claim(game, "win", GUEST).status == "won"


def test_a_process_that_dies_counts_its_players_gone_once_its_word_runs_out(
    servers: tuple[Server, Server], time: Time
) -> None:
    a, b = servers
    game = played_twice(a, b)
    assert isinstance(a.presence, SharedPresence)
    vouched = 3 * a.presence.beat * 1000
    time.beats.remove(a.presence)  # A dies: no heartbeat, no disconnect, nothing
    time.now += int(vouched) - 1
    assert b.friends.state(b.service.get(game), GUEST)["friend"]["gone_ms"] == [None, None]
    time.now += 1 + ABANDON - 1
    assert refused(b.friends.claim, game, "win", GUEST) == protocol.TOO_EARLY
    time.now += 1
    assert b.friends.claim(game, "win", GUEST).status == "won"


def test_a_player_coming_back_through_another_process_is_here_again(
    servers: tuple[Server, Server], time: Time
) -> None:
    a, b = servers
    game = played_twice(a, b)
    a.friends.disconnected("creator-sid")
    time.now += ABANDON // 2
    # Back through B: B tells the other side the creator is back (True).
    assert b.friends.connected("creator-again", b.service.get(game), CREATOR)
    time.now += 2 * ABANDON
    assert refused(b.friends.claim, game, "win", GUEST) == protocol.TOO_EARLY


def test_redis_failing_counts_as_present_and_refuses_a_claim(tmp_path: Path, time: Time) -> None:
    """What cannot be read never grants a claim."""
    down = Server(str(tmp_path / "games.db"), time, redis_url=f"redis://127.0.0.1:{free_port()}/0")
    time.beats.clear()  # its heartbeat fails too (logged, on its thread)
    try:
        game = seated_game(down)
        down.friends.connected("creator-sid", down.service.get(game), CREATOR)
        down.friends.move(game, "4", CREATOR)
        down.friends.move(game, "4", GUEST)
        time.now += 10 * ABANDON
        assert down.friends.state(down.service.get(game), CREATOR)["friend"]["gone_ms"] == [
            None,
            None,
        ]
        assert refused(down.friends.claim, game, "win", CREATOR) == protocol.TOO_EARLY
    finally:
        down.close()
