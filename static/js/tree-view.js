// The search-tree component: an SVG drawing of a laid-out tree that pans and
// zooms (drag, pinch, wheel, buttons, keys) and is operable from the keyboard.
//
// API: createTreeView(host, {label, onSelect, onToggle}) returns
//   {draw(scene), center(id), fit(), zoomBy(factor), element}.
// scene: {tree, layout, step, current, selected, best: Set, skipped: Set|null,
//         minimax, moveNoun}. The view holds no search state: the page
// decides what is shown and calls draw again.

import { isMax, valueText } from "./tree-model.js";
import { COLUMN, ROW } from "./tree-layout.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const MAX_SHAPE = "M0 -15L15 11H-15Z"; // pointing up: Max picks the largest value
const MIN_SHAPE = "M0 15L15 -11H-15Z"; // pointing down: Min picks the smallest
const MARGIN = 60;

function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  return node;
}

export function createTreeView(host, { label, onSelect, onToggle }) {
  const root = svg("svg", { class: "tree-svg", role: "group", "aria-label": label, tabindex: "-1" });
  const stage = svg("g", { class: "tree-stage" });
  const levels = svg("g", { class: "tree-levels", "aria-hidden": "true" });
  const edgeLayer = svg("g", { class: "tree-edges", "aria-hidden": "true" });
  const nodeLayer = svg("g", { class: "tree-nodes" });
  stage.append(levels, edgeLayer, nodeLayer);
  root.append(stage);
  host.replaceChildren(root);

  const view = { k: 1, x: MARGIN, y: MARGIN / 2 };
  const nodeEls = new Map();
  const edgeEls = new Map();
  let scene = null;
  let byId = new Map(); // drawn node id -> layout item

  function applyView() {
    stage.style.transform = `translate(${view.x}px, ${view.y}px) scale(${view.k})`;
  }

  function nodeLabel(node, item) {
    const who = isMax(node) ? "Max" : "Min";
    const move = node.move === null ? "the root position" : `${scene.moveNoun} ${node.move}`;
    const known = node.id + Math.max(node.size, 1) - 1 <= scene.step;
    const value = known ? `value ${valueText(node.value, node.bound)}` : "value not known yet";
    const extra = [node.cut ? "cut off" : "", node.tt_hit !== null ? "table hit" : "",
      item.collapsed ? `${item.hiddenCount} nodes folded` : ""].filter(Boolean).join(", ");
    return `Node ${node.id + 1}, ${move}, ${who} to move, ${value}${extra ? `, ${extra}` : ""}`;
  }

  function makeNode(item) {
    const g = svg("g", { class: "tree-node", role: "button", tabindex: "-1" });
    g.append(svg("path", { class: "shape" }));
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

  function updateNode(g, item) {
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
    g.setAttribute("aria-label", nodeLabel(node, item));
    if (item.collapsed || node.kids.length) g.setAttribute("aria-expanded", String(!item.collapsed));
    else g.removeAttribute("aria-expanded");
    const [shape, move, side, value, badge, folded] = g.children;
    shape.setAttribute("d", max ? MAX_SHAPE : MIN_SHAPE);
    move.textContent = node.move === null ? "" : node.move;
    side.textContent = max ? "+" : "\u2212";
    value.textContent = known ? valueText(node.value, node.bound) : "?";
    badge.textContent = node.tt_hit !== null ? "TT" : known && node.cut ? "\u2702" : "";
    folded.textContent = item.collapsed ? `+${item.hiddenCount}` : "";
  }

  function makeStub(item) {
    const g = svg("g", { class: "tree-stub", "aria-hidden": "true" });
    g.append(svg("circle", { r: "5" }));
    const text = svg("text", { y: "-12" });
    text.textContent = item.move;
    g.append(text);
    g.setAttribute("transform", `translate(${item.x} ${item.y})`);
    return g;
  }

  function draw(next) {
    scene = next;
    const { items, edges, height } = scene.layout;
    byId = new Map();
    const seenNodes = new Set();
    for (const item of items) {
      seenNodes.add(item.key);
      let el = nodeEls.get(item.key);
      if (!el) {
        el = item.stub ? makeStub(item) : makeNode(item);
        nodeEls.set(item.key, el);
        nodeLayer.append(el); // never moved after: a move would drop focus (tab order = visit order)
      }
      if (item.stub) el.setAttribute("transform", `translate(${item.x} ${item.y})`);
      else {
        byId.set(item.id, item);
        updateNode(el, item);
      }
    }
    for (const [key, el] of nodeEls) if (!seenNodes.has(key)) { el.remove(); nodeEls.delete(key); }
    const seenEdges = new Set();
    for (const edge of edges) {
      seenEdges.add(edge.key);
      let el = edgeEls.get(edge.key);
      if (!el) {
        el = svg("line");
        edgeEls.set(edge.key, el);
        edgeLayer.append(el);
      }
      el.setAttribute("x1", edge.from.x);
      el.setAttribute("y1", edge.from.y + 12);
      el.setAttribute("x2", edge.to.x);
      el.setAttribute("y2", edge.to.y - (edge.stub ? 5 : 16));
      const best = !edge.stub && scene.best.has(edge.from.id) && scene.best.has(edge.to.id);
      el.setAttribute("class", edge.stub ? "edge pruned" : best ? "edge best" : "edge");
    }
    for (const [key, el] of edgeEls) if (!seenEdges.has(key)) { el.remove(); edgeEls.delete(key); }
    drawLevels(height);
  }

  function drawLevels(height) {
    const rows = Math.round(height / ROW);
    if (levels.childElementCount === rows) return;
    levels.replaceChildren();
    for (let depth = 0; depth < rows; depth += 1) {
      const text = svg("text", { x: String(-COLUMN), y: String(depth * ROW + 4), class: depth % 2 ? "min" : "max" });
      text.textContent = depth % 2 ? "MIN" : "MAX";
      levels.append(text);
    }
  }

  // -- pan and zoom: drag, two-finger pinch, the wheel, and the page's buttons --
  const pointers = new Map();
  let pinch = null;
  root.addEventListener("pointerdown", (event) => {
    if (event.target.closest(".tree-node")) return;
    root.setPointerCapture(event.pointerId);
    pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    root.classList.add("dragging");
  });
  root.addEventListener("pointermove", (event) => {
    const last = pointers.get(event.pointerId);
    if (!last) return;
    const now = { x: event.clientX, y: event.clientY };
    pointers.set(event.pointerId, now);
    if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      const distance = Math.hypot(a.x - b.x, a.y - b.y);
      if (pinch) zoomAt(distance / pinch, (a.x + b.x) / 2, (a.y + b.y) / 2);
      pinch = distance;
      return;
    }
    view.x += now.x - last.x;
    view.y += now.y - last.y;
    applyView();
  });
  const release = (event) => {
    pointers.delete(event.pointerId);
    pinch = null;
    if (!pointers.size) root.classList.remove("dragging");
  };
  root.addEventListener("pointerup", release);
  root.addEventListener("pointercancel", release);
  root.addEventListener("wheel", (event) => {
    event.preventDefault();
    zoomAt(Math.exp(-event.deltaY / 400), event.clientX, event.clientY);
  }, { passive: false });

  function zoomAt(factor, clientX, clientY) {
    const box = root.getBoundingClientRect();
    const px = clientX - box.left;
    const py = clientY - box.top;
    const k = Math.min(3, Math.max(0.08, view.k * factor));
    view.x = px - ((px - view.x) * k) / view.k;
    view.y = py - ((py - view.y) * k) / view.k;
    view.k = k;
    applyView();
  }

  function zoomBy(factor) {
    const box = root.getBoundingClientRect();
    zoomAt(factor, box.left + box.width / 2, box.top + box.height / 2);
  }

  /** Bring node `id` into view if it is not (`force`: centre it anyway). */
  function center(id, force = false) {
    const item = byId.get(id);
    if (!item) return;
    const box = root.getBoundingClientRect();
    const sx = view.x + item.x * view.k;
    const sy = view.y + item.y * view.k;
    const inside = sx > MARGIN && sx < box.width - MARGIN && sy > MARGIN / 2 && sy < box.height - MARGIN;
    if (inside && !force) return;
    view.x = box.width / 2 - item.x * view.k;
    view.y = Math.min(box.height / 3, box.height - MARGIN) - item.y * view.k;
    applyView();
  }

  /** Scale the whole drawing into the box (never above natural size). */
  function fit() {
    if (!scene) return;
    const box = root.getBoundingClientRect();
    const { width, height } = scene.layout;
    const k = Math.min(1, (box.width - MARGIN * 1.5) / (width + COLUMN), (box.height - MARGIN) / (height + 20));
    const smallest = box.width < 600 ? 0.75 : 0.4; // below this labels are unreadable: pan instead
    view.k = Math.max(smallest, k);
    view.x = MARGIN + COLUMN * view.k + Math.max(0, (box.width - MARGIN * 1.5 - (width + COLUMN) * view.k) / 2);
    view.y = MARGIN / 2 + 4;
    applyView();
  }

  // -- the keyboard: arrows walk the drawn tree, Enter/Space folds, +/- zoom --
  root.addEventListener("keydown", (event) => {
    if (!scene) return;
    const item = byId.get(scene.selected);
    const node = item && scene.tree.nodes[item.id];
    const drawnKids = (n) => n.kids.filter((k) => byId.has(k));
    const siblings = node && node.parent !== null ? drawnKids(scene.tree.nodes[node.parent]) : [];
    let target = null;
    switch (event.key) {
      case "ArrowUp": target = node && node.parent; break;
      case "ArrowDown": target = node && drawnKids(node)[0]; break;
      case "ArrowLeft": target = siblings[siblings.indexOf(node?.id) - 1]; break;
      case "ArrowRight": target = siblings[siblings.indexOf(node?.id) + 1]; break;
      case "Enter": case " ": if (node) onToggle(node.id); break;
      case "+": case "=": zoomBy(1.25); break;
      case "-": zoomBy(0.8); break;
      default: return;
    }
    event.preventDefault();
    if (target !== null && target !== undefined && byId.has(target)) {
      onSelect(target, { keyboard: true });
      nodeEls.get(`n${target}`)?.focus();
      center(target);
    }
  });

  applyView();
  return { draw, center, fit, zoomBy, element: root, focusSelected: () => scene && nodeEls.get(`n${scene.selected}`)?.focus() };
}
