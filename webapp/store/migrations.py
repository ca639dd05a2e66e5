"""Schema versions and the migrations between them; the runner's rules, shared by every backend.

A backend keeps a list of migrations: entry ``n - 1`` takes the schema from
version ``n - 1`` to ``n``. Each is a tuple of SQL statements, or a callable
given the backend's connection (for changes SQL alone cannot make, such as
rewriting JSON). The database records its version (SQLite: ``PRAGMA
user_version``); opening a store runs the pending migrations in one
transaction, so a failure leaves the database exactly as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

from webapp.store.errors import SchemaError

#: The schema this code reads and writes; every backend's list has this many migrations.
#: 1: the first schema (``games``); 2: ``games.version`` and the ``games_by_update`` index;
#: 3: the ``games_by_seat`` index (a browser's own games); 4: ``games.preset`` (the moves a
#: game was made with); 5: ``games.friend`` (a game between two people); 6: the
#: ``games_by_guest`` index (the games where a browser took the second seat); 7: the
#: ``server_alive`` table (when a server was last known up: clocks stop while none is); 8:
#: ``games_by_update`` dropped (pruning reads ``games_by_status``; every save rewrote it).
SCHEMA_VERSION = 8

#: SQL statements run in order, or a function of the backend's connection.
Migration: TypeAlias = tuple[str, ...] | Callable[[Any], None]


def pending(current: int, migrations: Sequence[Migration]) -> list[tuple[int, Migration]]:
    """``(version, migration)`` for each migration a database at ``current`` still needs.

    Raises ``SchemaError`` when the database is newer than ``migrations`` know:
    its rows may mean something this code would misread, or overwrite.
    """
    known = len(migrations)
    if current > known:
        raise SchemaError(
            f"the database has schema version {current}, newer than this code's {known}: "
            "upgrade Lookahead (it will not read or write a schema it does not know)"
        )
    return [(version, migrations[version - 1]) for version in range(current + 1, known + 1)]
