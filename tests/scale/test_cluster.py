"""Two web processes and search hosts around one PostgreSQL and one Redis, all real.

Each test starts its processes (``cluster.py``) and talks to them as browsers
do: HTTP for the pages and the API, python-socketio for the game's events.
"""

from __future__ import annotations

import threading
from typing import Any

import requests

from tests.scale.cluster import Client, Cluster, create_game, game_of
from tests.web.fake_searches import Holds
from tests.web.held_engine import HELD, label
from tests.web.helpers import options_exact, wait_until
from webapp import protocol
from webapp.search_pool import DEPTHS


def test_a_spectator_on_another_process_sees_the_move_and_the_engines_reply(
    cluster: Cluster,
) -> None:
    a, b = cluster.web("web-a"), cluster.web("web-b")
    cluster.worker("worker")
    http = requests.Session()
    game_id = create_game(a.url, http)
    player, spectator = Client(a.url, http), Client(b.url)
    try:
        assert player.join(game_id)["seat"] == "player"
        assert spectator.join(game_id)["seat"] == "spectator"
        assert player.call(protocol.MOVE, {"game_id": game_id, "move": "4"}) == {"ok": True}

        seen = spectator.wait_for(protocol.STATE, lambda s: s["moves"] == "4")
        reply = spectator.wait_for(protocol.ENGINE_MOVE, lambda m: m["moves"] == "4")
        assert seen["id"] == game_id
        # The host gave the room the search's depths: streamed before its move, or (a
        # search done in milliseconds) with it.
        assert reply.get(DEPTHS) or spectator.wait_for(
            protocol.THINKING, lambda t: t["moves"] == "4"
        )
        after = "4" + reply["move"]
        player.wait_for(protocol.STATE, lambda s: s["moves"] == after)
        assert game_of(b.url, game_id)["moves"] == game_of(a.url, game_id)["moves"] == after

        # An analysis asked on B is run by the host and answered to the asker only.
        spectator.call(protocol.ANALYSE, {"game_id": game_id, "algorithm": "minimax"})
        analysis = spectator.wait_for(protocol.ANALYSIS, lambda m: m["moves"] == after)
        assert analysis["algorithm"] == "minimax" and not player.named(protocol.ANALYSIS)

        health = requests.get(f"{a.url}/healthz", timeout=30)
        assert health.status_code == 200, health.text
        workers = health.json()["workers"]
        assert workers["hosts"] == 1 and workers["alive"] == 2
        assert set(workers["queued"]) == {"play", "analysis"}
    finally:
        player.close()
        spectator.close()


def test_one_seat_moving_through_two_processes_at_once_gets_one_move(cluster: Cluster) -> None:
    a, b = cluster.web("web-a"), cluster.web("web-b")
    cluster.worker("worker")
    http = requests.Session()
    game_id = create_game(a.url, http)
    through_a, through_b = Client(a.url, http), Client(b.url, http)
    try:
        assert through_a.join(game_id)["seat"] == through_b.join(game_id)["seat"] == "player"
        start = threading.Barrier(2)
        answers: dict[str, dict[str, Any]] = {}

        def move(name: str, client: Client, cell: str) -> None:
            start.wait(timeout=30)
            answers[name] = client.call(protocol.MOVE, {"game_id": game_id, "move": cell})

        threads = [
            threading.Thread(target=move, args=("a", through_a, "1")),
            threading.Thread(target=move, args=("b", through_b, "9")),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        oks = [name for name, answer in answers.items() if answer == {"ok": True}]
        refused = [answer for answer in answers.values() if answer != {"ok": True}]
        assert len(oks) == 1 and len(refused) == 1, answers
        assert refused[0]["code"] in (protocol.CONFLICT, protocol.NOT_YOUR_TURN)
        played = "1" if oks == ["a"] else "9"

        winner = through_a if oks == ["a"] else through_b
        reply = winner.wait_for(protocol.ENGINE_MOVE, lambda m: m["moves"] == played)
        after = played + reply["move"]
        for client in (through_a, through_b):
            client.wait_for(protocol.STATE, lambda s: s["moves"] == after)
        state_a, state_b = game_of(a.url, game_id), game_of(b.url, game_id)
        assert state_a["moves"] == state_b["moves"] == after
        # The engine's options may be stored between the two reads: the same game once
        # both have it.
        wait_until(lambda: game_of(a.url, game_id)["version"] == game_of(b.url, game_id)["version"])
    finally:
        through_a.close()
        through_b.close()


def test_a_cancel_reaches_the_search_on_its_host(cluster: Cluster) -> None:
    web = cluster.web("web")
    cluster.worker("worker", HELD)
    holds = Holds(cluster.folder / "holds")
    http = requests.Session()
    game_id = create_game(web.url, http)
    player = Client(web.url, http)
    try:
        player.join(game_id)
        assert player.call(protocol.MOVE, {"game_id": game_id, "move": "4"}) == {"ok": True}
        holds.started(label("tictactoe", "4"))
        assert player.call(protocol.UNDO, {"game_id": game_id}) == {"ok": True}
        wait_until(lambda: holds.cancelled(label("tictactoe", "4")), 30)
        # The search cut short reports a move; it is not applied.
        player.wait_for(protocol.STATE, lambda s: s["moves"] == "" and not s["engine_thinking"])
        holds.release()
        assert player.call(protocol.MOVE, {"game_id": game_id, "move": "5"}) == {"ok": True}
        player.wait_for(protocol.ENGINE_MOVE, lambda m: m["moves"] == "5")
        assert [m["moves"] for m in player.named(protocol.ENGINE_MOVE)] == ["5"]
        assert game_of(web.url, game_id)["moves"].startswith("5")
    finally:
        player.close()


def test_a_search_whose_host_dies_is_made_by_another_host(cluster: Cluster) -> None:
    web = cluster.web("web")
    first = cluster.worker("worker-1", HELD)
    holds = Holds(cluster.folder / "holds")
    http = requests.Session()
    game_id = create_game(web.url, http)
    player = Client(web.url, http)
    try:
        player.join(game_id)
        assert player.call(protocol.MOVE, {"game_id": game_id, "move": "4"}) == {"ok": True}
        holds.started(label("tictactoe", "4"))  # the first host searches...
        first.kill()  # ...and dies, with its search processes, without a word
        holds.release()
        cluster.worker("worker-2", HELD)

        reply = player.wait_for(protocol.ENGINE_MOVE, lambda m: m["moves"] == "4")
        after = "4" + reply["move"]
        assert game_of(web.url, game_id)["moves"] == after
        assert len(player.named(protocol.ENGINE_MOVE)) == 1  # made once
    finally:
        player.close()


def test_after_restarting_everything_every_game_is_where_it_was(cluster: Cluster) -> None:
    a, b = cluster.web("web-a"), cluster.web("web-b")
    cluster.worker("worker")
    played: dict[str, dict[str, Any]] = {}
    for index, web in enumerate((a, b, a), start=1):
        http = requests.Session()
        game_id = create_game(web.url, http, **({"level": "hard"} if index > 1 else {}))
        player = Client(web.url, http)
        try:
            player.join(game_id)
            moved = player.call(protocol.MOVE, {"game_id": game_id, "move": str(index)})
            assert moved == {"ok": True}, moved
            player.wait_for(protocol.ENGINE_MOVE, lambda m: m["moves"] == str(index))  # noqa: B023
            # At rest: the scores of the moves the engine did not play are stored too, all
            # exact (an estimate is stored again, a version later, once its exact pass is in).
            player.wait_for(protocol.STATE, options_exact)
        finally:
            player.close()
        played[game_id] = game_of(web.url, game_id)

    cluster.stop()
    c = cluster.web("web-c")
    for game_id, state in played.items():
        now = game_of(c.url, game_id)
        assert {k: now[k] for k in ("moves", "status", "version", "settings")} == {
            k: state[k] for k in ("moves", "status", "version", "settings")
        }


def test_a_perfect_moves_line_follows_it_through_the_host_to_every_process(
    cluster: Cluster,
) -> None:
    """The host applies the engine's exactly solved move with itself alone as its line, then
    searches the line (``services/engine_line.py``) and keeps it with the move: a page on
    the other process hears it, and both processes read it from the store."""
    from tests.web.test_engine_line import OPENING, PLAYED, proved

    a, b = cluster.web("web-a"), cluster.web("web-b")
    cluster.worker("worker")
    http = requests.Session()
    body = {"game": "connect4", "moves": OPENING, "settings": {"level": "perfect"}}
    response = http.post(f"{a.url}/api/games", json=body, timeout=30)
    assert response.status_code == 201, response.text
    game_id = response.json()["id"]
    player, spectator = Client(a.url, http), Client(b.url)
    try:
        assert player.join(game_id)["seat"] == "player"
        assert spectator.join(game_id)["seat"] == "spectator"
        searched = OPENING + PLAYED
        assert player.call(protocol.MOVE, {"game_id": game_id, "move": PLAYED}) == {"ok": True}
        reply = spectator.wait_for(protocol.ENGINE_MOVE, lambda m: m["moves"] == searched)
        assert reply["pv"] == reply["move"] and reply["exact"]

        def with_line(state: dict[str, Any]) -> bool:
            last = state.get("last_engine_move") or {}
            return bool(last.get("moves") == searched and len(last.get("pv", "")) > 1)

        line = spectator.wait_for(protocol.STATE, with_line)["last_engine_move"]["pv"]
        assert line.startswith(reply["move"])
        proved(searched, line)
        for web in (a, b):
            stored = game_of(web.url, game_id)["last_engine_move"]
            assert stored["pv"] == line and stored["line_after"] is True
    finally:
        player.close()
        spectator.close()
