"""The search host's command line (webapp/search_host/__main__.py) and its old name."""

from __future__ import annotations

import subprocess
import sys

import pytest

from webapp.search_host.__main__ import parse_args


def test_the_search_host_command_line() -> None:
    args = parse_args(["--redis", "redis://r/0", "--db", "postgresql://d", "--concurrency", "3"])
    assert (args.redis, args.db, args.concurrency) == ("redis://r/0", "postgresql://d", 3)
    with pytest.raises(SystemExit):
        parse_args(["--redis", "redis://r/0", "--db", "postgresql://d", "--concurrency", "0"])


@pytest.mark.parametrize("module", ["webapp.search_host", "webapp.worker"])
def test_the_search_host_runs_under_its_name_and_its_old_one(module: str) -> None:
    # `python -m webapp.worker` is what deployments wrote before the rename: it must still
    # reach the host's own command line (here it refuses to start without --redis).
    done = subprocess.run(
        [sys.executable, "-m", module, "--db", "postgresql://d"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "python -m webapp.search_host" in done.stderr
    assert "--redis" in done.stderr
