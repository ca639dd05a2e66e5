// A tidy layered layout for the visible part of a search tree: a node's
// depth gives its row; leaves take consecutive columns left to right and a
// parent sits centred over its children (so subtrees never overlap and the
// visit order reads left to right). Collapsed nodes are leaves with a count.
// Moves a cut-off never searched are drawn as small "pruned" leaves, packed
// closer than nodes (a narrower tree fits its pane at a readable zoom).

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
export const ROW = 74;

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
  // The leaves' x, left to right: a column apart, but a node's pruned stubs sit closer
  // together. Any other two neighbours on a row are then still a column apart: the
  // leaves where two subtrees meet never are two stubs of one node.
  let x = -COLUMN;
  /** @type {number | null} the node whose stub was the last leaf placed */
  let stubsOf = null;
  const nextLeaf = (/** @type {number | null} */ stubOf) => {
    x += stubOf !== null && stubOf === stubsOf ? STUB_COLUMN : COLUMN;
    stubsOf = stubOf;
    return x;
  };
  let deepest = 0;
  const place = (/** @type {TreeNode} */ node, /** @type {number} */ depth) => {
    deepest = Math.max(deepest, depth);
    const kids = open(node) ? node.kids.map((k) => tree.nodes[k]).filter(shown) : [];
    const stubs = open(node) ? pruned(node) : [];
    const hiddenCount = open(node) ? 0 : node.kids.filter((k) => shown(tree.nodes[k])).reduce(
      (sum, k) => sum + countShown(tree, tree.nodes[k], shown), 0);
    /** @type {LayoutItem} */
    const item = { key: `n${node.id}`, id: node.id, depth, collapsed: hiddenCount > 0, hiddenCount, stub: false, x: 0, y: 0 };
    items.push(item);
    const xs = [];
    for (const kid of kids) {
      const child = place(kid, depth + 1);
      edges.push({ key: `e${kid.id}`, from: item, to: child, stub: false });
      xs.push(child.x);
    }
    for (const move of stubs) {
      const stub = { key: `p${node.id}-${move}`, id: node.id, depth: depth + 1, move, stub: true,
        x: nextLeaf(node.id), y: (depth + 1) * ROW };
      items.push(stub);
      edges.push({ key: `s${node.id}-${move}`, from: item, to: stub, stub: true });
      xs.push(stub.x);
      deepest = Math.max(deepest, depth + 1);
    }
    if (xs.length) {
      item.x = (xs[0] + xs[xs.length - 1]) / 2;
    } else {
      item.x = nextLeaf(null);
    }
    item.y = depth * ROW;
    return item;
  };
  place(tree.nodes[rootId], 0);
  return { items, edges, width: Math.max(0, x) + COLUMN, height: (deepest + 1) * ROW };
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
