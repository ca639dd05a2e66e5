"""The command line (webapp/__main__.py); the end-to-end test runs the server for real."""

from __future__ import annotations

from pathlib import Path

import pytest

from webapp.__main__ import main, parse_args
from webapp.store import SQLiteStore


def test_the_command_line_defaults() -> None:
    args = parse_args([])
    assert (args.host, args.port, args.db, args.workers) == ("127.0.0.1", 5000, None, 2)
    assert args.command is None  # no subcommand: serve
    args = parse_args(["--host", "0.0.0.0", "--port", "8000", "--db", "x.db", "--workers", "3"])
    assert (args.host, args.port, args.db, args.workers) == ("0.0.0.0", 8000, "x.db", 3)


def test_the_prune_command_line() -> None:
    args = parse_args(["prune"])
    assert (args.command, args.db, args.unfinished_days, args.finished_days) == (
        "prune", None, 30, 365,
    )  # fmt: skip
    args = parse_args(["prune", "--db", "x.db", "--unfinished-days", "7", "--finished-days", "60"])
    assert (args.db, args.unfinished_days, args.finished_days) == ("x.db", 7, 60)
    assert parse_args(["--db", "y.db", "prune"]).db == "y.db"
    with pytest.raises(SystemExit):
        parse_args(["prune", "--finished-days", "-1"])


def test_prune_prints_how_many_games_it_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[tuple[str, str]] = []

    def fake_prune(self: SQLiteStore, *, unfinished_before: str, finished_before: str) -> int:
        seen.append((unfinished_before, finished_before))
        return 4

    # The store's own prune is tested with the store; here, what the command does with it.
    monkeypatch.setattr(SQLiteStore, "prune", fake_prune, raising=False)
    database = tmp_path / "games.db"
    main(["prune", "--db", str(database), "--unfinished-days", "1", "--finished-days", "2"])
    assert "Removed 4 games." in capsys.readouterr().out
    assert len(seen) == 1 and seen[0][0] > seen[0][1]  # 1 day ago is later than 2 days ago
    assert database.exists()
