"""Where a search's time goes, per kind of job: waiting, running, relayed, applied.

Four stages of every job the pool reports, each a histogram per job label
(``label``: the job's kind and class, ``engine:engine``, ``scores:scores``,
``ponder:scores``, ``scores:analysis`` for the exact pass over the engine's options):

* ``wait``   submitted until handed to a worker (into its pipe, for a move sent
             ahead behind others; the last time, if it was preempted)
* ``run``    handed to a worker until its result reached the relay thread (for a move
             sent ahead, its time in the pipe too)
* ``search`` the search itself, as its worker timed it (``time_ms``; a trace has none):
             ``run`` less this is the pipes and the relay thread's turnaround
* ``deliver`` the result at the relay until the relay thread hands it to the
             dispatcher (the pool's callback queue)
* ``queue``  from there until its handler starts (the dispatcher's per-game queue)
* ``apply``  the handler itself (the game's lock, the store, the emits)

Counts are cumulative buckets (``BOUNDS_MS``), so a reader (the load benchmark,
through ``/healthz``) takes two snapshots and subtracts them to get one stretch
of time. Memory is fixed: labels are a handful, buckets a constant.
"""

from __future__ import annotations

import bisect
import math
import threading
from collections.abc import Mapping, Sequence
from typing import Any

#: Upper bounds of the buckets in ms (a last, unbounded bucket follows).
BOUNDS_MS = (1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 700, 1000,
             1500, 2000, 3000, 5000, 10000, 20000)  # fmt: skip
STAGES = ("wait", "run", "search", "deliver", "queue", "apply")
#: More labels than this are folded into "other" (a label comes from a job's tag).
MAX_LABELS = 16


def bucket(ms: float) -> int:
    """The index of the first bound at or above ``ms`` (``len(BOUNDS_MS)``: past the last)."""
    return bisect.bisect_left(BOUNDS_MS, ms)


class Timings:
    """Per label and stage, how many jobs took how long (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[str, dict[str, list[int]]] = {}

    def add(self, label: str, stage: str, seconds: float) -> None:
        index = bucket(max(0.0, seconds) * 1e3)
        with self._lock:
            stages = self._counts.get(label)
            if stages is None:
                if len(self._counts) >= MAX_LABELS:
                    label = "other"
                stages = self._counts.setdefault(
                    label, {name: [0] * (len(BOUNDS_MS) + 1) for name in STAGES}
                )
            stages[stage][index] += 1

    def snapshot(self) -> dict[str, dict[str, list[int]]]:
        """Every label's counts per stage and bucket (a copy)."""
        with self._lock:
            return {
                label: {stage: list(counts) for stage, counts in stages.items()}
                for label, stages in self._counts.items()
            }


def difference(
    after: Mapping[str, Mapping[str, Sequence[int]]],
    before: Mapping[str, Mapping[str, Sequence[int]]],
) -> dict[str, dict[str, list[int]]]:
    """The counts of ``after`` less those of ``before`` (two snapshots)."""
    out: dict[str, dict[str, list[int]]] = {}
    for label, stages in after.items():
        earlier = before.get(label, {})
        out[label] = {
            stage: [
                n - m for n, m in zip(counts, earlier.get(stage, [0] * len(counts)), strict=True)
            ]
            for stage, counts in stages.items()
        }
    return out


def percentile(counts: Sequence[int], q: float) -> float:
    """The bucket bound (ms) that holds the ``q``-th percentile: at most that; NaN if
    empty, inf past the last bound."""
    total = sum(counts)
    if total <= 0:
        return math.nan
    rank = max(1, math.ceil(q / 100.0 * total))
    seen = 0
    for index, n in enumerate(counts):
        seen += n
        if seen >= rank:
            return float(BOUNDS_MS[index]) if index < len(BOUNDS_MS) else math.inf
    return math.inf


def summary(counts: Mapping[str, Mapping[str, Sequence[int]]]) -> list[dict[str, Any]]:
    """One row per label with jobs: its count and each stage's p50, p95 and p99 (ms, the
    bucket bounds: "at most")."""
    rows = []
    for label in sorted(counts):
        stages = counts[label]
        jobs = sum(stages.get("run", []))
        if jobs <= 0:
            continue
        row: dict[str, Any] = {"label": label, "jobs": jobs}
        for stage in STAGES:
            for q in (50, 95, 99):
                row[f"{stage}{q}"] = percentile(stages.get(stage, []), q)
        rows.append(row)
    return rows
