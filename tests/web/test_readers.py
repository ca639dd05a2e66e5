"""The WebSockets' readers (webapp/web/readers.py): every connection's messages handled on a
few threads sharing one epoll, in order per connection, a held-up handler holding up no
other connection, extra readers ending once idle."""

from __future__ import annotations

import logging
import random
import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from tests.web.helpers import WAIT, wait_until
from webapp.search_pool.timers import Timers
from webapp.web.readers import Readers

Handler = Callable[[bytes], None]


class Served:
    """A socket pair whose server end is served by ``readers`` on a thread of its own
    (as gunicorn's thread parks in ``serve``): each read goes to ``handle``."""

    def __init__(self, readers: Readers, handle: Handler | None = None) -> None:
        self.server, self.client = socket.socketpair()
        self.client.settimeout(WAIT)
        self.got: list[bytes] = []
        self.threads: set[str] = set()
        self.handle = handle or self.got.append
        self.parked = threading.Thread(
            target=readers.serve, args=(self.server.fileno(), self.step), daemon=True
        )
        self.parked.start()
        wait_until(lambda: readers.counts()["connections"] >= 1)

    def step(self) -> bool:
        """As ``websocket.step``: reads until a read is short (4 bytes at a time here, so
        that a message is often more than one read)."""
        self.threads.add(threading.current_thread().name)
        while True:
            try:
                data = self.server.recv(4, socket.MSG_DONTWAIT)
            except BlockingIOError:
                return True
            if not data:
                return False
            self.handle(data)
            if len(data) < 4:
                return True

    def text(self) -> str:
        return b"".join(self.got).decode()

    def close(self) -> None:
        self.client.close()
        self.parked.join(WAIT)
        self.server.close()


@pytest.fixture
def timers() -> Iterator[Timers]:
    timers = Timers(name="test-readers")
    yield timers
    timers.close()


def test_each_connection_is_read_in_order_on_the_readers_only(timers: Timers) -> None:
    readers = Readers(timers, threads=2, stuck_seconds=60.0)
    connections = [Served(readers) for _ in range(20)]
    try:
        for round_ in range(10):
            for number, each in enumerate(connections):
                each.client.sendall(f"{number}:{round_};".encode())
        for number, each in enumerate(connections):
            expected = "".join(f"{number}:{round_};" for round_ in range(10))
            wait_until(lambda each=each, expected=expected: each.text() == expected)
        names = set().union(*(each.threads for each in connections))
        assert names and all(name.startswith("websocket-reader-") for name in names), names
        assert readers.counts()["readers"] == 2  # not a thread per connection
    finally:
        for each in connections:
            each.close()
    assert readers.counts()["connections"] == 0
    readers.close()


def test_a_held_up_handler_holds_up_no_other_connection(timers: Timers) -> None:
    readers = Readers(timers, threads=1, stuck_seconds=0.05, idle_seconds=0.3)
    held, release = threading.Event(), threading.Event()

    def wait_for_release(data: bytes) -> None:
        held.set()
        assert release.wait(WAIT)

    slow = Served(readers, wait_for_release)
    other = Served(readers)
    try:
        slow.client.sendall(b"x")
        assert held.wait(WAIT)  # the only reader is held up
        other.client.sendall(b"hello")
        wait_until(lambda: other.text() == "hello")  # by a reader started for it
        assert readers.counts()["readers"] == 2
        release.set()
        wait_until(lambda: readers.counts()["readers"] == 1)  # the extra one ended, idle
        other.client.sendall(b"!")
        wait_until(lambda: other.text() == "hello!")
    finally:
        release.set()
        slow.close()
        other.close()
        readers.close()


def test_without_room_for_more_readers_a_held_up_handler_holds_up_the_others(
    timers: Timers,
) -> None:
    """The test above fails without the extra reader: the one reader's wait is everyone's."""
    readers = Readers(timers, threads=1, most=1, stuck_seconds=0.05)
    held, release = threading.Event(), threading.Event()

    def wait_for_release(data: bytes) -> None:
        held.set()
        release.wait(WAIT)

    slow = Served(readers, wait_for_release)
    other = Served(readers)
    try:
        slow.client.sendall(b"x")
        assert held.wait(WAIT)
        other.client.sendall(b"hello")
        assert not release.wait(0.3) and other.text() == ""  # nobody read it
        release.set()
        wait_until(lambda: other.text() == "hello")
    finally:
        release.set()
        slow.close()
        other.close()
        readers.close()


def test_serve_returns_when_the_client_goes_or_a_handler_fails(
    timers: Timers, caplog: pytest.LogCaptureFixture
) -> None:
    readers = Readers(timers, threads=1)

    def broken(data: bytes) -> None:
        raise RuntimeError("a bug in a handler")

    gone, failing = Served(readers), Served(readers, broken)
    gone.client.close()
    gone.parked.join(WAIT)
    assert not gone.parked.is_alive()
    with caplog.at_level(logging.ERROR):
        failing.client.sendall(b"x")
        failing.parked.join(WAIT)
    assert not failing.parked.is_alive()  # its connection is over; the reader goes on
    assert "a bug in a handler" in caplog.text
    assert readers.counts() == {"readers": 1, "idle": 1, "connections": 0}
    assert readers.alive()
    later = Served(readers)
    later.client.sendall(b"still read")
    wait_until(lambda: later.text() == "still read")
    for each in (gone, failing, later):
        each.close()
    readers.close()


def test_closing_lets_every_parked_thread_go_and_ends_the_readers(timers: Timers) -> None:
    readers = Readers(timers, threads=3, name="closing")

    def mine() -> int:
        return sum(thread.name.startswith("closing-") for thread in threading.enumerate())

    connections = [Served(readers) for _ in range(5)]
    assert mine() == 3
    readers.close()
    for each in connections:
        each.parked.join(WAIT)
        assert not each.parked.is_alive()
    wait_until(lambda: mine() == 0)
    for each in connections:
        each.client.close()
        each.server.close()


def test_what_comes_while_its_connection_is_being_served_is_read_by_that_reader(
    timers: Timers,
) -> None:
    """Each socket's becoming ready is told once (edge-triggered): data that comes after a
    step's last read, while its handler still runs, is told to another reader, which
    leaves it to the busy one (one connection on one thread at a time), and that one
    reads again before it lets go. Without that, the data would wait for ever."""
    readers = Readers(timers, threads=2, stuck_seconds=60.0)
    release, calls = threading.Event(), []

    class SlowFirst(Served):
        def step(self) -> bool:  # reads all there is, then handles it slowly the first time
            calls.append(threading.current_thread().name)
            going_on = super().step()
            if len(calls) == 1:
                assert release.wait(WAIT)
            return going_on

    served = SlowFirst(readers)
    try:
        served.client.sendall(b"first")
        wait_until(lambda: served.text() == "first")
        served.client.sendall(b" more")  # the other reader is told, and leaves it
        wait_until(lambda: readers.counts()["idle"] == 1)
        assert served.text() == "first"
        release.set()
        wait_until(lambda: served.text() == "first more")
        assert len(set(calls)) == 1  # on the one reader, never two at once
    finally:
        release.set()
        served.close()
        readers.close()


def test_no_data_is_left_unread_when_many_connections_trickle(timers: Timers) -> None:
    """Many connections each sending a byte at a time, as fast as they can, to handlers
    that take a moment, on three readers: once the clients stop, every byte is read. (A
    reader letting its connection go just as another reader was told it was ready again
    lost that news: the connection's last bytes waited for the client's next, 25 s in a
    real page.)"""
    readers = Readers(timers, threads=3, stuck_seconds=60.0)

    def slowly(data: bytes, got: list[bytes]) -> None:
        time.sleep(0.0002)  # lets the interpreter go: the others read meanwhile
        got.append(data)

    connections: list[Served] = []
    for _ in range(30):
        got: list[bytes] = []
        each = Served(readers, lambda data, got=got: slowly(data, got))
        each.got = got
        connections.append(each)
    sent = 200

    def send(each: Served, seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(sent):
            each.client.sendall(b"x")
            if rng.random() < 0.3:
                time.sleep(rng.random() / 2000)

    senders = [threading.Thread(target=send, args=(each, n)) for n, each in enumerate(connections)]
    try:
        for sender in senders:
            sender.start()
        for sender in senders:
            sender.join(WAIT)
        # Nothing more is sent: whatever is unread now stays so if its news was lost.
        wait_until(lambda: all(len(each.text()) == sent for each in connections), timeout=5)
    finally:
        for each in connections:
            each.close()
        readers.close()
