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


#: A path into the repository named in backticks: `webapp/web/app.py`, `tests/scale/`.
NAMED_PATH = re.compile(r"`((?:webapp|tests|scripts|static|templates|deploy|docs)/[\w./-]*)`")


def named_paths(text: str) -> list[str]:
    return NAMED_PATH.findall(text)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_path_a_page_names_exists(page: Path) -> None:
    missing = [
        path
        for path in named_paths(page.read_text(encoding="utf-8"))
        if not any(ROOT.glob(path.rstrip("/")))  # a glob: `tests/js/*.test.js`
    ]
    assert not missing, f"{page.name} names paths that do not exist: {missing}"


def test_named_paths_are_read_from_backticks() -> None:
    text = "`webapp/web/app.py` and `tests/scale/`, not webapp/x.py or `python -m webapp`"
    assert named_paths(text) == ["webapp/web/app.py", "tests/scale/"]


def test_every_setting_is_documented_and_every_documented_one_exists() -> None:
    from webapp.web.config import DEFAULTS

    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `([A-Z][A-Z0-9_]+)` \|", text, re.M))
    assert sorted(set(DEFAULTS) - documented) == [], "settings missing from the docs"
    assert sorted(documented - set(DEFAULTS)) == [], "documented settings that do not exist"
