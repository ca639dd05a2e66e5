"""Admission (webapp/web/admission.py): rate limits per identity and per address, and
Socket.IO packets that cannot be read."""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from limits import parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from redis.exceptions import ConnectionError as RedisConnectionError

from tests.web.helpers import Listener, create, make_app
from webapp import protocol
from webapp.web import admission as admission_module
from webapp.web.admission import (
    Admission,
    LocalWindows,
    RateLimited,
    SharedWindows,
    windows_at,
)
from webapp.web.app import close_app
from webapp.web.config import DEFAULTS

TIGHT = {
    "RATE_LIMIT_CREATE_PER_IDENTITY": "2/minute",
    "RATE_LIMIT_CREATE_PER_ADDRESS": "5/minute",
    "RATE_LIMIT_EVENTS_PER_IDENTITY": "6/minute",
    "RATE_LIMIT_EVENTS_PER_ADDRESS": "100/minute",
    "RATE_LIMIT_ANALYSE_PER_IDENTITY": "1/minute",
}


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    made = make_app(tmp_path / "games.db", **TIGHT)
    yield made
    close_app(made)


# -- the limiter itself ----------------------------------------------------------------------


def admission(**limits: tuple[str | None, str | None]) -> Admission:
    return Admission("memory://", limits)


def test_each_identity_and_each_address_has_its_own_budget() -> None:
    gate = admission(create=("2/minute", "3/minute"))
    gate.check("create", "alice", "10.0.0.1")
    gate.check("create", "alice", "10.0.0.1")
    with pytest.raises(RateLimited) as refused:
        gate.check("create", "alice", "10.0.0.1")
    assert refused.value.code == protocol.RATE_LIMITED and refused.value.status == 429
    assert 1 <= refused.value.retry_after <= 60
    assert "this browser" in refused.value.message
    assert f"{refused.value.retry_after} s" in refused.value.message
    gate.check("create", "bob", "10.0.0.1")  # the address has one left
    with pytest.raises(RateLimited, match="network address"):
        gate.check("create", "carol", "10.0.0.1")
    gate.check("create", "carol", "10.0.0.2")


def test_a_refusal_spends_no_budget() -> None:
    gate = admission(create=("1/minute", "2/minute"))
    gate.check("create", "alice", "10.0.0.1")
    for _ in range(5):
        with pytest.raises(RateLimited):
            gate.check("create", "alice", "10.0.0.1")
    gate.check("create", "bob", "10.0.0.1")  # alice's refusals took none of the address's


def test_no_identity_counts_against_the_address_only_and_none_is_no_limit() -> None:
    gate = admission(create=("1/minute", "2/minute"), event=(None, ""))
    gate.check("create", None, "10.0.0.1")
    gate.check("create", None, "10.0.0.1")
    with pytest.raises(RateLimited):
        gate.check("create", None, "10.0.0.1")
    for _ in range(1000):
        gate.check("event", "alice", "10.0.0.1")


def test_the_defaults_let_a_class_of_30_behind_one_address_start_in_one_minute(
    tmp_path: Path,
) -> None:
    app = make_app(tmp_path / "games.db")  # the default limits
    try:
        assert app.config["RATE_LIMIT_STORAGE"] == DEFAULTS["RATE_LIMIT_STORAGE"] == "memory://"
        for _ in range(30):
            pupil = app.test_client()
            assert pupil.get("/").status_code == 200
            create(pupil)
            create(pupil)  # and a second game each, in the same minute
        flood = app.test_client()
        codes = [
            flood.post("/api/games", json={"game": "tictactoe"}).status_code for _ in range(11)
        ]
        assert codes == [201] * 10 + [429]  # one browser alone is held at 10 a minute
    finally:
        close_app(app)


# -- over HTTP -------------------------------------------------------------------------------


def test_game_creation_is_limited_with_a_429_and_retry_after(
    client: FlaskClient, app: Flask
) -> None:
    game = create(client)
    create(client)
    refused = client.post("/api/games", json={"game": "tictactoe"})
    assert refused.status_code == 429
    assert refused.get_json()["error"]["code"] == protocol.RATE_LIMITED
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    for action in ("new", "rematch"):  # the next game is a creation too
        again = client.post(f"/api/games/{game['id']}/{action}")
        assert again.status_code == 429 and "Retry-After" in again.headers
    page = client.post("/new", data={"game": "tictactoe"})
    assert page.status_code == 429 and "Retry-After" in page.headers
    assert "try again in" in page.get_data(as_text=True)
    # Another browser behind the same address still may, until the address's limit.
    others = [app.test_client().post("/new", data={"game": "tictactoe"}) for _ in range(4)]
    assert [r.status_code for r in others] == [303, 303, 303, 429]


def test_reading_is_not_limited(client: FlaskClient) -> None:
    game = create(client)
    for _ in range(30):
        assert client.get(f"/api/games/{game['id']}").status_code == 200
        assert client.get("/new?game=tictactoe").status_code == 200


# -- over Socket.IO --------------------------------------------------------------------------


def test_socket_events_are_limited_per_identity(
    start: Callable[..., tuple[dict[str, object], Listener]],
    connect: Callable[[FlaskClient], Listener],
    app: Flask,
) -> None:
    state, player = start("tictactoe")  # its join is event 1
    answers = [player.emit(protocol.JOIN, {"game_id": state["id"]}) for _ in range(6)]
    assert all("seat" in answer for answer in answers[:5])
    assert answers[5]["code"] == protocol.RATE_LIMITED and "try again in" in answers[5]["message"]
    assert player.named(protocol.ERROR)[-1]["code"] == protocol.RATE_LIMITED
    bad = player.emit(protocol.MOVE, "not even a dict")  # refused before it is read
    assert bad["code"] == protocol.RATE_LIMITED
    other = connect(app.test_client())  # someone else is not held back
    assert "seat" in other.emit(protocol.JOIN, {"game_id": state["id"]})


def test_analyses_and_next_games_have_their_own_limits(
    start: Callable[..., tuple[dict[str, object], Listener]],
) -> None:
    state, player = start("tictactoe")  # creation 1 of 2
    game_id = state["id"]
    assert player.emit(protocol.ANALYSE, {"game_id": game_id, "algorithm": "alphabeta"}) == {
        "ok": True
    }
    second = player.emit(protocol.ANALYSE, {"game_id": game_id, "algorithm": "alphabeta"})
    assert second["code"] == protocol.RATE_LIMITED
    created = player.emit(protocol.NEW_GAME, {"game_id": game_id})  # creation 2 of 2
    assert created["url"] == f"/g/{created['id']}"
    assert player.emit(protocol.REMATCH, {"game_id": game_id})["code"] == protocol.RATE_LIMITED


# -- packets python-socketio cannot decode ----------------------------------------------------


@pytest.mark.parametrize(
    "packet",
    [
        '2["move",' + "[" * 20_000 + "]" * 20_000 + "]",  # RecursionError in the json module
        '21["move",{"game_id": ' + '{"a":' * 10_000 + "1" + "}" * 10_000 + "}]",
        '2["move",{"game_id"',  # malformed
        "9",  # no such packet type
        "4{}",  # CONNECT_ERROR, which only a server sends
        '51-["analyse",{"_placeholder":true,"num":7}]',  # binary, with an attachment to come
        '2{"a":1}',  # an event that is not a list
        "2",  # an event with nothing in it
        '2[5,{"game_id":"x"}]',  # an event whose name is not text
        "",  # an empty message (python-socketio decodes nothing: an event of None)
        b"",  # an empty binary message
        # Names python-socketio keeps: its catch-all (arguments out of place: a traceback),
        # its life-cycle handlers (a friend game's player marked gone while still there).
        '2["*",{"game_id":"x"}]',
        '2["disconnect"]',
        '2["connect"]',
        '2["connect_error",{}]',
    ],
    ids=[
        "deep-list",
        "deep-object-with-ack",
        "truncated",
        "type-9",
        "connect-error",
        "binary",
        "event-object",
        "event-empty",
        "event-nameless",
        "empty",
        "empty-binary",
        "catch-all",
        "disconnect",
        "connect",
        "connect-error-event",
    ],
)
def test_an_unreadable_packet_gets_one_error_and_no_traceback(
    client: FlaskClient,
    connect: Callable[[FlaskClient], Listener],
    caplog: pytest.LogCaptureFixture,
    app: Flask,
    packet: str | bytes,
) -> None:
    assert len(packet) < app.config["MAX_CONTENT_LENGTH"]
    game = create(client)
    player = connect(client)
    player.clear()
    with caplog.at_level(logging.DEBUG):
        server = player.client.socketio.server
        server._handle_eio_message(player.client.eio_sid, packet)
    assert player.wait_for(protocol.ERROR)["code"] == protocol.BAD_REQUEST
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"
    # The connection still works.
    assert player.emit(protocol.JOIN, {"game_id": game["id"]})["seat"] == "player"


@pytest.mark.parametrize(
    "packet",
    ['27["move",{"game_id"', '27["move",' + "[" * 20_000 + "]" * 20_000 + "]", "27[5]"],
    ids=["truncated", "deep-list", "event-nameless"],
)
def test_an_unreadable_event_that_asked_for_an_acknowledgement_gets_the_refusal_as_one(
    client: FlaskClient, connect: Callable[[FlaskClient], Listener], packet: str
) -> None:
    """A client waiting on ``call()`` hears at once (the attack report: its call timed out
    after 10 s, though the error event had come)."""
    create(client)
    player = connect(client)
    player.clear()
    player.client.acks = None
    player.client.socketio.server._handle_eio_message(player.client.eio_sid, packet)
    refusal = player.wait_for(protocol.ERROR)
    assert refusal["code"] == protocol.BAD_REQUEST
    assert player.client.acks is not None and player.client.acks["args"] == [refusal]


@pytest.mark.parametrize("event", [protocol.JOIN, protocol.MOVE, protocol.UNDO])
def test_a_game_id_no_store_can_look_up_is_no_game(
    client: FlaskClient,
    connect: Callable[[FlaskClient], Listener],
    caplog: pytest.LogCaptureFixture,
    event: str,
) -> None:
    """A lone surrogate is valid JSON but no text SQLite can take: it raised in the
    store, with a traceback, for every event (a hostile client's try)."""
    create(client)
    player = connect(client)
    player.clear()
    with caplog.at_level(logging.DEBUG):
        server = player.client.socketio.server
        server._handle_eio_message(
            player.client.eio_sid, f'2["{event}",{{"game_id":"\\ud800","move":"1"}}]'
        )
    assert player.wait_for(protocol.ERROR)["code"] == protocol.UNKNOWN_GAME
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"


def test_an_unknown_event_gets_a_clear_error(
    client: FlaskClient, connect: Callable[[FlaskClient], Listener]
) -> None:
    create(client)
    player = connect(client)
    answer = player.emit("hack", {"game_id": "x"})
    assert answer["code"] == protocol.BAD_REQUEST and "hack" in answer["message"]
    assert player.wait_for(protocol.ERROR)["code"] == protocol.BAD_REQUEST


# -- the in-process windows (memory://) --------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_local_windows_count_a_moving_window_and_say_how_long_to_wait() -> None:
    clock = Clock()
    windows = LocalWindows(clock=clock)
    item = parse("2/minute")
    assert windows.hit(item, "event", "id", "alice")
    clock.now += 10
    assert windows.hit(item, "event", "id", "alice")
    assert not windows.test(item, "event", "id", "alice")
    assert not windows.hit(item, "event", "id", "alice")  # refused: not counted
    assert windows.wait(item, "event", "id", "alice") == pytest.approx(50)
    assert windows.test(item, "event", "id", "bob")  # every key its own window
    clock.now += 50  # the first hit leaves the window, the second stays in it
    assert windows.hit(item, "event", "id", "alice")
    assert not windows.test(item, "event", "id", "alice")


def test_local_windows_keep_a_bounded_number_of_counters_and_start_no_thread() -> None:
    threads = threading.active_count()
    windows = LocalWindows(keys=3)
    item = parse("1/hour")
    for name in ("a", "b", "c", "d"):
        assert windows.hit(item, "event", "id", name)
    assert not windows.test(item, "event", "id", "d")
    assert windows.test(item, "event", "id", "a")  # the least recently hit was dropped
    assert threading.active_count() == threads


def test_local_windows_drop_the_counters_of_browsers_gone_quiet() -> None:
    """Each new browser has counters of its own: once its last hit has left the window,
    its counter can never refuse again and goes (the soak bench's heap grew by them)."""
    clock = Clock()
    windows = LocalWindows(clock=clock)
    item = parse("3/minute")
    for n in range(100):  # a hundred browsers, one hit each
        assert windows.hit(item, "event", "id", f"browser-{n}")
    assert len(windows) == 100
    clock.now += 59
    assert windows.hit(item, "event", "id", "still-here")
    assert len(windows) == 101  # within their window: kept
    clock.now += 2
    assert windows.hit(item, "event", "id", "newcomer")
    assert len(windows) == 2  # the quiet ones swept; the two recent ones stay
    assert windows.hit(item, "event", "id", "browser-0")  # a swept one starts afresh


def test_memory_storage_is_counted_in_process_and_redis_in_limits() -> None:
    assert isinstance(windows_at("memory://"), LocalWindows)
    assert not isinstance(windows_at("redis://127.0.0.1:1"), LocalWindows)


def test_a_redis_that_stops_answering_fails_a_check_instead_of_holding_it(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A check counted in Redis waited for ever on one that took the connection and never
    answered (the join check runs on the timer thread every socket's pings share). It now
    fails after ``REDIS_TIMEOUT``, and the check passes: the limits fail open, logged."""
    monkeypatch.setattr(admission_module, "REDIS_TIMEOUT", 0.3)
    silent = socket.socket()  # listens (the kernel accepts), never reads or answers
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    try:
        windows = windows_at(f"redis://127.0.0.1:{silent.getsockname()[1]}")
        assert isinstance(windows, SharedWindows)
        with caplog.at_level(logging.WARNING, logger="webapp.web.admission"):
            assert windows.hit(parse("3/minute"), "event", "addr", "10.0.0.1")
        assert windows.down()
        assert any("TimeoutError" in r.getMessage() for r in caplog.records), caplog.text
    finally:
        silent.close()


class Failing:
    """A limiter whose storage is out of reach; it counts the checks asked of it."""

    def __init__(self) -> None:
        self.asked = 0

    def _fail(self, *_: object) -> bool:
        self.asked += 1
        raise RedisConnectionError("Connection refused")

    test = hit = get_window_stats = _fail


def test_a_shared_storage_that_fails_is_left_alone_a_while_then_asked_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Once the storage failed, checks pass for ``DOWN_SECONDS`` without asking it (a
    silent Redis would hold each for its timeout), logged once; then it is asked again."""
    now = [0.0]
    windows = SharedWindows("memory://", clock=lambda: now[0])
    failing = Failing()
    windows.limiter = failing  # type: ignore[assignment]
    item = parse("1/minute")
    admission = Admission("memory://", {"event": (None, "1/minute")})
    admission.limiter = windows
    with caplog.at_level(logging.WARNING, logger="webapp.web.admission"):
        for _ in range(5):  # far past the limit: all pass
            admission.check("event", None, "10.0.0.1")
    assert failing.asked == 1
    assert len([r for r in caplog.records if "storage failed" in r.getMessage()]) == 1
    assert windows.wait(item, "event", "addr", "10.0.0.1") == 1.0
    now[0] = admission_module.DOWN_SECONDS  # the storage is asked again
    assert windows.hit(item, "event", "addr", "10.0.0.1")
    assert failing.asked == 2
    windows.limiter = MovingWindowRateLimiter(MemoryStorage())  # it answers again: counted
    now[0] = 3 * admission_module.DOWN_SECONDS
    admission.check("event", None, "10.0.0.1")
    with pytest.raises(RateLimited):
        admission.check("event", None, "10.0.0.1")
