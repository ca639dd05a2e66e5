"""The store layer: where games live (``GameStore``), its backends, the checks every row passes.

Modules, one role each:

* ``record``      ``GameRecord`` and the ``GameStore`` protocol (``now``, ``days_ago``)
* ``errors``      ``StoreError`` and its subclasses
* ``validate``    the checks a game passes before it is written or handed out
* ``rows``        a record as a row of plain values and back (shared by SQL backends)
* ``migrations``  ``SCHEMA_VERSION`` and the rules of the migration runner
* ``sqlite``      ``SQLiteStore``, the embedded default, with its SQL and migrations
* ``postgres``    ``PostgresStore`` (psycopg 3 and its pool), for several servers on one database
* ``backends``    ``open_store(location)``: the backend a location names

Use ``open_store("instance/lookahead.sqlite3")`` or
``open_store("postgresql://user@host:5432/lookahead")`` (``SQLiteStore(path,
read_only=True)`` opens a file for reading only). Each backend is one module
with its own SQL and migration list; validation, the row mapping and the
runner's rules are shared.

Schema (version 6)
------------------
One table, ``games``, one row per game::

    id                TEXT PRIMARY KEY   random, from the service
    game              TEXT NOT NULL      "tictactoe" or "connect4"
    moves             TEXT NOT NULL      "4453": one character per move
    settings          TEXT NOT NULL      JSON object with every key of DEFAULT_SETTINGS
    seat_hash         TEXT NOT NULL      hash of the seat's token (never the token)
    status            TEXT NOT NULL      "playing", "won" or "drawn"
    winner            INTEGER            0 = the first player; NULL unless won
    last_engine_move  TEXT               JSON object (the last engine_move payload, with the
                                         one before under "previous") or NULL
    created_at        TEXT NOT NULL      ISO 8601 UTC, as ``now()`` writes it
    updated_at        TEXT NOT NULL      ditto; stored times compare as text
    version           INTEGER NOT NULL   1 after create, +1 per committed save
    preset            INTEGER NOT NULL   moves the game was made with (0..len(moves))
    friend            TEXT               JSON object (a game between two people) or NULL

Indexes: ``games_by_status (status, updated_at)`` lists the unfinished games
for resuming and serves ``prune`` (``games_by_update`` did, until version 8: an
index less for every save to rewrite); ``games_by_seat (seat_hash,
updated_at)`` and ``games_by_guest (friend's guest_hash, updated_at)`` list a
browser's own games (either seat); a ``friend`` that is not JSON indexes as
NULL, so one corrupt row cannot stop a migration.

Versions, consistency, errors
-----------------------------
``save`` is compare-and-set on ``version``: it commits only when the stored
version is the record's, so two processes can never both apply a change to
one game; the loser gets ``VersionConflict`` and nothing is written. (SQLite's
save sets only the columns that changed since that version's row, when it holds
that row: ``rows.changed_columns``.) Every row is validated when read
(``validate``): ``get`` raises ``CorruptRecord`` (logged) for a bad row and
``playing`` logs and skips it, so one bad game
never stops start-up. A database that cannot be read or written (read-only,
locked past the busy ``timeout``, I/O error, closed) gives ``StoreUnavailable``
with a log line naming the operation and the cause.

Schema versions and migrations
------------------------------
The database records its schema version (SQLite: ``PRAGMA user_version``;
PostgreSQL: the one-row table ``lookahead_schema``, see ``postgres.py``).
Version 1 is the first schema; a database made before versions existed has
``user_version`` 0 and a ``games`` table, and counts as version 1. Opening a
store runs the pending migrations in one transaction (a failure leaves the
file as it was, and opening raises); a database newer than the code is
refused with ``SchemaError`` rather than misread.

To change the schema:

1. Append one migration to ``MIGRATIONS`` in each backend (``sqlite.py``, ``postgres.py``):
   a tuple of SQL statements, or a function given the connection for what
   SQL cannot do. Never edit a migration that has shipped.
2. Raise ``SCHEMA_VERSION`` in ``migrations.py`` by one and note what changed.
3. Update ``GameRecord``, ``rows.COLUMNS``/``to_row``/``from_row``,
   ``validate`` and the schema above.
4. Add a test that opens a database made at the previous version (its exact
   ``CREATE`` statements, copied into the test) and finds every game intact.
"""

from webapp.store.backends import SCHEMES, describe, open_store
from webapp.store.errors import (
    CorruptRecord,
    GameExists,
    SchemaError,
    StoreError,
    StoreUnavailable,
    VersionConflict,
)
from webapp.store.migrations import SCHEMA_VERSION
from webapp.store.record import GameRecord, GameStore, days_ago, now
from webapp.store.sqlite import SQLiteStore
from webapp.store.validate import replayed, result_of, validate

__all__ = [
    "SCHEMA_VERSION",
    "SCHEMES",
    "CorruptRecord",
    "GameExists",
    "GameRecord",
    "GameStore",
    "SQLiteStore",
    "SchemaError",
    "StoreError",
    "StoreUnavailable",
    "VersionConflict",
    "days_ago",
    "describe",
    "now",
    "open_store",
    "replayed",
    "result_of",
    "validate",
]
