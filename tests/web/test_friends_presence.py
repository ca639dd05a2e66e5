"""Who is connected to a game between two people when several processes share Redis
(webapp/services/presence.py ``SharedPresence``): two servers on one database and one
Redis, on a made-up time; the real processes are in tests/scale/test_friends_cluster.py."""

from __future__ import annotations

import time as wall_time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from tests.servers import free_port
from tests.web.helpers import make_app
from tests.web.test_friends_service import CREATOR, GUEST, Server, Time, refused, seated_game
from webapp import protocol
from webapp.services.presence import SharedPresence, gone_key, presence_key
from webapp.web.app import close_app
from webapp.web.friend_games import PRESENCE_TIMEOUT

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


def test_a_game_that_ended_is_not_vouched_for_again_by_a_heartbeat(
    servers: tuple[Server, Server], time: Time
) -> None:
    """Its keys went with the game: the sockets still open on its page make none again."""
    a, b = servers
    game = played_twice(a, b)
    a.friends.resign(game, CREATOR)
    time.now += 1  # both heartbeats beat: the guest's socket on B, the creator's on A
    client = a_client(a)
    assert not client.exists(*[k((game, s)) for s in (0, 1) for k in (presence_key, gone_key)])


def test_each_process_reads_the_time_from_redis_so_a_skewed_clock_grants_no_claim(
    redis_url: str,
) -> None:
    """Two web hosts whose clocks are an hour apart: the one behind vouches for its
    player by Redis's clock, and the one ahead still sees that player here."""
    behind = SharedPresence(redis.Redis.from_url(redis_url), beat=3600)
    ahead = SharedPresence(redis.Redis.from_url(redis_url), beat=3600)
    hour, now = 3_600_000, int(wall_time.time() * 1000)
    try:
        behind.arrived("sid", ("skewed", 0), now - 2 * hour)  # its clock: 2 h slow
        assert ahead.gone_ms("skewed", now + 2 * hour)[0] is None  # its clock: 2 h fast
        ahead.arrived("sid", ("skewed", 1), now + 2 * hour)
        assert behind.left("sid", now - 2 * hour) == [("skewed", 0)]
        gone = ahead.gone_ms("skewed", now + 2 * hour)  # gone from Redis's now, not 4 h ago
        assert gone[1] is None and gone[0] is not None and 0 <= gone[0] < hour, gone
    finally:
        behind.close()
        ahead.close()


def cut_off(server: Server) -> Callable[[], None]:
    """Make ``server``'s Redis unreachable (every call fails) until the returned call."""
    client = a_client(server)
    pool = client.connection_pool
    client.connection_pool = redis.ConnectionPool(host="127.0.0.1", port=free_port())

    def restore() -> None:
        client.connection_pool.disconnect()
        client.connection_pool = pool

    return restore


def test_after_a_failed_heartbeat_the_process_answers_present_until_it_has_written_again(
    servers: tuple[Server, Server], time: Time, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A's Redis fails long enough for its word on the creator to run out; Redis back,
    A must not count the creator gone before its heartbeat has vouched again."""
    a, b = servers
    game = played_twice(a, b)
    assert isinstance(a.presence, SharedPresence)
    beat = int(a.presence.beat * 1000)
    restore = cut_off(a)
    time.now += 3 * beat + 2 * ABANDON  # A's heartbeat fails (logged)
    restore()
    assert a.friends.state(a.service.get(game), GUEST)["friend"]["gone_ms"] == [None, None]
    assert refused(a.friends.claim, game, "win", GUEST) == protocol.TOO_EARLY
    time.now += 3 * beat  # A beats again: its doubt is over, its word written again
    assert a.friends.state(a.service.get(game), GUEST)["friend"]["gone_ms"] == [None, None]
    assert refused(b.friends.claim, game, "win", GUEST) == protocol.TOO_EARLY


def test_an_arrival_that_could_not_be_written_is_written_by_the_next_heartbeat(
    servers: tuple[Server, Server], time: Time, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = servers
    game = played_twice(a, b)
    a.friends.disconnected("creator-sid")
    restore = cut_off(a)
    assert not a.friends.connected("creator-again", a.service.get(game), CREATOR)
    restore()
    # Until A has written again, A answers "present" (the creator's field is not there).
    assert a.friends.state(a.service.get(game), GUEST)["friend"]["gone_ms"] == [None, None]
    assert isinstance(a.presence, SharedPresence)
    time.now += int(a.presence.beat * 1000) + 2 * ABANDON  # A's heartbeat writes it
    assert b.friends.state(b.service.get(game), GUEST)["friend"]["gone_ms"] == [None, None]
    assert refused(b.friends.claim, game, "win", GUEST) == protocol.TOO_EARLY


def test_a_socket_of_the_seat_arriving_while_its_last_one_leaves_keeps_the_seat_here(
    servers: tuple[Server, Server], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The creator reconnects to the same process while its old socket's leave is on
    its way to Redis: the seat is never reported gone, and no other process sees it so."""
    a, b = servers
    game = played_twice(a, b)
    assert isinstance(a.presence, SharedPresence)
    leave = a.presence._leave

    def leave_as_the_creator_comes_back(*args: Any, **kwargs: Any) -> Any:
        a.friends.connected("creator-again", a.service.get(game), CREATOR)
        return leave(*args, **kwargs)

    monkeypatch.setattr(a.presence, "_leave", leave_as_the_creator_comes_back)
    assert a.presence.left("creator-sid", a.friends.now_ms()) == []
    assert b.friends.state(b.service.get(game), GUEST)["friend"]["gone_ms"] == [None, None]


def test_the_app_gives_presence_its_own_redis_client_with_a_short_timeout(
    tmp_path: Path, redis_url: str
) -> None:
    """A friend game's updates wait on presence holding the game's lock: a Redis that
    hangs must fail them fast (a failure counts as "present"), not after seconds."""
    app = make_app(tmp_path / "games.db", REDIS_URL=redis_url)
    try:
        presence = app.extensions["lookahead_friends"].presence
        assert isinstance(presence, SharedPresence)
        options = presence.client.connection_pool.connection_kwargs
        assert options["socket_timeout"] == options["socket_connect_timeout"] == PRESENCE_TIMEOUT
        assert PRESENCE_TIMEOUT <= 0.5
        assert presence.now_ms is None  # the time is Redis's, not this host's
    finally:
        close_app(app)
