"""Engine.IO sessions per address (``webapp/web/connections.py``): counted at the
handshake, capped while open, closed when they join nothing. A hostile client's try:
WebSockets that never sent Socket.IO's CONNECT were never counted, and 2,000 of them
from one address held every server thread."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import requests
import socketio

from tests.web.helpers import WAIT
from tests.web.test_end_to_end import Server
from webapp.web.connections import Connections


def handshake(url: str) -> requests.Response:
    """Engine.IO's handshake alone (long-polling): a session that joins no namespace."""
    return requests.get(f"{url}/socket.io/?EIO=4&transport=polling", timeout=WAIT)


def sid_of(answer: requests.Response) -> str:
    assert answer.status_code == 200, answer.text
    return str(json.loads(answer.text[1:])["sid"])


@pytest.mark.slow
def test_sessions_that_join_nothing_are_capped_and_closed(tmp_path: Path) -> None:
    server = Server(tmp_path / "g.db", tmp_path / "log", "--workers", "1",
                    "--set", "SEARCH_WARMUP=false", "--set", "CONNECTIONS_PER_ADDRESS=4",
                    "--set", "SESSION_JOIN_SECONDS=1.5")  # fmt: skip
    try:
        # A page joins at once, and stays: it counts as one of the address's four.
        page = socketio.Client()
        page.connect(server.url, transports=["websocket"], wait_timeout=WAIT)
        idle = [sid_of(handshake(server.url)) for _ in range(3)]
        refused = handshake(server.url)
        assert refused.status_code == 401 and "Too many connections" in refused.text
        # The three that joined nothing are closed; the page is not.
        deadline = time.monotonic() + WAIT
        while handshake_refused(server.url) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert page.connected
        polled = requests.get(
            f"{server.url}/socket.io/?EIO=4&transport=polling&sid={idle[0]}", timeout=WAIT
        )
        assert polled.status_code == 400 or polled.text.startswith("1")  # closed: gone, or told
        page.disconnect()
    finally:
        server.stop()


def handshake_refused(url: str) -> bool:
    """Whether a handshake now is refused (a session accepted is left to join nothing)."""
    return handshake(url).status_code == 401


@pytest.mark.slow
def test_a_handshake_counts_against_the_connects_per_address(tmp_path: Path) -> None:
    server = Server(tmp_path / "g.db", tmp_path / "log", "--workers", "1",
                    "--set", "SEARCH_WARMUP=false",
                    "--set", "RATE_LIMIT_CONNECTS_PER_ADDRESS=3/minute")  # fmt: skip
    try:
        answers = [handshake(server.url) for _ in range(4)]
        assert [a.status_code for a in answers] == [200, 200, 200, 401]
        assert "Too many requests" in answers[-1].text
    finally:
        server.stop()
    assert "Traceback" not in (tmp_path / "log").read_text(errors="replace")


class FakeSocket:
    """An Engine.IO socket: closing it calls the server's disconnect handler at once."""

    def __init__(self, eio: FakeEngineIO, sid: str) -> None:
        self.eio, self.sid, self.closed = eio, sid, False

    def close(self, wait: bool = True, reason: object = None) -> None:
        self.closed = True
        self.eio.handlers["disconnect"](self.sid, reason)


class FakeEngineIO:
    """What ``Connections`` uses of an Engine.IO server: its handlers, sockets and reasons."""

    class reason:  # Engine.IO names it so
        SERVER_DISCONNECT = "server disconnect"

    def __init__(self, on_message: Callable[[str, Any], Any]) -> None:
        self.handlers: dict[str, Callable[..., Any]] = {"message": on_message}
        self.sockets: dict[str, FakeSocket] = {}

    def on(self, event: str, handler: Callable[..., Any]) -> None:
        self.handlers[event] = handler


class LetIn:
    def check(self, kind: str, who: object, address: object) -> None:
        return None


class HeldTimers:
    """The timer's calls, run when the test says."""

    def __init__(self) -> None:
        self.calls: list[Callable[[], None]] = []

    def call_later(self, delay: float, call: Callable[[], None]) -> None:
        self.calls.append(call)


def guarded(
    on_message: Callable[[str, Any], Any], joined: set[str]
) -> tuple[FakeEngineIO, HeldTimers, FakeSocket]:
    eio, timers = FakeEngineIO(on_message), HeldTimers()
    Connections(eio, lambda sid: sid in joined, LetIn(), None, timers)  # type: ignore[arg-type]
    socket = eio.sockets["s1"] = FakeSocket(eio, "s1")
    eio.handlers["connect"]("s1", {"REMOTE_ADDR": "10.0.0.1"})
    return eio, timers, socket


def test_a_connect_under_way_when_the_join_check_comes_is_heard_out_first() -> None:
    """The check used to close a session whose CONNECT came in the instant after it
    looked: its page, joined by then, was cut off and had to reconnect. Now the check,
    on the timer thread every socket's pings share, never waits for the handler: it
    looks again a moment later."""
    joined: set[str] = set()
    inside, release = threading.Event(), threading.Event()

    def on_message(sid: str, data: Any) -> None:  # Socket.IO's CONNECT, slow to finish
        inside.set()
        release.wait(WAIT)
        joined.add(sid)

    eio, timers, socket = guarded(on_message, joined)
    message = threading.Thread(target=eio.handlers["message"], args=("s1", "0"), daemon=True)
    message.start()
    assert inside.wait(WAIT)
    timers.calls[0]()  # the check, while the CONNECT is handled: returns at once
    assert not socket.closed and len(timers.calls) == 2  # and looks again later
    release.set()
    message.join(WAIT)
    assert not message.is_alive()
    timers.calls[1]()
    assert not socket.closed and "s1" in eio.sockets


def test_a_session_closed_for_joining_nothing_hears_no_late_connect() -> None:
    """A packet read before the close (a polling POST, a buffered frame) reached
    Socket.IO after it, for a session it had forgotten (a traceback and a room entry
    for good)."""
    heard: list[Any] = []
    eio, timers, socket = guarded(lambda sid, data: heard.append(data), set())
    timers.calls[0]()
    assert socket.closed and eio.sockets.get("s1") is None
    eio.handlers["message"]("s1", "0")
    assert heard == []
