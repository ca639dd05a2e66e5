"""John Tromp's 12-stone database, turned into entries of our opening book's format.

The ``bitbully-databases`` package (MIT) ships the exact value of every
position with 12 stones in which the side to move (the first player) cannot
win at once: 4,200,899 records of 5 bytes, sorted by their signed key::

    key    int32, big-endian   Huffman code of the board: columns left to right,
                               each bottom to top, "10" a first player's stone,
                               "11" a second player's, "0" the column's end (also
                               after a full column); then one "0" of padding
    value  int8                0 a draw; 71..97 (odd) a win, -70..-98 (even) a loss

A position is stored in one orientation only (the package's lookup tries the
board and its mirror image). Values map to the scores of
``webapp.engine.scores`` as ``(v - 69) / 2`` for a win and ``(v + 68) / 2`` for
a loss (tests/test_connect4_database.py checks this against the solver).

Decoding 4.2 million keys and sorting them costs about a second, so the
converted entries (``book.pack(canonical key, 0, score)``, sorted) are kept
in a cache file, named for the package's version and guarded by a CRC-32; a
cache that does not check out is rebuilt.
"""

from __future__ import annotations

import logging
import os
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from webapp.games.connect4_kernel import book as book_
from webapp.games.connect4_kernel.files import DATABASE_ENTRIES as ENTRIES
from webapp.games.connect4_kernel.files import database_file
from webapp.games.connect4_kernel.position import U0, U1, mirror_key

log = logging.getLogger(__name__)

#: Stones of every position in the database.
PLIES = 12
RECORD = np.dtype([("key", ">i4"), ("value", "i1")])
CACHE_MAGIC = b"LKC4DB12"
CACHE_HEADER = struct.Struct("<8sQQ")  # magic, count, CRC-32 of the entries
#: Known positions checked at every load: (columns bottom to top, "1" the first
#: player's stones, "2" the second's; the package's value; our score). They are the
#: package's own documented examples, one win of each speed and a loss.
SELF_CHECK = (
    (("", "2121", "", "12121", "", "212", ""), 71, 1),
    (("1", "1221", "212", "1", "221", "", ""), 73, 2),
    (("", "11", "1221", "2121", "", "2", "2"), -88, -10),
)

STATUS_OK, STATUS_MISSING, STATUS_DAMAGED = "ok", "missing", "damaged"


class DatabaseError(ValueError):
    """A database that cannot be used; ``status`` says whether it is missing or damaged."""

    def __init__(self, message: str, status: str = STATUS_DAMAGED) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Database:
    """Sorted book entries of every 12-stone position (scores only, no best columns)."""

    entries: np.ndarray
    status: str


EMPTY = Database(np.zeros(0, dtype=np.uint64), STATUS_MISSING)


def score_of_value(value: int) -> int:
    """Our exact score (side to move) of a value of the database."""
    if value > 0:
        return (value - 69) // 2
    if value < 0:
        return (value + 68) // 2
    return 0


def key_of_columns(columns: tuple[str, ...]) -> int:
    """``current + mask`` of a board given column by column (first player to move)."""
    current = mask = 0
    for col, stones in enumerate(columns):
        for row, owner in enumerate(stones):
            cell = 1 << (7 * col + row)
            mask |= cell
            if owner == "1":
                current |= cell
    return current + mask


@njit(cache=True)
def _decode(keys: np.ndarray, values: np.ndarray, out: np.ndarray) -> int:
    """Write each record as a book entry into ``out``; the number of malformed records.

    A record is malformed when its code does not spell 12 stones in 7 columns
    ending on its padding bit, or its value has the wrong parity for its sign.
    """
    bad = 0
    for i in range(keys.size):
        code = np.uint64(np.uint32(keys[i]))
        bit = 31
        current = U0
        mask = U0
        stones = 0
        for col in range(7):
            height = 0
            while bit >= 0:
                marker = (code >> np.uint64(bit)) & U1
                bit -= 1
                if marker == U0:
                    break
                if height == 6 or bit < 0:
                    bit = -2  # a seventh stone in a column, or a stone cut off
                    break
                cell = U1 << np.uint64(7 * col + height)
                mask |= cell
                if (code >> np.uint64(bit)) & U1 == U0:
                    current |= cell
                bit -= 1
                height += 1
                stones += 1
        value = int(values[i])
        if value > 0:
            score, parity_ok = (value - 69) // 2, value % 2 == 1
        elif value < 0:
            score, parity_ok = (value + 68) // 2, value % 2 == 0
        else:
            score, parity_ok = 0, True
        if bit != 0 or (code & U1) != U0 or stones != PLIES or not parity_ok:
            bad += 1
            out[i] = U0
            continue
        key = current + mask
        canonical = min(key, mirror_key(key))
        out[i] = (canonical << np.uint64(13)) | np.uint64(score + book_.SCORE_OFFSET)
    return bad


def package_version() -> str:
    try:
        import bitbully_databases
    except ImportError:
        return "none"
    return str(getattr(bitbully_databases, "__version__", "unknown"))


def default_cache_dir() -> Path:
    """``$LOOKAHEAD_CACHE_DIR``, else ``$XDG_CACHE_HOME/lookahead`` (``~/.cache/lookahead``)."""
    explicit = os.environ.get("LOOKAHEAD_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "lookahead"


def convert(source: Path) -> np.ndarray:
    """The package's file as sorted book entries; DatabaseError saying what is wrong."""
    try:
        size = source.stat().st_size
    except OSError as err:
        raise DatabaseError(f"{source}: cannot read it ({err.strerror})", STATUS_MISSING) from None
    if size != ENTRIES * RECORD.itemsize:
        raise DatabaseError(f"{source}: {size} bytes, expected {ENTRIES * RECORD.itemsize} "
                            "(truncated or another file)")  # fmt: skip
    records = np.fromfile(source, dtype=RECORD)
    keys = records["key"].astype(np.int32)
    if not np.all(keys[1:] > keys[:-1]):
        raise DatabaseError(f"{source}: records are not sorted (corrupt file)")
    entries = np.empty(ENTRIES, dtype=np.uint64)
    bad = _decode(keys, records["value"].astype(np.int8), entries)
    if bad:
        raise DatabaseError(f"{source}: {bad} malformed records (corrupt file)")
    entries.sort()
    return entries


def _cache_path(cache_dir: Path, source: Path) -> Path:
    return cache_dir / f"connect4-12ply-{package_version()}-{source.stat().st_size}.bin"


def _read_cache(path: Path) -> np.ndarray | None:
    """The cached entries if the file is whole and checks out, else None."""
    try:
        words = np.fromfile(path, dtype="<u8")  # the header is three words
    except (OSError, ValueError):
        return None
    if words.size != 3 + ENTRIES:
        return None
    magic, count, checksum = CACHE_HEADER.unpack(words[:3].tobytes())
    entries = words[3:]
    if magic != CACHE_MAGIC or count != ENTRIES or zlib.crc32(entries.data) != checksum:
        return None
    return entries


def _write_cache(path: Path, entries: np.ndarray) -> None:
    """Atomically (temp file + rename); a cache that cannot be written is only logged."""
    body = entries.astype("<u8").tobytes()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(CACHE_HEADER.pack(CACHE_MAGIC, ENTRIES, zlib.crc32(body)) + body)
        tmp.replace(path)
    except OSError as err:
        log.info("12-stone database: cannot write its cache %s (%s)", path, err.strerror)


def self_check(entries: np.ndarray) -> None:
    """Raise DatabaseError unless the known positions have their known scores."""
    for columns, value, score in SELF_CHECK:
        entry = book_.probe(entries, np.uint64(key_of_columns(columns)))
        if entry == U0 or book_.entry_score(entry) != score or score_of_value(value) != score:
            raise DatabaseError("self-check failed: a known position has another value")


def read_database(source: Path | None = None, cache_dir: Path | None = None) -> Database:
    """Load the database (from its cache when it checks out); DatabaseError if unusable."""
    source = database_file() if source is None else source
    if source is None:
        raise DatabaseError("the bitbully-databases package is not installed", STATUS_MISSING)
    if not source.exists():
        raise DatabaseError(f"{source}: no such file", STATUS_MISSING)
    cache = _cache_path(default_cache_dir() if cache_dir is None else cache_dir, source)
    entries = _read_cache(cache)
    if entries is None:
        entries = convert(source)
        _write_cache(cache, entries)
    if not np.all(entries[1:] > entries[:-1]):
        raise DatabaseError(f"{source}: positions repeat (corrupt file)")
    self_check(entries)
    return Database(entries, STATUS_OK)


def merge(book: np.ndarray, database: np.ndarray) -> np.ndarray:
    """One sorted array of the book's entries and the database's (their keys never meet:
    the book stops before 12 stones)."""
    if not book.size:
        return database
    if not database.size:
        return book
    return np.insert(database, np.searchsorted(database, book), book)


def without(entries: np.ndarray, book: np.ndarray) -> np.ndarray:
    """``entries`` less the book's (all of them among ``entries``)."""
    if not book.size:
        return entries
    return np.delete(entries, np.searchsorted(entries, book))
