"""Connect Four at full speed: a numba-compiled search kernel behind the engine's API.

Modules, one role each (after Pascal Pons' solver):

* ``position``  bitboard operations (uint64 throughout), the ported heuristic
* ``table``     the transposition table: two-slot buckets in one packed uint64 array
* ``sorter``    move ordering in a per-ply scratch row
* ``solver``    exact solving: negamax (mirror images, enhanced transposition
                cut-offs), null-window narrowing, a fairly drawn best move, lines
* ``borrow``    arrays passed down the recursion without reference counting
* ``depth``     depth-limited minimax and alpha-beta with the heuristic
* ``book``      the opening book file and its lookup
* ``native``    ``KernelEngine``: the primitives the engine's driver runs
* ``warmup``    compile (or load from the cache) everything at worker start
* ``book_build`` the command that generates the book

Importing this package is cheap: numba is imported only by ``load_native()``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

_native: Callable[..., Any] | None = None
_tried = False


def load_native() -> Callable[..., Any] | None:
    """``native.open_engine``, or None when numba or the kernel cannot be loaded."""
    global _native, _tried
    if not _tried:
        _tried = True
        try:
            from webapp.games.connect4_kernel.native import open_engine
        except Exception as err:  # numba missing or broken: the pure-Python engine serves
            log.warning("Connect Four kernel unavailable (%s); using pure Python", err)
        else:
            _native = open_engine
    return _native


def warm_up() -> float:
    """Compile (or load from numba's cache) every kernel and allocate the table; seconds.

    Call once per worker process at start-up so no user's move pays for it.
    """
    from webapp.games.connect4_kernel.warmup import warm_up as run

    return run()
