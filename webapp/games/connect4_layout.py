"""Connect Four's board in numbers: its size, the bitboard's layout, the heuristic's weights.

What the rules (``connect4``) and the compiled kernel (``connect4_kernel``) share, apart so
that the kernel needs nothing of the rules: ``connect4``'s docstring draws the layout.
"""

from __future__ import annotations

WIDTH = 7
HEIGHT = 6
#: A column's bits: its cells and the empty sentinel on top.
H1 = HEIGHT + 1
CELLS = WIDTH * HEIGHT
BOTTOM = sum(1 << (col * H1) for col in range(WIDTH))
BOARD = BOTTOM * ((1 << HEIGHT) - 1)
#: Centre first, then outwards: central columns take part in more lines.
CENTRE_ORDER = (3, 2, 4, 1, 5, 0, 6)
#: Heuristic weight of a stone in each column (how many lines it can join).
COLUMN_WEIGHT = (1, 2, 3, 4, 3, 2, 1)
THREAT_WEIGHT = 24
STONE_WEIGHT = 3
