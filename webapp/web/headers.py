"""Security headers on every response: pages, API, static files and errors alike.

* ``Content-Security-Policy``: scripts, styles, images and connections from
  this origin only. No ``'unsafe-inline'``: the templates hold no inline
  script or event handler (their data travels in ``<script
  type="application/json">`` blocks, which are never run). ``connect-src``
  names this host's ``ws:``/``wss:`` too, for Socket.IO's WebSocket.
  ``frame-ancestors 'none'`` (and ``X-Frame-Options: DENY`` for older
  browsers): no other site can frame a page and trick a click on it.
* ``X-Content-Type-Options: nosniff``: a response is only what its type says.
* ``Referrer-Policy: same-origin``: a game's link (its only key) never leaks
  to another site in a Referer header.
"""

from __future__ import annotations

import re

from flask import Flask, request
from werkzeug.wrappers import Response as BaseResponse

#: The policy; ``{host}`` is the request's own host (for the WebSocket's ws:/wss: URLs).
POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self' ws://{host} wss://{host}",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
#: A host as it may appear in the policy (anything else, e.g. a ";", is left out).
HOST_SHAPE = re.compile(r"[A-Za-z0-9.:\[\]-]{1,255}")
#: The other headers, the same on every response.
FIXED = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}

#: A response that loads nothing, written below the app (gunicorn's own error pages, a
#: refused WebSocket handshake): the fixed headers and a policy that allows nothing.
BARE = {"Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'", **FIXED}


def add_headers(response: BaseResponse) -> BaseResponse:
    """Set the security headers (a view's own values, if any, are kept)."""
    host = request.host if HOST_SHAPE.fullmatch(request.host) else "localhost"
    response.headers.setdefault("Content-Security-Policy", POLICY.format(host=host))
    for name, value in FIXED.items():
        response.headers.setdefault(name, value)
    return response


def init_app(app: Flask) -> None:
    """Add the headers to every response the app makes."""
    app.after_request(add_headers)
