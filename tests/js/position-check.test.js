// position-check.js: the analysis board's own checks, in the server's words
// (webapp/games/notation.py), so a refusal it can see never goes to the server.
import "./page-config.js";
import assert from "node:assert/strict";
import { test } from "node:test";
import { boardProblem, readSequence } from "../../static/js/position-check.js";

test("a typed sequence is normalised: spaces, commas and Connect Four letters", () => {
  assert.deepEqual(readSequence("connect4", "4 4 5 3"), { moves: "4453", error: null });
  assert.deepEqual(readSequence("connect4", "D d e C"), { moves: "4453", error: null });
  assert.deepEqual(readSequence("connect4", " 4,4;5-3. "), { moves: "4453", error: null });
  assert.deepEqual(readSequence("tictactoe", "1 5 9"), { moves: "159", error: null });
  assert.deepEqual(readSequence("connect4", ""), { moves: "", error: null });
});

test("every bad sequence names the move and the reason, as the server does", () => {
  const refused = (/** @type {string} */ game, /** @type {string} */ text) => readSequence(game, text).error;
  assert.equal(refused("connect4", "1111111"), "Move 7 (1): column 1 is full.");
  assert.equal(refused("connect4", "448"), "Move 3 (8): '8' is not a column (1-7 or a-g).");
  assert.equal(refused("connect4", "44h"), "Move 3 (h): 'h' is not a column (1-7 or a-g).");
  assert.equal(refused("connect4", "0"), "Move 1 (0): '0' is not a column (1-7 or a-g).");
  assert.equal(refused("connect4", "12121212"), "Move 8 (2): the game is already over.");
  assert.equal(refused("tictactoe", "155"), "Move 3 (5): cell 5 is taken.");
  assert.equal(refused("tictactoe", "1a"), "Move 2 (a): 'a' is not a cell (1-9).");
  assert.equal(refused("tictactoe", "0"), "Move 1 (0): '0' is not a cell (1-9).");
  assert.equal(refused("tictactoe", "1425374"), "Move 6 (7): the game is already over.");
  assert.equal(refused("connect4", "aaaaaaa"), "Move 7 (a): column 1 is full.");
  // A word mixing letters and digits is a chess square, not two columns (notation.py's MIXED).
  const mixed = "letters and digits in one word: write the columns as 1-7 or as a-g.";
  assert.equal(refused("connect4", "d4"), `Move 1 (d4): ${mixed}`);
  assert.equal(refused("connect4", "4 4 e5"), `Move 3 (e5): ${mixed}`);
  assert.equal(readSequence("connect4", "a g 4").moves, "174"); // words of one kind each may mix
});

/** A drawn board from rows of "x", "o" and "." (top row first). */
function board(/** @type {string} */ rows) {
  return [...rows.replace(/\s+/g, "")].map((mark) => (mark === "x" ? 0 : mark === "o" ? 1 : null));
}

const EMPTY_ROW = ".......";

test("a reachable board has no problem the page can see", () => {
  assert.equal(boardProblem("tictactoe", board("x.. .o. ..."), 0), null);
  assert.equal(boardProblem("tictactoe", board("... ... ..."), 0), null);
  assert.equal(boardProblem("connect4", board(EMPTY_ROW.repeat(5) + "...xo.."), 0), null);
  assert.equal(boardProblem("connect4", board(EMPTY_ROW.repeat(5) + "...x..."), 1), null);
  assert.equal(boardProblem("connect4", board(EMPTY_ROW.repeat(4) + "xo....." + "xo....."), 0), null);
  assert.equal(boardProblem("tictactoe", board("xo. x.o ..."), 0), null);
});

test("every impossible board is refused with its reason", () => {
  const c4 = (/** @type {string} */ top, /** @type {string} */ bottom) => board(EMPTY_ROW.repeat(4) + top + bottom);
  assert.equal(boardProblem("tictactoe", board("xx. ... ..."), 0),
    "X has 2 and O 0: X moves first, so X has as many as O or one more.");
  assert.equal(boardProblem("tictactoe", board("o.. ... ..."), 0),
    "X has 0 and O 1: X moves first, so X has as many as O or one more.");
  assert.equal(boardProblem("connect4", board("x......" + EMPTY_ROW.repeat(5)), 1),
    "A disc floats in column 1: the cell under it is empty.");
  assert.equal(boardProblem("tictactoe", board("xxx ooo ..."), 0),
    "Both X and O have a line: one game has one winner.");
  assert.equal(boardProblem("tictactoe", board("xxx oo. ..o"), 0),
    "X has a line, so the game ended on X's move, but the counts say O moved last.");
  assert.equal(boardProblem("tictactoe", board("x.. ... ..."), 0),
    "With 1 X and 0 O, O is to move, not X.");
  assert.equal(boardProblem("connect4", c4(".......", "...o..."), 0),
    "Red has 0 and Yellow 1: Red moves first, so Red has as many as Yellow or one more.");
  assert.equal(boardProblem("connect4", c4("...x...", "...o..."), 0),
    "The first disc is Red's, so some Red disc lies on the bottom row: none does.");
  // Two separate Red lines: taking back either top Red disc leaves the other line.
  assert.equal(boardProblem("connect4", board(EMPTY_ROW.repeat(2) + "x.....x" + "xo....x" + "xo.o.ox" + "xo.o.ox"), 1),
    "No order of moves reaches this position: every way back to the start makes a line before the last move, or needs a move out of turn.");
});
