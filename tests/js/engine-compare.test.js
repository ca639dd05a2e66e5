// engine-compare.js: the position before the engine's move, and the comparison in words.
import "./page-config.js";
import assert from "node:assert/strict";
import { test } from "node:test";
import { beforeEngineMove, compareCells, compareSentence } from "../../static/js/engine-compare.js";

test("the position before the engine's last move, whichever side it plays", () => {
  assert.equal(beforeEngineMove("4453", "second"), "445"); // its moves: plies 2 and 4
  assert.equal(beforeEngineMove("445", "second"), "4"); // the player is to move
  assert.equal(beforeEngineMove("4", "second"), null); // it has not moved yet
  assert.equal(beforeEngineMove("", "first"), null);
  assert.equal(beforeEngineMove("5", "first"), "");
  assert.equal(beforeEngineMove("51", "first"), "");
  assert.equal(beforeEngineMove("513", "first"), "51");
});

const row = (algorithm, nodes, ms, move = "4") => ({
  algorithm, nodes, time_ms: ms, runs: 3, best_move: move, score: -0.003, exact: false, depth: 6,
});

test("the sentence gives the same move and value, and what each one cost", () => {
  const said = compareSentence(row("minimax", 127053, 17.2), row("alphabeta", 2631, 0.49), "column");
  assert.equal(said, "To depth 6, both choose column 4, value \u22120.003. " +
    "Alpha-beta visited 2,631 nodes in 0.49 ms; minimax 127,053 in 17 ms: 48.3× the nodes, 35.1× the time.");
});

test("the value is said in words for the side to move, the estimate's number beside", () => {
  const said = compareSentence(row("minimax", 127053, 17.2), row("alphabeta", 2631, 0.49), "column", { game: "connect4", ply: 3 });
  assert.match(said, /^To depth 6, both choose column 4, about even \(\u22120\.003\)\. /);
  const worse = { ...row("alphabeta", 2631, 0.49), score: -0.5 };
  const behind = compareSentence({ ...worse, algorithm: "minimax" }, worse, "column", { game: "connect4", ply: 3 });
  assert.match(behind, /both choose column 4, [a-z ]*worse for Yellow \(\u22120\.5\)\. /);
  const won = { ...row("alphabeta", 50, 0.5, "3"), score: 6, exact: true };
  const sure = compareSentence({ ...won, algorithm: "minimax", nodes: 900 }, won, "cell", { game: "tictactoe", ply: 4 });
  assert.match(sure, /both choose cell 3, win in 1 for X\. /);
});

test("a smaller search that took longer is never called faster", () => {
  const said = compareSentence(row("minimax", 3265, 1.0), row("alphabeta", 846, 3.0, "4"), "column");
  assert.match(said, /3\.9× the nodes, yet alpha-beta took longer: each of its nodes costs more/);
  assert.doesNotMatch(said, /× the time/);
  // Fewer nodes for minimax (alpha-beta deepens pass by pass): said so, never "0.9× the nodes".
  const small = compareSentence(row("minimax", 47, 0.23), row("alphabeta", 54, 0.51), "cell");
  assert.match(small, /minimax 47 in 0\.23 ms: alpha-beta visited more nodes here: it searches depth by depth/);
  assert.doesNotMatch(small, /× the nodes|took longer/);
  const tie = compareSentence(row("minimax", 100, 1, "3"), row("alphabeta", 50, 0.5, "7"), "cell");
  assert.match(tie, /they choose cell 3 and cell 7, equally good/);
});

test("the table's cells: nodes, best time of its runs, time per node, move", () => {
  const [cells] = compareCells([row("alphabeta", 2631, 0.49)], { alphabeta: "Alpha-beta" });
  assert.deepEqual(cells, ["Alpha-beta", "2,631", "0.49 ms", "0.19 µs", "4 (\u22120.003)"]);
  // With the position: the sentence's words, not the tree explorer's "+2" (a new user's try).
  const won = { ...row("minimax", 900, 0.2, "3"), score: 2, exact: true };
  const [worded] = compareCells([won], { minimax: "Minimax" }, { game: "tictactoe", ply: 4 });
  assert.equal(worded[4], "3 (win in 2 for X)");
  assert.match(compareSentence(won, won, "cell", { game: "tictactoe", ply: 4 }), /both choose cell 3, win in 2 for X\./);
});
