"""A game between two people as the store checks it (webapp/store/validate.py): its friend
data well formed, and a result its moves do not show only with an end that says why."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.test_store import game_record
from tests.web.test_store_migrations import FRIEND
from webapp.store import CorruptRecord, validate


def friend_game(moves: str = "4444", **changes: Any) -> Any:
    friend = dict(FRIEND) | changes.pop("friend", {})
    return game_record("f", moves, friend=friend, version=1, **changes)


@pytest.mark.parametrize(
    ("status", "winner", "end"),
    [
        ("playing", None, None),
        ("won", 1, "resign"),
        ("won", 0, "flag"),
        ("won", 1, "abandon"),
        ("drawn", None, "agreement"),
        ("aborted", None, "aborted"),
    ],
)
def test_every_way_a_game_between_two_people_ends_is_valid(
    status: str, winner: int | None, end: str | None
) -> None:
    validate(friend_game(status=status, winner=winner, friend={"end": end}))


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"status": "won", "winner": 0}, "contradict the moves"),  # won with no end
        ({"status": "drawn", "friend": {"end": "resign"}}, "contradict the end"),
        ({"status": "won", "winner": None, "friend": {"end": "flag"}}, "contradict the end"),
        ({"status": "aborted", "friend": None}, "status"),  # an engine game never aborts
        ({"friend": {"end": "boredom"}}, "friend.end"),
        ({"friend": {"creator_side": 2}}, "creator_side"),
        ({"friend": {"invite": None}}, "friend.invite"),
        ({"friend": []}, "friend is not an object"),
    ],
)
def test_a_damaged_game_between_two_people_is_refused(changes: Any, reason: str) -> None:
    if changes.get("friend", {}) is None or isinstance(changes.get("friend"), list):
        record = game_record("f", "4444", version=1, **changes)
    else:
        record = friend_game(**changes)
    with pytest.raises(CorruptRecord, match=reason):
        validate(record)
