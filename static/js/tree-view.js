// The search-tree component: an SVG drawing of a laid-out tree that pans and
// zooms (drag, pinch, wheel, buttons, keys) and is operable from the keyboard.
// Split the way chessground splits a board: the state and its drawing
// (tree-render.js), the camera (tree-camera.js), the input (tree-events.js);
// this module puts them together behind a small API.
//
// API: createTreeView(host, {label, onSelect, onToggle}) returns
//   {draw(scene), center(id), follow(id, done), fit(), zoomBy(factor), element, focusSelected()}.
// scene: {tree, layout, step, current, selected, best: Set, skipped: Set|null,
//         moveNoun}. The view holds no search state: the page
// decides what is shown and calls draw again.

import { applyCamera, centerOn, fitAll, follow, zoomBy } from "./tree-camera.js";
import { bindPanZoom, bindTreeKeys } from "./tree-events.js";
import { createTreeState, drawScene } from "./tree-render.js";

/**
 * Mount a tree view in `host`.
 * @param {HTMLElement} host
 * @param {{label: string, onSelect: import("./tree-render.js").OnSelect, onToggle: (id: number) => void}} options
 */
export function createTreeView(host, { label, onSelect, onToggle }) {
  const state = createTreeState(host, label);
  bindPanZoom(state);
  bindTreeKeys(state, { onSelect, onToggle });
  applyCamera(state);
  return {
    draw: (/** @type {import("./tree-render.js").TreeScene} */ scene) => drawScene(state, scene, onSelect),
    center: (/** @type {number} */ id, force = false) => centerOn(state, id, force),
    follow: (/** @type {number} */ id, done = false) => follow(state, id, done),
    fit: () => fitAll(state),
    zoomBy: (/** @type {number} */ factor) => zoomBy(state, factor),
    element: state.root,
    focusSelected: () => state.scene && state.nodeEls.get(`n${state.scene.selected}`)?.focus(),
  };
}
