// game-model.js: the game page's state apart from drawing, fed with the
// protocol's payloads (state, scores, engine_move, thinking rows).
import "./page-config.js";
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  addDepthRow, addResult, analysesOf, canUndo, continueUrl, createModel, currentPulse, engineSearchFrom, liveMoves, myTurn, noteEngineMove,
  noteReviewValues, noteScores, positionValue, provisional, resultFor, scoresFor, shownMoves, solvingAt, stillPending, turnText,
} from "../../static/js/game-model.js";
import { gameInfo } from "../../static/js/rules.js";

/** @returns {import("../../static/js/types.js").State} */
function state(extra = {}) {
  return {
    id: "g1", version: 1, game: "tictactoe", moves: "", status: "playing", winner: null, to_move: 0,
    settings: { level: "custom", algorithm: "alphabeta", depth: 4, time: null }, human_side: 0, engine_side: 1,
    engine_thinking: false, last_engine_move: null, scores: null, move_count: 0, url: "/g/g1", seat: "player",
    ...extra,
  };
}

/** An engine_move payload. */
function engineMove(extra = {}) {
  return { best_move: "5", score: 0, exact: true, pv: "5", nodes: 100, depth: 8, time_ms: 3, algorithm: "alphabeta", ...extra };
}

test("a player moves on their turn, not while a move is on its way or the engine thinks", () => {
  const model = createModel(state());
  assert.equal(myTurn(model), true);
  model.pending = "5";
  assert.equal(myTurn(model), false);
  assert.equal(liveMoves(model), "5");
  assert.equal(myTurn(createModel(state({ engine_thinking: true }))), false);
  assert.equal(myTurn(createModel(state({ seat: "spectator" }))), false);
  assert.equal(myTurn(createModel(state({ status: "won", winner: 0 }))), false);
});

test("reviewing shows an earlier position, the live one otherwise", () => {
  const model = createModel(state({ moves: "1529" }));
  assert.equal(shownMoves(model), "1529");
  model.reviewPly = 2;
  assert.equal(shownMoves(model), "15");
});

test("the engine's searched position is the payload's, else found from the state", () => {
  assert.equal(engineSearchFrom(state({ moves: "15" }), engineMove({ moves: "1" })), "1");
  // The engine (side 1) played "5" after "1": it searched "1".
  assert.equal(engineSearchFrom(state({ moves: "15" }), engineMove({ best_move: "5" })), "1");
  // Still thinking on its turn: the live position.
  assert.equal(engineSearchFrom(state({ moves: "1", to_move: 1, engine_thinking: true }), engineMove()), "1");
  assert.equal(engineSearchFrom(state({ moves: "19" }), engineMove({ best_move: "5" })), null);
});

test("an engine move is recorded once; a later one with more exact scores improves it", () => {
  const model = createModel(state({ moves: "15" }));
  noteEngineMove(model, engineMove({ move_scores: { 5: { score: 0, exact: false } } }));
  noteEngineMove(model, engineMove({ move_scores: { 5: { score: 0, exact: true } } }));
  assert.equal(model.results.length, 1);
  assert.equal(model.results[0].from, "1");
  assert.equal(model.results[0].result.move_scores["5"].exact, true);
  assert.equal(resultFor(model, "1")?.kind, "engine");
  assert.equal(resultFor(model, "15")?.kind, "engine"); // the search that led to it
  assert.equal(resultFor(model, "159"), null);
});

test("an exactly solved move's line comes after it and fills it in; a shorter one never replaces it", () => {
  const model = createModel(state({ moves: "15" }));
  noteEngineMove(model, engineMove({ pv: "5" })); // the move, alone
  noteEngineMove(model, engineMove({ pv: "5937", line_after: true })); // its line, with the state after it
  assert.equal(model.results.length, 1);
  assert.equal(model.results[0].result.pv, "5937");
  assert.equal(model.results[0].result.line_after, true);
  noteEngineMove(model, engineMove({ pv: "5" })); // a late engine_move event
  assert.equal(model.results[0].result.pv, "5937");
});

test("scores of a position keep the one knowing more exact moves", () => {
  const model = createModel(state());
  noteScores(model, { moves: "1", move_scores: { 5: { score: 0, exact: true }, 9: { score: 2, exact: true } }, solving: false });
  noteScores(model, { moves: "1", move_scores: { 5: { score: 0.1, exact: false, depth: 3 } }, solving: true });
  assert.deepEqual(Object.keys(scoresFor(model, "1") ?? {}), ["5", "9"]);
  assert.equal(solvingAt(model, "1"), false);
  noteScores(model, { moves: "2", move_scores: { 5: { score: 0.1, exact: false, depth: 3 } }, solving: true, complete: false });
  assert.equal(solvingAt(model, "2"), true);
  noteScores(model, { moves: "3" }); // no move_scores: ignored
  assert.equal(scoresFor(model, "3"), null);
});

test("a position's value: exact first wherever it comes from, then the board's estimate, then the review", () => {
  const model = createModel(state({ moves: "15" }));
  assert.equal(positionValue(model, "1"), null);
  noteReviewValues(model, [["1", { score: -0.3, exact: false, depth: 6 }]]);
  assert.deepEqual(positionValue(model, "1"), { score: -0.3, exact: false, depth: 6 });
  noteScores(model, { moves: "1", move_scores: { 5: { score: 0.2, exact: false, depth: 4 }, 9: { score: -0.1, exact: false, depth: 4 } } });
  assert.deepEqual(positionValue(model, "1"), { score: 0.2, exact: false, depth: 4, solving: false }); // seen beats a reviewed estimate
  noteReviewValues(model, [["1", { score: 0, exact: true, depth: null }]]);
  assert.deepEqual(positionValue(model, "1"), { score: 0, exact: true, depth: null }); // an exact review beats an estimate
  noteEngineMove(model, engineMove({ score: 1, exact: true }));
  assert.deepEqual(positionValue(model, "1"), { score: 1, exact: true, depth: 8 }); // the engine's exact search wins
});

test("a position left before its scores were exact takes the exact score of the move that reached it", () => {
  const model = createModel(state({ moves: "15", to_move: 0 }));
  // The player's options at "1" were cut short; the engine's exact options before its move
  // "5" say what "15" is worth: the score of 5 for the engine, negated for the side to move.
  noteScores(model, { moves: "15", move_scores: { 9: { score: 0.1, exact: false, depth: 8 } }, solving: true, complete: false });
  assert.equal(positionValue(model, "15")?.exact, false);
  noteEngineMove(model, engineMove({ score: 2, exact: true, move_scores: { 5: { score: 2, exact: true }, 9: { score: -1, exact: true } } }));
  assert.deepEqual(positionValue(model, "15"), { score: -2, exact: true, depth: null });
  // The engine's exact search of "1" played 5: "15" is worth its score negated, options or not.
  const bare = createModel(state({ moves: "15", to_move: 0 }));
  noteEngineMove(bare, engineMove({ score: 3, exact: true }));
  assert.deepEqual(positionValue(bare, "15"), { score: -3, exact: true, depth: null });
  assert.equal(positionValue(bare, "19"), null); // a move it did not play
  // An estimate of the move that reached a position says nothing exact about it.
  noteScores(model, { moves: "159", move_scores: { 3: { score: 0.4, exact: false, depth: 5 } } });
  assert.deepEqual(positionValue(model, "1593"), null);
  noteScores(model, { moves: "15", move_scores: { 9: { score: 0, exact: true }, 3: { score: -2, exact: true } }, complete: true });
  assert.deepEqual(positionValue(model, "159"), { score: 0, exact: true, depth: null }); // -0 reads as 0
});

test("depth rows of one search make one table, a new position starts another", () => {
  const model = createModel(state({ moves: "1", to_move: 1, engine_thinking: true }));
  addDepthRow(model, { depth: 2, score: 0.1, algorithm: "alphabeta" });
  addDepthRow(model, { depth: 1, score: 0.2, algorithm: "alphabeta" });
  addDepthRow(model, { depth: 2, score: 0.3, algorithm: "alphabeta" });
  assert.deepEqual(model.depthRows.map((r) => [r.depth, r.score]), [[1, 0.2], [2, 0.3]]);
  assert.equal(provisional(model)?.result.score, 0.3);
  addDepthRow(model, { depth: 1, score: 0, algorithm: "alphabeta", moves: "15" });
  assert.equal(model.depthRows.length, 1);
  assert.equal(model.searchFrom, "15");
});

test("a pulse is shown while its search is under way, until a depth completes after it", () => {
  const model = createModel(state({ moves: "1", to_move: 1, engine_thinking: true }));
  assert.equal(currentPulse(model), null);
  model.pulse = { moves: "1", depth: 3, nodes: 5000, elapsed_ms: 800 };
  assert.equal(currentPulse(model), model.pulse);
  addDepthRow(model, { depth: 2, score: 0, algorithm: "alphabeta", moves: "1", nodes: 4000, elapsed_ms: 500 });
  assert.equal(currentPulse(model), model.pulse); // a depth completed before it: still news
  addDepthRow(model, { depth: 3, score: 0, algorithm: "alphabeta", moves: "1", nodes: 6000, elapsed_ms: 900 });
  assert.equal(currentPulse(model), null); // depth 3 is done: the pulse is old news
  model.pulse = { moves: "1", depth: 4, nodes: 9000, elapsed_ms: 1300 };
  assert.equal(currentPulse(model)?.depth, 4);
  model.state = { ...model.state, engine_thinking: false };
  assert.equal(currentPulse(model), null); // the search is over
  model.state = { ...model.state, moves: "12", engine_thinking: true };
  assert.equal(currentPulse(model), null); // another position's search
});

test("undo needs a connection, the player's own move, and no search under way", () => {
  const model = createModel(state({ moves: "15" }));
  assert.equal(canUndo(model), false); // not connected
  model.connected = true;
  assert.equal(canUndo(model), true);
  assert.equal(canUndo({ ...model, state: state({ moves: "" }) }), false);
});

test("the headline speaks to the player or names the sides for a spectator", () => {
  const info = gameInfo("tictactoe");
  assert.equal(turnText(createModel(state()), info), "Your move (X)");
  assert.equal(turnText(createModel(state({ status: "won", winner: 0 })), info), "You won. Well played!");
  assert.equal(turnText(createModel(state({ status: "won", winner: 1, seat: "spectator" })), info), "O (engine) won");
  assert.equal(turnText(createModel(state({ status: "drawn" })), info), "Draw");
  assert.equal(turnText(createModel(state({ to_move: 1, seat: "spectator" })), info), "O (engine) is thinking…");
  // Waiting for a free engine, as the panel says: not "thinking" above it (a new user's try).
  const queued = createModel(state({ to_move: 1, engine_thinking: true }));
  queued.queued = 1;
  assert.equal(turnText(queued, info), "Engine is waiting its turn…");
  queued.seat = "spectator";
  assert.equal(turnText(queued, info), "O (engine) is waiting its turn…");
});

test("a new game from here keeps the level and lets the viewer move", () => {
  const url = new URL(continueUrl(createModel(state()), "15"), "http://x");
  assert.equal(url.pathname, "/new");
  assert.equal(url.searchParams.get("moves"), "15");
  assert.equal(url.searchParams.get("engine_plays"), "second");
  assert.equal(url.searchParams.get("depth"), "4");
  assert.equal(url.searchParams.get("time"), null);
  // A depth kept from before the game's own bound asks for the bound, never a refused depth.
  const deep = createModel(state({ settings: { ...state().settings, depth: 30 } }));
  assert.equal(new URL(continueUrl(deep, "15", 9), "http://x").searchParams.get("depth"), "9");
  assert.equal(new URL(continueUrl(deep, "15"), "http://x").searchParams.get("depth"), "30");
});

test("a move on its way stays drawn through a state of the same position, and goes with any other", () => {
  const model = createModel(state({ moves: "5", to_move: 0, version: 3 }));
  model.pending = "1";
  // The engine's options saved with its move: the same position, still the player's turn.
  assert.equal(stillPending(model, state({ moves: "5", to_move: 0, version: 4 })), true);
  assert.equal(stillPending(model, state({ moves: "51", to_move: 1, version: 5 })), false); // it was played
  assert.equal(stillPending(model, state({ moves: "", to_move: 0, version: 5 })), false); // taken back
  assert.equal(stillPending(model, state({ moves: "5", status: "abandoned", version: 5 })), false);
  model.pending = null;
  assert.equal(stillPending(model, state({ moves: "5", to_move: 0, version: 4 })), false);
});

test("the comparison's rows are the analyses asked of a position, never the engine's own search", () => {
  const model = createModel(state());
  addResult(model, "15", { algorithm: "alphabeta", best_move: "9", nodes: 10, time_ms: 1 }, "engine", "easy");
  assert.deepEqual(analysesOf(model, "15"), []); // its move's search, at its level then
  addResult(model, "15", { algorithm: "minimax", best_move: "9", nodes: 900, time_ms: 3 }, "analysis");
  addResult(model, "15", { algorithm: "alphabeta", best_move: "9", nodes: 40, time_ms: 2 }, "analysis");
  addResult(model, "1", { algorithm: "minimax", best_move: "5", nodes: 7000, time_ms: 9 }, "analysis");
  assert.deepEqual(analysesOf(model, "15").map((r) => [r.algorithm, r.nodes]), [["minimax", 900], ["alphabeta", 40]]);
});
