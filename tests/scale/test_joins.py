"""A page joining a game through another web process while a host searches its engine move."""

from __future__ import annotations

import redis
import requests

from tests.scale.cluster import Client, Cluster, create_game, game_of
from tests.scale.depth_engine import DEPTH_THEN_HELD
from tests.web.fake_searches import Holds
from tests.web.held_engine import label
from tests.web.helpers import wait_until
from webapp import protocol
from webapp.search_pool.queue import PLAY, queue_key


def unsettled(url: str) -> int:
    count: int = requests.get(f"{url}/healthz", timeout=30).json()["workers"]["unsettled"]
    return count


def test_a_page_joining_through_another_process_follows_the_search_and_gets_its_depths(
    cluster: Cluster,
) -> None:
    a, b = cluster.web("web-a"), cluster.web("web-b")
    cluster.worker("worker", DEPTH_THEN_HELD)
    holds = Holds(cluster.folder / "holds")
    client = redis.Redis.from_url(cluster.redis_url, socket_timeout=5)
    http = requests.Session()
    game_id = create_game(a.url, http)
    player = Client(a.url, http)
    spectator: Client | None = None
    try:
        player.join(game_id)
        assert player.call(protocol.MOVE, {"game_id": game_id, "move": "4"}) == {"ok": True}
        holds.started(label("tictactoe", "4"))  # its first depth is out, the rest held
        first = player.wait_for(protocol.THINKING, lambda t: t["moves"] == "4")

        spectator = Client(b.url)
        assert spectator.join(game_id)["seat"] == "spectator"
        # The depth sent before it joined is replayed by B, which never asked for the search.
        replayed = spectator.wait_for(protocol.THINKING, lambda t: t["moves"] == "4")
        assert replayed["depth"] == first["depth"] and replayed["pv"] == first["pv"]
        # B follows A's search rather than queue the same one again.
        assert client.hlen(f"{queue_key(PLAY)}.msgs") == 1
        assert game_of(b.url, game_id)["engine_thinking"]  # B waits on A's search

        holds.release()
        reply = spectator.wait_for(protocol.ENGINE_MOVE, lambda m: m["moves"] == "4")
        after = "4" + reply["move"]
        player.wait_for(protocol.STATE, lambda s: s["moves"] == after)
        assert game_of(b.url, game_id)["moves"] == after
        # The host told B that the search ended: it waits for nothing.
        wait_until(lambda: not game_of(b.url, game_id)["engine_thinking"], 30)
        wait_until(lambda: unsettled(b.url) == 0, 30)
    finally:
        player.close()
        if spectator is not None:
            spectator.close()
        client.close()
