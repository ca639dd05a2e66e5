"""The reviews' cache (webapp/services/review.py): a review is made once per game version
and kept while it is asked for; one nobody asked for in ``keep_seconds`` leaves."""

from __future__ import annotations

from typing import Any

from tests.web.test_store import game_record
from webapp.services.review import Reviews


class CountingAnalyses:
    """Every position answered at once (a draw, every move scored); calls counted."""

    def __init__(self) -> None:
        self.now = 0.0
        self.calls = 0

    def clock(self) -> float:
        return self.now

    def many(self, game: str, positions: list[str], **_: Any) -> dict[str, dict[str, Any]]:
        self.calls += 1
        answer = {"score": 0, "exact": True, "best_moves": [], "move_scores": {"1": {}}}
        answer |= {"complete": True, "status": "playing"}
        return {moves: dict(answer) for moves in positions}


def review(reviews: Reviews, game_id: str) -> list[dict[str, Any]]:
    record = game_record(game_id, "51", game="tictactoe", version=1)
    entries, pending = reviews.review(record, position_seconds=1.0, wait=1.0)
    assert pending == 0
    return entries


def test_a_review_is_kept_while_asked_for_and_leaves_once_nobody_has() -> None:
    analyses = CountingAnalyses()
    reviews = Reviews(analyses, keep_seconds=600.0)  # type: ignore[arg-type]
    assert len(review(reviews, "played")) == 2 and analyses.calls == 1
    analyses.now = 500.0
    review(reviews, "played")  # cached; asked at 500
    assert analyses.calls == 1
    review(reviews, "abandoned")
    analyses.now = 1050.0
    review(reviews, "new")  # "played" and "abandoned" were asked for at 500: both kept
    assert analyses.calls == 3 and len(reviews._cache) == 3
    analyses.now = 1200.0
    review(reviews, "other")  # a review made: those not asked for in 600 s leave
    assert analyses.calls == 4
    assert sorted(game_id for game_id, _ in reviews._cache) == ["new", "other"]
    review(reviews, "played")  # made again
    assert analyses.calls == 5
