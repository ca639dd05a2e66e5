"""The command line (webapp/engine/cli.py), run as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import CONNECT4_DATA


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "webapp.engine", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.slow
def test_analyze_json_reports_the_whole_minimax_tree_of_tictactoe() -> None:
    done = run("analyze", "tictactoe", "", "--algorithm", "minimax", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert set(data) == {
        "best_move", "score", "exact", "pv", "move_scores", "nodes", "depth", "time_ms",
        "algorithm",
    }  # fmt: skip
    assert data["nodes"] == 549_946
    assert data["score"] == 0 and data["exact"] is True
    assert data["algorithm"] == "minimax" and data["depth"] == 9
    assert set(data["move_scores"]) == set("123456789")
    assert len(data["pv"]) == 9 and data["pv"][0] == data["best_move"]


@pytest.mark.slow
def test_analyze_prints_a_readable_report() -> None:
    done = run("analyze", "connect4", "4453", "--depth", "4")
    assert done.returncode == 0, done.stderr
    for label in ("best move", "score", "pv", "moves", "nodes", "depth", "time", "algorithm"):
        assert label in done.stdout
    assert "(heuristic)" in done.stdout


@pytest.mark.slow
def test_analyze_connect4_minimax_uses_its_default_depth() -> None:
    done = run("analyze", "connect4", "4453443", "--algorithm", "minimax", "--json")
    data = json.loads(done.stdout)
    assert data["depth"] == 7 and data["algorithm"] == "minimax"


@pytest.mark.slow
def test_analyze_alphabeta_without_limits_is_exact() -> None:
    moves = CONNECT4_DATA.joinpath("Test_L3_R1").read_text().split()[0]
    data = json.loads(run("analyze", "connect4", moves, "--json").stdout)
    assert data["exact"] is True
    assert all(s["exact"] for s in data["move_scores"].values())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("analyze", "connect4", "4458"), "move '8' is not a column"),
        (("analyze", "tictactoe", "55"), "cell 5 is taken"),
        (("analyze", "connect4", "44", "--depth", "0"), "at least 1"),
        (("analyze", "chess", ""), "invalid choice"),
        (("analyze", "connect4", "", "--algorithm", "random"), "invalid choice"),
    ],
)
def test_errors_are_one_line_and_a_non_zero_exit(args: tuple[str, ...], message: str) -> None:
    done = run(*args)
    assert done.returncode != 0
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


def test_solve_reads_positions_and_reports_bad_lines_without_stopping() -> None:
    lines = CONNECT4_DATA.joinpath("Test_L3_R1").read_text().splitlines()[:3]
    stdin = "\n".join([lines[0], "4x", lines[1], "1111111", lines[2]]) + "\n"
    done = run("solve", "connect4", stdin=stdin)
    assert done.returncode == 1  # some lines were bad
    out = [row.split() for row in done.stdout.splitlines()]
    assert [row[0] for row in out] == [line.split()[0] for line in lines]
    assert [int(row[1]) for row in out] == [int(line.split()[1]) for line in lines]
    assert all(int(row[2]) > 0 and int(row[3]) >= 0 for row in out)
    errors = [line for line in done.stderr.splitlines() if line.startswith("line ")]
    assert errors[0].startswith("line 2:") and "'x' is not a column" in errors[0]
    assert errors[1].startswith("line 4:") and "column 1 is full" in errors[1]


def test_solve_tictactoe_with_minimax() -> None:
    done = run("solve", "tictactoe", "--algorithm", "minimax", stdin="5\n15\n")
    assert done.returncode == 0
    assert [row.split()[:2] for row in done.stdout.splitlines()] == [["5", "0"], ["15", "0"]]
