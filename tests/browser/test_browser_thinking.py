"""The engine panel tells a long search under way, between its depths.

Perfect minimax opening tic-tac-toe searches depth 9 in one pass: seconds with no depth
complete. The thinking line says the depth under way and its nodes so far (``searching``
events), never more than the move's own count. The server's search processes pulse at
every look at the budget (``PULSING``) instead of twice a second, so the page hears
pulses whatever the machine's speed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.conftest import TIMEOUT_MS
from tests.browser.game_page import GamePage
from tests.browser.server import serve
from tests.browser.sizes import sized_context, watched_page
from tests.web.fake_searches import PULSING

UNDER_WAY = re.compile(r"^Engine is thinking… depth 9: ([\d,]+) nodes$")


@pytest.fixture
def pulsing_url(tmp_path: Path) -> Iterator[str]:
    with serve(tmp_path, "--set", f'SEARCH_FUNCTION="{PULSING}"') as url:
        yield url


def test_a_long_depth_shows_its_nodes_so_far_while_the_engine_thinks(
    browser: Browser, pulsing_url: str
) -> None:
    context = sized_context(browser, pulsing_url, "desktop")
    context.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page = watched_page(context, errors)
    try:
        ui = GamePage(page)
        ui.open_new("game=tictactoe&level=perfect&algorithm=minimax&engine_plays=first")
        thinking = page.locator("#thinking-text")
        expect(thinking).to_have_text(UNDER_WAY)
        seen = UNDER_WAY.match(thinking.inner_text())
        assert seen is not None
        so_far = int(seen.group(1).replace(",", ""))
        ui.wait_for_moves(1)
        expect(page.locator("#thinking")).to_be_hidden()
        # The move's own count: the whole minimax tree, no fewer than any pulse told.
        expect(page.locator("#stats .stat-nodes")).to_have_attribute("data-nodes", "549946")
        assert 0 < so_far <= ui.engine_nodes()
    finally:
        context.close()
    assert not errors, f"script errors on the page: {errors}"
