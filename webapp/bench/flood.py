"""``python -m webapp.bench flood``: one address floods analyses while others play and ask.

Starts ``python -m webapp`` on loopback (as the load benchmark does) with its
defaults for analyses (shares, abandoning, waiters) and the per-address analysis
rate limit on (600/minute). Every client says its address in ``X-Forwarded-For``
(the server believes one proxy, ``TRUSTED_PROXIES=1``), so that one machine
can play several addresses. For ``--minutes``:

* the flooder, from one address, sends ``--rate`` analyses a minute (600) of new
  Connect Four positions, each with a made-up identity cookie, and never asks
  again (as a script that drops its answers would);
* a fresh user, from another address, asks every ``--fresh-every`` seconds for
  a position nobody asked for and polls as the page does (after ``Retry-After``)
  until it has the answer: its time to 200;
* ``--players`` Easy players (50) play Connect Four, thinking 0.2-1.0 s a move;
* ``/healthz`` is read every half second: the largest queues seen.

When the flood stops it waits for the analysis queue to empty (at most
``--drain-timeout`` s). Before the flood, the fresh user's time to 200 on an
idle server is measured once, for comparison, then ``--burst`` analyses (200)
of hard positions are sent at the same instant from as many addresses and
identities while ``GET /`` is timed (bounded waiting: past ``HTTP_WAITERS``
they answer 202 at once), and the queue is left to empty. No figure is
asserted: this command prints what it measured.
"""

from __future__ import annotations

import argparse
import functools
import math
import queue
import random
import secrets
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import requests

from webapp.bench.load import Options, Scenario, ms, nearest_rank, run_players, warm
from webapp.bench.load_players import REPLY_TIMEOUT, PageFetcher, Tally, start_threads
from webapp.bench.load_server import LoadServer, ServerFailed
from webapp.games import new_game

FLOOD_ADDRESS, FRESH_ADDRESS = "10.66.0.1", "10.66.0.2"
#: Requests of the flood under way at once at most (each may wait ANALYSIS_WAIT_SECONDS).
FLOOD_THREADS = 48
#: Seconds between two looks at /healthz.
HEALTH_PERIOD = 0.5
#: A fresh user gives up on a position after this long.
FRESH_TIMEOUT = 120.0
#: The server's settings for the flood: one proxy believed, the per-address analysis limit on.
SETTINGS = ("TRUSTED_PROXIES=1", "RATE_LIMIT_ANALYSE_PER_ADDRESS=600/minute")


class Positions:
    """Connect Four positions no one has asked for yet (random legal moves, not over)."""

    def __init__(self, seed: int) -> None:
        self.rng, self.seen, self.lock = random.Random(seed), set[str](), threading.Lock()

    def new(self, low: int, high: int) -> str:
        with self.lock:
            while True:
                moves = ""
                for _ in range(self.rng.randint(low, high)):
                    position = new_game("connect4", moves)
                    if position.is_terminal():
                        break
                    moves += position.format_move(self.rng.choice(position.legal_moves()))
                if not new_game("connect4", moves).is_terminal() and moves not in self.seen:
                    self.seen.add(moves)
                    return moves


@dataclass
class Watch:
    """The largest queues /healthz reported, and its last answer."""

    largest: Counter[str] = field(default_factory=Counter)
    last: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def run(self, url: str, stop: threading.Event) -> None:
        with requests.Session() as http:
            while not stop.is_set():
                try:
                    queued = http.get(url + "/healthz", timeout=REPLY_TIMEOUT).json()["workers"]
                    queued = queued["queued"]
                    with self.lock:
                        self.last = dict(queued)
                        for name, count in queued.items():
                            self.largest[name] = max(self.largest[name], count)
                except (requests.RequestException, ValueError, KeyError):
                    pass
                stop.wait(HEALTH_PERIOD)

    def analyses_waiting(self) -> int | None:
        with self.lock:
            return self.last.get("analysis")


def flood(url: str, rate: float, seconds: float, positions: Positions) -> Counter[str]:
    """Send ``rate`` analyses a minute for ``seconds`` from one address; statuses counted."""
    statuses: Counter[str] = Counter()
    lock, tokens = threading.Lock(), queue.Queue[str | None]()

    def send() -> None:
        with requests.Session() as http:
            while (moves := tokens.get()) is not None:
                headers = {
                    "X-Forwarded-For": FLOOD_ADDRESS,
                    "Cookie": f"lookahead_id={secrets.token_urlsafe(16)}",
                }
                try:
                    status = str(
                        http.get(
                            f"{url}/api/analysis?game=connect4&moves={moves}",
                            headers=headers,
                            timeout=REPLY_TIMEOUT,
                        ).status_code
                    )
                except requests.RequestException as error:
                    status = f"client:{type(error).__name__}"
                with lock:
                    statuses[status] += 1

    threads = start_threads([send] * FLOOD_THREADS)
    started, total = time.perf_counter(), int(rate * seconds / 60.0)
    for index in range(total):  # paced: request i leaves at i / rate minutes
        time.sleep(max(0.0, started + index * 60.0 / rate - time.perf_counter()))
        tokens.put(positions.new(8, 14))
    time.sleep(max(0.0, started + seconds - time.perf_counter()))  # the flood lasts its time
    for _ in threads:
        tokens.put(None)
    for thread in threads:
        thread.join(REPLY_TIMEOUT + 10)
    return statuses


def fresh_user(url: str, moves: str) -> tuple[float, Counter[str]]:
    """A new browser asking for ``moves`` until it has the answer: seconds to 200 (NaN if
    it gave up) and the statuses it was answered."""
    statuses: Counter[str] = Counter()
    headers = {"X-Forwarded-For": FRESH_ADDRESS}
    with requests.Session() as http:
        http.get(url + "/", headers=headers, timeout=REPLY_TIMEOUT)  # its identity cookie
        started = time.perf_counter()
        while time.perf_counter() - started < FRESH_TIMEOUT:
            try:
                response = http.get(
                    f"{url}/api/analysis?game=connect4&moves={moves}",
                    headers=headers,
                    timeout=REPLY_TIMEOUT,
                )
            except requests.RequestException as error:
                statuses[f"client:{type(error).__name__}"] += 1
                time.sleep(1.0)
                continue
            statuses[str(response.status_code)] += 1
            if response.status_code == 200:
                return time.perf_counter() - started, statuses
            time.sleep(float(response.headers.get("Retry-After") or 1))
    return math.nan, statuses


def burst(url: str, count: int, positions: Positions) -> str:
    """``count`` analyses of hard positions at the same instant, each from an address and an
    identity of its own, while a page fetcher times ``GET /``: what they were answered."""
    statuses: Counter[str] = Counter()
    lock, barrier = threading.Lock(), threading.Barrier(count)
    asked = [positions.new(8, 12) for _ in range(count)]

    def ask(index: int) -> None:
        headers = {"X-Forwarded-For": f"10.77.{index // 250}.{index % 250 + 1}",
                   "Cookie": f"lookahead_id={secrets.token_urlsafe(16)}"}  # fmt: skip
        barrier.wait(REPLY_TIMEOUT)
        try:
            status = str(http_get(f"{url}/api/analysis?game=connect4&moves={asked[index]}",
                                  headers).status_code)  # fmt: skip
        except requests.RequestException as error:
            status = f"client:{type(error).__name__}"
        with lock:
            statuses[status] += 1

    page, stop = Tally(), threading.Event()
    fetcher = start_threads([PageFetcher(url, page, stop).run])
    for thread in start_threads([functools.partial(ask, index) for index in range(count)]):
        thread.join(REPLY_TIMEOUT + 10)
    stop.set()
    fetcher[0].join(REPLY_TIMEOUT)
    lat = page.latencies
    answers = ", ".join(f"{k}={v}" for k, v in sorted(statuses.items()))
    return (f"burst: {count} analyses at once from {count} addresses: answers {answers}; "
            f"GET / meanwhile {len(lat)} fetches, p50 {ms(nearest_rank(lat, 50))} ms, "
            f"p95 {ms(nearest_rank(lat, 95))} ms")  # fmt: skip


def http_get(url: str, headers: dict[str, str]) -> requests.Response:
    return requests.get(url, headers=headers, timeout=REPLY_TIMEOUT)


def fresh_users(
    url: str,
    every: float,
    stop: threading.Event,
    positions: Positions,
    times: list[float],
    statuses: Counter[str],
) -> None:
    while not stop.is_set():
        asked = time.perf_counter()
        seconds, answered = fresh_user(url, positions.new(14, 20))
        times.append(seconds)
        statuses.update(answered)
        stop.wait(max(0.0, every - (time.perf_counter() - asked)))


def drain(watch: Watch, timeout: float) -> float:
    """Seconds until /healthz says no analysis waits (NaN past ``timeout``)."""
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        if watch.analyses_waiting() == 0:
            return time.perf_counter() - started
        time.sleep(HEALTH_PERIOD / 2)
    return math.nan


def seconds_text(values: Sequence[float]) -> str:
    shown = ", ".join("gave up" if math.isnan(v) else f"{v:.1f}" for v in values)
    done = [v for v in values if not math.isnan(v)]
    if not done:
        return f"[{shown}]"
    return (
        f"p50 {nearest_rank(done, 50):.1f} s, max {max(done):.1f} s, "
        f"{len(values) - len(done)} gave up  [{shown}]"
    )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m webapp.bench flood",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--minutes", type=float, default=3.0, help="of flood (3)")
    parser.add_argument("--rate", type=float, default=600.0, help="analyses a minute (600)")
    parser.add_argument("--players", type=int, default=50, help="Easy players (50)")
    parser.add_argument(
        "--fresh-every",
        type=float,
        default=15.0,
        help="seconds between the fresh user's positions (15)",
    )
    parser.add_argument("--workers", type=int, default=2, help="search workers of the server")
    parser.add_argument(
        "--burst",
        type=int,
        default=200,
        help="analyses sent at once before the flood, 0 = none (200)",
    )
    parser.add_argument("--drain-timeout", type=float, default=120.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if not (0 < args.minutes <= 60 and 0 < args.rate <= 6000 and 0 <= args.players <= 500):
        parser.error("--minutes in (0, 60], --rate in (0, 6000], --players in [0, 500]")
    if not 0 <= args.burst <= 1000:
        parser.error("--burst in [0, 1000]")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    seconds = args.minutes * 60.0
    positions = Positions(args.seed)
    try:
        with LoadServer(None, args.workers, settings=SETTINGS) as server:
            url = server.url
            print(
                f"# Flood benchmark: {url} ({server.describe()}); {args.minutes:g} min of "
                f"{args.rate:g} analyses/min from {FLOOD_ADDRESS} (made-up identities), "
                f"{args.players} Easy players, a fresh user from {FRESH_ADDRESS}",
                flush=True,
            )
            options = Options("connect4", (0.2, 1.0), seconds, args.seed)
            warm([url], args.workers, options)
            idle, _ = fresh_user(url, positions.new(14, 20))
            print(f"fresh user, idle server: {idle:.2f} s to 200", flush=True)
            if args.burst:
                calm, watched = Watch(), threading.Event()
                watching_burst = start_threads([lambda: calm.run(url, watched)])
                print(burst(url, args.burst, positions), flush=True)
                emptied = drain(calm, args.drain_timeout)  # the flood starts on a calm server
                watched.set()
                watching_burst[0].join(REPLY_TIMEOUT)
                print(f"  largest analysis queue {calm.largest['analysis']}, empty "
                      f"{emptied:.1f} s after the burst's answers", flush=True)  # fmt: skip
            watch, stop, watching = Watch(), threading.Event(), threading.Event()
            background = start_threads([lambda: watch.run(url, watching)])
            times: list[float] = []
            fresh_statuses: Counter[str] = Counter()
            background += start_threads(
                [lambda: fresh_users(url, args.fresh_every, stop, positions, times, fresh_statuses)]
            )
            tally: Tally = Tally()
            scenario = Scenario("flood", "easy", args.players, moves=1_000_000)

            def players() -> None:
                run_players([url], scenario, options, stop, tally, None)

            play = start_threads([players])
            statuses = flood(url, args.rate, seconds, positions)
            stop.set()
            drained = drain(watch, args.drain_timeout)  # from the flood's end
            for thread in play + background[1:]:
                thread.join(REPLY_TIMEOUT + FRESH_TIMEOUT)
            watching.set()
            background[0].join(REPLY_TIMEOUT)
    except ServerFailed as failed:
        print(f"error: {failed}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: the server is stopped", file=sys.stderr)
        return 130
    sent = sum(statuses.values())
    print(
        f"flood: {sent} analyses sent; answers "
        f"{', '.join(f'{k}={v}' for k, v in sorted(statuses.items()))}"
    )
    print(
        f"fresh user during the flood: {len(times)} positions, time to 200 "
        f"{seconds_text(times)}; answers "
        f"{', '.join(f'{k}={v}' for k, v in sorted(fresh_statuses.items()))}"
    )
    lat = tally.latencies
    errors = ", ".join(f"{code}={n}" for code, n in sorted(tally.errors.items())) or "-"
    print(
        f"players: {args.players} Easy, {tally.moves} moves, {tally.replies} replies, "
        f"busy {tally.errors.get('busy', 0)}, reply p50 {ms(nearest_rank(lat, 50))} ms, "
        f"p95 {ms(nearest_rank(lat, 95))} ms, max {ms(max(lat, default=math.nan))} ms, "
        f"timeouts {tally.timeouts}; errors {errors}"
    )
    largest = ", ".join(f"{name} {count}" for name, count in sorted(watch.largest.items()))
    print(f"largest queues seen (/healthz): {largest}")
    print(
        f"analysis queue empty {drained:.1f} s after the flood stopped"
        if not math.isnan(drained)
        else f"analysis queue not empty {args.drain_timeout:g} s after the flood"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
