"""The rooms index (``webapp.web.rooms``): a client leaves exactly its own rooms, and a
disconnect never walks the namespace's other rooms."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.web.helpers import create
from webapp import protocol
from webapp.web.app import socketio
from webapp.web.rooms import Rooms

NS = "/"


def connected(rooms: Rooms, sid: str, *games: str) -> None:
    """``sid`` connected as python-socketio connects it (two rooms), then in ``games``."""
    rooms.basic_enter_room(sid, NS, None, eio_sid=f"eio-{sid}")
    rooms.basic_enter_room(sid, NS, sid, eio_sid=f"eio-{sid}")
    for game in games:
        rooms.basic_enter_room(sid, NS, game)


class NoWalk(dict):  # type: ignore[type-arg]
    """A namespace's rooms that refuse to be walked: only looked up by name."""

    def items(self) -> Any:
        raise AssertionError("the namespace's rooms were walked")

    def copy(self) -> Any:
        raise AssertionError("the namespace's rooms were copied")

    def __iter__(self) -> Any:
        raise AssertionError("the namespace's rooms were walked")


def test_a_disconnect_leaves_the_clients_own_rooms_and_no_other() -> None:
    rooms = Rooms()
    connected(rooms, "a", "game-1", "game-2")
    connected(rooms, "b", "game-1")
    rooms.basic_disconnect("a", NS)
    assert set(rooms.rooms[NS]) == {None, "b", "game-1"}
    assert dict(rooms.get_participants(NS, "game-1")) == {"b": "eio-b"}
    assert "game-2" not in rooms.rooms[NS]  # emptied: gone, as python-socketio does
    assert rooms.get_rooms("a", NS) == []
    assert sorted(rooms.get_rooms("b", NS)) == ["b", "game-1"]


def test_a_disconnect_never_walks_the_other_rooms() -> None:
    rooms = Rooms()
    for n in range(50):
        connected(rooms, f"s{n}", f"game-{n}")
    rooms.rooms[NS] = NoWalk(rooms.rooms[NS])
    rooms.basic_disconnect("s7", NS)
    assert "game-7" not in rooms.rooms[NS] and "s7" not in rooms.rooms[NS]
    assert dict(rooms.rooms[NS]["game-8"]) == {"s8": "eio-s8"}


def test_leaving_every_room_leaves_nothing_behind() -> None:
    rooms = Rooms()
    connected(rooms, "a", "game-1")
    connected(rooms, "b", "game-1")
    rooms.basic_leave_room("a", NS, "game-1")
    assert sorted(rooms.get_rooms("a", NS)) == ["a"]
    rooms.basic_close_room("game-1", NS)
    assert rooms.get_rooms("b", NS) == ["b"]
    for sid in ("a", "b"):
        rooms.basic_disconnect(sid, NS)
    assert rooms.rooms == {} and rooms._rooms_of.get(NS, {}) == {}


def test_a_disconnect_forgets_its_callbacks_and_pending_states() -> None:
    rooms = Rooms()
    connected(rooms, "a")
    rooms.callbacks["a"] = {1: print}
    rooms.pending_disconnect[NS] = ["a"]
    rooms.pending_connect[NS] = ["a"]
    rooms.basic_disconnect("a", NS)
    assert rooms.callbacks == {} and rooms.pending_connect == {} and rooms.pending_disconnect == {}


@pytest.mark.timeout(30)
def test_the_app_leaves_a_closed_pages_rooms(app: Flask, client: FlaskClient) -> None:
    """Two pages on a game, one closes: the other is still in the game's room; the closed
    one's rooms are gone from the index too, and once both closed, nothing is left."""
    game = create(client)
    pages = [socketio.test_client(app, flask_test_client=client) for _ in range(2)]
    for page in pages:
        page.emit(protocol.JOIN, {"game_id": game["id"]})
    manager = socketio.server.manager
    closing_sid = manager.sid_from_eio_sid(pages[0].eio_sid, NS)
    assert closing_sid is not None and game["id"] in manager.get_rooms(closing_sid, NS)
    pages[0].disconnect()
    assert closing_sid not in manager._rooms_of.get(NS, {})
    staying = manager.sid_from_eio_sid(pages[1].eio_sid, NS)
    assert dict(manager.get_participants(NS, game["id"])) == {staying: pages[1].eio_sid}
    pages[1].disconnect()
    assert manager._rooms_of.get(NS, {}) == {}
