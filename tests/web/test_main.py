"""The command line (webapp/__main__.py); the end-to-end test runs it for real."""

from __future__ import annotations

from webapp.__main__ import parse_args


def test_the_command_line_defaults() -> None:
    args = parse_args([])
    assert (args.host, args.port, args.db, args.workers) == ("127.0.0.1", 5000, None, 2)
    args = parse_args(["--host", "0.0.0.0", "--port", "8000", "--db", "x.db", "--workers", "3"])
    assert (args.host, args.port, args.db, args.workers) == ("0.0.0.0", 8000, "x.db", 3)
