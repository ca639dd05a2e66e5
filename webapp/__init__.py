"""Lookahead: classic board games against a game-tree engine you can watch think.

This package root imports nothing heavy: ``webapp.engine`` and ``webapp.games``
stay free of Flask, and the web application lives in ``webapp.web.app``.
"""

__version__ = "0.1.0"
