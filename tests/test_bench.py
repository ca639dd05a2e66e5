"""The benchmark command runs and prints true figures (no timing is asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import CONNECT4_DATA


def test_benchmark_prints_figures_for_each_file_and_both_algorithms(tmp_path: Path) -> None:
    # the pure-Python engine needs a minute for one medium position: the test
    # takes the two easy files, three lines each; the benchmark reads two.
    names = ("Test_L3_R1", "Test_L2_R1")
    for name in names:
        lines = CONNECT4_DATA.joinpath(name).read_text().splitlines()[:3]
        tmp_path.joinpath(name).write_text("\n".join(lines) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "webapp.bench", str(tmp_path), "--lines", "2",
         "--max-depth", "4", "--python"],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line.split() for line in done.stdout.splitlines() if line.strip()}
    for name in names:
        positions, correct = int(rows[name][1]), int(rows[name][2])
        assert positions == 2 and correct == 2
    comparisons = [line.split() for line in done.stdout.splitlines() if line.startswith(
        ("tictactoe", "connect4"))]  # fmt: skip
    assert [c[0] for c in comparisons] == ["tictactoe", "connect4"]
    assert comparisons[0][3] == "549946"  # the whole tic-tac-toe tree
    assert all(c[-1] == "yes" for c in comparisons)


def test_benchmark_rejects_a_missing_folder() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "webapp.bench", "/nonexistent-folder"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "not a folder" in done.stderr
