"""The engine's exactly solved move goes out alone; the line it expects follows it.

``webapp/services/engine_line.py``: a Perfect reply walks no line (nine tenths of its
search); the line is searched after the move, as display work, and kept with the move
while it is still the board's last.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.web.held_engine import cut_short
from tests.web.helpers import Listener, wait_until
from tests.web.test_searches_unit import ManualPool
from webapp import protocol
from webapp.engine import search
from webapp.games import new_game
from webapp.search_pool import Priority, SearchJob
from webapp.search_pool.process import run_search
from webapp.services import GameService
from webapp.services.engine_job import engine_job
from webapp.services.engine_line import LINE, wants_line
from webapp.store import open_store

#: A Connect Four game 16 plies in, the player to move: ``PLAYED`` then leaves the engine
#: a position its solver answers in milliseconds, with a line of 17 more plies after it.
OPENING, PLAYED = "2552354651517435", "2"

Sent = list[tuple[str, Any, str]]


class Never:
    """A cancel flag never set."""

    def is_set(self) -> bool:
        return False


def proved(moves: str, line: str) -> None:
    """Every move of ``line`` from ``moves`` is one of the best there (an exact search of
    each position on the way, by the solver), and the line is legal to its end."""
    assert line
    for ply, move in enumerate(line):
        scores = search(new_game("connect4", moves + line[:ply]), move_scores=True).move_scores
        assert scores is not None and all(s.exact for s in scores.values())
        assert scores[move].score == max(s.score for s in scores.values()), (moves, line, ply)
    new_game("connect4", moves + line)  # legal (raises otherwise)


@pytest.fixture
def service() -> Iterator[tuple[GameService, ManualPool, Sent]]:
    pool = ManualPool()
    sent: Sent = []
    made = GameService(
        open_store(":memory:"),
        pool,  # type: ignore[arg-type]
        lambda event, payload, to: sent.append((event, payload, to)),
        seed=0,
    )
    yield made, pool, sent
    made.close()


def of(pool: ManualPool, kind: str) -> list[SearchJob]:
    return [job for job in pool.submitted if job.tag[0] == kind]


def engine_replied(games: GameService, pool: ManualPool, game_id: str, moves: str) -> str:
    """Deliver the engine's search at ``moves``; the move it played."""
    (job,) = [job for job in of(pool, "engine") if job.moves == moves]
    pool.finish(job)
    wait_until(lambda: len(games.store.get(game_id).moves) == len(moves) + 1)  # type: ignore[union-attr]
    stored = games.store.get(game_id)
    assert stored is not None
    return stored.moves[-1]


def line_asked(games: GameService, pool: ManualPool) -> tuple[str, str, SearchJob]:
    """A Perfect game at ``OPENING``: the player's ``PLAYED`` and the engine's reply
    applied. The game's id, the engine's move and its line's search, not yet run."""
    record = games.create("connect4", {"level": "perfect"}, OPENING, owner="me")
    games.move(record.id, PLAYED, "me")
    move = engine_replied(games, pool, record.id, OPENING + PLAYED)
    (line,) = of(pool, LINE)
    return record.id, move, line


def test_only_an_exact_solve_leaves_its_line_for_later(
    service: tuple[GameService, ManualPool, Sent],
) -> None:
    games, _, _ = service
    for level, line in [("perfect", False), ("hard", True), ("easy", True)]:
        record = games.create("connect4", {"level": level}, owner="me")
        assert engine_job(record, 0).limits.line is line
    perfect = games.create("connect4", {"level": "perfect", "algorithm": "minimax"}, owner="me")
    assert engine_job(perfect, 0).limits.line  # minimax: a capped depth, its own line


def test_the_move_goes_out_alone_and_its_proved_line_follows_with_the_state(
    service: tuple[GameService, ManualPool, Sent],
) -> None:
    games, pool, sent = service
    record = games.create("connect4", {"level": "perfect"}, OPENING, owner="me")
    games.move(record.id, PLAYED, "me")
    searched = OPENING + PLAYED
    move = engine_replied(games, pool, record.id, searched)
    (reply,) = [p for e, p, _ in sent if e == protocol.ENGINE_MOVE]
    assert reply["pv"] == move and reply["exact"]  # the move alone, at once
    stored = games.store.get(record.id)
    assert stored is not None and stored.last_engine_move is not None
    assert stored.last_engine_move["pv"] == move
    (line,) = of(pool, LINE)  # the line, searched after the move: display work
    assert line.moves == searched + move and line.limits.line and line.limits.depth is None
    assert line.priority == Priority.ANALYSIS and line.owner == "" and not line.move_scores
    pool.finish(line)
    wait_until(lambda: games.store.get(record.id).last_engine_move["pv"] != move)  # type: ignore[union-attr]
    stored = games.store.get(record.id)
    assert stored is not None and stored.last_engine_move is not None
    full = stored.last_engine_move["pv"]
    assert full.startswith(move) and len(full) > 1
    assert stored.last_engine_move["line_after"] is True  # the move's figures leave it out
    assert stored.moves == searched + move  # nothing else changed but its line
    proved(searched, full)
    states = [p for e, p, _ in sent if e == protocol.STATE]
    assert states[-1]["last_engine_move"]["pv"] == full  # the room hears it
    assert games.searches.lines.sizes() == 0


def test_a_line_from_the_opening_book_runs_to_the_end_of_the_game(
    service: tuple[GameService, ManualPool, Sent],
) -> None:
    """The book answers "44444333" at once, but its line runs on past the book where
    every move is a solve: the book's answer cuts it short (4 plies here, "3367" after the
    engine's "3"), the line's search does not (its own node cap aside)."""
    games, pool, _ = service
    record = games.create("connect4", {"level": "perfect"}, "4444433", owner="me")
    move = engine_replied(games, pool, record.id, "4444433")  # the engine moves first here
    (line,) = of(pool, LINE)
    pool.finish(line)
    wait_until(lambda: games.searches.lines.sizes() == 0)
    stored = games.store.get(record.id)
    assert stored is not None and stored.last_engine_move is not None
    full = stored.last_engine_move["pv"]
    assert full.startswith(move) and new_game("connect4", "4444433" + full).is_terminal()
    proved("4444433", full)  # every move of it a best one, to the end of the game


def test_a_line_that_comes_after_the_player_moved_is_not_kept(
    service: tuple[GameService, ManualPool, Sent],
) -> None:
    games, pool, sent = service
    game_id, move, line = line_asked(games, pool)
    after = new_game("connect4", OPENING + PLAYED + move)
    mine = after.format_move(after.legal_moves()[0])
    games.move(game_id, mine, "me")  # before the line came: it is moot now
    assert games.searches.lines.sizes() == 0
    states = len([e for e, _, _ in sent if e == protocol.STATE])
    pool.finish(line)  # came all the same (a cancel is a request)
    stored = games.store.get(game_id)
    assert stored is not None and stored.last_engine_move is not None
    assert stored.last_engine_move["pv"] == move  # the short line, true, is what is kept
    assert len([e for e, _, _ in sent if e == protocol.STATE]) == states


def _moved_elsewhere(games: GameService, game_id: str) -> None:
    """Another process played the player's move (this one never heard of it)."""
    record = games.store.get(game_id)
    assert record is not None
    position = new_game("connect4", record.moves)
    record.moves += position.format_move(position.legal_moves()[0])
    games.store.save(record)


def _line_kept_elsewhere(games: GameService, game_id: str) -> None:
    """Another process kept a line for the move already."""
    record = games.store.get(game_id)
    assert record is not None and record.last_engine_move is not None
    move = record.last_engine_move["move"]
    record.last_engine_move = {**record.last_engine_move, "pv": move + "1", "line_after": True}
    games.store.save(record)


def _engine_thinking(games: GameService, game_id: str) -> None:
    """An engine search is tied to the game's version (its save would orphan it)."""
    games.searches.lines.thinking = lambda _: True


@pytest.mark.parametrize("meanwhile", [_moved_elsewhere, _line_kept_elsewhere, _engine_thinking])
def test_a_line_is_kept_only_for_the_last_move_with_nothing_searching(
    service: tuple[GameService, ManualPool, Sent], meanwhile: Callable[[GameService, str], None]
) -> None:
    """The checks made under the game's lock as the line comes (``EngineLines._keep``),
    for what this process cannot know in advance: another process's changes."""
    games, pool, sent = service
    game_id, _, line = line_asked(games, pool)
    meanwhile(games, game_id)
    before = games.store.get(game_id)
    states = len([e for e, _, _ in sent if e == protocol.STATE])
    pool.finish(line)
    wait_until(lambda: games.searches.lines.sizes() == 0)
    after = games.store.get(game_id)
    assert after is not None and before is not None
    assert (after.version, after.last_engine_move) == (before.version, before.last_engine_move)
    assert len([e for e, _, _ in sent if e == protocol.STATE]) == states


def test_a_line_cut_short_before_the_solve_is_not_kept(
    service: tuple[GameService, ManualPool, Sent],
) -> None:
    """A line's search stopped by its time before the solver answered gives the solver's
    heuristic pass: a horizon's line, not a proved one. The move keeps its own."""
    games, pool, _ = service
    game_id, move, line = line_asked(games, pool)
    answer = cut_short(line.game, line.moves, line.algorithm, line.limits, move_scores=False,
                       seed=0, progress=lambda _: None, cancel=Never())  # fmt: skip
    assert not answer["exact"] and len(answer["pv"]) > 1
    pool.on_result(line, answer, None)
    wait_until(lambda: games.searches.lines.sizes() == 0)
    stored = games.store.get(game_id)
    assert stored is not None and stored.last_engine_move is not None
    assert stored.last_engine_move["pv"] == move


def test_an_undo_drops_the_line_under_way(
    service: tuple[GameService, ManualPool, Sent],
) -> None:
    games, pool, _ = service
    game_id, _, _ = line_asked(games, pool)
    assert games.searches.lines.sizes() == 1
    games.undo(game_id, "me")
    assert games.searches.lines.sizes() == 0
    stored = games.store.get(game_id)
    assert stored is not None and stored.moves == OPENING


@pytest.mark.parametrize("changes", [{"level": "hard"}, {"algorithm": "minimax"}])
def test_new_settings_keep_the_line_under_way(
    service: tuple[GameService, ManualPool, Sent], changes: dict[str, str]
) -> None:
    """The line is the position's, proved to the end: a new level or algorithm changes the
    engine's next move, not the truth of the one it played."""
    games, pool, _ = service
    game_id, move, line = line_asked(games, pool)
    games.change_settings(game_id, changes, "me")
    assert games.searches.lines.sizes() == 1
    pool.finish(line)
    wait_until(lambda: games.searches.lines.sizes() == 0)
    stored = games.store.get(game_id)
    assert stored is not None and stored.last_engine_move is not None
    assert stored.last_engine_move["pv"].startswith(move) and len(stored.last_engine_move["pv"]) > 1
    assert stored.settings[next(iter(changes))] == next(iter(changes.values()))


def test_a_move_that_ends_the_game_asks_no_line(
    service: tuple[GameService, ManualPool, Sent],
) -> None:
    games, pool, _ = service
    # The engine wins at once here (four in column 1): nothing to expect after it.
    record = games.create("connect4", {"level": "perfect"}, "121212", owner="me")
    games.move(record.id, "7", "me")
    engine_replied(games, pool, record.id, "1212127")
    stored = games.store.get(record.id)
    assert stored is not None and stored.status != "playing"
    assert of(pool, LINE) == []


def test_an_engine_search_stopped_before_its_solve_asks_no_line(
    service: tuple[GameService, ManualPool, Sent],
) -> None:
    """Its move came from the heuristic pass, with that pass's own line (not proved)."""
    games, _, _ = service
    record = games.create("connect4", {"level": "perfect"}, OPENING + PLAYED, owner="me")
    job = engine_job(record, 0)
    options = {"move_scores": False, "seed": 0, "progress": lambda _: None, "cancel": Never()}
    stopped = cut_short(job.game, job.moves, job.algorithm, job.limits, **options)
    assert not stopped["exact"]
    assert not wants_line(job, stopped, record)
    solved = run_search(job.game, job.moves, job.algorithm, job.limits, **options)
    assert solved["exact"] and solved["pv"] == solved["best_move"]
    assert wants_line(job, solved, record)


Start = Callable[..., tuple[dict[str, Any], Listener]]


def test_through_the_real_pool_the_line_reaches_the_page(start: Start) -> None:
    state, player = start("connect4", settings={"level": "perfect"}, moves=OPENING)
    player.emit(protocol.MOVE, {"game_id": state["id"], "move": PLAYED})
    searched = OPENING + PLAYED
    reply = player.wait_for(protocol.ENGINE_MOVE, lambda p: p["moves"] == searched)
    move = reply["move"]
    assert reply["pv"] == move and reply["exact"]

    def with_line(payload: dict[str, Any]) -> bool:
        last = payload.get("last_engine_move") or {}
        return bool(last.get("moves") == searched and len(last.get("pv", "")) > 1)

    full = player.wait_for(protocol.STATE, with_line)["last_engine_move"]["pv"]
    assert full.startswith(move)
    proved(searched, full)


def test_a_search_host_stops_the_line_once_the_game_moves_on_through_another_process() -> None:
    """A host applies the engine's moves of the games it searches, so the line's search runs
    on its own pool; when the game moves on through a web process (the epoch it watches),
    the line is moot with the scores and pondering it already stops."""
    from types import SimpleNamespace

    from webapp.search_host.host import SearchHost

    stopped: list[tuple[str, str]] = []
    host = SearchHost.__new__(SearchHost)
    host.searches = SimpleNamespace(  # type: ignore[assignment]
        live=SimpleNamespace(stop=lambda game_id: stopped.append(("scores", game_id))),
        lines=SimpleNamespace(stop=lambda game_id: stopped.append(("line", game_id))),
    )
    host._moved_on("g1")
    assert stopped == [("scores", "g1"), ("line", "g1")]
