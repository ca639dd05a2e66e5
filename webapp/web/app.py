"""The web application: ``create_app(config)`` builds Flask, Socket.IO, the store and the workers.

Templates and static files live at the top of the repository (``templates/``,
``static/``); a built package (``pip install .``, a wheel) carries them inside
as ``webapp/templates`` and ``webapp/static`` (see ``assets_root``). Set
``LOOKAHEAD_ROOT`` (config key or environment variable) to serve others.
"""

from __future__ import annotations

import logging
import os
import sys
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from flask import Flask, Request, Response
from flask.sessions import SessionInterface, SessionMixin
from werkzeug.middleware.proxy_fix import ProxyFix

from webapp.search_pool import SearchPool
from webapp.search_pool.queue_pool import QueuePool
from webapp.search_pool.supervise import Supervisor
from webapp.services import GameService
from webapp.services.retention import RetentionSchedule
from webapp.services.uptime import Uptime
from webapp.store import GameStore, StoreError, describe, open_store
from webapp.web import (
    admission,
    api,
    body_limit,
    connections,
    error_pages,
    friend_games,
    friend_sockets,  # noqa: F401  (importing it registers its handlers)
    headers,
    identity,
    nodelay,
    origin,
    pages,
    polling,
    rooms,
    sockets,  # noqa: F401  (importing it registers its handlers)
    tree,
    websocket,
)
from webapp.web.config import DEFAULTS
from webapp.web.extensions import Lookahead, socketio
from webapp.web.packets import SafePacket

log = logging.getLogger(__name__)

#: The checkout's root: templates/ and static/ sit next to the package.
CHECKOUT_ROOT = Path(__file__).resolve().parents[2]
#: Where an installed (built) package carries them: inside it, as webapp/templates, webapp/static.
PACKAGE_ROOT = Path(__file__).resolve().parents[1]


def assets_root(configured: str | None = None) -> Path:
    """The folder holding templates/ and static/: the configured one (config key or the
    LOOKAHEAD_ROOT environment variable), else the checkout's, else the installed package's."""
    chosen = configured or os.environ.get("LOOKAHEAD_ROOT")
    if chosen:
        return Path(chosen)
    if (CHECKOUT_ROOT / "templates" / "base.html").is_file():
        return CHECKOUT_ROOT
    return PACKAGE_ROOT


class NoSession(SessionInterface):
    """Flask's session, never used here (identities have their own signed cookie): not
    opened for every request and every Socket.IO event (a serializer and a cookie read
    each time); writing to it raises."""

    def open_session(self, app: Flask, request: Request) -> SessionMixin | None:
        return None  # Flask then makes a null session

    def save_session(self, app: Flask, session: SessionMixin, response: Response) -> None:
        return None


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """A ready Lookahead app: routes, Socket.IO handlers, store, and running search workers.

    Call ``close_app(app)`` to stop its workers (done at exit otherwise).
    """
    settings = {**DEFAULTS, **(config or {})}
    root = assets_root(settings["LOOKAHEAD_ROOT"])
    app = Lookahead(
        __name__,
        template_folder=str(root / "templates"),
        static_folder=str(root / "static"),
    )
    app.config.update(settings)
    app.session_interface = NoSession()
    redis_url = app.config["REDIS_URL"]

    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(tree.bp)
    error_pages.register_error_pages(app)
    origin.init_app(app)  # first: a cross-site request changes nothing
    body_limit.init_app(app)
    headers.init_app(app)
    identity.init_app(app)
    admission.init_app(app)
    # `sockets` registered its handlers on it; a message past the body limit closes its connection.
    socketio.init_app(
        app,
        async_mode="threading",
        # A client's events run in order on its connection's own thread, not on a new
        # thread each (every handler is quick: none waits for a search).
        async_handlers=False,
        max_http_buffer_size=app.config["MAX_CONTENT_LENGTH"],
        serializer=SafePacket,  # unreadable packets become one error event, not a traceback
        client_manager=client_manager(redis_url),
    )
    websocket.install(socketio.server.eio)  # gunicorn's WebSockets: no reader or writer thread
    app.extensions["lookahead_connections"] = connections.Connections(
        socketio.server.eio,
        lambda eio_sid: socketio.server.manager.sid_from_eio_sid(eio_sid, "/") is not None,
        app.extensions[admission.EXTENSION],
        app.config["CONNECTIONS_PER_ADDRESS"] or None,
        websocket.PINGS,
        float(app.config["SESSION_JOIN_SECONDS"]),
    )
    app.wsgi_app = websocket.upgrades_checked(app.wsgi_app)  # type: ignore[method-assign]
    limit = int(app.config["MAX_CONTENT_LENGTH"])
    app.wsgi_app = polling.polling_checked(app.wsgi_app, limit)  # type: ignore[method-assign]
    app.wsgi_app = nodelay.NoDelay(app.wsgi_app)  # type: ignore[method-assign]
    if app.config["TRUSTED_PROXIES"]:  # outermost: Socket.IO's requests see the real address too
        hops = int(app.config["TRUSTED_PROXIES"])
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops)  # type: ignore[method-assign]

    database = app.config["DATABASE"] or default_database()
    store = open_store(database, timeout=app.config["DATABASE_TIMEOUT"])
    schedule = retention_schedule(app, store)  # before the workers: bad settings fail first
    pool = (
        search_pool(app)
        if redis_url is None
        else QueuePool(
            redis_url,
            app.config["SEARCH_QUEUE_LIMIT"],
            app.config["SEARCH_ANALYSIS_LIMIT"],
            owner_limit=app.config["SEARCH_OWNER_LIMIT"],
            game_limit=app.config["SEARCH_GAME_LIMIT"],
        )
    )
    service = GameService(
        store,
        pool,
        _emit,
        seed=app.config["SEARCH_SEED"],
        retry_delays=tuple(app.config["ENGINE_RETRY_DELAYS"]),
        live_scores=app.config["LIVE_SCORES"],
        watched=game_watched,
    )
    app.extensions["lookahead"] = service
    friend_games.init_app(app)  # games between two people, beside the service
    api.init_app(app, pool)  # each registers its job kinds with the pool's dispatcher
    tree.init_app(app, pool)
    threads = app.extensions["lookahead_threads"] = Supervisor(socketio.start_background_task)
    pool.start(threads.starter("search-relay" if redis_url is None else "queue-replies"))
    service.resume()
    uptime = app.extensions["lookahead_uptime"] = Uptime(store, app.extensions["lookahead_friends"])
    uptime.start()  # an outage before this start is not charged to the clocks
    weakref.finalize(app, uptime.close, False)  # an app never closed stops beating with it
    weakref.finalize(app, service.close)  # at exit, if nobody closed it first
    weakref.finalize(app, threads.stop)
    if schedule is not None:
        schedule.start(threads.starter("retention"))
        weakref.finalize(app, schedule.stop)
    searching = (
        f"{pool.size} search workers" if redis_url is None else f"searches on {describe(redis_url)}"
    )
    log.info("Lookahead: games in %s, %s", describe(database), searching)
    return app


@contextmanager
def start_errors_in_one_line() -> Iterator[None]:
    """A server that cannot start (its database unwritable or unreadable, its port or
    instance folder refused) says why in one line on stderr and exits 1: no traceback."""
    try:
        yield
    except StoreError as err:
        hint = "check that the database file and its folder exist and are writable"
        _fatal(f"the database cannot be used: {err} ({hint})")
    except OSError as err:
        _fatal(str(err))


def _fatal(reason: str) -> None:
    sys.stderr.write(f"python -m webapp: cannot start: {reason}\n")
    raise SystemExit(1)


def search_pool(app: Flask) -> SearchPool:
    """The search processes of a server on its own (no REDIS_URL)."""
    return SearchPool(
        app.config["SEARCH_WORKERS"],
        app.config["SEARCH_QUEUE_LIMIT"],
        warm_up=app.config["SEARCH_WARMUP"],
        search_fn=app.config["SEARCH_FUNCTION"],
        trace_fn=app.config["TRACE_FUNCTION"],
        owner_limit=app.config["SEARCH_OWNER_LIMIT"],
        game_limit=app.config["SEARCH_GAME_LIMIT"],
        reserve=app.config["SEARCH_RESERVE"],
        restart_backoff=tuple(app.config["SEARCH_RESTART_BACKOFF"]),
        analysis_limit=app.config["SEARCH_ANALYSIS_LIMIT"],
    )


def client_manager(redis_url: str | None) -> Any:
    """Socket.IO's rooms: in this process, or shared through Redis by every process.

    Always passed: the ``SocketIO`` object keeps its options from one app to the next.
    """
    if redis_url is None:
        return rooms.Rooms()
    return rooms.RedisRooms(redis_url, channel="flask-socketio")


def retention_schedule(app: Flask, store: GameStore) -> RetentionSchedule | None:
    """The pruning the app runs in the background (None when RETENTION_EVERY_HOURS is 0)."""
    if not app.config["RETENTION_EVERY_HOURS"]:
        return None
    schedule = RetentionSchedule(
        store,
        unfinished_days=app.config["RETENTION_UNFINISHED_DAYS"],
        finished_days=app.config["RETENTION_FINISHED_DAYS"],
        every_hours=app.config["RETENTION_EVERY_HOURS"],
    )
    app.extensions["lookahead_retention"] = schedule
    return schedule


def default_database() -> Path:
    """Where games are kept unless DATABASE says: ``lookahead.sqlite3`` in the instance folder."""
    return Path(Flask(__name__).instance_path) / "lookahead.sqlite3"


def service_of(app: Flask) -> GameService:
    """The app's game service."""
    service: GameService = app.extensions["lookahead"]
    return service


def close_app(app: Flask) -> None:
    """Stop the app's retention schedule and search workers, and close its store."""
    schedule: RetentionSchedule | None = app.extensions.get("lookahead_retention")
    if schedule is not None:
        schedule.stop()
    app.extensions["lookahead_analyses"].close()
    app.extensions["lookahead_uptime"].close()  # a last "up" mark, while the store is open
    app.extensions["lookahead_friends"].close()
    service_of(app).close()


def _emit(event: str, payload: dict[str, Any], to: str) -> None:
    socketio.emit(event, payload, to=to)


def game_watched(game_id: str) -> bool:
    """A page of this process has the game open: a socket is in its room."""
    return any(True for _ in socketio.server.manager.get_participants("/", game_id))
