"""Cross-site requests change nothing (webapp/web/origin.py).

A forged form on another site used to reach POST /new without the Lax
identity cookie; its new identity's Set-Cookie overwrote the player's. Each
test here is one way such a request arrives, from a plain HTTP client.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import requests
from flask.testing import FlaskClient

from tests.web.helpers import create, make_app
from tests.web.live import live_server
from webapp import protocol
from webapp.web.app import close_app
from webapp.web.identity import COOKIE

HOST = "http://localhost"
OTHER = "http://evil.example"


def my_games(client: FlaskClient) -> list[str]:
    return [game["id"] for game in client.get("/api/my/games").get_json()]


@pytest.mark.parametrize(
    "headers",
    [
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},  # another port or subdomain is another origin
        {"Origin": OTHER},
        {"Origin": "null"},  # a sandboxed frame or a data: page
        {"Origin": "https://localhost"},  # another scheme
        {"Sec-Fetch-Site": "cross-site", "Origin": HOST},  # the browser's word wins
    ],
)
def test_a_cross_site_form_is_refused_and_changes_nothing(
    client: FlaskClient, headers: dict[str, str]
) -> None:
    game = create(client)
    before = client.get_cookie(COOKIE)
    assert before is not None
    other_browser = client.application.test_client()  # the forged POST carries no cookie
    response = other_browser.post("/new", data={"game": "tictactoe"}, headers=headers)
    assert response.status_code == 403
    assert "Set-Cookie" not in response.headers
    assert "other sites" in response.get_data(as_text=True)
    assert other_browser.get_cookie(COOKIE) is None
    assert my_games(client) == [game["id"]]
    assert client.get_cookie(COOKIE).value == before.value  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/api/games"),
        ("POST", "/api/games/{id}/new"),
        ("POST", "/api/games/{id}/rematch"),
        ("PUT", "/api/games/{id}"),
        ("DELETE", "/api/games/{id}"),
    ],
)
def test_every_state_changing_api_request_from_another_site_is_a_403(
    client: FlaskClient, method: str, path: str
) -> None:
    game = create(client)
    response = client.open(
        path.format(id=game["id"]),
        method=method,
        json={"game": "tictactoe"},
        headers={"Sec-Fetch-Site": "cross-site"},
    )
    assert response.status_code == 403
    assert response.get_json()["error"]["code"] == protocol.CROSS_SITE
    assert "Set-Cookie" not in response.headers
    assert my_games(client) == [game["id"]]


@pytest.mark.parametrize(
    "headers",
    [
        {"Sec-Fetch-Site": "same-origin"},
        {"Sec-Fetch-Site": "none"},  # typed or bookmarked
        {"Origin": HOST},
        {},  # a plain client (curl, a script): browsers always send one on a cross-site POST
    ],
)
def test_own_and_plain_requests_pass(client: FlaskClient, headers: dict[str, str]) -> None:
    response = client.post("/new", data={"game": "tictactoe"}, headers=headers)
    assert response.status_code == 303
    assert client.get_cookie(COOKIE) is not None
    assert len(my_games(client)) == 1


@pytest.mark.parametrize(
    "headers",
    [
        {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "iframe"},
        {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image"},
        {"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty"},
        {"Origin": OTHER},  # a fetch from an older browser
    ],
)
def test_a_page_fetched_by_another_site_mints_no_identity(
    client: FlaskClient, headers: dict[str, str]
) -> None:
    """A frame, an image or a fetch from another site arrives without the Lax cookie:
    a cookie set on its answer could overwrite the player's."""
    response = client.get("/", headers=headers)
    assert response.status_code == 200
    assert "Set-Cookie" not in response.headers
    assert client.get_cookie(COOKIE) is None


def test_a_link_followed_from_another_site_gets_an_identity(client: FlaskClient) -> None:
    """A top-level navigation carries the Lax cookie: a browser without one has none to lose."""
    link = {
        "Sec-Fetch-Site": "cross-site",
        "Sec-Fetch-Mode": "navigate",
        "Sec-Fetch-Dest": "document",
    }
    assert client.get("/", headers=link).status_code == 200
    assert client.get_cookie(COOKIE) is not None


def test_a_forged_post_to_a_real_server_is_refused(tmp_path: Path) -> None:
    """The same through a real server and the requests library (a cookie jar of its own)."""
    app = make_app(tmp_path / "games.db")
    try:
        with live_server(app) as url, requests.Session() as player:
            player.headers["Sec-Fetch-Site"] = "same-origin"
            made = player.post(f"{url}/new", data={"game": "tictactoe"}, timeout=30)
            assert made.status_code == 200 and "/g/" in made.url
            cookie = player.cookies.get(COOKIE)
            forged = requests.post(
                f"{url}/new",
                data={"game": "tictactoe"},
                headers={"Origin": "http://127.0.0.1:1", "Sec-Fetch-Site": "same-site"},
                allow_redirects=False,
                timeout=30,
            )
            assert forged.status_code == 403
            assert COOKIE not in forged.cookies
            assert player.cookies.get(COOKIE) == cookie
            assert len(player.get(f"{url}/api/my/games", timeout=30).json()) == 1
    finally:
        close_app(app)
