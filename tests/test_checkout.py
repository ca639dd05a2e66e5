"""The checkout itself: no file keeps a merge's conflict markers.

A marker in a template or a stylesheet breaks a page without breaking an import,
so lint and types would not see it (one reached a merge once, in game.html).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKERS = ("<<<<<<< ", ">>>>>>> ")
#: A conflict's middle line; alone it may be a Markdown heading's underline.
MIDDLE = "=======\n"


def tracked_text_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=30
    ).stdout
    names = [name for name in listed.decode().split("\0") if name]
    return [ROOT / name for name in names if not name.endswith((".bin", ".png", ".ico"))]


def marked_lines(path: Path) -> list[int]:
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, FileNotFoundError):
        return []  # binary, or deleted in the work tree
    lines = text.splitlines(keepends=True)
    marked = [n for n, line in enumerate(lines, 1) if line.startswith(MARKERS)]
    if marked:
        marked += [n for n, line in enumerate(lines, 1) if line == MIDDLE]
    return sorted(marked)


def test_no_file_keeps_a_merges_conflict_markers() -> None:
    found = {str(p.relative_to(ROOT)): marked_lines(p) for p in tracked_text_files()}
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_the_check_sees_a_marker(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text("<p>\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> branch\n</p>\n")
    assert marked_lines(page) == [2, 4, 6]
    heading = tmp_path / "notes.md"
    heading.write_text("Notes\n=======\n")
    assert marked_lines(heading) == []
