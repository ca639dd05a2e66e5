#!/usr/bin/env bash
# Set up everything the test suite needs on a fresh machine, then run all of it:
# lint, types and every test (engine, web, end to end, headless browser).
# Extra arguments go to pytest, e.g. `bash scripts/test.sh tests/test_search.py`.
#
# `bash scripts/test.sh --fast` is the inner loop: the same lint and types, then only
# the tests not marked `browser` (tests/browser), `scale` (tests/scale) or `slow`
# (over ~2 s each; see the markers in pyproject.toml), spread over two processes
# (pytest-xdist): under 90 s on a 2-core machine. What it saves besides: pip runs only
# when pyproject.toml changed since its last install, ESLint and tsc keep their caches
# (node_modules/.cache), and the checks run side by side. CI (.ci/run) runs everything:
# the checks one after another, then every test (below).
set -euo pipefail
cd "$(dirname "$0")/.."

fast=false
select=()
if [ "${1:-}" = "--fast" ]; then
  shift
  fast=true
  select=(-m "not browser and not scale and not slow" -n 2)
fi

# The browser tests drive Debian's Chromium (never a downloaded browser); the store
# and scale tests start Debian's PostgreSQL and Redis server programs (tests/servers.py),
# never a service.
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
compgen -G "/usr/lib/postgresql/*/bin/postgres" >/dev/null || missing+=(postgresql)
[ -x /usr/bin/redis-server ] || missing+=(redis-server)
[ -x /usr/sbin/nginx ] || missing+=(nginx)  # tests/scale/test_nginx.py runs deploy/nginx.conf
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
deps_sum=$(sha256sum pyproject.toml | cut -d' ' -f1)
if ! $fast || [ "$(cat .venv/.pyproject.sha256 2>/dev/null)" != "$deps_sum" ]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
  echo "$deps_sum" >.venv/.pyproject.sha256
fi
# The browser modules, held to the same standard (package.json): ESLint, tsc --checkJs
# over their JSDoc, node --test for the pure ones. npm ci only when the lockfile changed.
lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.lock.sha256 2>/dev/null)" != "$lock_sum" ]; then
  npm ci --no-audit --no-fund
  echo "$lock_sum" >node_modules/.lock.sha256
fi

checks=(
  ".venv/bin/ruff check webapp tests"
  ".venv/bin/ruff format --check webapp tests"
  ".venv/bin/mypy"
  "npx eslint static/js tests/js"
  "npx tsc -p ."
  "npx tsc -p tsconfig.strict.json"
  "node --test tests/js/*.test.js"
)
if ! $fast; then
  for check in "${checks[@]}"; do bash -c "$check"; done
else
  # Caches for the inner loop only: CI checks from nothing.
  checks[3]="npx eslint --cache --cache-location node_modules/.cache/eslint/ static/js tests/js"
  checks[4]+=" --incremental --tsBuildInfoFile node_modules/.cache/tsc/main.tsbuildinfo"
  checks[5]+=" --incremental --tsBuildInfoFile node_modules/.cache/tsc/strict.tsbuildinfo"
  # Side by side, each one's output printed whole, in this order.
  logs=$(mktemp -d)
  trap 'rm -rf "$logs"' EXIT
  pids=()
  for i in "${!checks[@]}"; do
    bash -c "${checks[$i]}" >"$logs/$i" 2>&1 &
    pids+=($!)
  done
  failed=()
  for i in "${!checks[@]}"; do
    wait "${pids[$i]}" || failed+=("${checks[$i]}")
    cat "$logs/$i"
  done
  if [ ${#failed[@]} -gt 0 ]; then
    printf 'failed: %s\n' "${failed[@]}" >&2
    exit 1
  fi
fi
if ! $fast && [ $# -eq 0 ]; then
  # The whole suite, in two runs so that it stays well under 15 minutes on a 2-core
  # machine: the tests that drive no browser and start no cluster spread over two
  # processes (pytest-xdist), then the browser and cluster tests one at a time (each
  # runs Chromium or several servers; two at once would starve each other).
  .venv/bin/python -m pytest -m "not browser and not scale" -n 2
  .venv/bin/python -m pytest -m "browser or scale"
else
  .venv/bin/python -m pytest "${select[@]}" "$@"
fi
