"""``REDIS_URL`` is the one switch: rooms, rate limits and searches go to Redis; unset, none do."""

from __future__ import annotations

from pathlib import Path

import socketio

from tests.web.helpers import make_app
from webapp.search_pool import SearchPool
from webapp.search_pool.queue_pool import QueuePool
from webapp.web.admission import EXTENSION, LocalWindows, SharedWindows, storage_uri
from webapp.web.app import close_app, service_of
from webapp.web.extensions import socketio as rooms


def test_the_rate_limits_follow_redis_unless_told_otherwise() -> None:
    redis_url = "redis://127.0.0.1:6379/0"
    assert storage_uri({"RATE_LIMIT_STORAGE": "memory://", "REDIS_URL": None}) == "memory://"
    assert storage_uri({"RATE_LIMIT_STORAGE": "memory://", "REDIS_URL": redis_url}) == redis_url
    other = "redis://limits:6379/1"
    assert storage_uri({"RATE_LIMIT_STORAGE": other, "REDIS_URL": redis_url}) == other


def test_redis_url_moves_the_rooms_and_the_searches_and_the_next_app_without_it_keeps_them(
    tmp_path: Path, redis_url: str
) -> None:
    shared = make_app(tmp_path / "shared.db", REDIS_URL=redis_url)
    try:
        assert isinstance(service_of(shared).searches.pool, QueuePool)
        assert isinstance(rooms.server.manager, socketio.RedisManager)
        windows = shared.extensions[EXTENSION].limiter
        assert isinstance(windows, SharedWindows)  # the counters every process shares
        assert type(windows.limiter.storage).__name__ == "RedisStorage"
        assert shared.test_client().get("/healthz").json["workers"]["redis"] == "ok"
    finally:
        close_app(shared)
    alone = make_app(tmp_path / "alone.db")  # the SocketIO object is the same one
    try:
        assert isinstance(service_of(alone).searches.pool, SearchPool)
        assert not isinstance(rooms.server.manager, socketio.RedisManager)
        assert isinstance(alone.extensions[EXTENSION].limiter, LocalWindows)
    finally:
        close_app(alone)
