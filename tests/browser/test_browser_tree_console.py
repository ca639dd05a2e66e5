"""Clean consoles (issue 19): /tree and /analysis walked with a bad move sequence. The links
the server refuses stay 400 pages (their one "Failed to load resource" line is expected and
listed here); the analysis board checks a typed sequence and a drawn board itself before it
asks, so a refusal it can see fires no request, and nothing uncaught reaches the console."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_browser_tree_teaching import warm  # noqa: F401 (the workers, warm)

#: The console's line for a document the server answered 400 (the only errors expected).
REFUSED = "Failed to load resource: the server responded with a status of 400 (BAD REQUEST)"
BAD_TREE = "/tree?game=connect4&moves=1111111&depth=3"
BAD_ANALYSIS = "/analysis?game=connect4&moves=1111111"


@dataclass
class Console:
    """What a page said: console errors (text, resource URL) and refused requests."""

    errors: list[tuple[str, str]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


@pytest.fixture
def console(page: Page) -> Iterator[Console]:
    said = Console()
    page.on(
        "console",
        lambda message: (
            message.type == "error"
            and said.errors.append((message.text, message.location.get("url", "")))
        ),
    )
    page.on("response", lambda answer: answer.status >= 400 and said.refused.append(answer.url))
    yield said


def path_of(url: str) -> str:
    return re.sub(r"^https?://[^/]+", "", url)


def test_bad_sequences_on_tree_and_analysis_leave_only_the_expected_errors(
    page: Page, console: Console
) -> None:
    page.goto(BAD_TREE)  # a link the server refuses: a readable 400 page
    expect(page.locator("body")).to_contain_text("column 1 is full")
    page.goto(BAD_ANALYSIS)
    expect(page.locator("body")).to_contain_text("column 1 is full")

    page.goto("/analysis?game=connect4&moves=4453")
    expect(page.locator("#ab-headline")).not_to_have_text("")
    sequence, error = page.locator("#ab-sequence"), page.locator("#ab-sequence-error")
    for typed, words in (
        ("1 1 1 1 1 1 1", "Move 7 (1): column 1 is full."),
        ("12x", "Move 3 (x): 'x' is not a column (1-7 or a-g)."),
        ("12121212", "Move 8 (2): the game is already over."),
    ):
        sequence.fill(typed)
        sequence.press("Enter")
        expect(error).to_have_text(f"{words} The board still shows the previous position.")
    page.get_by_role("button", name="Set up a position by hand").click()
    grid = page.locator("#ab-editor-grid")
    grid.get_by_role("button", name="Row 4, column 1: empty").click()  # a floating disc
    page.get_by_role("button", name="Analyse this position").click()
    expect(page.locator("#ab-editor-error")).to_have_text(
        "A disc floats in column 1: the cell under it is empty."
    )
    sequence.fill("d d e c 3")  # a good one still goes to the server, and to its position
    sequence.press("Enter")
    expect(page).to_have_url(re.compile(r"moves=44533$"))
    expect(page.locator("#ab-headline")).not_to_have_text("")

    expected = [(REFUSED, BAD_TREE), (REFUSED, BAD_ANALYSIS)]
    assert [(text, path_of(url)) for text, url in console.errors] == expected
    assert [path_of(url) for url in console.refused] == [BAD_TREE, BAD_ANALYSIS]
