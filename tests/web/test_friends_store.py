"""A game between two people as the store checks it (webapp/store/validate.py): its friend
data well formed, and a result its moves do not show only with an end that says why."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.test_store import game_record
from tests.web.test_store_migrations import FRIEND
from webapp.store import CorruptRecord, validate

#: A clock as the service stores one (``Clock.to_json``): the second side's time runs.
CLOCK = {"initial_ms": 60_000, "increment_ms": 0, "remaining_ms": [60_000, 59_000],
         "running": 1, "since": 5_000}  # fmt: skip


def test_a_stored_clock_is_valid_with_and_without_an_outage_given_back() -> None:
    validate(friend_game(friend={"clock": CLOCK}))
    validate(friend_game(friend={"clock": {**CLOCK, "excused_to": 90_000}}))
    validate(friend_game(friend={"clock": {**CLOCK, "running": None, "since": None}}))


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
        ({"friend": {"clock": {**CLOCK, "remaining_ms": [1, "2"]}}}, "clock.remaining_ms"),
        ({"friend": {"clock": {**CLOCK, "running": 2}}}, "clock.running"),
        ({"friend": {"clock": {**CLOCK, "running": True}}}, "clock.running"),
        ({"friend": {"clock": {**CLOCK, "excused_to": "soon"}}}, "clock.excused_to"),
        ({"friend": {"clock": {"initial_ms": 1000}}}, "clock.increment_ms"),
    ],
)
def test_a_damaged_game_between_two_people_is_refused(changes: Any, reason: str) -> None:
    if changes.get("friend", {}) is None or isinstance(changes.get("friend"), list):
        record = game_record("f", "4444", version=1, **changes)
    else:
        record = friend_game(**changes)
    with pytest.raises(CorruptRecord, match=reason):
        validate(record)
