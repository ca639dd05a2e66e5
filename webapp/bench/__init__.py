"""Benchmarks, a tool layer on top of all: figures printed, never asserted.

Run them with ``python -m webapp.bench``.
"""
