// analysis.js playedVerdict: the headline of the engine's move agrees with the board's
// exact options once they have solved it, and keeps the engine's own estimate labelled.
import "./page-config.js";
import assert from "node:assert/strict";
import { test } from "node:test";
import { ownSearchNote, playedAsGood, playedVerdict } from "../../static/js/analysis.js";
import { describeScore } from "../../static/js/format.js";
import { gameInfo } from "../../static/js/rules.js";

const info = gameInfo("connect4");
const ply = 1; // Yellow to move after Red's first stone
const exact = (score) => ({ score, exact: true });

/** Medium's move 6, by its own depth-4 search "slightly worse"; the board's options given. */
function medium(options, extra = {}) {
  return { best_move: "6", score: -0.02, exact: false, depth: 4, move_scores: options, extra };
}

test("a move the board has solved wears the exact score; the estimate follows the label", () => {
  const result = medium({ 4: exact(-4), 6: exact(-1) });
  const verdict = playedVerdict(result, { played: true, note: null, info, ply });
  assert.equal(verdict.score.text, describeScore(-1, true, info, ply).text);
  assert.match(verdict.score.text, /^loss in \d+$/);
  assert.equal(verdict.own.text, describeScore(-0.02, false, info, ply).text);
  assert.equal(verdict.ownWords, `: ${verdict.own.text}`);
  assert.equal(verdict.onPurpose, false);
  assert.equal(verdict.boardNote, "");
});

test("unsolved, an analysis, or an exact search of its own: the search's own score", () => {
  const cases = [
    [medium({ 6: { score: 0.5, exact: false, depth: 12 } }), true], // the board estimates it too
    [medium(null), true], // no options yet
    [medium({ 4: exact(-4) }), true], // the move played not among them
    [medium({ 6: exact(-1) }), false], // an analysis: nothing was played
    [{ ...medium({ 6: exact(-1) }), score: 3, exact: true }, true], // Perfect: exact itself
  ];
  for (const [result, played] of cases) {
    const verdict = playedVerdict(result, { played, note: null, info, ply });
    assert.equal(verdict.score, verdict.own);
    assert.equal(verdict.ownWords, "");
  }
});

test("a weaker move on purpose stays so unless the board finds it no worse", () => {
  const note = { kind: "weaker", strongest: { move: "4", score: 0.1, exact: false } };
  const worse = playedVerdict(medium({ 4: exact(2), 6: exact(-1) }), { played: true, note, info, ply });
  assert.equal(worse.onPurpose, true);
  assert.equal(worse.boardNote, "");
  const better = playedVerdict(medium({ 4: exact(-2), 6: exact(3) }), { played: true, note, info, ply });
  assert.equal(better.onPurpose, false);
  const win = describeScore(3, true, info, ply).text;
  const loss = describeScore(-2, true, info, ply).text;
  assert.equal(better.boardNote, ` The board’s analysis, which has solved both, finds it no worse: ${win} against ${loss}.`);
  // The preferred move not solved: the search's word stands.
  const open = playedVerdict(medium({ 4: { score: 0.1, exact: false }, 6: exact(3) }), { played: true, note, info, ply });
  assert.equal(open.onPurpose, true);
  // Near-equal picks are never "on purpose".
  const near = { ...note, kind: "near_equal" };
  assert.equal(playedVerdict(medium({ 4: exact(-2), 6: exact(3) }), { played: true, note: near, info, ply }).onPurpose, false);
});

test("the search's note says so when its line was proved after the move, by a search of its own", () => {
  const perfect = { best_move: "5", score: 0.9, exact: true, depth: 33, pv: "5", nodes: 9621, extra: {} };
  const before = ownSearchNote(perfect, "Perfect");
  assert.match(before, /: the move, its score and its line above\./);
  const after = ownSearchNote({ ...perfect, pv: "5544", line_after: true }, "Perfect");
  assert.match(after, /: the move and its score\. Its line above was proved after the move, by a search of its own that these figures leave out\./);
  assert.match(ownSearchNote(perfect, "Perfect", true), /: the move, its line and these figures\./);
});

test("the depth table labels a move played that its last line does not start with, when as good", () => {
  // Easy after 6367 (a real search): the deepest line starts with 4, the level played 6,
  // both scored 0.0 (a tie between best moves, broken at random: no style note).
  const rows = [
    { depth: 1, score: 0.0, exact: false, pv: "4" },
    { depth: 2, score: 0.0, exact: false, pv: "44" },
  ];
  const result = { best_move: "6", score: 0.0, exact: false, depth: 2, pv: "66" };
  assert.equal(playedAsGood(rows, result), "played, as good");
  assert.equal(playedAsGood(rows, result, false), "chosen, as good"); // an analysis
  // The line starts with the move played, or nothing was played from these depths.
  assert.equal(playedAsGood(rows, { ...result, best_move: "4", pv: "44" }), null);
  assert.equal(playedAsGood(rows, { ...result, depth: 3 }), null); // stopped short of it
  assert.equal(playedAsGood([], result), null);
  assert.equal(playedAsGood(rows, null), null);
  // A different score is no tie: that is the style note's to say, never "as good".
  assert.equal(playedAsGood(rows, { ...result, score: -0.2 }), null);
});
