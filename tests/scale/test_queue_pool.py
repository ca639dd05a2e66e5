"""``QueuePool`` against a real Redis, with the test in the place of the search hosts."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from tests.servers import free_port
from tests.web.fake_searches import job
from tests.web.helpers import wait_until
from webapp.engine.search import Limits
from webapp.search_pool import SEARCH, TRACE, PoolBusy, Priority, SearchJob
from webapp.search_pool import queue_pool as queue_pool_module
from webapp.search_pool.queue import (
    ANALYSIS,
    PLAY,
    cancel_key,
    count_key,
    depths_key,
    engine_key,
    epoch_key,
    job_of,
    job_payload,
    message_of,
    queue_key,
    replies_key,
    reply,
    settle_claim,
)
from webapp.search_pool.queue_pool import LOST, QueuePool


class Results:
    def __init__(self) -> None:
        self.got: list[tuple[SearchJob, dict[str, Any] | None, str | None]] = []
        self.event = threading.Event()

    def __call__(self, job: SearchJob, result: dict[str, Any] | None, error: str | None) -> None:
        self.got.append((job, result, error))
        self.event.set()


@pytest.fixture
def client(redis_url: str) -> Iterator[redis.Redis]:
    made = redis.Redis.from_url(redis_url, socket_timeout=5)
    yield made
    made.close()


@pytest.fixture
def pool(redis_url: str) -> Iterator[QueuePool]:
    made = QueuePool(redis_url, queue_limit=3)
    made.on_result = Results()
    made.start()
    yield made
    made.close()


def waiting(client: redis.Redis, queue: str = PLAY) -> list[dict[str, Any]]:
    """The payloads of the messages waiting in ``queue``, oldest first."""
    ids = client.lrange(queue_key(queue), 0, -1)
    messages = client.hmget(f"{queue_key(queue)}.msgs", ids) if ids else []
    return [json.loads(message)["args"][0] for message in messages]


def test_a_job_goes_on_its_queue_with_its_search_and_a_cancel_reaches_its_key(
    pool: QueuePool, client: redis.Redis
) -> None:
    engine = job("123", game_id="g1")
    pool.submit(engine)
    pool.submit(job("12", priority=Priority.ANALYSIS, game_id="g1"))
    [payload] = waiting(client)
    assert (payload["game"], payload["moves"], payload["game_id"]) == ("tictactoe", "123", "g1")
    assert payload["reply_to"] == pool.uid and payload["epoch"] == 1
    assert len(waiting(client, "analysis")) == 1

    pool.cancel(engine.id)
    assert client.exists(cancel_key(payload["uid"]))
    assert int(client.get(epoch_key("g1")) or 0) == 2  # the game's scores are moot


def test_a_trace_travels_as_a_trace_on_the_analysis_queue() -> None:
    limits = Limits(depth=4, nodes=900)
    tree = SearchJob("connect4", "4453", "alphabeta", limits, priority=Priority.ANALYSIS,
                     kind=TRACE, ordering="natural")  # fmt: skip
    payload = job_payload(tree, "uid", "pool")
    assert message_of(payload).queue_name == ANALYSIS
    again = job_of(json.loads(json.dumps(payload)))
    assert (again.kind, again.ordering, again.limits) == (TRACE, "natural", tree.limits)
    older = {key: value for key, value in payload.items() if key not in ("kind", "ordering")}
    assert job_of(older).kind == SEARCH  # a message from before kinds is a search
    for bad in ({"kind": "format-disk"}, {"ordering": "random"}):
        with pytest.raises(ValueError, match="unknown job kind"):
            job_of(payload | bad)  # a host replies with this error instead of running it


def test_an_engine_move_carries_its_turn_to_the_host() -> None:
    """The host's own pool takes turns by the mover's address, as the web process's does."""
    move = SearchJob("connect4", "44", "alphabeta", Limits(depth=2), owner="seat",
                     turn="addr:1.2.3.4")  # fmt: skip
    payload = job_payload(move, "uid", "pool")
    again = job_of(json.loads(json.dumps(payload)))
    assert (again.owner, again.turn) == ("seat", "addr:1.2.3.4")
    older = {key: value for key, value in payload.items() if key != "turn"}
    assert job_of(older).turn == ""  # a message from before turns: the owner's


def test_a_reply_reaches_on_result_and_one_for_a_cancelled_job_is_dropped(
    pool: QueuePool, client: redis.Redis
) -> None:
    kept, cancelled = job("1"), job("2")
    pool.submit(kept)
    pool.submit(cancelled)
    pool.cancel(cancelled.id)
    for payload in reversed(waiting(client)):
        client.rpush(replies_key(pool.uid), reply(payload["uid"], {"best_move": "5"}, None))
    results: Results = pool.on_result  # type: ignore[assignment]
    assert results.event.wait(30)
    wait_until(lambda: client.llen(replies_key(pool.uid)) == 0)
    assert [(j, r, e) for j, r, e in results.got] == [(kept, {"best_move": "5"}, None)]


def test_the_reply_reader_survives_a_malformed_reply(
    pool: QueuePool, client: redis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    kept = job("1")
    pool.submit(kept)
    (payload,) = waiting(client)
    for bad in ("not json", json.dumps({"no": "uid"}), json.dumps([1, 2])):
        client.rpush(replies_key(pool.uid), bad)
    client.rpush(replies_key(pool.uid), reply(payload["uid"], {"best_move": "5"}, None))
    results: Results = pool.on_result  # type: ignore[assignment]
    assert results.event.wait(30)  # read after the three it could not read
    assert results.got == [(kept, {"best_move": "5"}, None)]
    assert caplog.text.count("a reply dropped") == 3


def test_a_full_queue_refuses_and_says_so(pool: QueuePool) -> None:
    for moves in ("1", "2", "3"):
        pool.submit(job(moves))
    assert not pool.has_room(Priority.ENGINE)
    assert pool.has_room(Priority.ANALYSIS)  # its own queue
    with pytest.raises(PoolBusy):
        pool.submit(job("4"))
    assert pool.stats()["queued"] == {"play": 3, "analysis": 0}


def test_the_analysis_queue_has_a_bound_of_its_own(redis_url: str) -> None:
    pool = QueuePool(redis_url, queue_limit=3, analysis_limit=1)
    try:
        pool.submit(job("1", priority=Priority.ANALYSIS))
        assert not pool.has_room(Priority.ANALYSIS)
        with pytest.raises(PoolBusy, match="analysis queue is full"):
            pool.submit(job("2", priority=Priority.ANALYSIS))
        assert pool.has_room(Priority.ENGINE)  # analyses never make a move busy
        pool.submit(job("3"))
    finally:
        pool.close()


def test_a_job_taken_and_acknowledged_with_no_reply_is_reported_lost(
    pool: QueuePool, client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(queue_pool_module, "SWEEP_SECONDS", 0.05)
    monkeypatch.setattr(queue_pool_module, "LOST_SECONDS", 0.1)
    lost = job("1")
    pool.submit(lost)
    # A host took it and acknowledged it, and its reply was lost.
    client.delete(queue_key(PLAY), f"{queue_key(PLAY)}.msgs")
    results: Results = pool.on_result  # type: ignore[assignment]
    assert results.event.wait(30)
    assert results.got == [(lost, None, LOST)]


def test_without_redis_a_job_is_refused_and_health_says_why() -> None:
    pool = QueuePool(f"redis://127.0.0.1:{free_port()}/0")
    try:
        assert not pool.has_room()
        with pytest.raises(PoolBusy):
            pool.submit(job("1"))
        stats = pool.stats()
        assert stats["alive"] == 0 and stats["redis"].startswith("unavailable")
    finally:
        pool.close()


def host_ends(client: redis.Redis, payload: dict[str, Any], error: str) -> None:
    """What a host does once an engine search ended: its claim settled, everyone told."""
    uid = payload["uid"]
    for pool_uid in [payload["reply_to"], *settle_claim(client, payload["game_id"],
                                                        payload["moves"], uid)]:  # fmt: skip
        client.rpush(replies_key(pool_uid), reply(uid, None, error))


def test_a_second_process_asking_the_same_engine_search_follows_it(
    pool: QueuePool, redis_url: str, client: redis.Redis
) -> None:
    other = QueuePool(redis_url, queue_limit=3)
    other.on_result = Results()
    other.start()
    try:
        pool.submit(job("12", game_id="g1"))
        followed = job("12", game_id="g1")
        other.submit(followed)
        [payload] = waiting(client)  # one search queued for both
        assert payload["reply_to"] == pool.uid
        other.submit(job("4", game_id="g2"))  # another game's is queued as ever
        assert len(waiting(client)) == 2

        host_ends(client, payload, "engine move: the game moved on")
        theirs: Results = other.on_result  # type: ignore[assignment]
        assert theirs.event.wait(30)
        assert theirs.got == [(followed, None, "engine move: the game moved on")]
        # The same position asked again (an undo, the same move) is searched anew.
        again = job("12", game_id="g1")
        other.submit(again)
        assert [p["reply_to"] for p in waiting(client)][-1] == other.uid
    finally:
        other.close()


def test_a_cancelled_engine_search_is_not_followed(pool: QueuePool, client: redis.Redis) -> None:
    first = job("12", game_id="g1")
    pool.submit(first)
    pool.cancel(first.id)
    pool.submit(job("12", game_id="g1"))
    assert len(waiting(client)) == 2


def test_a_waiting_job_is_told_its_place_in_the_shared_queue(
    pool: QueuePool, redis_url: str, client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(queue_pool_module, "PLACES_SECONDS", 0.05)
    places: list[tuple[str, int]] = []
    told = threading.Event()

    def on_queued(queued: SearchJob, place: int) -> None:
        places.append((queued.moves, place))
        told.set()

    other = QueuePool(redis_url, queue_limit=3)
    other.on_queued = on_queued
    other.start()
    try:
        pool.submit(job("1", game_id="g1"))  # another process's, ahead of it
        mine = job("2", game_id="g2")
        other.submit(mine)
        assert told.wait(30)
        assert places[0] == ("2", 2) and other.position(mine.id) == 2
        client.lpop(queue_key(PLAY))  # a host took the first
        wait_until(lambda: ("2", 1) in places)
        assert other.position(mine.id) == 1
    finally:
        other.close()


def test_a_browsers_search_bound_holds_across_processes(redis_url: str) -> None:
    pools = [QueuePool(redis_url, owner_limit=2, game_limit=8) for _ in range(2)]
    try:
        first = job("1", priority=Priority.ANALYSIS, owner="browser", game_id="a")
        pools[0].submit(first)
        pools[1].submit(job("2", priority=Priority.ANALYSIS, owner="browser", game_id="b"))
        assert not pools[0].has_room(Priority.ANALYSIS, owner="browser")
        with pytest.raises(PoolBusy, match="you already have 2 searches"):
            pools[1].submit(job("3", priority=Priority.ANALYSIS, owner="browser", game_id="c"))
        assert pools[1].has_room(Priority.ANALYSIS, owner="another browser")
        assert pools[1].has_room(Priority.ENGINE, owner="browser")  # moves are bound apart
        pools[0].cancel(first.id)  # settled: its place is free, in every process
        assert pools[1].has_room(Priority.ANALYSIS, owner="browser")
        pools[1].submit(job("3", priority=Priority.ANALYSIS, owner="browser", game_id="c"))
    finally:
        for each in pools:
            each.close()


def test_two_processes_racing_for_a_browsers_last_searches_take_exactly_the_bound(
    redis_url: str,
) -> None:
    pools = [QueuePool(redis_url, owner_limit=3, game_limit=100) for _ in range(2)]
    taken: list[int] = []
    start = threading.Barrier(8)

    def ask(n: int) -> None:
        start.wait()
        for k in range(5):
            try:
                pools[n % 2].submit(
                    job(str(n * 5 + k), priority=Priority.ANALYSIS, owner="b", game_id="g")
                )
                taken.append(n)
            except PoolBusy:
                pass

    threads = [threading.Thread(target=ask, args=(n,)) for n in range(8)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert len(taken) == 3  # never more than the bound, whoever raced
    finally:
        for each in pools:
            each.close()


def test_a_dead_processs_units_lapse_however_busy_the_browser_stays(
    redis_url: str, client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A web process that dies holds its searches' units only for their time: another
    process taking and giving back the same browser's units does not keep them alive."""
    monkeypatch.setattr(queue_pool_module, "COUNT_SECONDS", 2)
    dead, alive = (QueuePool(redis_url, owner_limit=2) for _ in range(2))
    try:
        dead.submit(job("1", priority=Priority.ANALYSIS, owner="b", game_id="g1"))
        mine = alive.submit(job("2", priority=Priority.ANALYSIS, owner="b", game_id="g2"))
        assert not alive.has_room(Priority.ANALYSIS, owner="b")
        n = 3

        def busy_until_room() -> bool:
            nonlocal mine, n
            alive.cancel(mine)  # the browser's other searches come and go
            mine = alive.submit(job(str(n), priority=Priority.ANALYSIS, owner="b", game_id="g"))
            n += 1
            return alive.has_room(Priority.ANALYSIS, owner="b")

        wait_until(busy_until_room, timeout=15)
        alive.cancel(mine)
        alive.cancel(mine)  # given back twice: the count never goes below the truth
        seconds, micros = client.time()
        now = f"({seconds + micros / 1e6}"
        assert client.zcount(count_key(ANALYSIS, "owner", "b"), now, "+inf") == 0
    finally:
        alive.close()
        dead.close()


def test_the_depths_a_host_kept_are_read_for_the_position_asked(
    pool: QueuePool, client: redis.Redis
) -> None:
    rows = [{"moves": "12", "depth": 1}, {"moves": "12", "depth": 2}]
    client.rpush(depths_key("g1"), json.dumps({"moves": "1", "depth": 5}))
    client.rpush(depths_key("g1"), *[json.dumps(row) for row in rows])
    assert pool.depths("g1", "12") == rows
    assert pool.depths("g2", "12") == []


def test_an_engine_search_refused_by_a_bound_leaves_no_claim_behind(
    redis_url: str, client: redis.Redis
) -> None:
    pool = QueuePool(redis_url, owner_limit=1)
    try:
        pool.submit(job("1", owner="browser", game_id="g1"))
        with pytest.raises(PoolBusy, match="you already have 1 searches"):
            pool.submit(job("2", owner="browser", game_id="g2"))
        assert not client.exists(engine_key("g2", "2"))  # another process may ask it anew
        assert client.exists(engine_key("g1", "1"))
    finally:
        pool.close()
