"""A level's style (webapp/engine/style.py): which scored move it plays, and a true result.

Every draw comes from a seeded generator, so the rates below are fixed
numbers for these seeds, checked against the bounds the style promises.
"""

from __future__ import annotations

import random

import pytest

from tests.test_search import assert_pv_is_legal
from webapp.engine.search import Limits, MoveScore, search
from webapp.engine.style import NEAR_EQUAL, WEAKER, Choice, Style, choose
from webapp.game_settings import merge_settings, search_limits
from webapp.games import new_game
from webapp.protocol import DEFAULT_SETTINGS, LEVELS


def scores(**by_move: float | int) -> dict[str, MoveScore]:
    """Scores by move; an int is exact, a float heuristic (``m1=0.01``: move "1")."""
    return {k[1:]: MoveScore(v, isinstance(v, int)) for k, v in by_move.items()}


def choices(
    found: dict[str, MoveScore],
    style: Style,
    trials: int = 400,
    seen: dict[str, MoveScore] | None = None,
) -> list[Choice]:
    rng = random.Random(7)
    return [choose(found, style, rng, seen) for _ in range(trials)]


# -- choosing ------------------------------------------------------------------------


def test_near_equal_moves_are_played_at_random_and_only_they() -> None:
    found = scores(m1=0.010, m2=0.007, m3=0.004, m4=-0.2)
    picked = choices(found, Style(margin=0.005))
    assert {c.move for c in picked} == {"1", "2"}
    assert {c.reason for c in picked if c.move == "1"} == {None}  # the best itself
    assert {c.reason for c in picked if c.move == "2"} == {NEAR_EQUAL}
    assert {c.move for c in choices(found, Style())} == {"1"}  # no margin: the best


def test_proven_results_are_near_only_when_equal() -> None:
    # A slower win is a weaker move, not a variation; a proven draw is near a small edge.
    assert {c.move for c in choices(scores(m1=3, m2=2, m3=0.9), Style(margin=0.9))} == {"1"}
    assert {c.move for c in choices(scores(m1=0.004, m2=0, m3=-5), Style(margin=0.005))} == {
        "1", "2"
    }  # fmt: skip


def test_the_weaker_move_rate_is_the_blunder_rate() -> None:
    found = scores(m1=0.05, m2=0.0, m3=-0.05, m4=-0.1)
    picked = choices(found, Style(blunder=0.25), trials=2000)
    weaker = [c for c in picked if c.reason == WEAKER]
    assert 0.22 <= len(weaker) / len(picked) <= 0.28
    assert {c.move for c in weaker} == {"2", "3", "4"}  # any of them, never the best
    assert all(c.move == "1" for c in picked if c.reason is None)
    assert choices(found, Style(blunder=0.25), trials=50) == choices(
        found, Style(blunder=0.25), trials=50
    )  # seeded: the same choices again


def test_nothing_weaker_to_play_means_the_best() -> None:
    picked = choices(scores(m1=0.01, m2=0.01), Style(blunder=1.0))
    assert {c.reason for c in picked} == {None}


def test_a_win_in_sight_is_never_missed() -> None:
    found = scores(m1=17, m2=0.1, m3=-0.1)
    assert {c.move for c in choices(found, Style(blunder=1.0, sight=2), seen=found)} == {"1"}
    # Blind to it (Easy), every move but the win is a blunder.
    assert {c.move for c in choices(found, Style(blunder=1.0), seen=None)} == {"2", "3"}


def test_a_loss_in_sight_is_avoided_while_a_move_holds() -> None:
    deep = scores(m1=0.1, m2=-0.3, m3=-15, m4=-17)  # 3 loses deep down, 4 at once
    seen = scores(m1=0.1, m2=0.0, m3=0.2, m4=-17)  # in sight, only 4 loses
    picked = choices(deep, Style(blunder=1.0, sight=2), seen=seen)
    assert {c.move for c in picked} == {"2", "3"}  # may walk into the deep loss, never into 4
    # When every move loses, any may be played.
    lost = scores(m1=-3, m2=-2)
    assert {c.move for c in choices(lost, Style(blunder=1.0, sight=2), seen=lost)} == {"1"}
    assert {c.move for c in choices(lost, Style(blunder=1.0))} == {"1"}


def test_a_style_out_of_range_is_refused() -> None:
    for bad in ({"margin": 1.0}, {"blunder": 1.5}, {"blunder": -0.1}, {"sight": -1}):
        with pytest.raises(ValueError, match="style"):
            Style(**bad)


# -- the result stays true ------------------------------------------------------------


@pytest.mark.parametrize("native", [True, False])
@pytest.mark.parametrize("algorithm", ["alphabeta", "minimax"])
def test_a_styled_result_names_the_move_played_with_its_own_score_and_line(
    native: bool, algorithm: str
) -> None:
    style = Style(margin=0.01, blunder=0.5, sight=2)
    reasons = set()
    for moves in ("", "4453", "44", "3443"):
        game = new_game("connect4", moves)
        plain = search(game, algorithm, Limits(depth=4), move_scores=True, seed=1, native=native)
        assert plain.move_scores is not None
        for seed in range(8):
            styled = search(game, algorithm, Limits(depth=4, style=style), seed=seed,
                            native=native)  # fmt: skip
            played = styled.best_move
            assert played is not None and styled.move_scores is None  # not asked for
            assert (styled.score, styled.exact) == (
                plain.move_scores[played].score, plain.move_scores[played].exact
            )  # fmt: skip
            assert styled.pv.startswith(played) and styled.depth == plain.depth
            assert_pv_is_legal(game, styled.pv)
            reason = styled.extra.get("style")
            reasons.add(reason)
            if reason is None:
                assert styled.score == plain.score
            else:
                assert styled.extra["strongest"]["score"] == plain.score
                assert styled.score < plain.score or styled.exact != plain.exact
    assert reasons == {None, NEAR_EQUAL, WEAKER}


def test_both_engines_play_the_same_styled_move() -> None:
    style = Style(margin=0.02, blunder=0.3)
    for seed in range(10):
        game = new_game("connect4", "4453")
        kernel = search(game, "alphabeta", Limits(depth=4, style=style), seed=seed)
        python = search(game, "alphabeta", Limits(depth=4, style=style), seed=seed, native=False)
        assert (kernel.best_move, kernel.score, kernel.pv) == (python.best_move, python.score,
                                                              python.pv)  # fmt: skip


def test_asked_for_the_scores_a_styled_search_keeps_them() -> None:
    game = new_game("tictactoe", "5")
    styled = search(game, "alphabeta", Limits(depth=2, style=Style(blunder=1.0)), seed=3,
                    move_scores=True)  # fmt: skip
    assert styled.move_scores is not None and set(styled.move_scores) == set("12346789")
    assert styled.move_scores[styled.best_move or ""].score == styled.score


# -- the levels --------------------------------------------------------------------------


def test_easy_and_medium_play_in_style_and_hard_and_perfect_do_not() -> None:
    for level in ("easy", "medium"):
        settings = merge_settings({"level": level})
        limits = search_limits(settings, "connect4", play=True)
        assert limits.style == Style(**LEVELS[level]["style"])
        assert search_limits(settings, "connect4").style is None  # analyses: the best move
    assert LEVELS["medium"]["style"]["sight"] >= 2  # takes a win in one, blocks a threat
    for level in ("hard", "perfect", "custom"):
        changes = {"level": level, "depth": 3} if level == "custom" else {"level": level}
        assert search_limits(merge_settings(changes), "connect4", play=True).style is None


@pytest.mark.parametrize("level", ["hard", "perfect"])
def test_hard_and_perfect_play_a_best_move_as_before(level: str) -> None:
    limits = search_limits(merge_settings({"level": level}), "tictactoe", play=True)
    for moves in ("", "5", "51"):
        game = new_game("tictactoe", moves)
        for seed in range(3):
            played = search(game, "alphabeta", limits, seed=seed)
            plain = search(game, "alphabeta", Limits(depth=limits.depth, time=limits.time),
                           seed=seed)  # fmt: skip
            assert played.to_dict() | {"time_ms": 0} == plain.to_dict() | {"time_ms": 0}
            assert "style" not in played.extra


def test_the_default_level_is_medium() -> None:
    assert DEFAULT_SETTINGS["level"] == "medium"
    assert merge_settings({})["level"] == "medium"
