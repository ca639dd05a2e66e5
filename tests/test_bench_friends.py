"""The friends benchmark runs the real server and relays every move (no timing is asserted)."""

from __future__ import annotations

import subprocess
import sys

import pytest


def small_run(*more: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "webapp.bench", "friends", "--pairs", "2", "--moves", "4",
         "--think", "0", *more],
        capture_output=True, text=True, timeout=150, check=False,
    )  # fmt: skip


@pytest.mark.slow
def test_a_small_friends_run_relays_every_move_to_the_other_player() -> None:
    check_relayed(small_run())


@pytest.mark.slow
def test_with_redis_every_move_is_relayed_across_two_web_processes(redis_url: str) -> None:
    done = small_run("--redis", redis_url)
    assert "2 web processes on redis://" in done.stdout, done.stdout + done.stderr
    check_relayed(done)


def check_relayed(done: subprocess.CompletedProcess[str]) -> None:
    """Both pairs played their 4 moves, each relayed, nothing refused; the CPU was read."""
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("pairs"))
    columns = lines[header].split()
    row = dict(zip(columns, lines[header + 1].split(), strict=False))
    assert (row["pairs"], row["moves"], row["relayed"]) == ("2", "8", "8"), done.stdout
    assert (row["tmout"], row["disc"], row["errors"]) == ("0", "0", "-"), done.stdout
    assert float(row["p50"]) <= float(row["p95"]) <= float(row["max"]), done.stdout
    # Read from /proc in clock ticks (10 ms): a small run's few ticks, never none.
    assert float(row["cpu_ms"]) > 0, done.stdout


def test_a_server_that_cannot_be_reached_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    # The command's own main, in this process: the run above already starts it as a program.
    from webapp.bench.__main__ import main

    assert main(["friends", "--url", "http://127.0.0.1:9"]) == 1
    out, err = capsys.readouterr()
    assert "error:" in err, out + err
