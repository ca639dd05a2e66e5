// rules.js: where moves land, the winner and its line, the legal moves.
import "./page-config.js";
import assert from "node:assert/strict";
import { test } from "node:test";
import { boardText, columnHeight, gameInfo, landingCell, lineCells, nextMark, replay, sideToMove } from "../../static/js/rules.js";

test("gameInfo carries the server's score convention and the board's size", () => {
  const c4 = gameInfo("connect4");
  assert.equal(c4.winBase, 22);
  assert.deepEqual(c4.steps, [0.01, 0.04, 0.1]);
  assert.equal(c4.cells, 42);
  assert.equal(gameInfo("tictactoe").cells, 9);
  assert.throws(() => gameInfo("chess"), /unknown game chess/);
});

test("a Connect Four stone falls to the lowest free cell of its column", () => {
  const info = gameInfo("connect4");
  const cells = new Array(42).fill(null);
  assert.equal(landingCell(info, cells, "4"), 38); // bottom row, fourth column
  cells[38] = 0;
  assert.equal(landingCell(info, cells, "4"), 31);
  assert.equal(landingCell(info, cells, "8"), null);
  assert.equal(landingCell(info, cells, "0"), null);
  assert.equal(landingCell(info, cells, "x"), null);
});

test("a tic-tac-toe mark needs a free cell", () => {
  const info = gameInfo("tictactoe");
  const cells = [0, null, null, null, null, null, null, null, null];
  assert.equal(landingCell(info, cells, "1"), null);
  assert.equal(landingCell(info, cells, "9"), 8);
  assert.equal(landingCell(info, cells, "10"), null);
});

test("replay finds the winner, its line, and no legal move after it", () => {
  const won = replay("connect4", "4455667");
  assert.equal(won.winner, 0);
  assert.deepEqual(won.winLine, [38, 39, 40, 41]);
  assert.equal(won.over, true);
  assert.equal(won.legal.size, 0);
  const diagonal = replay("tictactoe", "12539");
  assert.deepEqual(diagonal.winLine, [0, 4, 8]);
  assert.equal(diagonal.toMove, 1);
});

test("replay stops at the first illegal move and after a win", () => {
  const full = replay("connect4", "4444444"); // the seventh stone does not fit
  assert.equal(full.ply, 6);
  assert.equal(full.moves, "444444");
  assert.ok(!full.legal.has("4"));
  assert.equal(full.legal.size, 6);
  const after = replay("tictactoe", "125396"); // X won at 9: 6 is never played
  assert.equal(after.ply, 5);
});

test("a full tic-tac-toe board without a line is over with no winner", () => {
  const drawn = replay("tictactoe", "152384796");
  assert.equal(drawn.ply, 9);
  assert.equal(drawn.over, true);
  assert.equal(drawn.winner, null);
});

test("lineCells places an expected line's stones, alternating sides", () => {
  const ghosts = lineCells("connect4", "44", "45");
  assert.deepEqual(ghosts.map((g) => [g.cell, g.player, g.n, g.move]), [[24, 0, 1, "4"], [39, 1, 2, "5"]]);
});

test("columnHeight counts a column's stones", () => {
  const position = replay("connect4", "4445");
  assert.equal(columnHeight(position.info, position.cells, 3), 3);
  assert.equal(columnHeight(position.info, position.cells, 4), 1);
  assert.equal(columnHeight(position.info, position.cells, 0), 0);
});

test("a drawn board is written x, o and . per cell, rows from the top", () => {
  assert.equal(boardText(replay("tictactoe", "57").cells), "....x.o..");
  assert.equal(boardText(replay("connect4", "45").cells), `${".".repeat(35)}...xo..`);
});

test("a click in the position editor cycles empty, first player, second player", () => {
  assert.equal(nextMark(null), 0);
  assert.equal(nextMark(0), 1);
  assert.equal(nextMark(1), null);
});

test("the counts decide the side to move in an edited position", () => {
  assert.equal(sideToMove(replay("connect4", "").cells), 0);
  assert.equal(sideToMove(replay("connect4", "4").cells), 1); // one Red: Yellow moves
  assert.equal(sideToMove(replay("connect4", "44").cells), 0);
  assert.equal(sideToMove(replay("tictactoe", "519").cells), 1);
  assert.equal(sideToMove([1, null, null]), 0); // no position: the server says why
});
