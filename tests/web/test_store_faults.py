"""Store faults: a read-only or locked SQLite file, and two stores racing (on each backend).

A read-only or locked database must give ``StoreUnavailable`` with a log line
(the service answers 503), never a raw ``sqlite3`` error; two stores on one
database (two processes) must never both win a save of the same version.
PostgreSQL's own faults (a server gone) are in test_store_postgres.py.
"""

from __future__ import annotations

import logging
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web.store_backends import Backend
from tests.web.test_store import game_record
from webapp.store import GameRecord, GameStore, SQLiteStore, StoreUnavailable, VersionConflict


@pytest.fixture
def path(tmp_path: Path) -> Path:
    """A database holding the game "abc" at version 1."""
    store = SQLiteStore(tmp_path / "games.db")
    store.create(game_record("abc"))
    store.close()
    return tmp_path / "games.db"


@pytest.fixture
def store(path: Path) -> Iterator[SQLiteStore]:
    made = SQLiteStore(path, timeout=0.01)  # a lock held elsewhere fails at once
    yield made
    made.close()


def test_a_read_only_database_is_unavailable_for_writes(
    store: SQLiteStore, caplog: pytest.LogCaptureFixture
) -> None:
    store._db.execute("PRAGMA query_only = ON")  # root ignores file modes; this cannot be
    game = store.get("abc")
    assert game is not None and game.version == 1  # reading still works
    game.moves = "4"
    with caplog.at_level(logging.ERROR, logger="webapp.store"):
        with pytest.raises(StoreUnavailable, match="readonly"):
            store.save(game)
        with pytest.raises(StoreUnavailable, match="readonly"):
            store.create(game_record("new"))
        with pytest.raises(StoreUnavailable):
            store.prune(unfinished_before="2100-01-01", finished_before="2100-01-01")
        with pytest.raises(StoreUnavailable):
            store.check()  # the health check sees it too, though reads work
    assert (
        "save 'abc' failed: OperationalError: attempt to write a readonly database" in caplog.text
    )
    assert "create 'new' failed" in caplog.text
    assert game.version == 1
    store._db.execute("PRAGMA query_only = OFF")
    stored = store.get("abc")
    assert stored is not None and stored.moves == "" and store.get("new") is None


def test_a_database_opened_read_only_serves_reads_and_refuses_writes(path: Path) -> None:
    store = SQLiteStore(path, read_only=True)  # opening writes nothing: no migration is pending
    try:
        game = store.get("abc")
        assert game is not None and [g.id for g in store.playing(10)] == ["abc"]
        game.moves = "4"
        with pytest.raises(StoreUnavailable, match="readonly"):
            store.save(game)
        with pytest.raises(StoreUnavailable, match="readonly"):
            store.check()
    finally:
        store.close()


def test_a_read_only_database_that_needs_a_migration_is_unavailable(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE games (id TEXT PRIMARY KEY)")  # version 1 by the rule
    db.close()
    with pytest.raises(StoreUnavailable, match="readonly"):
        SQLiteStore(path, read_only=True)


def test_a_locked_database_is_unavailable_for_writes(
    path: Path, store: SQLiteStore, caplog: pytest.LogCaptureFixture
) -> None:
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        game = store.get("abc")  # WAL: readers do not wait for the writer
        assert game is not None
        game.moves = "4"
        with caplog.at_level(logging.ERROR, logger="webapp.store"):
            with pytest.raises(StoreUnavailable, match="locked"):
                store.save(game)
            with pytest.raises(StoreUnavailable, match="locked"):
                store.create(game_record("new"))
            with pytest.raises(StoreUnavailable, match="locked"):
                store.check()
        assert "save 'abc' failed: OperationalError: database is locked" in caplog.text
        assert game.version == 1
    finally:
        other.execute("ROLLBACK")
        other.close()
    store.save(game)  # the lock released, the same record saves
    store.check()
    assert game.version == 2


def race(stores: list[GameStore], rounds: int) -> list[list[int]]:
    """Each round, every store reads "abc", then all save at once: who won each round."""
    start = threading.Barrier(len(stores), timeout=60)  # a bound on a hang, not a pace
    winners: list[list[int]] = [[] for _ in range(rounds)]
    failures: list[BaseException] = []

    def play(index: int, store: GameStore) -> None:
        try:
            for turn in range(rounds):
                game = store.get("abc")
                assert game is not None and game.version == turn + 1
                game.last_engine_move = {"round": turn, "by": index}
                start.wait()  # everyone holds the same version now
                try:
                    store.save(game)
                    winners[turn].append(index)
                except VersionConflict:
                    pass
                start.wait()  # the round is over for everyone before the next read
        except BaseException as err:  # fail the test, not just this thread
            failures.append(err)
            start.abort()

    threads = [threading.Thread(target=play, args=(i, s)) for i, s in enumerate(stores)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
    return winners


def test_two_stores_on_one_database_never_both_win_a_save(backend: Backend) -> None:
    stores = [backend.open(), backend.open()]  # two connections, as two processes
    try:
        stores[0].create(game_record("abc"))
        outcomes = race(stores, rounds=30)
        final = stores[0].get("abc")
    finally:
        for store in stores:
            store.close()
    assert all(len(winners) == 1 for winners in outcomes), outcomes
    assert final is not None and final.version == 31
    assert final.last_engine_move == {"round": 29, "by": outcomes[-1][0]}


def test_a_stale_record_from_another_store_changes_nothing(backend: Backend) -> None:
    first, second = backend.open(), backend.open()
    try:
        first.create(game_record("abc"))
        mine, theirs = first.get("abc"), second.get("abc")
        assert isinstance(mine, GameRecord) and isinstance(theirs, GameRecord)
        mine.moves, theirs.moves = "4", "3"
        first.save(mine)
        with pytest.raises(VersionConflict):
            second.save(theirs)
        assert second.get("abc") == mine
    finally:
        first.close()
        second.close()


#: A process that adds one to a counter in game "abc" ``ROUNDS`` times, retrying on conflicts.
COUNTER = """
import sys
from webapp.store import SQLiteStore, VersionConflict

store, done = SQLiteStore(sys.argv[1]), 0
while done < int(sys.argv[2]):
    game = store.get("abc")
    game.last_engine_move = {"count": (game.last_engine_move or {}).get("count", 0) + 1}
    try:
        store.save(game)
        done += 1
    except VersionConflict:
        pass  # another process saved first: read again
store.close()
"""


def test_two_processes_counting_on_one_game_lose_no_update(path: Path) -> None:
    rounds = 100
    root = Path(__file__).resolve().parents[2]
    command = [sys.executable, "-c", COUNTER, str(path), str(rounds)]
    children = [subprocess.Popen(command, cwd=root) for _ in range(2)]
    try:
        assert [child.wait(timeout=120) for child in children] == [0, 0]
    finally:
        for child in children:  # none outlives a failure
            if child.poll() is None:
                child.kill()
                child.wait()
    store = SQLiteStore(path)
    try:
        game = store.get("abc")
    finally:
        store.close()
    assert game is not None and game.last_engine_move == {"count": 2 * rounds}
    assert game.version == 1 + 2 * rounds
