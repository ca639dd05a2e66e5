"""Engine.IO sessions per address (``webapp/web/connections.py``): counted at the
handshake, capped while open, closed when they join nothing. A hostile client's try:
WebSockets that never sent Socket.IO's CONNECT were never counted, and 2,000 of them
from one address held every server thread."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import requests
import socketio

from tests.web.helpers import WAIT
from tests.web.test_end_to_end import Server


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
