"""Cross-site requests change nothing: a state-changing request from another site is a 403.

Another site can make a visitor's browser send a request here (an
auto-submitting ``<form action=".../new" method=post>``); that request
arrives without the SameSite=Lax identity cookie, and before this check the
server minted a new identity whose cookie overwrote the player's, losing
every seat they held.

What is checked, rather than a CSRF token in every form (as Flask-WTF's
CSRFProtect does): the browser's own word on where a request comes from.

* ``Sec-Fetch-Site`` (every current browser sends it): ``same-origin`` (our
  pages) and ``none`` (typed in the address bar, a bookmark) pass; ``cross-site``
  and ``same-site`` (another port or subdomain is another origin) are refused.
* Without it, ``Origin`` (sent by browsers on every cross-origin POST, and by
  older ones that lack Sec-Fetch-*) must be this server's own scheme and host.
* With neither, the request passes: a browser always sends one of the two on
  a cross-site POST, so a request without both comes from a plain client
  (curl, a script, the tests), which holds only the cookies it was given.

The same check keeps any identity from being minted, or a cookie set, on a
cross-site request (``identity.py``), but for a link followed in the tab:
that navigation carries the Lax cookie, so a new one overwrites nothing. Socket.IO's handshake is
checked by python-socketio itself (its default: same origin only).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, Response, jsonify, request

from webapp import protocol
from webapp.web.error_pages import error_page

#: The methods that may change something (GET and HEAD never do here).
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: Sec-Fetch-Site values of a request our own pages (or the user) made.
OWN_SITES = frozenset({"same-origin", "none"})
#: The refusal's words.
MESSAGE = "Requests from other sites cannot change anything here: open Lookahead itself."


def cross_site() -> bool:
    """True when the browser says this request comes from another origin."""
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None:
        return site.strip().lower() not in OWN_SITES
    origin = request.headers.get("Origin")
    if origin is None:
        return False  # a plain client: browsers send Origin on every cross-origin POST
    parts = urlsplit(origin.strip())
    return (parts.scheme, parts.netloc.lower()) != (request.scheme, request.host.lower())


def may_set_identity() -> bool:
    """True when an identity cookie set on this response cannot overwrite one the browser
    holds: a request from our own origin, or another site's link followed in the tab
    (a top-level GET navigation carries the SameSite=Lax cookie, so it had none to lose).
    A form posted, a frame or an image from another site never gets one."""
    if not cross_site():
        return True
    headers = request.headers
    return (
        request.method == "GET"
        and headers.get("Sec-Fetch-Mode") == "navigate"
        and headers.get("Sec-Fetch-Dest") == "document"
    )


def refuse_cross_site() -> Response | tuple[str, int] | None:
    """Before any view: a state-changing request from another site gets 403 and changes nothing."""
    if request.method not in UNSAFE_METHODS or not cross_site():
        return None
    if request.path.startswith("/api/"):
        response = jsonify({"error": {"code": protocol.CROSS_SITE, "message": MESSAGE}})
        response.status_code = 403
        return response
    return error_page(MESSAGE, 403, FORBIDDEN_WORDS)


#: The error page's title, heading and hint for a refused cross-site form.
FORBIDDEN_WORDS = (
    "Not allowed",
    "Another site tried to act for you",
    "Nothing was changed. Open Lookahead’s own page to start a game.",
)


def init_app(app: Flask) -> None:
    """Refuse cross-site state-changing requests before anything else runs."""
    app.before_request(refuse_cross_site)
