"""Schema versions (webapp/store/migrations.py, each backend's list): old upgraded, newer refused.

Every test taking ``backend`` runs on SQLite and on PostgreSQL; each builds the old
schema from that backend's exact statements (``store_backends.VERSION_1_SCHEMA``).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.web.store_backends import VERSION_1_SCHEMA, Backend
from tests.web.test_store import game_record
from webapp.protocol import DEFAULT_SETTINGS
from webapp.store import (
    SCHEMA_VERSION,
    GameStore,
    SchemaError,
    SQLiteStore,
    StoreUnavailable,
    postgres,
    sqlite,
)

VERSION_1_GAMES = [
    ("a", "connect4", "44", None, "playing", None, "2030-01-01T00:00:00+00:00"),
    ("b", "tictactoe", "14253", {"best_move": "3"}, "won", 0, "2030-01-02T00:00:00+00:00"),
    ("c", "connect4", "", None, "playing", None, "2030-01-03T00:00:00+00:00"),
]
#: Version 2's additions to version 1, as the second migration of each backend made them.
VERSION_2_CHANGES = """
ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
CREATE INDEX games_by_update ON games (updated_at);
"""
CURRENT_INDEXES = ["games_by_guest", "games_by_seat", "games_by_status"]


def make_version_1_database(backend: Backend) -> None:
    """A database as the code before schema versions left it, with ``VERSION_1_GAMES``."""
    backend.script(VERSION_1_SCHEMA[backend.name])
    for game_id, game, moves, last, status, winner, updated in VERSION_1_GAMES:
        backend.execute(
            "INSERT INTO games (id, game, moves, settings, seat_hash, status, winner, "
            "last_engine_move, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                game_id,
                game,
                moves,
                json.dumps(DEFAULT_SETTINGS),
                f"hash-{game_id}",
                status,
                winner,
                None if last is None else json.dumps(last),
                "2029-12-31T00:00:00+00:00",
                updated,
            ),
        )


def make_version_2_database(backend: Backend) -> None:
    """Version 2 (versions, no seat index), its games all of one seat at version 4."""
    make_version_1_database(backend)
    backend.script(VERSION_2_CHANGES)
    backend.execute("UPDATE games SET seat_hash = 'same-seat', version = 4")
    if backend.name == "sqlite":
        backend.set_version(2)
    else:
        backend.script(
            "CREATE TABLE lookahead_schema (version INTEGER NOT NULL);"
            "INSERT INTO lookahead_schema (version) VALUES (2)"
        )


def test_every_backend_migration_list_reaches_the_schema_version() -> None:
    assert len(sqlite.MIGRATIONS) == len(postgres.MIGRATIONS) == SCHEMA_VERSION


def test_a_version_1_database_keeps_every_game_and_gains_versions(backend: Backend) -> None:
    make_version_1_database(backend)
    assert backend.schema()[0] == 0

    store = backend.open()
    try:
        for game_id, game, moves, last, status, winner, updated in VERSION_1_GAMES:
            stored = store.get(game_id)
            assert stored is not None, game_id
            assert (stored.game, stored.moves, stored.last_engine_move) == (game, moves, last)
            assert (stored.status, stored.winner, stored.updated_at) == (status, winner, updated)
            assert (stored.seat_hash, stored.settings) == (f"hash-{game_id}", DEFAULT_SETTINGS)
            assert stored.version == 1
        assert [game.id for game in store.playing(10)] == ["c", "a"]
        migrated = store.get("a")
        assert migrated is not None
        migrated.moves = "445"
        store.save(migrated)
        assert migrated.version == 2
    finally:
        store.close()
    version, columns, indexes = backend.schema()
    assert version == SCHEMA_VERSION
    assert columns[-3:] == ["version", "preset", "friend"]
    assert indexes == CURRENT_INDEXES


def test_a_version_2_database_keeps_every_game_and_lists_them_by_seat(backend: Backend) -> None:
    make_version_2_database(backend)
    assert backend.schema()[0] == 2

    store = backend.open()
    try:
        mine = store.games_of("same-seat", 10)
        assert [game.id for game in mine] == ["c", "b", "a"]  # newest first
        assert [(game.moves, game.version) for game in mine] == [("", 4), ("14253", 4), ("44", 4)]
        assert [game.id for game in store.games_of("same-seat", 2)] == ["c", "b"]
        assert store.games_of("someone-else", 10) == []
    finally:
        store.close()
    assert backend.schema()[0::2] == (SCHEMA_VERSION, CURRENT_INDEXES)


def make_version_3_database(backend: Backend) -> None:
    """Version 3 (a seat index, no preset count), its games as version 2 left them."""
    make_version_2_database(backend)
    backend.script("CREATE INDEX games_by_seat ON games (seat_hash, updated_at)")
    backend.set_version(3)


def test_a_version_3_database_keeps_every_game_with_no_preset_moves(backend: Backend) -> None:
    make_version_3_database(backend)
    assert backend.schema()[0] == 3

    store = backend.open()
    try:
        games = store.games_of("same-seat", 10)
        assert [(game.id, game.moves, game.preset) for game in games] == [
            ("c", "", 0),
            ("b", "14253", 0),
            ("a", "44", 0),
        ]
        made = game_record("d", moves="4453", preset=4)
        store.create(made)
        kept = store.get("d")
        assert kept is not None and kept.preset == 4
        kept.moves, kept.preset = "44", 2  # an undo into the preset moves
        store.save(kept)
        again = store.get("d")
        assert again is not None and (again.moves, again.preset) == ("44", 2)
    finally:
        store.close()
    assert backend.schema()[0::2] == (SCHEMA_VERSION, CURRENT_INDEXES)


def make_version_4_database(backend: Backend) -> None:
    """Version 4 (preset counts, no friend data), its games as version 3 left them."""
    make_version_3_database(backend)
    backend.script("ALTER TABLE games ADD COLUMN preset INTEGER NOT NULL DEFAULT 0")
    backend.set_version(4)


#: A game between two people as ``webapp.services.friends`` stores it.
FRIEND = {
    "invite": "invite-token",
    "guest_hash": "guest",
    "creator_side": 1,
    "spectator_analysis": False,
    "clock": None,
    "offers": {"draw": None, "takeback": None, "rematch": None},
    "end": None,
    "next": None,
}


def test_a_version_4_database_keeps_every_game_against_the_engine(backend: Backend) -> None:
    make_version_4_database(backend)
    assert backend.schema()[0] == 4

    store = backend.open()
    try:
        games = store.games_of("same-seat", 10)
        assert [(game.id, game.moves, game.friend) for game in games] == [
            ("c", "", None),
            ("b", "14253", None),
            ("a", "44", None),
        ]
        store.create(game_record("d", moves="44", friend=FRIEND))
        kept = store.get("d")
        assert kept is not None and kept.friend == FRIEND
        assert kept.friend is not None
        kept.friend["end"], kept.status, kept.winner = "resign", "won", 0
        store.save(kept)
        again = store.get("d")
        assert again is not None and (again.status, again.winner) == ("won", 0)
        assert again.friend is not None and again.friend["end"] == "resign"
    finally:
        store.close()
    assert backend.schema()[0::2] == (SCHEMA_VERSION, CURRENT_INDEXES)


def test_games_of_a_seat_use_an_index(tmp_path: Path) -> None:
    SQLiteStore(tmp_path / "games.db").close()
    with sqlite3.connect(tmp_path / "games.db") as db:
        plan = db.execute(
            "EXPLAIN QUERY PLAN SELECT * FROM games WHERE seat_hash = ? "
            "ORDER BY updated_at DESC, rowid DESC",
            ("x",),
        ).fetchall()
    db.close()
    steps = " ".join(str(row[-1]) for row in plan)
    assert "games_by_seat" in steps and "TEMP B-TREE" not in steps, plan  # no sort either


def test_games_of_either_seat_use_both_indexes(tmp_path: Path) -> None:
    """The creator's seat or the second seat: each side of the OR by its index, no scan
    (a browser's games are few: sorting them is cheap)."""
    store = SQLiteStore(tmp_path / "games.db")
    store.close()
    query = sqlite._SELECT + " WHERE seat_hash = ? OR " + sqlite._GUEST + " = ?"
    with sqlite3.connect(tmp_path / "games.db") as db:
        plan = db.execute(f"EXPLAIN QUERY PLAN {query}", ("x", "x")).fetchall()
    db.close()
    steps = " ".join(str(row[-1]) for row in plan)
    assert "games_by_seat" in steps and "games_by_guest" in steps, plan
    assert "SCAN games" not in steps, plan


def test_games_of_either_seat_use_both_indexes_on_postgresql(postgres_url: str) -> None:
    """PostgreSQL matches the guest's expression to its index (the planner told to avoid
    a scan, as it would on a large table)."""
    postgres.PostgresStore(postgres_url).close()
    query = postgres._SELECT + " WHERE seat_hash = %s OR " + postgres._GUEST + " = %s"
    with psycopg.connect(postgres_url, autocommit=True) as db:
        db.execute("SET enable_seqscan = off")
        plan = " ".join(str(row[0]) for row in db.execute(f"EXPLAIN {query}", ("x", "x")))
    assert "games_by_seat" in plan and "games_by_guest" in plan, plan


def make_version_5_database(backend: Backend) -> None:
    """Version 5 (friend data, no guest index), its games as version 4 left them."""
    make_version_4_database(backend)
    backend.script("ALTER TABLE games ADD COLUMN friend TEXT")
    backend.set_version(5)


def test_a_version_5_database_lists_the_games_of_the_second_seat(backend: Backend) -> None:
    """Games between two people stored before the guest index: the guest finds them too."""
    make_version_5_database(backend)
    backend.execute(
        "UPDATE games SET friend = ?, seat_hash = 'creator' WHERE id = 'b'", (json.dumps(FRIEND),)
    )
    store = backend.open()
    try:
        assert [game.id for game in store.games_of("guest", 10)] == ["b"]
        assert [game.id for game in store.games_of("creator", 10)] == ["b"]
        assert [game.id for game in store.games_of("same-seat", 10)] == ["c", "a"]
        assert store.games_of("invite-token", 10) == []  # only the seat's hash matches
    finally:
        store.close()
    assert backend.schema()[0::2] == (SCHEMA_VERSION, CURRENT_INDEXES)


def test_a_version_5_database_with_a_malformed_friend_value_still_opens(
    backend: Backend,
) -> None:
    """One corrupt ``friend`` must not stop the guest index being built (the server
    starting): reads skip the corrupt row, as every read does, and find the others."""
    make_version_5_database(backend)
    backend.execute("UPDATE games SET friend = '{not json' WHERE id = 'a'")
    backend.execute(
        "UPDATE games SET friend = ?, seat_hash = 'creator' WHERE id = 'b'", (json.dumps(FRIEND),)
    )
    store = backend.open()
    try:
        assert [game.id for game in store.games_of("guest", 10)] == ["b"]
        assert [game.id for game in store.games_of("same-seat", 10)] == ["c"]  # "a" skipped
        store.create(game_record("d", moves="44", friend=FRIEND))
        assert sorted(game.id for game in store.games_of("guest", 10)) == ["b", "d"]
    finally:
        store.close()
    assert backend.schema()[0::2] == (SCHEMA_VERSION, CURRENT_INDEXES)


def test_a_new_database_is_made_at_the_current_version(backend: Backend) -> None:
    backend.open().close()
    version, columns, indexes = backend.schema()
    assert version == SCHEMA_VERSION and "version" in columns
    assert indexes == CURRENT_INDEXES


def test_reopening_a_current_database_migrates_nothing(
    backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    store = backend.open()
    store.create(game_record("abc"))
    store.close()
    with caplog.at_level(logging.INFO, logger="webapp.store"):
        store = backend.open()
    store.close()
    assert "migrating" not in caplog.text


# PostgreSQL only: two SQLiteStores opening one new file at once can fail with "database is
# locked" (PRAGMA journal_mode=WAL does not wait for the other connection's lock).
@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_two_servers_opening_a_new_database_at_once_migrate_it_once(
    backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    start = threading.Barrier(2, timeout=60)  # a bound on a hang, not a pace
    opened: list[GameStore] = []
    failures: list[BaseException] = []

    def open_store() -> None:
        try:
            start.wait()
            opened.append(backend.open(timeout=30))
        except BaseException as err:
            failures.append(err)

    with caplog.at_level(logging.INFO, logger="webapp.store"):
        threads = [threading.Thread(target=open_store) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    for store in opened:
        store.close()
    assert not failures, failures
    assert caplog.text.count(f"migrating the schema to version {SCHEMA_VERSION}") == 1
    assert backend.schema()[0::2] == (SCHEMA_VERSION, CURRENT_INDEXES)


def test_a_newer_schema_is_refused_and_left_untouched(backend: Backend) -> None:
    store = backend.open()
    store.create(game_record("abc"))
    store.close()
    backend.set_version(SCHEMA_VERSION + 1)
    before = backend.schema(), backend.execute("SELECT id, version FROM games")
    with pytest.raises(SchemaError, match=f"version {SCHEMA_VERSION + 1}, newer"):
        backend.open()
    assert (backend.schema(), backend.execute("SELECT id, version FROM games")) == before


def test_a_failed_migration_leaves_the_database_as_it_was(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    module: Any = sqlite if backend.name == "sqlite" else postgres
    make_version_1_database(backend)
    broken = ("CREATE TABLE extra (x INTEGER)", "INSERT INTO no_such_table VALUES (1)")
    monkeypatch.setattr(module, "MIGRATIONS", (*module.MIGRATIONS, broken))
    with pytest.raises(StoreUnavailable, match="no_such_table"):
        backend.open()
    version, columns, indexes = backend.schema()
    assert (version, indexes) == (0, ["games_by_status"])  # version 2's changes rolled back too
    assert "version" not in columns

    def fails(db: object) -> None:
        raise RuntimeError("cannot rewrite")

    monkeypatch.setattr(module, "MIGRATIONS", (*module.MIGRATIONS[:2], fails))
    with pytest.raises(SchemaError, match="migration to version 3 failed: cannot rewrite"):
        backend.open()
    assert backend.schema()[0] == 0

    monkeypatch.undo()
    store = backend.open()  # the real migrations still apply afterwards
    try:
        assert len(store.playing(10)) == 2
    finally:
        store.close()


def test_the_pruning_deletes_use_an_index(tmp_path: Path) -> None:
    SQLiteStore(tmp_path / "games.db").close()
    with sqlite3.connect(tmp_path / "games.db") as db:
        for query in (sqlite.PRUNE_UNFINISHED, sqlite.PRUNE_FINISHED):
            plan = db.execute(f"EXPLAIN QUERY PLAN {query}", ("x",)).fetchall()
            steps = " ".join(str(row[-1]) for row in plan)
            assert "games_by_status (status=? AND updated_at<?)" in steps, plan
    db.close()
