"""Engine settings: what a client may ask for, and the limits the server actually uses.

A client sends partial settings; they are merged into the game's current
settings (``protocol.DEFAULT_SETTINGS`` for a new game) and checked as a
whole, so a stored game never holds settings out of range. Whatever a client
asks, the search gets the server's caps: time never above ``MAX_TIME``, plain
minimax never deeper than ``MINIMAX_MAX_DEPTH`` for its game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webapp.engine.search import Limits
from webapp.engine.style import Style
from webapp.protocol import (
    ALGORITHMS,
    DEFAULT_SETTINGS,
    GAME_LABELS,
    GAME_MAX_DEPTH,
    LEVELS,
    MAX_DEPTH,
    MAX_TIME,
    MIN_TIME,
    MINIMAX_MAX_DEPTH,
)

Settings = dict[str, Any]

ENGINE_PLAYS = ("first", "second")
#: What may change once a game has started (who plays first may not).
MID_GAME_KEYS = frozenset({"algorithm", "level", "depth", "time", "show_analysis"})


class SettingsError(ValueError):
    """Settings that are malformed or out of range (the message says which)."""


def merge_settings(
    changes: object,
    base: Mapping[str, Any] | None = None,
    *,
    creating: bool = True,
    game: str | None = None,
) -> Settings:
    """``base`` (the defaults when None) with ``changes`` applied, checked as a whole.

    Raises SettingsError for a non-dict, an unknown key, a wrong type or a value
    out of range; mid-game (``creating=False``) ``engine_plays`` may not change.
    With ``game``, a depth in ``changes`` is refused above that game's own bound
    (``GAME_MAX_DEPTH``: tic-tac-toe 9), as any depth out of range is: never clamped.
    A depth already in ``base`` is kept as stored.

    >>> merge_settings({"level": "easy"})["level"]
    'easy'
    """
    if not isinstance(changes, Mapping):
        raise SettingsError("settings must be an object")
    allowed = set(DEFAULT_SETTINGS) if creating else MID_GAME_KEYS
    merged = dict(DEFAULT_SETTINGS if base is None else base)
    for key, value in changes.items():
        if key == "engine_plays" and not creating and value == merged.get(key):
            continue  # restating the current side is harmless
        if key not in allowed:
            known = ", ".join(sorted(allowed))
            raise SettingsError(f"setting {key!r} cannot be set here (allowed: {known})")
        merged[key] = value
    _check(merged)
    if game is not None and "depth" in changes:
        _check_game_depth(merged["depth"], game)
    if merged["level"] != "custom":  # depth and time belong to the custom level only
        merged["depth"] = merged["time"] = None
    return merged


def _check(settings: Mapping[str, Any]) -> None:
    algorithm, level = settings["algorithm"], settings["level"]
    if not isinstance(algorithm, str) or algorithm not in ALGORITHMS:
        raise SettingsError(f"algorithm must be one of {', '.join(ALGORITHMS)}")
    if not isinstance(level, str) or level not in LEVELS:
        raise SettingsError(f"level must be one of {', '.join(LEVELS)}")
    if settings["engine_plays"] not in ENGINE_PLAYS:
        raise SettingsError("engine_plays must be 'first' or 'second'")
    if not isinstance(settings["show_analysis"], bool):
        raise SettingsError("show_analysis must be true or false")
    depth, seconds = settings["depth"], settings["time"]
    if depth is not None and (
        isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH
    ):
        raise SettingsError(f"depth must be a whole number from 1 to {MAX_DEPTH}")
    if seconds is not None and (
        isinstance(seconds, bool)
        or not isinstance(seconds, int | float)
        or not MIN_TIME <= seconds <= MAX_TIME
    ):
        raise SettingsError(f"time must be a number of seconds from {MIN_TIME} to {MAX_TIME}")
    if level == "custom" and depth is None and seconds is None:
        raise SettingsError("the custom level needs a depth, a time or both")


def game_depth_bound(game: str) -> int:
    """The deepest custom depth ``game`` takes (``GAME_MAX_DEPTH``; else ``MAX_DEPTH``)."""
    return GAME_MAX_DEPTH.get(game, MAX_DEPTH)


def _check_game_depth(depth: int | None, game: str) -> None:
    bound = game_depth_bound(game)
    if depth is not None and depth > bound:
        name = GAME_LABELS.get(game, game)
        raise SettingsError(
            f"depth must be a whole number from 1 to {bound} in {name}"
            f" (a game has at most {bound} moves)"
        )


def engine_side(settings: Mapping[str, Any]) -> int:
    """The side the engine plays: 0 moves first."""
    return 0 if settings["engine_plays"] == "first" else 1


def search_limits(
    settings: Mapping[str, Any], game: str, algorithm: str | None = None, *, play: bool = False
) -> Limits:
    """The limits the server searches with: the level's budget under the server's caps.

    ``algorithm`` overrides the settings' one (the "analyse with the other
    algorithm" action). ``play``: the search chooses the engine's move, so it
    plays in the level's style (``webapp.engine.style``); an analysis names a
    best move. No style changes any move's score.
    """
    algorithm = algorithm or settings["algorithm"]
    level = LEVELS[settings["level"]]
    style = Style(**level["style"]) if play and level.get("style") else None
    if settings["level"] == "custom":
        depth, seconds = settings["depth"], settings["time"]
    else:
        depth, seconds = level["depth"], level["time"]
    seconds = MAX_TIME if seconds is None else min(float(seconds), MAX_TIME)
    capped = False
    deepen = False
    if algorithm == "minimax":
        cap = MINIMAX_MAX_DEPTH.get(game, MAX_DEPTH)
        capped = depth is None or depth > cap
        depth = cap if depth is None else min(depth, cap)
        # A time of the user's own may stop a pass to the end of the game: deepen, so
        # that the deepest depth it completed is its answer (never depth 1 with none).
        deepen = settings["level"] == "custom" and settings["time"] is not None
    return Limits(depth=depth, time=seconds, capped=capped, style=style, deepen=deepen)


#: The settings of the strongest analysis the server gives: what the board shows at every
#: level (the level sets how the engine plays, never what the scores say).
ANALYSIS_SETTINGS: Settings = {**DEFAULT_SETTINGS, "algorithm": "alphabeta", "level": "perfect"}


def analysis_limits(game: str) -> Limits:
    """The limits of the scores shown on the board, whatever the game's level: alpha-beta
    until exact (the solver and the opening book), under the server's time cap.

    >>> analysis_limits("connect4").depth is None
    True
    """
    return search_limits(ANALYSIS_SETTINGS, game)
