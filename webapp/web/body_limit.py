"""Request bodies past ``MAX_CONTENT_LENGTH`` are refused with 413 before being read whole.

A body with a ``Content-Length`` past the limit is refused before a byte
is read, whatever its type (a view that does not read it, or the JSON
parser given another type, answered 400). A chunked body has no length to check, and Werkzeug
quietly cuts it at the limit: the JSON and form parsers then saw a
truncated body and answered 400. Here such a body is read first, at most
one byte past the limit (the most any request holds in memory); past the
limit it is a 413 like any other, else the parsers get it as a body of
known length.
"""

from __future__ import annotations

import io
from typing import IO

from flask import Flask, abort, current_app, request

#: Bytes asked of the server at a time while reading a chunked body.
CHUNK = 16 * 1024
#: At most this much of a refused body is read and dropped, a CHUNK at a time, so the
#: client sees the 413 rather than a reset. Werkzeug's server drains what is left itself,
#: 10 MB at a time, and that memory stays with the process (10 bodies of 20 MB: +90 MB).
DISCARD_BYTES = 64 * 1024 * 1024


def read_chunked_body() -> None:
    """Before a view: a body of unknown length is read (bounded) now, or refused with 413."""
    environ = request.environ
    limit = int(current_app.config["MAX_CONTENT_LENGTH"])
    if request.content_length is not None and request.content_length > limit:
        _discard(environ["wsgi.input"], request.content_length)
        abort(413)  # whatever its type: a view that never reads its body would answer 400
    if environ.get("CONTENT_LENGTH") or "wsgi.input_terminated" not in environ:
        return  # a known length within the limit, or no body the server delimits
    body = bytearray()
    while len(body) <= limit:
        chunk = environ["wsgi.input"].read(min(CHUNK, limit + 1 - len(body)))
        if not chunk:
            break
        body += chunk
    if len(body) > limit:
        _discard(environ["wsgi.input"], DISCARD_BYTES)
        abort(413)
    environ["wsgi.input"] = io.BytesIO(bytes(body))
    environ["CONTENT_LENGTH"] = str(len(body))
    for cached in ("stream", "content_length"):  # computed before the length was known
        request.__dict__.pop(cached, None)


def _discard(stream: IO[bytes], length: int) -> None:
    """Read and drop up to ``length`` bytes of a refused body, a CHUNK at a time."""
    left = min(length, DISCARD_BYTES)
    while left > 0:
        chunk = stream.read(min(CHUNK, left))
        if not chunk:
            return
        left -= len(chunk)


def init_app(app: Flask) -> None:
    """Check bodies of unknown length against the limit before any view reads them."""
    app.before_request(read_chunked_body)
