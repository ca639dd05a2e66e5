"""Run a search host: ``python -m webapp.search_host --redis URL --db URL [--concurrency N]``.

It searches for the web processes started with the same ``--redis`` and
``--db``: engine moves (applied to the games, told to their rooms) and
analyses. Stop it with SIGTERM or Ctrl+C: the jobs it is running go back on
their queues for another host.
"""

from __future__ import annotations

import argparse
import logging
import signal
import threading
from types import FrameType
from typing import Any


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    from webapp.search_pool.local_pool import DEFAULT_SEARCH
    from webapp.search_pool.queue import HEARTBEAT_TIMEOUT

    parser = argparse.ArgumentParser(
        prog="python -m webapp.search_host", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--redis", required=True, help="the shared Redis: redis://host:port/0")
    parser.add_argument("--db", required=True, help="the games' database: postgresql://...")
    parser.add_argument(
        "--concurrency", type=int, default=2, help="search processes = searches at once (2)"
    )
    parser.add_argument("--seed", type=int, help="a fixed seed for the engine's tie-breaks (tests)")
    parser.add_argument(
        "--heartbeat-timeout",
        type=float,
        default=HEARTBEAT_TIMEOUT,
        help=f"seconds of silence before a host's jobs go to another ({HEARTBEAT_TIMEOUT:g})",
    )
    parser.add_argument("--search-function", default=DEFAULT_SEARCH, help=argparse.SUPPRESS)
    parser.add_argument("--no-warm-up", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.concurrency < 1:
        parser.error("--concurrency must be 1 or more")
    return args


def main(argv: list[str] | None = None) -> None:
    # Imported here: the search processes are spawned and re-import this module.
    from flask_socketio import SocketIO

    from webapp.search_host.host import SearchHost
    from webapp.store import describe, open_store

    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    stopping = threading.Event()

    def stop(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    rooms = SocketIO(message_queue=args.redis)  # write-only: emits reach every web process

    def emit(event: str, payload: dict[str, Any], to: str) -> None:
        rooms.emit(event, payload, to=to)

    store = open_store(args.db)
    host = SearchHost(
        args.redis,
        store,
        emit,
        concurrency=args.concurrency,
        search_fn=args.search_function,
        warm_up=not args.no_warm_up,
        seed=args.seed,
        heartbeat_timeout=args.heartbeat_timeout,
    )
    try:
        host.start()
        print(f"Lookahead search host on {describe(args.db)}: ready", flush=True)
        while not stopping.wait(1.0):
            pass
    finally:
        host.stop()
        store.close()


if __name__ == "__main__":
    main()
