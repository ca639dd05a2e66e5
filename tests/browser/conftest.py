"""Browser tests: the real server in a subprocess, Debian's Chromium driven by Playwright.

The server is started once per session (``python -m webapp --port P --db D``,
see ``server.py``) and killed at the end. ``LOOKAHEAD_TEST_URL=http://127.0.0.1:5000``
points the suite at a server that is already running instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright

from tests.browser.server import serve

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
#: The machine is shared and loaded: wait generously, never assert on time.
TIMEOUT_MS = 30_000

expect.set_options(timeout=TIMEOUT_MS)


@pytest.fixture(scope="session")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of a running Lookahead server (started here unless given)."""
    given = os.environ.get("LOOKAHEAD_TEST_URL")
    if given:
        yield given.rstrip("/")
        return
    with serve(tmp_path_factory.mktemp("server")) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing (scripts/test.sh installs Debian's chromium)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def context(browser: Browser, base_url: str) -> Iterator[BrowserContext]:
    ctx = browser.new_context(base_url=base_url, viewport={"width": 1280, "height": 900})
    ctx.set_default_timeout(TIMEOUT_MS)
    yield ctx
    ctx.close()


@pytest.fixture
def page(context: BrowserContext) -> Iterator[Page]:
    """A page that fails the test on any uncaught script error."""
    errors: list[str] = []
    opened = context.new_page()
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    assert not errors, f"script errors on the page: {errors}"


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


#: The two sizes a page is checked at: a desktop's 1280x800 and a phone's 390x844.
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(params=sorted(SIZES))
def sized(request: pytest.FixtureRequest, browser: Browser, base_url: str) -> Iterator[Page]:
    """A page at each of the two SIZES (the phone's with touch), failing on any script error."""
    phone = request.param == "phone"
    context = browser.new_context(
        base_url=base_url, viewport=SIZES[request.param], is_mobile=phone, has_touch=phone
    )
    context.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, f"script errors on the page: {errors}"
