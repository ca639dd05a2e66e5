"""Start the server: ``python -m webapp [--host H] [--port P] [--db PATH] [--workers N]``.

``--redis redis://host:port/0`` shares the rooms, the rate limits and the searches with
other web processes and search hosts (``python -m webapp.search_host``).

``python -m webapp prune [--db PATH] [--unfinished-days N] [--finished-days M]``
deletes the games past their retention once and prints how many (the server
also does it every ``RETENTION_EVERY_HOURS``).

It serves through gunicorn (one worker process, many threads: Flask-SocketIO's
deployment guide; see ``webapp/web/server.py``). ``--dev`` serves through Werkzeug's
development server instead, reloading when the code changes.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
from pathlib import Path
from types import FrameType


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    from webapp.services import retention  # here, like main's imports: workers re-import this

    parser = argparse.ArgumentParser(prog="python -m webapp", description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    parser.add_argument("--port", type=int, default=5000, help="port (5000)")
    parser.add_argument(
        "--db", help="SQLite file or postgresql:// URL (default: lookahead.sqlite3 in instance/)"
    )
    parser.add_argument("--workers", type=int, default=2, help="search processes (2)")
    parser.add_argument(
        "--redis",
        metavar="URL",
        help="redis://host:port/0 shared with other web processes and search hosts "
        "(`python -m webapp.search_host`), which then do the searches (--workers is ignored)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="server threads; each open page's WebSocket holds one (default: "
        "webapp.web.server.THREADS)",
    )
    parser.add_argument(
        "--dev",
        action="store_true",
        help="Werkzeug's development server, reloading on code changes (not for production)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="any setting of webapp.web.config.DEFAULTS (VALUE as JSON, else text), e.g. "
        "--set RATE_LIMIT_CREATE_PER_ADDRESS=600/minute",
    )
    commands = parser.add_subparsers(dest="command", metavar="{prune}")
    prune = commands.add_parser("prune", help="delete abandoned and old games once, print how many")
    prune.add_argument(
        "--db", dest="prune_db", help="SQLite file or postgresql:// URL (default: as the server)"
    )
    unfinished, finished = retention.UNFINISHED_DAYS, retention.FINISHED_DAYS
    prune.add_argument(
        "--unfinished-days",
        type=float,
        default=unfinished,
        help=f"delete unfinished games untouched for this many days ({unfinished})",
    )
    prune.add_argument(
        "--finished-days",
        type=float,
        default=finished,
        help=f"delete finished games older than this many days ({finished})",
    )
    args = parser.parse_args(argv)
    try:
        args.settings = settings_of(args.set)
        check_cpu(args.settings)
    except ValueError as err:
        parser.error(str(err))
    if args.command == "prune":
        args.db = args.prune_db or args.db
        if args.unfinished_days < 0 or args.finished_days < 0:
            parser.error("retention days must be 0 or more")
    return args


def settings_of(pairs: list[str]) -> dict[str, object]:
    """``["KEY=VALUE", ...]`` as settings; a key the app does not know is refused."""
    from webapp.web.config import DEFAULTS

    settings: dict[str, object] = {}
    for pair in pairs:
        key, equals, text = pair.partition("=")
        if not equals or key not in DEFAULTS:
            known = ", ".join(sorted(DEFAULTS))
            raise ValueError(f"--set {pair!r}: expected KEY=VALUE with a KEY among {known}")
        try:
            settings[key] = json.loads(text)
        except ValueError:
            settings[key] = text
    return settings


def check_cpu(settings: dict[str, object]) -> None:
    """ValueError if ``WEB_CPU`` names no CPU this process may use (said here, in one line,
    not as gunicorn's "Worker failed to boot")."""
    from webapp.search_pool import affinity
    from webapp.web.config import DEFAULTS

    affinity.check(settings.get("WEB_CPU", DEFAULTS["WEB_CPU"]))


def prune_command(args: argparse.Namespace) -> int:
    """Delete the games past their retention in ``args.db``; how many."""
    from webapp.services.retention import prune
    from webapp.store import open_store
    from webapp.web.app import default_database

    store = open_store(args.db or default_database())
    try:
        return prune(
            store,
            unfinished_days=args.unfinished_days,
            finished_days=args.finished_days,
        )
    finally:
        store.close()


def _stop(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)  # unwinds the server so the workers are shut down


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    if args.command == "prune":
        print(f"Removed {prune_command(args)} games.", flush=True)
        return
    config: dict[str, object] = {**args.settings, "SEARCH_WORKERS": max(1, args.workers)}
    if args.db:
        config["DATABASE"] = args.db
    if args.redis:
        config["REDIS_URL"] = args.redis
    check_database(config)
    print(f"Lookahead is serving http://{args.host}:{args.port}/", flush=True)
    if args.dev:
        serve_development(config, args.host, args.port)
        return
    # Imported here: search workers are spawned processes that re-import this
    # module as __mp_main__, and they need nothing from Flask.
    from webapp.web.server import THREADS, Server

    Server(config, args.host, args.port, threads=args.threads or THREADS).run()


def check_database(config: dict[str, object]) -> None:
    """Open the store once and close it, before serving: the app is built in gunicorn's
    worker process, where a database that cannot be used would only read "Worker failed to
    boot" (exit 3); here it is one line and exit 1 (``start_errors_in_one_line``)."""
    from webapp.store import open_store
    from webapp.web.app import default_database

    database = config.get("DATABASE") or default_database()
    assert isinstance(database, str | Path)
    open_store(database).close()


def serve_development(config: dict[str, object], host: str, port: int) -> None:
    """Werkzeug's server with its reloader: a parent process that watches the code and a
    child that serves (built anew on every change). Never its interactive debugger: it
    runs code for whoever reaches a failing page (``--dev --host 0.0.0.0`` included)."""
    from flask import Flask
    from werkzeug.serving import is_running_from_reloader

    from webapp.web.app import close_app, create_app

    if not is_running_from_reloader():  # the watching parent serves nothing: no workers
        Flask(__name__).run(
            host, port, debug=True, use_reloader=True, use_debugger=False, threaded=True
        )
        return
    app = create_app(config)
    signal.signal(signal.SIGTERM, _stop)
    try:
        # What socketio.run does in threading mode, without its "production" refusal.
        app.run(host, port, debug=True, use_reloader=True, use_debugger=False, threaded=True)
    except KeyboardInterrupt:
        pass
    finally:
        close_app(app)


if __name__ == "__main__":
    from webapp.web.app import start_errors_in_one_line

    with start_errors_in_one_line():  # an unwritable database: one line, exit 1
        main()
