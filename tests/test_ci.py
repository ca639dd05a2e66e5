"""Under ``CI=true`` a skip fails the run (tests/ci.py); outside CI it is reported as usual."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_a_skipping_test(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_skipping.py").write_text(
        "import pytest\n\n\ndef test_needs_something_missing():\n    pytest.skip('no redis')\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "CI"} | {"PYTHONPATH": str(ROOT)}
    if ci is not None:
        env["CI"] = ci
    command = [sys.executable, "-m", "pytest", "-p", "tests.ci", "-q", "-p", "no:cacheprovider",
               str(tmp_path / "test_skipping.py")]  # fmt: skip
    return subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)


def test_a_skip_fails_the_run_under_ci(tmp_path: Path) -> None:
    run = run_a_skipping_test(tmp_path, "true")
    assert run.returncode == 1, run.stdout
    assert "1 skipped under CI=true" in run.stdout and "no redis" in run.stdout


def test_outside_ci_a_skip_is_only_reported(tmp_path: Path) -> None:
    run = run_a_skipping_test(tmp_path, None)
    assert run.returncode == 0, run.stdout
    assert "1 skipped" in run.stdout and "under CI" not in run.stdout


def test_no_test_skips_on_its_own() -> None:
    """Missing programs fail (tests/servers.py, browser/conftest.py): nothing skips."""
    words = ("pytest.skip(", "importorskip(", "mark.skip", "mark.skipif")
    found = [
        f"{path.relative_to(ROOT)}: {word}"
        for path in (ROOT / "tests").rglob("*.py")
        if path.name != "test_ci.py"
        for word in words
        if word in path.read_text()
    ]
    assert found == []
