"""The 12-stone database (webapp/games/connect4_kernel/database.py): the package's file as
the issue describes it, its values against our own solver, the solver stopping at 12
stones, and life with a missing or damaged file."""

from __future__ import annotations

import logging
import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from bitbully_databases import BitBullyDatabases

import webapp.games.connect4_kernel as kernel
from tests.conftest import random_position
from webapp.engine.search import Limits, search
from webapp.games import new_game
from webapp.games.connect4 import Connect4
from webapp.games.connect4_kernel import book, database, native, solver
from webapp.games.connect4_kernel.position import can_win_next

SOURCE = kernel.database_file()


@pytest.fixture(scope="module")
def records() -> np.ndarray:
    assert SOURCE is not None
    return np.fromfile(SOURCE, dtype=database.RECORD)


@pytest.fixture(scope="module")
def entries(tmp_path_factory: pytest.TempPathFactory) -> np.ndarray:
    return database.read_database(cache_dir=tmp_path_factory.mktemp("cache")).entries


@pytest.fixture
def without_database() -> Iterator[None]:
    """Searches below solve without the database; it is back afterwards."""
    native.use_database(database.EMPTY)
    yield
    native.load_database()


def twelve_stone_positions(count: int, seed: int) -> list[Connect4]:
    """Random positions of 12 stones, not over, in which the side to move cannot win at once."""
    rng, found = random.Random(seed), []
    while len(found) < count:
        game = random_position("connect4", 12, rng)
        if game.moves_played == 12 and not wins_at_once(game):
            found.append(game)
    return found


def wins_at_once(game: Connect4) -> bool:
    return bool(can_win_next(np.uint64(game.current), np.uint64(game.mask)))


def board_of(game: Connect4) -> list[list[int]]:
    """The package's board: 6 rows x 7 columns, top row first, 1 the first player's stones."""
    first = game.current if game.moves_played % 2 == 0 else game.current ^ game.mask
    return [
        [
            0 if not game.mask >> (7 * col + row) & 1 else 1 if first >> (7 * col + row) & 1 else 2
            for col in range(7)
        ]
        for row in reversed(range(6))
    ]


def board_of_columns(columns: tuple[str, ...]) -> list[list[int]]:
    """The package's board of ``database.SELF_CHECK``'s columns (bottom to top)."""
    board = [[0] * 7 for _ in range(6)]
    for col, stones in enumerate(columns):
        for row, owner in enumerate(stones):
            board[5 - row][col] = int(owner)
    return board


def package_value(records: np.ndarray, board: list[list[int]]) -> int | None:
    """The package's own lookup (its encoding, the board then its mirror), on our array."""
    keys = records["key"]
    for candidate in (board, BitBullyDatabases._mirror_horiz(board)):
        code = BitBullyDatabases._to_huffman(candidate)
        i = int(np.searchsorted(keys, code))
        if i < keys.size and keys[i] == code:
            return int(records["value"][i])
    return None


def database_score(entries: np.ndarray, game: Connect4) -> int | None:
    entry = book.probe(entries, np.uint64(game.current + game.mask))
    return None if entry == 0 else int(book.entry_score(entry))


# -- the file, as the issue describes it ----------------------------------------------------


def test_the_file_holds_sorted_records_of_the_documented_values(records: np.ndarray) -> None:
    assert records.size == kernel.DATABASE_ENTRIES
    keys = records["key"].astype(np.int64)
    assert np.all(keys[1:] > keys[:-1])
    values = set(np.unique(records["value"]).tolist())
    assert values == {0, *range(71, 98, 2), *range(-98, -69, 2)}


@pytest.mark.parametrize(
    ("value", "score"), [(79, 5), (97, 14), (71, 1), (0, 0), (-72, -2), (-96, -14), (-70, -1)]
)
def test_values_map_to_our_scores(value: int, score: int) -> None:
    assert database.score_of_value(value) == score


def test_the_self_check_positions_are_the_packages_examples(records: np.ndarray) -> None:
    for columns, value, score in database.SELF_CHECK:
        assert package_value(records, board_of_columns(columns)) == value
        assert database.score_of_value(value) == score


def test_the_conversion_reads_boards_as_the_package_encodes_them(
    records: np.ndarray, entries: np.ndarray
) -> None:
    """Our decoded key of each record is the board the package's own encoder gives."""
    seen = set()
    for game in twelve_stone_positions(150, seed=7):
        value = package_value(records, board_of(game))
        assert value is not None
        assert database_score(entries, game) == database.score_of_value(value)
        seen.add(int(np.sign(value)))
    assert seen == {-1, 0, 1}


def test_positions_the_side_to_move_wins_at_once_are_not_held(entries: np.ndarray) -> None:
    rng, missing = random.Random(3), 0
    while missing < 10:
        game = random_position("connect4", 12, rng)
        if game.moves_played == 12 and wins_at_once(game):
            assert database_score(entries, game) is None
            missing += 1


# -- against our own solver -----------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.usefixtures("without_database")
def test_the_database_agrees_with_the_solver(entries: np.ndarray) -> None:
    """Random 12-stone positions, solved without the database (60-150 ms each): every
    one is held, with the solver's score; wins, draws and losses all appear."""
    signs: dict[int, int] = {}
    for game in twelve_stone_positions(200, seed=2026):
        score, _ = native.solve_score(game)
        assert database_score(entries, game) == score, game.moves_played
        signs[int(np.sign(score))] = signs.get(int(np.sign(score)), 0) + 1
    assert set(signs) == {-1, 0, 1}, signs


def test_the_solver_stops_at_twelve_stones() -> None:
    """A 12-stone position: a probe per null-window search with the database (the first
    returns the exact score), a search without it."""
    game = twelve_stone_positions(1, seed=11)[0]
    with_db, nodes = native.solve_score(game)
    assert nodes <= 3
    native.use_database(database.EMPTY)
    try:
        without, searched = native.solve_score(game)
    finally:
        native.load_database()
    assert with_db == without and searched > 100


@pytest.mark.slow
def test_every_column_of_early_positions_is_exact_and_right() -> None:
    """Positions of 0-12 stones: every column's score exact, as the solver without the
    database (compared from 8 stones on, where that solve is quick) finds it."""
    rng = random.Random(5)
    positions = [random_position("connect4", stones, rng) for stones in (0, 1, 3, 5, 7, 9, 11)]
    positions += [random_position("connect4", 12, rng) for _ in range(3)]
    answers = []
    for game in positions:
        result = search(game, "alphabeta", Limits(line=False), move_scores=True, seed=1)
        assert result.move_scores is not None and result.exact
        assert all(s.exact for s in result.move_scores.values())
        assert set(result.move_scores) == {game.format_move(m) for m in game.legal_moves()}
        answers.append({m: s.score for m, s in result.move_scores.items()})
    native.use_database(database.EMPTY)
    try:
        for game, scores in zip(positions, answers, strict=True):
            if game.moves_played >= 8:
                result = search(game, "alphabeta", Limits(line=False), move_scores=True, seed=1)
                assert result.move_scores is not None
                assert {m: s.score for m, s in result.move_scores.items()} == scores
    finally:
        native.load_database()


@pytest.mark.parametrize("moves", ["2", "41", "4143", "41536743"])
def test_a_book_answer_s_other_columns_are_exact_within_their_first_budget(moves: str) -> None:
    """Without the database these columns are minutes of solving away (tests of the budgets
    in tests/test_connect4_book.py); with it, each is solved within its small budget."""
    game = new_game("connect4", moves)
    result = search(game, "alphabeta", Limits(line=False), move_scores=True)
    assert result.extra["book"] is True and result.move_scores is not None
    assert all(s.exact for s in result.move_scores.values())
    assert result.nodes < native.BOOK_LINE_NODES + 7 * native.BOOK_CHILD_NODES


def test_a_13_stone_position_scores_at_least_minus_each_parent(entries: np.ndarray) -> None:
    """The floor the solver starts from one stone past the database is true (checked by
    solves without the database), and often above the trivial one."""
    rng, raised = random.Random(13), 0
    positions = []
    while len(positions) < 20:
        game = random_position("connect4", 13, rng)
        if game.moves_played == 13 and not wins_at_once(game):
            positions.append(game)
    native.use_database(database.EMPTY)
    try:
        for game in positions:
            current, mask = np.uint64(game.current), np.uint64(game.mask)
            floor = solver.parents_floor(current, mask, entries)
            assert floor <= native.solve_score(game)[0]
            raised += floor > -solver.win_now_score(14)
    finally:
        native.load_database()
    assert raised >= 10


# -- a missing or damaged database ----------------------------------------------------------


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(database.DatabaseError, match="no such file") as err:
        database.read_database(tmp_path / "nowhere.dat", tmp_path)
    assert err.value.status == "missing"


def test_a_truncated_file_is_refused(tmp_path: Path) -> None:
    assert SOURCE is not None
    path = tmp_path / "book.dat"
    path.write_bytes(SOURCE.read_bytes()[:-5000])
    with pytest.raises(database.DatabaseError, match="truncated") as err:
        database.read_database(path, tmp_path)
    assert err.value.status == "damaged"


def test_a_changed_value_fails_the_self_check(tmp_path: Path, records: np.ndarray) -> None:
    columns, value, _ = database.SELF_CHECK[0]
    changed = records.copy()
    code = BitBullyDatabases._to_huffman(board_of_columns(columns))
    index = int(np.searchsorted(changed["key"], code))
    assert changed["value"][index] == value
    changed["value"][index] = value + 2  # still a well-formed win, one move slower
    path = tmp_path / "book.dat"
    changed.tofile(path)
    with pytest.raises(database.DatabaseError, match="self-check"):
        database.read_database(path, tmp_path)


def test_a_damaged_cache_is_rebuilt(tmp_path: Path) -> None:
    assert SOURCE is not None
    first = database.read_database(SOURCE, tmp_path)
    (cache,) = tmp_path.glob("connect4-12ply-*.bin")
    data = bytearray(cache.read_bytes())
    data[1000] ^= 0x10
    cache.write_bytes(bytes(data))
    again = database.read_database(SOURCE, tmp_path)
    assert again.status == "ok" and np.array_equal(again.entries, first.entries)
    assert cache.read_bytes() != bytes(data)  # written anew


def test_the_engine_solves_without_a_damaged_database(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    assert SOURCE is not None
    game = twelve_stone_positions(1, seed=11)[0]
    answered = search(game, "alphabeta")
    path = tmp_path / "book.dat"
    shutil.copyfile(SOURCE, path)
    with path.open("r+b") as f:
        f.truncate(path.stat().st_size - 5)
    try:
        with caplog.at_level(logging.WARNING):
            assert native.load_database(path, tmp_path) == "damaged"
        lines = [r.getMessage() for r in caplog.records if "12-stone database" in r.getMessage()]
        assert len(lines) == 1 and "solve without it" in lines[0]
        assert kernel.database_status() == "damaged"
        searched = search(game, "alphabeta")
        assert (searched.score, searched.exact) == (answered.score, True)
        assert searched.nodes > answered.nodes
        assert native.load_database(tmp_path / "gone.dat", tmp_path) == "missing"
        assert kernel.database_status() == "missing"
    finally:
        native.load_database()
    assert kernel.database_status() == "ok"
