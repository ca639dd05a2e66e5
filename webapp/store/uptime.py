"""The outages a store remembers: when no server was up (``server_alive.outages``).

A JSON list of ``[down_from, up_at]`` pairs (ms since the epoch), oldest first, the
last ``KEPT`` of them: a game between two people not looked at across several outages
gets each one back (``services.clock.Clock.after_outages``). A value that is not such a
list (a hand edit) counts as none.
"""

from __future__ import annotations

import json
from typing import Any

#: Outages remembered: a game idle through more than this many loses the oldest.
KEPT = 64


def outages_of(text: Any) -> list[tuple[int, int]]:
    """The stored windows, oldest first (none if the text is not a list of pairs)."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return []
    if not isinstance(value, list):
        return []
    windows = []
    for pair in value:
        if (
            isinstance(pair, list)
            and len(pair) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in pair)
            and pair[0] <= pair[1]
        ):
            windows.append((pair[0], pair[1]))
    return windows


def with_outage(text: Any, down_from: int, up_at: int) -> str:
    """The stored windows and one more, the last ``KEPT``, as stored."""
    windows = [*outages_of(text), (down_from, up_at)][-KEPT:]
    return json.dumps([list(window) for window in windows])
