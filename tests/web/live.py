"""A real HTTP server for an app, in a thread on a free loopback port (for plain HTTP clients)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from flask import Flask
from werkzeug.serving import make_server


@contextmanager
def live_server(app: Flask) -> Iterator[str]:
    """Serve ``app`` on 127.0.0.1 (a free port, many threads); yield its base URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=30)
        server.server_close()
