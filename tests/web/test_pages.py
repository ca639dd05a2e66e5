"""The HTML pages (webapp/pages.py): home, a game, position links, friendly errors."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from tests.web.helpers import create
from webapp import protocol
from webapp.services.seats import cookie_name


def test_home_offers_every_game(client: FlaskClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    for label in protocol.GAME_LABELS.values():
        assert label in page
    assert '"events"' in page  # the protocol config is embedded for the scripts


def test_a_game_page_shows_the_game(client: FlaskClient, app: Flask) -> None:
    game = create(client, "connect4", moves="4453")
    response = client.get(f"/g/{game['id']}")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert game["id"] in page and "4453" in page
    assert "Connect Four · Lookahead" in page  # the label from protocol.GAME_LABELS
    assert '"seat": "player"' in page
    spectator = app.test_client().get(f"/g/{game['id']}").get_data(as_text=True)
    assert '"seat": "spectator"' in spectator


def test_an_unknown_game_link_gets_a_friendly_404(client: FlaskClient) -> None:
    response = client.get("/g/not-a-real-game")
    assert response.status_code == 404
    assert "no game at this link" in response.get_data(as_text=True)


def test_an_unknown_page_gets_the_404_page(client: FlaskClient) -> None:
    response = client.get("/no/such/page")
    assert response.status_code == 404
    assert "could not find that page" in response.get_data(as_text=True)


def test_a_position_link_starts_a_game_there(client: FlaskClient) -> None:
    response = client.get("/new?game=connect4&moves=4453&engine_plays=first&level=easy")
    assert response.status_code == 302
    game_id = response.headers["Location"].rsplit("/", 1)[-1]
    assert client.get_cookie(cookie_name(game_id)) is not None
    state = client.get(f"/api/games/{game_id}").get_json()
    assert state["seat"] == "player"
    assert state["moves"].startswith("4453")
    assert state["settings"]["engine_plays"] == "first"
    assert state["settings"]["level"] == "easy"


def test_the_home_form_without_scripts_starts_a_custom_game(client: FlaskClient) -> None:
    query = "game=tictactoe&level=custom&depth=3&time=1.5&algorithm=minimax&show_analysis=true"
    response = client.get(f"/new?{query}&engine_plays=second")
    game_id = response.headers["Location"].rsplit("/", 1)[-1]
    settings = client.get(f"/api/games/{game_id}").get_json()["settings"]
    assert (settings["depth"], settings["time"], settings["algorithm"]) == (3, 1.5, "minimax")
    ignored = client.get("/new?game=tictactoe&level=easy&depth=3&time=1")  # no custom level
    game_id = ignored.headers["Location"].rsplit("/", 1)[-1]
    assert client.get(f"/api/games/{game_id}").get_json()["settings"]["depth"] is None


def test_a_bad_position_link_explains_itself(client: FlaskClient) -> None:
    for query in ("game=chess", "game=connect4&moves=48", "game=tictactoe&level=custom&depth=x"):
        response = client.get(f"/new?{query}")
        assert response.status_code == 400, query
        assert "cannot start a game" in response.get_data(as_text=True)


def test_user_text_is_escaped_not_injected(client: FlaskClient) -> None:
    response = client.get("/new?game=<script>alert(1)</script>")
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "<script>alert(1)" not in page
    assert "&lt;script&gt;" in page
