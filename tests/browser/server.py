"""A real Lookahead server in a subprocess, for the browser tests: ``python -m webapp``,
the production server (gunicorn, WebSocket through simple-websocket) users run.

The session's server (conftest's ``base_url``) runs with the default
settings; a test that needs others (a pinned search seed) starts its own
with ``serve(workdir, "--set", "KEY=VALUE")``. Startup is quick once the
session's server has compiled the search kernels (they are cached on disk).
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from webapp.bench.load_server import PER_ADDRESS_LIMITS

ROOT = Path(__file__).resolve().parents[2]
#: The server may compile its search kernels on the first start.
SERVER_START_SECONDS = 180


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


@contextmanager
def serve(workdir: Path, *options: str) -> Iterator[str]:
    """Run a Lookahead server (``python -m webapp ... options``) in ``workdir``; yield its URL."""
    port = _free_port()
    log_path = workdir / "server.log"
    command = [
        sys.executable,
        "-m",
        "webapp",
        "--port",
        str(port),
        "--db",
        str(workdir / "games.db"),
        "--set",
        f"SECRET_KEY_FILE={workdir / 'secret_key'}",  # not the checkout's instance folder
        # Every browser context of the suite is a new visitor from 127.0.0.1: the limits per
        # address (new identities, games, connects) would count the suite, not a browser
        # (a burst of short tests met the 60 new identities a minute: 429 on "Play from
        # here"). The per-browser limits stay on.
        *[arg for key in PER_ADDRESS_LIMITS for arg in ("--set", f"{key}=")],
        *options,
    ]
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + SERVER_START_SECONDS
            while not _answers(port):
                if process.poll() is not None or time.monotonic() > deadline:
                    tail = log_path.read_text(errors="replace")[-3000:]
                    pytest.fail(f"the server did not start ({' '.join(command)}):\n{tail}")
                time.sleep(0.2)
            yield f"http://127.0.0.1:{port}"
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
