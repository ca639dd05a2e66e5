"""``GameStore`` on PostgreSQL (several servers, one database), with psycopg 3 and its pool.

Connections are in autocommit mode and come from a ``psycopg_pool.ConnectionPool``
that checks each one before lending it, so a connection lost while idle (a
restarted database, a dropped link) is replaced instead of failing a request
(the pool waits about a second after a failed check, within ``timeout``). A
statement cut off mid-way is not retried, since a write may have committed: the
caller gets ``StoreUnavailable``, and the game's stored version tells on the next read.

Every write is one statement or an explicit transaction; ``save`` is
compare-and-set (``UPDATE ... WHERE id = %s AND version = %s``): two servers
saving the same version are serialised by the row lock and the second finds
no row. Every psycopg error becomes ``StoreUnavailable``, logged with the
operation and the cause; ``timeout`` bounds the wait for a connection from the
pool and for a row or table lock.

Same schema as SQLite (the package docstring), with two differences: the times
are ``TEXT COLLATE "C"`` so they order and compare byte by byte, as in SQLite,
whatever the database's locale; and the schema version is kept in the one-row
table ``lookahead_schema`` (no table and a ``games`` table: version 1).
Migrations run in one transaction under an advisory lock, so two servers
starting at once never both migrate; the second finds the work done.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, TypeAlias

import psycopg
from psycopg_pool import ConnectionPool

from webapp.store.errors import (
    GameExists,
    SchemaError,
    StoreUnavailable,
    VersionConflict,
)
from webapp.store.migrations import Migration, pending
from webapp.store.record import GameRecord, utc_iso
from webapp.store.rows import COLUMNS, UPDATED, first_valid, loaded, to_row, update_values
from webapp.store.uptime import outages_of, with_outage
from webapp.store.validate import validate

log = logging.getLogger(__name__)

Connection: TypeAlias = psycopg.Connection[tuple[Any, ...]]

#: The hash of the second seat of a game between two people (NULL for an engine game, and
#: for a malformed ``friend``: one corrupt row must not stop the index being built, nor a
#: write), written exactly so in the index and in ``games_of`` (the planner matches it).
_GUEST = "lookahead_guest_hash(friend)"
#: ``friend``'s guest hash, NULL when it is not JSON (a cast would raise): IMMUTABLE, so
#: an index may use it.
_GUEST_FUNCTION = """CREATE OR REPLACE FUNCTION lookahead_guest_hash(friend TEXT) RETURNS TEXT
    LANGUAGE plpgsql IMMUTABLE AS $$
    BEGIN
        RETURN friend::jsonb ->> 'guest_hash';
    EXCEPTION WHEN data_exception THEN  -- not JSON (22P02), or a \\u0000 in it
        RETURN NULL;
    END
    $$"""

#: Entry n - 1 takes the schema to version n (see ``webapp.store.migrations``);
#: the same numbering as ``sqlite.MIGRATIONS``.
MIGRATIONS: tuple[Migration, ...] = (
    # 1: the first schema.
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
            created_at TEXT COLLATE "C" NOT NULL,
            updated_at TEXT COLLATE "C" NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS games_by_status ON games (status, updated_at)",
    ),
    # 2: a version per game for compare-and-set saves; an index for pruning by age.
    (
        "ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 1",
        "CREATE INDEX games_by_update ON games (updated_at)",
    ),
    # 3: a browser's own games, newest first.
    ("CREATE INDEX games_by_seat ON games (seat_hash, updated_at)",),
    # 4: how many moves a game was made with (a link with moves=): the review's preset moves.
    ("ALTER TABLE games ADD COLUMN preset INTEGER NOT NULL DEFAULT 0",),
    # 5: a game between two people (seats, invite, clock, offers, how it ended): JSON or NULL.
    ("ALTER TABLE games ADD COLUMN friend TEXT",),
    # 6: the games where a browser took the second seat (a guest's recent games).
    (_GUEST_FUNCTION, f"CREATE INDEX games_by_guest ON games (({_GUEST}), updated_at)"),
    # 7: when a server was last known to be up (its clocks do not run while none is).
    (
        "CREATE TABLE server_alive (id INTEGER PRIMARY KEY CHECK (id = 1), "
        "alive_ms BIGINT NOT NULL, outages TEXT NOT NULL DEFAULT '[]')",
    ),
    # 8: pruning by age reads games_by_status (status, updated_at) as well: an index less
    # for every save to rewrite.
    ("DROP INDEX IF EXISTS games_by_update",),
)

#: The key of the advisory lock held while migrating (any constant; "Look" in ASCII).
SCHEMA_LOCK = 0x4C6F6F6B
#: How long opening waits for another server's migration (milliseconds) at least.
MIGRATION_WAIT_MS = 60_000

_SELECT = f"SELECT {', '.join(COLUMNS)} FROM games"
_INSERT = (
    f"INSERT INTO games ({', '.join(COLUMNS)}) VALUES ({', '.join(['%s'] * len(COLUMNS))}) "
    "ON CONFLICT (id) DO NOTHING"
)
#: What ``save`` changes; id, game, seat_hash and created_at never change.
_UPDATE = (
    f"UPDATE games SET {', '.join(f'{name} = %s' for name in UPDATED)} "
    "WHERE id = %s AND version = %s"
)
#: Rows fetched at a time while reading past corrupt rows.
_BATCH = 100


class PostgresStore:
    """``GameStore`` on the PostgreSQL database at ``url`` (``postgresql://user@host:port/db``).

    ``timeout`` (seconds) bounds connecting, waiting for a pooled connection and
    waiting for a lock; ``min_size`` and ``max_size`` size the pool. Opening
    connects once, migrates, then opens the pool: an unreachable database or a
    newer schema fails here, with the cause.
    """

    def __init__(
        self, url: str, *, timeout: float = 5.0, min_size: int = 1, max_size: int = 8
    ) -> None:
        lock_ms = max(1, int(timeout * 1000))
        settings: dict[str, Any] = {
            "autocommit": True,
            "connect_timeout": max(2, math.ceil(timeout)),  # libpq's smallest
        }

        def configure(conn: Connection) -> None:
            conn.execute(f"SET lock_timeout = {lock_ms}")

        with _guard("open"), psycopg.connect(url, **settings) as first:
            # Another server's migration may take a while (an index on a big table).
            first.execute(f"SET lock_timeout = {max(lock_ms, MIGRATION_WAIT_MS)}")
            _migrate(first)
        self._pool: ConnectionPool[Connection] = ConnectionPool(
            url,
            kwargs=settings,
            min_size=min_size,
            max_size=max_size,
            open=False,
            configure=configure,
            check=ConnectionPool.check_connection,
            timeout=timeout,
            name="lookahead-store",
        )
        with _guard("open"):
            self._pool.open()

    def create(self, record: GameRecord) -> None:
        stored = replace(record, version=1)
        validate(stored)
        with self._connection(f"create {record.id!r}") as conn:
            if conn.execute(_INSERT, to_row(stored)).rowcount != 1:
                raise GameExists(record.id)
        record.version = 1

    def get(self, game_id: str) -> GameRecord | None:
        if not _storable(game_id):
            return None  # no such game can have been stored
        with self._connection(f"get {game_id!r}") as conn:
            row = conn.execute(f"{_SELECT} WHERE id = %s", (game_id,)).fetchone()
        return None if row is None else loaded(row)

    def save(self, record: GameRecord) -> None:
        values = update_values(record)
        with self._connection(f"save {record.id!r}") as conn:
            if conn.execute(_UPDATE, values).rowcount != 1:
                raise VersionConflict(record.id, record.version)
        record.version += 1

    def playing(self, limit: int) -> list[GameRecord]:
        query = f"{_SELECT} WHERE status = 'playing' ORDER BY updated_at DESC, id DESC"
        return self._valid(query, (), limit, "playing")

    def games_of(self, seat_hash: str, limit: int) -> list[GameRecord]:
        if not _storable(seat_hash):
            return []
        query = f"{_SELECT} WHERE seat_hash = %s OR {_GUEST} = %s ORDER BY updated_at DESC, id DESC"
        return self._valid(query, (seat_hash, seat_hash), limit, "games_of")

    def last_alive(self) -> int | None:
        with self._connection("last_alive") as conn:
            row = conn.execute("SELECT alive_ms FROM server_alive WHERE id = 1").fetchone()
        return None if row is None else int(row[0])

    def mark_alive(self, at_ms: int) -> None:
        with self._connection("mark_alive") as conn:
            conn.execute(
                "INSERT INTO server_alive (id, alive_ms) VALUES (1, %s) ON CONFLICT (id) "
                "DO UPDATE SET alive_ms = GREATEST(server_alive.alive_ms, EXCLUDED.alive_ms)",
                (at_ms,),
            )

    def claim_downtime(self, seen: int | None, at_ms: int) -> bool:
        with self._connection("claim_downtime") as conn:
            if seen is None:
                query = (
                    "INSERT INTO server_alive (id, alive_ms) VALUES (1, %s) ON CONFLICT DO NOTHING"
                )
                return conn.execute(query, (at_ms,)).rowcount == 1
            row = conn.execute("SELECT alive_ms, outages FROM server_alive WHERE id = 1").fetchone()
            if row is None or int(row[0]) != seen:
                return False
            # Compare-and-set on the last mark: the windows change only with it.
            query = (
                "UPDATE server_alive SET alive_ms = %s, outages = %s WHERE id = 1 AND alive_ms = %s"
            )
            changed = conn.execute(query, (at_ms, with_outage(row[1], seen, at_ms), seen))
            return changed.rowcount == 1

    def outages(self) -> list[tuple[int, int]]:
        with self._connection("outages") as conn:
            row = conn.execute("SELECT outages FROM server_alive WHERE id = 1").fetchone()
        return [] if row is None else outages_of(row[0])

    def prune(self, *, unfinished_before: str, finished_before: str) -> int:
        unfinished, finished = utc_iso(unfinished_before), utc_iso(finished_before)
        with self._connection("prune") as conn, conn.transaction():
            gone = conn.execute(
                "DELETE FROM games WHERE updated_at < %s AND status = 'playing'", (unfinished,)
            ).rowcount
            gone += conn.execute(
                "DELETE FROM games WHERE updated_at < %s AND status IN ('aborted', 'drawn', 'won')",
                (finished,),
            ).rowcount
        return gone

    def check(self) -> None:
        """Try a write that changes nothing, then roll back.

        A read alone would pass on a read-only database (a standby, or one
        switched to ``default_transaction_read_only``).
        """
        with self._connection("check") as conn, conn.transaction(force_rollback=True):
            conn.execute("UPDATE games SET id = id WHERE false")

    def close(self) -> None:
        self._pool.close()

    def _valid(
        self, query: str, params: tuple[Any, ...], limit: int, operation: str
    ) -> list[GameRecord]:
        """Up to ``limit`` valid records of ``query``, read past corrupt rows (each logged)."""
        if limit <= 0:
            return []
        with (
            self._connection(operation) as conn,
            conn.transaction(),  # a named (server-side) cursor lives in a transaction
            conn.cursor(name=operation) as rows,
        ):
            rows.itersize = min(limit, _BATCH)
            rows.execute(query, params)
            return first_valid(rows, limit)

    @contextmanager
    def _connection(self, operation: str) -> Iterator[Connection]:
        """A pooled connection; a psycopg error inside becomes ``StoreUnavailable``."""
        with _guard(operation), self._pool.connection() as conn:
            yield conn


def _storable(text: str) -> bool:
    """Whether PostgreSQL can hold ``text`` (no NUL, valid UTF-8): others match no row."""
    if "\x00" in text:
        return False
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def _migrate(conn: Connection) -> None:
    """Bring the schema to ``len(MIGRATIONS)`` in one transaction (nothing to do: no write).

    The advisory lock is taken before the transaction begins, not inside it: a
    transaction that began before the other server's commit would still see the
    tables as they were (PostgreSQL refreshes its catalog caches as a transaction
    starts), and migrate them a second time.
    """
    if not pending(_schema_version(conn), MIGRATIONS):
        return  # the usual case: no lock taken, nothing written
    conn.execute("SELECT pg_advisory_lock(%s)", (SCHEMA_LOCK,))
    try:
        with conn.transaction():
            steps = pending(_schema_version(conn), MIGRATIONS)  # another server may have
            for version, migration in steps:
                log.info("store: migrating the schema to version %d", version)
                try:
                    if callable(migration):
                        migration(conn)
                    else:
                        for statement in migration:
                            conn.execute(statement)
                except psycopg.Error:
                    raise
                except Exception as err:
                    raise SchemaError(f"migration to version {version} failed: {err}") from err
            if steps:
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS lookahead_schema (version INTEGER NOT NULL)"
                )
                conn.execute("DELETE FROM lookahead_schema")
                conn.execute("INSERT INTO lookahead_schema (version) VALUES (%s)", (steps[-1][0],))
    finally:
        if not conn.closed:
            conn.execute("SELECT pg_advisory_unlock(%s)", (SCHEMA_LOCK,))


def _schema_version(conn: Connection) -> int:
    """The version in ``lookahead_schema``; without it, 1 if ``games`` exists, else 0."""
    tables = conn.execute(
        "SELECT to_regclass('lookahead_schema') IS NOT NULL, to_regclass('games') IS NOT NULL"
    ).fetchone()
    assert tables is not None
    has_version, has_games = tables
    if has_version:
        row = conn.execute("SELECT max(version) FROM lookahead_schema").fetchone()
        if row is not None and row[0] is not None:
            return int(row[0])
    return 1 if has_games else 0


@contextmanager
def _guard(operation: str) -> Iterator[None]:
    """Turn a psycopg error (the pool's timeouts and closing too) into ``StoreUnavailable``."""
    try:
        yield
    except psycopg.Error as err:
        cause = str(err).strip() or type(err).__name__
        log.error("store: %s failed: %s: %s", operation, type(err).__name__, cause)
        raise StoreUnavailable(f"{operation} failed: {cause}") from err
