#!/usr/bin/env bash
# Set up Lookahead on a fresh machine and start it (http://127.0.0.1:5000).
# Extra arguments go to the server, e.g. `bash scripts/run.sh --port 8000`.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e .
exec .venv/bin/python -m webapp "$@"
