"""With ``--redis``, a search tree is traced by a search host, not by the web process.

One web app (``REDIS_URL`` set: its pool is ``QueuePool``) and one search host
(``SearchHost``, its own search process), both in this test's process around
the session's Redis: ``GET /api/tree`` goes through the analysis queue, the
host's pool and its worker, and comes back as the same tree.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.helpers import make_app
from webapp.engine.trace import trace
from webapp.games import new_game
from webapp.search_host.host import SearchHost
from webapp.search_pool.queue_pool import QueuePool
from webapp.store import open_store
from webapp.web.app import close_app, service_of


def _nowhere(event: str, payload: dict[str, Any], to: str) -> None:
    return None  # a trace tells no room anything


@pytest.fixture
def host(tmp_path: Path, redis_url: str) -> Iterator[SearchHost]:
    store = open_store(tmp_path / "host.db")
    made = SearchHost(redis_url, store, _nowhere, concurrency=1, warm_up=False, seed=0)
    try:
        made.start()
        yield made
    finally:
        made.stop()
        store.close()


def test_a_tree_is_traced_by_a_search_host(
    tmp_path: Path, redis_url: str, host: SearchHost
) -> None:
    app = make_app(tmp_path / "web.db", REDIS_URL=redis_url)
    try:
        assert isinstance(service_of(app).searches.pool, QueuePool)
        answer = app.test_client().get("/api/tree?game=connect4&moves=4453&depth=3&limit=900")
        assert answer.status_code == 200, answer.get_json()
        tree = answer.get_json()
        direct = trace(new_game("connect4", "4453"), "alphabeta", 3, limit=900).to_dict()
        assert {key: tree[key] for key in direct} == direct  # this process has no worker
    finally:
        close_app(app)
