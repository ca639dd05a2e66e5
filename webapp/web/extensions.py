"""The ``SocketIO`` object, built once and bound to each app by ``init_app``.

``app.py`` and the handlers in ``sockets.py`` both import it from here, so
neither imports the other (as in Flask-SocketIO's example layout). Its rooms are
this process's own unless the app has a ``REDIS_URL``: then ``create_app`` binds
it with a Redis client manager (Flask-SocketIO's ``message_queue``), and every
web process and search host reaches every room.
"""

from typing import Any

from flask import Flask, Request
from flask_socketio import SocketIO

socketio = SocketIO()

#: Set in a Socket.IO connection's handshake environ once it is accepted (``sockets.py``):
#: every later event's request context is made from that environ.
SOCKETIO_EVENTS = "lookahead.socketio_events"


class Lookahead(Flask):
    """Flask, without URL routing for Socket.IO events.

    Flask-SocketIO runs each event in a request context made from its connection's
    handshake environ, and Flask binds a URL adapter and matches that ``/socket.io/``
    path for every one: no route matches, so a ``NotFound`` is made and kept, for nothing
    (no Socket.IO handler asks for a route or builds a URL). That was a quarter of the web
    CPU of an event and its answer (0.55 -> 0.39 ms: docs/operations.md, "Routing skipped").
    Only an accepted connection's environ is marked (``SOCKETIO_EVENTS``): an HTTP request
    never carries the mark, so every page and API call is routed as before.
    """

    def create_url_adapter(self, request: Request | None) -> Any:
        if request is not None and request.environ.get(SOCKETIO_EVENTS):
            return None
        return super().create_url_adapter(request)
