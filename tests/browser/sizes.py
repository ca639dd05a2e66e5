"""The two sizes the layout is held to (issue 19): a desktop at 1280x800 and a phone at
390x844, pages opened at them, and whether an element lies within the window."""

from __future__ import annotations

from playwright.sync_api import Browser, BrowserContext, Locator, Page

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


def sized_context(browser: Browser, base_url: str, size: str) -> BrowserContext:
    """A fresh context (its own identity) at ``size``; a phone has touch."""
    width, height = SIZES[size]
    phone = size == "phone"
    return browser.new_context(
        base_url=base_url,
        viewport={"width": width, "height": height},
        is_mobile=phone,
        has_touch=phone,
    )


def watched_page(context: BrowserContext, errors: list[str]) -> Page:
    """A page of ``context`` whose script errors are appended to ``errors``."""
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page


def in_viewport(page: Page, locator: Locator) -> bool:
    """True when the whole of ``locator`` lies within the visible part of the page
    (to the pixel: a box scrolled to the bottom edge may end half a pixel past it)."""
    box = locator.bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None
    return (
        box["y"] >= -1
        and box["y"] + box["height"] <= size["height"] + 1
        and box["x"] >= -1
        and box["x"] + box["width"] <= size["width"] + 1
    )
