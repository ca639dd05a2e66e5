"""The opening book: exact values and best moves of early positions, in one file.

# File format (little-endian)
A 32-byte header, then ``count`` entries of 8 bytes::

    offset  0  magic      b"LKC4BOOK"
    offset  8  version    uint32 (1)
    offset 12  plies      int16   most stones of any entry (deeper positions are not looked up)
    offset 14  complete   int16   every position of the book's definition up to this many
                                  stones is present
    offset 16  count      uint64
    offset 24  checksum   uint64  CRC-32 of the entries (zero-extended)

An entry is one ``uint64``: ``key << 13 | best_columns << 6 | (score + 32)``.
``key`` is the canonical position key, the smaller of ``current + mask`` and
its mirror image; ``best_columns`` has bit ``c`` set when column ``c`` (0-based,
canonical orientation) keeps the score, 0 when only the score is known.
Entries are sorted, so the kernel finds a key by binary search.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from webapp.games.connect4_kernel.position import U0, mirror_key

MAGIC = b"LKC4BOOK"
VERSION = 1
HEADER = struct.Struct("<8sIhhQQ")
SCORE_OFFSET = 32
_KEY_SHIFT = np.uint64(13)
_MOVES_SHIFT = np.uint64(6)
DEFAULT_PATH = Path(__file__).resolve().parents[2] / "data" / "connect4-book.bin"


@dataclass(frozen=True)
class Book:
    """A loaded book: sorted entries, the deepest stone count held, the complete depth."""

    entries: np.ndarray
    plies: int
    complete: int


EMPTY = Book(np.zeros(0, dtype=np.uint64), -1, -1)


class BookError(ValueError):
    """A book file that cannot be used: missing, truncated, corrupt or of another version."""


def pack(key: int, best_columns: int, score: int) -> int:
    return (key << 13) | (best_columns << 6) | (score + SCORE_OFFSET)


def unpack(entry: int) -> tuple[int, int, int]:
    """``(key, best_columns, score)`` of one entry."""
    return entry >> 13, (entry >> 6) & 0x7F, (entry & 0x3F) - SCORE_OFFSET


def mirror_columns(columns: int) -> int:
    return sum(1 << (6 - c) for c in range(7) if columns >> c & 1)


def write_book(path: Path, entries: np.ndarray, plies: int, complete: int) -> None:
    """Write sorted, unique ``entries`` with a header; atomically (temp file + rename)."""
    entries = np.unique(entries.astype(np.uint64))
    body = entries.astype("<u8").tobytes()
    header = HEADER.pack(MAGIC, VERSION, plies, complete, len(entries), zlib.crc32(body))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(header + body)
    tmp.replace(path)


def read_book(path: Path = DEFAULT_PATH) -> Book:
    """Load and check a book file; raise BookError saying what is wrong."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise BookError(f"opening book {path}: cannot read it ({err.strerror})") from None
    if len(data) < HEADER.size:
        raise BookError(f"opening book {path}: {len(data)} bytes, shorter than its header")
    magic, version, plies, complete, count, checksum = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise BookError(f"opening book {path}: not a book file (bad magic {magic!r})")
    if version != VERSION:
        raise BookError(f"opening book {path}: version {version}, this engine reads {VERSION}")
    body = data[HEADER.size :]
    if len(body) != 8 * count:
        raise BookError(f"opening book {path}: header says {count} entries, file holds "
                        f"{len(body) / 8:g} (truncated or padded)")  # fmt: skip
    if zlib.crc32(body) != checksum:
        raise BookError(f"opening book {path}: checksum mismatch (corrupt file)")
    entries = np.frombuffer(body, dtype="<u8").astype(np.uint64)
    if count and not np.all(entries[1:] > entries[:-1]):
        raise BookError(f"opening book {path}: entries are not sorted")
    return Book(entries, plies, complete)


@njit(cache=True)
def probe(book: np.ndarray, key: np.uint64) -> np.uint64:
    """The entry of ``key`` with best columns in the orientation of ``key``, or 0."""
    mirrored = mirror_key(key)
    canonical = min(key, mirrored)
    lo, hi = 0, book.size
    while lo < hi:
        mid = (lo + hi) >> 1
        found = book[mid] >> _KEY_SHIFT
        if found < canonical:
            lo = mid + 1
        elif found > canonical:
            hi = mid
        else:
            entry = book[mid]
            if canonical == key:
                return np.uint64(entry)
            columns = (entry >> _MOVES_SHIFT) & np.uint64(0x7F)
            flipped = U0
            for c in range(7):
                if (columns >> np.uint64(c)) & np.uint64(1):
                    flipped |= np.uint64(1) << np.uint64(6 - c)
            return np.uint64(
                (key << _KEY_SHIFT) | (flipped << _MOVES_SHIFT) | (entry & np.uint64(0x3F))
            )
    return U0


@njit(cache=True, inline="always")
def entry_score(entry: np.uint64) -> int:
    return int(np.int64(entry & np.uint64(0x3F))) - SCORE_OFFSET


@njit(cache=True, inline="always")
def entry_columns(entry: np.uint64) -> int:
    return int(np.int64((entry >> _MOVES_SHIFT) & np.uint64(0x7F)))


def position_of_key(key: int) -> tuple[int, int]:
    """``(current, mask)`` back from a key ``current + mask``.

    A column of ``h`` stones holds ``2**h - 1`` (its mask) plus its current
    player's stones, a value in ``[2**h - 1, 2**(h + 1) - 2]``: ``h`` is one less
    than the bit length of the value plus one.
    """
    current = mask = 0
    for col in range(7):
        column = (key >> (7 * col)) & 0x7F
        stones = (1 << ((column + 1).bit_length() - 1)) - 1
        mask |= stones << (7 * col)
        current |= (column - stones) << (7 * col)
    return current, mask
