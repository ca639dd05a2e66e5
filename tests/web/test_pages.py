"""The HTML pages (webapp/web/pages.py): home, a game, position links, friendly errors."""

from __future__ import annotations

import html
import re
import sqlite3

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.web.helpers import create
from webapp import protocol
from webapp.web.identity import COOKIE


def games_stored(app: Flask) -> int:
    """Every game in the database, whatever its status."""
    with sqlite3.connect(app.config["DATABASE"]) as db:
        count: int = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    return count


def form_fields(page: str) -> dict[str, str]:
    """The hidden fields of the position page's "Play from here" form."""
    form = re.search(r'<form[^>]*id="play-from-here"[^>]*>(.*?)</form>', page, re.S)
    assert form is not None
    assert 'method="post"' in form.group(0) and 'action="/new"' in form.group(0)
    pairs = re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', form.group(1))
    return {name: html.unescape(value) for name, value in pairs}


def game_id_of(location: str) -> str:
    assert location.startswith("/g/"), location
    return location.rsplit("/", 1)[-1]


def test_home_offers_every_game(client: FlaskClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    for label in protocol.GAME_LABELS.values():
        assert label in page
    assert '"events"' in page  # the protocol config is embedded for the scripts
    assert 'action="/new" method="post"' in page  # the form works without scripts, by POST


def test_a_page_view_gives_the_identity_cookie(client: FlaskClient) -> None:
    cookie = client.get("/").headers["Set-Cookie"]
    assert cookie.startswith(COOKIE + "=")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/" in cookie
    assert "Secure" not in cookie
    assert "Set-Cookie" not in client.get("/").headers  # given once, then kept
    https = client.application.test_client().get("/", base_url="https://localhost")
    assert "Secure" in https.headers["Set-Cookie"]


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


def title_of(page: str) -> str:
    found = re.search(r"<title>(.*?)</title>", page, re.S)
    assert found is not None
    return html.unescape(found.group(1).strip())


def test_an_unknown_game_link_gets_a_friendly_404(client: FlaskClient) -> None:
    response = client.get("/g/not-a-real-game")
    assert response.status_code == 404
    page = response.get_data(as_text=True)
    assert "no game at this link" in page
    assert title_of(page) == "Not found · Lookahead"
    assert "Nothing to play here" in page and "Games live at their link" in page


def test_an_unknown_page_gets_the_404_page(client: FlaskClient) -> None:
    response = client.get("/no/such/page")
    assert response.status_code == 404
    page = response.get_data(as_text=True)
    assert "could not find that page" in page and "No such page" in page
    assert title_of(page) == "Not found · Lookahead"
    assert "Games live at their link" not in page  # not a game's link: no word of games


def test_a_position_link_shows_the_position_and_creates_nothing(
    client: FlaskClient, app: Flask
) -> None:
    query = "game=connect4&moves=4453&engine_plays=first&level=easy"
    response = client.get(f"/new?{query}")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert "Play from here" in page and "4453" in page and "Red to move" in page
    assert form_fields(page) == {
        "game": "connect4", "moves": "4453", "engine_plays": "first", "level": "easy",
        "show_analysis": "true",
    }  # fmt: skip
    assert games_stored(app) == 0


def test_its_button_starts_the_game_there(client: FlaskClient, app: Flask) -> None:
    page = client.get("/new?game=connect4&moves=4453&engine_plays=first&level=easy")
    response = client.post("/new", data=form_fields(page.get_data(as_text=True)))
    assert response.status_code == 303
    state = client.get(f"/api/games/{game_id_of(response.headers['Location'])}").get_json()
    assert state["seat"] == "player"
    assert state["moves"].startswith("4453")
    assert state["settings"]["engine_plays"] == "first"
    assert state["settings"]["level"] == "easy"
    assert games_stored(app) == 1


def test_prefetchers_and_images_change_nothing(client: FlaskClient, app: Flask) -> None:
    links = [
        "/new?game=connect4&moves=4453&engine_plays=first&level=perfect",
        "/new?game=tictactoe&engine_plays=first",
        "/new?game=tictactoe",
    ]
    for link in links * 20:  # a link preview, an <img src>, a crawler: all GETs
        assert client.get(link, headers={"Purpose": "prefetch"}).status_code == 200
        assert app.test_client().get(link).status_code == 200
    assert games_stored(app) == 0
    assert app.test_client().post("/new", data={"game": "tictactoe"}).status_code == 303
    assert games_stored(app) == 1


def test_the_home_form_without_scripts_starts_a_custom_game(client: FlaskClient) -> None:
    form = {
        "game": "tictactoe", "level": "custom", "depth": "3", "time": "1.5",
        "algorithm": "minimax", "show_analysis": "true", "engine_plays": "second",
    }  # fmt: skip
    response = client.post("/new", data=form)
    game_id = game_id_of(response.headers["Location"])
    settings = client.get(f"/api/games/{game_id}").get_json()["settings"]
    assert (settings["depth"], settings["time"], settings["algorithm"]) == (3, 1.5, "minimax")
    ignored = client.post("/new", data={**form, "level": "easy"})  # no custom level
    game_id = game_id_of(ignored.headers["Location"])
    assert client.get(f"/api/games/{game_id}").get_json()["settings"]["depth"] is None


@pytest.mark.parametrize(
    "query", ["game=chess", "game=connect4&moves=48", "game=tictactoe&level=custom&depth=x", ""]
)
def test_a_bad_position_link_explains_itself(client: FlaskClient, app: Flask, query: str) -> None:
    response = client.get(f"/new?{query}")
    assert response.status_code == 400, query
    page = response.get_data(as_text=True)
    assert "cannot start a game" in page
    assert title_of(page) == "Link not valid · Lookahead"
    assert "This link does not describe a position" in page
    assert "Nothing to play here" not in page and "Games live at their link" not in page
    fields = dict(pair.split("=") for pair in query.split("&") if pair)
    posted = client.post("/new", data=fields)
    assert posted.status_code == 400
    form_page = posted.get_data(as_text=True)
    assert "cannot start a game" in form_page
    assert title_of(form_page) == "Game not started · Lookahead"
    assert "These settings do not start a game" in form_page
    assert games_stored(app) == 0


@pytest.mark.parametrize(
    ("link", "reason"),
    [
        (
            "/analysis?game=connect4&moves=99999",
            "The moves in this link (99999) cannot all be played: at move 1, 9 is not a column",
        ),
        (
            "/tree?game=connect4&moves=1111111",
            "The moves in this link (1111111) cannot all be played: at move 7, column 1 is full.",
        ),
        (
            "/new?game=tictactoe&moves=11",
            "The moves in this link (11) cannot all be played: at move 2, cell 1 is taken.",
        ),
        ("/new?game=chess", "Unknown game &#39;chess&#39;"),
    ],
)
def test_a_bad_link_says_it_is_not_valid_and_why(
    client: FlaskClient, link: str, reason: str
) -> None:
    """A 400 is a link that describes no position, never a page "not found"."""
    response = client.get(link)
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert title_of(page) == "Link not valid · Lookahead"
    described = "a search tree" if link.startswith("/tree") else "a position"
    assert f"This link does not describe {described}" in page
    assert reason in page
    assert "Not found" not in page and "Nothing to play here" not in page


def test_user_text_is_escaped_not_injected(client: FlaskClient) -> None:
    response = client.get("/new?game=<script>alert(1)</script>")
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "<script>alert(1)" not in page
    assert "&lt;script&gt;" in page


def test_the_learn_page_is_a_games_and_creates_nothing(client: FlaskClient, app: Flask) -> None:
    created = client.post("/new", data={"game": "tictactoe", "moves": "1", "level": "easy"})
    game_id = game_id_of(created.headers["Location"])
    page = client.get(f"/learn/{game_id}")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert title_of(text) == "Learn from your mistakes · Tic-tac-toe · Lookahead"
    assert f'href="/g/{game_id}"' in text
    assert games_stored(app) == 1
    missing = client.get("/learn/nosuchgame")
    assert missing.status_code == 404
    assert "There is no game at this link" in missing.get_data(as_text=True)


def test_a_finished_position_offers_its_analysis_not_a_game(
    client: FlaskClient, app: Flask
) -> None:
    """X has won: "Play from here" would make a finished game the user never played."""
    response = client.get("/new?game=tictactoe&moves=1234567")
    page = response.get_data(as_text=True)
    assert response.status_code == 200 and "X has won" in page
    assert "Play from here" not in page and 'action="/new"' not in page
    assert 'href="/analysis?game=tictactoe&amp;moves=1234567"' in page
    refused = client.post("/new", data={"game": "tictactoe", "moves": "1234567"})
    assert refused.status_code == 409  # game_over, as a move in a finished game
    assert "that game is over: there is nothing to play." in refused.get_data(as_text=True)
    assert games_stored(app) == 0
