"""The load bench's lean Socket.IO client speaks the protocol a real server expects.

Against the real server (``python -m webapp``): a page's cookies make it the player, an
acknowledged ``join`` answers with the game's state, a move gets the engine's reply and
a move where it holds no seat an ``error`` event. Against a scripted Engine.IO server on
a socket: the server's pings are answered, and a server that closes is told as one
disconnect.
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest
import requests
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, CloseConnection, Request, TextMessage

from tests.web.helpers import WAIT, run_async
from tests.web.test_end_to_end import Server
from webapp import protocol
from webapp.bench.lean_players import LeanPlayer, LoopBarrier
from webapp.bench.lean_socketio import ConnectFailed, LeanClient
from webapp.bench.load_players import PlayerPlan, Tally
from webapp.games import new_game


@pytest.mark.slow
def test_a_lean_client_joins_plays_and_is_refused_like_a_page(tmp_path: Path) -> None:
    server = Server(tmp_path / "games.db", tmp_path / "server.log", "--set", "SEARCH_WARMUP=false")
    try:
        http = requests.Session()
        body = {"game": "connect4", "settings": {"level": "easy"}}
        state = http.post(f"{server.url}/api/games", json=body, timeout=WAIT).json()
        cookies = "; ".join(f"{c.name}={c.value}" for c in http.cookies)

        async def play() -> tuple[list[Any], dict[str, Any], dict[str, Any]]:
            replies: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
            player, stranger = LeanClient(), LeanClient()
            for client, name in ((player, "player"), (stranger, "stranger")):
                for event in (protocol.ENGINE_MOVE, protocol.ERROR):
                    client.on(event, lambda p, e=event, n=name: replies.put_nowait((n + e, p)))
            await player.connect(server.url, cookies)
            await stranger.connect(server.url)  # no cookie: no seat
            joined = await player.call(protocol.JOIN, {"game_id": state["id"]})
            await stranger.call(protocol.JOIN, {"game_id": state["id"]})
            await stranger.emit(protocol.MOVE, {"game_id": state["id"], "move": "4"})
            refused = await replies.get()
            await player.emit(protocol.MOVE, {"game_id": state["id"], "move": "4"})
            name, reply = await replies.get()
            while name != "player" + protocol.ENGINE_MOVE:
                name, reply = await replies.get()
            await player.disconnect()
            await stranger.disconnect()
            assert not player.connected and not stranger.connected
            return joined, refused, reply

        joined, refused, reply = run_async(play())
        assert joined[0]["id"] == state["id"] and joined[0]["moves"] == ""
        assert refused[0] == "stranger" + protocol.ERROR
        assert refused[1]["code"] == "spectator"  # it holds no seat
        assert reply["game_id"] == state["id"] and reply["moves"] == "4"
        assert reply["move"] in "1234567"
    finally:
        server.stop()


@pytest.mark.slow
def test_a_lean_players_next_game_is_asked_over_the_finished_games_connection(
    tmp_path: Path,
) -> None:
    """As the game page's "New game" does: no POST and no new connection once a game ended
    on a connection, and the next game is this browser's (a first game, or one whose
    connection is lost, is made by POST like the home page's)."""
    server = Server(tmp_path / "games.db", tmp_path / "server.log", "--set", "SEARCH_WARMUP=false")
    try:

        async def two_games() -> tuple[list[str], list[str], list[str]]:
            plan = PlayerPlan("tictactoe", {"level": "easy"}, 0, (0.0, 0.0), threading.Event())
            player = LeanPlayer(server.url, plan, Tally(), 0, asyncio.Event(), None, None)
            posts: list[str] = []
            real = player.http.post

            def post(url: str, **options: Any) -> requests.Response:
                posts.append(url)
                return real(url, **options)

            player.http.post = post  # type: ignore[method-assign]
            games = []
            await player.new_game()  # a first game: by POST
            games.append(player.game_id)
            player.position = new_game("tictactoe", "14253")  # as if it ended (X's row)
            connection = player.sio
            await player.new_game()  # over the connection, switched in place: kept
            games.append(player.game_id)
            assert player.sio is connection and player.sio is not None and player.sio.connected
            assert player.moves == "" and not player.position.is_terminal()
            await player.sio.disconnect()  # the connection lost: by POST again
            await player.new_game()
            games.append(player.game_id)
            await player.close()
            mine = requests.get(
                f"{server.url}/api/my/games", timeout=WAIT, cookies=player.http.cookies
            )
            return games, posts, [game["id"] for game in mine.json()]

        games, posts, mine = run_async(two_games())
        assert len(set(games)) == 3 and all(games)
        assert posts == [f"{server.url}/api/games"] * 2  # the first and the third
        assert sorted(mine) == sorted(games)  # all three this browser's
    finally:
        server.stop()


class ScriptedServer:
    """An Engine.IO server on a loopback socket that says what a test scripts."""

    def __init__(self, script: list[str], close: bool = False) -> None:
        self.script, self.close = script, close
        self.heard: list[str] = []
        self.done = asyncio.Event()

    async def start(self) -> str:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        ws = WSConnection(ConnectionType.SERVER)
        pending = list(self.script)
        while not self.done.is_set():
            data = await reader.read(65536)
            if not data:
                break
            ws.receive_data(data)
            for event in ws.events():
                if isinstance(event, Request):
                    writer.write(ws.send(AcceptConnection()))
                    writer.write(ws.send(TextMessage('0{"sid":"s","pingInterval":25000}')))
                elif isinstance(event, TextMessage):
                    self.heard.append(event.data)
                    if pending:  # each message heard is answered by the script's next
                        writer.write(ws.send(TextMessage(pending.pop(0))))
                    elif self.close:  # then the first one past it by a close
                        writer.write(ws.send(CloseConnection(code=1000)))
                elif isinstance(event, CloseConnection):
                    self.done.set()
            await writer.drain()
        writer.close()


def test_the_servers_pings_are_answered_and_its_events_handled() -> None:
    async def scenario() -> tuple[list[str], list[Any]]:
        # After the namespace's "40": its connect ("40{...}"), then a ping, then an event.
        script = ['40{"sid":"n"}', "2", '42["state",{"id":"g"}]']
        fake = ScriptedServer(script)
        url = await fake.start()
        states: list[Any] = []
        told = asyncio.Event()
        client = LeanClient()
        client.on(protocol.STATE, lambda payload: (states.append(payload), told.set()))
        await client.connect(url)
        await client.emit("hello", {"n": 1})  # heard: the ping follows it, then the event
        await told.wait()
        await client.disconnect()
        await fake.done.wait()  # the close frame reached the server
        fake.server.close()
        return fake.heard, states

    heard, states = run_async(scenario())
    assert heard[0] == "40"  # the default namespace, asked for on Engine.IO's open
    assert "3" in heard  # the ping's pong
    assert '42["hello",{"n":1}]' in heard
    assert states == [{"id": "g"}]


def test_a_server_that_closes_is_one_disconnect_and_fails_waiting_calls() -> None:
    async def scenario() -> tuple[int, str]:
        fake = ScriptedServer(['40{"sid":"n"}'], close=True)
        url = await fake.start()
        client = LeanClient()
        told = []
        client.disconnected = lambda: told.append(1)
        await client.connect(url)
        failure = ""
        try:
            await client.call(protocol.JOIN, {"game_id": "g"}, timeout=WAIT)
        except ConnectionError as error:
            failure = str(error)
        await client.disconnect()  # already over: nothing more is told
        fake.server.close()
        return len(told), failure

    told, failure = run_async(scenario())
    assert told == 1
    assert failure == "the connection ended"  # the join waiting on its answer


def test_a_refused_namespace_fails_the_connect() -> None:
    async def scenario() -> str:
        fake = ScriptedServer(['44{"message":"no"}'])
        url = await fake.start()
        client = LeanClient()
        try:
            await client.connect(url, timeout=WAIT)
        except ConnectFailed as error:
            return str(error)
        finally:
            fake.server.close()
        return ""

    assert json.loads(run_async(scenario()).split(": ", 1)[1]) == {"message": "no"}


def test_a_player_that_stops_before_a_barrier_holds_nobody_there() -> None:
    """The burst and the steady window's barriers: a player that failed to start (or stopped
    before the window) is left out, and the others go on at once, the action run once."""

    async def scenario() -> tuple[list[str], bool, bool]:
        ran: list[str] = []
        barrier = LoopBarrier(3, lambda: ran.append("opened"))
        waiting = [asyncio.create_task(barrier.wait(WAIT)) for _ in range(2)]
        await asyncio.sleep(0)  # both are waiting
        before = barrier.open.is_set()
        barrier.abandon()  # the third stopped before it
        await asyncio.wait_for(asyncio.gather(*waiting), WAIT)
        return ran, before, barrier.open.is_set()

    ran, before, after = run_async(scenario())
    assert (ran, before, after) == (["opened"], False, True)
