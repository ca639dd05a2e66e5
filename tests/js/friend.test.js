// A game between two people on the page: the clock's words (friend-panel.js) and
// the headline game-model.js writes for players and spectators.
import "./page-config.js";
import assert from "node:assert/strict";
import { test } from "node:test";
import { analysisTitle, clockText, followsRematch, inviteText } from "../../static/js/friend-panel.js";
import { createModel, sideName, takenBackText, turnText } from "../../static/js/game-model.js";
import { gameInfo } from "../../static/js/rules.js";

/** @returns {import("../../static/js/types.js").State} */
function state(extra = {}, friend = {}) {
  return {
    id: "g1", version: 1, game: "connect4", moves: "", status: "playing", winner: null, to_move: 0,
    settings: { level: "medium", algorithm: "alphabeta", depth: null, time: null }, human_side: 0, engine_side: 1,
    engine_thinking: false, last_engine_move: null, scores: null, move_count: 0, url: "/g/g1", seat: "player",
    opponent: "friend",
    friend: {
      your_side: 0, creator_side: 0, seated: true, clock: null, offers: { draw: null, takeback: null, rematch: null },
      end: null, next: null, next_url: null, spectator_analysis: false, gone_ms: [null, null], abandon_ms: 60000,
      ...friend,
    },
    ...extra,
  };
}

test("a clock reads minutes and seconds, and tenths in its last ten seconds", () => {
  assert.equal(clockText(300000), "5:00");
  assert.equal(clockText(65432), "1:05");
  assert.equal(clockText(9876), "0:09.8");
  assert.equal(clockText(-50), "0:00.0");
});

test("players read you and your friend; spectators the colours", () => {
  const info = gameInfo("connect4");
  const player = createModel(state());
  assert.equal(sideName(player, info, 0), "You");
  assert.equal(sideName(player, info, 1), "Your friend");
  assert.equal(turnText(player, info), "Your move (Red)");
  const watcher = createModel(state({ seat: "spectator" }, { your_side: null }));
  assert.equal(sideName(watcher, info, 1), "Yellow");
  assert.equal(turnText(watcher, info), "Red to move");
});

test("the headline says how a game between two people ended", () => {
  const info = gameInfo("connect4");
  const flagged = createModel(state({ status: "won", winner: 1 }, { end: "flag" }));
  assert.equal(turnText(flagged, info), "Your friend won on time");
  const resigned = createModel(state({ status: "won", winner: 0, seat: "spectator" }, { end: "resign", your_side: null }));
  assert.equal(turnText(resigned, info), "Red won by resignation");
  assert.equal(turnText(createModel(state({ status: "drawn" }, { end: "agreement" })), info), "Draw by agreement");
  assert.equal(turnText(createModel(state({ status: "aborted" }, { end: "aborted" })), info), "Game aborted");
  assert.equal(turnText(createModel(state({}, { seated: false })), info), "Waiting for your friend to take the seat");
});

test("the analysis panel of a game between two people is the spectators' while played, then the engine's (the review has its own)", () => {
  assert.equal(analysisTitle(state()), "Engine analysis for spectators");
  assert.equal(analysisTitle(state({ status: "won", winner: 0 })), "Engine analysis");
  assert.equal(analysisTitle(state({ status: "drawn" })), "Engine analysis");
});

test("the invitee reads which side they would play and who moves first", () => {
  const { players } = gameInfo("tictactoe");
  assert.equal(inviteText(state({}, { creator_side: 0 }), players), "You are invited to play O. X moves first: your friend starts.");
  assert.equal(inviteText(state({}, { creator_side: 1 }), players), "You are invited to play X. X moves first: you start.");
});

test("one move taken back reads singular", () => {
  assert.equal(takenBackText(1), "Move taken back.");
  assert.equal(takenBackText(2), "Moves taken back.");
});

test("a player's page goes on to the rematch made while it is open, never to one it loads or joins with", () => {
  const over = state({ status: "won", winner: 0 });
  const rematched = state({ status: "won", winner: 0 }, { next: "g2", next_url: "/g/g2" });
  assert.equal(followsRematch(over, rematched, true), true); // accepted while open: play on
  assert.equal(followsRematch(over, rematched, false), false); // joined with it (Back, a reload): review it
  assert.equal(followsRematch(rematched, { ...rematched }, true), false); // a later state: once
  const watched = state({ status: "won", winner: 0, seat: "spectator" }, { your_side: null, next: "g2", next_url: "/g/g2" });
  assert.equal(followsRematch(state({ status: "won", winner: 0, seat: "spectator" }, { your_side: null }), watched, true), false);
});
