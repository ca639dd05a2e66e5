"""The search pool's own timings under a scenario: where each kind of job's time went.

The server's ``/healthz`` carries its pool's cumulative histograms
(``webapp.search_pool.timing``); one snapshot before a scenario and one after give
that scenario's: per job label, how long jobs waited for a worker, ran, waited to be
applied and were applied (p50/p95/p99 in ms, bucket bounds: "at most"). These show
the scheduling independent of the machine's load: an engine reply's wait is what
the scores' work costs it.
"""

from __future__ import annotations

import math

import requests

from webapp.search_pool.timing import STAGES, difference, summary

Snapshot = dict[str, dict[str, list[int]]]
#: The pool's counters printed under the table (``SearchPool.stats``).
COUNTS = ("preempted", "sent_ahead")


def snapshot(url: str) -> Snapshot | None:
    """The pool's timings now (and its counts of preemptions and moves sent ahead, as
    labels of their own), or None if the server does not report them."""
    try:
        health = requests.get(url + "/healthz", timeout=10).json()
    except (requests.RequestException, ValueError):
        return None
    workers = health.get("workers") or {}
    timings = workers.get("timings")
    if not isinstance(timings, dict):
        return None
    counts = {key: workers.get(key) for key in COUNTS if isinstance(workers.get(key), int)}
    return timings | {f"#{key}": {"count": [n]} for key, n in counts.items()}


def cell(ms: float) -> str:
    if math.isnan(ms):
        return "-"
    return ">20s" if math.isinf(ms) else f"{ms:g}"


def lines(before: Snapshot | None, after: Snapshot | None) -> list[str]:
    """The scenario's table, one line per label (none if either snapshot is missing)."""
    if before is None or after is None:
        return []
    stretch = difference(after, before)
    counts = {label[1:]: stages["count"][0] for label, stages in stretch.items() if label[0] == "#"}
    rows = summary({label: stages for label, stages in stretch.items() if label[0] != "#"})
    if not rows:
        return []
    heads = " ".join(f"{stage + str(q):>8}" for stage in STAGES for q in (50, 95))
    out = [f"  pool timings (ms, at most): {'label':<18} {'jobs':>6} {heads}"]
    for row in rows:
        cells = " ".join(f"{cell(row[stage + str(q)]):>8}" for stage in STAGES for q in (50, 95))
        out.append(f"  {'':<27} {row['label']:<18} {row['jobs']:>6} {cells}")
    if counts:
        out.append("  pool: " + ", ".join(f"{key} {n}" for key, n in sorted(counts.items())))
    return out


def report(before: Snapshot | None, after: Snapshot | None) -> None:
    for line in lines(before, after):
        print(line, flush=True)


__all__ = ["lines", "report", "snapshot"]
