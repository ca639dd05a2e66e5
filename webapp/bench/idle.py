"""``python -m webapp.bench idle``: many idle spectators held open while players play.

Starts ``python -m webapp`` (or uses ``--url``), creates one game, opens ``--spectators``
WebSocket connections that join it and then only answer the server's pings, then, while
``--players`` Easy players play (``--moves`` each, thinking 0.2-1.0 s; as the load bench's
players), times page fetches (``GET /``, one after another: ``--fetches`` at least, and
on until the players are done) and prints their p50/p95/max and the players' engine
reply p50/p95/max, with the web process's threads, resident memory and open files
before and after.

The spectators speak Engine.IO/Socket.IO by hand over ``websocket-client`` with one
thread for all of them (a selector), so the benchmark itself stays small: the server's
cost per connection is what is measured. No figure is asserted anywhere.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import selectors
import sys
import threading
import time
from collections.abc import Sequence

import requests
import websocket

from webapp import protocol
from webapp.bench.load import Options, Scenario, ms, nearest_rank, run_players
from webapp.bench.load_players import Tally
from webapp.bench.load_server import LoadServer, ServerFailed
from webapp.bench.processes import Usage, server_processes, usage

#: Seconds to wait for one spectator's handshake and join.
CONNECT_TIMEOUT = 30.0


class Spectators:
    """Open WebSocket connections joined to a game; one thread answers their pings."""

    def __init__(self, url: str) -> None:
        self.address = url.replace("http://", "ws://", 1) + "/socket.io/?EIO=4&transport=websocket"
        self.selector = selectors.DefaultSelector()
        self.sockets: list[websocket.WebSocket] = []
        self.dropped = 0
        self.stopped = threading.Event()
        self.pump = threading.Thread(target=self._answer_pings, name="pings", daemon=True)

    def open(self, game_id: str) -> None:
        """One more spectator of ``game_id`` (raises on a failed handshake or join)."""
        ws = websocket.create_connection(self.address, timeout=CONNECT_TIMEOUT)
        first = ws.recv()
        if not str(first).startswith("0"):
            raise ConnectionError(f"no Engine.IO open packet: {first!r}")
        ws.send("40")  # the Socket.IO namespace "/"
        join = json.dumps([protocol.JOIN, {"game_id": game_id}])
        while True:  # the connect's answer, then the join's acknowledgement (id 0)
            packet = str(ws.recv())
            if packet.startswith("40"):
                ws.send("420" + join)
            elif packet.startswith("430"):
                break
            elif packet.startswith("44"):
                raise ConnectionError(f"refused: {packet}")
        self.sockets.append(ws)
        self.selector.register(ws.fileno(), selectors.EVENT_READ, ws)  # type: ignore[no-untyped-call]
        if not self.pump.is_alive():
            self.pump.start()

    def _answer_pings(self) -> None:
        while not self.stopped.is_set():
            for key, _ in self.selector.select(timeout=0.5):
                ws: websocket.WebSocket = key.data
                try:
                    if ws.recv() == "2":  # Engine.IO ping: pong, or the server drops us
                        ws.send("3")
                except (websocket.WebSocketException, OSError):
                    self.selector.unregister(key.fd)
                    self.dropped += 1

    def close(self) -> None:
        self.stopped.set()
        if self.pump.is_alive():
            self.pump.join(5)
        for ws in self.sockets:
            with contextlib.suppress(websocket.WebSocketException, OSError):
                ws.close(timeout=1)


def fetch_pages(
    url: str, count: int, until: threading.Event | None = None
) -> tuple[list[float], int]:
    """``count`` fetches of ``url``/ one after another (and on until ``until`` is set):
    their seconds, and the failures."""
    seconds: list[float] = []
    failed = 0
    with requests.Session() as http:
        while len(seconds) + failed < count or (until is not None and not until.is_set()):
            started = time.perf_counter()
            try:
                ok = http.get(url + "/", timeout=30).status_code == 200
            except requests.RequestException:
                ok = False
            if ok:
                seconds.append(time.perf_counter() - started)
            else:
                failed += 1
    return seconds, failed


def play(url: str, players: int, moves: int, tally: Tally, done: threading.Event) -> None:
    """``players`` Easy players of Connect Four, ``moves`` each; ``done`` set at the end."""
    try:
        if players > 0:
            scenario = Scenario("idle", "easy", players=players, moves=moves)
            options = Options("connect4", (0.2, 1.0), max_seconds=120.0, seed=1)
            run_players([url], scenario, options, threading.Event(), tally, None)
    finally:
        done.set()


def describe(label: str, pid: int | None) -> str:
    if pid is None:
        return f"{label}: (a server elsewhere: its processes are not read)"
    web, searches = server_processes(pid)
    own: Usage = usage(web)
    rss = " ".join(f"{usage(p).rss_mb:.0f}" for p in searches) or "-"
    return (f"{label}: web process {own.threads} threads, {own.rss_mb:.0f} MB resident, "
            f"{own.fds} open files; search processes MB: {rss}")  # fmt: skip


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m webapp.bench idle", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--spectators", type=int, default=1000, help="connections (1000)")
    parser.add_argument("--fetches", type=int, default=200, help="page fetches (200)")
    parser.add_argument("--players", type=int, default=50,
                        help="Easy players playing meanwhile (50; 0: none)")  # fmt: skip
    parser.add_argument("--moves", type=int, default=10, help="moves per player (10)")
    parser.add_argument("--url", help="a server already running (else one is started)")
    parser.add_argument("--workers", type=int, default=2, help="search processes (2)")
    parser.add_argument(
        "--server", nargs=argparse.REMAINDER, default=[],
        help="the rest: more arguments for the server started here (e.g. --threads 1500)",
    )  # fmt: skip
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        with LoadServer(args.url, args.workers, options=args.server) as server:
            url, pid = server.url, server.web_pid
            print(f"# Idle spectators: {url} ({args.url or server.describe()})", flush=True)
            alone, failed_alone = fetch_pages(url, args.fetches)
            print(f"{args.fetches} fetches, no spectator:  p50 {ms(nearest_rank(alone, 50))} ms, "
                  f"p95 {ms(nearest_rank(alone, 95))} ms, failed {failed_alone}")  # fmt: skip
            print(describe("before", pid), flush=True)
            created = requests.post(f"{url}/api/games", json={"game": "connect4"}, timeout=30)
            game_id = created.json()["id"]
            spectators = Spectators(url)
            started, refused = time.perf_counter(), 0
            try:
                for _ in range(args.spectators):
                    try:
                        spectators.open(game_id)
                    except (websocket.WebSocketException, OSError) as error:
                        refused += 1
                        if refused == 1:
                            print(f"a spectator failed: {error!r}", flush=True)
                took = time.perf_counter() - started
                print(f"{len(spectators.sockets)} spectators joined in {took:.1f} s, "
                      f"{refused} failed", flush=True)  # fmt: skip
                print(describe("with them", pid), flush=True)
                played, done = Tally(), threading.Event()
                players = threading.Thread(
                    target=play, args=(url, args.players, args.moves, played, done), daemon=True
                )
                players.start()
                seconds, failed = fetch_pages(url, args.fetches, until=done)
                players.join()
                lat = played.latencies
                errors = ", ".join(f"{code}={n}" for code, n in sorted(played.errors.items()))
                print(f"{args.players} Easy players meanwhile: {played.moves} moves, "
                      f"{played.replies} replies, reply p50 {ms(nearest_rank(lat, 50))} ms, "
                      f"p95 {ms(nearest_rank(lat, 95))} ms, "
                      f"max {ms(max(lat, default=float('nan')))} ms, "
                      f"timeouts {played.timeouts}, errors: {errors or '-'}")  # fmt: skip
                print(f"{len(seconds) + failed} fetches, {len(spectators.sockets)} spectators: "
                      f"p50 {ms(nearest_rank(seconds, 50))} ms, "
                      f"p95 {ms(nearest_rank(seconds, 95))} ms, "
                      f"max {ms(max(seconds, default=float('nan')))} ms, failed {failed}, "
                      f"spectators dropped {spectators.dropped}", flush=True)  # fmt: skip
                print(describe("after", pid), flush=True)
            finally:
                spectators.close()
    except ServerFailed as failed_start:
        print(f"error: {failed_start}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
