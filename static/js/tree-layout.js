// A tidy layered layout for the visible part of a search tree: a node's
// depth gives its row; leaves take consecutive columns left to right and a
// parent sits centred over its children (so subtrees never overlap and the
// visit order reads left to right). Collapsed nodes are leaves with a count.
// Moves a cut-off never searched are drawn as small "pruned" leaves.

export const COLUMN = 46;
export const ROW = 74;

/**
 * Lay out `rootId`'s tree.
 * - shown(node): whether the node is drawn at all (visited by this step);
 * - open(node): whether its children are drawn;
 * - pruned(node): the moves drawn as pruned stubs under it (or []).
 * Returns {items: [{key, id, x, y, depth, collapsed, hiddenCount, stub, move}],
 *          edges: [{key, from, to, stub}], width, height}.
 */
export function layoutTree(tree, rootId, { shown, open, pruned }) {
  const items = [];
  const edges = [];
  let column = 0;
  let deepest = 0;
  const place = (node, depth) => {
    deepest = Math.max(deepest, depth);
    const kids = open(node) ? node.kids.map((k) => tree.nodes[k]).filter(shown) : [];
    const stubs = open(node) ? pruned(node) : [];
    const hiddenCount = open(node) ? 0 : node.kids.filter((k) => shown(tree.nodes[k])).reduce(
      (sum, k) => sum + countShown(tree, tree.nodes[k], shown), 0);
    const item = { key: `n${node.id}`, id: node.id, depth, collapsed: hiddenCount > 0, hiddenCount, stub: false };
    items.push(item);
    const xs = [];
    for (const kid of kids) {
      const child = place(kid, depth + 1);
      edges.push({ key: `e${kid.id}`, from: item, to: child, stub: false });
      xs.push(child.x);
    }
    for (const move of stubs) {
      const stub = { key: `p${node.id}-${move}`, id: node.id, depth: depth + 1, move, stub: true,
        x: column * COLUMN, y: (depth + 1) * ROW };
      column += 1;
      items.push(stub);
      edges.push({ key: `s${node.id}-${move}`, from: item, to: stub, stub: true });
      xs.push(stub.x);
      deepest = Math.max(deepest, depth + 1);
    }
    if (xs.length) {
      item.x = (xs[0] + xs[xs.length - 1]) / 2;
    } else {
      item.x = column * COLUMN;
      column += 1;
    }
    item.y = depth * ROW;
    return item;
  };
  place(tree.nodes[rootId], 0);
  return { items, edges, width: Math.max(1, column) * COLUMN, height: (deepest + 1) * ROW };
}

/** How many shown nodes a subtree holds (itself included). */
export function countShown(tree, node, shown) {
  let count = 1;
  const stack = [...node.kids];
  while (stack.length) {
    const kid = tree.nodes[stack.pop()];
    if (!shown(kid)) continue;
    count += 1;
    stack.push(...kid.kids);
  }
  return count;
}
