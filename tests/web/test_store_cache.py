"""The SQLite store's row cache (``RowCache`` in webapp/store/rows.py, kept by
``SQLiteStore.get``): a hot game is handed out without being read and validated again,
and never stale: a commit by another connection clears it (a read that finds the
connection busy may take a row confirmed current a moment ago: ``FRESH_SECONDS``)."""

from __future__ import annotations

import importlib
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.web.helpers import wait_until
from tests.web.test_store import game_record
from webapp.store import (
    CorruptRecord,
    GameRecord,
    SQLiteStore,
    StoreUnavailable,
    VersionConflict,
)
from webapp.store import rows as rows_module
from webapp.store import sqlite as sqlite_module
from webapp.store.rows import RowCache, to_row
from webapp.store.sqlite import FRESH_SECONDS

#: The module (the package re-exports its function of the same name).
validate_module = importlib.import_module("webapp.store.validate")


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "games.db"


@pytest.fixture
def store(path: Path) -> Iterator[SQLiteStore]:
    made = SQLiteStore(path)
    yield made
    made.close()


@pytest.fixture
def validations(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the rows read and validated (``from_row``) from now on."""
    seen: list[str] = []
    from_row = rows_module.from_row

    def counted(row: Sequence[Any]) -> GameRecord:
        seen.append(row[0])
        return from_row(row)

    monkeypatch.setattr(rows_module, "from_row", counted)
    return seen


def test_a_game_written_or_read_once_is_not_validated_again(
    store: SQLiteStore, validations: list[str]
) -> None:
    store.create(game_record("abc", "44"))
    record = store.get("abc")
    assert record is not None
    record.moves += "5"
    store.save(record)
    for _ in range(3):
        assert store.get("abc") == record
    assert validations == []  # the rows it wrote: checked when written


def test_a_commit_by_another_connection_is_seen_at_once(
    store: SQLiteStore, path: Path, validations: list[str]
) -> None:
    store.create(game_record("abc", "44"))
    assert store.get("abc") is not None
    with sqlite3.connect(path) as other:  # a hand edit: the version stays as it was
        other.execute("UPDATE games SET moves = '445', status = 'playing' WHERE id = 'abc'")
    again = store.get("abc")
    assert again is not None and again.moves == "445" and again.version == 1
    assert validations == ["abc"]  # read from the file, and checked


def test_a_record_handed_out_can_be_changed_without_changing_the_cache(
    store: SQLiteStore,
) -> None:
    store.create(game_record("abc", "44", last_engine_move={"move": "4", "moves": "4"}))
    first = store.get("abc")
    assert first is not None and first.last_engine_move is not None
    first.settings["level"] = "perfect"
    first.last_engine_move["move"] = "7"
    first.moves = "4455"
    again = store.get("abc")
    assert again is not None
    assert again.settings["level"] != "perfect"
    assert again.last_engine_move == {"move": "4", "moves": "4"} and again.moves == "44"


def test_a_lost_race_or_a_deleted_game_leaves_nothing_stale(store: SQLiteStore) -> None:
    store.create(game_record("abc", "44"))
    stale = store.get("abc")
    fresh = store.get("abc")
    assert stale is not None and fresh is not None
    fresh.moves += "5"
    store.save(fresh)
    stale.moves += "3"
    with pytest.raises(VersionConflict):
        store.save(stale)
    assert store.get("abc") == fresh
    assert store.prune(unfinished_before="9999-01-01T00:00:00Z",
                       finished_before="9999-01-01T00:00:00Z") == 1  # fmt: skip
    assert store.get("abc") is None


def test_the_cache_keeps_the_most_recently_used_rows_up_to_its_size() -> None:
    cache = RowCache(2)
    for game_id in ("a", "b"):
        cache.put(to_row(game_record(game_id, version=1)))
    assert cache.get("a") is not None  # now the most recently used
    cache.put(to_row(game_record("c", version=1)))
    assert len(cache) == 2
    assert cache.get("b") is None and cache.get("a") is not None and cache.get("c") is not None


def test_a_row_nobody_used_for_its_idle_time_leaves_at_the_next_put() -> None:
    now = [0.0]
    cache = RowCache(100, idle_seconds=300, clock=lambda: now[0])
    cache.put(to_row(game_record("abandoned", version=1)))
    now[0] = 200
    cache.put(to_row(game_record("played", version=1)))
    now[0] = 400
    assert cache.get("played") is not None  # read at 400: in use
    cache.put(to_row(game_record("new", version=1)))  # "abandoned" idle 400 s: gone
    assert cache.get("abandoned") is None
    now[0] = 650
    cache.put(to_row(game_record("newer", version=1)))  # "played" idle 250 s: kept
    assert cache.get("played") is not None and len(cache) == 3
    now[0] = 1000
    cache.put(to_row(game_record("last", version=1)))
    assert len(cache) == 1 and cache.get("last") is not None


def test_moves_checked_once_are_not_replayed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A save is often of moves checked just before (the engine's options join its move)."""
    replays: list[str] = []
    new_game = validate_module.new_game

    def counted(game: str, moves: str = "") -> Any:
        replays.append(moves)
        return new_game(game, moves)

    monkeypatch.setattr(validate_module, "new_game", counted)
    validate_module._replayed.cache_clear()
    record = game_record("abc", "4455", version=1)
    for _ in range(3):
        validate_module.validate(record)
    assert replays == ["4455"]
    record.moves, record.status = "44556", "playing"
    validate_module.validate(record)
    assert replays == ["4455", "44556"]
    record.moves = "4455x"
    with pytest.raises(CorruptRecord, match="4455x"):  # an illegal move is never kept
        validate_module.validate(record)


def test_a_hot_game_is_read_while_the_connection_is_busy_for_a_moment_only(path: Path) -> None:
    """A save waiting on the file (another process holds SQLite's write lock) holds the
    connection: a read of a cached game confirmed current a moment ago does not wait
    for it, and may miss another process's commit of that moment. Past
    ``FRESH_SECONDS`` (or for a game not cached) a read waits for the connection, and
    a read that finds it free sees every commit at once."""
    now = [0.0]
    store = SQLiteStore(path, timeout=30, clock=lambda: now[0])
    other = sqlite3.connect(path, isolation_level=None)
    try:
        store.create(game_record("abc", "44"))
        store.create(game_record("xyz", "4"))
        saved = store.get("xyz")
        assert saved is not None and store.get("abc") is not None  # confirmed at 0
        other.execute("UPDATE games SET moves = '445' WHERE id = 'abc'")  # committed
        other.execute("BEGIN EXCLUSIVE")  # and now it holds the file's write lock
        saved.moves += "4"
        saver = threading.Thread(target=store.save, args=(saved,), daemon=True)
        saver.start()
        wait_until(lambda: store._lock.locked())  # the save waits on the file, holding it

        # Within FRESH_SECONDS, and short of the half at which a save's write looks at the
        # file again: the saver may reach that look only now, on a loaded machine.
        now[0] = FRESH_SECONDS / 4
        read: list[GameRecord | None] = []
        reader = threading.Thread(target=lambda: read.append(store.get("abc")), daemon=True)
        reader.start()
        reader.join(10)  # answered from the cache, while the save still waits on the file
        assert saver.is_alive() and [r.moves if r else None for r in read] == ["44"]

        now[0] = FRESH_SECONDS
        answers: dict[str, GameRecord | None] = {}
        readers = [
            threading.Thread(target=lambda g=g: answers.update({g: store.get(g)}), daemon=True)
            for g in ("abc", "new")
        ]
        for reader in readers:
            reader.start()
        for reader in readers:
            reader.join(0.2)
        assert answers == {}  # no longer fresh (or not cached): they wait for the connection
        other.execute("ROLLBACK")
        saver.join(10)
        for reader in readers:
            reader.join(10)
        assert not saver.is_alive() and not any(r.is_alive() for r in readers)
        seen = answers["abc"]
        assert seen is not None and seen.moves == "445" and answers["new"] is None
        again = store.get("xyz")
        assert again is not None and again.moves == "44" and again.version == 2
    finally:
        other.close()
        store.close()


def save_and_tell(
    store: SQLiteStore, name: str, record: GameRecord | None, outcomes: dict[str, str]
) -> None:
    """Play a move in ``record`` and save it; ``outcomes[name]`` says how the save went."""
    assert record is not None
    record.moves += "5"
    try:
        store.save(record)
        outcomes[name] = "saved"
    except VersionConflict:
        outcomes[name] = "conflict"
    except StoreUnavailable:
        outcomes[name] = "unavailable"


def test_saves_that_wait_for_the_connection_are_written_together_each_with_its_outcome(
    path: Path,
) -> None:
    """While a save waits on the file (another process holds SQLite's write lock), the
    saves that come meanwhile wait for the connection, then are written together when
    it is free: each one's compare-and-set is its own (a lost race fails that save
    alone), and each thread hears its own outcome."""
    store = SQLiteStore(path, timeout=30)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        for game_id in ("a", "b", "c", "d"):
            store.create(game_record(game_id, "4"))
        records = {game_id: store.get(game_id) for game_id in ("a", "b", "c", "d")}
        stale = store.get("d")
        assert stale is not None and all(records.values())
        other.execute("BEGIN EXCLUSIVE")
        statements: list[str] = []
        store._db.set_trace_callback(statements.append)
        outcomes: dict[str, str] = {}

        def save(name: str, record: GameRecord | None) -> None:
            save_and_tell(store, name, record, outcomes)

        first = threading.Thread(target=save, args=("a", records["a"]), daemon=True)
        first.start()
        wait_until(lambda: store._lock.locked())  # "a" waits on the file, holding it
        rest = [
            threading.Thread(target=save, args=(name, record), daemon=True)
            for name, record in [("b", records["b"]), ("c", records["c"]), ("d", records["d"])]
        ]
        for thread in rest:
            thread.start()
        wait_until(lambda: len(store._saves) == 3)  # waiting for the connection
        stale.moves += "6"
        rest.append(threading.Thread(target=save, args=("d-stale", stale), daemon=True))
        rest[-1].start()
        wait_until(lambda: len(store._saves) == 4)
        other.execute("ROLLBACK")
        for thread in [first, *rest]:
            thread.join(10)
        assert outcomes == {"a": "saved", "b": "saved", "c": "saved", "d": "saved",
                            "d-stale": "conflict"}  # fmt: skip
        # "a" alone, one statement; then the four that waited, in one transaction
        writes = [each.split()[0] for each in statements if not each.startswith("PRAGMA")]
        assert writes == ["UPDATE", "BEGIN", "UPDATE", "UPDATE", "UPDATE", "UPDATE", "COMMIT"]
        for game_id in ("a", "b", "c", "d"):
            record = records[game_id]
            assert record is not None and record.version == 2
        # The file holds them (not only the cache): read afresh by another connection.
        rows = dict(other.execute("SELECT id, moves FROM games ORDER BY id").fetchall())
        assert rows == {"a": "45", "b": "45", "c": "45", "d": "45"}
        assert store.get("d") == records["d"]
    finally:
        other.close()
        store.close()


def test_a_read_that_held_the_connection_leaves_the_saves_to_a_thread_that_saves(
    path: Path,
) -> None:
    """Saves that came while another operation held the connection (a read, a page's
    query) are written once it lets go, by one of the threads that save, never by the
    reader (it has its own page to answer)."""
    store = SQLiteStore(path)
    try:
        for game_id in ("a", "b", "c"):
            store.create(game_record(game_id, "4"))
        records = {game_id: store.get(game_id) for game_id in ("a", "b", "c")}
        writers: list[str] = []

        def traced(statement: str) -> None:
            if statement.startswith("UPDATE games"):
                writers.append(threading.current_thread().name)

        store._db.set_trace_callback(traced)

        def save(record: GameRecord | None) -> None:
            assert record is not None
            record.moves += "5"
            store.save(record)

        savers = [
            threading.Thread(target=save, args=(record,), name=f"saver-{game_id}", daemon=True)
            for game_id, record in records.items()
        ]
        with store._connection():  # a read holds it
            for thread in savers:
                thread.start()
            wait_until(lambda: len(store._saves) == 3)
        for thread in savers:
            thread.join(10)
        assert not any(thread.is_alive() for thread in savers)
        assert len(writers) == 3 and set(writers) <= {"saver-a", "saver-b", "saver-c"}
        assert all(record is not None and record.version == 2 for record in records.values())
        assert [store.get(game_id).moves for game_id in ("a", "b", "c")] == ["45"] * 3  # type: ignore[union-attr]
    finally:
        store.close()


def test_a_failure_of_the_database_fails_every_save_of_its_batch_and_writes_none(
    path: Path,
) -> None:
    """Saves written together fail together when the database fails them (here: another
    process keeps SQLite's write lock past the busy timeout): each thread is told, no
    version moves, nothing is written, and the cache keeps no row it did not commit."""
    store = SQLiteStore(path, timeout=0.5)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        for game_id in ("a", "b", "c"):
            store.create(game_record(game_id, "4"))
        records = {game_id: store.get(game_id) for game_id in ("a", "b", "c")}
        other.execute("BEGIN EXCLUSIVE")
        errors: dict[str, str] = {}

        def save(name: str) -> None:
            save_and_tell(store, name, records[name], errors)

        first = threading.Thread(target=save, args=("a",), daemon=True)
        first.start()
        wait_until(lambda: store._lock.locked())  # "a" waits on the file, holding it
        rest = [threading.Thread(target=save, args=(name,), daemon=True) for name in "bc"]
        for thread in rest:
            thread.start()
        wait_until(lambda: len(store._saves) == 2)  # they wait: then fail together
        for thread in [first, *rest]:
            thread.join(30)
        assert errors == {"a": "unavailable", "b": "unavailable", "c": "unavailable"}
        other.execute("ROLLBACK")
        assert all(record is not None and record.version == 1 for record in records.values())
        assert dict(other.execute("SELECT id, moves FROM games").fetchall()) == {
            "a": "4", "b": "4", "c": "4"
        }  # fmt: skip
        assert [store.get(game_id).moves for game_id in "abc"] == ["4"] * 3  # type: ignore[union-attr]
    finally:
        other.close()
        store.close()


def test_a_save_nobody_asks_to_write_goes_for_the_connection_itself(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whoever lets the connection go sees to the saves waiting; if none did (a holder
    that let go without looking), a save still does not wait for ever: past
    ``ASKED_SECONDS`` it takes the connection and writes itself."""
    monkeypatch.setattr(sqlite_module, "ASKED_SECONDS", 0.05)
    store = SQLiteStore(path)
    try:
        store.create(game_record("a", "4"))
        record = store.get("a")
        assert record is not None
        record.moves += "5"
        store._lock.acquire()  # held, and let go below without a look at the saves
        saver = threading.Thread(target=store.save, args=(record,), daemon=True)
        saver.start()
        wait_until(lambda: len(store._saves) == 1)
        store._lock.release()
        saver.join(10)
        assert not saver.is_alive() and record.version == 2
        assert store.get("a") == record
    finally:
        store.close()


# -- a save writes what changed (``rows.changed_columns``) -----------------------------------


@pytest.fixture
def updates(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The columns each save sets from now on (its compare-and-set ``UPDATE``)."""
    seen: list[list[str]] = []
    update = sqlite_module._update

    def recorded(columns: tuple[str, ...]) -> str:
        seen.append(list(columns))
        return update(columns)

    monkeypatch.setattr(sqlite_module, "_update", recorded)
    return seen


def test_a_save_writes_only_the_columns_that_changed_since_its_version(
    store: SQLiteStore, path: Path, updates: list[list[str]]
) -> None:
    """A move within the second of the game's last change writes its moves and version,
    and no column of an index (updated_at, status, seat): its row reads back whole."""
    record = game_record("g1")
    store.create(record)
    game = store.get("g1")
    assert game is not None
    game.moves += "4"
    store.save(game)
    assert updates == [["moves", "version"]]
    game.moves += "3"
    game.updated_at = "2031-01-01T00:00:00+00:00"
    game.last_engine_move = {"move": "3", "moves": game.moves[:-1]}
    store.save(game)
    assert updates[1] == ["moves", "last_engine_move", "updated_at", "version"]
    again = SQLiteStore(path)  # no cache: the database's own row
    try:
        assert again.get("g1") == game
    finally:
        again.close()


def test_a_save_the_cache_cannot_vouch_for_writes_every_column(
    store: SQLiteStore, path: Path, updates: list[list[str]]
) -> None:
    """With no row of the version a save was read at, nothing is taken as unchanged; a
    save of a version another connection has moved past is refused by the compare-and-set
    whatever it writes."""
    store.create(game_record("g1"))
    mine = store.get("g1")
    assert mine is not None
    store._cache.clear()
    mine.moves += "4"
    store.save(mine)
    assert updates == [list(rows_module.UPDATED)]
    other = SQLiteStore(path)
    try:
        theirs = other.get("g1")
        assert theirs is not None
        theirs.moves += "3"
        other.save(theirs)
        mine.moves += "5"
        with pytest.raises(VersionConflict):
            store.save(mine)
        current = store.get("g1")
        assert current is not None and current.moves == theirs.moves
        current.moves += "5"
        store.save(current)  # read afresh: its own version's row
        assert updates[-1] == ["moves", "version"]
        assert other.get("g1") == current
    finally:
        other.close()


def test_a_row_changed_by_hand_is_written_whole_by_the_next_save(
    store: SQLiteStore, path: Path, updates: list[list[str]]
) -> None:
    """A hand edit keeps the version: the cache's row of that version is not the file's any
    more. The save finds the cache cleared (another connection committed) and writes every
    column, so the file holds the game this process saved, not a mix of the two."""
    store.create(game_record("g1"))
    game = store.get("g1")
    assert game is not None
    with sqlite3.connect(path) as db:
        db.execute("UPDATE games SET settings = ? WHERE id = 'g1'", ('{"level": "easy"}',))
    db.close()
    game.moves += "4"
    store.save(game)
    assert updates == [list(rows_module.UPDATED)]
    again = SQLiteStore(path)
    try:
        assert again.get("g1") == game == store.get("g1")
    finally:
        again.close()
