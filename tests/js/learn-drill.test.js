// learn-drill.js: the moves a "learn from your mistakes" drill steps through, and the verdict on a try.
import assert from "node:assert/strict";
import { test } from "node:test";
import { drillEntries, judgeTry, resultWord } from "../../static/js/learn-drill.js";

/** @param {Partial<import("../../static/js/review-classes.js").ReviewEntry>} fields */
const entry = (fields) => /** @type {any} */ ({ ply: 1, move: "1", player: 0, class: "best", value_before: 0, value_after: 0, best_moves: [], ...fields });

test("a drill steps through one side's mistakes and blunders, in order, never a preset move", () => {
  const entries = [
    entry({ ply: 1, player: 0, class: "mistake", preset: true }),
    entry({ ply: 2, player: 1, class: "blunder" }),
    entry({ ply: 3, player: 0, class: "inaccuracy" }),
    entry({ ply: 4, player: 1, class: "best" }),
    entry({ ply: 5, player: 0, class: "blunder" }),
    entry({ ply: 6, player: 1, class: null }),
    entry({ ply: 7, player: 0, class: "mistake" }),
  ];
  assert.deepEqual(drillEntries(entries, 0).map((e) => e.ply), [5, 7]);
  assert.deepEqual(drillEntries(entries, 1).map((e) => e.ply), [2]);
  assert.deepEqual(drillEntries(entries, null).map((e) => e.ply), [2, 5, 7]);
});

test("a score's result is a win, a draw or a loss", () => {
  assert.equal(resultWord(3), "win");
  assert.equal(resultWord(0), "draw");
  assert.equal(resultWord(-0.5), "loss");
});

const drawn = {
  score: 0,
  exact: true,
  best_moves: ["5"],
  move_scores: { 5: { score: 0, exact: true }, 2: { score: -4, exact: true }, 3: { score: 0.2, exact: false } },
};

test("a try keeps the result when its exact value is of the position's kind", () => {
  assert.deepEqual(judgeTry(drawn, "5"), { keeps: true, best: true, result: "draw", after: "draw" });
  assert.deepEqual(judgeTry(drawn, "2"), { keeps: false, best: false, result: "draw", after: "loss" });
});

test("a win kept more slowly still keeps the result, though it is not the best move", () => {
  const won = { score: 7, exact: true, best_moves: ["4"], move_scores: { 4: { score: 7, exact: true }, 3: { score: 5, exact: true } } };
  assert.deepEqual(judgeTry(won, "3"), { keeps: true, best: false, result: "win", after: "win" });
});

test("a try not solved exactly is not judged, unless it is a best move", () => {
  assert.deepEqual(judgeTry(drawn, "3"), { keeps: null, best: false, result: "draw", after: null });
  assert.deepEqual(judgeTry({ ...drawn, exact: false }, "5"), { keeps: true, best: true, result: "draw", after: null });
});
