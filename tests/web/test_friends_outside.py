"""Games between two people from outside: a real server on loopback, ``requests`` for the
HTTP API and python-socketio clients, as browsers would talk to it.

Every refusal code reaches the outside client; two browsers taking the seat at once
and both seats moving at once each give exactly one change.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import pytest
import requests
import socketio
from flask import Flask

from tests.web.helpers import WAIT
from tests.web.live import live_server
from webapp import protocol


class Browser:
    """An HTTP session (its identity cookie is its seat) and a Socket.IO client."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.http = requests.Session()
        self.sio = socketio.Client()
        self.states: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.sio.on(protocol.STATE, self._keep(self.states))
        self.sio.on(protocol.ERROR, self._keep(self.errors))

    def _keep(self, into: list[dict[str, Any]]) -> Callable[[Any], None]:
        def keep(payload: Any) -> None:
            with self.lock:
                into.append(payload)

        return keep

    def post(self, path: str, body: dict[str, Any]) -> requests.Response:
        return self.http.post(self.url + path, json=body, timeout=WAIT)

    def join(self, game_id: str) -> dict[str, Any]:
        if not self.sio.connected:
            cookies = "; ".join(f"{c.name}={c.value}" for c in self.http.cookies)
            self.sio.connect(self.url, headers={"Cookie": cookies}, wait_timeout=WAIT)
        state: dict[str, Any] = self.sio.call(protocol.JOIN, {"game_id": game_id}, timeout=WAIT)
        return state

    def call(self, event: str, payload: dict[str, Any]) -> Any:
        return self.sio.call(event, payload, timeout=WAIT)

    def code(self, event: str, payload: dict[str, Any]) -> str:
        """The code of a refused event (its acknowledgement and its error event agree)."""
        answer = self.call(event, payload)
        deadline = threading.Event()
        for _ in range(int(WAIT / 0.02)):
            with self.lock:
                if self.errors and self.errors[-1] == answer:
                    break
            deadline.wait(0.02)
        with self.lock:
            assert self.errors and self.errors[-1] == answer
        code: str = answer["code"]
        return code

    def wait_state(self, check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        pause = threading.Event()
        for _ in range(int(WAIT / 0.02)):
            with self.lock:
                found = [s for s in self.states if check(s)]
            if found:
                return found[-1]
            pause.wait(0.02)
        raise AssertionError(f"no such state in {WAIT} s")

    def close(self) -> None:
        if self.sio.connected:
            self.sio.disconnect()
        self.http.close()


@pytest.fixture
def served(app: Flask) -> Iterator[Callable[[], Browser]]:
    made: list[Browser] = []
    with live_server(app) as url:

        def browser() -> Browser:
            made.append(Browser(url))
            return made[-1]

        yield browser
        for one in made:
            one.close()


def new_game(creator: Browser, **settings: Any) -> tuple[str, str]:
    response = creator.post(
        "/api/games",
        {"game": "connect4", "opponent": "friend", "settings": {"starts": "me", **settings}},
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert set(body) >= {"id", "url", "invite_url"}
    return body["id"], body["invite_url"].split("?invite=", 1)[1]


def seat(browser: Browser, game_id: str, invite: str) -> requests.Response:
    return browser.post(f"/api/games/{game_id}/seat", {"invite": invite})


def test_every_refusal_reaches_an_outside_client(served: Callable[[], Browser]) -> None:
    creator, guest, third = served(), served(), served()
    game_id, invite = new_game(creator)
    assert seat(guest, game_id, "wrong").json()["error"]["code"] == protocol.BAD_INVITE
    assert seat(guest, game_id, invite).status_code == 200
    for browser, code in ((third, protocol.SEAT_TAKEN), (creator, protocol.ALREADY_SEATED)):
        response = seat(browser, game_id, invite)
        assert (response.status_code, response.json()["error"]["code"]) == (409, code)
    for browser in (creator, guest, third):
        browser.join(game_id)
    game = {"game_id": game_id}

    assert guest.code(protocol.MOVE, game | {"move": "4"}) == protocol.NOT_YOUR_TURN
    assert third.code(protocol.MOVE, game | {"move": "4"}) == protocol.NOT_YOUR_SEAT
    assert creator.code(protocol.MOVE, game | {"move": "8"}) == protocol.ILLEGAL_MOVE
    assert creator.code(protocol.MOVE, game | {"move": "4", "ply": 3}) == protocol.NOT_YOUR_TURN
    assert creator.code(protocol.OFFER, game | {"kind": "pizza"}) == protocol.BAD_REQUEST
    assert creator.code(protocol.ACCEPT, game | {"kind": "draw"}) == protocol.NO_OFFER
    assert creator.code(protocol.CLAIM, game | {"result": "abort"}) == protocol.TOO_EARLY
    assert guest.code(protocol.ANALYSE, game | {"algorithm": "alphabeta"}) == protocol.FAIR_PLAY
    assert third.code(protocol.RESIGN, game) == protocol.NOT_YOUR_SEAT
    assert creator.call(protocol.MOVE, game | {"move": "4", "ply": 0}) == {"ok": True}
    for browser in (creator, guest, third):  # everyone sees the move live
        browser.wait_state(lambda s: s["moves"] == "4")
    assert guest.call(protocol.RESIGN, game) == {"ok": True}
    assert creator.code(protocol.MOVE, game | {"move": "4"}) == protocol.GAME_OVER


def test_two_browsers_taking_the_seat_at_once_exactly_one_wins(
    served: Callable[[], Browser],
) -> None:
    creator = served()
    rivals = [served() for _ in range(4)]
    game_id, invite = new_game(creator)
    start = threading.Barrier(len(rivals), timeout=WAIT)  # a bound on a hang, not a pace
    statuses: list[int] = [0] * len(rivals)

    def take(index: int) -> None:
        start.wait()
        statuses[index] = seat(rivals[index], game_id, invite).status_code

    threads = [threading.Thread(target=take, args=(i,)) for i in range(len(rivals))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=WAIT)
    assert sorted(statuses) == [200, 409, 409, 409]
    winner = rivals[statuses.index(200)]
    assert winner.join(game_id)["seat"] == "player"
    assert rivals[statuses.index(409)].join(game_id)["seat"] == "spectator"


def test_both_seats_moving_at_once_exactly_one_is_applied(served: Callable[[], Browser]) -> None:
    creator, guest = served(), served()
    game_id, invite = new_game(creator)
    assert seat(guest, game_id, invite).status_code == 200
    creator.join(game_id)
    guest.join(game_id)
    for ply in range(6):
        answers = both_at_once(
            partial(creator.call, protocol.MOVE, {"game_id": game_id, "move": "3", "ply": ply}),
            partial(guest.call, protocol.MOVE, {"game_id": game_id, "move": "5", "ply": ply}),
        )
        mover = ply % 2
        assert answers[mover] == {"ok": True}
        assert answers[1 - mover]["code"] == protocol.NOT_YOUR_TURN
        state = creator.wait_state(lambda s, n=ply + 1: len(s["moves"]) == n)
        assert state["moves"] == "353535"[: ply + 1]


def both_at_once(*sends: Callable[[], Any]) -> list[Any]:
    """Each send in its own thread at the same instant; their answers."""
    start = threading.Barrier(len(sends), timeout=WAIT)  # a bound on a hang, not a pace
    answers: list[Any] = [None] * len(sends)

    def run(index: int) -> None:
        start.wait()
        answers[index] = sends[index]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(sends))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=WAIT)
    return answers
