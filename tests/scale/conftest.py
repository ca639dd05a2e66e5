"""Fixtures of the scale tests: a cluster of real processes (``cluster.py``)."""

from tests.scale.cluster import cluster  # noqa: F401 (the fixture)
