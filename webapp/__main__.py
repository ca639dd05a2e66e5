"""Start the server: ``python -m webapp [--host H] [--port P] [--db PATH] [--workers N]``.

This runs Flask-SocketIO's own (threaded Werkzeug) server. For deployment,
run one process with many threads, as Flask-SocketIO's deployment guide says:

    gunicorn -w 1 --threads 100 -b 0.0.0.0:8000 'webapp.web.app:create_app()'
"""

from __future__ import annotations

import argparse
import logging
import signal
from types import FrameType


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m webapp", description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    parser.add_argument("--port", type=int, default=5000, help="port (5000)")
    parser.add_argument("--db", help="SQLite file (default: lookahead.sqlite3 in instance/)")
    parser.add_argument("--workers", type=int, default=2, help="search processes (2)")
    return parser.parse_args(argv)


def _stop(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)  # unwinds the server so the workers are shut down


def main(argv: list[str] | None = None) -> None:
    # Imported here: search workers are spawned processes that re-import this
    # module as __mp_main__, and they need nothing from Flask.
    from webapp.web.app import close_app, create_app
    from webapp.web.extensions import socketio

    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    config: dict[str, object] = {"SEARCH_WORKERS": max(1, args.workers)}
    if args.db:
        config["DATABASE"] = args.db
    app = create_app(config)
    signal.signal(signal.SIGTERM, _stop)
    print(f"Lookahead is serving http://{args.host}:{args.port}/", flush=True)
    try:
        socketio.run(app, host=args.host, port=args.port, allow_unsafe_werkzeug=True)
    except KeyboardInterrupt:
        pass
    finally:
        close_app(app)


if __name__ == "__main__":
    main()
