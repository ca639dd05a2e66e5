// analysis.js compareSummary: the sentence under "Analyse with …" says "capped" only of a
// depth that stopped short of the truth (a new user read "minimax capped at depth 6" of a
// minimax that had searched the whole game: 6 empty cells).
import "./page-config.js";
import assert from "node:assert/strict";
import { test } from "node:test";
import { compareSummary } from "../../static/js/analysis.js";

const row = (algorithm, depth, exact, nodes) => ({ algorithm, depth, exact, nodes });

test("both exact at different depths: minimax to the end, alpha-beta proved it sooner", () => {
  const text = compareSummary([row("minimax", 6, true, 3900), row("alphabeta", 4, true, 1000)]);
  assert.match(text, /^Minimax searched 3\.9× the nodes of alpha-beta \(/);
  assert.match(text, /minimax to the end of the game, depth 6, alpha-beta proved it by depth 4/);
  assert.doesNotMatch(text, /capped/);
});

test("a minimax stopped short of the truth is capped", () => {
  const text = compareSummary([row("minimax", 5, false, 40000), row("alphabeta", 9, true, 2000)]);
  assert.match(text, /minimax capped at depth 5, alpha-beta proved it by depth 9/);
});

test("the same depth is said once; one side missing says nothing", () => {
  assert.match(compareSummary([row("minimax", 4, false, 900), row("alphabeta", 4, false, 300)]), /\(both at depth 4\)/);
  assert.equal(compareSummary([row("minimax", 4, false, 900)]), "");
});
