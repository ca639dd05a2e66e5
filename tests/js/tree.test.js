// tree-model.js and tree-layout.js: the search tree built from /api/tree's
// answer, its words, and a layout whose nodes never overlap.
import assert from "node:assert/strict";
import { test } from "node:test";
import { COLUMN, ROW, STUB_COLUMN, countShown, layoutTree } from "../../static/js/tree-layout.js";
import {
  bestLine, buildTree, countUpTo, cutReason, doneAt, isMax, lastComplete, movesTo, nextCut, paneProgress, passWords,
  pathTo, rootOf, searchEnd, shortValue, sideToMoveWords, valueText, valueWords, visitedLines, windowText,
} from "../../static/js/tree-model.js";

/**
 * A node of the answer, in visit order (id = the step it was reached).
 * @param {number} id @param {number | null} parent @param {number} depth @param {string | null} move
 * @param {object} [extra]
 */
const node = (id, parent, depth, move, extra = {}) => ({
  id, parent, depth, move, size: 1, value: 0, bound: null, cut: false, tt_hit: null, line: false,
  alpha: null, beta: null, pruned: [], kind: "inner", ...extra,
});

// Root (Max) with moves a, b; a has replies c, d; b was cut off after reply e.
//   0 root
//   ├─ 1 a ─┬─ 2 c
//   │       └─ 3 d
//   └─ 4 b ── 5 e   (cut: move f pruned)
const ANSWER = {
  nodes: [
    node(0, null, 0, null, { size: 6, value: 1, kind: "root", iteration: 2 }),
    node(1, 0, 1, "a", { size: 3, value: 1 }),
    node(2, 1, 2, "c", { value: 1, kind: "leaf" }),
    node(3, 1, 2, "d", { value: 2, kind: "leaf" }),
    node(4, 0, 1, "b", { size: 2, value: -1, cut: true, bound: "upper", alpha: 1, beta: null, pruned: ["f"] }),
    node(5, 4, 2, "e", { value: -1, kind: "leaf" }),
  ],
  truncated: false,
};

test("buildTree links children and counts each subtree", () => {
  const tree = buildTree(ANSWER);
  assert.deepEqual(tree.nodes[0].kids, [1, 4]);
  assert.deepEqual(tree.nodes[1].kids, [2, 3]);
  assert.equal(tree.nodes[0].total, 6);
  assert.equal(tree.nodes[4].total, 2);
  assert.deepEqual(tree.roots, [0]);
  assert.deepEqual(tree.cuts, [4]);
  assert.deepEqual(tree.cutSteps, [5]); // node 4's own search ends at node 5
});

test("paths, moves and roots walk the parent links", () => {
  const tree = buildTree(ANSWER);
  assert.deepEqual(pathTo(tree, 3), [0, 1, 3]);
  assert.equal(movesTo(tree, 3), "ad");
  assert.equal(movesTo(tree, 0), "");
  assert.equal(rootOf(tree, 5), 0);
  assert.equal(isMax(tree.nodes[0]), true);
  assert.equal(isMax(tree.nodes[4]), false);
});

test("a node's value is known once the step passes its last node", () => {
  const tree = buildTree(ANSWER);
  assert.equal(doneAt(tree.nodes[1]), 3);
  assert.equal(doneAt({ ...tree.nodes[1], size: 0 }), Infinity); // a truncated trace never finished it
  assert.equal(nextCut(tree, 0)?.id, 4);
  assert.equal(nextCut(tree, 5), null);
});

test("countUpTo counts the sorted steps at or before a step", () => {
  assert.equal(countUpTo([2, 5, 5, 9], 1), 0);
  assert.equal(countUpTo([2, 5, 5, 9], 5), 3);
  assert.equal(countUpTo([2, 5, 5, 9], 100), 4);
  assert.equal(countUpTo([], 3), 0);
});

test("the best line follows the pv among the root's own children", () => {
  const tree = buildTree(ANSWER);
  assert.deepEqual(bestLine(tree, 0, "ad"), [0, 1, 3]);
  assert.deepEqual(bestLine(tree, 0, "az"), [0, 1]); // stops where the pv leaves the tree
  assert.deepEqual([...visitedLines(tree, 0)].sort(), ["", "a", "ac", "ad", "b", "be"]);
});

test("values read with a sign, a bound and at most three decimals", () => {
  assert.equal(valueText(3, null), "+3");
  assert.equal(valueText(-1, null), "\u22121");
  assert.equal(valueText(0, null), "0");
  assert.equal(valueText(0.1204, null), "+0.12");
  assert.equal(valueText(0.125, "lower"), "\u2265+0.125");
  assert.equal(valueText(-2, "upper"), "\u2264\u22122");
  assert.equal(valueText(null, null), "?");
  assert.equal(valueWords(1), "a forced win for Max");
  assert.equal(valueWords(-3), "a forced win for Min");
  assert.equal(valueWords(0.3), "an estimate in Max’s favour");
  assert.equal(windowText({ alpha: null, beta: 3 }), "\u03b1 = \u2212\u221e, \u03b2 = +3");
});

test("a cut-off says why its other moves were not searched", () => {
  const tree = buildTree(ANSWER);
  const why = cutReason(tree.nodes[4], "column");
  assert.match(why ?? "", /^Min already has a reply worth −1/);
  assert.match(why ?? "", /Min’s other 1 column \(f\) are not searched/);
  assert.equal(cutReason(tree.nodes[1]), null);
});

/** Every drawn pair of items on one row sits at least a column apart (two pruned stubs of
 * one node: a stub's column apart). */
function assertNoOverlap(/** @type {any[]} */ items) {
  const rows = new Map();
  for (const item of items) rows.set(item.y, [...(rows.get(item.y) ?? []), item]);
  for (const [y, row] of rows) {
    row.sort((/** @type {any} */ a, /** @type {any} */ b) => a.x - b.x);
    for (let i = 1; i < row.length; i += 1) {
      const [a, b] = [row[i - 1], row[i]];
      const apart = a.stub && b.stub && a.id === b.id ? STUB_COLUMN : COLUMN;
      assert.ok(b.x - a.x >= apart, `row ${y}: ${a.key} at ${a.x} and ${b.key} at ${b.x} overlap`);
    }
  }
}

test("the layout puts each depth on its row, parents over their children, pruned moves as stubs", () => {
  const tree = buildTree(ANSWER);
  const layout = layoutTree(tree, 0, { shown: () => true, open: () => true, pruned: (n) => (n.cut ? n.pruned : []) });
  const at = (/** @type {string} */ key) => layout.items.find((i) => i.key === key);
  assert.equal(layout.items.length, 7); // six nodes and one pruned stub
  for (const item of layout.items) assert.equal(item.y, item.depth * ROW);
  assert.equal(at("n1").x, (at("n2").x + at("n3").x) / 2);
  assert.ok(at("p4-f").stub);
  assertNoOverlap(layout.items);
  assert.equal(layout.width, 4 * COLUMN); // four leaves: c, d, e, the stub f (another node's)
  assert.equal(layout.height, 3 * ROW);
  assert.ok(layout.edges.some((e) => e.key === "s4-f" && e.stub));
});

test("a node's pruned stubs pack closer than nodes; the next node keeps a column", () => {
  const tree = buildTree(ANSWER);
  const layout = layoutTree(tree, 0, { shown: () => true, open: () => true, pruned: (n) => (n.cut ? ["f", "g", "h"] : []) });
  const x = (/** @type {string} */ key) => layout.items.find((i) => i.key === key).x;
  assert.equal(x("p4-g") - x("p4-f"), STUB_COLUMN);
  assert.equal(x("p4-f") - x("n5"), COLUMN);
  assert.equal(layout.width, 4 * COLUMN + 2 * STUB_COLUMN);
  assertNoOverlap(layout.items);
});

test("a collapsed node is a leaf that counts what it hides", () => {
  const tree = buildTree(ANSWER);
  const layout = layoutTree(tree, 0, { shown: () => true, open: (n) => n.id !== 1, pruned: () => [] });
  const folded = layout.items.find((i) => i.id === 1);
  assert.equal(folded.collapsed, true);
  assert.equal(folded.hiddenCount, 2);
  assert.ok(!layout.items.some((i) => i.id === 2 || i.id === 3));
  assert.equal(countShown(tree, tree.nodes[0], (n) => n.id <= 3), 4);
});

test("subtrees pack row by row, under a folded node too", () => {
  // Root 0 with a folded child 1 (its kid 2 hidden) and an open child 3 whose kids 4, 5, 6
  // spread left under 1 (the rows are far enough apart for 1's "+1").
  const nodes = [node(0, null, 0, null), node(1, 0, 1, "a"), node(2, 1, 2, "b"), node(3, 0, 1, "c"),
    node(4, 3, 2, "d"), node(5, 3, 2, "e"), node(6, 3, 2, "f")];
  const tree = buildTree({ nodes, truncated: false });
  const layout = layoutTree(tree, 0, { shown: () => true, open: (n) => n.id !== 1, pruned: () => [] });
  const x = (/** @type {number} */ id) => layout.items.find((i) => i.key === `n${id}`).x;
  assert.equal(x(3) - x(1), COLUMN, "3 a column right of 1 on their row");
  assert.equal(x(4), x(1), "3's first kid packed right under 1 (its count ends above it)");
  assertNoOverlap(layout.items);
  // Unfolded, 1's kid 2 takes that place, and 3's kids pack right after it.
  const open = layoutTree(tree, 0, { shown: () => true, open: () => true, pruned: () => [] });
  assertNoOverlap(open.items);
  assert.equal(open.width, 4 * COLUMN);
});

test("no two nodes overlap in a wide, deep random tree", () => {
  // A deterministic pseudo-random tree: 400 nodes, up to 4 children each.
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const nodes = [node(0, null, 0, null)];
  while (nodes.length < 400) {
    const parent = nodes[Math.floor(random() * nodes.length)];
    if (parent.depth < 8) nodes.push(node(nodes.length, parent.id, parent.depth + 1, String(nodes.length)));
  }
  const tree = buildTree({ nodes, truncated: false });
  const layout = layoutTree(tree, 0, { shown: (n) => n.id < 300, open: (n) => n.id % 7 !== 3, pruned: (n) => (n.id % 5 === 0 ? ["x", "y"] : []) });
  assertNoOverlap(layout.items);
  // A parent sits between its leftmost and rightmost child.
  for (const edge of layout.edges) {
    const siblings = layout.edges.filter((e) => e.from === edge.from).map((e) => e.to.x);
    assert.ok(edge.from.x >= Math.min(...siblings) && edge.from.x <= Math.max(...siblings));
  }
});

test("a node label's value is at most six characters, the leading zero of an estimate cut", () => {
  assert.equal(shortValue(-0.021, "upper"), "\u2264\u2212.021");
  assert.equal(shortValue(0.003), "+.003");
  assert.equal(shortValue(0.5, "lower"), "\u2265+.5");
  assert.equal(shortValue(18, "lower"), "\u2265+18"); // whole numbers as they are
  assert.equal(shortValue(0), "0");
  assert.equal(shortValue(-1), "\u22121");
  assert.equal(shortValue(null), "?");
  for (const value of [-0.999, -0.021, 0.001, 0.125, 0.9]) {
    for (const bound of ["lower", "upper", null]) assert.ok(shortValue(value, bound).length <= 6, `${value} ${bound}`);
  }
});

const count = (/** @type {number} */ n) => n.toLocaleString("en-US");

test("the pass counts set the last pass alone beside the total of every iteration", () => {
  const deepening = [
    { depth: 1, nodes: 8, complete: true }, { depth: 2, nodes: 26, complete: true },
    { depth: 7, nodes: 420, complete: true },
  ];
  assert.equal(passWords(deepening, 1314, count), "depth 7 pass: 420; all 3 iterations with table hits: 1,314");
  assert.equal(passWords([{ depth: 7, nodes: 7332, complete: true }], 7332, count), "depth 7 pass: 7,332");
  const cut = [{ depth: 1, nodes: 8, complete: true }, { depth: 2, nodes: 92, complete: false }];
  assert.equal(passWords(cut, 100, count), "depth 2 pass (unfinished): 92; all 2 iterations with table hits: 100");
  assert.equal(passWords([], 0, count), "0 nodes");
  assert.deepEqual(lastComplete(cut), cut[0]);
  assert.equal(lastComplete([{ depth: 9, nodes: 100, complete: false }]), null);
  assert.equal(lastComplete(undefined), null);
});

test("a compared pane counts its visited nodes, then says where it finished", () => {
  assert.equal(paneProgress(1314, 24, count), "Visited 25 of 1,314");
  assert.equal(paneProgress(1314, 1313, count), "Finished at node 1,314");
  assert.equal(paneProgress(1314, 7331, count), "Finished at node 1,314"); // the other pane runs on
});

test("nobody moves at a terminal node; elsewhere Max or Min, with their mark", () => {
  const players = ["X", "O"];
  assert.equal(sideToMoveWords(node(9, 5, 3, "g", { kind: "terminal" }), players), "nobody: the game is over here");
  assert.equal(sideToMoveWords(node(1, 0, 1, "a"), players), "Min (O): takes the smallest value");
  assert.equal(sideToMoveWords(node(2, 1, 2, "c", { kind: "leaf" }), players), "Max (X): takes the largest value");
});

test("the search's end is never past the board's, and an early proof says why it stopped", () => {
  const pass = (/** @type {number} */ depth, complete = true) => ({ depth, nodes: 1, complete });
  // tic-tac-toe after 2 moves, depth 9 asked: the iterations end at the 7 moves left
  const sevenLeft = { depth: 9, truncated: false, iterations: [1, 2, 3, 4, 5, 6, 7].map((d) => pass(d)) };
  assert.deepEqual(searchEnd(sevenLeft, 7), { reach: 7, note: "" });
  assert.deepEqual(searchEnd({ ...sevenLeft, depth: 4, iterations: [pass(1), pass(4)] }, 7), { reach: 4, note: "" });
  // a win at depth 1 ends the deepening there
  const proved = searchEnd({ depth: 9, truncated: false, iterations: [pass(1)] }, 5);
  assert.equal(proved.reach, 5);
  assert.match(proved.note, /^It stopped deepening at depth 1, short of 5: that depth already proved the result/);
  // the node limit is not a proof: the summary says the limit instead
  assert.deepEqual(searchEnd({ depth: 9, truncated: true, iterations: [pass(1), pass(2, false)] }, 7), { reach: 7, note: "" });
});
