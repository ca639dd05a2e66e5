"""Engine.IO's WebSocket transport under gunicorn (webapp/web/websocket.py): frames read on
the connection's own thread, written by the thread that sends, a backlog for a client that
does not read, and no reader or writer thread per connection."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import socket
import threading
import time
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import socketio
from engineio import packet
from engineio.socket import Socket as EngineSocket
from wsproto import ConnectionType, WSConnection
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Message,
    Ping,
    Pong,
    Request,
    TextMessage,
)

from tests.web.helpers import WAIT, run_async, wait_until
from tests.web.test_end_to_end import Browser, Server, check_engine_moves, play_against_the_engine
from tests.web.test_main import raw_request
from webapp import protocol
from webapp.bench.lean_socketio import LeanClient
from webapp.bench.processes import descendants
from webapp.web import websocket
from webapp.web.websocket import Connection, PingTask, SocketQueue

MAX_MESSAGE = 1000


class Client:
    """The browser's end of a socket pair: a wsproto client connection."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock, self.ws = sock, WSConnection(ConnectionType.CLIENT)
        self.sock.settimeout(WAIT)

    def request(self) -> dict[str, Any]:
        """Send the upgrade request; the WSGI environ a server would have made of it."""
        raw = self.ws.send(Request(host="lookahead.test", target="/socket.io/?EIO=4"))
        lines = raw.decode().split("\r\n")
        environ: dict[str, Any] = {"RAW_URI": lines[0].split()[1]}
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(": ")
                environ["HTTP_" + name.upper().replace("-", "_")] = value
        return environ

    def send(self, event: Any) -> None:
        self.sock.sendall(self.ws.send(event))

    def events(self, count: int) -> list[Any]:
        """Read until ``count`` events have come (or the server closes the socket)."""
        got: list[Any] = []
        while len(got) < count:
            data = self.sock.recv(65536)
            if not data:
                break
            self.ws.receive_data(data)
            got += list(self.ws.events())
        return got

    def texts(self, count: int) -> list[str]:
        """The next ``count`` whole text messages (wsproto hands long ones over in parts)."""
        whole: list[str] = []
        part = ""
        while len(whole) < count:
            for event in self.events(1):
                assert isinstance(event, TextMessage)
                part += event.data
                if event.message_finished:
                    whole.append(part)
                    part = ""
        return whole


@pytest.fixture
def pair() -> Iterator[tuple[Connection, Client]]:
    """An accepted WebSocket: the server's ``Connection`` and the client's end."""
    server_end, client_end = socket.socketpair()
    client = Client(client_end)
    connection = Connection(server_end, MAX_MESSAGE)
    assert connection.accept(client.request())
    assert isinstance(client.events(1)[0], AcceptConnection)
    yield connection, client
    server_end.close()
    client_end.close()


def test_whole_messages_come_in_and_go_out(pair: tuple[Connection, Client]) -> None:
    connection, client = pair
    client.send(TextMessage(data='42["move",', message_finished=False))
    client.send(TextMessage(data='{"move":"4"}]'))
    client.send(Message(data=b"\x01\x02"))
    assert connection.receive() == '42["move",{"move":"4"}]'
    assert connection.receive() == b"\x01\x02"
    connection.send('42["state",{}]')
    connection.send(b"\x03")
    text, binary = client.events(2)
    assert isinstance(text, TextMessage) and text.data == '42["state",{}]'
    assert isinstance(binary, BytesMessage) and binary.data == b"\x03"


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65535, 65536, 70000])
def test_a_message_is_framed_as_wsproto_frames_it(
    pair: tuple[Connection, Client], size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``data_frame`` writes the bytes wsproto would (lengths at each header form's bounds,
    text past ASCII, binary), ``Connection.send`` writes them, and the client reads each
    message whole."""
    connection, client = pair
    framed: list[bytes] = []
    frame = websocket.data_frame

    def counted(message: str | bytes) -> bytes:
        framed.append(frame(message))
        return framed[-1]

    monkeypatch.setattr(websocket, "data_frame", counted)
    accepted = WSConnection(ConnectionType.SERVER)
    accepted.receive_data(
        WSConnection(ConnectionType.CLIENT).send(Request(host="lookahead.test", target="/"))
    )
    assert isinstance(next(accepted.events()), Request)
    accepted.send(AcceptConnection())
    text = "é" * (size // 4) + "x" * (size - 2 * (size // 4))  # ``size`` bytes in UTF-8
    assert len(text.encode()) == size
    binary = bytes(range(256)) * (size // 256) + bytes(size % 256)
    assert frame(text) == accepted.send(TextMessage(data=text))
    assert frame(binary) == accepted.send(Message(data=binary))
    with pytest.raises(TypeError):
        frame(3)  # type: ignore[arg-type]
    connection.send(text)
    assert client.texts(1) == [text]
    connection.send(binary)
    got, finished = b"", False
    while not finished:
        for event in client.events(1):
            assert isinstance(event, BytesMessage) and not finished
            got, finished = got + event.data, event.message_finished
    assert got == binary
    assert framed == [frame(text), frame(binary)]


def test_a_ping_is_answered_while_reading(pair: tuple[Connection, Client]) -> None:
    connection, client = pair
    client.send(Ping(payload=b"hi"))
    client.send(TextMessage(data="2"))
    assert connection.receive() == "2"
    (pong,) = client.events(1)
    assert isinstance(pong, Pong) and pong.payload == b"hi"


def test_a_message_past_the_limit_ends_the_connection(pair: tuple[Connection, Client]) -> None:
    connection, client = pair
    client.send(TextMessage(data="x" * (MAX_MESSAGE // 2), message_finished=False))
    client.send(TextMessage(data="x" * (MAX_MESSAGE // 2 + 1)))
    assert connection.receive() is None
    said, close = client.events(2)  # why, as the app's error event, then the close code
    assert isinstance(said, TextMessage) and said.data.startswith("42")
    name, payload = json.loads(said.data[2:])
    assert name == protocol.ERROR and payload["code"] == protocol.BAD_REQUEST
    assert f"over {MAX_MESSAGE:,} bytes" in payload["message"]
    assert isinstance(close, CloseConnection) and close.code == 1009
    with pytest.raises(websocket.Closed):
        connection.send("too late")


def test_empty_fragments_count_against_the_limit(pair: tuple[Connection, Client]) -> None:
    """A message sent as endless empty parts would otherwise grow for ever in memory."""
    connection, client = pair
    client.send(TextMessage(data="4", message_finished=False))
    for _ in range(2 * MAX_MESSAGE // websocket.FRAGMENT_COST):
        client.send(TextMessage(data="", message_finished=False))
    client.send(TextMessage(data="2"))
    assert connection.receive() is None  # not "42"
    said, close = client.events(2)
    assert isinstance(said, TextMessage) and said.data.startswith('42["error"')
    assert isinstance(close, CloseConnection) and close.code == 1009


def test_the_client_closing_ends_reading(pair: tuple[Connection, Client]) -> None:
    connection, client = pair
    client.send(TextMessage(data="4"))
    client.send(CloseConnection(code=1000))
    assert connection.receive() == "4"  # what came before the close is read
    assert connection.receive() is None
    (answer,) = client.events(1)
    assert isinstance(answer, CloseConnection) and answer.code == 1000


def test_closing_from_another_thread_ends_a_waiting_read(pair: tuple[Connection, Client]) -> None:
    connection, client = pair
    read: list[Any] = []
    reader = threading.Thread(target=lambda: read.append(connection.receive()))
    reader.start()
    connection.close()  # Engine.IO closing the socket (a ping timeout, the server stopping)
    reader.join(WAIT)
    assert not reader.is_alive() and read == [None]
    (close,) = client.events(1)
    assert isinstance(close, CloseConnection)


def test_a_client_that_does_not_read_never_holds_the_sender(
    pair: tuple[Connection, Client],
) -> None:
    """The sends return at once (a blocking one would hang this test past its timeout);
    what the kernel did not take is written later, in order, once the client reads."""
    connection, client = pair
    message = "y" * 40_000
    sent = 0
    while connection._backlog is None:  # until the kernel's buffers are full
        connection.send(f"{sent:06d}{message}")
        sent += 1
    assert websocket.BACKLOG_BYTES > 5 * 40_000  # what follows stays within its bound
    for _ in range(4):
        connection.send(f"{sent:06d}{message}")
        sent += 1
    got = client.texts(sent)
    assert [int(text[:6]) for text in got] == list(range(sent))
    assert all(text[6:] == message for text in got)
    connection.linger()
    assert connection._backlog is None and connection._writer is not None
    assert not connection._writer.is_alive()  # the backlog's thread ends with it


def test_a_finished_connection_ends_its_backlogs_writer(pair: tuple[Connection, Client]) -> None:
    connection, _ = pair
    while connection._backlog is None:  # the client reads nothing
        connection.send("w" * 60_000)
    connection.close()
    connection.linger(0.05)  # the writer waits for the client in vain, then is ended
    assert connection._writer is not None and not connection._writer.is_alive()


def test_a_backlog_past_its_bound_ends_the_connection(
    pair: tuple[Connection, Client], monkeypatch: pytest.MonkeyPatch
) -> None:
    connection, client = pair
    monkeypatch.setattr(websocket, "BACKLOG_BYTES", 200_000)
    with pytest.raises(websocket.Closed):
        for _ in range(1000):  # about 60 MB if nothing ended it
            connection.send("z" * 60_000)
    assert connection.receive() is None  # its own thread stops reading too
    client.sock.settimeout(WAIT)
    while client.sock.recv(1 << 20):
        pass  # the end of the stream: the server shut it down


def test_a_request_that_is_no_websocket_handshake_is_refused() -> None:
    server_end, client_end = socket.socketpair()
    with server_end, client_end:
        environ = {"RAW_URI": "/socket.io/?EIO=4", "HTTP_HOST": "lookahead.test"}
        assert not Connection(server_end, MAX_MESSAGE).accept(environ)


class Recorder:
    """A stand-in ``Connection``: what a ``SocketQueue`` writes to it."""

    def __init__(self) -> None:
        self.sent: list[str | bytes] = []
        self.closed = False

    def send(self, message: str | bytes) -> None:
        self.sent.append(message)

    def close(self) -> None:
        self.closed = True


def test_the_socket_queue_is_a_queue_until_attached_then_writes_at_once() -> None:
    queued = SocketQueue()
    queued.put(packet.Packet(packet.OPEN, data={"sid": "a"}))
    queued.put(packet.Packet(packet.MESSAGE, data="0"))
    recorder = Recorder()
    queued.attach(recorder)  # type: ignore[arg-type]
    assert recorder.sent == ['0{"sid":"a"}', "40"]  # what waited, in order
    queued.put(packet.Packet(packet.MESSAGE, data='2["state"]'))
    assert recorder.sent[-1] == '42["state"]' and queued.empty()
    queued.join()  # Engine.IO's close(wait=True) waits for nothing written later
    queued.put(None)  # Engine.IO's "close"
    assert recorder.closed


class FakeServer:
    ping_interval = 0.01


class FakeSocket(EngineSocket):
    """An Engine.IO socket whose packets are kept."""

    def __init__(self) -> None:
        self.server, self.closing, self.closed = FakeServer(), False, False
        self.sent: list[packet.Packet] = []

    def send(self, pkt: packet.Packet) -> None:
        self.sent.append(pkt)


def test_a_sockets_ping_waits_on_the_timer_thread_not_a_thread_of_its_own() -> None:
    sock = FakeSocket()
    threads = threading.active_count()
    task = PingTask(target=sock._send_ping)
    task.start()
    assert threading.active_count() <= threads + 1  # at most the pings' timer thread
    wait_until(lambda: [pkt.packet_type for pkt in sock.sent] == [packet.PING])
    assert sock.last_ping > 0
    closed = FakeSocket()
    closed.closed = True
    PingTask(target=closed._send_ping).start()
    PingTask(target=sock._send_ping).start()  # queued after the closed one's
    wait_until(lambda: len(sock.sent) == 2)
    assert closed.sent == []  # a closed socket is not pinged
    gone = FakeSocket()
    PingTask(target=gone._send_ping).start()
    kept = weakref.ref(gone)
    del gone
    gc.collect()
    assert kept() is None  # a socket dropped before its ping is not held for it
    other = PingTask(target=lambda: None)  # any other background task: a thread
    assert isinstance(other, threading.Thread)


def test_before_attaching_a_packet_waits_for_the_long_poll() -> None:
    queued = SocketQueue()
    queued.put(packet.Packet(packet.NOOP))
    assert queued.get(timeout=WAIT).packet_type == packet.NOOP


def test_closing_a_socket_mid_upgrade_closes_the_websocket_it_upgrades_to() -> None:
    """Engine.IO's ping timeout during an upgrade the client abandoned: the thread waiting
    for the client's UPGRADE is let go, and the close waits for no poll."""
    queued, recorder = SocketQueue(), Recorder()
    queued.upgrading(recorder)  # type: ignore[arg-type]
    queued.put(None)
    assert recorder.closed
    queued.discard()
    queued.join()  # Engine.IO's close(wait=True): nothing left to wait for


def worker_threads(server: Server) -> int:
    """Threads of the server's gunicorn worker (its child with the most threads)."""
    counts = [len(os.listdir(f"/proc/{pid}/task")) for pid in descendants(server.process.pid)]
    return max(counts)


@pytest.mark.slow
def test_a_websocket_holds_one_thread(tmp_path: Path) -> None:
    """Each open WebSocket holds gunicorn's thread serving it, no more (simple-websocket's
    reader, Engine.IO's writer and its pinger made it four)."""
    server = Server(tmp_path / "games.db", tmp_path / "server.log", "--set", "SEARCH_WARMUP=false")
    clients: list[socketio.Client] = []
    try:
        for _ in range(21):
            client = socketio.Client()
            client.connect(server.url, transports=["websocket"], wait_timeout=WAIT)
            clients.append(client)
            if len(clients) == 1:
                time.sleep(0.5)  # the server's own threads have started
                before = worker_threads(server)
        time.sleep(0.3)
        added = worker_threads(server) - before
        # An upgrade request that is no WebSocket handshake (no key) gets a 400, not a
        # traceback, and the server goes on.
        refused = raw_request(
            server.url,
            b"GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: x\r\n"
            b"Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
        )
        assert refused.startswith(b"HTTP/1.1 400 ")
        assert b"\r\nX-Content-Type-Options: nosniff\r\n" in refused
        # One whose Connection header asks for no upgrade (Engine.IO answered with a 500).
        plain = raw_request(
            server.url,
            b"GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: x\r\n"
            b"Connection: close\r\nUpgrade: websocket\r\n\r\n",
        )
        assert plain.startswith(b"HTTP/1.1 400 ") and b"nosniff" in plain
        after = socketio.Client()
        clients.append(after)
        after.connect(server.url, transports=["websocket"], wait_timeout=WAIT)
        assert after.connected
    finally:
        for client in clients:
            client.disconnect()
        server.stop()
    # gunicorn may reuse a thread or two left idle by earlier requests.
    assert 16 <= added <= 20, f"{added} threads for 20 WebSockets"


@pytest.mark.slow
def test_a_page_that_long_polls_first_is_upgraded_and_plays(tmp_path: Path) -> None:
    server = Server(tmp_path / "games.db", tmp_path / "server.log", "--set", "SEARCH_WARMUP=false")
    player = Browser(server)
    try:
        game = player.create("connect4", settings={"level": "easy"})
        player.join(game["id"])  # python-socketio long-polls first, then upgrades
        deadline = time.monotonic() + WAIT
        while player.sio.transport() != "websocket" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert player.sio.transport() == "websocket"
        final = play_against_the_engine(player, game, 3)
        check_engine_moves(player, game, final)
    finally:
        player.close()
        server.stop()


@pytest.mark.slow
def test_a_message_past_the_limit_is_told_why_and_changes_nothing(tmp_path: Path) -> None:
    """Over the real server: a move of 70,000 characters gets the ``error`` event, then the
    connection ends; the game is as it was (a page reconnects and is sent it afresh)."""
    server = Server(tmp_path / "games.db", tmp_path / "server.log", "--set", "SEARCH_WARMUP=false")
    try:
        with requests.Session() as http:
            body = {"game": "connect4", "settings": {"level": "easy"}}
            game = http.post(f"{server.url}/api/games", json=body, timeout=WAIT).json()
            cookies = "; ".join(f"{c.name}={c.value}" for c in http.cookies)

            async def send_too_much() -> list[Any]:
                errors: list[Any] = []
                ended = asyncio.Event()
                client = LeanClient()
                client.on(protocol.ERROR, errors.append)
                client.disconnected = ended.set
                await client.connect(server.url, cookies)
                await client.call(protocol.JOIN, {"game_id": game["id"]})
                await client.emit(protocol.MOVE, {"game_id": game["id"], "move": "4" * 70_000})
                await asyncio.wait_for(ended.wait(), WAIT)
                await client.disconnect()
                return errors

            errors = run_async(send_too_much())
            assert [e["code"] for e in errors] == [protocol.BAD_REQUEST], errors
            assert "over 65,536 bytes" in errors[0]["message"]
            state = http.get(f"{server.url}/api/games/{game['id']}", timeout=WAIT).json()
            assert state["moves"] == "" and state["version"] == game["version"]
    finally:
        server.stop()


def test_a_client_breaking_the_protocol_is_answered_with_its_close_code(
    pair: tuple[Connection, Client],
) -> None:
    """What came before is read; the broken frame ends reading, told as close code 1002
    (the client's frames must be masked: this one is not)."""
    connection, client = pair
    client.send(TextMessage(data="2"))
    client.sock.sendall(b"\x81\x01x")  # text "x", unmasked
    assert connection.receive() == "2"
    assert connection.receive() is None
    (close,) = client.events(1)
    assert isinstance(close, CloseConnection) and close.code == 1002
    with pytest.raises(websocket.Closed):
        connection.send("too late")
