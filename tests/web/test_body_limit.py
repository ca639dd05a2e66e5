"""Bodies past MAX_CONTENT_LENGTH (webapp/web/body_limit.py) and Nagle's algorithm off
(webapp/web/nodelay.py): the smaller edges of issue 21."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from flask import Flask

from tests.web.helpers import make_app
from tests.web.live import live_server
from webapp.web.app import close_app
from webapp.web.body_limit import CHUNK
from webapp.web.nodelay import NoDelay

LIMIT = 64 * 1024


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    app = make_app(tmp_path / "games.db", MAX_CONTENT_LENGTH=LIMIT)
    try:
        with live_server(app) as served:
            yield served
    finally:
        close_app(app)


def chunked(*parts: bytes) -> Iterator[bytes]:
    """A body sent in chunks (requests then sends no Content-Length)."""
    yield from parts


@pytest.mark.parametrize(
    ("path", "kind", "start"),
    [
        ("/api/games", "application/json", b'{"game": "'),
        ("/new", "application/x-www-form-urlencoded", b"game="),
    ],
)
def test_a_chunked_body_past_the_limit_is_413_like_a_plain_one(
    url: str, path: str, kind: str, start: bytes
) -> None:
    headers = {"Content-Type": kind}
    big = b"x" * (4 * LIMIT)
    plain = requests.post(url + path, data=start + big, headers=headers, timeout=60)
    assert plain.status_code == 413
    sent = requests.post(url + path, data=chunked(start, big), headers=headers, timeout=60)
    assert sent.request.headers.get("Transfer-Encoding") == "chunked"
    assert sent.status_code == 413


@pytest.mark.slow
def test_a_chunked_body_within_the_limit_is_read_whole(url: str) -> None:
    with requests.Session() as player:
        body = chunked(b'{"game": ', b'"tictactoe", "moves": ', b'"5"}')
        json = {"Content-Type": "application/json"}
        made = player.post(f"{url}/api/games", data=body, headers=json, timeout=60)
        assert made.status_code == 201, made.text
        assert made.json()["moves"] == "5"
        form = chunked(b"game=connect4", b"&moves=44")
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        page = player.post(f"{url}/new", data=form, headers=headers, timeout=60)
        assert page.status_code == 200 and "/g/" in page.url
        assert len(player.get(f"{url}/api/my/games", timeout=60).json()) == 2


@pytest.mark.parametrize("chunked", [True, False])
def test_a_body_past_the_limit_is_never_held_whole(app: Flask, chunked: bool) -> None:
    """The server refuses it holding at most the limit (a chunked body's first part), and
    reads the rest a small piece at a time: its memory does not grow with the body."""

    class Counting:
        def __init__(self, size: int) -> None:
            self.left, self.largest = size, 0

        def read(self, size: int = -1) -> bytes:
            size = self.left if size < 0 else min(size, self.left)
            self.left -= size
            self.largest = max(self.largest, size)
            return b"x" * size

    size = 100 * int(app.config["MAX_CONTENT_LENGTH"])
    body = Counting(size)
    environ: dict[str, Any] = {"wsgi.input": body}
    if chunked:
        environ["wsgi.input_terminated"] = True
    else:
        environ["CONTENT_LENGTH"] = str(size)
    response = app.test_client().post(
        "/api/games", headers={"Content-Type": "application/json"}, environ_overrides=environ
    )
    assert response.status_code == 413
    assert 0 < body.largest <= CHUNK
    assert body.left == 0  # drained, so the client sees the 413 rather than a reset


def test_every_connection_sends_at_once() -> None:
    """Nagle's algorithm off: a Socket.IO acknowledgement right after its error event no
    longer waits for the client's delayed ACK (``python -m webapp.bench.refusals``)."""
    seen: list[dict[str, Any]] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.append(environ)
        return [b""]

    with socket.create_server(("127.0.0.1", 0)) as listener:
        client = socket.create_connection(listener.getsockname())
        connection, _ = listener.accept()
        with client, connection:
            assert connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0
            NoDelay(app)({"werkzeug.socket": connection}, None)
            assert connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    assert len(seen) == 1


def test_a_body_past_the_limit_is_413_whatever_its_type(url: str) -> None:
    for kind in ("text/plain", "application/octet-stream", None):
        headers = {"Content-Type": kind} if kind else {}
        sent = requests.post(
            f"{url}/api/games", data=b"x" * (2 * LIMIT), headers=headers, timeout=60
        )
        assert sent.status_code == 413, kind
