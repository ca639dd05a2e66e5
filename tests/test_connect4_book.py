"""The Connect Four opening book: its file, its values, its generator, and life without it."""

from __future__ import annotations

import logging
import random
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from webapp.engine.search import Limits, search
from webapp.games import new_game
from webapp.games.connect4 import Connect4
from webapp.games.connect4_kernel import book, book_build, database, native


@pytest.fixture
def without_database() -> Iterator[None]:
    """Without the 12-stone database, which makes the columns past the book quick to solve
    (tests/test_connect4_database.py): the node budgets below are what is tested."""
    native.use_database(database.EMPTY)
    yield
    native.load_database()


@pytest.fixture
def without_book() -> Iterator[None]:
    """Searches below solve from scratch; the shipped book is back afterwards."""
    native.use_book(book.EMPTY)
    yield
    native.load_book()


def moves_of(key: int) -> str:
    """A move string reaching the position of a book key (depth-first over column stacks)."""
    current, mask = book.position_of_key(key)
    stones = bin(mask).count("1")
    # the side to move owns ``current``; the first player is to move when stones is even
    first = current if stones % 2 == 0 else current ^ mask
    columns = []
    for col in range(7):
        bits = mask >> (7 * col) & 0x7F
        owners = [0 if first >> (7 * col + row) & 1 else 1 for row in range(bits.bit_length())]
        columns.append(owners)

    def extend(heights: list[int], line: str) -> str | None:
        if len(line) == stones:
            return line
        player = len(line) % 2
        for col in range(7):
            if heights[col] < len(columns[col]) and columns[col][heights[col]] == player:
                heights[col] += 1
                found = extend(heights, line + str(col + 1))
                heights[col] -= 1
                if found is not None:
                    return found
        return None

    found = extend([0] * 7, "")
    assert found is not None, f"no move order reaches key {key}"
    return found


def test_moves_of_inverts_the_key() -> None:
    rng = random.Random(3)
    for _ in range(200):
        game = Connect4()
        for _ in range(rng.randrange(0, 12)):
            if game.is_terminal():
                break
            game.play(rng.choice(game.legal_moves()))
        if game.is_terminal():  # book positions never are
            continue
        again = new_game("connect4", moves_of(game.key()))
        assert (again.current, again.mask) == (game.current, game.mask)  # type: ignore[attr-defined]


# -- the shipped book -------------------------------------------------------------------


def test_shipped_book_holds_the_first_moves() -> None:
    shipped = book.read_book()
    assert shipped.complete >= 8 and shipped.plies >= shipped.complete
    empty = Connect4()
    # Connect Four is a first-player win (on the last stone, 41st): only the centre wins.
    entry = book.unpack(int(book.probe(shipped.entries, np.uint64(empty.key()))))
    assert entry == (empty.key(), 0b0001000, 1)
    result = search(new_game("connect4", ""), "alphabeta", move_scores=True)
    assert (result.best_move, result.score, result.exact) == ("4", 1, True)
    assert result.extra["book"] is True
    assert result.move_scores is not None and len(result.move_scores) == 7
    assert all(s.exact for s in result.move_scores.values())
    assert {m for m, s in result.move_scores.items() if s.score == 1} == {"4"}


def shipped_sample(count: int, solved: bool, stones: int) -> list[tuple[int, int, int]]:
    """A repeatable sample of shipped entries with ``stones`` stones: (key, columns, score)."""
    rows = [book.unpack(int(e)) for e in book.read_book().entries.tolist()]
    rows = [r for r in rows if bool(r[1]) == solved and bin(book.position_of_key(r[0])[1])
            .count("1") == stones]  # fmt: skip
    return random.Random(8).sample(rows, min(count, len(rows)))


@pytest.mark.slow
@pytest.mark.usefixtures("without_book")
def test_stored_values_and_best_columns_match_a_fresh_solve() -> None:
    """Engine-to-move entries: the exact score and exactly the optimal columns."""
    sample = shipped_sample(3, solved=True, stones=8)
    assert len(sample) == 3
    for key, columns, score in sample:
        moves = moves_of(key)
        result = search(new_game("connect4", moves), "alphabeta", move_scores=True)
        assert result.extra.get("book") is False and result.nodes > 0
        assert (result.score, result.exact) == (score, True), moves
        assert result.move_scores is not None
        optimal = {int(m) - 1 for m, s in result.move_scores.items() if s.score == score}
        assert optimal == {c for c in range(7) if columns >> c & 1}, moves


@pytest.mark.usefixtures("without_book")
@pytest.mark.parametrize("stones", [7, pytest.param(8, marks=pytest.mark.slow)])
def test_stored_values_of_opponent_positions_match_a_fresh_solve(stones: int) -> None:
    """Opponent-to-move entries (after an optimal engine move): the exact score."""
    sample = shipped_sample(4, solved=False, stones=stones)
    assert len(sample) == 4
    for key, _, score in sample:
        moves = moves_of(key)
        result = search(new_game("connect4", moves), "alphabeta")
        assert (result.score, result.exact) == (score, True), moves


# -- bad files ----------------------------------------------------------------------------


def small_book(path: Path) -> np.ndarray:
    entries = book.read_book().entries[:50].copy()
    book.write_book(path, entries, 8, 8)
    return entries


def corrupt(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "flipped bit":
        data[-3] ^= 0x10
    elif how == "truncated":
        del data[-5:]
    elif how == "short":
        del data[10:]
    elif how == "magic":
        data[:8] = b"NOTABOOK"
    elif how == "version":
        struct.pack_into("<I", data, 8, 99)
    elif how == "unsorted":
        body = np.frombuffer(bytes(data[32:]), dtype="<u8")[::-1].copy()
        data[32:] = body.tobytes()
        struct.pack_into("<Q", data, 24, zlib.crc32(body.tobytes()))
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("how", "message"),
    [("flipped bit", "checksum mismatch"), ("truncated", "truncated"),
     ("short", "shorter than its header"), ("magic", "not a book file"),
     ("version", "version 99"), ("unsorted", "not sorted")],
)  # fmt: skip
def test_a_bad_book_file_is_refused_with_the_reason(tmp_path: Path, how: str, message: str) -> None:
    path = tmp_path / "book.bin"
    entries = small_book(path)
    assert np.array_equal(book.read_book(path).entries, entries)
    corrupt(path, how)
    with pytest.raises(book.BookError, match=message) as caught:
        book.read_book(path)
    assert str(path) in str(caught.value)


def test_a_missing_book_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(book.BookError, match="cannot read it"):
        book.read_book(tmp_path / "nowhere.bin")


def test_the_engine_searches_when_its_book_is_bad(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (key, _, score), *_ = shipped_sample(1, solved=True, stones=8)
    moves = moves_of(key)
    answered = search(new_game("connect4", moves), "alphabeta")
    assert answered.extra["book"] is True and answered.score == score
    path = tmp_path / "book.bin"
    small_book(path)
    corrupt(path, "flipped bit")
    try:
        with caplog.at_level(logging.WARNING):
            assert native.load_book(path) is book.EMPTY
        assert "checksum mismatch" in caplog.text and "search from the first move" in caplog.text
        searched = search(new_game("connect4", moves), "alphabeta")
        assert searched.extra["book"] is False and searched.nodes > answered.nodes
        assert (searched.score, searched.exact) == (score, True)
    finally:
        native.load_book()


# -- the generator ------------------------------------------------------------------------


#: Twelve stones of perfect play (the book's own line): the first player, to move, wins.
ROOT = "444444326555"
LAST = len(ROOT) + 4


@pytest.mark.slow
@pytest.mark.usefixtures("without_book")
def test_book_build_solves_every_position_of_its_definition_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, work = tmp_path / "book.bin", tmp_path / "work"
    assert book_build.build(out, LAST, 1, work, 0.0, ROOT) == 0
    built = book.read_book(out)
    assert (built.plies, built.complete) == (LAST, LAST)
    rows = [book.unpack(int(e)) for e in built.entries.tolist()]
    by_key = {key: (columns, score) for key, columns, score in rows}
    # every stored value is the solver's, through the public search
    for key, columns, score in rows:
        game = new_game("connect4", moves_of(key))
        result = search(game, "alphabeta", move_scores=bool(columns))
        assert (result.score, result.exact) == (score, True)
        if columns:
            assert result.move_scores is not None
            assert {int(m) - 1 for m, s in result.move_scores.items() if s.score == score} == {
                c for c in range(7) if columns >> c & 1
            }

    # the definition: the engine plays either colour from the root (to move there, or
    # answering each first move there); below each engine position, every optimal
    # move and every reply of the opponent, up to the last ply
    def engine_positions(moves: str) -> Iterator[str]:
        yield moves
        key, flipped = book_build.canonical(new_game("connect4", moves))  # type: ignore[arg-type]
        columns, _ = by_key[key]  # canonical orientation
        columns = book.mirror_columns(columns) if flipped else columns
        for col in (c for c in range(7) if columns >> c & 1):
            after = moves + str(col + 1)
            if len(after) <= LAST:
                assert min_key(after) in by_key or new_game("connect4", after).is_terminal()
            for reply in "1234567":
                reached = after + reply
                position = new_game("connect4", after)
                if position.is_terminal() or not position.can_play(int(reply) - 1):  # type: ignore[attr-defined]
                    continue
                if len(reached) <= LAST and not new_game("connect4", reached).is_terminal():
                    yield from engine_positions(reached)

    root = new_game("connect4", ROOT)
    starts = [ROOT] + [ROOT + root.format_move(col) for col in root.legal_moves()]
    reached = {min_key(p) for start in starts for p in engine_positions(start)}
    assert reached == {k for k, (columns, _) in by_key.items() if columns}
    log = (work / "solved.txt").read_text().splitlines()
    assert len(log) == len(reached)
    assert f"this run: {len(reached)} solved" in capsys.readouterr().out
    first = out.read_bytes()
    assert book_build.build(out, LAST, 1, work, 0.0, ROOT) == 0
    again = capsys.readouterr().out
    assert f"resuming with {len(reached)} solved positions" in again
    assert "this run: 0 solved" in again
    assert out.read_bytes() == first
    assert (work / "solved.txt").read_text().splitlines() == log  # nothing solved again
    # without its work log (another machine), the book itself says what is solved
    (work / "solved.txt").unlink()
    assert book_build.build(out, LAST, 1, work, 0.0, ROOT) == 0
    assert "this run: 0 solved" in capsys.readouterr().out
    assert out.read_bytes() == first


def min_key(moves: str) -> int:
    return book_build.canonical(new_game("connect4", moves))[0]  # type: ignore[arg-type]


@pytest.mark.usefixtures("without_database")
@pytest.mark.parametrize("moves", ["2", "41", "4143"])
def test_a_book_answer_scores_its_other_columns_within_a_node_budget(moves: str) -> None:
    """Columns the book does not hold are solved on a budget, else kept heuristic."""
    game = new_game("connect4", moves)
    result = search(game, "alphabeta", move_scores=True)
    assert result.extra["book"] is True and result.exact and result.stopped is None
    scores = result.move_scores
    assert scores is not None and set(scores) == {game.format_move(m) for m in game.legal_moves()}
    assert result.best_move is not None
    assert (scores[result.best_move].score, scores[result.best_move].exact) == (result.score, True)
    assert all(s.score <= result.score for s in scores.values() if s.exact)
    assert any(not s.exact for s in scores.values())  # these are minutes of solving away
    budget = native.BOOK_LINE_NODES + 7 * native.BOOK_CHILD_NODES
    assert result.nodes < budget + 8 * 4096 + 200_000  # checks every 4096; the heuristic pass
    assert_line(moves, result.pv)


def assert_line(moves: str, pv: str) -> None:
    new_game("connect4", moves + pv)


@pytest.mark.slow
@pytest.mark.usefixtures("without_database")
def test_a_search_with_limits_tries_the_given_up_columns_again_with_a_larger_budget() -> None:
    """ "41536743" is in the book with its best column; its other columns lie past the book
    and each needs millions of nodes. Without limits they stay heuristic (the budget above);
    with limits (as every server search has) a second, larger budget solves them, each
    score the negation of its child's own solve."""
    game = new_game("connect4", "41536743")
    quick = search(game, "alphabeta", Limits(line=False), move_scores=True)
    assert quick.move_scores is not None and not all(s.exact for s in quick.move_scores.values())
    patient = search(game, "alphabeta", Limits(time=120, line=False), move_scores=True)
    assert patient.move_scores is not None and patient.stopped is None
    for move, score in patient.move_scores.items():
        child = new_game("connect4", "41536743" + move)
        assert score.exact and score.score == -native.solve_score(child)[0], move
