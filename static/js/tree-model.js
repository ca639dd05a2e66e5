// The search tree as the explorer needs it, built from GET /api/tree's
// answer: children, subtree sizes, what is known at each step of the search,
// the best line, and the words that explain a window or a cut-off. No DOM.
//
// Nodes arrive in visit order (node `id` is the step at which the engine
// reached it). Values are from Max's side (the side to move at the root),
// on the public scale: exact scores are whole numbers (wins >= 1, losses
// <= -1, 0 a draw), estimates lie strictly between -1 and 1. A node's own
// search covers ids id .. id + size - 1, so its value is known once the
// step passes its last node.

/**
 * A node of GET /api/tree's answer (webapp/engine/trace.py), in visit order.
 * @typedef {object} TreeNodeData
 * @property {number} id the step at which the search reached it
 * @property {number | null} parent
 * @property {number} depth
 * @property {string | null} move
 * @property {number} size the nodes its own search visited (itself included; 0: never finished)
 * @property {number | null} value from Max's side
 * @property {"lower" | "upper" | null} bound
 * @property {number | null} alpha
 * @property {number | null} beta
 * @property {boolean} cut
 * @property {string[]} pruned the moves a cut-off left unsearched
 * @property {number | null} tt_hit the node whose result a table hit reused
 * @property {boolean} line a principal-variation walk's node, not the search's own
 * @property {string} kind
 * @property {number} [iteration]
 */

/**
 * One pass of iterative deepening (minimax makes one): its depth, its own nodes (they add
 * up to the trace's node_count), and whether it finished (a truncated trace's last did not).
 * @typedef {{depth: number, nodes: number, complete: boolean}} TreePass
 */

/** A node with its children and the size of its subtree. @typedef {TreeNodeData & {kids: number[], total: number}} TreeNode */

/**
 * The search tree, indexed (buildTree's answer).
 * @typedef {object} Tree
 * @property {TreeNode[]} nodes by id
 * @property {number[]} roots each iteration's root
 * @property {number[]} cuts the cut-off nodes
 * @property {number[]} cutSteps the steps at which each cut-off happens, sorted
 * @property {number[]} hitSteps the steps of the table hits
 * @property {boolean} [truncated] the trace reached its node limit
 * @property {string} [algorithm]
 * @property {string | null} [best_move]
 * @property {string} [pv]
 * @property {number} [depth] the depth asked for
 * @property {TreePass[]} [iterations] each pass of iterative deepening, its own nodes
 * @property {number} [limit] the node limit
 * @property {number} [node_count]
 * @property {number | null} [root_value]
 */

/** Max moves at even depths (the root's side), Min at odd ones. @param {{depth: number}} node */
export const isMax = (node) => node.depth % 2 === 0;

/** Index the answer: children, the subtree count drawn under a collapsed node, iteration roots. */
/**
 * @param {{nodes: TreeNodeData[], truncated?: boolean}} data
 * @returns {Tree}
 */
export function buildTree(data) {
  const nodes = data.nodes.map((n) => ({ ...n, kids: /** @type {number[]} */ ([]), total: 1 }));
  for (const node of nodes) if (node.parent !== null) nodes[node.parent].kids.push(node.id);
  for (let i = nodes.length - 1; i >= 0; i -= 1) {
    const node = nodes[i];
    if (node.parent !== null) nodes[node.parent].total += node.total;
  }
  const roots = nodes.filter((n) => n.parent === null).map((n) => n.id);
  const cuts = nodes.filter((n) => n.cut).map((n) => n.id);
  // The steps at which each cut-off (its search finished) and each table hit happen, sorted.
  const cutSteps = cuts.map((id) => doneAt(nodes[id])).sort((a, b) => a - b);
  const hitSteps = nodes.filter((n) => n.tt_hit !== null).map((n) => n.id);
  return { ...data, nodes, roots, cuts, cutSteps, hitSteps };
}

/** How many of the sorted `steps` are at or before `step` (a binary search). */
export function countUpTo(/** @type {number[]} */ steps, /** @type {number} */ step) {
  let low = 0;
  let high = steps.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (steps[mid] <= step) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The last step of a node's own search (Infinity if a truncated trace never finished it). */
export function doneAt(/** @type {TreeNodeData} */ node) {
  return node.size > 0 ? node.id + node.size - 1 : Infinity;
}

/** The iteration root a node belongs to. */
export function rootOf(/** @type {Tree} */ tree, /** @type {number} */ id) {
  let node = tree.nodes[id];
  while (node.parent !== null) node = tree.nodes[node.parent];
  return node.id;
}

/** Ids from the root down to `id`. */
export function pathTo(/** @type {Tree} */ tree, /** @type {number} */ id) {
  const path = [];
  for (let /** @type {TreeNode | null} */ n = tree.nodes[id]; n; n = n.parent === null ? null : tree.nodes[n.parent]) path.push(n.id);
  return path.reverse();
}

/** The moves from the root position to a node ("" for the root). */
export function movesTo(/** @type {Tree} */ tree, /** @type {number} */ id) {
  return pathTo(tree, id).slice(1).map((i) => tree.nodes[i].move).join("");
}

/** The next cut-off node after `step` (the one whose search finishes first), or null. */
export function nextCut(/** @type {Tree} */ tree, /** @type {number} */ step) {
  /** @type {TreeNode | null} */
  let best = null;
  for (const id of tree.cuts) {
    const node = tree.nodes[id];
    if (doneAt(node) > step && (best === null || doneAt(node) < doneAt(best))) best = node;
  }
  return best;
}

/** Ids on the best line of an iteration: its root, then each pv move among its own children. */
export function bestLine(/** @type {Tree} */ tree, /** @type {number} */ rootId, /** @type {string | null | undefined} */ pv) {
  const line = [rootId];
  let node = tree.nodes[rootId];
  for (const move of pv || "") {
    const next = node.kids.map((k) => tree.nodes[k]).find((k) => k.move === move && !k.line);
    if (!next) break;
    line.push(next.id);
    node = next;
  }
  return line;
}

/** The lines of moves (from the root) that an iteration's search visited. */
export function visitedLines(/** @type {Tree} */ tree, /** @type {number} */ rootId) {
  /** @type {Set<string>} */
  const lines = new Set();
  const walk = (/** @type {number} */ id, /** @type {string} */ prefix) => {
    lines.add(prefix);
    for (const kid of tree.nodes[id].kids) walk(kid, prefix + tree.nodes[kid].move);
  };
  walk(rootId, "");
  return lines;
}

/** A value for a node label: "+3", "−1", "0", "+0.12", with "≥"/"≤" for a bound; "?" unknown. */
export function valueText(/** @type {number | null | undefined} */ value, /** @type {string | null} */ bound = null) {
  if (value === null || value === undefined) return "?";
  // Estimates are thousandths of a win (the server's scale): all three digits, trailing zeros cut.
  const magnitude = Number.isInteger(value) ? String(Math.abs(value)) : String(Number(Math.abs(value).toFixed(3)));
  const sign = value > 0 ? "+" : value < 0 ? "\u2212" : "";
  const prefix = bound === "lower" ? "\u2265" : bound === "upper" ? "\u2264" : "";
  return `${prefix}${sign}${magnitude}`;
}

/** A node label's value, at most six narrow characters: valueText without an estimate's
 * leading zero ("+.003", "≤−.021"); the node's title and the details give it whole. */
export function shortValue(/** @type {number | null | undefined} */ value, /** @type {string | null} */ bound = null) {
  return valueText(value, bound).replace(/^([≥≤]?[+\u2212]?)0\./, "$1.");
}

/** The deepest pass that finished, or null. @param {TreePass[] | undefined} passes */
export function lastComplete(passes) {
  const done = (passes ?? []).filter((p) => p.complete);
  return done.length ? done[done.length - 1] : null;
}

/**
 * How deep the search went, in words for the summary. `reach` is the deepest iteration it
 * can make: the depth asked, or the moves left when fewer (the engine never searches past
 * the board's end). `note` says why a finished alpha-beta stopped short of it: its last
 * pass already proved the result (a forced win, loss or draw), so it deepened no further.
 * @param {Pick<Tree, "depth" | "iterations" | "truncated">} tree
 * @param {number} movesLeft the empty cells at the root
 * @returns {{reach: number, note: string}}
 */
export function searchEnd(tree, movesLeft) {
  const reach = Math.min(tree.depth ?? movesLeft, movesLeft);
  const last = lastComplete(tree.iterations);
  if (tree.truncated || last === null || last.depth >= reach) return { reach, note: "" };
  return {
    reach,
    note: `It stopped deepening at depth ${last.depth}, short of ${reach}: that depth already proved the result, so a deeper search could not change it.`,
  };
}

/**
 * The node counts a student compares: the last pass alone against all passes.
 * "depth 7 pass: 420 of 1,314 in all 7 iterations (table hits included)"; one pass: "7,332 in one pass".
 * @param {TreePass[] | undefined} passes
 * @param {number} total the trace's node_count
 * @param {(n: number) => string} count how a number is written
 */
export function passWords(passes, total, count) {
  const list = passes ?? [];
  const last = list[list.length - 1];
  if (!last) return `${count(total)} nodes`;
  const own = `depth ${last.depth} pass${last.complete ? "" : " (unfinished)"}: ${count(last.nodes)}`;
  if (list.length === 1) return own;
  return `${own}; all ${list.length} iterations with table hits: ${count(total)}`;
}

/** What a value means for Max, in words. */
export function valueWords(/** @type {number | null | undefined} */ value) {
  if (value === null || value === undefined) return "not known yet";
  if (value >= 1) return "a forced win for Max";
  if (value <= -1) return "a forced win for Min";
  if (value === 0) return "level (a draw if exact)";
  return value > 0 ? "an estimate in Max’s favour" : "an estimate in Min’s favour";
}

/** A window in words: "α = −∞, β = +3". */
export function windowText(/** @type {{alpha: number | null, beta: number | null}} */ node) {
  const a = node.alpha === null ? "\u2212\u221e" : valueText(node.alpha);
  const b = node.beta === null ? "+\u221e" : valueText(node.beta);
  return `\u03b1 = ${a}, \u03b2 = ${b}`;
}

/** Why a cut-off node stopped searching, in words (null if it did not). */
export function cutReason(/** @type {TreeNodeData} */ node, moveNoun = "move") {
  if (!node.cut) return null;
  const skipped = `${node.pruned.length} ${moveNoun}${node.pruned.length === 1 ? "" : "s"} (${node.pruned.join(", ")})`;
  if (isMax(node)) {
    const beta = valueText(node.beta);
    return `Max already has ${valueText(node.value, null)} here, at least β = ${beta}, which Min can ` +
      `keep Max below elsewhere: Min will never allow this position, so Max’s other ${skipped} ` +
      "are not searched.";
  }
  const alpha = valueText(node.alpha);
  return `Min already has a reply worth ${valueText(node.value, null)}, already no better than ` +
    `α = ${alpha} for Max, which Max has elsewhere: Max will never play into this, so Min’s other ` +
    `${skipped} are not searched.`;
}

/** What kind of node this is, in words. */
export function kindWords(/** @type {Tree} */ tree, /** @type {TreeNodeData} */ node) {
  switch (node.kind) {
    case "root": return `the position searched, iteration to depth ${node.iteration}`;
    case "terminal": return "the game is over here";
    case "leaf": return "the search’s horizon: the position is evaluated, not searched";
    case "hit": return `a transposition-table hit: the result of node ${(node.tt_hit ?? 0) + 1} (the same position, searched before) is reused`;
    case "inner": return node.cut ? "searched until a cut-off" : "every move searched";
    default: return tree.truncated ? "still open when the trace reached its node limit" : "being searched";
  }
}

/**
 * Who moves at `node`, in words: nobody once the game is over there (a terminal node).
 * @param {TreeNodeData} node
 * @param {string[]} players the marks, the root's side to move first
 */
export function sideToMoveWords(node, players) {
  if (node.kind === "terminal") return "nobody: the game is over here";
  return isMax(node) ? `Max (${players[0]}): takes the largest value` : `Min (${players[1]}): takes the smallest value`;
}

/**
 * A compared pane's counter at shared step `step` (0-based): how many of its nodes are
 * visited, or where it finished once its search is done and the other still runs.
 * @param {number} nodes the pane's trace length
 * @param {number} step
 * @param {(n: number) => string} count how a number is written
 */
export function paneProgress(nodes, step, count) {
  if (step >= nodes - 1) return `Finished at node ${count(nodes)}`;
  return `Visited ${count(step + 1)} of ${count(nodes)}`;
}
