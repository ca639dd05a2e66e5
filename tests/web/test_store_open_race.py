"""Two web processes opening one new SQLite file at once (``--redis`` on one machine): each
opens, though SQLite's busy timeout does not wait out every lock of the other's opening
(turning on WAL, migrating). CI once saw "database is locked" at start-up."""

from __future__ import annotations

import multiprocessing
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

from webapp.store.sqlite import SQLiteStore

OPENERS = 4
ROUNDS = 20  # before the fix, 5 to 7 of 80 openers failed here


def open_once(path: str, barrier: Barrier, answers: Any) -> None:
    barrier.wait()
    try:
        SQLiteStore(path).close()
        answers.put("ok")
    except Exception as error:  # reported to the test, which names it
        answers.put(repr(error))


def test_processes_opening_one_new_file_at_once_all_open(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    failures = []
    for round_ in range(ROUNDS):
        path = str(tmp_path / f"games-{round_}.sqlite3")
        barrier, answers = context.Barrier(OPENERS), context.Queue()
        openers = [
            context.Process(target=open_once, args=(path, barrier, answers)) for _ in range(OPENERS)
        ]
        for opener in openers:
            opener.start()
        for opener in openers:
            opener.join(60)
        failures += [
            answer for answer in (answers.get(timeout=10) for _ in openers) if answer != "ok"
        ]
    assert failures == []
