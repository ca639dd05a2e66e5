"""The SQLite store's row cache (``RowCache`` in webapp/store/rows.py, kept by
``SQLiteStore.get``): a hot game is handed out without being read and validated again,
and never stale: a commit by another connection clears it."""

from __future__ import annotations

import importlib
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.web.test_store import game_record
from webapp.store import CorruptRecord, GameRecord, SQLiteStore, VersionConflict
from webapp.store import rows as rows_module
from webapp.store.rows import RowCache, to_row

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
