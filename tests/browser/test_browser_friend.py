"""Play a friend: two browsers and a spectator. Create from the home page, share the
invite, take the seat, play a whole Connect Four game to a result, review it, rematch
(colours swapped, both accept); a 5 s clock that runs out."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.game_page import KEEP_SOCKET, GamePage

#: The creator (red, first) wins with four in column 1; the friend answers in column 2.
WIN_IN_COLUMN_1 = ["1", "2", "1", "2", "1", "2", "1"]


@pytest.fixture
def contexts(browser: Browser, base_url: str) -> Iterator[list[BrowserContext]]:
    """Three more browsers (each its own cookies): the friend, a spectator, a phone."""
    made = [browser.new_context(base_url=base_url) for _ in range(2)]
    made.append(
        browser.new_context(
            base_url=base_url, viewport={"width": 390, "height": 844}, is_mobile=True
        )
    )
    yield made
    for context in made:
        context.close()


def watch_errors(*pages: Page) -> list[str]:
    """Every uncaught script error on ``pages`` (the ``page`` fixture watches its own)."""
    errors: list[str] = []
    for page in pages:
        page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def create_from_home(page: Page) -> str:
    """The home page's "Play a friend" (Connect Four, I start, no clock): the invite link."""
    page.goto("/")
    page.locator('.game-card[data-game="connect4"]').click()
    page.locator("#friend-starts").select_option("me")
    page.locator("#friend-clock").select_option("")
    page.get_by_role("button", name="Play a friend").click()
    return invite_link(page)


def invite_link(page: Page) -> str:
    """On the creator's new game page: the invite to share."""
    page.wait_for_url(re.compile(r"/g/[^/?]+$"))
    invite = page.locator("#invite-url")
    expect(invite).to_be_visible()
    expect(page.locator("#turn")).to_contain_text("Waiting for your friend")
    link = invite.input_value()
    assert "?invite=" in link
    return link


def take_the_seat(
    page: Page, link: str, screenshot: Path | None = None, invited_as: str | None = None
) -> None:
    """Open the invite and take the seat; ``invited_as``: what the invitee reads first."""
    page.goto(link)
    if invited_as is not None:
        expect(page.locator('[data-friend="take-text"]')).to_have_text(invited_as)
    if screenshot is not None:
        expect(page.get_by_role("button", name="Take the seat")).to_be_visible()
        page.screenshot(path=str(screenshot))
    page.get_by_role("button", name="Take the seat").click()
    page.wait_for_url(re.compile(r"/g/[^/?]+$"))
    expect(page.locator("#turn")).to_contain_text("to move")


def test_two_friends_play_a_whole_game_review_it_and_rematch(
    page: Page, contexts: list[BrowserContext], screenshots: Path
) -> None:
    creator = GamePage(page)
    friend_page, spectator_page = contexts[0].new_page(), contexts[1].new_page()
    errors = watch_errors(friend_page, spectator_page)
    friend, spectator = GamePage(friend_page), GamePage(spectator_page)

    link = create_from_home(page)
    page.screenshot(path=str(screenshots / "friend-invite-1280.png"))
    no_invite = spectator_page.locator('[data-friend="no-invite"]')
    spectator_page.goto(link.split("?")[0])  # the game's own link, not the invite
    expect(no_invite).to_contain_text("only the invite link takes it")
    expect(spectator_page.get_by_role("button", name="Take the seat")).to_be_hidden()
    expect(page.locator('[data-friend="no-invite"]')).to_be_hidden()  # the creator's own
    invited_as = "You are invited to play Yellow. Red moves first: your friend starts."
    take_the_seat(friend_page, link, invited_as=invited_as)
    expect(page.locator("#invite-url")).to_be_hidden()  # the seat is taken
    expect(no_invite).to_be_hidden()  # the seat is taken: nothing to ask for
    watching = spectator_page.locator('[data-friend="watching"]')
    expect(watching).to_have_text(
        "You are watching a game between two people: both seats are taken."
    )
    expect(page.locator('[data-friend="watching"]')).to_be_hidden()  # a player's own page
    expect(friend_page.locator('[data-friend="watching"]')).to_be_hidden()
    spectator_page.goto(link)  # the invite is a spectator's link now
    expect(spectator_page.get_by_role("button", name="Take the seat")).to_be_hidden()
    expect(no_invite).to_be_hidden()
    # A third person with the invite, once used, was shown a bare board (a new user's try).
    expect(watching).to_have_text(
        "This invite has been used: both seats are taken, and you are watching."
    )
    expect(spectator_page.locator("#turn")).to_contain_text("Red to move")
    # Who plays which side, as in a game against the engine ("X X" in tic-tac-toe, where
    # the token is the mark, when the name was the side's).
    expect(spectator_page.locator(".player-name")).to_have_text(["Player", "Player"])
    expect(spectator_page.locator(".player-colour")).to_have_text(["Red", "Yellow"])

    # Fair play: no engine analysis for anyone while it is played.
    for viewer in (page, friend_page, spectator_page):
        expect(viewer.locator("#analysis")).to_be_hidden()
        expect(viewer.locator("#eval-bar")).to_be_hidden()

    for ply, column in enumerate(WIN_IN_COLUMN_1):
        mover = creator if ply % 2 == 0 else friend
        mover.click(column)
        for viewer in (creator, friend, spectator):
            viewer.wait_for_moves(ply + 1)
        if ply == 2:
            friend_page.screenshot(path=str(screenshots / "friend-playing-1280.png"))
    expect(page.locator("#turn")).to_contain_text("You won")
    expect(friend_page.locator("#turn")).to_contain_text("Your friend won")
    page.screenshot(path=str(screenshots / "friend-over-1280.png"))
    expect(spectator_page.locator("#turn")).to_contain_text("Red won")

    # After the game: the exact review, for everyone.
    for viewer in (page, friend_page):
        expect(viewer.locator("#analysis")).to_be_visible()
        expect(viewer.locator("#analysis-title")).to_have_text("Engine analysis")  # one "Review"
        expect(viewer.locator("#analysis")).not_to_contain_text("engine\u2019s last")
        expect(viewer.locator("#analysis")).not_to_contain_text("starts thinking")
    # Its sides are you and your friend, or the sides for a spectator: no engine played.
    sides = {
        page: ["Red (you)", "Yellow (your friend)"],
        friend_page: ["Red (your friend)", "Yellow (you)"],
        spectator_page: ["Red", "Yellow"],
    }
    for viewer, names in sides.items():
        summary = viewer.locator("#review-summary")
        expect(summary.locator(".review-counts thead th.num")).to_have_text(names)
        expect(summary.locator(".review-result")).to_have_text(f"{names[0]} won.")
        expect(viewer.locator("#review")).not_to_contain_text("engine")
    # On a phone, the counts with the longest names fit their card and the screen.
    desktop = friend_page.viewport_size
    assert desktop is not None
    friend_page.set_viewport_size({"width": 390, "height": 844})
    counts = friend_page.locator("#review-summary .review-counts")
    fits = "(t) => t.getBoundingClientRect().width <= t.parentElement.clientWidth"
    widths = "(t) => [t.getBoundingClientRect().width, t.parentElement.clientWidth]"
    assert counts.evaluate(fits), counts.evaluate(widths)
    assert friend_page.evaluate("document.documentElement.scrollWidth") <= 390
    friend_page.set_viewport_size(desktop)
    review = friend_page.request.get(page.url.replace("/g/", "/api/games/") + "/review")
    assert review.ok, review.text()
    assert [entry["move"] for entry in review.json()] == WIN_IN_COLUMN_1

    # Rematch: offered by the friend, shown to the creator, accepted: colours swapped.
    friend_page.get_by_role("button", name="Rematch, swap colours").click()
    offer = page.locator(".friend-offer")
    expect(offer).to_contain_text("Your friend offers a rematch")
    old_url = page.url
    offer.get_by_role("button", name="Accept").click()
    for viewer in (page, friend_page):
        viewer.wait_for_url(lambda url: url != old_url and "/g/" in url)
    assert page.url == friend_page.url
    expect(friend_page.locator("#turn")).to_contain_text("Your move (Red)")
    expect(page.locator("#turn")).to_contain_text("Your friend (Red) to move")
    friend.click("4")  # the friend moves first now
    creator.wait_for_moves(1)

    # And back: the friend resigns, the creator asks this time, the friend accepts.
    creator.wait_for_my_turn()
    friend_page.once("dialog", lambda dialog: dialog.accept())  # "Resign this game?"
    friend_page.get_by_role("button", name="Resign").click()
    expect(page.locator("#turn")).to_contain_text("You won by resignation")
    second_url = page.url
    page.get_by_role("button", name="Rematch, swap colours").click()
    friend_page.locator(".friend-offer").get_by_role("button", name="Accept").click()
    for viewer in (page, friend_page):
        viewer.wait_for_url(lambda url: url != second_url and url != old_url and "/g/" in url)
    expect(page.locator("#turn")).to_contain_text("Your move (Red)")  # the creator starts again

    # Both find the three games among their recent games, each from their own side.
    for viewer, result in ((page, "you won"), (friend_page, "you lost")):
        viewer.goto("/")
        items = viewer.locator("#recent-games li")
        expect(items).to_have_count(3)  # in any order: the store's times are whole seconds
        expect(items.filter(has_text="in progress")).to_have_count(1)
        expect(items.filter(has_text=result)).to_have_count(2)
    assert not errors, errors


def test_a_five_second_clock_runs_out(
    page: Page, contexts: list[BrowserContext], screenshots: Path
) -> None:
    phone_page = contexts[2].new_page()
    errors = watch_errors(phone_page)
    # A 5 s clock is no choice on the home page: the same POST its button sends.
    page.goto("/")
    body = {"game": "connect4", "opponent": "friend", "settings": {"clock": {"initial": 5}}}
    created = page.request.post("/api/games", data=body)
    assert created.status == 201, created.text()
    page.goto(created.json()["url"])
    link = invite_link(page)
    take_the_seat(phone_page, link, screenshots / "friend-take-seat-390.png")
    expect(page.locator(".clock-p0 .clock-time")).to_have_text("0:05.0")
    GamePage(page).click("4")  # the friend's time runs now
    GamePage(phone_page).wait_for_moves(1)
    expect(phone_page.locator(".clock-p1")).to_have_class(re.compile("is-running"))
    # at 390 px each clock's name reads whole beside its time: nothing clipped or spilling
    names = phone_page.locator(".clock-name")
    expect(names).to_have_text(["Your friend", "You"])
    fits = "e => e.scrollWidth <= e.clientWidth"
    for clock in (*names.all(), *phone_page.locator(".clock").all()):
        assert clock.evaluate(fits), clock.evaluate("e => [e.scrollWidth, e.clientWidth]")
    phone_page.screenshot(path=str(screenshots / "friend-clock-390.png"), full_page=True)
    expect(page.locator("#turn")).to_contain_text("You won on time", timeout=30_000)
    expect(phone_page.locator("#turn")).to_contain_text("Your friend won on time")
    expect(phone_page.locator(".clock-p1 .clock-time")).to_have_text("0:00.0")
    assert not errors, errors


def test_spectators_see_the_analysis_only_when_the_creator_allowed_it(
    page: Page, contexts: list[BrowserContext]
) -> None:
    watcher = contexts[1].new_page()
    errors = watch_errors(watcher)
    page.goto("/")
    for allowed in (True, False):
        settings = {"spectator_analysis": allowed}
        body = {"game": "connect4", "opponent": "friend", "settings": settings}
        created = page.request.post("/api/games", data=body)
        assert created.status == 201, created.text()
        url = created.json()["url"]
        page.goto(url)
        watcher.goto(url)
        expect(watcher.locator("#turn")).to_contain_text("Waiting for the second player")
        expect(page.locator("#analysis")).to_be_hidden()  # never for a player
        if allowed:
            expect(watcher.locator("#analysis")).to_be_visible()
            title = watcher.locator("#analysis-title")
            expect(title).to_have_text("Engine analysis for spectators")
            # worded for two people: no engine moved, so nothing of "the engine's last move"
            expect(watcher.locator("#analysis-empty")).to_have_text(
                re.compile(r"^No engine plays in this game between two people")
            )
            expect(watcher.locator("#same-depth")).to_have_count(0)
            expect(watcher.locator("#analysis")).not_to_contain_text("engine\u2019s last")
        else:
            expect(watcher.locator("#analysis")).to_be_hidden()
    assert not errors, errors


def create_by_api(page: Page, game: str, **settings: object) -> str:
    """A game between two people made with the home page's POST: its creator's page URL."""
    page.goto("/")
    body = {"game": game, "opponent": "friend", "settings": {"starts": "me", **settings}}
    created = page.request.post("/api/games", data=body)
    assert created.status == 201, created.text()
    url: str = created.json()["url"]
    return url


def resigned_game(page: Page, friend_page: Page) -> str:
    """A tic-tac-toe game between ``page`` (its creator) and ``friend_page``, one move in,
    the creator resigned: its URL."""
    page.goto(create_by_api(page, "tictactoe"))
    take_the_seat(friend_page, invite_link(page))
    GamePage(page).click("5")
    GamePage(friend_page).wait_for_moves(1)
    page.once("dialog", lambda dialog: dialog.accept())  # "Resign this game?"
    page.get_by_role("button", name="Resign").click()
    expect(page.locator("#turn")).to_contain_text("Your friend won by resignation")
    return page.url


def test_back_from_a_rematch_finds_the_finished_game_to_review(
    page: Page, contexts: list[BrowserContext]
) -> None:
    friend_page = contexts[0].new_page()
    errors = watch_errors(friend_page)
    finished = resigned_game(page, friend_page)
    friend_page.get_by_role("button", name="Rematch, swap colours").click()
    page.locator(".friend-offer").get_by_role("button", name="Accept").click()
    for viewer in (page, friend_page):
        viewer.wait_for_url(lambda url: url != finished and "/g/" in url)
    rematch = page.url

    # Back: the finished game, to review, with a link on to the rematch (made before this load).
    with page.expect_websocket() as opened:
        page.go_back()
    # The state the page joins with names the rematch: once it has come, the page is still here.
    opened.value.expect_event("framereceived", lambda frame: "next_url" in str(frame))
    expect(page.locator("#turn")).to_contain_text("Your friend won by resignation")
    assert page.url == finished
    next_link = page.locator('[data-friend="next-link"]')
    expect(next_link).to_have_attribute("href", "/g/" + rematch.split("/g/")[1])
    next_link.click()
    page.wait_for_url(rematch)
    assert not errors, errors


def test_a_player_whose_connection_dropped_as_the_rematch_was_agreed_goes_on_to_it(
    page: Page, contexts: list[BrowserContext]
) -> None:
    """The page stayed open (it offered the rematch): the state it reconnects with names
    the rematch its friend accepted meanwhile, and it goes on, as its friend's did. (A
    page loaded or brought Back with that state stays: the test above.)"""
    page.add_init_script(KEEP_SOCKET)
    friend_page = contexts[0].new_page()
    errors = watch_errors(friend_page)
    finished = resigned_game(page, friend_page)
    page.get_by_role("button", name="Rematch, swap colours").click()
    accept = friend_page.locator(".friend-offer").get_by_role("button", name="Accept")
    expect(accept).to_be_visible()
    page.evaluate("window.__socket.disconnect()")
    accept.click()
    friend_page.wait_for_url(lambda url: url != finished and "/g/" in url)
    assert page.url == finished  # nothing reached it while its connection was down
    page.evaluate("window.__socket.connect()")
    page.wait_for_url(friend_page.url)
    expect(page.locator("#turn")).to_contain_text("to move")
    assert not errors, errors


def test_the_clocks_stop_dimmed_while_the_pages_connection_is_down(
    page: Page, contexts: list[BrowserContext]
) -> None:
    """Run down to a red 0:00.0 under "Reconnecting…", the friend's clock read like a loss
    on time that never happened (QA: the server was down, and gave the time back)."""
    page.add_init_script(KEEP_SOCKET)
    friend_page = contexts[0].new_page()
    page.goto(create_by_api(page, "tictactoe", clock={"initial": 60, "increment": 0}))
    take_the_seat(friend_page, invite_link(page))
    GamePage(page).click("5")  # the friend's time runs
    clocks = page.locator('[data-friend="clocks"]')
    running = page.locator('[data-friend="clock-1"] .clock-time')
    expect(page.locator('[data-friend="clock-1"]')).to_have_class(re.compile(r"\bis-running\b"))
    page.evaluate("window.__socket.disconnect()")
    expect(clocks).to_have_class(re.compile(r"\bis-stale\b"))
    frozen = running.inner_text()
    page.wait_for_timeout(1500)  # a clock that ran would have moved by now
    expect(running).to_have_text(frozen)
    page.evaluate("window.__socket.connect()")
    expect(clocks).not_to_have_class(re.compile(r"\bis-stale\b"))
    expect(running).not_to_have_text(frozen)  # live again, from the server's time


def test_a_game_called_off_invites_nobody_and_evaluates_nothing(
    page: Page, contexts: list[BrowserContext], screenshots: Path
) -> None:
    phone_page = contexts[2].new_page()
    errors = watch_errors(phone_page)
    page.goto(create_by_api(page, "tictactoe"))
    link = invite_link(page)
    phone_page.goto(link)  # the invitee has not taken the seat yet
    expect(phone_page.get_by_role("button", name="Take the seat")).to_be_visible()
    page.get_by_role("button", name="Call it off").click()
    for viewer in (page, phone_page):
        expect(viewer.locator("#turn")).to_have_text("Game aborted")
    page.screenshot(path=str(screenshots / "friend-called-off-1280.png"))
    phone_page.screenshot(path=str(screenshots / "friend-called-off-390.png"), full_page=True)
    for reload in (False, True):
        if reload:
            page.reload()
            phone_page.reload()
        for viewer in (page, phone_page):
            expect(viewer.locator("#turn")).to_have_text("Game aborted")
            expect(viewer.locator('[data-friend="invite"]')).to_be_hidden()
            expect(viewer.get_by_role("button", name="Take the seat")).to_be_hidden()
            # no move was played: nothing to evaluate, so no "Evaluating…" waiting for good
            expect(viewer.locator("#eval-summary")).to_be_hidden()
            expect(viewer.locator("#eval-bar")).to_be_hidden()
    assert not errors, errors


def test_a_spectator_is_offered_no_keys_to_play(
    page: Page, contexts: list[BrowserContext], screenshots: Path
) -> None:
    friend_page, watcher = contexts[0].new_page(), contexts[1].new_page()
    errors = watch_errors(friend_page, watcher)
    url = create_by_api(page, "connect4")
    page.goto(url)
    take_the_seat(friend_page, invite_link(page))
    engine_game = page.request.post("/api/games", data={"game": "tictactoe"})
    assert engine_game.status == 201, engine_game.text()
    for game_url, players in ((url, (page, friend_page)), (engine_game.json()["url"], (page,))):
        watcher.goto(game_url)
        for player in players:
            player.goto(game_url)
            expect(player.locator(".keys-hint")).to_contain_text("play ·", use_inner_text=True)
        hint = watcher.locator(".keys-hint")  # as read: a hidden part says nothing
        expect(hint).to_contain_text("step through the moves", use_inner_text=True)
        expect(hint).not_to_contain_text("play", use_inner_text=True)
    watcher.screenshot(path=str(screenshots / "spectator-keys-1280.png"))
    assert not errors, errors
