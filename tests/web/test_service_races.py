"""Concurrent actions on one game: one at a time, a legal game, and every client told the truth."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from tests.web.helpers import Listener, create, make_app, wait_until
from webapp import protocol
from webapp.games import new_game
from webapp.store import GameRecord
from webapp.web.app import close_app, service_of, socketio
from webapp.web.identity import COOKIE

ROUNDS = 25


def latest_state(listener: Listener) -> dict[str, Any]:
    states = listener.named(protocol.STATE)
    return max(states, key=lambda s: s["version"])


def test_moves_undos_and_settings_racing_from_two_tabs(app: Flask, client: FlaskClient) -> None:
    game = create(client, settings={"level": "easy"})
    tabs = [Listener(socketio.test_client(app, flask_test_client=client)) for _ in range(2)]
    for tab in tabs:
        assert tab.emit(protocol.JOIN, {"game_id": game["id"]})["seat"] == "player"
    start = threading.Barrier(len(tabs))
    answers: list[Any] = []

    def play(tab: Listener, seed: int) -> None:
        chance = random.Random(seed)
        start.wait()
        for _ in range(ROUNDS):
            kind = chance.choice(["move", "move", "undo", "settings"])
            if kind == "move":
                payload = {"game_id": game["id"], "move": str(chance.randint(1, 9))}
                answers.append(tab.emit(protocol.MOVE, payload))
            elif kind == "undo":
                answers.append(tab.emit(protocol.UNDO, {"game_id": game["id"]}))
            else:
                level = chance.choice(["easy", "medium"])
                payload = {"game_id": game["id"], "settings": {"level": level}}
                answers.append(tab.emit(protocol.SETTINGS, payload))

    threads = [threading.Thread(target=play, args=(tab, n)) for n, tab in enumerate(tabs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    service = service_of(app)
    wait_until(lambda: not service.searches.thinking(game["id"]))
    stored = service.store.get(game["id"])
    assert stored is not None
    new_game("tictactoe", stored.moves)  # legal, move by move
    assert any(answer == {"ok": True} for answer in answers)

    def told(tab: Listener) -> bool:  # the newest state it got is the stored game
        now = service.store.get(game["id"])  # read afresh: the scores may still be stored
        return now is not None and latest_state(tab)["version"] == now.version

    for tab in tabs:  # everyone ends on the stored game, whatever order news came in
        wait_until(lambda tab=tab: told(tab))
        assert latest_state(tab)["moves"] == stored.moves


def test_one_seat_moving_through_two_servers_at_once_applies_one_move(tmp_path: Path) -> None:
    database = tmp_path / "games.db"
    first, second = make_app(database), make_app(database)  # two processes' worth of service
    try:
        http_a, http_b = first.test_client(), second.test_client()
        game = create(http_a, settings={"level": "easy"})
        cookie = http_a.get_cookie(COOKIE)
        assert cookie is not None
        http_b.set_cookie(COOKIE, cookie.value)  # the same browser, through another server
        tabs = [
            Listener(socketio.test_client(first, flask_test_client=http_a)),
            Listener(socketio.test_client(second, flask_test_client=http_b)),
        ]
        start = threading.Barrier(2)
        answers: dict[str, Any] = {}

        def move(tab: Listener, square: str) -> None:
            tab.emit(protocol.JOIN, {"game_id": game["id"]})
            start.wait()
            answers[square] = tab.emit(protocol.MOVE, {"game_id": game["id"], "move": square})

        threads = [
            threading.Thread(target=move, args=(tab, square))
            for tab, square in zip(tabs, "15", strict=True)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

        applied = [square for square, answer in answers.items() if answer == {"ok": True}]
        assert len(applied) == 1, answers
        (refused,) = [answer for answer in answers.values() if answer != {"ok": True}]
        assert refused["code"] in {protocol.CONFLICT, protocol.NOT_YOUR_TURN}
        wait_until(lambda: len(service_of(first).store.get(game["id"]).moves) == 2)  # type: ignore[union-attr]
        for app in (first, second):
            stored = service_of(app).store.get(game["id"])
            assert stored is not None and stored.moves[0] == applied[0]
    finally:
        close_app(first)
        close_app(second)


Between = Callable[[GameRecord], None]


def act_with_a_save_in_between(
    tmp_path: Path,
    between: Between,
    event: str = protocol.MOVE,
    payload: dict[str, Any] | None = None,
    moves: str = "",
) -> tuple[Any, GameRecord]:
    """Player's move "5" (or ``event`` with ``payload``) in a new game (from ``moves``) on
    one app, while another app on the same database saves the game (``between`` changes
    the record it read) after the action's read and before its save; the action's answer
    and the game as stored then."""
    database = tmp_path / "games.db"
    web, host = make_app(database), make_app(database)
    try:
        http = web.test_client()
        game = create(http, settings={"level": "easy"}, moves=moves)
        service, other = service_of(web), service_of(host)
        save = service.store.save
        done: list[bool] = []

        def save_after_the_other(record: GameRecord) -> None:
            if not done:  # once: the other process's save lands first
                done.append(True)
                stored = other.store.get(game["id"])
                assert stored is not None
                between(stored)
                other.store.save(stored)
            save(record)

        service.store.save = save_after_the_other  # type: ignore[method-assign]
        tab = Listener(socketio.test_client(web, flask_test_client=http))
        tab.emit(protocol.JOIN, {"game_id": game["id"]})
        answer = tab.emit(event, {"game_id": game["id"], **(payload or {"move": "5"})})
        assert done
        stored = other.store.get(game["id"])
        assert stored is not None
        return answer, stored
    finally:
        close_app(web)
        close_app(host)


def test_a_move_survives_another_process_saving_the_game_without_moving(tmp_path: Path) -> None:
    """A search host storing the engine's options bumps the version between a move's read
    and its save: the move is applied to the newer version, not refused as a conflict."""
    versions: list[int] = []

    def nothing_moved(record: GameRecord) -> None:
        versions.append(record.version)

    answer, stored = act_with_a_save_in_between(tmp_path, nothing_moved)
    assert answer == {"ok": True}
    assert stored.moves.startswith("5")
    assert stored.version > versions[0]


def test_a_move_racing_another_move_from_another_process_is_still_refused(
    tmp_path: Path,
) -> None:
    def another_move(record: GameRecord) -> None:  # the same seat, through the other server
        record.moves += "1"

    answer, stored = act_with_a_save_in_between(tmp_path, another_move)
    assert answer["code"] == protocol.CONFLICT, answer
    assert stored.moves.startswith("1") and "5" not in stored.moves[:1]


def test_a_move_racing_a_side_swap_from_another_process_is_refused(tmp_path: Path) -> None:
    """Settings saved in between that change whose turn it is: the move is not replayed."""

    def swap(record: GameRecord) -> None:
        record.settings = {**record.settings, "engine_plays": "first"}

    answer, stored = act_with_a_save_in_between(tmp_path, swap)
    assert answer["code"] == protocol.CONFLICT, answer
    assert stored.moves == ""


def _line_stored(record: GameRecord) -> None:
    """What a search host does after the engine's move: its line (or options) kept."""
    record.last_engine_move = {**(record.last_engine_move or {}), "line_after": True}


def test_an_undo_and_new_settings_survive_another_process_keeping_the_engines_line(
    tmp_path: Path,
) -> None:
    """An undo or a settings change right after the engine's move, while a search host
    stores its line or options: applied to the newer version, as a move is, not refused
    with "the game changed at the same moment"."""
    answer, stored = act_with_a_save_in_between(
        tmp_path / "undo", _line_stored, protocol.UNDO, {}, moves="51"
    )
    assert answer == {"ok": True}, answer
    assert stored.moves == ""  # the player's 5 and the engine's 1 taken back
    answer, stored = act_with_a_save_in_between(
        tmp_path / "settings", _line_stored, protocol.SETTINGS,
        {"settings": {"level": "medium"}}, moves="51",
    )  # fmt: skip
    assert answer == {"ok": True}, answer
    assert stored.settings["level"] == "medium" and stored.moves == "51"


def test_an_undo_racing_a_move_from_another_process_is_still_refused(tmp_path: Path) -> None:
    def another_move(record: GameRecord) -> None:  # the same seat, through the other server
        record.moves += "9"

    answer, stored = act_with_a_save_in_between(tmp_path, another_move, protocol.UNDO, {},
                                                 moves="51")  # fmt: skip
    assert answer["code"] == protocol.CONFLICT, answer
    assert stored.moves.startswith("519")
