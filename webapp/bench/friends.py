"""``python -m webapp.bench friends``: pairs of people playing each other, on a clock.

Starts ``python -m webapp`` on a free port with a throw-away database (or loads
the server at ``--url``); ``--pairs`` pairs (100) each make a game between two
people with a clock (``--clock`` seconds, 2 s increment), the second browser
takes the seat, both join over Socket.IO, and they play Connect Four in turn,
each thinking ``--think`` seconds (0.2-1.0) before a move, ``--moves`` moves a
game (20). It prints the relay latency, from a player's ``move`` to the other
player's ``state`` with that move (both in this process, one clock),
p50/p95/max, with the moves sent, those relayed, refusals and errors by code,
timeouts and dropped connections; for a server started here, the web process's
CPU time (``/proc``) per relayed move, which a machine loaded by others distorts
far less than the latency (it covers the pairs' creating, seating and joining too).

With ``--redis URL`` it starts ``--web`` web processes (2) sharing that Redis
(and a throw-away SQLite file): each pair's creator plays through one process and
its guest through the next, so every move is relayed across processes (Socket.IO
rooms, and who is connected, in Redis); the CPU is then all web processes'.

No figure is asserted: this command prints what it measured. Its exit status
is non-zero only when the server could not be started (or reached).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

import requests
import socketio

from webapp import protocol
from webapp.bench.load import cpu_of, nearest_rank, parse_think
from webapp.bench.load_players import REPLY_TIMEOUT, Tally, connect, cookie_header
from webapp.bench.load_server import LoadServer, ServerFailed

#: Each pair plays these columns in turn: 20 legal moves, no four in a row among them.
COLUMNS = "25777131474464721417"


class Seat:
    """One player: an HTTP session (its identity), a Socket.IO client, the states it got."""

    def __init__(self, url: str, tally: Tally) -> None:
        self.url, self.tally = url, tally
        self.http = requests.Session()
        self.sio = socketio.Client(reconnection=False)
        self.seen: dict[int, float] = {}  # moves count -> when a state with it came
        self.arrived = threading.Condition()
        self.sio.on(protocol.STATE, self._state)
        self.sio.on(protocol.ERROR, lambda error: tally.error(str(error.get("code"))))
        self.closing = False
        self.sio.on("disconnect", self._dropped)

    def _dropped(self, *_: Any) -> None:
        if not self.closing:
            self.tally.add(disconnects=1)

    def _state(self, state: dict[str, Any]) -> None:
        now = time.perf_counter()
        with self.arrived:
            self.seen.setdefault(len(state["moves"]), now)
            self.arrived.notify_all()

    def join(self, game_id: str) -> None:
        connect(self.url, self.sio, cookie_header(self.http))
        self.sio.call(protocol.JOIN, {"game_id": game_id}, timeout=REPLY_TIMEOUT)

    def wait_for(self, count: int, timeout: float) -> float | None:
        """When a state with ``count`` moves came (perf_counter), or None after ``timeout``."""
        with self.arrived:
            self.arrived.wait_for(lambda: count in self.seen, timeout)
            return self.seen.get(count)

    def close(self) -> None:
        self.closing = True
        if self.sio.connected:
            self.sio.disconnect()
        self.http.close()


def play_pair(
    urls: tuple[str, str], args: argparse.Namespace, tally: Tally, rng: random.Random
) -> None:
    """One pair (the creator through ``urls[0]``, the guest through ``urls[1]``): create,
    seat, join, then the moves in turn, each relay timed."""
    url = urls[0]
    creator, guest = Seat(url, tally), Seat(urls[1], tally)
    try:
        clock = {"initial": args.clock, "increment": 2}
        made = creator.http.post(
            f"{url}/api/games",
            json={"game": "connect4", "opponent": "friend", "settings": {"clock": clock}},
            timeout=REPLY_TIMEOUT,
        )
        if made.status_code != 201:
            tally.error(f"create:{made.status_code}")
            return
        game_id, invite = made.json()["id"], made.json()["invite_url"].split("?invite=")[1]
        seated = guest.http.post(
            f"{urls[1]}/api/games/{game_id}/seat", json={"invite": invite}, timeout=REPLY_TIMEOUT
        )
        if seated.status_code != 200:
            tally.error(f"seat:{seated.status_code}")
            return
        creator.join(game_id)
        guest.join(game_id)
        seats = (creator, guest)
        for ply, column in enumerate(COLUMNS[: args.moves]):
            time.sleep(rng.uniform(*args.think))
            mover, other = seats[ply % 2], seats[1 - ply % 2]
            sent = time.perf_counter()
            answer = mover.sio.call(
                protocol.MOVE,
                {"game_id": game_id, "move": column, "ply": ply},
                timeout=REPLY_TIMEOUT,
            )
            tally.add(moves=1, expected=1)
            if answer != {"ok": True}:
                return  # refused: its code is counted; this pair stops
            came = other.wait_for(ply + 1, REPLY_TIMEOUT)
            if came is None:
                tally.add(timeouts=1)
                return
            tally.reply(max(0.0, came - sent))
    except Exception as err:  # a client failure is a figure, not a crash
        tally.error(f"client:{type(err).__name__}")
    finally:
        creator.close()
        guest.close()


def run(urls: list[str], args: argparse.Namespace) -> tuple[Tally, float]:
    tally = Tally()
    started = time.perf_counter()
    threads = [
        threading.Thread(
            target=play_pair,
            args=(
                (urls[i % len(urls)], urls[(i + 1) % len(urls)]),
                args,
                tally,
                random.Random(args.seed + i),
            ),
            daemon=True,
        )
        for i in range(args.pairs)
    ]
    for thread in threads:
        thread.start()
        time.sleep(0.01)  # the pairs arrive over a second or so, as people do
    for thread in threads:
        thread.join(timeout=args.max_seconds)
    return tally, time.perf_counter() - started


def web_cpu(server: LoadServer) -> float:
    """CPU seconds so far of every web process started here (NaN for ``--url``)."""
    pids = [process.pid for process, log in server.processes if log.name.startswith("web-")]
    return sum(cpu_of(pid)[0] for pid in pids) if pids else math.nan


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m webapp.bench friends", description=__doc__)
    parser.add_argument("--url", help="load this running server instead of starting one")
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--moves", type=int, default=20, help="moves a game (at most 20)")
    parser.add_argument("--clock", type=float, default=300.0, help="each side's seconds")
    parser.add_argument("--think", type=parse_think, default=(0.2, 1.0), help="LOW-HIGH seconds")
    parser.add_argument("--redis", metavar="URL", help="several web processes sharing Redis")
    parser.add_argument("--web", type=int, default=2, help="web processes, with --redis (2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-seconds", type=float, default=300.0, help="a bound on the run")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    args.moves = max(1, min(args.moves, len(COLUMNS)))
    try:
        with LoadServer(args.url, workers=1, redis=args.redis, web=args.web) as server:
            cpu_before = web_cpu(server)
            tally, seconds = run(server.urls, args)
            cpu = web_cpu(server) - cpu_before  # NaN for --url
    except ServerFailed as failed:
        print(f"error: {failed}", file=sys.stderr)
        return 1
    lat = tally.latencies
    errors = ", ".join(f"{code}={n}" for code, n in sorted(tally.errors.items())) or "-"
    where = f"{args.web} web processes on {args.redis}" if args.redis else "one process"
    print(f"# Friends benchmark ({where}): {args.pairs} pairs, {args.moves} moves a game "
          f"on a clock of {args.clock:g} s + 2 s, "
          f"think {args.think[0]:g}-{args.think[1]:g} s")  # fmt: skip
    print(f"{'pairs':>5} {'moves':>6} {'relayed':>7} {'p50':>6} {'p95':>6} {'max':>6} "
          f"{'tmout':>5} {'disc':>4} {'seconds':>7} {'cpu_s':>6} {'cpu_ms':>6}  "
          "errors")  # fmt: skip
    print(f"{args.pairs:>5} {tally.moves:>6} {tally.replies:>7} "
          f"{nearest_rank(lat, 50) * 1e3:>6.1f} {nearest_rank(lat, 95) * 1e3:>6.1f} "
          f"{max(lat, default=float('nan')) * 1e3:>6.1f} {tally.timeouts:>5} "
          f"{tally.disconnects:>4} {seconds:>7.0f} {cpu:>6.2f} "
          f"{cpu * 1e3 / max(1, tally.replies):>6.2f}  {errors}")  # fmt: skip
    print("# p50/p95/max: ms from a player's move to the other player's state with it")
    print("# cpu_s: the web processes' CPU seconds in the run; cpu_ms: per relayed move (the")
    print("#   pairs' create, seat and join included; nan against --url)")
    print("# disc: connections dropped before the pair ended; errors: by code (create:/seat:")
    print("#   STATUS for a refused POST, client:X for a client failure)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
