"""Settings validation and the limits the server searches with (webapp/game_settings.py)."""

from __future__ import annotations

from typing import Any

import pytest

from webapp.game_settings import SettingsError, engine_side, merge_settings, search_limits
from webapp.protocol import (
    BAD_SETTINGS,
    DEFAULT_SETTINGS,
    GAME_MAX_DEPTH,
    MAX_DEPTH,
    MAX_TIME,
    MIN_TIME,
    MINIMAX_MAX_DEPTH,
    client_config,
)
from webapp.services.errors import GameError
from webapp.services.positions import preview


def test_defaults_are_valid() -> None:
    assert merge_settings({}) == DEFAULT_SETTINGS


def test_partial_settings_merge_into_the_base() -> None:
    base = merge_settings({"level": "easy", "engine_plays": "first"})
    changed = merge_settings({"algorithm": "minimax"}, base, creating=False)
    assert changed["algorithm"] == "minimax"
    assert changed["level"] == "easy"
    assert engine_side(changed) == 0


def test_custom_limits_are_kept_and_cleared_with_another_level() -> None:
    custom = merge_settings({"level": "custom", "depth": 5, "time": 1.5})
    assert (custom["depth"], custom["time"]) == (5, 1.5)
    easy = merge_settings({"level": "easy"}, custom, creating=False)
    assert (easy["depth"], easy["time"]) == (None, None)


@pytest.mark.parametrize(
    "changes",
    [
        None,
        [],
        "easy",
        {"algorithm": "negamax"},
        {"algorithm": 1},
        {"level": "grandmaster"},
        {"level": ["easy"]},
        {"engine_plays": "both"},
        {"show_analysis": "yes"},
        {"level": "custom"},  # needs a depth or a time
        {"level": "custom", "depth": 0},
        {"level": "custom", "depth": MAX_DEPTH + 1},
        {"level": "custom", "depth": 2.5},
        {"level": "custom", "depth": True},
        {"level": "custom", "time": MIN_TIME / 2},
        {"level": "custom", "time": MAX_TIME + 1},
        {"level": "custom", "time": "1"},
        {"colour": "red"},
    ],
)
def test_bad_settings_are_refused(changes: Any) -> None:
    with pytest.raises(SettingsError):
        merge_settings(changes)


def test_who_moves_first_is_fixed_once_the_game_has_started() -> None:
    base = merge_settings({"engine_plays": "second"})
    with pytest.raises(SettingsError, match="engine_plays"):
        merge_settings({"engine_plays": "first"}, base, creating=False)
    assert merge_settings({"engine_plays": "second"}, base, creating=False) == base


def test_perfect_searches_without_a_depth_but_under_the_time_cap() -> None:
    limits = search_limits(merge_settings({"level": "perfect"}), "connect4")
    assert limits.depth is None
    assert limits.time == MAX_TIME


def test_a_level_gives_its_depth_and_time() -> None:
    limits = search_limits(merge_settings({"level": "hard"}), "tictactoe")
    assert (limits.depth, limits.time) == (8, 2.0)


def test_minimax_depth_is_capped_per_game() -> None:
    settings = merge_settings({"level": "custom", "depth": MAX_DEPTH})
    assert search_limits(settings, "connect4", "minimax").depth == MINIMAX_MAX_DEPTH["connect4"]
    assert search_limits(settings, "connect4", "alphabeta").depth == MAX_DEPTH
    perfect = merge_settings({"level": "perfect", "algorithm": "minimax"})
    assert search_limits(perfect, "tictactoe").depth == MINIMAX_MAX_DEPTH["tictactoe"]


def test_only_a_users_own_time_makes_plain_minimax_deepen() -> None:
    """Custom depth 9 and 2 s used to answer a depth-1 move in tic-tac-toe (its one pass to
    the end of the game was cut by the time): a time the user chose deepens instead. The
    levels' own passes to the end stay one pass, whose node count is the minimax tree."""
    custom = merge_settings({"level": "custom", "depth": 9, "time": 2.0, "algorithm": "minimax"})
    assert search_limits(custom, "tictactoe").deepen
    assert not search_limits(custom, "tictactoe", "alphabeta").deepen
    assert not search_limits(merge_settings({"level": "custom", "depth": 9}), "tictactoe").deepen
    perfect = merge_settings({"level": "perfect", "algorithm": "minimax"})
    assert not search_limits(perfect, "tictactoe").deepen


def test_each_game_has_its_own_depth_bound() -> None:
    assert GAME_MAX_DEPTH == {"tictactoe": 9, "connect4": MAX_DEPTH}
    assert client_config()["limits"]["game_max_depth"] == GAME_MAX_DEPTH


def test_a_tictactoe_depth_above_9_is_refused_with_its_bound() -> None:
    nine = merge_settings({"level": "custom", "depth": 9}, game="tictactoe")
    assert nine["depth"] == 9
    with pytest.raises(SettingsError, match=r"from 1 to 9 in Tic-tac-toe"):
        merge_settings({"level": "custom", "depth": 10}, game="tictactoe")
    with pytest.raises(SettingsError, match=r"from 1 to 9 in Tic-tac-toe"):
        merge_settings({"level": "custom", "depth": 30}, nine, creating=False, game="tictactoe")


def test_connect_four_keeps_its_bound_of_42() -> None:
    deepest = merge_settings({"level": "custom", "depth": MAX_DEPTH}, game="connect4")
    assert deepest["depth"] == MAX_DEPTH
    with pytest.raises(SettingsError, match=rf"from 1 to {MAX_DEPTH}\b"):
        merge_settings({"level": "custom", "depth": MAX_DEPTH + 1}, game="connect4")


def test_a_stored_depth_is_kept_when_another_setting_changes() -> None:
    stored = merge_settings({"level": "custom", "depth": 30})  # saved before the game's bound
    changed = merge_settings({"show_analysis": False}, stored, creating=False, game="tictactoe")
    assert changed["depth"] == 30


def test_a_new_game_is_refused_a_depth_deeper_than_its_game() -> None:
    with pytest.raises(GameError, match=r"from 1 to 9 in Tic-tac-toe") as raised:
        preview("tictactoe", {"level": "custom", "depth": 30})
    assert raised.value.code == BAD_SETTINGS
    assert preview("connect4", {"level": "custom", "depth": 30})["settings"]["depth"] == 30
