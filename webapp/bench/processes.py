"""What a running server's processes use, read from ``/proc`` (Linux): memory, threads, files.

``server_processes(pid)`` finds, below the process the benchmark started, the one that
serves (gunicorn's worker, or the process itself under ``--dev``) and its search
processes; ``usage(pid)`` reads one process's resident memory, threads and open files;
``cpu_seconds(pid)`` its CPU time.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")


@dataclass(frozen=True)
class Usage:
    rss_mb: float
    threads: int
    fds: int


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``, oldest first."""
    found = []
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return sorted(found)


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (gunicorn's worker, its search processes, ...)."""
    found = set(children(pid))
    for child in list(found):
        found |= descendants(child)
    return found


def command_line(pid: int) -> list[str]:
    try:
        return (PROC / str(pid) / "cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def is_search_process(pid: int) -> bool:
    """A multiprocessing child (a search worker or multiprocessing's resource tracker)."""
    return any("multiprocessing" in part for part in command_line(pid))


def server_processes(pid: int) -> tuple[int, list[int]]:
    """The serving process below ``pid`` (``python -m webapp``) and its search processes.

    The resource tracker multiprocessing starts is left out: it does no searching.
    """
    web = pid
    for child in children(pid):
        if not is_search_process(child):  # gunicorn's worker under its arbiter
            web = child
            break
    searches = [
        child
        for child in children(web)
        if is_search_process(child) and "resource_tracker" not in " ".join(command_line(child))
    ]
    return web, searches


def usage(pid: int) -> Usage:
    """``pid``'s resident memory (MB), threads and open file descriptors; zeros once it is gone."""
    try:
        status = (PROC / str(pid) / "status").read_text()
        fds = len(os.listdir(PROC / str(pid) / "fd"))
    except OSError:
        return Usage(0.0, 0, 0)
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    rss_kb = int(fields.get("VmRSS", "0 kB").split()[0])
    return Usage(rss_kb / 1024, int(fields.get("Threads", "0")), fds)


def cpu_seconds(pid: int) -> float:
    """``pid``'s CPU time so far (user and system, from ``/proc/PID/stat``); 0 once gone."""
    try:
        fields = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
