"""Engine.IO's long-polling POSTs checked before Engine.IO reads them.

A page long-polls until its WebSocket is up (or for good, where WebSockets are blocked).
What it POSTs is a payload of Engine.IO packets: UTF-8 text, packets split by the
record separator, each starting with its type. Engine.IO itself, given one it cannot
read, either logs a traceback and answers 200 (bytes that are no UTF-8, an empty packet)
or, for a packet type a client never sends, closes the session and waits for the client
to poll its last packet: a client that never polls again held that thread for good (a
hostile client's try: 2,100 such POSTs from one address left the worker with 2,008
threads stuck and the server deaf until restarted).

Here such a body gets a 400 at once and never reaches Engine.IO; the session is left as
it was (its pings time it out if the client is gone). ``SocketQueue.join`` (websocket.py)
also waits a bounded time only, whoever closes a long-polling session.
"""

from __future__ import annotations

import base64
import binascii
import io
from typing import Any

from webapp.web.headers import BARE

#: Engine.IO 4's separator between the packets of a long-polling payload.
SEPARATOR = "\x1e"
#: The packet types a client may POST: close, pong, message, upgrade; "b", a binary
#: message (base64), which Engine.IO reads and Socket.IO's packets then refuse in words.
CLIENT_TYPES = frozenset("1345b")
_REFUSAL = b"Not a valid Engine.IO payload.\n"


def readable(body: bytes) -> bool:
    """Whether ``body`` is a payload Engine.IO reads without failing: UTF-8, every packet
    in it a non-empty one of a type a client sends, a binary one's base64 whole."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    parts = text.split(SEPARATOR)
    if not all(part[:1] in CLIENT_TYPES for part in parts):
        return False
    try:
        for part in parts:
            if part[0] == "b":
                base64.b64decode(part[1:], validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def polling_checked(app: Any, limit: int) -> Any:
    """WSGI middleware: a long-polling POST whose body Engine.IO could not read (see the
    module docstring) gets a 400; a body past ``limit`` bytes is left to Engine.IO, which
    refuses it too (a 400, the session closed)."""

    def checked(environ: dict[str, Any], start_response: Any) -> Any:
        if (
            environ.get("REQUEST_METHOD") == "POST"
            and environ.get("PATH_INFO", "").startswith("/socket.io")
            and "transport=polling" in environ.get("QUERY_STRING", "")
        ):
            try:
                length = int(environ.get("CONTENT_LENGTH") or 0)
            except ValueError:
                length = -1
            if 0 <= length <= limit:
                body = environ["wsgi.input"].read(length)
                if not readable(body):
                    start_response(
                        "400 Bad Request", [("Content-Type", "text/plain"), *BARE.items()]
                    )
                    return [_REFUSAL]
                environ["wsgi.input"] = io.BytesIO(body)
        return app(environ, start_response)

    return checked
