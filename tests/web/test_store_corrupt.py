"""Corrupt rows (webapp/store/validate.py, rows.py): each fails ``get``, ``playing`` skips it.

Each case stores a good game, then breaks one column behind the store's back
(as a hand edit, an old release or a torn write would), next to two good games,
on each backend. PostgreSQL's column types refuse some values outright (bytes in
a text column, text in an integer one): those cases cannot happen there.
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from typing import Any

import pytest

from tests.web.store_backends import BACKENDS, Backend
from tests.web.test_store import game_record
from webapp.protocol import DEFAULT_SETTINGS
from webapp.store import CorruptRecord, GameRecord, validate

SETTINGS = json.dumps(DEFAULT_SETTINGS)
OUT_OF_RANGE = json.dumps(DEFAULT_SETTINGS | {"level": "godlike"})
WITHOUT_A_KEY = json.dumps({k: v for k, v in DEFAULT_SETTINGS.items() if k != "show_analysis"})

#: (case, {column: raw value}, words the reason contains)
CASES = [
    ("truncated-settings", {"settings": SETTINGS[:25]}, "settings is not valid JSON"),
    ("settings-missing-a-key", {"settings": WITHOUT_A_KEY}, "settings lack show_analysis"),
    ("settings-out-of-range", {"settings": OUT_OF_RANGE}, "level"),
    ("settings-unknown-key", {"settings": SETTINGS[:-1] + ', "x": 1}'}, "'x'"),
    ("settings-not-an-object", {"settings": "[1, 2]"}, "settings is not an object"),
    ("settings-nested-too-deep", {"settings": "[" * 100_000}, "settings is not valid JSON"),
    ("settings-blob", {"settings": SETTINGS.encode()}, "settings is not JSON text"),
    ("unknown-game", {"game": "chess"}, "unknown game 'chess'"),
    ("illegal-moves", {"moves": "44444444"}, "move 7 of '44444444'"),
    ("moves-off-the-board", {"moves": "48"}, "not a column"),
    ("moves-blob", {"moves": b"44"}, "moves is not a string"),
    ("playing-but-won", {"moves": "1212121"}, "contradict the moves"),
    ("won-but-playing", {"status": "won", "winner": 0}, "contradict the moves"),
    ("wrong-winner", {"moves": "1212121", "status": "won", "winner": 1}, "contradict"),
    ("unknown-status", {"status": "paused"}, "status is not one of"),
    ("winner-text", {"winner": "first"}, "winner is not 0, 1 or null"),
    ("version-text", {"version": "one"}, "version is not a positive integer"),
    ("version-zero", {"version": 0}, "version is not a positive integer"),
    ("version-fraction", {"version": 1.5}, "version is not a positive integer"),
    ("preset-past-the-moves", {"preset": 3}, "preset is not a count of its moves"),
    ("preset-negative", {"preset": -1}, "preset is not a count of its moves"),
    ("empty-seat", {"seat_hash": ""}, "seat_hash is not a non-empty string"),
    ("seat-blob", {"seat_hash": b"\x00"}, "seat_hash is not a non-empty string"),
    ("time-blob", {"created_at": b"\x00"}, "created_at is not a string"),
    ("engine-move-not-object", {"last_engine_move": '"4"'}, "last_engine_move is not an object"),
    ("engine-move-truncated", {"last_engine_move": '{"best'}, "last_engine_move is not valid"),
]


@pytest.fixture
def stored(backend: Backend) -> Backend:
    """A database with good games "old" and "new" around the game "bad" (still good)."""
    store = backend.open()
    store.create(game_record("old", "4", updated_at="2030-01-01T00:00:00+00:00"))
    store.create(game_record("bad", "44", updated_at="2030-01-02T00:00:00+00:00"))
    store.create(game_record("new", "", updated_at="2030-01-03T00:00:00+00:00"))
    store.close()
    return backend


def corrupt(backend: Backend, columns: dict[str, object]) -> None:
    """Write ``columns`` of the game "bad" behind the store's back."""
    assignments = ", ".join(f"{name} = ?" for name in columns)
    backend.execute(f"UPDATE games SET {assignments} WHERE id = 'bad'", tuple(columns.values()))


def typed_columns_refuse(columns: dict[str, object]) -> bool:
    """Whether PostgreSQL's column types (text, integer) refuse one of these values."""
    return any(
        isinstance(value, bytes | float)
        or (name in ("winner", "version") and isinstance(value, str))
        for name, value in columns.items()
    )


def possible_cases() -> list[Any]:
    """Every case on every backend, but for values PostgreSQL's typed columns cannot hold
    (SQLite keeps any value in any column: those rows exist only there)."""
    return [
        pytest.param(backend, columns, reason, id=f"{backend}-{name}")
        for backend in BACKENDS
        for name, columns, reason in CASES
        if not (backend == "postgresql" and typed_columns_refuse(columns))
    ]


@pytest.mark.parametrize(("backend", "columns", "reason"), possible_cases(), indirect=["backend"])
def test_a_corrupt_row_fails_get_and_is_skipped_by_playing(
    stored: Backend,
    columns: dict[str, object],
    reason: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    corrupt(stored, columns)
    store = stored.open()
    try:
        with caplog.at_level(logging.ERROR, logger="webapp.store"):
            with pytest.raises(CorruptRecord) as caught:
                store.get("bad")
            assert caught.value.game_id == "bad" and reason in caught.value.reason
            assert "game 'bad' cannot be loaded" in caplog.text and reason in caplog.text
            assert [game.id for game in store.playing(10)] == ["new", "old"]
            assert [game.id for game in store.playing(2)] == ["new", "old"]
            assert [game.id for game in store.games_of("hash", 2)] == ["new", "old"]
        for game_id in ("old", "new"):
            assert store.get(game_id) is not None
    finally:
        store.close()


def test_the_good_row_of_the_fixture_is_good(stored: Backend) -> None:
    store = stored.open()
    try:
        assert [game.id for game in store.playing(10)] == ["new", "bad", "old"]
    finally:
        store.close()


def test_validate_names_the_first_failed_check() -> None:
    validate(replace(game_record("abc", "44"), version=1))
    broken = GameRecord("abc", "connect4", "44", {}, "hash", version=1)
    with pytest.raises(CorruptRecord, match="settings lack algorithm, depth"):
        validate(broken)
