"""The web process on one CPU, its search processes on every CPU it was given.

The web process's Python threads run one at a time (the interpreter's lock), so
the process never uses much more than one CPU. Left free to run on two, its
threads hand the lock across CPUs at every call that lets it go (a send, a SQLite
step, a lock wait): a thread woken on the other CPU wakes cold, and the one that
let go waits there for it back. Kept to one CPU, a hand-off is a switch between
threads of one CPU. Measured on this project's 2-CPU machine (docs/operations.md,
"One CPU for the web process"): 15% less web CPU a move under a crowd, and half
the reply p95.

The search processes are started by the web process and would inherit its one
CPU: each is widened back as soon as it is started, to the CPUs the web process had
before (``worker_cpus``), so searches still use every CPU (and the one the web
process keeps to when it is idle).

``WEB_CPU`` (the server's setting) says which: ``"auto"`` (the default) one of the
CPUs the process may use, by its process id (so two web processes on one machine may
well land on the same one: give each its own with an integer), or none when it may use
only one; an integer, that CPU; ``null``, none.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable

AUTO = "auto"

#: The CPUs the search processes started from this process run on (None: as it does).
_worker_cpus: frozenset[int] | None = None


def can_pin() -> bool:
    """Whether this platform lets a process choose its CPUs (Linux does; macOS not)."""
    return hasattr(os, "sched_setaffinity") and hasattr(os, "sched_getaffinity")


def cpu_for(setting: object, allowed: Iterable[int], pid: int) -> int | None:
    """The CPU ``WEB_CPU`` = ``setting`` keeps the web process to, of the ``allowed``
    ones; None for none. ValueError for a setting that names no allowed CPU."""
    cpus = sorted(allowed)
    if setting is None:
        return None
    if setting == AUTO:
        return cpus[pid % len(cpus)] if len(cpus) > 1 else None
    if isinstance(setting, int) and not isinstance(setting, bool) and setting in cpus:
        return setting
    listed = ", ".join(map(str, cpus))
    raise ValueError(
        f'WEB_CPU must be "auto", null or one of the CPUs this process may use '
        f"({listed}), not {setting!r}"
    )


def check(setting: object) -> None:
    """ValueError if ``setting`` is no valid ``WEB_CPU`` here (checked before serving)."""
    if can_pin():
        cpu_for(setting, os.sched_getaffinity(0), os.getpid())
    elif setting not in (None, AUTO):
        raise ValueError("WEB_CPU: this platform does not let a process choose its CPU")


def keep_to_one_cpu(setting: object) -> int | None:
    """Keep the calling thread, and every thread and process it starts from now on, to
    the CPU ``setting`` says (``cpu_for``); the CPU, or None if left as it was.

    Call it before the process starts its threads: a thread takes its CPUs from the
    thread that started it. Search processes started afterwards are widened back
    (``widen``, with ``worker_cpus()``).
    """
    global _worker_cpus
    if not can_pin():
        return None
    allowed = os.sched_getaffinity(0)
    cpu = cpu_for(setting, allowed, os.getpid())
    if cpu is None:
        return None
    os.sched_setaffinity(0, {cpu})
    _worker_cpus = frozenset(allowed)
    return cpu


def worker_cpus() -> frozenset[int] | None:
    """The CPUs a search process started from here should run on (None: as it is)."""
    return _worker_cpus


def widen(pid: int | None, cpus: Iterable[int] | None) -> None:
    """Let the process ``pid``, just started, run on ``cpus`` (None: leave it be). Its
    threads started from then on take them too."""
    if pid and cpus and can_pin():
        # A CPU taken away meanwhile, or the process gone already: it runs where it may.
        with contextlib.suppress(OSError):
            os.sched_setaffinity(pid, set(cpus))
