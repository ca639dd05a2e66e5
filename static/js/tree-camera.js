// The search-tree view's camera: where the drawing sits in its box and at
// what scale (zoom about a point, bring a node into view, fit it all).

import { COLUMN } from "./tree-layout.js";
import { MARGIN } from "./tree-render.js";

/** @typedef {import("./tree-render.js").TreeViewState} TreeViewState */

/** Put the stage where the camera says. @param {TreeViewState} state */
export function applyCamera(state) {
  const { x, y, k } = state.camera;
  state.stage.style.transform = `translate(${x}px, ${y}px) scale(${k})`;
}

/**
 * Zoom by `factor` keeping the screen point (clientX, clientY) still.
 * @param {TreeViewState} state
 * @param {number} factor
 * @param {number} clientX
 * @param {number} clientY
 */
export function zoomAt(state, factor, clientX, clientY) {
  const view = state.camera;
  const box = state.root.getBoundingClientRect();
  const px = clientX - box.left;
  const py = clientY - box.top;
  const k = Math.min(3, Math.max(0.08, view.k * factor));
  view.x = px - ((px - view.x) * k) / view.k;
  view.y = py - ((py - view.y) * k) / view.k;
  view.k = k;
  view.moved = true; // the reader's zoom: following a node keeps it
  applyCamera(state);
}

/** Zoom about the box's centre. @param {TreeViewState} state @param {number} factor */
export function zoomBy(state, factor) {
  const box = state.root.getBoundingClientRect();
  zoomAt(state, factor, box.left + box.width / 2, box.top + box.height / 2);
}

/**
 * Bring node `id` into view if it is not (`force`: centre it anyway; `keepRoot`: the
 * drawing's root too, whenever both fit across the box at the zoom).
 * @param {TreeViewState} state
 * @param {number} id
 * @param {boolean} [force]
 * @param {boolean} [keepRoot]
 */
export function centerOn(state, id, force = false, keepRoot = false) {
  const view = state.camera;
  const item = state.byId.get(id);
  if (!item) return;
  const box = state.root.getBoundingClientRect();
  const rootItem = state.scene ? state.scene.layout.items[0] : item; // the layout places the root first
  const across = (/** @type {any} */ at) => { const sx = view.x + at.x * view.k; return sx > MARGIN && sx < box.width - MARGIN; };
  const sy = view.y + item.y * view.k;
  const inside = across(item) && sy > MARGIN / 2 && sy < box.height - MARGIN;
  const rootFits = keepRoot && Math.abs(item.x - rootItem.x) * view.k <= box.width - 2 * MARGIN;
  if (inside && !force && (!rootFits || across(rootItem))) return;
  // Keep the rows from the root down to the node in view: zoom out as far as labels stay
  // readable, then keep the top row in view if the node is then in view too; else the
  // node a third of the way down.
  const height = state.scene ? state.scene.layout.height : Infinity; // a row below the last: its labels
  const fits = (box.height - MARGIN) / height;
  if (fits < view.k && fits >= smallestZoom(box)) view.k = fits;
  const top = MARGIN / 2 + 4;
  // Across: the root and the node both, centred, when they fit at this zoom (a pane that
  // follows keeps its root in view); else the node at the centre.
  const spanFits = keepRoot && Math.abs(item.x - rootItem.x) * view.k <= box.width - 2 * MARGIN;
  view.x = box.width / 2 - (spanFits ? (item.x + rootItem.x) / 2 : item.x) * view.k;
  view.y = top + item.y * view.k <= box.height - MARGIN
    ? top
    : Math.min(box.height / 3, box.height - MARGIN) - item.y * view.k;
  applyCamera(state);
}

/** The least zoom for a box: below it labels are unreadable (pan instead). @param {DOMRect} box */
function smallestZoom(box) {
  return box.width < 600 ? 0.75 : 0.35;
}

/** The zoom that shows the whole drawing in the box (never above natural size). */
function fittingZoom(/** @type {TreeViewState} */ state, /** @type {DOMRect} */ box) {
  const { width, height } = state.scene ? state.scene.layout : { width: 0, height: 0 };
  return Math.min(1, (box.width - MARGIN * 1.5) / (width + COLUMN), (box.height - MARGIN) / (height + 20));
}

/**
 * Keep node `id` in view the way a pane beside another does: the whole drawing while it
 * fits at a readable zoom (both panes read at a glance), else the least readable zoom
 * around `id` (pan for the rest), the root too when both fit across. A finished search
 * (`done`) is shown from its root, as Fit does: its result, not its last visit. A camera
 * the reader moved is only panned.
 * @param {TreeViewState} state
 * @param {number} id
 * @param {boolean} [done]
 */
export function follow(state, id, done = false) {
  const box = state.root.getBoundingClientRect();
  if (state.camera.moved) centerOn(state, id);
  else if (done || fittingZoom(state, box) >= smallestZoom(box)) fitAll(state);
  else {
    const k = smallestZoom(box);
    const zoomed = k !== state.camera.k;
    state.camera.k = k;
    centerOn(state, id, zoomed, true); // a new zoom moves every node: place this one again
  }
}

/** Scale the whole drawing into the box (never above natural size). @param {TreeViewState} state */
export function fitAll(state) {
  if (!state.scene) return;
  const view = state.camera;
  const box = state.root.getBoundingClientRect();
  const { width } = state.scene.layout;
  const k = fittingZoom(state, box);
  view.k = Math.max(smallestZoom(box), k);
  view.moved = false;
  view.x = MARGIN + COLUMN * view.k + Math.max(0, (box.width - MARGIN * 1.5 - (width + COLUMN) * view.k) / 2);
  view.y = MARGIN / 2 + 4;
  applyCamera(state);
}
