"""Socket.IO answers as fast as HTTP: Nagle's algorithm off on every client connection.

A refused Socket.IO event is answered twice, an ``error`` event then the
acknowledgement, in two small WebSocket frames. With Nagle's algorithm on,
the second frame waited for the client's ACK of the first, which the client
delays by up to 40 ms: every acknowledgement took about 44 ms where an HTTP
refusal takes 2-4 ms. ``TCP_NODELAY`` on the connection sends each frame at
once (``python -m webapp.bench.refusals`` measures both).
"""

from __future__ import annotations

import socket
from collections.abc import Iterable
from contextlib import suppress
from typing import Any

#: Where WSGI servers put the client's socket in the environ (Werkzeug, gunicorn).
SOCKET_KEYS = ("werkzeug.socket", "gunicorn.socket")


class NoDelay:
    """WSGI middleware: set ``TCP_NODELAY`` on the request's connection, then call ``app``."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        for key in SOCKET_KEYS:
            connection = environ.get(key)
            if isinstance(connection, socket.socket) and connection.family != socket.AF_UNIX:
                with suppress(OSError):  # not TCP after all, or closed: nothing to speed up
                    connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        result: Iterable[bytes] = self.app(environ, start_response)
        return result
