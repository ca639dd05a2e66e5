"""The store (webapp/store): what is saved comes back, versions grow, saves compare-and-set.

Every test taking ``store`` or ``backend`` runs on each backend (SQLite, and
PostgreSQL on the session's server). Faults live in test_store_faults.py and
test_store_postgres.py, migrations in test_store_migrations.py, corrupt rows in
test_store_corrupt.py; they share ``game_record`` from here.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.store_backends import Backend
from webapp.games import new_game
from webapp.protocol import DEFAULT_SETTINGS
from webapp.store import (
    CorruptRecord,
    GameExists,
    GameRecord,
    GameStore,
    SQLiteStore,
    StoreUnavailable,
    VersionConflict,
    days_ago,
    describe,
    open_store,
    result_of,
)
from webapp.store.postgres import PostgresStore


def game_record(
    game_id: str, moves: str = "", game: str = "connect4", **changes: Any
) -> GameRecord:
    """A valid record of ``moves`` (status and winner follow them), with ``changes`` applied."""
    status, winner = result_of(new_game(game, moves))
    record = GameRecord(game_id, game, moves, dict(DEFAULT_SETTINGS), "hash", status, winner)
    for name, value in changes.items():
        setattr(record, name, value)
    return record


@pytest.fixture
def store(backend: Backend) -> Iterator[GameStore]:
    made = backend.open()
    yield made
    made.close()


def test_a_game_survives_reopening_the_database(backend: Backend) -> None:
    store = backend.open()
    game = game_record("abc", "44")
    store.create(game)
    game.moves, game.last_engine_move = "445", {"best_move": "5", "pv": "5"}
    game.updated_at = "2030-01-01T00:00:00+00:00"
    store.save(game)
    store.close()

    reopened = backend.open()
    try:
        assert reopened.get("abc") == game
        assert game.version == 2
        assert reopened.get("nope") is None
        assert reopened.get("no\x00such id") is None  # an untrusted id, whatever it holds
    finally:
        reopened.close()


def test_a_sqlite_file_is_made_with_its_folders(tmp_path: Path) -> None:
    SQLiteStore(tmp_path / "deep" / "games.db").close()
    assert (tmp_path / "deep" / "games.db").exists()


def test_create_sets_version_one_and_each_save_adds_one(store: GameStore) -> None:
    game = game_record("abc")
    assert game.version == 0
    store.create(game)
    assert game.version == 1
    for moves in ("4", "44", "445"):
        game.moves = moves
        store.save(game)
    assert game.version == 4
    stored = store.get("abc")
    assert stored is not None and stored.version == 4 and stored.moves == "445"


def test_a_stale_save_raises_version_conflict_and_changes_nothing(store: GameStore) -> None:
    store.create(game_record("abc"))
    first, second = store.get("abc"), store.get("abc")
    assert first is not None and second is not None
    first.moves = "4"
    store.save(first)
    second.moves = "3"
    with pytest.raises(VersionConflict) as caught:
        store.save(second)
    assert (caught.value.game_id, caught.value.expected) == ("abc", 1)
    assert second.version == 1  # the loser's record is not advanced
    assert store.get("abc") == first


def test_saving_a_game_never_created_is_a_conflict(store: GameStore) -> None:
    with pytest.raises(VersionConflict):
        store.save(game_record("ghost"))
    assert store.get("ghost") is None


def test_creating_an_id_twice_raises_game_exists_and_keeps_the_first(store: GameStore) -> None:
    store.create(game_record("abc", "4"))
    again = game_record("abc", "3")
    with pytest.raises(GameExists):
        store.create(again)
    assert again.version == 0
    stored = store.get("abc")
    assert stored is not None and stored.moves == "4"


@pytest.mark.parametrize(
    "changes",
    [{"moves": "88"}, {"status": "won", "winner": 0}, {"settings": {"level": "easy"}}],
    ids=["illegal-moves", "false-result", "partial-settings"],
)
def test_an_invalid_game_is_never_written(store: GameStore, changes: dict[str, Any]) -> None:
    bad = game_record("bad")
    for name, value in changes.items():
        setattr(bad, name, value)
    with pytest.raises(CorruptRecord):
        store.create(bad)
    assert store.get("bad") is None and bad.version == 0
    good = game_record("good")
    store.create(good)
    for name, value in changes.items():
        setattr(good, name, value)
    with pytest.raises(CorruptRecord):
        store.save(good)
    stored = store.get("good")
    assert stored is not None and stored.version == 1 and stored.moves == ""


def test_playing_lists_unfinished_games_newest_first(store: GameStore) -> None:
    for name, updated in (("old", "2030-01-01"), ("new", "2030-01-02")):
        store.create(game_record(name, updated_at=updated))
    store.create(game_record("won", "1212121"))
    store.create(game_record("drawn", "123546879", game="tictactoe"))
    assert [game.id for game in store.playing(10)] == ["new", "old"]
    assert [game.id for game in store.playing(1)] == ["new"]
    assert store.playing(0) == []


def test_games_of_lists_one_seats_games_newest_first(store: GameStore) -> None:
    for name, seat, updated in (
        ("old", "mine", "2030-01-01T00:00:00+00:00"),
        ("other", "theirs", "2030-01-02T00:00:00+00:00"),
        ("won", "mine", "2030-01-03T00:00:00+00:00"),
        ("new", "mine", "2030-01-04T00:00:00+00:00"),
    ):
        moves = "1212121" if name == "won" else ""
        store.create(game_record(name, moves, seat_hash=seat, updated_at=updated))
    assert [game.id for game in store.games_of("mine", 10)] == ["new", "won", "old"]
    assert [game.id for game in store.games_of("mine", 2)] == ["new", "won"]
    assert store.games_of("mine", 0) == [] and store.games_of("nobody", 10) == []
    assert store.games_of("no\x00body", 10) == []


def test_prune_deletes_exactly_the_old_games(store: GameStore) -> None:
    for game_id, moves, updated in (
        ("playing-old", "4", "2030-01-01T00:00:00+00:00"),
        ("playing-at-cut", "4", "2030-01-10T00:00:00+00:00"),
        ("playing-new", "4", "2030-01-20T00:00:00+00:00"),
        ("won-old", "1212121", "2029-12-01T00:00:00+00:00"),
        ("won-new", "1212121", "2030-01-05T00:00:00+00:00"),
        ("drawn-old", "123546879", "2029-12-31T23:59:59+00:00"),
    ):
        game = "tictactoe" if game_id.startswith("drawn") else "connect4"
        store.create(game_record(game_id, moves, game, updated_at=updated))

    # Unfinished: untouched since Jan 10 (the cut itself survives); finished: before Jan 1.
    gone = store.prune(unfinished_before="2030-01-10T00:00:00Z", finished_before="2030-01-01")
    assert gone == 3
    kept = {game_id for game_id in ("playing-at-cut", "playing-new", "won-new")}
    for game_id in ("playing-old", "playing-at-cut", "playing-new", "won-old", "won-new"):
        assert (store.get(game_id) is not None) == (game_id in kept), game_id
    assert store.get("drawn-old") is None
    assert store.prune(unfinished_before="2030-01-10", finished_before="2030-01-01") == 0
    fresh = game_record("fresh")
    store.create(fresh)  # updated now: younger than any retention
    assert store.prune(unfinished_before=days_ago(1), finished_before=days_ago(1)) == 0
    assert store.prune(unfinished_before=days_ago(-1), finished_before=days_ago(1)) == 1
    assert store.get("fresh") is None and store.get("playing-new") is not None  # (in 2030)


def test_the_last_time_up_is_marked_forward_and_claimed_once(store: GameStore) -> None:
    """``mark_alive`` only moves forward (two servers beating at once); ``claim_downtime``
    is a compare-and-set: of two servers that read the same time, one claims it."""
    assert store.last_alive() is None
    assert store.claim_downtime(None, 1_000)  # the first server ever
    assert not store.claim_downtime(None, 1_500)  # another read "never" too: too late
    assert store.last_alive() == 1_000
    store.mark_alive(5_000)
    store.mark_alive(4_000)  # a slower server's older beat does not go back
    assert store.last_alive() == 5_000
    assert store.outages() == []  # the first claim was of a store never up: no outage
    assert store.claim_downtime(5_000, 90_000)
    assert not store.claim_downtime(5_000, 91_000)
    assert store.last_alive() == 90_000
    assert store.outages() == [(5_000, 90_000)]  # recorded once, by the claim that won
    store.mark_alive(95_000)
    assert store.claim_downtime(95_000, 120_000)
    assert store.outages() == [(5_000, 90_000), (95_000, 120_000)]  # oldest first


def test_prune_refuses_a_time_that_is_not_iso(store: GameStore) -> None:
    store.create(game_record("abc"))
    with pytest.raises(ValueError, match="format"):
        store.prune(unfinished_before="last tuesday", finished_before="2030-01-01")
    assert store.get("abc") is not None


def test_check_passes_and_a_closed_store_is_unavailable(
    store: GameStore, caplog: pytest.LogCaptureFixture
) -> None:
    store.check()
    store.close()
    store.close()  # closing twice is harmless
    with caplog.at_level(logging.ERROR, logger="webapp.store"):
        with pytest.raises(StoreUnavailable):
            store.check()
        with pytest.raises(StoreUnavailable):
            store.get("abc")
        with pytest.raises(StoreUnavailable):
            store.create(game_record("abc"))
        with pytest.raises(StoreUnavailable):
            store.playing(10)
    assert "check failed" in caplog.text and "get 'abc' failed" in caplog.text


def test_one_store_serves_many_threads(store: GameStore) -> None:
    start = threading.Barrier(4)

    def play(thread: int) -> None:
        start.wait()
        for index in range(10):
            game = game_record(f"{thread}-{index}")
            store.create(game)
            game.moves = "4"
            store.save(game)

    threads = [threading.Thread(target=play, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    games = store.playing(100)
    assert len(games) == 40 and {(game.moves, game.version) for game in games} == {("4", 2)}


def test_open_store_picks_the_backend_from_the_location(tmp_path: Path) -> None:
    for location in (tmp_path / "a.db", str(tmp_path / "b.db"), ":memory:", "sqlite://"):
        store = open_store(location, timeout=1)
        try:
            assert isinstance(store, SQLiteStore)
            store.create(game_record("abc"))
        finally:
            store.close()
    store = open_store(f"sqlite:///{tmp_path / 'c.db'}")
    store.close()
    assert (tmp_path / "c.db").exists()


def test_open_store_opens_postgresql_urls(postgres_url: str) -> None:
    for url in (postgres_url, postgres_url.replace("postgresql://", "postgres://", 1)):
        store = open_store(url, timeout=1)
        try:
            assert isinstance(store, PostgresStore)
            store.check()
        finally:
            store.close()


def test_open_store_refuses_other_schemes_without_echoing_the_location() -> None:
    with pytest.raises(ValueError, match="sqlite://") as caught:
        open_store("mysql://lookahead:secret@db/games")
    message = str(caught.value)
    assert "'mysql'" in message and "postgresql://" in message and "secret" not in message


def test_a_location_in_a_log_line_never_shows_a_password() -> None:
    assert describe("postgresql://me:secret@db.example:5433/games") == (
        "postgresql://me:***@db.example:5433/games"
    )
    assert describe("postgresql://me@db/games") == "postgresql://me@db/games"
    assert describe("/var/lib/lookahead/games.sqlite3") == "/var/lib/lookahead/games.sqlite3"
