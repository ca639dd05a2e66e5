// review-classes.js: the review summary's counts and words.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CLASSES, change, resultText, sideLabel, summarise } from "../../static/js/review-classes.js";

/** A review entry. */
const entry = (ply, player, cls, extra = {}) => ({
  ply, move: String(ply), player, class: cls, value_before: 1, value_after: 1, best_moves: [], ...extra,
});

test("the summary counts per side and class, preset moves apart", () => {
  const entries = [
    entry(1, 0, null, { preset: true }),
    entry(2, 1, "best"),
    entry(3, 0, "blunder", { value_before: 1, value_after: -1 }),
    entry(4, 1, "inaccuracy"),
    entry(5, 0, null),
    entry(6, 1, "mistake", { value_before: 0, value_after: -1 }),
  ];
  const { counts, turns, preset } = summarise(entries);
  assert.equal(preset, 1);
  assert.deepEqual(counts[0], { best: 0, inaccuracy: 0, mistake: 0, blunder: 1, unknown: 1 });
  assert.deepEqual(counts[1], { best: 1, inaccuracy: 1, mistake: 1, blunder: 0, unknown: 0 });
  assert.deepEqual(turns.map((e) => e.ply), [3, 6]); // where the result changed
});

test("a change reads from the mover's side", () => {
  assert.equal(change(entry(3, 0, "blunder", { value_before: 2, value_after: -1 })), "a win became a loss");
  assert.equal(change(entry(3, 0, "mistake", { value_before: 0, value_after: -3 })), "a draw became a loss");
  assert.equal(change(entry(3, 0, "mistake", { value_before: 1, value_after: 0 })), "a win became a draw");
});

test("the classes run best first, each with a symbol and a word", () => {
  assert.deepEqual(Object.keys(CLASSES), ["best", "inaccuracy", "mistake", "blunder"]);
  assert.deepEqual(Object.values(CLASSES).map((c) => c.symbol), ["!", "?!", "?", "??"]);
});

test("a game between two people's review names you and your friend, never an engine", () => {
  const players = ["X", "O"];
  const friend = { opponent: "friend", human_side: 0, engine_side: 1 };
  const host = [0, 1].map((side) => sideLabel({ ...friend, seat: "player" }, players, side));
  assert.deepEqual(host, ["X (you)", "O (your friend)"]);
  const guest = [0, 1].map((side) => sideLabel({ ...friend, seat: "player", human_side: 1, engine_side: 0 }, players, side));
  assert.deepEqual(guest, ["X (your friend)", "O (you)"]);
  const watcher = [0, 1].map((side) => sideLabel({ ...friend, seat: "spectator" }, players, side));
  assert.deepEqual(watcher, ["X", "O"]);
  // against the engine, as before
  const engine = { opponent: "engine", human_side: 0, engine_side: 1 };
  assert.deepEqual([0, 1].map((side) => sideLabel({ ...engine, seat: "player" }, players, side)), ["X (you)", "O (engine)"]);
  assert.deepEqual([0, 1].map((side) => sideLabel({ ...engine, seat: "spectator" }, players, side)), ["X (player)", "O (engine)"]);
});

test("the result line says how a game between two people ended off the board", () => {
  const players = ["X", "O"];
  const friend = (status, winner, end, moves = "1529") =>
    ({ status, winner, moves, opponent: "friend", seat: "player", human_side: 0, engine_side: 1, friend: { end } });
  assert.equal(resultText(friend("won", 0, "resign"), players), "X (you) won. O (your friend) resigned.");
  assert.equal(resultText(friend("won", 1, "flag"), players), "O (your friend) won. X (you) ran out of time.");
  assert.equal(resultText(friend("won", 0, null), players), "X (you) won.");
  assert.equal(resultText(friend("drawn", null, "agreement"), players), "Draw by agreement.");
  assert.equal(resultText(friend("aborted", null, "aborted", ""), players), "Game aborted after 0 moves.");
  const engine = { status: "won", winner: 1, moves: "15293", seat: "player", human_side: 0, engine_side: 1 };
  assert.equal(resultText(engine, players), "O (engine) won.");
  assert.equal(resultText({ ...engine, status: "playing", winner: null, moves: "1" }, players), "In progress, after 1 move.");
});
