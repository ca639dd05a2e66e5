"""Fixtures of the scale tests: a cluster of real processes (``cluster.py``)."""

from pathlib import Path

import pytest

from tests.scale.cluster import cluster  # noqa: F401 (the fixture)

HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test in this folder ``scale`` (``scripts/test.sh --fast`` leaves them out)."""
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.scale)
