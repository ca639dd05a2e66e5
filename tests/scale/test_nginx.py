"""deploy/nginx.conf as shipped, run by Debian's nginx on loopback in front of two web processes."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.scale.cluster import ROOT, START_SECONDS, Client, Cluster, Process, create_game
from tests.servers import free_port
from webapp import protocol

NGINX = Path("/usr/sbin/nginx")
SAMPLE = ROOT / "deploy" / "nginx.conf"


def main_config(folder: Path, port: int, first: Process, second: Process) -> Path:
    """nginx's main file around the sample, pointed at this test's ports and folder."""
    sample = SAMPLE.read_text()
    for placeholder, process in (("127.0.0.1:8001", first), ("127.0.0.1:8002", second)):
        assert placeholder in sample
        sample = sample.replace(placeholder, process.url.removeprefix("http://"))
    sample = sample.replace("listen 80;", f"listen 127.0.0.1:{port};")
    temp = {name: folder / name for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
    for path in temp.values():
        path.mkdir()
    config = folder / "nginx.conf"
    config.write_text(
        ("user root;\n" if os.geteuid() == 0 else "")  # its folders are ours, not nobody's
        + f"daemon off;\nworker_processes 1;\npid {folder}/nginx.pid;\n"
        + f"error_log {folder}/error.log;\nevents {{}}\nhttp {{\n"
        + f"access_log {folder}/access.log;\n"
        + f"client_body_temp_path {temp['body']};\nproxy_temp_path {temp['proxy']};\n"
        + f"fastcgi_temp_path {temp['fastcgi']};\nuwsgi_temp_path {temp['uwsgi']};\n"
        + f"scgi_temp_path {temp['scgi']};\n{sample}\n}}\n"
    )
    return config


@pytest.fixture
def nginx(cluster: Cluster) -> Iterator[str]:
    """Two web processes and a search host behind nginx; nginx's address."""
    if not NGINX.exists():
        pytest.fail(f"no {NGINX}: run scripts/test.sh, or apt-get install nginx")
    first = cluster.web("web-a", "TRUSTED_PROXIES=1")
    second = cluster.web("web-b", "TRUSTED_PROXIES=1")
    cluster.worker("worker")
    folder = cluster.folder / "nginx"
    folder.mkdir()
    port = free_port()
    config = main_config(folder, port, first, second)
    process = subprocess.Popen(
        [str(NGINX), "-p", str(folder), "-c", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                if requests.get(url + "/", timeout=5).status_code == 200:
                    break
            except requests.RequestException:
                pass
            error_log = folder / "error.log"
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"nginx did not start:\n{error_log.read_text(errors='replace')}")
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
