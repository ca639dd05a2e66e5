// analysis.js thinkingText: the engine panel's thinking line.
import "./page-config.js";
import assert from "node:assert/strict";
import { test } from "node:test";
import { thinkingText } from "../../static/js/analysis.js";

test("a search waiting for a free engine says so, though the game says its engine thinks", () => {
  // The game's state says the engine is thinking from the player's move on (QA: the line
  // read "Engine is thinking…" through a 9 s wait for a worker).
  assert.equal(thinkingText({ active: true, queued: 1, depth: null, who: "Engine" }), "Waiting for a free engine: next in line");
  assert.equal(thinkingText({ active: true, queued: 3, depth: null, who: "Engine" }), "Waiting for a free engine: number 3 in line");
  assert.equal(thinkingText({ active: true, queued: null, depth: 7, who: "Engine" }), "Engine is thinking… searching depth 7");
  assert.equal(thinkingText({ active: true, queued: null, depth: null, who: "Engine" }), "Engine is thinking…");
});

test("a pulse tells the depth under way, or the solve, and its nodes so far", () => {
  const pulse = { moves: "", depth: 9, nodes: 250000, elapsed_ms: 1500 };
  const thinking = { active: true, queued: null, depth: null, who: "Engine" };
  assert.equal(thinkingText({ ...thinking, pulse }), "Engine is thinking… depth 9: 250,000 nodes");
  assert.equal(thinkingText({ ...thinking, pulse: { ...pulse, depth: null } }), "Engine is thinking… solving: 250,000 nodes");
  assert.equal(thinkingText({ ...thinking, queued: 2, pulse }), "Waiting for a free engine: number 2 in line");
});
