"""The ``SocketIO`` object, built once and bound to each app by ``init_app``.

``app.py`` and the handlers in ``sockets.py`` both import it from here, so
neither imports the other (as in Flask-SocketIO's example layout).
"""

from flask_socketio import SocketIO

socketio = SocketIO()
