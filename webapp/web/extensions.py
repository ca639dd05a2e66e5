"""The ``SocketIO`` object, built once and bound to each app by ``init_app``.

``app.py`` and the handlers in ``sockets.py`` both import it from here, so
neither imports the other (as in Flask-SocketIO's example layout). Its rooms are
this process's own unless the app has a ``REDIS_URL``: then ``create_app`` binds
it with a Redis client manager (Flask-SocketIO's ``message_queue``), and every
web process and search host reaches every room.
"""

from flask_socketio import SocketIO

socketio = SocketIO()
