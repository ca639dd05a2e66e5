"""``python -m webapp.bench idle`` and the /proc readings it prints (webapp/bench/processes.py)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pytest

from webapp.bench import idle
from webapp.bench.processes import children, cpu_seconds, server_processes, usage

SPAWNS_A_CHILD = (
    "import subprocess, sys, time\n"
    "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])\n"
    "time.sleep(30)\n"
)


def test_usage_reads_this_process() -> None:
    mine = usage(os.getpid())
    assert mine.rss_mb > 1 and mine.threads >= 1 and mine.fds >= 3


def test_cpu_seconds_read_this_process_and_grow_with_work() -> None:
    first = cpu_seconds(os.getpid())
    total = sum(range(10_000))  # some work first: the clock may tick before the loop
    while cpu_seconds(os.getpid()) == first:  # a clock tick of work at least
        total += sum(range(10_000))
    assert cpu_seconds(os.getpid()) > first > 0 and total > 0


def test_a_process_that_is_gone_uses_nothing() -> None:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    assert usage(int(done.stdout)).threads == 0


def test_the_serving_process_is_the_child_that_is_not_multiprocessing() -> None:
    # An arbiter (like gunicorn's) whose one child serves.
    arbiter = subprocess.Popen([sys.executable, "-c", SPAWNS_A_CHILD])
    try:
        deadline = time.monotonic() + 30
        while not children(arbiter.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        (child,) = children(arbiter.pid)
        assert server_processes(arbiter.pid) == (child, [])
    finally:
        for pid in children(arbiter.pid):
            os.kill(pid, signal.SIGKILL)
        arbiter.kill()
        arbiter.wait()


@pytest.mark.slow
def test_the_idle_bench_holds_spectators_and_times_pages(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--spectators", "5", "--fetches", "5", "--workers", "1", "--players", "2"]
    assert idle.main([*argv, "--moves", "2"]) == 0
    out = capsys.readouterr().out
    assert "5 spectators joined" in out and ", 0 failed" in out
    assert re.search(r"\d+ fetches, 5 spectators: p50", out) and "failed 0," in out
    # The players played meanwhile: 2 moves each, every one answered.
    assert "2 Easy players meanwhile: 4 moves, 4 replies, reply p50" in out
    assert "web process" in out  # its threads and memory were read
