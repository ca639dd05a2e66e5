// format.js and score-words.js: scores, counts, rates and times in words.
import "./page-config.js";
import assert from "node:assert/strict";
import { test } from "node:test";
import { count, describeScore, duration, moveName, moveNumber, rate, ratio, signed } from "../../static/js/format.js";
import { gameInfo } from "../../static/js/rules.js";
import { estimateStep, estimateWords, leaderWords } from "../../static/js/score-words.js";

const c4 = gameInfo("connect4");
const ttt = gameInfo("tictactoe");

test("an exact win or loss counts the winner's moves still to play", () => {
  // Connect Four: a win with the winner's k-th stone scores 22 - k.
  assert.equal(describeScore(18, true, c4, 6).text, "win in 1"); // the mover's 4th stone, 3 played
  assert.equal(describeScore(16, true, c4, 6).text, "win in 3");
  assert.equal(describeScore(-17, true, c4, 8).text, "loss in 1"); // the other side's 5th, 4 played
  assert.equal(describeScore(1, true, c4, 0).text, "win in 21");
  assert.deepEqual(describeScore(3, true, ttt, 4), { kind: "win", text: "win in 1", moves: 1 });
  assert.deepEqual(describeScore(-2, true, ttt, 1), { kind: "loss", text: "loss in 3", moves: 3 });
});

test("an exact zero is a draw; without a ply a result has no count", () => {
  assert.equal(describeScore(0, true, c4, 10).kind, "draw");
  assert.equal(describeScore(0, true, ttt, 0).text, "draw");
  assert.deepEqual(describeScore(5, true, ttt, null), { kind: "win", text: "win", moves: null });
  assert.equal(describeScore(null, true, ttt, 3).kind, "unknown");
});

test("an estimate reads in words, with its depth and signed number", () => {
  const said = describeScore(0.123, false, c4, 3, 8);
  assert.equal(said.kind, "heuristic");
  assert.equal(said.text, "much better · depth 8");
  assert.equal(said.number, "+0.12");
  assert.equal(describeScore(-0.05, false, c4, 3).text, "worse");
  assert.equal(describeScore(0.001, false, c4, 3).text, "about even");
  assert.equal(describeScore(-0.06, false, ttt, 3).text, "slightly worse");
});

test("estimate steps start where the server's steps say, signed", () => {
  assert.equal(estimateStep(0.049, ttt), 0);
  assert.equal(estimateStep(0.05, ttt), 1);
  assert.equal(estimateStep(0.15, ttt), 2);
  assert.equal(estimateStep(-0.5, ttt), -3);
  assert.equal(estimateWords(0.2, ttt), "better");
  assert.equal(estimateWords(-0.9, ttt), "much worse");
});

test("leaderWords names the side ahead, from either side's view", () => {
  assert.equal(leaderWords(0.05, 0, c4), "Red is better");
  assert.equal(leaderWords(0.05, 1, c4), "Yellow is better");
  assert.equal(leaderWords(-0.2, 0, c4), "Yellow is much better");
  assert.equal(leaderWords(0, 1, c4), "About even");
});

test("signed keeps two decimals and a true minus sign", () => {
  assert.equal(signed(0.123), "+0.12");
  assert.equal(signed(-0.05), "\u22120.05");
  assert.equal(signed(0.004), "0.00");
  assert.equal(signed(-0.004), "0.00");
});

test("rates switch unit on the rounded figure, never '1000 k/s'", () => {
  assert.equal(rate(845_000, 1000), "845 k/s");
  assert.equal(rate(999_700, 1000), "1.0 M/s");
  assert.equal(rate(14_730_000, 1000), "14.7 M/s");
  assert.equal(rate(999, 1000), "999 /s");
  assert.equal(rate(999_600, 1_000_000), "1 k/s");
  assert.equal(rate(10, 0), "\u2013");
});

test("counts, durations, ratios and move names", () => {
  assert.equal(count(1234567), "1,234,567");
  assert.equal(count(Infinity), "\u2013");
  assert.equal(duration(840.4), "840 ms");
  assert.equal(duration(2414), "2.41 s");
  assert.equal(duration(0.4129), "0.41 ms"); // a search's small digits: its speed reads from them
  assert.equal(duration(12.4), "12 ms");
  assert.equal(duration(Number.NaN), "\u2013");
  assert.equal(ratio(124, 10), "12.4\u00d7");
  assert.equal(ratio(5000, 10), "500\u00d7");
  assert.equal(ratio(0, 10), null);
  assert.equal(moveName(15, ["Red", "Yellow"]), "move 8, Red");
  assert.equal(moveName(2, ["X", "O"]), "move 1, O");
});

test("a move number counts pairs of plies, as the move list and the review number them", () => {
  assert.deepEqual([1, 2, 3, 4, 5].map(moveNumber), [1, 1, 2, 2, 3]);
});

test("the evaluation bar's words count the winner's moves, and name a win with the next one", async () => {
  const { evalWords } = await import("../../static/js/eval-bar.js");
  // Connect Four, 6 stones played, Red to move: 18 is a win with Red's 4th stone, the next.
  assert.equal(evalWords({ score: 18, exact: true }, 6, c4, null), "Red wins with best play, with Red’s next move");
  assert.equal(evalWords({ score: 16, exact: true }, 6, c4, null), "Red wins with best play, in 3 of Red’s moves");
  // Red to move (8 played) and lost in 1: Yellow wins with its next stone.
  assert.equal(evalWords({ score: -17, exact: true }, 8, c4, null), "Yellow wins with best play, with Yellow’s next move");
  assert.equal(evalWords({ score: 0, exact: true }, 8, c4, null), "Draw with best play");
});
