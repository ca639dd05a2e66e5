"""Percentiles and the book switch the benchmark sections share."""

from __future__ import annotations

import math
from collections.abc import Sequence


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation; NaN when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    if ordered[high] == ordered[low]:  # also two infinities ("never"), whose difference is NaN
        return ordered[low]
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def seconds(value: float, cap: float | None = None) -> str:
    """A duration for a table cell: ``-`` for none, ``>cap`` when a search hit the cap."""
    if math.isnan(value):
        return "-"
    if cap is not None and value >= cap:
        return f">{cap:g}s"
    if value < 1e-3:
        return f"{value * 1e6:.0f}us"
    if value < 1.0:
        return f"{value * 1e3:.1f}ms"
    return f"{value:.2f}s"


def set_book(enabled: bool) -> None:
    """Use the shipped opening book, or none (the kernel then searches everything)."""
    from webapp.games.connect4_kernel import book, native

    if enabled:
        native.load_book()
    else:
        native.use_book(book.EMPTY)
