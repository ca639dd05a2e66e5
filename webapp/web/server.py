"""The production server: gunicorn's threaded worker, embedded, serving ``create_app(config)``.

Flask-SocketIO's deployment guide for its threading mode: gunicorn, **one** worker
process (a Socket.IO session lives in the process that opened it, so more than one
would need sticky sessions), many threads, and WebSockets served on the connection's
socket (``environ["gunicorn.socket"]``) by ``webapp.web.websocket``. gevent and
eventlet are left out on purpose: their monkey-patching does not mix with the search
processes (multiprocessing, shared memory) and their relay thread.

The app is built in the worker process, after gunicorn forked it (no preload): the
search processes and background threads belong to the process that serves.
Stopping (SIGTERM, SIGINT) closes every Socket.IO connection first, so the threads
holding WebSockets end at once, then ``close_app`` stops the search processes.
See docs/operations.md, "Serving", for the measurements behind the thread count.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import gc
import logging
import os
import threading
from types import FrameType
from typing import Any

from flask import Flask
from gunicorn.app.base import BaseApplication
from gunicorn.workers.gthread import ThreadWorker

from webapp.search_pool import affinity
from webapp.web.app import close_app, create_app
from webapp.web.config import DEFAULTS
from webapp.web.extensions import socketio
from webapp.web.headers import BARE
from webapp.web.thread_pool import ElasticThreadPool

log = logging.getLogger(__name__)

#: Threads of the one worker process. Every open WebSocket (a player's or a spectator's
#: page) holds one for as long as it is open, so this bounds the pages open at once;
#: they start as connections come and end once idle (``thread_pool.ElasticThreadPool``),
#: so an idle server does not pay for them.
THREADS = 2000
#: Seconds the worker may go without a heartbeat before gunicorn replaces it (its main
#: loop beats every second; building the app, before the first beat, may compile kernels).
TIMEOUT = 120
#: Seconds a stopping worker waits for requests still running (WebSockets are closed first).
GRACEFUL_TIMEOUT = 10
#: Seconds an idle keep-alive HTTP connection stays open (it waits in gunicorn's
#: poller, not in a thread).
KEEPALIVE = 5
#: glibc's malloc arenas for the worker (its default: 8 per core). See ``fewer_arenas``.
MALLOC_ARENAS = 2
#: ``mallopt``'s parameter number for the arena count (glibc's malloc.h).
M_ARENA_MAX = -8


def fewer_arenas(arenas: int = MALLOC_ARENAS) -> bool:
    """Cap glibc's malloc arenas in this process, unless ``MALLOC_ARENA_MAX`` says otherwise.

    glibc gives threads that allocate at once arenas of their own, up to 8 per core. A
    worker with hundreds of connection threads then keeps, in each arena, memory freed
    there that no other arena reuses: the soak bench saw the web process's RSS creep by
    about 0.3 MB a minute for an hour while Python's own heap stayed flat (tracemalloc).
    Two arenas are plenty for threads that spend their time waiting. True if applied.
    """
    if "MALLOC_ARENA_MAX" in os.environ:
        return False  # the operator's choice, read by glibc itself
    name = ctypes.util.find_library("c")
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError, TypeError):  # not glibc: nothing to do
        return False
    return bool(mallopt(M_ARENA_MAX, arenas))


def freeze_startup_heap() -> int:
    """Keep the objects the app was built with out of the garbage collector's full passes
    (``gc.freeze``, after a last collection); how many are frozen.

    Building the app (Flask, Jinja, Socket.IO, the engine's modules and kernels) leaves
    about 100,000 objects the collector tracks, and nearly all of them live as long as the
    process. A full collection walked them all: 80-90 ms holding the interpreter, and the
    growth a crowd brings (connections, games) set one off in the middle of a burst of first
    moves (seen at its 30th-50th move), holding every reply up that long. Frozen, they are
    never walked; what is made later is collected as before.
    """
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


#: OS errors of writing to a connection the other end (or gunicorn) has closed already.
CLOSED_SOCKET_ERRORS = frozenset({errno.EBADF, errno.EPIPE, errno.ECONNRESET, errno.ENOTCONN})


def log_thread_exception(args: threading.ExceptHookArgs) -> None:
    """``threading.excepthook`` of the worker: a thread's uncaught exception goes to the log
    (with its traceback), not to bare stderr, except one known race that is no fault.

    Engine.IO's writer thread (with simple-websocket; ``webapp.web.websocket``, which
    serves gunicorn's WebSockets, has none, so it is kept for a fallback), once a
    WebSocket has ended, closes it by sending a close frame; when gunicorn has already
    closed the socket (the page went away), that send fails with EBADF and the thread
    dies with a traceback, though nothing is lost: the connection was over. That case is
    logged at debug level.
    """
    error, name = args.exc_value, args.thread.name if args.thread else "?"
    closed = isinstance(error, OSError) and error.errno in CLOSED_SOCKET_ERRORS
    # Engine.IO starts that thread on an inner function named ``writer``, and Python names
    # a thread after its target ("Thread-12 (writer)"); renamed, the tracebacks come back.
    if closed and name.endswith("(writer)"):
        log.debug("a closed WebSocket's writer thread %s ended: %s", name, error)
        return
    if args.exc_type is SystemExit:
        return  # as the default hook: a thread's sys.exit() is no error
    exc_info = (args.exc_type, error, args.exc_traceback)
    log.error("uncaught exception in thread %s", name, exc_info=exc_info)  # type: ignore[arg-type]


def close_connections() -> None:
    """Close every Socket.IO connection of this process: their threads return.

    Without waiting for long-polling clients to take their last packet (Engine.IO's own
    ``disconnect()`` waits for each, up to ``SocketQueue``'s bound: 256 quiet polling
    sessions would have outlasted gunicorn's grace period).
    """
    server = getattr(socketio, "server", None)
    if server is None:
        return
    eio = server.eio
    try:
        for client in list(eio.sockets.values()):
            client.close(wait=False, reason=eio.reason.SERVER_DISCONNECT)
        eio.sockets = {}
    except Exception:  # stopping anyway: log it, do not keep the worker alive
        log.exception("closing the Socket.IO connections failed")


#: The security headers of the error pages gunicorn writes itself (a request it could not
#: read: 400, 414, 431), which never reach the app's (``headers.py``): they load nothing.
ERROR_HEADERS = "".join(f"{name}: {value}\r\n" for name, value in BARE.items()).encode("latin-1")


class HeadedErrors:
    """A client's socket as gunicorn writes its own error response to it: the security
    headers go in after the status line. Everything else is the socket's."""

    def __init__(self, sock: Any) -> None:
        self._sock, self._headed = sock, False

    def sendall(self, data: bytes) -> None:
        if not self._headed:
            self._headed = True
            status, newline, rest = data.partition(b"\r\n")
            if newline:
                data = status + newline + ERROR_HEADERS + rest
        self._sock.sendall(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


class SocketWorker(ThreadWorker):  # type: ignore[misc]  # gunicorn ships no type hints
    """gunicorn's gthread worker that closes the WebSockets when told to stop, and whose
    own error pages carry the security headers.

    gthread waits up to ``graceful_timeout`` for connections still being served, and a
    WebSocket is served until its page closes: without this, every stop took that long.
    """

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        # Not in the signal handler itself: the close takes locks another thread may hold.
        threading.Thread(target=close_connections, name="close-sockets", daemon=True).start()

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        super().handle_error(req, HeadedErrors(client), addr, exc)

    def get_thread_pool(self) -> ElasticThreadPool:
        """Threads that end when idle: a crowd gone leaves no thousand threads behind."""
        return ElasticThreadPool(max_workers=self.cfg.threads)


def _worker_exit(arbiter: Any, worker: Any) -> None:
    """In the worker, as it exits (also after SIGINT/SIGQUIT): stop the app's processes."""
    close_connections()
    app = getattr(worker, "wsgi", None)
    if isinstance(app, Flask):
        close_app(app)


class Server(BaseApplication):  # type: ignore[misc]
    """``python -m webapp``'s server: ``Server(config, host, port).run()`` until stopped."""

    def __init__(
        self, config: dict[str, Any], host: str, port: int, *, threads: int = THREADS
    ) -> None:
        self.app_config = config
        self.options: dict[str, Any] = {
            "bind": f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
            "workers": 1,
            "worker_class": SocketWorker,
            "threads": threads,
            # gthread bounds the connections it holds (threads busy or kept alive).
            "worker_connections": threads + 100,
            "timeout": TIMEOUT,
            "graceful_timeout": GRACEFUL_TIMEOUT,
            "keepalive": KEEPALIVE,
            "worker_exit": _worker_exit,
            "proc_name": "lookahead",
            # gunicorn 23+ opens a control socket in ~/.gunicorn; servers side by side
            # would fight over it, and nothing here uses it.
            "control_socket_disable": True,
        }
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            if key == "control_socket_disable" and key not in self.cfg.settings:
                continue  # a gunicorn before the control socket: nothing to turn off
            self.cfg.set(key, value)

    def load(self) -> Flask:
        fewer_arenas()  # in the worker, before its threads
        # Before its threads too (they take their CPU from this one); the search
        # processes it starts widen back to every CPU it had.
        cpu = affinity.keep_to_one_cpu(self.app_config.get("WEB_CPU", DEFAULTS["WEB_CPU"]))
        if cpu is not None:
            log.info("the web process keeps to CPU %d (WEB_CPU)", cpu)
        threading.excepthook = log_thread_exception
        app = create_app(self.app_config)
        log.debug("%d objects of the app's start frozen", freeze_startup_heap())
        return app
