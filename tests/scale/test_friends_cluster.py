"""A game between two people across two web processes sharing Redis and PostgreSQL: the
creator's page on A, the guest's on B; who is connected is Redis's (presence.py)."""

from __future__ import annotations

import time

import requests

from tests.scale.cluster import WAIT, Client, Cluster
from tests.web.helpers import wait_until
from webapp import protocol

#: The grace before a claim, shortened for the test (60 s in play). Long enough that the
#: claim sent on seeing the creator leave cannot come after it, on a loaded machine.
ABANDON_SECONDS = 10
#: Heartbeats of the test's processes: a process vouches for three of them.
BEAT_SECONDS = 0.5


def claim(client: Client, game_id: str) -> dict[str, object]:
    return client.call(protocol.CLAIM, {"game_id": game_id, "result": "win"})


def test_a_claim_against_a_player_gone_from_the_other_process_waits_for_the_grace(
    cluster: Cluster,
) -> None:
    settings = (
        f"FRIEND_ABANDON_SECONDS={ABANDON_SECONDS}",
        f"PRESENCE_BEAT_SECONDS={BEAT_SECONDS}",
    )
    a, b = cluster.web("web-a", *settings), cluster.web("web-b", *settings)
    creator_http, guest_http = requests.Session(), requests.Session()
    body = {"game": "connect4", "opponent": "friend", "settings": {"starts": "me"}}
    created = creator_http.post(f"{a.url}/api/games", json=body, timeout=WAIT)
    assert created.status_code == 201, created.text
    game_id, invite = created.json()["id"], created.json()["invite_url"].split("invite=")[1]
    seated = guest_http.post(
        f"{b.url}/api/games/{game_id}/seat", json={"invite": invite}, timeout=WAIT
    )
    assert seated.status_code == 200, seated.text

    creator, guest = Client(a.url, creator_http), Client(b.url, guest_http)
    try:
        creator.join(game_id)
        guest.join(game_id)
        assert creator.call(protocol.MOVE, {"game_id": game_id, "move": "4"}) == {"ok": True}
        assert guest.call(protocol.MOVE, {"game_id": game_id, "move": "4"}) == {"ok": True}

        # Connected to A, the creator cannot be claimed against on B, however long it lasts.
        time.sleep(ABANDON_SECONDS + 3 * BEAT_SECONDS + 1)
        assert claim(guest, game_id)["code"] == protocol.TOO_EARLY
        assert guest.join(game_id)["friend"]["gone_ms"] == [None, None]

        creator.close()  # A's last socket of the creator: A notes when, and tells B's room
        left = guest.wait_for(protocol.STATE, lambda s: s["friend"]["gone_ms"][0] is not None)
        assert left["friend"]["gone_ms"][0] < ABANDON_SECONDS * 1000
        assert claim(guest, game_id)["code"] == protocol.TOO_EARLY  # the grace is not over

        def granted() -> bool:
            answer = claim(guest, game_id)
            if answer == {"ok": True}:
                return True
            assert answer["code"] == protocol.TOO_EARLY, answer
            time.sleep(0.5)  # ask again in a moment
            return False

        wait_until(granted, timeout=ABANDON_SECONDS + WAIT)  # the grace ends: granted
        over = guest.wait_for(protocol.STATE, lambda s: s["status"] == "won")
        assert (over["winner"], over["friend"]["end"]) == (1, "abandon")
        assert over["friend"]["your_side"] == 1
    finally:
        creator.close()
        guest.close()
