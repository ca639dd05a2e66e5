"""Long-polling POSTs Engine.IO could not read get a 400 before it reads them
(``webapp/web/polling.py``), and a closing session waits a bounded time for its client
(``SocketQueue.join``). A hostile client's try: each POST of an unknown packet type left
a server thread waiting for good."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
import requests

from tests.web.helpers import WAIT
from tests.web.test_end_to_end import Server
from webapp.bench.processes import server_processes
from webapp.web import websocket
from webapp.web.polling import readable
from webapp.web.websocket import SocketQueue


def test_what_engineio_reads_and_what_it_does_not() -> None:
    assert readable(b'42["move",{"game_id":"x","move":"4"}]')
    assert readable(b"3") and readable(b"1") and readable(b'3\x1e42["join",{}]')
    unreadable = (b"9", b"0", b"2", b"6", b"", b"\x1e\x1e", b"3\x1e", b"bA", b"b!!!!")
    for bad in (*unreadable, b'42["join",{"game_id":"\xff"}]'):
        assert not readable(bad), bad


def test_a_closing_queue_waits_for_its_poller_a_bounded_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Unbounded (``queue.Queue.join``), the first ``join`` never returns: the test's
    own timeout fails it. Bounded, it returns and drops what nobody took."""
    monkeypatch.setattr(websocket, "CLOSE_WAIT_SECONDS", 0.05)
    waiting = SocketQueue()
    waiting.put("the last packet")  # nobody will ever poll it
    waiting.join()
    assert waiting.empty() and waiting.unfinished_tasks == 0
    polled = SocketQueue()
    polled.put("taken")
    taker = threading.Thread(target=lambda: (polled.get(), polled.task_done()))
    taker.start()
    polled.join()  # the poller took it: no waiting out the bound
    taker.join(WAIT)


def handshake(url: str) -> tuple[requests.Session, str]:
    session = requests.Session()
    answer = session.get(f"{url}/socket.io/?EIO=4&transport=polling", timeout=WAIT)
    return session, json.loads(answer.text[1:])["sid"]


@pytest.mark.slow
def test_unreadable_polls_are_refused_at_once_and_hold_no_thread(tmp_path: Path) -> None:
    server = Server(tmp_path / "g.db", tmp_path / "log", "--workers", "1",
                    "--set", "SEARCH_WARMUP=false")  # fmt: skip
    try:
        web, _ = server_processes(server.process.pid)
        session, sid = handshake(server.url)  # a session of a client that then goes quiet
        before = len(os.listdir(f"/proc/{web}/task"))
        for body in (b"9", b"0", b"6", b"\x1e\x1e", b'42["join",{"game_id":"\xff"}]', b"bA") * 4:
            where = f"{server.url}/socket.io/?EIO=4&transport=polling&sid={sid}"
            answer = session.post(where, data=body, timeout=WAIT)
            assert answer.status_code == 400, body
        # Each refused at once, on a thread of gunicorn's that is free again: none waits.
        assert len(os.listdir(f"/proc/{web}/task")) <= before + 2
        assert requests.get(f"{server.url}/healthz", timeout=WAIT).status_code == 200
        # The session itself still works for the client that behaves (a pong).
        ok = session.post(f"{server.url}/socket.io/?EIO=4&transport=polling&sid={sid}",
                          data=b"3", timeout=WAIT)  # fmt: skip
        assert ok.status_code == 200
    finally:
        server.stop()
    log = (tmp_path / "log").read_text(errors="replace")
    assert "Traceback" not in log and "post request handler error" not in log
