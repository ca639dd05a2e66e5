"""Under ``CI=true`` a skipped test fails the run: CI never passes by skipping.

A test skips only when something it needs is missing (Chromium, PostgreSQL, Redis,
nginx, the compiled kernel); ``scripts/test.sh`` installs them all, so in CI a skip
means a broken setup. ``tests/conftest.py`` imports this hook; outside CI a skip is
reported as usual.
"""

from __future__ import annotations

import os

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("true", "1", "yes")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = [] if reporter is None else reporter.stats.get("skipped", [])
    if not in_ci() or not skipped:
        return
    print(f"\n{len(skipped)} skipped under CI=true: a skip fails CI (see tests/ci.py)")
    for report in skipped:
        print(f"  {report.nodeid}: {report.longrepr}")
    if session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
