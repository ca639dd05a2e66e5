"""Request bodies past ``MAX_CONTENT_LENGTH`` are refused with 413 before being read whole.

A body with a ``Content-Length`` past the limit is refused by Werkzeug
before a byte is read. A chunked body has no length to check, and Werkzeug
quietly cuts it at the limit: the JSON and form parsers then saw a
truncated body and answered 400. Here such a body is read first, at most
one byte past the limit (the most any request holds in memory); past the
limit it is a 413 like any other, else the parsers get it as a body of
known length.
"""

from __future__ import annotations

import io

from flask import Flask, abort, current_app, request

#: Bytes asked of the server at a time while reading a chunked body.
CHUNK = 16 * 1024


def read_chunked_body() -> None:
    """Before a view: a body of unknown length is read (bounded) now, or refused with 413."""
    environ = request.environ
    if environ.get("CONTENT_LENGTH") or "wsgi.input_terminated" not in environ:
        return  # a known length (Werkzeug checks it), or no body the server delimits
    limit = int(current_app.config["MAX_CONTENT_LENGTH"])
    body = bytearray()
    while len(body) <= limit:
        chunk = environ["wsgi.input"].read(min(CHUNK, limit + 1 - len(body)))
        if not chunk:
            break
        body += chunk
    if len(body) > limit:
        abort(413)
    environ["wsgi.input"] = io.BytesIO(bytes(body))
    environ["CONTENT_LENGTH"] = str(len(body))
    for cached in ("stream", "content_length"):  # computed before the length was known
        request.__dict__.pop(cached, None)


def init_app(app: Flask) -> None:
    """Check bodies of unknown length against the limit before any view reads them."""
    app.before_request(read_chunked_body)
