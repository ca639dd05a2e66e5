"""Kernel start-up: compiling with an empty numba cache, then loading from the cache."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

_PROGRAM = "from webapp.games.connect4_kernel.warmup import warm_up; print(warm_up())"


@dataclass(frozen=True)
class Startup:
    cold_process: float  # seconds, the whole process (interpreter, imports, compile)
    cold_warm_up: float  # seconds inside warm_up()
    cached_process: float
    cached_warm_up: float


def _run(cache: str) -> tuple[float, float]:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _PROGRAM], env=env, capture_output=True,
                          text=True, check=True)  # fmt: skip
    return time.perf_counter() - start, float(done.stdout.split()[-1])


def measure() -> Startup:
    """Two fresh processes on one new cache folder: the first compiles, the second loads."""
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
        cold = _run(cache)
        cached = _run(cache)
    return Startup(*cold, *cached)
