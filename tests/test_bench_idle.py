"""``python -m webapp.bench idle`` and the /proc readings it prints (webapp/bench/processes.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from webapp.bench import idle
from webapp.bench.processes import children, server_processes, usage


def test_usage_reads_this_process() -> None:
    mine = usage(os.getpid())
    assert mine.rss_mb > 1 and mine.threads >= 1 and mine.fds >= 3


def test_a_process_that_is_gone_uses_nothing() -> None:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    assert usage(int(done.stdout)).threads == 0


def test_the_serving_process_is_the_child_that_is_not_multiprocessing() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert child.pid in children(os.getpid())
        assert server_processes(os.getpid()) == (child.pid, [])
    finally:
        child.kill()
        child.wait()


def test_the_idle_bench_holds_spectators_and_times_pages(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert idle.main(["--spectators", "5", "--fetches", "5", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "5 spectators joined" in out and ", 0 failed" in out
    assert "5 fetches, 5 spectators: p50" in out and "failed 0," in out
    assert "web process" in out  # its threads and memory were read
