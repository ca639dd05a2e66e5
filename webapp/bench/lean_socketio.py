"""A lean Socket.IO client for the load bench: asyncio, WebSocket only, no thread of its own.

The bench shares its machine with the server it measures. python-socketio's threaded
client costs each simulated browser three threads (the WebSocket's reader, Engine.IO's
writer and its ping loop) and a hand-off between them for every packet: with 200
players the bench used as much CPU as the server (docs/operations.md, "The bench's own
cost"). Here every connection is a coroutine of one event loop: a packet is read,
decoded and handed to its handler on the loop's thread, and a packet is written by the
coroutine that sends it.

It speaks just what the players need of the protocol (Engine.IO 4, Socket.IO 5, the
default namespace): the handshake with the page's cookies, events both ways, an
acknowledged call (``call``), the server's pings answered, and the close. Binary
packets, other namespaces and the polling transport are not spoken (the server never
sends the first two to a player).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from wsproto import ConnectionType, WSConnection
from wsproto.events import (
    AcceptConnection,
    CloseConnection,
    Ping,
    RejectConnection,
    RejectData,
    Request,
    TextMessage,
)

log = logging.getLogger(__name__)

#: Engine.IO packet types (the first character of a text frame).
OPEN, CLOSE, PING, PONG, MESSAGE = "0", "1", "2", "3", "4"
#: Socket.IO packet types (the character after Engine.IO's ``4``).
CONNECT, DISCONNECT, EVENT, ACK, CONNECT_ERROR = "0", "1", "2", "3", "4"
#: Bytes read from the socket at a time.
RECEIVE_BYTES = 65536

Handler = Callable[[Any], None]


class ConnectFailed(Exception):
    """The WebSocket or the Socket.IO handshake was refused."""


class LeanClient:
    """One Socket.IO connection on the running event loop.

    ``on(event, handler)`` before ``connect``: the handler gets the event's one argument,
    on the loop's thread. ``disconnected`` is called once when the connection ends (by
    the server, the network or ``disconnect``).
    """

    def __init__(self) -> None:
        self._handlers: dict[str, Handler] = {}
        self._acks: dict[int, asyncio.Future[list[Any]]] = {}
        self._next_ack = 0
        self._ws = WSConnection(ConnectionType.CLIENT)
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._reading: asyncio.Task[None] | None = None
        self._opened: asyncio.Future[None] | None = None
        self.connected = False
        self.disconnected: Callable[[], None] = lambda: None

    def on(self, event: str, handler: Handler) -> None:
        self._handlers[event] = handler

    async def connect(self, url: str, cookies: str = "", timeout: float = 30.0) -> None:
        """Open the WebSocket and join the default namespace; ``ConnectFailed`` if refused."""
        where = urlsplit(url)
        host, port = where.hostname or "127.0.0.1", where.port or 80
        self._reader, self._writer = await asyncio.wait_for(
            asyncio.open_connection(host, port), timeout
        )
        headers = [(b"cookie", cookies.encode("latin-1"))] if cookies else []
        target = "/socket.io/?EIO=4&transport=websocket"
        self._write(self._ws.send(Request(host=f"{host}:{port}", target=target,
                                          extra_headers=headers)))  # fmt: skip
        self._opened = asyncio.get_running_loop().create_future()
        self._reading = asyncio.create_task(self._read())
        try:
            await asyncio.wait_for(asyncio.shield(self._opened), timeout)
            if not self.connected:  # ended as soon as it opened (and told so)
                raise ConnectFailed("the connection ended")
        except BaseException:
            await self.disconnect()
            if self._opened.done() and not self._opened.cancelled():
                self._opened.exception()  # retrieved: the caller has the failure to raise
            raise

    async def emit(self, event: str, data: Any) -> None:
        self._send(EVENT, json.dumps([event, data], separators=(",", ":")))
        if self._writer is not None:
            await self._writer.drain()  # a server that does not read holds the sender back

    async def call(self, event: str, data: Any, timeout: float = 30.0) -> list[Any]:
        """Send an event that wants an acknowledgement; its arguments."""
        self._next_ack += 1
        number = self._next_ack
        answer = asyncio.get_running_loop().create_future()
        self._acks[number] = answer
        try:
            self._send(EVENT, f"{number}" + json.dumps([event, data], separators=(",", ":")))
            return await asyncio.wait_for(answer, timeout)
        finally:
            self._acks.pop(number, None)

    async def disconnect(self) -> None:
        """Leave the namespace and close the WebSocket (nothing if already closed)."""
        if self._writer is not None and not self._writer.is_closing():
            with contextlib.suppress(Exception):
                if self.connected:
                    self._send(DISCONNECT, "")
                self._write(self._ws.send(CloseConnection(code=1000)))
                await self._writer.drain()
        await self._ended()
        if self._reading is not None and self._reading is not asyncio.current_task():
            self._reading.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reading

    # -- the wire -------------------------------------------------------------------------
    def _send(self, kind: str, body: str) -> None:
        self._write(self._ws.send(TextMessage(MESSAGE + kind + body)))

    def _write(self, data: bytes) -> None:
        if self._writer is None or self._writer.is_closing():
            raise ConnectionError("the connection ended")
        self._writer.write(data)

    async def _read(self) -> None:
        assert self._reader is not None
        parts: list[str] = []
        try:
            while True:
                data = await self._reader.read(RECEIVE_BYTES)
                self._ws.receive_data(data or None)
                for event in self._ws.events():
                    if isinstance(event, TextMessage):
                        parts.append(event.data)
                        if event.message_finished:
                            self._packet("".join(parts))
                            parts.clear()
                    elif isinstance(event, Ping):
                        self._write(self._ws.send(event.response()))
                    elif isinstance(event, CloseConnection):
                        with contextlib.suppress(Exception):
                            self._write(self._ws.send(event.response()))
                        return
                    elif isinstance(event, (RejectConnection, RejectData)):
                        self._fail("the WebSocket upgrade was refused")
                        return
                    elif isinstance(event, AcceptConnection):
                        pass  # Engine.IO's open packet follows
                if not data:
                    return
        except (OSError, ConnectionError) as error:
            self._fail(f"the connection failed: {error}")
        except Exception as error:  # a protocol error: the connection is over
            log.warning("a lean Socket.IO connection failed: %s", error)
            self._fail(f"the connection failed: {error}")
        finally:
            await self._ended()

    def _packet(self, text: str) -> None:
        kind, body = text[:1], text[1:]
        if kind == PING:
            self._write(self._ws.send(TextMessage(PONG + body)))
        elif kind == OPEN:
            self._send(CONNECT, "")
        elif kind == MESSAGE:
            self._message(body[:1], body[1:])
        elif kind == CLOSE:
            self._fail("the server closed the connection")

    def _message(self, kind: str, body: str) -> None:
        if kind == CONNECT:
            if self._opened is not None and not self._opened.done():
                self.connected = True  # from here an end is a disconnect to tell
                self._opened.set_result(None)
        elif kind == CONNECT_ERROR:
            self._fail(f"the connection was refused: {body}")
        elif kind == EVENT:
            event, *args = json.loads(body[body.index("[") :])
            handler = self._handlers.get(event)
            if handler is not None:
                handler(args[0] if args else None)
        elif kind == ACK:
            start = body.index("[")
            answer = self._acks.get(int(body[:start]))
            if answer is not None and not answer.done():
                answer.set_result(json.loads(body[start:]))
        elif kind == DISCONNECT:
            self._fail("the server left the namespace")

    def _fail(self, why: str) -> None:
        if self._opened is not None and not self._opened.done():
            self._opened.set_exception(ConnectFailed(why))

    async def _ended(self) -> None:
        """Once: the socket closed, waiting calls failed, ``disconnected`` told."""
        writer, self._writer = self._writer, None
        if writer is None:
            return
        was = self.connected
        self.connected = False
        if was:
            self.disconnected()
        self._fail("the connection ended")
        for answer in self._acks.values():
            if not answer.done():
                answer.set_exception(ConnectionError("the connection ended"))
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
