// A tidy layered layout for the visible part of a search tree: a node's
// depth gives its row; a parent sits centred over its children, and each
// child's subtree is packed as far left as its rows allow, a column clear of
// the subtrees before it on every row they share (Reingold-Tilford contours:
// subtrees never overlap, the visit order reads left to right, and a search's
// staircase of open lines is as narrow as its widest row, not its leaves).
// Collapsed nodes are leaves with a count. Moves a cut-off never searched are
// drawn as small "pruned" leaves, packed closer than nodes.

/** @typedef {import("./tree-model.js").Tree} Tree */
/** @typedef {import("./tree-model.js").TreeNode} TreeNode */

/**
 * A drawn node (or, `stub`, a pruned move's small leaf under node `id`).
 * @typedef {object} LayoutItem
 * @property {string} key stable across redraws
 * @property {number} id
 * @property {number} depth
 * @property {number} x
 * @property {number} y
 * @property {boolean} stub
 * @property {boolean} [collapsed]
 * @property {number} [hiddenCount] the shown nodes a collapsed node hides
 * @property {string} [move] a stub's move
 */

/** @typedef {{key: string, from: LayoutItem, to: LayoutItem, stub: boolean}} LayoutEdge */

export const COLUMN = 54; // wide enough for a six-character value label (shortValue) beside another
/** Between two pruned stubs of one node: their labels are one character (a move). */
export const STUB_COLUMN = 20;
/** Tall enough that a folded node's "+N" (under its value) ends above the move labels of
 * the row below: a subtree may pack under a folded node. */
export const ROW = 84;

/**
 * Lay out `rootId`'s tree.
 * - shown(node): whether the node is drawn at all (visited by this step);
 * - open(node): whether its children are drawn;
 * - pruned(node): the moves drawn as pruned stubs under it (or []).
 * Returns {items: [{key, id, x, y, depth, collapsed, hiddenCount, stub, move}],
 *          edges: [{key, from, to, stub}], width, height}.
 * @param {Tree} tree
 * @param {number} rootId
 * @param {{shown: (node: TreeNode) => boolean, open: (node: TreeNode) => boolean, pruned: (node: TreeNode) => string[]}} rules
 * @returns {{items: LayoutItem[], edges: LayoutEdge[], width: number, height: number}}
 */
export function layoutTree(tree, rootId, { shown, open, pruned }) {
  /** @type {LayoutItem[]} */
  const items = [];
  /** @type {LayoutEdge[]} */
  const edges = [];
  /** @type {Map<LayoutItem, {parent: LayoutItem, dx: number}>} an item's x from its parent's */
  const offsets = new Map();
  let deepest = 0;
  /**
   * Place `node`'s subtree with the node at x = 0; its contour: the least and the most x
   * of each of its rows, its own first.
   * @param {TreeNode} node
   * @param {number} depth
   * @returns {{item: LayoutItem, left: number[], right: number[]}}
   */
  const place = (node, depth) => {
    deepest = Math.max(deepest, depth);
    const kids = open(node) ? node.kids.map((k) => tree.nodes[k]).filter(shown) : [];
    const stubs = open(node) ? pruned(node) : [];
    const hiddenCount = open(node) ? 0 : node.kids.filter((k) => shown(tree.nodes[k])).reduce(
      (sum, k) => sum + countShown(tree, tree.nodes[k], shown), 0);
    /** @type {LayoutItem} */
    const item = { key: `n${node.id}`, id: node.id, depth, collapsed: hiddenCount > 0, hiddenCount, stub: false, x: 0, y: depth * ROW };
    items.push(item);
    const children = [];
    for (const kid of kids) {
      const child = place(kid, depth + 1);
      edges.push({ key: `e${kid.id}`, from: item, to: child.item, stub: false });
      children.push(child);
    }
    for (const move of stubs) {
      /** @type {LayoutItem} */
      const stub = { key: `p${node.id}-${move}`, id: node.id, depth: depth + 1, move, stub: true, x: 0, y: (depth + 1) * ROW };
      items.push(stub);
      edges.push({ key: `s${node.id}-${move}`, from: item, to: stub, stub: true });
      children.push({ item: stub, left: [0], right: [0] });
      deepest = Math.max(deepest, depth + 1);
    }
    if (!children.length) return { item, left: [0], right: [0] };
    // Each child's subtree as far left as its rows allow: a column clear of the subtrees
    // before it on every row they share (two stubs of this node: a stub's column).
    const [first, ...rest] = children;
    const left = first.left.slice();
    const right = first.right.slice();
    const xs = [0];
    let previous = first.item;
    for (const child of rest) {
      let x = -Infinity;
      for (let row = 0; row < Math.min(right.length, child.left.length); row += 1) {
        const gap = row === 0 && previous.stub && child.item.stub ? STUB_COLUMN : COLUMN;
        x = Math.max(x, right[row] + gap - child.left[row]);
      }
      child.left.forEach((at, row) => { left[row] = row < left.length ? Math.min(left[row], at + x) : at + x; });
      child.right.forEach((at, row) => { right[row] = row < right.length ? Math.max(right[row], at + x) : at + x; });
      xs.push(x);
      previous = child.item;
    }
    const middle = (xs[0] + xs[xs.length - 1]) / 2; // the parent sits centred over its children
    children.forEach((child, i) => offsets.set(child.item, { parent: item, dx: xs[i] - middle }));
    return { item, left: [0, ...left.map((at) => at - middle)], right: [0, ...right.map((at) => at - middle)] };
  };
  place(tree.nodes[rootId], 0);
  for (const item of items) { // parents come first: a parent's x is known before its children's
    const placed = offsets.get(item);
    if (placed) item.x = placed.parent.x + placed.dx;
  }
  const least = Math.min(...items.map((item) => item.x));
  for (const item of items) item.x -= least;
  const width = Math.max(...items.map((item) => item.x)) + COLUMN;
  return { items, edges, width, height: (deepest + 1) * ROW };
}

/** How many shown nodes a subtree holds (itself included). */
export function countShown(/** @type {Tree} */ tree, /** @type {TreeNode} */ node, /** @type {(node: TreeNode) => boolean} */ shown) {
  let count = 1;
  const stack = [...node.kids];
  while (stack.length) {
    const kid = tree.nodes[/** @type {number} */ (stack.pop())]; // the loop checks the stack is not empty
    if (!shown(kid)) continue;
    count += 1;
    stack.push(...kid.kids);
  }
  return count;
}
