"""Engine.IO's WebSocket transport under gunicorn: no reader or writer thread per connection.

Engine.IO's threading mode serves a WebSocket with simple-websocket: a thread reads the
socket and wakes the connection's own (gunicorn's) thread for each message, and a
writer thread wakes for each packet sent, taking it from the Engine.IO socket's queue.
Every event a page sends and every one it receives is a thread hand-off; with a
hundred players, half the web process's threads were those two, and their hand-offs
about a tenth of a move's web CPU (docs/operations.md, "A move's CPU").

Here the connection's own thread reads and decodes its frames (``Connection.receive``),
and a packet is written by the thread that sends it (``SocketQueue``, Engine.IO's
per-socket queue, once the WebSocket is attached): no reader and no writer thread.
Writing never waits for a client: a frame goes out with ``MSG_DONTWAIT``; what the
kernel will not take at once waits in the connection's backlog, written by a thread
started for it that ends once the backlog is empty, so a page that reads slowly (or
not at all) never holds the thread that sent to it. A backlog past
``BACKLOG_BYTES`` ends the connection: the page reconnects and is sent the game afresh.

Engine.IO's pings wait on one timer thread (``PingTask``), not on a sleeping thread per
socket: an open page costs one thread, its connection's. A request for the WebSocket
transport that is no upgrade gets a 400 (``upgrades_checked``).

Only gunicorn's connections are served here (``environ["gunicorn.socket"]``, a
blocking socket); anything else (``--dev``, Werkzeug) goes to simple-websocket as
before. ``install(eio)`` puts both in an Engine.IO server in threading mode.
"""

from __future__ import annotations

import json
import logging
import queue
import socket
import struct
import threading
import time
import weakref
from collections import deque
from collections.abc import Iterable
from contextlib import suppress
from typing import Any

from engineio import exceptions, packet
from engineio.async_drivers._websocket_wsgi import SimpleWebSocketWSGI
from engineio.async_drivers.threading import DaemonThread
from engineio.socket import Socket as EngineSocket
from wsproto import ConnectionType, WSConnection
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Ping,
    Request,
    TextMessage,
)
from wsproto.frame_protocol import CloseReason
from wsproto.utilities import LocalProtocolError, RemoteProtocolError

from webapp import protocol
from webapp.search_pool.timers import Timers
from webapp.web.headers import BARE

log = logging.getLogger(__name__)

#: Bytes read from the socket at a time.
RECEIVE_BYTES = 16384
#: Bytes a connection may have waiting for a client that does not read before it is
#: ended (a game's state is a few kilobytes: this is a hundred events behind, on top of
#: what the kernel holds, over a megabyte on loopback).
BACKLOG_BYTES = 1 << 18
#: Bytes each frame of a message counts for, beyond its data, against the message limit
#: (a stream of empty fragments would otherwise grow a message's parts without bound).
FRAGMENT_COST = 64
#: Seconds a finished connection waits for its backlog to be written before it closes.
LINGER_SECONDS = 2.0
#: The answer to an upgrade request that is no valid WebSocket handshake (written on the
#: socket: Engine.IO takes whatever this transport returns for its own packets).
_REFUSAL = b"Not a valid WebSocket handshake.\n"
#: Seconds a closing long-polling session waits for its client to poll its last packets
#: (a client still polling takes them at once).
CLOSE_WAIT_SECONDS = 2.0
REFUSED = (
    b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: text/plain\r\n"
    + "".join(f"{name}: {value}\r\n" for name, value in BARE.items()).encode("latin-1")
    + f"Content-Length: {len(_REFUSAL)}\r\n\r\n".encode()
    + _REFUSAL
)


def too_big(limit: int) -> str:
    """The Socket.IO ``error`` event (default namespace) for a message past ``limit`` bytes."""
    message = (f"That message is over {limit:,} bytes, the most the server takes: the "
               "connection is closed (a page reconnects).")  # fmt: skip
    event = [protocol.ERROR, {"code": protocol.BAD_REQUEST, "message": message}]
    return "42" + json.dumps(event, separators=(",", ":"))


def data_frame(message: str | bytes) -> bytes:
    """``message`` as one whole WebSocket frame from a server (unmasked): what wsproto
    writes for it, with no extension (none is ever agreed to here). Framed here, it
    costs a tenth of wsproto's framing, and needs none of the connection's state: a
    message is never sent in parts, and ``Connection`` knows when it is open."""
    if isinstance(message, str):
        first, payload = 0x81, message.encode()  # FIN, text
    elif isinstance(message, (bytes, bytearray, memoryview)):
        first, payload = 0x82, bytes(message)  # FIN, binary
    else:
        raise TypeError(f"a WebSocket message is text or bytes, not {type(message).__name__}")
    size = len(payload)
    if size < 126:
        return bytes((first, size)) + payload
    if size < 1 << 16:
        return struct.pack("!BBH", first, 126, size) + payload
    return struct.pack("!BBQ", first, 127, size) + payload


class Closed(Exception):
    """The connection is over: nothing more is sent or read."""


class Connection:
    """One WebSocket, server side, over a blocking socket.

    ``receive`` is called by the connection's own thread only; ``send`` and ``close``
    by any thread. The wsproto state is shared, under ``_lock``.
    """

    def __init__(self, sock: socket.socket, max_message: int) -> None:
        self._sock = sock
        self._max_message = max_message
        self._ws = WSConnection(ConnectionType.SERVER)
        self._lock = threading.Lock()
        self._messages: deque[str | bytes] = deque()
        self._parts: list[str | bytes] = []
        self._part_bytes = 0
        self._open = False  # the handshake answered, and no close frame sent or read
        self._backlog: deque[bytes] | None = None  # frames the kernel has not taken yet
        self._backlog_bytes = 0
        self._writer: threading.Thread | None = None

    # -- the handshake -----------------------------------------------------------------

    def accept(self, environ: dict[str, Any]) -> bool:
        """Answer the upgrade request ``environ`` describes; False if it is no valid one."""
        lines = [f"GET {environ.get('RAW_URI') or '/'} HTTP/1.1"]
        for key, value in environ.items():
            if key.startswith("HTTP_"):
                lines.append(f"{key[5:].replace('_', '-')}: {value}")
        request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace")
        try:
            self._ws.receive_data(request)
            events = list(self._ws.events())
        except RemoteProtocolError as error:
            log.info("refused a WebSocket handshake: %s", error)
            return False
        if not any(isinstance(event, Request) for event in events):
            return False
        with self._lock:
            self._write(self._ws.send(AcceptConnection()))
            self._open = True
        return True

    # -- reading, on the connection's own thread ---------------------------------------

    def receive(self) -> str | bytes | None:
        """The next whole message, or None once the connection is over."""
        while not self._messages:
            if not self._open:
                return None
            try:
                data = self._sock.recv(RECEIVE_BYTES)
            except OSError:
                data = b""
            with self._lock:
                if not data:
                    self._open = False
                    return None
                try:
                    self._ws.receive_data(data)
                    self._take(self._ws.events())
                except (RemoteProtocolError, LocalProtocolError) as error:
                    log.info("a WebSocket broke the protocol: %s", error)
                    self._end()
        return self._messages.popleft()

    def _take(self, events: Iterable[Any]) -> None:
        """Under the lock: keep the messages among ``events``, answer pings and closes."""
        for event in events:
            if isinstance(event, (TextMessage, BytesMessage)):
                self._part_bytes += len(event.data) + FRAGMENT_COST
                if self._part_bytes > self._max_message + FRAGMENT_COST:
                    # Said first as the app's own ``error`` event (a page or a script hears
                    # why its connection ends), then as the WebSocket's close code.
                    self._write(self._ws.send(TextMessage(data=too_big(self._max_message))))
                    self._close_frame(CloseReason.MESSAGE_TOO_BIG, "Message is too big")
                    self._end()
                    return
                if not event.data:
                    pass
                elif isinstance(event, TextMessage):
                    self._parts.append(event.data)
                else:
                    self._parts.append(bytes(event.data))
                if event.message_finished:
                    parts, self._parts, self._part_bytes = self._parts, [], 0
                    if isinstance(event, TextMessage):
                        self._messages.append("".join(map(str, parts)))
                    else:
                        self._messages.append(
                            b"".join(part for part in parts if isinstance(part, bytes))
                        )
            elif isinstance(event, Ping):
                self._write(self._ws.send(event.response()))
            elif isinstance(event, CloseConnection):
                if self._open:
                    self._write(self._ws.send(event.response()))
                self._end()
                return

    # -- writing, on any thread ----------------------------------------------------------

    def send(self, message: str | bytes) -> None:
        """Write one message; raises ``Closed`` once the connection is over."""
        data = data_frame(message)  # framed before the lock: no other sender waits for it
        with self._lock:
            if not self._open:
                raise Closed
            self._write(data)

    def close(self) -> None:
        """Send a close frame, then stop reading: ``receive`` returns None at once."""
        with self._lock:
            if self._open:
                self._close_frame(CloseReason.NORMAL_CLOSURE, None)
            self._end()

    def linger(self, seconds: float = LINGER_SECONDS) -> None:
        """Wait (a bounded time) for the backlog's writer, then end it, before the socket
        is closed (a client that reads nothing would hold it for ever)."""
        writer = self._writer
        if writer is None or writer.ident is None:
            return
        writer.join(seconds)
        if writer.is_alive():
            with self._lock:
                self._abort()  # its blocked send fails at once
            writer.join(seconds)

    def _close_frame(self, code: int, reason: str | None) -> None:
        with suppress(LocalProtocolError):  # a close frame went out already
            self._write(self._ws.send(CloseConnection(code, reason)))

    def _end(self) -> None:
        """Under the lock: the connection is over; the reading thread stops waiting."""
        self._open = False
        with suppress(OSError):
            self._sock.shutdown(socket.SHUT_RD)

    def _write(self, data: bytes) -> None:
        """Under the lock: write ``data`` now, as far as the kernel takes it without
        waiting; the rest joins the backlog and a thread of its own writes it."""
        if not data:
            return
        if self._backlog is not None:
            self._backlog.append(data)
            self._backlog_bytes += len(data)
            if self._backlog_bytes > BACKLOG_BYTES:
                log.info("a WebSocket's client left %d bytes unread: ended", self._backlog_bytes)
                self._abort()
            return
        try:
            sent = self._sock.send(data, socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:
            self._abort()
            return
        if sent < len(data):
            self._backlog = deque([data[sent:]])
            self._backlog_bytes = len(data) - sent
            self._writer = threading.Thread(
                target=self._write_backlog, name="websocket-backlog", daemon=True
            )
            try:
                self._writer.start()
            except RuntimeError:  # no thread to be had (out of memory or threads)
                log.warning("no thread for a WebSocket's backlog: the connection ends")
                self._abort()

    def _write_backlog(self) -> None:
        while True:
            with self._lock:
                backlog = self._backlog
                if not backlog:
                    self._backlog, self._backlog_bytes = None, 0
                    return
                chunk = backlog.popleft()
                self._backlog_bytes -= len(chunk)
            try:
                self._sock.sendall(chunk)  # a blocking socket: waits for the client
            except OSError:
                with self._lock:
                    self._abort()
                return

    def _abort(self) -> None:
        """Under the lock: drop the connection without a word (the client is gone or stuck)."""
        self._open = False
        self._backlog, self._backlog_bytes = deque(), 0
        with suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)


class SocketQueue(queue.Queue):  # type: ignore[type-arg]  # Engine.IO's packets
    """An Engine.IO socket's outgoing packets (Engine.IO's ``queue`` driver).

    A plain queue while the socket long-polls or upgrades; once ``attach`` gives it
    its WebSocket, what was queued is written in order and every later packet is
    written at once by the thread that sends it. ``None`` (Engine.IO's "close") closes
    the WebSocket.
    """

    def __init__(self, maxsize: int = 0) -> None:
        super().__init__(maxsize)
        self._switch = threading.Lock()
        self._connection: Connection | None = None
        self._upgrading: Connection | None = None

    def upgrading(self, connection: Connection | None) -> None:
        """``connection`` is being upgraded to (None: no more): Engine.IO closing the
        socket meanwhile (a ping timeout) closes it too, so its thread stops waiting."""
        with self._switch:
            self._upgrading = connection

    def discard(self) -> None:
        """Drop what waits (the socket closed, with nobody left to poll for it), so
        that Engine.IO's ``close(wait=True)`` does not wait for it."""
        with self._switch:
            while True:
                try:
                    self.get_nowait()
                except queue.Empty:
                    return
                self.task_done()

    def join(self) -> None:
        """Engine.IO's ``close(wait=True)``: wait for the client to take what is left,
        ``CLOSE_WAIT_SECONDS`` at most, then drop it. A long-polling client that never
        polls again held the closing thread for good (``polling``)."""
        deadline = time.monotonic() + CLOSE_WAIT_SECONDS
        with self.all_tasks_done:
            while self.unfinished_tasks:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.all_tasks_done.wait(left)
        self.discard()

    def attach(self, connection: Connection) -> None:
        with self._switch:
            self._upgrading = None
            while True:
                try:
                    item = self.get_nowait()
                except queue.Empty:
                    break
                self.task_done()
                _deliver(connection, item)
            self._connection = connection

    def put(self, item: Any, block: bool = True, timeout: float | None = None) -> None:
        connection = self._connection
        if connection is None:
            with self._switch:
                connection = self._connection
                if connection is None:
                    super().put(item, block, timeout)
                    if item is None and self._upgrading is not None:
                        self._upgrading.close()
                    return
        _deliver(connection, item)


def _deliver(connection: Connection, item: packet.Packet | None) -> None:
    """Write ``item`` (None: close), on the sender's thread. A failure ends nothing
    else: a room's other members still get theirs."""
    try:
        if item is None:
            connection.close()
        else:
            connection.send(item.encode())
    except Closed:
        pass  # as a queue no writer reads any more: the packet is dropped
    except Exception:
        log.exception("a WebSocket's packet could not be written")


class WebSocketTransport:
    """Engine.IO's ``websocket`` driver: ``WebSocketTransport(handler, server)(environ,
    start_response)`` serves one WebSocket until it closes, on the calling thread.

    ``handler`` is the Engine.IO socket's ``_websocket_handler``; under gunicorn its
    socket is served here instead (the same steps: the upgrade's probe, then one packet
    after another), so that no writer thread is started.
    """

    def __init__(self, handler: Any, server: Any, **kwargs: Any) -> None:
        self.handler, self.server, self.kwargs = handler, server, kwargs

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        sock = environ.get("gunicorn.socket")
        eio_socket = getattr(self.handler, "__self__", None)
        queued = getattr(eio_socket, "queue", None)
        if (
            eio_socket is None
            or not isinstance(sock, socket.socket)
            or not isinstance(queued, SocketQueue)
        ):
            return SimpleWebSocketWSGI(self.handler, self.server, **self.kwargs)(
                environ, start_response
            )
        sock.setblocking(True)  # as gthread hands it over; sends say MSG_DONTWAIT themselves
        connection = Connection(sock, self.server.max_http_buffer_size)
        if not connection.accept(environ):
            if not eio_socket.connected:  # a session of its own; an upgrade's polls go on
                eio_socket.close(wait=False, abort=True)
            with suppress(OSError):
                sock.sendall(REFUSED)
            raise StopIteration
        try:
            serve(eio_socket, connection)
        finally:
            connection.close()
            connection.linger()
        raise StopIteration  # gthread's word for "done with": it closes the socket


def _decoded(message: str | bytes | None) -> packet.Packet | None:
    if message is None:
        return None
    try:
        return packet.Packet(encoded_packet=message)
    except Exception:  # a client's garbage: the connection ends
        log.info("an unreadable Engine.IO packet: the WebSocket ends")
        return None


def serve(eio_socket: Any, connection: Connection) -> None:
    """Engine.IO's steps for a WebSocket (``Socket._websocket_handler``), on this thread."""
    queued: SocketQueue = eio_socket.queue
    try:
        if eio_socket.connected:  # upgraded from long-polling: the probe, then UPGRADE
            eio_socket.upgrading = True  # the polling side answers nothing more
            queued.upgrading(connection)
            if not _upgraded(eio_socket, connection):
                return
        eio_socket.connected = eio_socket.upgraded = True
        eio_socket.upgrading = False
        queued.attach(connection)
        while (pkt := _decoded(connection.receive())) is not None:
            try:
                eio_socket.receive(pkt)
            except exceptions.UnknownPacketError:
                continue
            except exceptions.SocketIsClosedError:
                break
    except Exception:  # as Engine.IO: logged, and the connection ends properly
        log.exception("a WebSocket failed")
    finally:
        eio_socket.upgrading = False
        queued.upgrading(None)
        if eio_socket.upgraded:
            reason = eio_socket.server.reason.TRANSPORT_CLOSE
            eio_socket.close(wait=False, abort=True, reason=reason)
        elif eio_socket.closed:  # closed during a failed upgrade: nobody polls any more
            queued.discard()


def _upgraded(eio_socket: Any, connection: Connection) -> bool:
    """The upgrade from long-polling: the client's probe answered, then its UPGRADE."""
    probe = _decoded(connection.receive())
    if probe is None or probe.packet_type != packet.PING or probe.data != "probe":
        return False
    with suppress(Closed):  # the client gone: its next read says so
        connection.send(packet.Packet(packet.PONG, data="probe").encode())
    eio_socket.queue.put(packet.Packet(packet.NOOP))  # ends the poll under way
    upgrade = _decoded(connection.receive())
    return upgrade is not None and upgrade.packet_type == packet.UPGRADE


#: Every Engine.IO socket's next ping waits here (``PingTask``), not on a thread of its own.
PINGS = Timers(name="pings")


class PingTask:
    """Engine.IO's ``thread`` driver (``start_background_task``): a daemon thread, except
    for a socket's ping, which is a call on ``PINGS``.

    Engine.IO starts a thread for every ping of every socket (``Socket._send_ping``:
    sleep the ping interval, then ping): a thread per open page, and, when connections
    come and go fast, one per connection gone, asleep for 25 s (an attack report saw
    12,685 threads from 300 connections churning). Here the wait is a heap entry.
    """

    def __new__(cls, target: Any, args: Any = (), kwargs: Any = None) -> Any:
        sock = getattr(target, "__self__", None)
        if isinstance(sock, EngineSocket) and getattr(target, "__name__", "") == "_send_ping":
            return super().__new__(cls)
        return DaemonThread(target=target, args=args, kwargs=kwargs or {})

    def __init__(self, target: Any, args: Any = (), kwargs: Any = None) -> None:
        # Weak: a socket gone (closed, dropped by Engine.IO) is not kept for its ping's
        # sake; under churn, 25 s of gone connections held about 200 MB.
        self.socket = weakref.ref(target.__self__)
        self.interval: float = target.__self__.server.ping_interval

    def start(self) -> None:
        PINGS.call_later(self.interval, self._ping)

    def join(self, timeout: float | None = None) -> None:
        return None  # nothing to wait for: the ping is a call on the timer thread

    def _ping(self) -> None:
        """``Socket._send_ping`` after its sleep. A socket whose last ping went unanswered
        is closed by this send (Engine.IO's check), its disconnect handled on this thread:
        the other pings wait for it, seconds at worst, against 45 s of patience."""
        sock = self.socket()
        if sock is not None and not sock.closing and not sock.closed:
            sock.last_ping = time.time()
            sock.send(packet.Packet(packet.PING))


def upgrades_checked(app: Any) -> Any:
    """WSGI middleware: a request for Engine.IO's WebSocket transport that is no upgrade
    (no ``Connection: Upgrade`` and ``Upgrade: websocket``) gets a 400. Engine.IO would
    serve it as a long poll of a session's packets, or fail with a 500."""

    def checked(environ: dict[str, Any], start_response: Any) -> Any:
        query = environ.get("QUERY_STRING", "")
        if "transport=websocket" in query and environ.get("PATH_INFO", "").startswith("/socket.io"):
            connection = environ.get("HTTP_CONNECTION", "").lower()
            upgrade = environ.get("HTTP_UPGRADE", "").lower()
            if "upgrade" not in [part.strip() for part in connection.split(",")] or (
                upgrade != "websocket"
            ):
                start_response("400 Bad Request", [("Content-Type", "text/plain"), *BARE.items()])
                return [_REFUSAL]
        return app(environ, start_response)

    return checked


def install(eio: Any) -> None:
    """Serve ``eio``'s (an Engine.IO server in threading mode) WebSockets here, and wait
    for its pings on one thread."""
    eio._async = {
        **eio._async,
        "queue": SocketQueue,
        "websocket": WebSocketTransport,
        "thread": PingTask,
    }
