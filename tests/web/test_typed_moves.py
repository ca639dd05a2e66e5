"""Typed move sequences and drawn positions through the web: ``/analysis``, ``/new``,
``GET /api/analysis`` and ``GET /api/position`` (webapp/services/positions.py over
webapp/games/notation.py)."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.web.test_pages import form_fields, game_id_of, games_stored
from webapp import protocol

TYPED = ["4453", "4 4 5 3", "ddec", "D,d,e,c"]


@pytest.mark.parametrize("typed", TYPED)
def test_the_pages_take_typed_sequences_as_their_normal_form(
    client: FlaskClient, app: Flask, typed: str
) -> None:
    analysis = client.get(f"/analysis?game=connect4&moves={quote(typed)}")
    assert analysis.status_code == 200
    assert '"moves": "4453"' in analysis.get_data(as_text=True)
    link = client.get(f"/new?game=connect4&moves={quote(typed)}&engine_plays=first")
    assert link.status_code == 200
    assert form_fields(link.get_data(as_text=True))["moves"] == "4453"
    created = client.post("/new", data={"game": "connect4", "moves": typed, "level": "easy"})
    assert created.status_code == 303
    state = client.get(f"/api/games/{game_id_of(created.headers['Location'])}").get_json()
    assert state["moves"].startswith("4453")


def test_the_analysis_api_answers_for_the_normal_form(client: FlaskClient) -> None:
    for typed in TYPED:
        response = client.get(f"/api/analysis?game=connect4&moves={quote(typed)}")
        assert response.status_code in (200, 202), response.get_json()
        assert response.get_json()["moves"] == "4453"


@pytest.mark.parametrize(
    ("query", "message"),
    [
        (
            "game=connect4&moves=1111111",
            "Bad starting position: move 7 of '1111111': move '1': column 1 is full",
        ),
        (
            "game=connect4&moves=a%20a%20a%20a%20a%20a%20a",
            "Bad starting position: move 7 of 'a a a a a a a': move 'a': column 1 is full",
        ),
        (
            "game=tictactoe&moves=1%201",
            "Bad starting position: move 2 of '1 1': move '1': cell 1 is taken",
        ),
        (
            "game=connect4&moves=12121213",
            "Bad starting position: move 8 of '12121213': move '3': the game is already over",
        ),
        (
            "game=connect4&moves=44x",
            "Bad starting position: move 3 of '44x': move 'x' is not a column (1-7 or a-g)",
        ),
    ],
)
def test_an_illegal_sequence_is_a_400_naming_the_move_and_why(
    client: FlaskClient, app: Flask, query: str, message: str
) -> None:
    response = client.get(f"/api/analysis?{query}")
    assert response.status_code == 400
    assert response.get_json()["error"] == {"code": protocol.ILLEGAL_MOVE, "message": message}
    page = client.get(f"/analysis?{query}")
    assert page.status_code == 400
    assert "cannot all be played: at move" in page.get_data(as_text=True)
    fields = dict(pair.split("=") for pair in query.replace("%20", " ").split("&"))
    assert client.post("/new", data=fields).status_code == 400
    assert games_stored(app) == 0


@pytest.mark.parametrize(
    ("query", "moves"),
    [
        ("game=connect4&moves=d%20d%20e%20c", "4453"),
        ("game=tictactoe&moves=5,1,9", "519"),
        ("game=tictactoe&board=....x.o..&to_move=0", "57"),
        ("game=connect4&board=" + "." * 35 + "...xo..&to_move=0", "45"),
    ],
)
def test_the_position_api_gives_the_move_string(
    client: FlaskClient, query: str, moves: str
) -> None:
    response = client.get(f"/api/position?{query}")
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["moves"] == moves


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("game=connect4&moves=1111111", "Move 7 (1): column 1 is full."),
        ("game=tictactoe&moves=5z", "Move 2 (z): 'z' is not a cell (1-9)."),
        (
            "game=connect4&board=" + "." * 34 + "x" + "." * 7 + "&to_move=1",
            "A disc floats in column 7: the cell under it is empty.",
        ),
        ("game=tictactoe&board=x........&to_move=0", "With 1 X and 0 O, O is to move, not X."),
        ("game=tictactoe&board=x........", "A drawn board needs its cells and to_move 0 or 1."),
        (
            "game=chess&moves=1",
            "Unknown game 'chess': choose tictactoe (Tic-tac-toe) or connect4 (Connect Four).",
        ),
    ],
)
def test_the_position_api_refuses_with_one_sentence(
    client: FlaskClient, query: str, message: str
) -> None:
    response = client.get(f"/api/position?{query}")
    assert response.status_code == 400
    assert response.get_json()["error"]["message"] == message
