"""``GameStore`` on one SQLite file (the embedded default).

One connection in autocommit mode, used under a lock. A game's save is one
``UPDATE`` statement (a compare-and-set on its version), a transaction of its
own that takes SQLite's write lock before it reads, so two stores on one file
(two processes) serialise their saves; writes of several statements (several
saves written together, below) are an explicit ``BEGIN IMMEDIATE`` transaction.
The file is in WAL mode: readers never wait for the writer. Every ``sqlite3``
error becomes ``StoreUnavailable``, logged with the operation and the cause.

``get`` keeps the rows it read or wrote (``RowCache``) and hands a hot game out
without reading, decoding and validating it again, for as long as no other
connection (another process, a hand edit) has committed to the file: SQLite's
``PRAGMA data_version`` changes then, and the cache is cleared.

# Why reads and saves do not queue for the connection one by one
Every SQLite call lets Python's GIL go, and a thread that held the connection's lock
across one must then wait for the GIL, while still holding the lock, behind every
other thread that wants it: under a crowd (200 players, some 400 threads) the lock's
waits were p95 55-90 ms and about ten threads' worth of waiting at any moment, most
of the web process's latency. So:

* a read of a cached game that finds the connection in use is answered from the cache
  if the cache was confirmed current (``data_version`` read) less than
  ``FRESH_SECONDS`` ago: it may miss another process's commit of that last moment, as
  a read that came a moment earlier would have. This process's own saves are in the
  cache before the save returns; a read that finds the connection free checks
  ``data_version`` first, as before;
* a save is one statement (one wait for the GIL under the lock, not three), and saves
  that come while the connection is in use are written together, by the next thread
  that takes it for a save (``_release``): one hand-off of the connection for all of
  them, not one each.
"""

from __future__ import annotations

import functools
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from webapp.store.errors import (
    GameExists,
    SchemaError,
    StoreUnavailable,
    VersionConflict,
)
from webapp.store.migrations import Migration, pending
from webapp.store.record import GameRecord, utc_iso
from webapp.store.rows import (
    COLUMNS,
    RowCache,
    changed_columns,
    decoded,
    first_valid,
    loaded,
    to_row,
    update_row,
)
from webapp.store.uptime import outages_of, with_outage
from webapp.store.validate import validate

log = logging.getLogger(__name__)

#: The hash of the second seat of a game between two people (NULL for an engine game, and
#: for a malformed ``friend``: one corrupt row must not stop the index being built, nor a
#: write): written exactly so in the index and in ``games_of``, or SQLite does not use it.
_GUEST = "(CASE WHEN json_valid(friend) THEN json_extract(friend, '$.guest_hash') END)"

#: Entry n - 1 takes the schema to version n (see ``webapp.store.migrations``).
MIGRATIONS: tuple[Migration, ...] = (
    # 1: the first schema; databases made before versioning hold it with user_version 0.
    (
        """CREATE TABLE IF NOT EXISTS games (
            id TEXT PRIMARY KEY,
            game TEXT NOT NULL,
            moves TEXT NOT NULL,
            settings TEXT NOT NULL,
            seat_hash TEXT NOT NULL,
            status TEXT NOT NULL,
            winner INTEGER,
            last_engine_move TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS games_by_status ON games (status, updated_at)",
    ),
    # 2: a version per game for compare-and-set saves; an index for pruning by age.
    (
        "ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 1",
        "CREATE INDEX games_by_update ON games (updated_at)",
    ),
    # 3: a browser's own games, newest first ("your recent games" on the home page).
    ("CREATE INDEX games_by_seat ON games (seat_hash, updated_at)",),
    # 4: how many moves a game was made with (a link with moves=): the review's preset moves.
    ("ALTER TABLE games ADD COLUMN preset INTEGER NOT NULL DEFAULT 0",),
    # 5: a game between two people (seats, invite, clock, offers, how it ended): JSON or NULL.
    ("ALTER TABLE games ADD COLUMN friend TEXT",),
    # 6: the games where a browser took the second seat (a guest's recent games).
    (f"CREATE INDEX games_by_guest ON games ({_GUEST}, updated_at)",),
    # 7: when a server was last known to be up (its clocks do not run while none is).
    (
        "CREATE TABLE server_alive (id INTEGER PRIMARY KEY CHECK (id = 1), "
        "alive_ms INTEGER NOT NULL, outages TEXT NOT NULL DEFAULT '[]')",
    ),
    # 8: pruning by age reads games_by_status (status, updated_at) as well: an index less
    # for every save to rewrite.
    ("DROP INDEX IF EXISTS games_by_update",),
)

_SELECT = f"SELECT {', '.join(COLUMNS)} FROM games"
_INSERT = f"INSERT INTO games ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"


@functools.lru_cache(maxsize=64)  # a few sets of columns come up: what a move, an undo... change
def _update(columns: tuple[str, ...]) -> str:
    """The compare-and-set ``UPDATE`` of ``columns`` (``changed_columns``)."""
    return f"UPDATE games SET {', '.join(f'{c} = ?' for c in columns)} WHERE id = ? AND version = ?"


#: Pruning by age: the unfinished games, then the finished ones, each by games_by_status
#: (status, then age). A row whose status is none of these is corrupt: it is logged when
#: read and left for a person to look at.
PRUNE_UNFINISHED = "DELETE FROM games WHERE updated_at < ? AND status = 'playing'"
PRUNE_FINISHED = "DELETE FROM games WHERE updated_at < ? AND status IN ('aborted', 'drawn', 'won')"
_FIRST_ALIVE = "INSERT INTO server_alive (id, alive_ms) VALUES (1, ?) ON CONFLICT (id) DO NOTHING"
#: Games whose last row ``get`` keeps (``RowCache``): the games in play on a busy server
#: (a row is a few kilobytes: the whole cache stays a few megabytes, warm in minutes).
CACHED_GAMES = 1024
#: Seconds between two tries of opening a file another process holds locked.
OPEN_RETRY_SECONDS = 0.05
#: Seconds a confirmation that the cache is current (``PRAGMA data_version`` unchanged)
#: stands for a read that finds the connection in use (see the module's docstring).
FRESH_SECONDS = 0.05
#: Seconds a save waits to be written by another thread before it goes for the
#: connection itself (a safety net: whoever lets the connection go sees to the saves).
ASKED_SECONDS = 1.0


class SQLiteStore:
    """``GameStore`` on one SQLite file (or ``":memory:"``, or SQLite's own ``file:`` URI);
    ``timeout`` is the busy timeout.

    Opening writes once (the health check's probe, ``check``): a file that
    cannot be written fails to open, at start-up, rather than at a player's move.

    ``read_only`` opens an existing file for reading only (inspection, or a
    replica); its writes raise ``StoreUnavailable``. Opened so, it writes nothing
    when the schema is current, so a read-only file at this version opens.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        timeout: float = 5.0,
        read_only: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        location = str(path)
        in_memory = location == ":memory:"
        given_uri = location.startswith("file:")  # SQLite's own URI (e.g. "file:x.db?mode=ro")
        self._lock = threading.Lock()
        self._cache = RowCache(CACHED_GAMES)
        self._data_version: int | None = None  # PRAGMA data_version the cache holds for
        self._clock = clock
        self._confirmed_at = -FRESH_SECONDS  # when data_version was last read (the lock held)
        self._saves_guard = threading.Lock()  # guards the list below (never held across I/O)
        self._saves: list[_Save] = []  # saves waiting for the connection
        try:
            if not in_memory and not read_only and not given_uri:
                Path(location).parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:  # the caller reports it (at start-up: one line, see app.py)
            raise StoreUnavailable(f"open {location} failed: {err}") from err
        target = location
        if read_only and not in_memory and not given_uri:  # it must exist; every write fails
            target = Path(location).resolve().as_uri() + "?mode=ro"
        with _guard(f"open {location}", logged=False):
            self._db = sqlite3.connect(
                target,
                timeout=timeout,
                isolation_level=None,
                check_same_thread=False,
                uri=read_only or given_uri,
            )
        try:
            wal = not in_memory and not read_only
            self._set_up(location, timeout, wal=wal, probe=not read_only)
        except BaseException:
            self._db.close()
            raise

    def _set_up(self, location: str, timeout: float, *, wal: bool, probe: bool) -> None:
        """The journal, the schema and the write probe of a new connection. Two processes
        opening one new file at once (two web processes on one machine) may find it
        locked in ways SQLite's busy timeout does not wait out (turning on WAL, the
        other's migration): that is tried again until ``timeout`` has passed."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                with _guard(f"open {location}", logged=False):
                    if wal:
                        self._db.execute("PRAGMA journal_mode=WAL")
                        # WAL with NORMAL: a commit never corrupts the file; a power cut may
                        # lose the last commits, not the database. FULL syncs every commit.
                        self._db.execute("PRAGMA synchronous=NORMAL")
                    self._migrate()
                    if probe:  # a file that cannot be written fails here, not at a move
                        self._write_probe()
                    self._check_cache()
                return
            except StoreUnavailable as err:
                cause = err.__cause__
                locked = isinstance(cause, sqlite3.OperationalError) and "locked" in str(cause)
                if not locked or time.monotonic() >= deadline:
                    raise
                time.sleep(OPEN_RETRY_SECONDS)

    def create(self, record: GameRecord) -> None:
        stored = replace(record, version=1)
        validate(stored)
        with self._connection(), _guard(f"create {record.id!r}"):
            try:
                row = to_row(stored)
                self._db.execute(_INSERT, row)  # one statement: a transaction of its own
                self._cache.put(row)
            except sqlite3.IntegrityError as err:  # the primary key: the id is taken
                raise GameExists(record.id) from err
        record.version = 1

    def get(self, game_id: str) -> GameRecord | None:
        if not self._lock.acquire(blocking=False):  # in use: a fresh cached row will do
            cached = self._fresh(game_id)
            if cached is not None:
                return decoded(cached)
            self._lock.acquire()
        try:
            with _guard(f"get {game_id!r}"):
                self._check_cache()
                cached = self._cache.get(game_id)
                if cached is None:
                    row = self._db.execute(f"{_SELECT} WHERE id = ?", (game_id,)).fetchone()
                    if row is None:
                        return None
                    record = loaded(row)
                    self._cache.put(row)  # validated, under the lock: no newer row in between
                    return record
        finally:
            self._release()
        # A cached row (a tuple, validated when it was read or written) is decoded after
        # letting the lock go: every read and save of every game waits on that lock.
        return decoded(cached)

    def _fresh(self, game_id: str) -> tuple[Any, ...] | None:
        """The cached row of ``game_id`` if the cache was confirmed current less than
        ``FRESH_SECONDS`` ago (else None: read it with the connection)."""
        if self._clock() - self._confirmed_at >= FRESH_SECONDS:
            return None
        return self._cache.get(game_id)

    def save(self, record: GameRecord) -> None:
        row, _ = update_row(record)
        waiting = _Save(record.id, record.version, row)
        with self._saves_guard:
            self._saves.append(waiting)
        if self._lock.acquire(blocking=False):
            self._release(write=True)  # writes the saves waiting, this one among them
        # Else the connection's holder writes it as it lets go (or asks a save to). A
        # save never waits on that alone: past ``ASKED_SECONDS`` it goes for the
        # connection itself, as if asked.
        while True:
            waiting.woken.wait(ASKED_SECONDS)
            if waiting.written:
                break
            waiting.woken.clear()  # asked to write the saves waiting (this one among them)
            self._lock.acquire()
            self._release(write=True)
            if waiting.written:
                break
        if waiting.error is not None:
            raise waiting.error
        record.version += 1

    @contextmanager
    def _connection(self) -> Iterator[None]:
        """Hold the connection (its lock); let it go through ``_release``."""
        self._lock.acquire()
        try:
            yield
        finally:
            self._release()

    def _release(self, write: bool = False) -> None:
        """Let the connection go; a save (``write``) writes the saves waiting first.

        A save that comes while the connection is held waits for its holder, so every
        holder looks once it has let go, and asks the first save waiting to write them
        (it takes the connection in turn with the other threads waiting for it). So
        nobody writes others' saves but a thread that saves, and a thread that has
        written never takes the connection again ahead of those waiting for it (a
        page's query would wait behind a stream of saves)."""
        try:
            if write:
                self._write_saves()
        finally:
            self._lock.release()
        with self._saves_guard:
            first = self._saves[0] if self._saves else None
        if first is not None:
            first.ask()

    def _write_saves(self) -> None:
        """Write the saves waiting (the connection held): one statement for one save, a
        transaction for several. Each save's compare-and-set is its own (a lost race
        fails that save alone); a failure of the database fails them all, nothing
        written. Each waiting thread is told its outcome."""
        with self._saves_guard:
            batch, self._saves = self._saves, []
        if not batch:
            return
        try:
            self._write(batch)
        finally:  # whatever happened, nobody waits for ever
            for each in batch:
                if not each.written:
                    self._cache.drop(each.game_id)
                    each.fail(StoreUnavailable(f"save {each.game_id!r} was not finished"))

    def _write(self, batch: list[_Save]) -> None:
        """Write ``batch`` and tell each save its outcome (``_write_saves``)."""
        try:
            with _guard(f"save {', '.join(repr(each.game_id) for each in batch)}"):
                # No other connection's commit since the cache was confirmed: a cached row
                # is the file's row of its version, and a save writes only what changed
                # since (``_statement``); else every column.
                due = self._clock() - self._confirmed_at >= FRESH_SECONDS / 2
                version = self._file_version()
                current = version == self._data_version
                if due:  # while saves keep the connection, reads stay fresh
                    self._check_cache(version)
                if len(batch) == 1:
                    statement = self._statement(batch[0], current)
                    written = [self._db.execute(*statement).rowcount == 1]
                else:
                    with self._transaction():
                        written = [self._db.execute(*self._statement(each, current)).rowcount == 1
                                   for each in batch]  # fmt: skip
        except BaseException as err:
            for each in batch:
                self._cache.drop(each.game_id)
                each.fail(err)
            return
        for each, ok in zip(batch, written, strict=True):
            if ok:
                self._cache.put(each.row)
                each.finish()
            else:
                self._cache.drop(each.game_id)
                each.fail(VersionConflict(each.game_id, each.version))

    def _statement(self, save: _Save, current: bool) -> tuple[str, list[Any]]:
        """The compare-and-set ``UPDATE`` of ``save`` and its values: the columns that changed
        since the version it was read at, when the cache is ``current`` (no other
        connection has committed since it was confirmed; the connection is held) and has
        that version's row; else every column. A row changed in the file without its
        version (a hand edit) was changed by another connection: not current."""
        before = self._cache.peek(save.game_id) if current else None
        columns = changed_columns(save.row, before)
        values = [save.row[COLUMNS.index(c)] for c in columns]
        return _update(columns), [*values, save.game_id, save.version]

    def last_alive(self) -> int | None:
        with self._connection(), _guard("last_alive"):
            row = self._db.execute("SELECT alive_ms FROM server_alive WHERE id = 1").fetchone()
        return None if row is None else int(row[0])

    def mark_alive(self, at_ms: int) -> None:
        with self._connection(), _guard("mark_alive"), self._transaction():
            self._db.execute(
                "INSERT INTO server_alive (id, alive_ms) VALUES (1, ?) ON CONFLICT (id) "
                "DO UPDATE SET alive_ms = max(alive_ms, excluded.alive_ms)",
                (at_ms,),
            )

    def claim_downtime(self, seen: int | None, at_ms: int) -> bool:
        with self._connection(), _guard("claim_downtime"), self._transaction():
            if seen is None:
                return self._db.execute(_FIRST_ALIVE, (at_ms,)).rowcount == 1
            row = self._db.execute("SELECT alive_ms, outages FROM server_alive").fetchone()
            if row is None or int(row[0]) != seen:
                return False
            query = "UPDATE server_alive SET alive_ms = ?, outages = ? WHERE id = 1"
            self._db.execute(query, (at_ms, with_outage(row[1], seen, at_ms)))
            return True

    def outages(self) -> list[tuple[int, int]]:
        with self._connection(), _guard("outages"):
            row = self._db.execute("SELECT outages FROM server_alive WHERE id = 1").fetchone()
        return [] if row is None else outages_of(row[0])

    def _file_version(self) -> int:
        """SQLite's ``data_version``: it changes when another connection commits (the lock
        is held). Commits of this connection leave it as it is."""
        return int(self._db.execute("PRAGMA data_version").fetchone()[0])

    def _check_cache(self, version: int | None = None) -> None:
        """Clear the cache if another connection has committed since it was filled (the
        lock is held; ``version``: ``_file_version()`` if just read)."""
        if version is None:
            version = self._file_version()
        if version != self._data_version:
            self._cache.clear()
            self._data_version = version
        self._confirmed_at = self._clock()

    def playing(self, limit: int) -> list[GameRecord]:
        query = f"{_SELECT} WHERE status = 'playing' ORDER BY updated_at DESC"
        return self._valid(query, (), limit, "playing")

    def games_of(self, seat_hash: str, limit: int) -> list[GameRecord]:
        query = (
            f"{_SELECT} WHERE seat_hash = ? OR {_GUEST} = ? ORDER BY updated_at DESC, rowid DESC"
        )
        return self._valid(query, (seat_hash, seat_hash), limit, "games_of")

    def _valid(
        self, query: str, params: tuple[Any, ...], limit: int, operation: str
    ) -> list[GameRecord]:
        """Up to ``limit`` valid records of ``query`` (corrupt rows are skipped, logged)."""
        if limit <= 0:
            return []
        with (
            self._connection(),
            _guard(operation),
            closing(self._db.execute(query, params)) as rows,
        ):
            return first_valid(rows, limit)

    def prune(self, *, unfinished_before: str, finished_before: str) -> int:
        unfinished, finished = utc_iso(unfinished_before), utc_iso(finished_before)
        with self._connection(), _guard("prune"), self._transaction():
            gone = self._db.execute(PRUNE_UNFINISHED, (unfinished,)).rowcount
            gone += self._db.execute(PRUNE_FINISHED, (finished,)).rowcount
            self._cache.clear()
        return gone

    def check(self) -> None:
        """Write and commit something that changes nothing: the schema version, as it is.

        A read, or a write transaction rolled back before writing a page, passes
        on a file that can no longer be written (made immutable or read-only
        while open): this write reaches the file (or its WAL) as every save does.
        """
        with self._connection(), _guard("check"):
            self._write_probe()

    def _write_probe(self) -> None:
        with self._transaction():
            version = int(self._db.execute("PRAGMA user_version").fetchone()[0])
            self._db.execute(f"PRAGMA user_version = {version}")

    def close(self) -> None:
        with self._connection(), _guard("close"):
            self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """One write transaction: commit on success, roll back on any exception."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                try:
                    self._db.execute("ROLLBACK")
                except sqlite3.Error as err:  # the first error is the one to report
                    log.warning("store: rollback failed: %s", err)
            raise

    def _migrate(self) -> None:
        """Bring the schema to ``len(MIGRATIONS)`` in one transaction (nothing to do: no write)."""
        if not pending(self._schema_version(), MIGRATIONS):
            return  # the usual case; a read-only database at the current version still opens
        with self._transaction():
            current = self._schema_version()  # again under the lock: another process may have
            for version, migration in pending(current, MIGRATIONS):
                log.info("store: migrating the schema to version %d", version)
                try:
                    if callable(migration):
                        migration(self._db)
                    else:
                        for statement in migration:
                            self._db.execute(statement)
                except sqlite3.Error:
                    raise  # the database failed, not the migration: StoreUnavailable
                except Exception as err:
                    raise SchemaError(f"migration to version {version} failed: {err}") from err
                self._db.execute(f"PRAGMA user_version = {int(version)}")

    def _schema_version(self) -> int:
        version = int(self._db.execute("PRAGMA user_version").fetchone()[0])
        if (
            version == 0
            and self._db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'games'"
            ).fetchone()
        ):
            return 1  # made before schema versions: the first schema
        return version


@dataclass(eq=False)
class _Save:
    """A save waiting for the connection: the row it writes, and once written its outcome."""

    game_id: str
    version: int
    row: tuple[Any, ...]  # the next version's, its ``UPDATE`` made when it is written
    woken: threading.Event = field(default_factory=threading.Event)  # written, or asked
    written: bool = False  # its outcome is known (``error``: None if it was written)
    error: BaseException | None = None

    def finish(self) -> None:
        self.written = True
        self.woken.set()

    def fail(self, error: BaseException) -> None:
        """Tell the waiting thread ``error`` (each its own: a raised exception keeps the
        traceback of the thread that raises it)."""
        if isinstance(error, VersionConflict):
            self.error = error
        else:
            self.error = StoreUnavailable(f"save {self.game_id!r} failed: {error}")
            self.error.__cause__ = error.__cause__ or error
        self.finish()

    def ask(self) -> None:
        """Ask the waiting thread to write the saves waiting (its own among them)."""
        self.woken.set()


@contextmanager
def _guard(operation: str, *, logged: bool = True) -> Iterator[None]:
    """Turn a ``sqlite3`` error into ``StoreUnavailable``, logged with the operation (unless
    ``logged`` is False: opening, whose caller reports it)."""
    try:
        yield
    except sqlite3.Error as err:
        if logged:
            log.error("store: %s failed: %s: %s", operation, type(err).__name__, err)
        raise StoreUnavailable(f"{operation} failed: {err}") from err
