// recent-games.js describeGame: two games of one kind started in a row differ on their
// cards (the level, your side), a game between two people says so.
import "./page-config.js";
import assert from "node:assert/strict";
import { test } from "node:test";
import { describeGame } from "../../static/js/recent-games.js";

const labels = { connect4: "Connect Four", tictactoe: "Tic-tac-toe" };
const levels = { easy: { label: "Easy" }, perfect: { label: "Perfect" } };
const now = Date.parse("2026-11-26T12:00:00Z");
/** The card's lines with plain spaces (a no-break space keeps each dot with its word). */
const plain = ({ title, detail }) => ({ title, detail: detail.replaceAll("\u00a0", " ") });
const card = (game) => plain( describeGame({ move_count: 1, status: "playing", winner: null, updated_at: "2026-11-26T12:00:00Z", ...game }, labels, levels, now));

test("against the engine: its level, then your side, the game's state, moves and age", () => {
  assert.deepEqual(card({ game: "connect4", level: "easy", human_side: 0 }), {
    title: "Connect Four · Easy",
    detail: "you play Red · in progress · 1 move · just now",
  });
  const second = card({ game: "connect4", level: "perfect", human_side: 1, move_count: 2 });
  assert.equal(second.title, "Connect Four · Perfect");
  assert.equal(second.detail, "you play Yellow · in progress · 2 moves · just now");
});

test("between two people: with a friend; a finished game says who won", () => {
  const won = card({ game: "tictactoe", level: null, human_side: 1, status: "won", winner: 1 });
  assert.equal(won.title, "Tic-tac-toe · with a friend");
  assert.equal(won.detail, "you play O · you won · 1 move · just now");
});

test("a wrapped line starts with words: the space before each dot does not break", () => {
  const { detail } = describeGame({ game: "connect4", level: "easy", human_side: 0, move_count: 1, status: "playing", updated_at: "2026-11-26T12:00:00Z" }, labels, levels, now);
  assert.equal(detail, "you play Red\u00a0· in progress\u00a0· 1 move\u00a0· just now");
});

test("an unknown level or game reads as its name, not undefined", () => {
  const odd = card({ game: "chess", level: "custom", human_side: 0 });
  assert.equal(odd.title, "chess · custom");
  assert.equal(odd.detail, "in progress · 1 move · just now");
});
