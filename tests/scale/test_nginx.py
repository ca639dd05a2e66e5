"""deploy/nginx.conf as shipped, run by Debian's nginx on loopback in front of two web processes."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import requests

from tests.scale.cluster import START_SECONDS, Client, Cluster, create_game
from tests.servers import free_port
from webapp import protocol
from webapp.bench.load_nginx import NGINX, SAMPLE, SAMPLE_BACKENDS, start_nginx


@pytest.fixture
def nginx(cluster: Cluster) -> Iterator[str]:
    """Two web processes and a search host behind nginx; nginx's address."""
    if not NGINX.exists():
        pytest.fail(f"no {NGINX}: run scripts/test.sh, or apt-get install nginx")
    assert all(f"server {backend};" in SAMPLE.read_text() for backend in SAMPLE_BACKENDS)
    first = cluster.web("web-a", "TRUSTED_PROXIES=1")
    second = cluster.web("web-b", "TRUSTED_PROXIES=1")
    cluster.worker("worker")
    port = free_port()
    process, error_log = start_nginx(cluster.folder / "nginx", port, [first.url, second.url])
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                if requests.get(url + "/", timeout=5).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                said = error_log.read_text(errors="replace") if error_log.exists() else ""
                pytest.fail(f"nginx did not start:\n{said}")
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_a_game_is_played_and_watched_through_nginx(nginx: str) -> None:
    http = requests.Session()
    game_id = create_game(nginx, http)
    player = Client(nginx, http)  # WebSocket
    spectator = Client(nginx, transport="polling")  # long-polling: the sticky upstream
    try:
        assert player.join(game_id)["seat"] == "player"
        assert spectator.join(game_id)["seat"] == "spectator"
        assert player.call(protocol.MOVE, {"game_id": game_id, "move": "5"}) == {"ok": True}
        reply = spectator.wait_for(protocol.ENGINE_MOVE, lambda m: m["moves"] == "5")
        after = "5" + reply["move"]
        player.wait_for(protocol.STATE, lambda s: s["moves"] == after)
        page = requests.get(f"{nginx}/g/{game_id}", timeout=30)
        assert page.status_code == 200 and game_id in page.text
    finally:
        player.close()
        spectator.close()
