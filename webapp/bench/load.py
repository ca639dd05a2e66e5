"""``python -m webapp.bench load``: the real server under a crowd, on loopback.

Starts ``python -m webapp`` on a free port with a throw-away database (or loads
the server at ``--url``), drives simulated players over Socket.IO, and prints
one table row per scenario: engine reply latency (from a player's ``move`` to
the ``engine_move`` for the position after it) p50/p95/max, refusals
(``busy``), errors by code, timeouts, disconnects, and the latency of a plain
page fetch (GET / every 200 ms) meanwhile. Under each scenario of a server
started here (one web process), the CPU per move sent of the web process and
of the search processes, together and each (from ``/proc/PID/stat``). That figure
holds everything the web process did meanwhile (game creations, connects, the page
fetches), so under a scenario with a burst a second line gives a move's own CPU in
steady state: from the moment every player's burst move is answered (they wait for each
other there) to the scenario's end, once the server is quiet again, less the page
fetches of that window at their own cost (GET / fetched alone afterwards, on a line of
its own).

Scenarios (``--scenario``, comma-separated, or ``all``, in this order):

* ``easy``     50 players at Easy, ~10 moves each, thinking 0.2-1.0 s per move;
               first a burst: every player sends its first move at the same instant.
* ``perfect``  20 players at Perfect from the first move (the engine plays second).
* ``hostile``  a client holding 20 seatless connections on one game, each sending
               ``analyse`` again as soon as the last one is answered or refused,
               while 10 players play Easy: their reply latency.

With ``--redis URL`` it starts the several-machine layout on this one instead:
``--web`` web processes (2) sharing that Redis and ``--db`` (a PostgreSQL URL;
default a throw-away SQLite file), ``--hosts`` search hosts (2) of ``--workers``
processes each, players spread over the web processes, or all through nginx
(``--nginx``, with ``deploy/nginx.conf``).

No figure is asserted: this command prints what it measured. Its exit status
is non-zero only when the server could not be started (or reached).
"""

from __future__ import annotations

import argparse
import math
import resource
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import requests

from webapp.bench import lean_players, load_timings
from webapp.bench.load_players import (
    REPLY_TIMEOUT,
    HostileConnection,
    PageFetcher,
    Player,
    PlayerPlan,
    Tally,
    fetch_pages,
    start_threads,
)
from webapp.bench.load_server import LoadServer, ServerFailed
from webapp.bench.processes import cpu_seconds, server_processes


@dataclass(frozen=True)
class Scenario:
    name: str
    level: str
    players: int
    moves: int  # per player
    burst: bool = False  # the first move of every player at the same instant
    hostile: int = 0  # seatless analysing connections


#: Sized for a 2-core machine with 2 search workers: the whole run takes ~2-3 minutes.
SCENARIOS = {
    "easy": Scenario("easy", "easy", players=50, moves=10, burst=True),
    "perfect": Scenario("perfect", "perfect", players=20, moves=8),
    "hostile": Scenario("hostile", "easy", players=10, moves=10, hostile=20),
}
#: The hostile client's position per game: past the opening book, the human to move, a
#: perfect analysis of ~1 s on one core (Connect Four); any analysis is cheap in tic-tac-toe.
HOSTILE_MOVES = {"connect4": "55166267533", "tictactoe": ""}


@dataclass
class Row:
    label: str
    level: str
    players: int
    tally: Tally
    page: Tally
    rate: float  # engine replies per second over the whole scenario (NaN: not this row's)


@dataclass
class Outcome:
    rows: list[Row] = field(default_factory=list)
    hostile: Tally | None = None
    hostile_connections: int = 0
    steady: Steady | None = None


#: GET / fetched alone this many times after a scenario: the page's own CPU.
PAGE_PROBES = 40
#: The server is quiet once its CPU grows by less than this in a QUIET_STEP.
QUIET_CPU, QUIET_STEP, QUIET_MAX = 0.005, 0.25, 10.0


@dataclass
class Steady:
    """The steady window of a scenario with a burst: its moves and the web CPU they cost."""

    cpu: Callable[[], float]  # the web process's CPU seconds so far
    page: Tally  # the page fetcher's, running meanwhile
    tally: Tally  # the moves after the burst
    started: float = math.nan  # CPU seconds when the window opened
    pages: int = 0  # page fetches when it opened
    seconds: float = math.nan  # web CPU of the window (filled when it closes)
    moves: int = 0
    fetches: int = 0  # page fetches in the window
    page_cpu: float = math.nan  # seconds of web CPU per page fetched alone

    def open(self) -> None:
        self.started, self.pages = self.cpu(), fetched(self.page)

    def close(self) -> None:
        """Once the page fetcher stopped: wait until the server is quiet (a move's scores
        outlive its reply), then read the window's CPU."""
        if math.isnan(self.started):
            return  # the window never opened (a player failed before it)
        now, deadline = self.cpu(), time.monotonic() + QUIET_MAX
        while time.monotonic() < deadline:
            time.sleep(QUIET_STEP)
            before, now = now, self.cpu()
            if now - before < QUIET_CPU:
                break
        self.seconds, self.moves = now - self.started, self.tally.moves
        self.fetches = fetched(self.page) - self.pages


def fetched(page: Tally) -> int:
    with page.lock:
        return page.replies + sum(page.errors.values())


# -- figures ---------------------------------------------------------------------------
def nearest_rank(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by nearest rank: a value that was measured; NaN if none."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q / 100.0 * len(ordered))) - 1]


def ms(seconds: float) -> str:
    return "-" if math.isnan(seconds) else f"{seconds * 1e3:.0f}"


#: One word per column (scripts split on spaces; only the first column, 14 wide, holds one).
HEADER = (f"{'scenario':<14} {'level':<8} {'players':>7} {'moves':>6} {'replies':>7} "
          f"{'unans':>5} {'ended':>5} {'p50':>7} {'p95':>7} {'max':>7} {'busy':>5} {'tmout':>5} "
          f"{'disc':>4} {'page50':>8} {'page95':>8} {'moves/s':>7}  errors")  # fmt: skip
LEGEND = """\
# p50/p95/max: engine reply latency in ms (nearest rank), from a player's move to the
#   engine_move for the position after it; page50/page95: GET / meanwhile, in ms
# moves: sent (a refused move counts: the player tries again after its think time);
# replies: engine replies; unans: accepted moves never answered; ended: moves ending a game;
# busy: refused as busy; tmout: no answer in the reply timeout; disc: dropped connections;
# moves/s: engine replies per second over the scenario; errors: error events by code,
#   create:STATUS = POST /api/games refused (that player stops; a next game asked over
#   the connection and refused counts under its error code), client:X = a client failure"""


def format_row(row: Row) -> str:
    t, lat, page = row.tally, row.tally.latencies, row.page.latencies
    errors = ", ".join(f"{code}={n}" for code, n in sorted(t.errors.items())) or "-"
    return (f"{row.label:<14} {row.level:<8} {row.players:>7} {t.moves:>6} {t.replies:>7} "
            f"{t.expected - t.replies:>5} {t.ended:>5} {ms(nearest_rank(lat, 50)):>7} "
            f"{ms(nearest_rank(lat, 95)):>7} {ms(max(lat, default=math.nan)):>7} "
            f"{t.errors.get('busy', 0):>5} {t.timeouts:>5} {t.disconnects:>4} "
            f"{ms(nearest_rank(page, 50)):>8} {ms(nearest_rank(page, 95)):>8} "
            f"{'-' if math.isnan(row.rate) else f'{row.rate:.1f}':>7}  {errors}")  # fmt: skip


def print_outcome(outcome: Outcome) -> None:
    for row in outcome.rows:
        print(format_row(row), flush=True)
    if outcome.hostile is not None:
        h = outcome.hostile
        errors = ", ".join(f"{code}={n}" for code, n in sorted(h.errors.items())) or "-"
        print(f"  hostile client: {outcome.hostile_connections} connections sent {h.moves} "
              f"analyse, {h.replies} answered, {h.timeouts} timed out; errors: {errors}",
              flush=True)  # fmt: skip


def cpu_of(pid: int | None) -> tuple[float, dict[int, float]]:
    """CPU seconds so far of the web process below ``pid`` and of each of its search
    processes (by pid)."""
    if pid is None:
        return math.nan, {}
    web, searches = server_processes(pid)
    return cpu_seconds(web), {each: cpu_seconds(each) for each in searches}


def own_cpu() -> float:
    """CPU seconds this process (the bench: its players' clients) has used so far: it
    shares the machine with the server it measures."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def web_cpu(pid: int | None) -> Callable[[], float] | None:
    """A reader of the CPU seconds of the web process below ``pid`` (None: not read)."""
    if pid is None:
        return None
    web, _ = server_processes(pid)
    return lambda: cpu_seconds(web)


def print_cpu(
    pid: int | None,
    before: tuple[float, dict[int, float]],
    after: tuple[float, dict[int, float]],
    moves: int,
) -> None:
    """The scenario's CPU per move sent: the web process's, the search processes' (all,
    then each; a process started meanwhile counts from zero)."""
    if pid is None or moves == 0:
        return  # a server elsewhere (or several web processes): not read
    web = (after[0] - before[0]) * 1000 / moves
    each = [(now - before[1].get(p, 0.0)) * 1000 / moves for p, now in sorted(after[1].items())]
    split = ", ".join(f"{ms_each:.2f}" for ms_each in each) or "-"
    print(f"  CPU per move: web process {web:.2f} ms, search processes {sum(each):.2f} ms "
          f"(each: {split}) ({moves} moves)", flush=True)  # fmt: skip


def measure_page(url: str, cpu: Callable[[], float]) -> float:
    """Seconds of web CPU per GET / fetched alone (NaN if none was)."""
    before = cpu()
    count = fetch_pages(url, PAGE_PROBES)
    return (cpu() - before) / count if count else math.nan


def print_steady(steady: Steady) -> None:
    """The page's own CPU, then a move's in the steady window (page fetches taken out)."""
    print(f"  CPU per page fetch: web process {steady.page_cpu * 1000:.2f} ms "
          f"(GET / fetched alone {PAGE_PROBES} times)", flush=True)  # fmt: skip
    if steady.moves == 0 or math.isnan(steady.seconds):
        return
    pages = steady.fetches * (0.0 if math.isnan(steady.page_cpu) else steady.page_cpu)
    own = (steady.seconds - pages) * 1000 / steady.moves
    print(f"  CPU per move, steady: web process {own:.2f} ms ({steady.moves} moves after "
          f"the burst: {steady.seconds:.2f} s of web CPU less {steady.fetches} page fetches)",
          flush=True)  # fmt: skip


# -- running ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Options:
    game: str
    think: tuple[float, float]
    max_seconds: float  # per scenario: no new move after this
    seed: int
    #: The players' client: "lean" (one event loop, ``lean_players``) or "threads"
    #: (python-socketio's threaded client, four threads a player).
    client: str = "lean"


def settings_for(level: str) -> dict[str, Any]:
    return {"level": level, "engine_plays": "second"}


def run_players(urls: list[str], scenario: Scenario, options: Options, stop: threading.Event,
                tally: Tally, burst: Tally | None,
                steady: Steady | None = None) -> float:  # fmt: skip
    """Play the scenario's players to the end of their budgets (or the deadline); seconds.
    Player ``i`` plays on ``urls[i % len(urls)]`` (several web processes share them).
    With a burst and ``steady``, the players meet again once their burst moves are answered
    and the steady window opens there."""
    started = time.perf_counter()
    if options.client == "lean":  # one event loop for the crowd (lean_players)
        plan = PlayerPlan(options.game, settings_for(scenario.level), scenario.moves,
                          options.think, stop, burst_tally=burst)  # fmt: skip
        action = None if steady is None else steady.open
        lean_players.play(urls, plan, tally, scenario.players, options.seed,
                          started + options.max_seconds, action)  # fmt: skip
        stop.set()
        return time.perf_counter() - started
    barrier = threading.Barrier(scenario.players) if burst is not None else None
    settled = None
    if burst is not None and steady is not None:
        settled = threading.Barrier(scenario.players, action=steady.open)
    plan = PlayerPlan(options.game, settings_for(scenario.level), scenario.moves, options.think,
                      stop, barrier, burst, settled)  # fmt: skip
    players = [Player(urls[i % len(urls)], plan, tally, options.seed * 1000 + i)
               for i in range(scenario.players)]  # fmt: skip
    threads = start_threads([p.run for p in players])
    deadline = started + options.max_seconds
    for thread in threads:
        thread.join(max(0.0, deadline - time.perf_counter()))
    stop.set()  # past the deadline: the moves under way finish, no new one starts
    for thread in threads:
        thread.join(REPLY_TIMEOUT + 10)
    return time.perf_counter() - started


def start_hostile(url: str, game: str, connections: int, tally: Tally,
                  stop: threading.Event) -> list[threading.Thread]:  # fmt: skip
    """A game of the hostile client's (it keeps no seat) and its analysing connections."""
    moves = HOSTILE_MOVES.get(game, "")
    settings = {"level": "perfect", "engine_plays": "first" if len(moves) % 2 else "second"}
    body: dict[str, Any] = {"game": game, "settings": settings, "moves": moves}
    response = requests.post(f"{url}/api/games", json=body, timeout=REPLY_TIMEOUT)
    response.raise_for_status()
    game_id = response.json()["id"]
    hostile = [HostileConnection(url, game_id, tally, stop) for _ in range(connections)]
    threads = start_threads([h.run for h in hostile])
    for h in hostile:  # the queue is full of analyses before the players come
        h.started.wait(REPLY_TIMEOUT)
    return threads


def run_scenario(urls: list[str], scenario: Scenario, options: Options,
                 cpu: Callable[[], float] | None = None) -> Outcome:  # fmt: skip
    """Run one scenario; with ``cpu`` (the web process's CPU seconds) and a burst, its steady
    window is measured too."""
    url = urls[0]
    outcome = Outcome()
    stop, background_stop = threading.Event(), threading.Event()
    page = Tally()
    background = start_threads([PageFetcher(url, page, background_stop).run])
    try:
        if scenario.hostile:
            outcome.hostile, outcome.hostile_connections = Tally(), scenario.hostile
            background += start_hostile(url, options.game, scenario.hostile, outcome.hostile,
                                        background_stop)  # fmt: skip
        tally, burst = Tally(), Tally() if scenario.burst else None
        if burst is not None and cpu is not None:
            outcome.steady = Steady(cpu, page, tally)
        seconds = run_players(urls, scenario, options, stop, tally, burst, outcome.steady)
    finally:
        stop.set()
        background_stop.set()
        for thread in background:
            thread.join(REPLY_TIMEOUT + 10)
    if outcome.steady is not None:
        outcome.steady.close()
    label = "hostile: play" if scenario.hostile else scenario.name
    replies = tally.replies + (burst.replies if burst is not None else 0)
    rate = replies / seconds if seconds > 0 else math.nan
    if burst is not None:
        outcome.rows.append(Row(f"{label} burst", scenario.level, scenario.players, burst, page,
                                math.nan))  # fmt: skip
    outcome.rows.append(Row(label, scenario.level, scenario.players, tally, page, rate))
    return outcome


def warm(urls: list[str], workers: int, options: Options) -> None:
    """One Easy move per worker first, so no scenario pays the workers' start-up."""
    probe = Scenario("warm-up", "easy", players=workers, moves=1)
    run_players(urls, probe, replace(options, think=(0.0, 0.0)), threading.Event(), Tally(), None)


# -- command line ------------------------------------------------------------------------
def parse_think(text: str) -> tuple[float, float]:
    """``"0.2-1.0"`` (uniform in seconds) or ``"0"`` (no think time)."""
    low, _, high = text.partition("-")
    try:
        bounds = (float(low), float(high or low))
    except ValueError:
        raise argparse.ArgumentTypeError(f"think time {text!r}: use LOW-HIGH seconds") from None
    if not 0 <= bounds[0] <= bounds[1]:
        raise argparse.ArgumentTypeError(f"think time {text!r}: need 0 <= LOW <= HIGH")
    return bounds


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m webapp.bench load", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("--scenario", default="all",
                        help=f"comma-separated, of: {', '.join(SCENARIOS)}; or all")  # fmt: skip
    parser.add_argument("--players", type=int, help="players per scenario (default 50/20/10)")
    parser.add_argument("--moves", type=int, help="moves per player (default 10/8/10)")
    parser.add_argument("--hostile", type=int, help="hostile connections (default 20)")
    parser.add_argument("--think", type=parse_think, default=(0.2, 1.0),
                        help="seconds of thought before a move, LOW-HIGH (0.2-1.0)")  # fmt: skip
    parser.add_argument("--game", default="connect4", choices=sorted(HOSTILE_MOVES))
    parser.add_argument("--workers", type=int, default=2, help="search workers of the server")
    parser.add_argument("--url", help="load this running server instead of starting one")
    parser.add_argument("--redis", metavar="URL",
                        help="start the several-process layout on this Redis: --web web "
                        "processes, --hosts search hosts of --workers processes each")  # fmt: skip
    parser.add_argument("--db", help="their shared database (default: a throw-away SQLite file)")
    parser.add_argument("--web", type=int, default=2, help="web processes, with --redis (2)")
    parser.add_argument("--hosts", type=int, default=2, help="search hosts, with --redis (2)")
    parser.add_argument("--nginx", action="store_true",
                        help="with --redis: players go through deploy/nginx.conf")  # fmt: skip
    parser.add_argument("--max-seconds", type=float, default=60.0,
                        help="per scenario: no new move after this (60)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=1, help="the players' moves")
    parser.add_argument("--client", choices=("lean", "threads"), default="lean",
                        help="the players' Socket.IO client: one event loop for the crowd "
                        "(lean, the default) or python-socketio's threaded client, four "
                        "threads a player (threads: what the bench cost before)")  # fmt: skip
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a setting of the servers started here (repeatable), e.g. "
                        "LIVE_SCORES=false to see what the scores cost the replies")  # fmt: skip
    return parser.parse_args(argv)


def chosen(args: argparse.Namespace) -> list[Scenario]:
    names = [n.strip() for n in args.scenario.split(",") if n.strip()]
    names = list(SCENARIOS) if names == ["all"] else names
    unknown = sorted(set(names) - set(SCENARIOS))
    if unknown or not names:
        raise SystemExit(f"error: unknown scenarios {unknown} (known: {', '.join(SCENARIOS)})")
    scenarios = [SCENARIOS[n] for n in names]
    sizes = {"players": args.players, "moves": args.moves, "hostile": args.hostile}
    changes = {k: max(1, v) for k, v in sizes.items() if v is not None}
    return [replace(s, **{k: v for k, v in changes.items() if k != "hostile" or s.hostile})
            for s in scenarios]  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    scenarios = chosen(args)
    options = Options(args.game, args.think, args.max_seconds, args.seed, args.client)
    started = time.perf_counter()
    try:
        server = LoadServer(args.url, args.workers, redis=args.redis, db=args.db, web=args.web,
                            hosts=args.hosts, nginx=args.nginx, settings=args.set)  # fmt: skip
        with server:
            where = args.url or server.describe()
            print(f"# Load benchmark: {' '.join(server.urls)} ({where}); {args.game}, think "
                  f"{args.think[0]:g}-{args.think[1]:g} s, reply timeout {REPLY_TIMEOUT:g} s",
                  flush=True)  # fmt: skip
            warm(server.urls, args.workers * max(1, args.hosts if args.redis else 1), options)
            print(HEADER, flush=True)
            for scenario in scenarios:
                pid = None if args.redis else server.web_pid
                before, timed = cpu_of(pid), load_timings.snapshot(server.urls[0])
                cpu, own = web_cpu(pid), own_cpu()
                outcome = run_scenario(server.urls, scenario, options, cpu)
                after, own = cpu_of(pid), own_cpu() - own
                print_outcome(outcome)
                moves = sum(row.tally.moves for row in outcome.rows)
                print_cpu(pid, before, after, moves)
                if moves:
                    print(f"  CPU of the bench's own clients per move: {own * 1000 / moves:.2f} "
                          f"ms ({options.client})", flush=True)  # fmt: skip
                load_timings.report(timed, load_timings.snapshot(server.urls[0]))
                if outcome.steady is not None and cpu is not None:
                    outcome.steady.page_cpu = measure_page(server.urls[0], cpu)
                    print_steady(outcome.steady)
    except ServerFailed as failed:
        print(f"error: {failed}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: the server is stopped", file=sys.stderr)
        return 130
    print(LEGEND)
    print(f"# the run took {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
