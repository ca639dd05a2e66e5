#!/usr/bin/env bash
# Set up everything the test suite needs on a fresh machine, then run all of it:
# lint, types and every test (engine, web, end to end, headless browser).
# Extra arguments go to pytest, e.g. `bash scripts/test.sh tests/test_search.py`.
#
# `bash scripts/test.sh --fast` is the inner loop: the same lint and types, then only
# the tests not marked `browser` (tests/browser), `scale` (tests/scale) or `slow`
# (over ~2 s each; see the markers in pyproject.toml), spread over two processes
# (pytest-xdist): under 90 s on a 2-core machine. CI (.ci/run) runs everything, in one.
set -euo pipefail
cd "$(dirname "$0")/.."

select=()
if [ "${1:-}" = "--fast" ]; then
  shift
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
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'

.venv/bin/ruff check webapp tests
.venv/bin/ruff format --check webapp tests
.venv/bin/mypy
# The browser modules, held to the same standard (package.json): ESLint, tsc --checkJs
# over their JSDoc, node --test for the pure ones. npm ci only when the lockfile changed.
lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.lock.sha256 2>/dev/null)" != "$lock_sum" ]; then
  npm ci --no-audit --no-fund
  echo "$lock_sum" >node_modules/.lock.sha256
fi
npx eslint static/js tests/js
npx tsc -p .
npx tsc -p tsconfig.strict.json
node --test tests/js/*.test.js
.venv/bin/python -m pytest "${select[@]}" "$@"
