"""Games between two people over the API and Socket.IO (webapp/web/friend_games.py,
friend_sockets.py): create, take the seat, play, fair play, offers, every refusal."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.web.helpers import Listener, error_code, stored
from webapp import protocol

Connect = Callable[[FlaskClient], Listener]


def create_friend_game(
    http: FlaskClient, game: str = "connect4", **settings: Any
) -> dict[str, Any]:
    response = http.post(
        "/api/games",
        json={"game": game, "opponent": "friend", "settings": {"starts": "me", **settings}},
    )
    assert response.status_code == 201, response.get_json()
    state: dict[str, Any] = response.get_json()
    return state


def invite_of(state: dict[str, Any]) -> str:
    url: str = state["invite_url"]
    return url.split("?invite=", 1)[1]


def take_seat(http: FlaskClient, state: dict[str, Any], invite: str | None = None) -> Any:
    return http.post(f"/api/games/{state['id']}/seat", json={"invite": invite or invite_of(state)})


class Table:
    """A game between two browsers (creator first, guest second), and a spectator, joined."""

    def __init__(self, app: Flask, connect: Connect, game: str = "connect4", **settings: Any):
        self.app = app
        self.creator_http, self.guest_http = app.test_client(), app.test_client()
        self.state = create_friend_game(self.creator_http, game, **settings)
        self.id: str = self.state["id"]
        assert take_seat(self.guest_http, self.state).status_code == 200
        self.creator, self.guest = connect(self.creator_http), connect(self.guest_http)
        self.spectator = connect(app.test_client())
        for listener in (self.creator, self.guest, self.spectator):
            listener.emit(protocol.JOIN, {"game_id": self.id})

    def send(self, who: Listener, event: str, **payload: Any) -> Any:
        return who.emit(event, {"game_id": self.id, **payload})

    def refused(self, who: Listener, event: str, **payload: Any) -> str:
        """The code of a refusal; the stored game is unchanged."""
        before = stored(self.app, self.id)
        who.clear()
        answer = self.send(who, event, **payload)
        assert answer == who.named(protocol.ERROR)[-1]
        assert stored(self.app, self.id) == before
        return error_code(who)

    def last_state(self, who: Listener) -> dict[str, Any]:
        states = [s for s in who.named(protocol.STATE) if s["id"] == self.id]
        assert states
        state: dict[str, Any] = states[-1]
        return state


@pytest.fixture
def table(app: Flask, connect: Connect) -> Table:
    return Table(app, connect)


# -- create and sit down ---------------------------------------------------------------


def test_creating_answers_the_id_the_url_and_an_invite_link(client: FlaskClient) -> None:
    state = create_friend_game(client)
    assert state["url"] == f"/g/{state['id']}"
    assert state["invite_url"].startswith(f"/g/{state['id']}?invite=")
    assert state["seat"] == "player" and state["opponent"] == "friend"
    assert state["friend"]["your_side"] == 0 and not state["friend"]["seated"]
    assert state["friend"]["invite_url"] == state["invite_url"]  # the creator sees it again
    again = client.get(f"/api/games/{state['id']}").get_json()
    assert again["friend"]["invite_url"] == state["invite_url"]


def test_the_creator_may_let_the_friend_start(client: FlaskClient) -> None:
    state = create_friend_game(client, starts="friend")
    assert state["friend"]["your_side"] == 1 and state["human_side"] == 1


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"opponent": "robot"}, protocol.BAD_REQUEST),
        ({"opponent": "friend", "moves": "44"}, protocol.BAD_REQUEST),
        ({"opponent": "friend", "settings": {"starts": "whoever"}}, protocol.BAD_SETTINGS),
        ({"opponent": "friend", "settings": {"clock": {"initial": -5}}}, protocol.BAD_SETTINGS),
        ({"opponent": "friend", "settings": {"spectator_analysis": 1}}, protocol.BAD_SETTINGS),
    ],
)
def test_a_bad_friend_game_is_refused(client: FlaskClient, body: Any, code: str) -> None:
    response = client.post("/api/games", json={"game": "connect4", **body})
    assert response.status_code == 400 and response.get_json()["error"]["code"] == code


def test_the_first_browser_with_the_invite_takes_the_seat(app: Flask) -> None:
    creator, guest, third = app.test_client(), app.test_client(), app.test_client()
    state = create_friend_game(creator)
    seated = take_seat(guest, state)
    assert seated.status_code == 200
    assert seated.get_json()["seat"] == "player" and seated.get_json()["friend"]["your_side"] == 1
    assert "invite_url" not in seated.get_json()["friend"]

    refusals = [
        (take_seat(third, state), 409, protocol.SEAT_TAKEN),
        (take_seat(creator, state), 409, protocol.ALREADY_SEATED),
        (take_seat(guest, state), 409, protocol.ALREADY_SEATED),
    ]
    for response, status, code in refusals:
        assert (response.status_code, response.get_json()["error"]["code"]) == (status, code)
    # The seat is the browser's: a reload keeps it; the third browser watches.
    assert guest.get(f"/api/games/{state['id']}").get_json()["seat"] == "player"
    assert third.get(f"/api/games/{state['id']}").get_json()["seat"] == "spectator"
    # Taken, the creator's state no longer offers the invite.
    assert "invite_url" not in creator.get(f"/api/games/{state['id']}").get_json()["friend"]


def test_a_wrong_invite_or_an_engine_game_has_no_seat_to_take(app: Flask) -> None:
    creator, guest = app.test_client(), app.test_client()
    state = create_friend_game(creator)
    wrong = take_seat(guest, state, invite="not-the-invite")
    assert (wrong.status_code, wrong.get_json()["error"]["code"]) == (403, protocol.BAD_INVITE)
    accented = take_seat(guest, state, invite="é" * 8)  # any text is compared, never a 500
    assert (accented.status_code, accented.get_json()["error"]["code"]) == (
        403,
        protocol.BAD_INVITE,
    )
    # A lone surrogate: valid JSON, no text to encode (it was a 500 with a traceback).
    lone = guest.post(f"/api/games/{state['id']}/seat", data='{"invite":"\\ud800"}',
                      content_type="application/json")  # fmt: skip
    assert (lone.status_code, lone.get_json()["error"]["code"]) == (403, protocol.BAD_INVITE)
    engine = creator.post("/api/games", json={"game": "connect4"}).get_json()
    response = guest.post(f"/api/games/{engine['id']}/seat", json={"invite": "x"})
    assert response.get_json()["error"]["code"] == protocol.BAD_INVITE
    assert take_seat(guest, state).status_code == 200  # the right invite still works


# -- play ------------------------------------------------------------------------------


def test_moves_alternate_and_everyone_sees_them(table: Table) -> None:
    for who, move in ((table.creator, "4"), (table.guest, "4"), (table.creator, "3")):
        assert table.send(who, protocol.MOVE, move=move) == {"ok": True}
    for listener in (table.creator, table.guest, table.spectator):
        listener.wait_for(protocol.STATE, lambda s: s["moves"] == "443")
    assert table.last_state(table.guest)["seat"] == "player"
    assert table.last_state(table.guest)["friend"]["your_side"] == 1
    assert table.last_state(table.spectator)["seat"] == "spectator"
    assert table.last_state(table.creator)["friend"]["your_side"] == 0


def test_the_wrong_seat_and_spectators_cannot_move(table: Table) -> None:
    assert table.refused(table.guest, protocol.MOVE, move="4") == protocol.NOT_YOUR_TURN
    assert table.refused(table.spectator, protocol.MOVE, move="4") == protocol.NOT_YOUR_SEAT
    assert table.refused(table.creator, protocol.MOVE, move="9") == protocol.ILLEGAL_MOVE
    assert table.refused(table.creator, protocol.MOVE, move=4) == protocol.BAD_REQUEST


def test_nobody_moves_before_the_friend_sits_down(app: Flask, connect: Connect) -> None:
    creator_http = app.test_client()
    state = create_friend_game(creator_http)
    creator = connect(creator_http)
    creator.emit(protocol.JOIN, {"game_id": state["id"]})
    creator.clear()
    creator.emit(protocol.MOVE, {"game_id": state["id"], "move": "4"})
    assert error_code(creator) == protocol.NOT_YOUR_TURN


@pytest.mark.parametrize(
    ("event", "payload"),
    [
        (protocol.UNDO, {}),
        (protocol.SETTINGS, {"settings": {"level": "hard"}}),
        (protocol.NEW_GAME, {}),
        (protocol.REMATCH, {}),
    ],
)
def test_engine_actions_are_refused(table: Table, event: str, payload: Any) -> None:
    assert table.refused(table.creator, event, **payload) == protocol.BAD_REQUEST


# -- fair play ---------------------------------------------------------------------------


def test_no_analysis_for_anyone_at_the_table_while_it_is_played(table: Table) -> None:
    table.send(table.creator, protocol.MOVE, move="4")
    for who in (table.creator, table.guest, table.spectator):
        assert table.refused(who, protocol.ANALYSE, algorithm="alphabeta") == protocol.FAIR_PLAY
    for http in (table.creator_http, table.guest_http):
        response = http.get(f"/api/games/{table.id}/review")
        assert (response.status_code, response.get_json()["error"]["code"]) == (
            403,
            protocol.FAIR_PLAY,
        )
    state = table.creator_http.get(f"/api/games/{table.id}").get_json()
    assert state["moves"] == "4" and state["scores"] is None and not state["engine_thinking"]


def test_spectators_may_analyse_when_the_creator_allowed_it(app: Flask, connect: Connect) -> None:
    table = Table(app, connect, spectator_analysis=True)
    assert table.refused(table.guest, protocol.ANALYSE, algorithm="alphabeta") == (
        protocol.FAIR_PLAY
    )
    assert table.send(table.spectator, protocol.ANALYSE, algorithm="alphabeta") == {"ok": True}
    table.spectator.wait_for(protocol.ANALYSIS)


def test_everyone_gets_the_review_once_it_is_over(app: Flask, connect: Connect) -> None:
    table = Table(app, connect, game="tictactoe")
    for who, move in ((table.creator, "1"), (table.guest, "5")):
        table.send(who, protocol.MOVE, move=move)
    table.send(table.guest, protocol.RESIGN)
    review = table.guest_http.get(f"/api/games/{table.id}/review")
    assert review.status_code == 200
    assert [entry["move"] for entry in review.get_json()] == ["1", "5"]


# -- the end, and again --------------------------------------------------------------------


def test_resigning_gives_the_other_side_the_game(table: Table) -> None:
    table.send(table.creator, protocol.MOVE, move="4")
    assert table.send(table.creator, protocol.RESIGN) == {"ok": True}
    final = table.spectator.wait_for(protocol.STATE, lambda s: s["status"] != "playing")
    assert (final["status"], final["winner"], final["friend"]["end"]) == ("won", 1, "resign")
    assert table.refused(table.guest, protocol.MOVE, move="4") == protocol.GAME_OVER
    assert table.refused(table.guest, protocol.RESIGN) == protocol.GAME_OVER


def test_a_draw_offered_is_shown_to_the_other_side_and_accepted(table: Table) -> None:
    assert table.refused(table.guest, protocol.ACCEPT, kind="draw") == protocol.NO_OFFER
    table.send(table.creator, protocol.OFFER, kind="draw")
    offered = table.guest.wait_for(protocol.STATE, lambda s: s["friend"]["offers"]["draw"] == 0)
    assert offered["status"] == "playing"
    assert table.refused(table.creator, protocol.OFFER, kind="draw") == protocol.NO_OFFER
    assert table.refused(table.creator, protocol.ACCEPT, kind="draw") == protocol.NO_OFFER
    table.send(table.guest, protocol.ACCEPT, kind="draw")
    final = table.creator.wait_for(protocol.STATE, lambda s: s["status"] != "playing")
    assert (final["status"], final["winner"], final["friend"]["end"]) == (
        "drawn",
        None,
        "agreement",
    )


def test_an_offer_declined_or_withdrawn_is_gone(table: Table) -> None:
    table.send(table.creator, protocol.OFFER, kind="draw")
    table.send(table.guest, protocol.DECLINE, kind="draw")
    table.creator.wait_for(protocol.STATE, lambda s: s["friend"]["offers"]["draw"] is None)
    assert table.refused(table.guest, protocol.DECLINE, kind="draw") == protocol.NO_OFFER
    assert table.refused(table.guest, protocol.OFFER, kind="chess") == protocol.BAD_REQUEST
    assert table.refused(table.spectator, protocol.OFFER, kind="draw") == protocol.NOT_YOUR_SEAT


def test_a_takeback_the_other_accepts_takes_back_the_askers_last_move(table: Table) -> None:
    assert table.refused(table.creator, protocol.OFFER, kind="takeback") == protocol.NO_OFFER
    table.send(table.creator, protocol.MOVE, move="4")
    table.send(table.guest, protocol.MOVE, move="5")
    table.send(table.creator, protocol.OFFER, kind="takeback")
    table.send(table.guest, protocol.ACCEPT, kind="takeback")
    back = table.creator.wait_for(protocol.STATE, lambda s: s["moves"] == "")
    assert back["to_move"] == 0
    table.send(table.creator, protocol.MOVE, move="3")  # the creator moves again
    table.guest.wait_for(protocol.STATE, lambda s: s["moves"] == "3")


def test_a_rematch_both_accept_swaps_the_colours_and_keeps_the_seats(table: Table) -> None:
    table.send(table.creator, protocol.MOVE, move="4")
    assert table.refused(table.creator, protocol.OFFER, kind="rematch") == protocol.NO_OFFER
    table.send(table.guest, protocol.RESIGN)
    table.send(table.guest, protocol.OFFER, kind="rematch")
    table.send(table.creator, protocol.ACCEPT, kind="rematch")
    over = table.spectator.wait_for(protocol.STATE, lambda s: s["friend"]["next"] is not None)
    assert over["friend"]["next_url"] == f"/g/{over['friend']['next']}"
    assert table.refused(table.creator, protocol.OFFER, kind="rematch") == protocol.NO_OFFER
    again = over["friend"]["next"]
    creator = table.creator_http.get(f"/api/games/{again}").get_json()
    guest = table.guest_http.get(f"/api/games/{again}").get_json()
    assert (creator["friend"]["your_side"], guest["friend"]["your_side"]) == (1, 0)
    assert creator["moves"] == "" and creator["status"] == "playing"
    assert creator["friend"]["seated"] and "invite_url" not in creator["friend"]


# -- connections and the clock, as pages see them --------------------------------------------


def test_the_other_side_sees_a_player_leave_and_come_back(table: Table, connect: Connect) -> None:
    table.creator.clear()
    table.guest.client.disconnect()
    gone = table.creator.wait_for(protocol.STATE, lambda s: s["friend"]["gone_ms"][1] is not None)
    assert gone["friend"]["gone_ms"][0] is None and gone["friend"]["your_side"] == 0
    table.creator.clear()
    back = connect(table.guest_http)
    assert back.emit(protocol.JOIN, {"game_id": table.id})["seat"] == "player"  # the same seat
    table.creator.wait_for(protocol.STATE, lambda s: s["friend"]["gone_ms"] == [None, None])


def test_a_page_joining_after_the_flag_fell_finds_the_game_over(
    app: Flask, connect: Connect
) -> None:
    friends = app.extensions["lookahead_friends"]
    friends.timers = False  # no timer: the flag is found when a page comes
    now = [friends.now_ms()]
    friends.now_ms = lambda: now[0]
    table = Table(app, connect, clock={"initial": 5, "increment": 0})
    table.send(table.creator, protocol.MOVE, move="4")
    now[0] += 4_000
    late = connect(app.test_client())
    clock = late.emit(protocol.JOIN, {"game_id": table.id})["friend"]["clock"]
    assert clock["remaining_ms"] == [5_000, 1_000] and clock["running"] == 1
    now[0] += 1_000
    final = connect(app.test_client()).emit(protocol.JOIN, {"game_id": table.id})
    assert (final["status"], final["winner"], final["friend"]["end"]) == ("won", 0, "flag")
    table.guest.wait_for(protocol.STATE, lambda s: s["status"] == "won")
