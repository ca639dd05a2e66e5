// The search-tree component's drawing: the SVG layers, and a scene drawn
// into them (nodes, pruned stubs, edges, the MAX/MIN row labels). Elements
// are kept by key and updated in place, never re-created or moved, so focus
// and the tab order survive a redraw. The camera (tree-camera.js) and the
// input (tree-events.js) work on the same state.

import { isMax, shortValue, valueText } from "./tree-model.js";
import { COLUMN, ROW } from "./tree-layout.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const MAX_SHAPE = "M0 -15L15 11H-15Z"; // pointing up: Max picks the largest value
const MIN_SHAPE = "M0 15L15 -11H-15Z"; // pointing down: Min picks the smallest
/** Room kept around the drawing, in screen pixels. */
export const MARGIN = 60;

/**
 * What the page asks the view to draw (the view holds no search state).
 * @typedef {object} TreeScene
 * @property {any} tree the search tree (tree-model.js)
 * @property {{items: any[], edges: any[], width: number, height: number}} layout tree-layout.js layoutTree's
 * @property {number} step the last node visited so far
 * @property {number | null} current
 * @property {number | null} selected
 * @property {Set<number>} best
 * @property {Set<number> | null} skipped
 * @property {string} moveNoun
 */

/**
 * @typedef {(id: number, how: {toggle?: boolean, hover?: boolean, keyboard?: boolean}) => void} OnSelect
 */

/**
 * One tree view's state: its elements, its camera and the scene drawn last.
 * @typedef {object} TreeViewState
 * @property {SVGSVGElement} root
 * @property {SVGGElement} stage
 * @property {SVGGElement} levels
 * @property {SVGGElement} edgeLayer
 * @property {SVGGElement} nodeLayer
 * @property {{k: number, x: number, y: number, moved: boolean}} camera moved: by the reader
 *   (pan or zoom) since the last fit, so following a node only pans
 * @property {Map<string, SVGElement>} nodeEls layout key -> element
 * @property {Map<string, SVGElement>} edgeEls
 * @property {TreeScene | null} scene
 * @property {Map<number, any>} byId drawn node id -> its layout item
 */

/**
 * An SVG element with attributes.
 * @param {string} tag
 * @param {Record<string, string>} [attrs]
 * @returns {any}
 */
export function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  return node;
}

/**
 * The view's empty layers in `host` (replacing what it held).
 * @param {HTMLElement} host
 * @param {string} label the drawing's accessible name
 * @returns {TreeViewState}
 */
export function createTreeState(host, label) {
  const root = svg("svg", { class: "tree-svg", role: "group", "aria-label": label, tabindex: "-1" });
  const stage = svg("g", { class: "tree-stage" });
  const levels = svg("g", { class: "tree-levels", "aria-hidden": "true" });
  const edgeLayer = svg("g", { class: "tree-edges", "aria-hidden": "true" });
  const nodeLayer = svg("g", { class: "tree-nodes" });
  stage.append(levels, edgeLayer, nodeLayer);
  root.append(stage);
  host.replaceChildren(root);
  return {
    root, stage, levels, edgeLayer, nodeLayer,
    camera: { k: 1, x: MARGIN, y: MARGIN / 2, moved: false },
    nodeEls: new Map(),
    edgeEls: new Map(),
    scene: null,
    byId: new Map(),
  };
}

/**
 * Draw `scene`, reusing the elements of the last one.
 * @param {TreeViewState} state
 * @param {TreeScene} scene
 * @param {OnSelect} onSelect
 */
export function drawScene(state, scene, onSelect) {
  state.scene = scene;
  const { items, edges, height } = scene.layout;
  state.byId = new Map();
  const seenNodes = new Set();
  for (const item of items) {
    seenNodes.add(item.key);
    let el = state.nodeEls.get(item.key);
    if (!el) {
      el = /** @type {SVGElement} */ (item.stub ? makeStub(item) : makeNode(item, onSelect));
      state.nodeEls.set(item.key, el);
      state.nodeLayer.append(el); // never moved after: a move would drop focus (tab order = visit order)
    }
    if (item.stub) el.setAttribute("transform", `translate(${item.x} ${item.y})`);
    else {
      state.byId.set(item.id, item);
      updateNode(el, item, scene);
    }
  }
  for (const [key, el] of state.nodeEls) if (!seenNodes.has(key)) { el.remove(); state.nodeEls.delete(key); }
  drawEdges(state, edges, scene);
  drawLevels(state.levels, height);
}

/**
 * @param {TreeViewState} state
 * @param {any[]} edges
 * @param {TreeScene} scene
 */
function drawEdges(state, edges, scene) {
  const seenEdges = new Set();
  for (const edge of edges) {
    seenEdges.add(edge.key);
    let el = state.edgeEls.get(edge.key);
    if (!el) {
      el = /** @type {SVGElement} */ (svg("line"));
      state.edgeEls.set(edge.key, el);
      state.edgeLayer.append(el);
    }
    el.setAttribute("x1", edge.from.x);
    el.setAttribute("y1", String(edge.from.y + 12));
    el.setAttribute("x2", edge.to.x);
    el.setAttribute("y2", String(edge.to.y - (edge.stub ? 5 : 16)));
    const best = !edge.stub && scene.best.has(edge.from.id) && scene.best.has(edge.to.id);
    el.setAttribute("class", edge.stub ? "edge pruned" : best ? "edge best" : "edge");
  }
  for (const [key, el] of state.edgeEls) if (!seenEdges.has(key)) { el.remove(); state.edgeEls.delete(key); }
}

/**
 * The MAX / MIN label of each row.
 * @param {SVGGElement} levels
 * @param {number} height
 */
function drawLevels(levels, height) {
  const rows = Math.round(height / ROW);
  if (levels.childElementCount === rows) return;
  levels.replaceChildren();
  for (let depth = 0; depth < rows; depth += 1) {
    const text = svg("text", { x: String(-COLUMN), y: String(depth * ROW + 4), class: depth % 2 ? "min" : "max" });
    text.textContent = depth % 2 ? "MIN" : "MAX";
    levels.append(text);
  }
}

/**
 * A node's accessible name: its move, who moves, its value, what is special.
 * @param {any} node
 * @param {any} item
 * @param {TreeScene} scene
 */
function nodeLabel(node, item, scene) {
  const who = node.kind === "terminal" ? "game over" : `${isMax(node) ? "Max" : "Min"} to move`;
  const move = node.move === null ? "the root position" : `${scene.moveNoun} ${node.move}`;
  const known = node.id + Math.max(node.size, 1) - 1 <= scene.step;
  const value = known ? `value ${valueText(node.value, node.bound)}` : "value not known yet";
  const extra = [node.cut ? "cut off" : "", node.tt_hit !== null ? "table hit" : "",
    item.collapsed ? `${item.hiddenCount} nodes folded` : ""].filter(Boolean).join(", ");
  return `Node ${node.id + 1}, ${move}, ${who}, ${value}${extra ? `, ${extra}` : ""}`;
}

/**
 * @param {any} item
 * @param {OnSelect} onSelect
 */
function makeNode(item, onSelect) {
  const g = svg("g", { class: "tree-node", role: "button", tabindex: "-1" });
  g.append(svg("title"), svg("path", { class: "shape" })); // the title: the whole label on hover
  const move = svg("text", { class: "move-text", y: "-20" });
  const value = svg("text", { class: "value-text", y: "30" });
  const side = svg("text", { class: "side-text", y: "4" });
  const badge = svg("text", { class: "badge-text", x: "19", y: "-4" });
  const folded = svg("text", { class: "folded-text", y: "46" });
  g.append(move, side, value, badge, folded);
  g.addEventListener("click", () => onSelect(item.id, { toggle: true }));
  g.addEventListener("mouseenter", () => onSelect(item.id, { hover: true }));
  g.addEventListener("focus", () => onSelect(item.id, { hover: true }));
  return g;
}

/**
 * @param {SVGElement} g
 * @param {any} item
 * @param {TreeScene} scene
 */
function updateNode(g, item, scene) {
  const node = scene.tree.nodes[item.id];
  const known = node.size > 0 && node.id + node.size - 1 <= scene.step;
  const max = isMax(node);
  g.setAttribute("transform", `translate(${item.x} ${item.y})`);
  g.dataset.id = String(node.id);
  const classes = ["tree-node", max ? "max" : "min", known ? "known" : "open"];
  if (node.id === scene.current) classes.push("current");
  if (node.id === scene.selected) classes.push("selected");
  if (known && node.cut) classes.push("cut");
  if (node.tt_hit !== null) classes.push("hit");
  if (node.line) classes.push("line-check");
  if (scene.best.has(node.id)) classes.push("best");
  if (scene.skipped && scene.skipped.has(node.id)) classes.push("skipped");
  if (item.collapsed) classes.push("collapsed");
  g.setAttribute("class", classes.join(" "));
  g.setAttribute("tabindex", node.id === scene.selected ? "0" : "-1");
  g.setAttribute("aria-label", nodeLabel(node, item, scene));
  if (item.collapsed || node.kids.length) g.setAttribute("aria-expanded", String(!item.collapsed));
  else g.removeAttribute("aria-expanded");
  const [title, shape, move, side, value, badge, folded] = g.children;
  title.textContent = g.getAttribute("aria-label");
  shape.setAttribute("d", max ? MAX_SHAPE : MIN_SHAPE);
  move.textContent = node.move === null ? "" : node.move;
  side.textContent = max ? "+" : "\u2212";
  // Abbreviated to fit its column (labels never overlap); the title and the details say it whole.
  value.textContent = known ? shortValue(node.value, node.bound) : "?";
  badge.textContent = node.tt_hit !== null ? "TT" : known && node.cut ? "\u2702" : "";
  folded.textContent = item.collapsed ? `+${item.hiddenCount}` : "";
}

/** A pruned move's small leaf. @param {any} item */
function makeStub(item) {
  const g = svg("g", { class: "tree-stub", "aria-hidden": "true" });
  g.append(svg("circle", { r: "5" }));
  const text = svg("text", { y: "-12" });
  text.textContent = item.move;
  g.append(text);
  g.setAttribute("transform", `translate(${item.x} ${item.y})`);
  return g;
}
