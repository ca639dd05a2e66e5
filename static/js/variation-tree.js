// Variations as a tree: a node is a position reached by one move from its
// parent; its first child is the main continuation, the others are
// variations. Pure data, no DOM: the analysis board draws it.
//
//   const root = createTree();
//   const a = addMove(root, "4");      // the main line: 4
//   const b = addMove(root, "3");      // a variation: 3 instead of 4
//   promote(b);                        // now 3 is the main line
//   pathOf(b) === "3"

let ids = 0;

/** The start position's node. */
export function createTree() {
  return { id: ids++, move: null, parent: null, children: [], ply: 0 };
}

/** The child reached by `move` (made, as the last variation, if it is new). */
export function addMove(node, move) {
  const found = node.children.find((child) => child.move === move);
  if (found) return found;
  const child = { id: ids++, move, parent: node, children: [], ply: node.ply + 1 };
  node.children.push(child);
  return child;
}

/** The node reached by playing `moves` from `node`, made as needed. */
export function follow(node, moves) {
  let at = node;
  for (const move of moves) at = addMove(at, move);
  return at;
}

/** The moves from the start to `node`. */
export function pathOf(node) {
  const moves = [];
  for (let at = node; at.parent; at = at.parent) moves.push(at.move);
  return moves.reverse().join("");
}

/** The last node of the main continuation from `node`. */
export function lineEnd(node) {
  let at = node;
  while (at.children.length) at = at.children[0];
  return at;
}

/** True when every move from the start to `node` is a main continuation. */
export function onMainLine(node) {
  for (let at = node; at.parent; at = at.parent) if (at.parent.children[0] !== at) return false;
  return true;
}

/** Make the line through `node` the main line: it comes first at every branching. */
export function promote(node) {
  for (let at = node; at.parent; at = at.parent) {
    const siblings = at.parent.children;
    siblings.splice(siblings.indexOf(at), 1);
    siblings.unshift(at);
  }
}

/** A node by its id under `root` (null if none). */
export function findNode(root, id) {
  const stack = [root];
  while (stack.length) {
    const node = stack.pop();
    if (node.id === id) return node;
    stack.push(...node.children);
  }
  return null;
}
