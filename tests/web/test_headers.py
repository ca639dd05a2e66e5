"""Security headers on every response (webapp/web/headers.py): pages, API, static, errors."""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient

from tests.web.helpers import create


def policy_of(header: str) -> dict[str, list[str]]:
    """A Content-Security-Policy as ``{directive: [sources]}``."""
    parts = (part.split() for part in header.split(";") if part.strip())
    return {words[0]: words[1:] for words in parts}


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/", 200),
        ("/g/{id}", 200),
        ("/analysis?game=connect4", 200),
        ("/tree?game=tictactoe", 200),
        ("/api/games/{id}", 200),
        ("/api/my/games", 200),
        ("/static/js/game.js", 200),
        ("/static/css/nothing.css", 404),
        ("/no/such/page", 404),
        ("/api/games/nosuchgame", 404),
        ("/new?game=chess", 400),
    ],
)
def test_every_response_carries_the_security_headers(
    client: FlaskClient, path: str, status: int
) -> None:
    game = create(client)
    response = client.get(path.format(id=game["id"]))
    response.close()  # a static file's body is a file
    assert response.status_code == status
    headers = response.headers
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] in ("same-origin", "strict-origin-when-cross-origin")
    policy = policy_of(headers["Content-Security-Policy"])
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["script-src"] == ["'self'"]  # no 'unsafe-inline', no 'unsafe-eval'
    assert "ws://localhost" in policy["connect-src"] and "'self'" in policy["connect-src"]
    assert policy["object-src"] == ["'none'"]


def test_refusals_carry_them_too(client: FlaskClient) -> None:
    refused = client.post("/new", data={"game": "x"}, headers={"Sec-Fetch-Site": "cross-site"})
    assert refused.status_code == 403
    assert refused.headers["X-Frame-Options"] == "DENY"
    assert "Content-Security-Policy" in refused.headers


def test_a_hostile_host_header_cannot_write_the_policy(client: FlaskClient) -> None:
    response = client.get("/", headers={"Host": "x; script-src *"})
    policy = policy_of(response.headers["Content-Security-Policy"])
    assert policy["script-src"] == ["'self'"]


@pytest.mark.parametrize("path", ["/", "/g/{id}", "/analysis", "/tree?game=tictactoe"])
def test_pages_hold_no_inline_script_or_handler(client: FlaskClient, path: str) -> None:
    """The policy forbids them: an inline script would silently not run."""
    game = create(client)
    page = client.get(path.format(id=game["id"])).get_data(as_text=True)
    for tag in re.findall(r"<script\b[^>]*>", page):
        assert "src=" in tag or 'type="application/json"' in tag, tag
    assert not re.search(r"\son[a-z]+\s*=", page)
    assert "javascript:" not in page
