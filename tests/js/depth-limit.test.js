// depth-limit.js: a custom depth's bound per game, and which typed depths the server takes.
import "./page-config.js";
import assert from "node:assert/strict";
import { test } from "node:test";
import { readConfig } from "../../static/js/config.js";
import { depthBound, depthRangeText, parseDepth } from "../../static/js/depth-limit.js";

const limits = readConfig().limits; // the server's (tests/test_js_config.py)

test("each game has its own depth bound: tic-tac-toe 9, Connect Four 42", () => {
  assert.equal(depthBound(limits, "tictactoe"), 9);
  assert.equal(depthBound(limits, "connect4"), 42);
  assert.equal(depthRangeText(depthBound(limits, "tictactoe")), "A whole number from 1 to 9.");
});

test("without a known game the bound is the server-wide one", () => {
  assert.equal(depthBound(limits, undefined), limits.max_depth);
  assert.equal(depthBound(limits, "chess"), limits.max_depth);
  assert.equal(depthBound({ max_depth: 42 }, "tictactoe"), 42); // an older page's config
});

test("a typed depth counts only if the server takes it", () => {
  assert.equal(parseDepth("0", 42), null);
  assert.equal(parseDepth("30", 9), null);
  assert.equal(parseDepth("43", 42), null);
  assert.equal(parseDepth("2.5", 42), null);
  assert.equal(parseDepth("-1", 42), null);
  assert.equal(parseDepth("", 42), null);
  assert.equal(parseDepth("1e1", 42), null);
  assert.equal(parseDepth("9", 9), 9);
  assert.equal(parseDepth(" 30 ", 42), 30);
  assert.equal(parseDepth("1", 9), 1);
});
