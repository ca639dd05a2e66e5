"""``python -m webapp.bench.refusals [--count N]``: how fast refusals are answered.

Starts the server (``python -m webapp``, one search worker) on a free
loopback port and times, median and p95 over ``--count`` tries:

* an HTTP refusal (``GET /api/games/<no such game>``, 404);
* a refused Socket.IO event (a move in no game) over WebSocket and over long
  polling: until its ``error`` event, and until its acknowledgement;
* ten concurrent 20 MB bodies (with a length, then chunked): their statuses and
  the server's resident memory before and after (``/proc``).

The acknowledgement used to take about 44 ms over WebSocket (Nagle's
algorithm held its frame for the client's delayed ACK; see
``webapp/web/nodelay.py``). No figure is asserted: this prints what it measured.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import requests
import socketio

#: A refused event: a move in a game that does not exist.
REFUSED = ("move", {"game_id": "no-such-game", "move": "1"})


#: The large bodies sent at once, and the size of each.
BODIES, BODY_BYTES = 10, 20 * 1024 * 1024


@contextmanager
def server() -> Iterator[tuple[str, int]]:
    """``python -m webapp`` on a free loopback port, in a temporary folder; its URL."""
    with tempfile.TemporaryDirectory() as folder, socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        command = [sys.executable, "-m", "webapp", "--port", str(port), "--workers", "1"]
        command += ["--db", f"{folder}/games.db", "--set", f"SECRET_KEY_FILE={folder}/secret"]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 180
            while time.monotonic() < deadline:
                try:
                    requests.get(f"{url}/healthz", timeout=2)
                    break
                except requests.ConnectionError:
                    time.sleep(0.2)
            yield url, process.pid
        finally:
            process.terminate()
            process.wait(timeout=30)


def timed(action: Callable[[], object], count: int) -> tuple[float, float]:
    """Median and p95 of ``action``'s duration over ``count`` runs (milliseconds)."""
    times = []
    for _ in range(count):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))]


def socket_refusals(url: str, transport: str, count: int) -> dict[str, tuple[float, float]]:
    """The refused event's time to its ``error`` event and to its acknowledgement."""
    client = socketio.Client()
    errors = threading.Event()
    client.on("error", lambda _: errors.set())
    client.connect(url, transports=[transport])
    try:

        def until_error() -> None:
            errors.clear()
            client.emit(*REFUSED)
            errors.wait(10)

        return {
            "error event": timed(until_error, count),
            "acknowledgement": timed(lambda: client.call(*REFUSED, timeout=10), count),
        }
    finally:
        client.disconnect()


def resident_mb(pid: int) -> float:
    """The process's resident memory (MB), from ``/proc``."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def large_bodies(url: str, chunked: bool) -> list[int]:
    """Send BODIES bodies of BODY_BYTES at once to ``POST /api/games``; their statuses."""
    statuses: list[int] = []

    def send() -> None:
        piece = b"x" * (1024 * 1024)
        count = BODY_BYTES // len(piece)
        body = (piece for _ in range(count)) if chunked else piece * count
        try:
            answer = requests.post(f"{url}/api/games", data=body, timeout=120)
            statuses.append(answer.status_code)
        except requests.ConnectionError:  # the server may close on an unread body
            statuses.append(0)

    threads = [threading.Thread(target=send) for _ in range(BODIES)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(statuses)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m webapp.bench.refusals")
    parser.add_argument("--count", type=int, default=50, help="tries of each (50)")
    args = parser.parse_args(argv)
    with server() as (url, pid), requests.Session() as http:
        rows = {"HTTP 404": timed(lambda: http.get(f"{url}/api/games/no-such-game"), args.count)}
        for transport in ("websocket", "polling"):
            for what, figures in socket_refusals(url, transport, args.count).items():
                rows[f"Socket.IO {transport}, {what}"] = figures
        print(f"{'refusal':<40} {'p50 ms':>8} {'p95 ms':>8}")
        for name, (p50, p95) in rows.items():
            print(f"{name:<40} {p50:8.2f} {p95:8.2f}")
        for chunked in (False, True):
            before = resident_mb(pid)
            statuses = large_bodies(url, chunked)
            after = resident_mb(pid)
            kind = "chunked" if chunked else "with a length"
            print(
                f"{BODIES} x {BODY_BYTES >> 20} MB bodies {kind}: statuses {statuses}, "
                f"server RSS {before:.0f} -> {after:.0f} MB"
            )


if __name__ == "__main__":
    main()
