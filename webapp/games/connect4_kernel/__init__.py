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
* ``files``     the 12-stone database's file: where it is, its size (no numba)
* ``database``  the 12-stone database (package ``bitbully-databases``) as book entries
* ``native``    ``KernelEngine``: the primitives the engine's driver runs
* ``warmup``    ``warm_up()``: compile (or load from the cache) everything at worker start
* ``book_build`` the command that generates the book

Importing this package is cheap: numba is imported only by ``load_native()``. The
kernel reads the board from ``webapp.games.connect4_layout``, never from the rules
(``connect4``), which open it through ``load_native``.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

from webapp.games.connect4_kernel.files import (
    DATABASE_ENTRIES,
    DATABASE_RECORD_BYTES,
    database_file,
)

__all__ = ["DATABASE_ENTRIES", "database_file", "database_status", "load_native"]

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


def database_status() -> str:
    """``ok``, ``missing`` or ``damaged``: the 12-stone database this process solves with,
    once a search loaded it; before that (a web process), whether its file is there and
    whole, without loading it (the load's self-check can still find it damaged)."""
    native = sys.modules.get(f"{__name__}.native")
    if native is not None and native.database_loaded():
        return str(native.database_status())
    path = database_file()
    if path is None or not path.is_file():
        return "missing"
    if path.stat().st_size != DATABASE_ENTRIES * DATABASE_RECORD_BYTES:
        return "damaged"
    return "ok"
