"""Benchmarks: figures printed, never asserted (``python -m webapp.bench``)."""
