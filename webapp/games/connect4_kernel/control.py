"""The control array shared by the Python driver, its watcher thread and the kernel.

One small ``int64`` NumPy array carries everything the recursion needs besides
the position and the table, so only a few arrays are passed down. The kernel
counts nodes in it and, every ``CHECK_EVERY`` nodes, looks at the stop flag a
watcher thread may have set (time budget, cancel flag) and at the node limit.
"""

from __future__ import annotations

import numpy as np

#: Nodes between two looks at the stop flag and the node limit (a power of two).
CHECK_EVERY = 4096
CHECK_MASK = CHECK_EVERY - 1

# Slots of the control array.
STOP = 0  # 0 = run; else one of the reasons below
NODES = 1  # nodes visited so far by this search
NODE_LIMIT = 2  # stop once NODES reaches it (0 = no limit)
GENERATION = 3  # the table's current generation
ARMED = 4  # limits are enforced only once a first result is complete
BOOK_PLIES = 5  # positions with at most this many stones may be in the book
TABLE_SHIFT = 6  # 64 - log2(slots): the table index is the hash's top bits
EXTEND = 7  # 1 = extend forcing positions at the horizon by a ply (depth-limited)
SYMMETRY_PLIES = 8  # positions with at most this many stones share entries with their mirror
ETC_PLIES = 9  # positions with at most this many stones try enhanced transposition cut-offs
DATABASE_PLIES = 10  # positions with exactly this many stones are in the database (-1: none)
SIZE = 11

#: Mirror pairs are common early in the game; later the mirror is not worth computing.
DEFAULT_SYMMETRY_PLIES = 20
#: Near the root a cut-off from the table saves a subtree; near the leaves the
#: probes cost more than they save.
DEFAULT_ETC_PLIES = 30

STOP_TIME, STOP_NODES, STOP_CANCELLED = 1, 2, 3
STOP_REASONS = {STOP_TIME: "time", STOP_NODES: "nodes", STOP_CANCELLED: "cancelled"}


def new_control() -> np.ndarray:
    ctl = np.zeros(SIZE, dtype=np.int64)
    ctl[BOOK_PLIES] = -1
    ctl[DATABASE_PLIES] = -1
    ctl[SYMMETRY_PLIES] = DEFAULT_SYMMETRY_PLIES
    ctl[ETC_PLIES] = DEFAULT_ETC_PLIES
    return ctl
