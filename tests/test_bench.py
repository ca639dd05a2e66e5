"""The benchmark command runs and prints true figures (no timing is asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CONNECT4_DATA
from webapp.bench.levels import GAMES, MATCHES, PLAYERS, play_game, play_match


@pytest.mark.slow
def test_benchmark_prints_figures_for_each_file_and_both_algorithms(tmp_path: Path) -> None:
    # the pure-Python engine needs a minute for one medium position: the test
    # takes the two easy files, three lines each; the benchmark reads two.
    names = ("Test_L3_R1", "Test_L2_R1")
    for name in names:
        lines = CONNECT4_DATA.joinpath(name).read_text().splitlines()[:3]
        tmp_path.joinpath(name).write_text("\n".join(lines) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "webapp.bench", str(tmp_path), "--lines", "2",
         "--max-depth", "4", "--python", "--sections", "files,algorithms"],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line.split() for line in done.stdout.splitlines() if line.strip()}
    for name in names:
        engine, positions, correct = rows[name][1], int(rows[name][2]), int(rows[name][3])
        assert (engine, positions, correct) == ("python", 2, 2)
    comparisons = [line.split() for line in done.stdout.splitlines() if line.startswith(
        ("tictactoe", "connect4"))]  # fmt: skip
    assert [(c[0], c[1]) for c in comparisons] == [("tictactoe", "python"), ("connect4", "python")]
    assert comparisons[0][4] == "549946"  # the whole tic-tac-toe tree
    assert all(c[-1] == "yes" for c in comparisons)


@pytest.mark.slow
def test_kernel_benchmark_prints_every_section(tmp_path: Path) -> None:
    """Small sizes of every section; the figures' values are the benchmark's business."""
    for name in ("Test_L2_R1", "Test_L1_R1"):
        lines = CONNECT4_DATA.joinpath(name).read_text().splitlines()[:20]
        tmp_path.joinpath(name).write_text("\n".join(lines) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "webapp.bench", str(tmp_path), "--lines", "20",
         "--python-lines", "1", "--max-depth", "4", "--samples", "1", "--python-samples", "1",
         "--min-stones", "34", "--cap", "5", "--games", "1", "--opponents", "random",
         "--openings", "1", "--hard-lines", "0", "--versus-lines", "2", "--level-games", "2",
         "--database-lines", "1"],
        capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "# The 12-stone database" in done.stdout
    rows = [line.split() for line in done.stdout.splitlines() if line.startswith("Test_")]
    versus = [r[:3] for r in rows if r[1] not in ("kernel", "python")]  # the 'hard' section
    assert versus == [["Test_L2_R1", "2", "2"], ["Test_L1_R1", "2", "2"]]
    rows = [r for r in rows if r[1] in ("kernel", "python")]
    assert [(r[0], r[1], r[2], r[3]) for r in rows] == [
        ("Test_L2_R1", "kernel", "20", "20"), ("Test_L2_R1", "python", "1", "1"),
        ("Test_L1_R1", "kernel", "20", "20"), ("Test_L1_R1", "python", "1", "1"),
    ]  # fmt: skip
    comparisons = [line.split() for line in done.stdout.splitlines() if line.startswith(
        "connect4") and line.split()[1] in ("kernel", "python")]  # fmt: skip
    assert [c[1] for c in comparisons] == ["kernel", "python"]
    assert comparisons[0][4] == comparisons[1][4]  # same minimax tree in both engines
    assert all(c[-1] == "yes" for c in comparisons)
    assert "cold (compiles):" in done.stdout and "cached (loads):" in done.stdout
    bands = [line.split() for line in done.stdout.splitlines() if line.startswith("35-40")]
    assert [b[1] for b in bands] == ["6", "6"]  # kernel, then python: a position per count
    games = [line.split() for line in done.stdout.splitlines() if line.startswith("random")]
    assert games and games[0][1:3] == ["2", "2-0-0"] and games[0][-2] == "yes"
    variable = [line.split() for line in done.stdout.splitlines() if line.startswith(" ")]
    assert [v[:2] for v in variable if v[0].isdigit()] == [["20000", "2"], ["100000", "2"],
                                                          ["500000", "2"]]  # fmt: skip
    levels = [line.split() for line in done.stdout.splitlines() if " vs " in line]
    assert len(levels) == len(GAMES) * len(MATCHES) and all(r[4] == "2" for r in levels)


@pytest.mark.slow
def test_benchmark_rejects_a_missing_folder() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "webapp.bench", "/nonexistent-folder"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "not a folder" in done.stderr


@pytest.mark.slow
def test_hard_and_parallel_sections_print_their_rows(tmp_path: Path) -> None:
    """The kernel against BitBully (or the line saying it is not installed), and the
    one-process against two-process move scores, on a few quick positions."""
    lines = CONNECT4_DATA.joinpath("Test_L2_R2").read_text().splitlines()[:2]
    tmp_path.joinpath("Test_L2_R2").write_text("\n".join(lines) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "webapp.bench", str(tmp_path), "--sections", "hard,parallel",
         "--hard-lines", "0", "--versus-lines", "2", "--parallel-lines", "2"],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if line.startswith("Test_")]
    assert [r[:3] for r in rows] == [["Test_L2_R2", "2", "2"]]
    try:
        import bitbully  # noqa: F401
    except ImportError:
        assert "not installed" in done.stdout and rows[0][-1] == "-"
    else:
        assert float(rows[0][-1]) > 0
    speed = [line.split() for line in done.stdout.splitlines() if line.startswith("        2")]
    assert speed and speed[0][:2] == ["2", "2"]  # two positions, the same scores split or not


@pytest.mark.slow
def test_the_database_section_prints_its_load_and_both_bands(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "webapp.bench", str(tmp_path), "--sections", "database",
         "--database-lines", "2"],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "status ok, load" in done.stdout and "RSS +" in done.stdout
    rows = [line.split() for line in done.stdout.splitlines() if line[:1].isdigit()]
    assert [r[:3] for r in rows] == [[band, book, "2"] for band in ("0-12", "0-11", "12", "13-20")
                                     for book in ("on", "off")]  # fmt: skip
    exact, columns = rows[0][-1].split("/")
    assert exact == columns  # 0-12 stones: every column exact


def test_the_hard_sample_is_reachable_early_and_undecided() -> None:
    from webapp.bench.hard import SAMPLE, STONES
    from webapp.games import new_game
    from webapp.games.connect4 import winning_cells

    rows = [line.split() for line in SAMPLE.read_text().splitlines()]
    assert len(rows) >= 10
    for moves, _ in rows:
        game = new_game("connect4", moves)  # raises on an illegal sequence
        assert STONES[0] <= len(moves) <= STONES[1] and not game.is_terminal()
        assert not winning_cells(game.current, game.mask) & game.possible()


def test_without_bitbully_the_hard_section_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from webapp.bench import hard, reference

    monkeypatch.setattr(reference, "MODULE", "no_such_bitbully_module")
    monkeypatch.setattr(hard, "SAMPLE", tmp_path / "none")
    assert reference.reference() is None
    tmp_path.joinpath("Test_L3_R1").write_text(
        "\n".join(CONNECT4_DATA.joinpath("Test_L3_R1").read_text().splitlines()[:2]) + "\n"
    )
    hard.print_hard([tmp_path / "Test_L3_R1"], 2, None)
    out = capsys.readouterr().out
    assert reference.MISSING in out
    row = next(line.split() for line in out.splitlines() if line.startswith("Test_L3_R1"))
    assert row[1:3] == ["2", "2"] and row[-4:] == ["-", "-", "-", "-"]


@pytest.mark.slow
def test_levels_benchmark_plays_every_match_in_both_games(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "webapp.bench", str(tmp_path), "--sections", "levels",
         "--level-games", "4", "--seed", "3"],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if line.startswith(GAMES)]
    assert [(r[0], r[1], r[3]) for r in rows] == [
        (game, one, two) for game in GAMES for one, two in MATCHES
    ]
    for row in rows:
        games, wins, draws, losses = map(int, row[4:8])
        assert games == 4 and wins + draws + losses == 4


def test_a_levels_match_is_seeded_and_alternates_the_first_player() -> None:
    first = play_match("tictactoe", "alphabeta-4", "hard", 4, seed=5)
    assert first == play_match("tictactoe", "alphabeta-4", "hard", 4, seed=5)
    assert (first.games, first.draws) == (4, 4)  # best play on both sides: draws only
    assert play_game("tictactoe", PLAYERS["hard"], PLAYERS["random"], seed=1) >= 0
