// The search-tree view's input: drag and two-finger pinch to pan and zoom,
// the wheel to zoom, and the keyboard (arrows walk the drawn tree,
// Enter/Space folds a node, +/- zoom).

import { applyCamera, centerOn, zoomAt, zoomBy } from "./tree-camera.js";

/** @typedef {import("./tree-render.js").TreeViewState} TreeViewState */
/** @typedef {import("./tree-render.js").OnSelect} OnSelect */

/** Pan with one pointer, pinch-zoom with two, zoom with the wheel. @param {TreeViewState} state */
export function bindPanZoom(state) {
  const { root, camera } = state;
  /** @type {Map<number, {x: number, y: number}>} */
  const pointers = new Map();
  /** @type {number | null} */
  let pinch = null;
  root.addEventListener("pointerdown", (event) => {
    if (/** @type {Element} */ (event.target).closest(".tree-node")) return;
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
      if (pinch) zoomAt(state, distance / pinch, (a.x + b.x) / 2, (a.y + b.y) / 2);
      pinch = distance;
      return;
    }
    camera.x += now.x - last.x;
    camera.y += now.y - last.y;
    camera.moved = true;
    applyCamera(state);
  });
  const release = (/** @type {PointerEvent} */ event) => {
    pointers.delete(event.pointerId);
    pinch = null;
    if (!pointers.size) root.classList.remove("dragging");
  };
  root.addEventListener("pointerup", release);
  root.addEventListener("pointercancel", release);
  root.addEventListener("wheel", (event) => {
    event.preventDefault();
    zoomAt(state, Math.exp(-event.deltaY / 400), event.clientX, event.clientY);
  }, { passive: false });
}

/**
 * Walk, fold and zoom from the keyboard.
 * @param {TreeViewState} state
 * @param {{onSelect: OnSelect, onToggle: (id: number) => void}} handlers
 */
export function bindTreeKeys(state, { onSelect, onToggle }) {
  state.root.addEventListener("keydown", (event) => {
    const { scene, byId } = state;
    if (!scene) return;
    const item = scene.selected === null ? undefined : byId.get(scene.selected);
    const node = item && scene.tree.nodes[item.id];
    const drawnKids = (/** @type {any} */ n) => n.kids.filter((/** @type {number} */ k) => byId.has(k));
    const siblings = node && node.parent !== null ? drawnKids(scene.tree.nodes[node.parent]) : [];
    /** @type {number | null | undefined} */
    let target = null;
    switch (event.key) {
      case "ArrowUp": target = node && node.parent; break;
      case "ArrowDown": target = node && drawnKids(node)[0]; break;
      case "ArrowLeft": target = siblings[siblings.indexOf(node?.id) - 1]; break;
      case "ArrowRight": target = siblings[siblings.indexOf(node?.id) + 1]; break;
      case "Enter": case " ": if (node) onToggle(node.id); break;
      case "+": case "=": zoomBy(state, 1.25); break;
      case "-": zoomBy(state, 0.8); break;
      default: return;
    }
    event.preventDefault();
    if (target !== null && target !== undefined && byId.has(target)) {
      onSelect(target, { keyboard: true });
      state.nodeEls.get(`n${target}`)?.focus();
      centerOn(state, target);
    }
  });
}
