"""JSON text on the hot paths (the events sent, the stored rows): orjson, read and written
as the ``json`` module would.

A move's web CPU went about a tenth to ``json``: every event sent is encoded, and every
save and read of a game encodes or decodes its settings and its last engine move
(docs/operations.md, "A move's CPU"). orjson does the same in a fraction of the time.

* ``dumps``: what orjson cannot write as ``json`` does (an integer past 64 bits, a lone
  surrogate, nesting past orjson's depth), and any option but compact separators, go to
  ``json.dumps``. orjson writes no spaces and leaves non-ASCII characters unescaped:
  valid JSON that reads back the same. NaN and the infinities, which are no JSON (a
  browser's ``JSON.parse`` refuses them), are written ``null``, as a browser's
  ``JSON.stringify`` writes them; an ``Enum`` or a ``UUID``, which ``json`` refuses, is
  written as its value (nothing sent or stored holds one).
* ``loads``: for text this server wrote (a stored row). orjson reads an integer past 64
  bits as a float, so text with a run of 19 digits or more is read by ``json.loads``,
  exactly, as is what a client sends (``Packets``). Text orjson refuses (a lone
  surrogate escaped, ``NaN``) goes to ``json.loads``, which raises as it always did if
  it is no JSON at all.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

#: Keys as ``json`` writes them (1 -> "1"); a dataclass or a datetime refused, as ``json``
#: refuses them (orjson would write them), so a payload that holds one by mistake fails.
_OPTIONS = (
    orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
)
_COMPACT = (",", ":")
#: A number orjson may read as a float (past 64 bits), or a string holding such digits.
_LONG_DIGITS = re.compile(r"\d{19}")


def dumps(obj: Any, **kwargs: Any) -> str:
    """``json.dumps(obj, **kwargs)``, compact (``separators`` may only say so)."""
    if not kwargs or kwargs == {"separators": _COMPACT}:
        try:
            return orjson.dumps(obj, option=_OPTIONS).decode()
        except TypeError:  # orjson.JSONEncodeError: json decides (and raises if it must)
            pass
    return json.dumps(obj, **({"separators": _COMPACT} | kwargs))


def loads(text: str | bytes) -> Any:
    """``json.loads(text)`` of text this server wrote (see the module's docstring)."""
    if isinstance(text, str) and not _LONG_DIGITS.search(text):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


class Packets:
    """The ``json`` of Socket.IO's packets: events sent by ``dumps``, a client's read by
    ``json.loads`` (its numbers exactly as it wrote them)."""

    dumps = staticmethod(dumps)
    loads = staticmethod(json.loads)
