"""The README and docs/: every relative link leads somewhere, and the README stays short."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: A Markdown link or image: [text](target) or ![alt](target).
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(?:    |\t)[^\n]*$|^```.*?^```", re.M | re.S)


def links(page: Path) -> list[str]:
    """The link targets of ``page``, outside code blocks."""
    return LINK.findall(FENCE.sub("", page.read_text(encoding="utf-8")))


def anchors(page: Path) -> set[str]:
    """The anchors GitHub makes of the page's headings."""
    slugs = set()
    for heading in re.findall(r"^#+ (.+)$", FENCE.sub("", page.read_text(encoding="utf-8")), re.M):
        text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
        slugs.add(text.replace(" ", "-"))
    return slugs


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in links(page):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists() or (
            anchor and linked.suffix == ".md" and anchor not in anchors(linked)
        ):
            broken.append(target)
    assert not broken, f"{page.name}: links that lead nowhere: {broken}"


def test_the_checker_sees_a_broken_link_and_a_broken_anchor(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# One title\n\n[a](missing.md) [b](#one-title) [c](#nowhere)\n")
    assert links(page) == ["missing.md", "#one-title", "#nowhere"]
    assert anchors(page) == {"one-title"}


def test_the_readme_is_at_most_150_lines() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 150, f"README.md has {lines} lines"


def test_the_docs_the_readme_promises_exist() -> None:
    linked = set(links(ROOT / "README.md"))
    for name in ("playing", "configuration", "operations", "security", "protocol", "engine"):
        assert f"docs/{name}.md" in linked
