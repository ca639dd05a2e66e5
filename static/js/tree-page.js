// The search-tree explorer page (/tree): fetch the traced search, step
// through it in visit order, explain each node, compare the algorithms.
//
// The step is the id of the last node visited: everything up to it is drawn,
// values appear as their subtrees finish, and finished subtrees fold into a
// count unless the whole iteration is small (or the reader opens them).
// Side by side, one clock drives both panes: at clock t each pane shows its
// own search's first t + 1 nodes (a node of each per step), and the clock runs
// until the larger search is done.

import { boardView, createBoard } from "./board-view.js";
import { readJSON } from "./config.js";
import { count, describeScore } from "./format.js";
import { gameInfo } from "./rules.js";
import { layoutTree } from "./tree-layout.js";
import * as M from "./tree-model.js";
import { createTreeView } from "./tree-view.js";

/** Iterations with at most this many nodes are drawn whole. */
const SMALL_TREE = 90;
const SPEEDS = [1, 3, 10, 30, 100, 300];

const request = readJSON("tree-request");
const limits = readJSON("tree-limits");
const info = gameInfo(request.game);
/** The page's element `id` (the template decides its kind: input, button, link...). */
const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

/** @typedef {import("./tree-model.js").Tree} Tree */

const state = {
  tree: /** @type {Tree} */ (/** @type {unknown} */ (null)), // loaded by start() before anything is drawn
  clock: 0, // the shared step: both panes show their nodes up to it
  step: 0, // the main tree's step: the clock, or its last node once it is done
  selected: 0,
  userOpen: new Set(),
  userClosed: new Set(),
  playing: false,
  speed: 10,
  skipped: /** @type {Set<number> | null} */ (null),
  other: /** @type {{tree: Tree, skipped: Set<number> | null, label: string} | null} */ (null), // the compared tree (side by side)
};

/** The clock's last step: the end of the longer search when two are side by side. */
function lastStep() {
  const other = state.other ? state.other.tree.nodes.length : 0;
  return Math.max(state.tree.nodes.length, other) - 1;
}

/** The page's own URL with a larger node limit (and `hash`, e.g. "#compare" to compare at once). */
function largerSearch(hash = "") {
  const query = new URLSearchParams(location.search);
  query.set("limit", String(limits.max));
  return `${location.pathname}?${query}${hash}`;
}

const view = createTreeView($("tree-main"), {
  label: "The search tree, in the order the engine visited it",
  onSelect: (id, how) => select(id, how),
  onToggle: (id) => toggle(id),
});
const board = createBoard($("tree-board"), request.game, () => {});

async function fetchTree(params) {
  const query = new URLSearchParams({ ...request, ...params });
  for (const key of ["moves"]) if (!query.get(key)) query.delete(key);
  const response = await fetch(`/api/tree?${query}`);
  const body = await response.json();
  if (!response.ok) throw new Error(body.error?.message || "The tree could not be loaded.");
  return M.buildTree(body);
}

// -- what is shown at a step ------------------------------------------------------------------
function currentRoot(tree, step) {
  return M.rootOf(tree, Math.min(step, tree.nodes.length - 1));
}

function openRule(tree, step, path, small) {
  return (node) => {
    if (state.userClosed.has(node.id)) return false;
    if (state.userOpen.has(node.id) || small) return true;
    return node.parent === null || path.has(node.id);
  };
}

function scene(tree, step, { forMain }) {
  const rootId = currentRoot(tree, step);
  const shown = (node) => node.id <= step;
  const path = new Set(M.pathTo(tree, Math.min(step, tree.nodes.length - 1)));
  if (forMain) for (const id of M.pathTo(tree, state.selected)) path.add(id);
  const root = tree.nodes[rootId];
  const small = M.doneAt(root) <= tree.nodes.length && root.total <= SMALL_TREE;
  const open = forMain ? openRule(tree, step, path, small) : (node) =>
    !otherClosed.has(node.id) && (otherOpen.has(node.id) || small || node.parent === null || path.has(node.id));
  const pruned = (node) => (node.cut && M.doneAt(node) <= step ? node.pruned : []);
  const layout = layoutTree(tree, rootId, { shown, open, pruned });
  const finished = step >= tree.nodes.length - 1 && !tree.truncated;
  const last = tree.roots[tree.roots.length - 1];
  let best = new Set();
  if (finished && rootId === last) best = new Set(M.bestLine(tree, rootId, tree.pv));
  else if (M.doneAt(root) <= step) best = new Set(valueLine(tree, rootId));
  return { rootId, layout, best };
}

/** An earlier iteration's best line: children whose value is their parent's, exact. */
function valueLine(tree, rootId) {
  const line = [rootId];
  let node = tree.nodes[rootId];
  for (;;) {
    const next = node.kids.map((k) => tree.nodes[k]).find((k) => !k.line && k.exact && k.value === node.value);
    if (!next) return line;
    line.push(next.id);
    node = next;
  }
}

// -- drawing ----------------------------------------------------------------------------------
let lastRoot = null;

function render({ follow = true } = {}) {
  const { tree, step } = state;
  const drawn = scene(tree, step, { forMain: true });
  view.draw({
    tree, layout: drawn.layout, step, current: step, selected: state.selected,
    best: drawn.best, skipped: state.skipped, moveNoun: info.moveNoun,
  });
  if (drawn.rootId !== lastRoot) {
    lastRoot = drawn.rootId;
    view.fit(); // a new iteration: its tree from the top
  }
  if (follow) {
    if (state.other) view.follow(step, step >= tree.nodes.length - 1); // beside another pane: the whole tree while it fits, from its root once done
    else view.center(step);
  }
  renderOther({ follow });
  renderCounts(drawn.rootId);
  renderIterations(drawn.rootId);
  detailsSoon();
}

/** The details (and their board) at most every DETAILS_MS while stepping fast, then once more. */
const DETAILS_MS = 120;
let detailsTimer = null;
let detailsAt = 0;
function detailsSoon() {
  const wait = detailsAt + DETAILS_MS - performance.now();
  if (wait <= 0) {
    detailsAt = performance.now();
    renderDetails(state.selected);
  } else if (detailsTimer === null) {
    detailsTimer = setTimeout(() => {
      detailsTimer = null;
      detailsAt = performance.now();
      renderDetails(state.selected);
    }, wait);
  }
}

function renderCounts(rootId) {
  const { tree, step, clock, selected } = state;
  // The step counts the clock; the node the details show is named when it is another one
  // (after "Next cut-off", the cut node, whose search ended at this step).
  const shown = selected !== step ? ` \u00b7 showing node ${count(selected + 1)}` : "";
  $("step-text").textContent = `Step ${count(clock + 1)} of ${count(lastStep() + 1)}${shown}`;
  $("count-visited").textContent = count(step + 1);
  $("count-cuts").textContent = count(M.countUpTo(tree.cutSteps, step));
  $("count-hits").textContent = count(M.countUpTo(tree.hitSteps, step));
  $("count-iteration").textContent = `${tree.nodes[rootId].iteration}`;
  $("tree-passes").textContent = `Nodes: ${M.passWords(tree.iterations, tree.node_count ?? tree.nodes.length, count)}.`;
  if (state.other) $("tree-main-counts").textContent = paneCounts(tree, step);
  $("step-back").disabled = $("step-start").disabled = clock === 0;
  const atEnd = clock >= lastStep();
  $("step-next").disabled = $("step-end").disabled = atEnd;
  $("step-cut").disabled = M.nextCut(tree, step) === null;
  if (atEnd && state.playing) setPlaying(false);
}

function renderIterations(rootId) {
  const list = $("iterations");
  const { tree } = state;
  if (list.childElementCount !== tree.roots.length) {
    list.replaceChildren(...tree.roots.map((id) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "button button-small iteration";
      button.dataset.root = String(id);
      const root = tree.nodes[id];
      button.textContent = `Depth ${root.iteration} · ${count(root.total)}`;
      button.addEventListener("click", () => goTo(Math.min(M.doneAt(root), tree.nodes.length - 1)));
      return button;
    }));
  }
  for (const button of list.children) {
    button.setAttribute("aria-pressed", String(Number(button.dataset.root) === rootId));
  }
}

function renderDetails(id, preview = false) {
  const { tree, step } = state;
  const node = tree.nodes[id];
  const known = M.doneAt(node) <= step;
  const moves = M.movesTo(tree, id);
  const players = [info.players[request.moves.length % 2], info.players[(request.moves.length + 1) % 2]];
  $("detail-title").textContent = node.parent === null
    ? `Node ${id + 1}: the root, iteration ${node.iteration}`
    : `Node ${id + 1}: after ${info.moveNoun}${moves.length > 1 ? "s" : ""} ${moves.split("").join(" ")}`;
  const rows = [
    ["To move", M.sideToMoveWords(node, players)],
    ["Value", known ? `${M.valueText(node.value, node.bound)}: ${boundWords(node)}${M.valueWords(node.value)}` : "not known yet (its search is not finished)"],
  ];
  if (tree.algorithm === "alphabeta") rows.push(["Window", `${M.windowText(node)}${windowWords(node)}`]);
  rows.push(["What happened", known || node.kind !== "open" ? M.kindWords(tree, node) : "being searched"]);
  if (known && node.cut) rows.push(["Cut-off", M.cutReason(node, info.moveNoun) ?? ""]); // a cut node has its reason
  if (node.line) rows.push(["Line check", "searched again after the iteration, to confirm the best line move by move"]);
  $("detail-list").replaceChildren(...rows.flatMap(([term, text]) => {
    const dt = document.createElement("dt");
    dt.textContent = term;
    const dd = document.createElement("dd");
    dd.textContent = text;
    return [dt, dd];
  }));
  const reused = $("detail-reused");
  reused.hidden = node.tt_hit === null;
  if (node.tt_hit !== null) {
    reused.textContent = `Show node ${node.tt_hit + 1}, whose result this hit reused`;
    reused.dataset.target = String(node.tt_hit);
  }
  $("detail").classList.toggle("previewing", preview);
  board.set(boardView({ game: request.game, moves: request.moves + moves, interactive: false }));
}

function boundWords(node) {
  if (node.bound === "lower") return "at least this (a lower bound), ";
  if (node.bound === "upper") return "at most this (an upper bound), ";
  return "";
}

function windowWords(node) {
  if (node.alpha === null && node.beta === null) return ": nothing is known yet from elsewhere";
  const parts = [];
  if (node.alpha !== null) parts.push(`Max already has ${M.valueText(node.alpha)} elsewhere`);
  if (node.beta !== null) parts.push(`Min already holds Max to ${M.valueText(node.beta)} elsewhere`);
  return `: ${parts.join("; ")}`;
}

// -- stepping ---------------------------------------------------------------------------------
function goTo(/** @type {number} */ step, /** @type {{follow?: boolean, select?: number | null}} */ { follow = true, select = null } = {}) {
  const { tree } = state;
  state.clock = Math.max(0, Math.min(step, lastStep()));
  state.step = Math.min(state.clock, tree.nodes.length - 1);
  state.selected = select ?? state.step;
  render({ follow });
  if (!state.playing) announce();
}

/** Say the node the details show (after "Next cut-off", the cut node, not the step's). */
function announce() {
  const node = state.tree.nodes[state.selected];
  const mover = node.kind === "terminal" ? "game over" : `${M.isMax(node) ? "Max" : "Min"} to move`;
  const words = node.parent === null ? `Node ${node.id + 1}: iteration to depth ${node.iteration} starts.`
    : `Node ${node.id + 1}: ${info.moveNoun} ${node.move}, ${mover}${node.cut && M.doneAt(node) <= state.step ? ", a cut-off" : ""}.`;
  $("announcer").textContent = state.selected === state.clock ? words : `Step ${count(state.clock + 1)}, showing ${words}`;
}

let frame = null;
function setPlaying(on) {
  state.playing = on;
  $("play").textContent = on ? "Pause" : "Play";
  $("play").setAttribute("aria-pressed", String(on));
  if (frame !== null) cancelAnimationFrame(frame);
  frame = null;
  if (!on) { announce(); return; }
  let last = performance.now();
  let owed = 0;
  const tick = (now) => {
    owed += ((now - last) / 1000) * state.speed;
    last = now;
    if (owed >= 1) {
      const steps = Math.floor(owed);
      owed -= steps;
      goTo(state.clock + steps);
    }
    if (state.playing) frame = requestAnimationFrame(tick);
  };
  frame = requestAnimationFrame(tick);
}

function select(id, how = {}) {
  if (how.hover) { renderDetails(id, true); return; }
  state.selected = id;
  if (how.toggle) toggle(id);
  else render({ follow: false });
}

function toggle(id) {
  const node = state.tree.nodes[id];
  const item = [.../** @type {NodeListOf<SVGElement>} */ (document.querySelectorAll("#tree-main .tree-node"))].find((g) => g.dataset.id === String(id));
  const isOpen = item && item.getAttribute("aria-expanded") === "true";
  state.selected = id;
  if (isOpen) { state.userOpen.delete(id); state.userClosed.add(id); }
  else { state.userClosed.delete(id); state.userOpen.add(id); }
  if (!node.kids.length) state.userOpen.delete(id);
  render({ follow: false });
}

// -- comparing --------------------------------------------------------------------------------
const otherOpen = new Set();
const otherClosed = new Set();
let otherView = null;

const VARIANTS = [
  { algorithm: "minimax", ordering: "engine", label: "Minimax" },
  { algorithm: "alphabeta", ordering: "engine", label: "Alpha-beta, engine’s order" },
  { algorithm: "alphabeta", ordering: "natural", label: "Alpha-beta, natural order" },
];

/** A compared search's row: its label, last pass, all passes, value, move. */
function compareRow(/** @type {string} */ label, /** @type {Tree} */ t) {
  const passes = t.iterations ?? [];
  const last = passes[passes.length - 1];
  const done = M.lastComplete(passes);
  // Stopped at the limit: the value and move are a shallower iteration's, if any, and say so.
  const partial = t.truncated && done ? ` (depth ${done.depth})` : "";
  const lastPass = last ? `${count(last.nodes)}${last.complete ? "" : "+"} (depth ${last.depth})` : "–";
  const cells = [label, lastPass, count(t.node_count ?? t.nodes.length) + (t.truncated ? "+ (limit)" : ""),
    t.root_value === null || t.root_value === undefined ? "–" : M.valueText(t.root_value, "exact") + partial, t.best_move ?? "–"];
  const tr = document.createElement("tr");
  cells.forEach((text, j) => {
    const cell = document.createElement(j === 0 ? "th" : "td");
    if (j === 0) cell.scope = "row";
    if (j === 1 || j === 2) cell.className = "num";
    cell.textContent = text;
    tr.append(cell);
  });
  return tr;
}

/** The lesson in one line: "depth 7 pass: 420; all 7 iterations with table hits: 1,314; minimax depth 7: 7,332". */
function lessonWords(/** @type {Tree} */ alphabeta, /** @type {Tree} */ minimax) {
  const mm = (minimax.iterations ?? [])[0];
  const mmWords = mm ? `minimax depth ${mm.depth}${mm.complete ? "" : " (stopped at the limit)"}: ${count(mm.nodes)}${mm.complete ? "" : "+"}` : "";
  return `Alpha-beta ${M.passWords(alphabeta.iterations, alphabeta.node_count ?? alphabeta.nodes.length, count)}; ${mmWords}.`;
}

async function compare() {
  const button = $("compare-button");
  button.disabled = true;
  $("compare-raise").hidden = true;
  $("compare-status").textContent = "Searching the same position three ways…";
  try {
    const trees = [];
    for (const v of VARIANTS) trees.push(await fetchTree({ algorithm: v.algorithm, ordering: v.ordering }));
    const [minimax, engine] = trees;
    const reached = new Set();
    for (const root of engine.roots) for (const line of M.visitedLines(engine, root)) reached.add(line);
    const skipped = new Set();
    for (const node of minimax.nodes) if (!reached.has(M.movesTo(minimax, node.id))) skipped.add(node.id);
    $("compare-rows").replaceChildren(...VARIANTS.map((v, i) => compareRow(v.label, trees[i])));
    $("compare-table").hidden = false;
    const total = minimax.nodes.length;
    let words = lessonWords(engine, minimax) + " ";
    if (trees.some((t) => t.truncated)) {
      words += limits.max > request.limit
        ? `A search stopped at the node limit (${count(request.limit)}): compare again with a larger limit, or lower the depth. `
        : "A search stopped at the largest node limit: lower the depth to compare whole searches. ";
      $("compare-raise").hidden = !(limits.max > request.limit);
    }
    words += `Alpha-beta (engine’s order) never visited ${count(skipped.size)} of minimax’s ${count(total)} nodes: they are struck through in the minimax tree. ` +
      "Side by side, both panes step together: a node of each per step.";
    $("compare-status").textContent = words;
    const showMinimax = request.algorithm === "alphabeta";
    if (!showMinimax) state.skipped = skipped;
    state.other = showMinimax
      ? { tree: minimax, skipped, label: "Minimax" }
      : { tree: engine, skipped: null, label: "Alpha-beta, engine’s order" };
    $("tree-other-title").textContent = `${state.other.label}, same position and depth`;
    $("tree-main-title").textContent = `${showMinimax ? "Alpha-beta" : "Minimax"} (this page’s search)`;
    $("tree-panes").classList.add("side-by-side");
    $("tree-layout").classList.add("comparing"); // the panes take the width, the panels go below
    $("tree-other").hidden = false;
    $("tree-main-head").hidden = false;
    otherView = createTreeView($("tree-other-host"), {
      label: $("tree-other-title").textContent,
      onSelect: (id, how) => { if (how.toggle) toggleOther(id); },
      onToggle: (id) => toggleOther(id),
    });
    otherRoot = null;
    goTo(state.clock, { follow: false, select: state.selected });
    view.fit();
  } catch (err) {
    $("compare-status").textContent = err.message;
  } finally {
    button.disabled = false;
  }
}

/** A pane's counter: "Visited 25 of 7,332 · depth 7 pass: 7,332" ("Finished at node 1,314" once done). */
function paneCounts(/** @type {Tree} */ tree, /** @type {number} */ step) {
  return `${M.paneProgress(tree.nodes.length, step, count)} \u00b7 ${M.passWords(tree.iterations, tree.node_count ?? tree.nodes.length, count)}`;
}

let otherRoot = null;

/** The compared tree at the shared clock (its own last node once it is done). */
function renderOther({ follow = true } = {}) {
  if (!state.other || !otherView) return;
  const { tree, skipped } = state.other;
  const step = Math.min(state.clock, tree.nodes.length - 1);
  const drawn = scene(tree, step, { forMain: false });
  otherView.draw({ tree, layout: drawn.layout, step, current: step, selected: -1, best: drawn.best, skipped, moveNoun: info.moveNoun });
  if (drawn.rootId !== otherRoot) {
    otherRoot = drawn.rootId;
    otherView.fit();
  }
  if (follow) otherView.follow(step, step >= tree.nodes.length - 1);
  $("tree-other-counts").textContent = paneCounts(tree, step);
}

function toggleOther(id) {
  const drawn = [.../** @type {NodeListOf<SVGElement>} */ (document.querySelectorAll("#tree-other-host .tree-node"))].find((g) => g.dataset.id === String(id));
  if (drawn && drawn.getAttribute("aria-expanded") === "true") { otherOpen.delete(id); otherClosed.add(id); }
  else { otherClosed.delete(id); otherOpen.add(id); }
  renderOther({ follow: false });
}

// -- wiring -----------------------------------------------------------------------------------
function bind() {
  $("step-start").addEventListener("click", () => goTo(0));
  $("step-back").addEventListener("click", () => goTo(state.clock - 1));
  $("step-next").addEventListener("click", () => goTo(state.clock + 1));
  $("step-end").addEventListener("click", () => goTo(lastStep()));
  $("step-cut").addEventListener("click", () => {
    const next = M.nextCut(state.tree, state.step);
    if (next !== null) goTo(M.doneAt(next), { select: next.id });
  });
  $("play").addEventListener("click", () => setPlaying(!state.playing));
  const speed = $("speed");
  speed.max = String(SPEEDS.length - 1);
  speed.addEventListener("input", () => {
    state.speed = SPEEDS[Number(speed.value)];
    $("speed-text").textContent = `${state.speed} nodes/s`;
  });
  state.speed = SPEEDS[Number(speed.value)];
  $("speed-text").textContent = `${state.speed} nodes/s`;
  $("zoom-in").addEventListener("click", () => view.zoomBy(1.25));
  $("zoom-out").addEventListener("click", () => view.zoomBy(0.8));
  $("zoom-fit").addEventListener("click", () => view.fit());
  $("detail-reused").addEventListener("click", (event) => {
    const target = Number(event.currentTarget.dataset.target);
    state.selected = target;
    render({ follow: false });
    view.center(target, true);
  });
  $("compare-button").addEventListener("click", compare);
  $("compare-raise").addEventListener("click", () => location.assign(largerSearch("#compare")));
  $("raise-limit").addEventListener("click", () => location.assign(largerSearch()));
  document.addEventListener("keydown", (event) => {
    if (/** @type {Element} */ (event.target).closest("input, select, textarea, .tree-svg") || event.ctrlKey || event.metaKey || event.altKey) return;
    const keys = { n: () => goTo(state.clock + 1), b: () => goTo(state.clock - 1), c: () => $("step-cut").click(), p: () => setPlaying(!state.playing) };
    if (keys[event.key]) { event.preventDefault(); keys[event.key](); }
  });
  reducedMotion.addEventListener?.("change", () => document.body.classList.toggle("reduce-motion", reducedMotion.matches));
  document.body.classList.toggle("reduce-motion", reducedMotion.matches);
}

/** The root's value in the game page's words, for the side to move: ": win in 1 for X",
 * ": slightly better for Red", ": draw" ("" if unknown). */
function valueWords(tree) {
  const ply = request.moves.length;
  const words = describeScore(tree.root_value, Boolean(tree.exact), info, ply);
  if (words.kind === "unknown") return "";
  return words.kind === "draw" ? `: ${words.text}` : `: ${words.text} for ${info.players[ply % 2]}`;
}

/** What the search found, in words. A trace stopped at the node limit did not finish
 * its last iteration: its move is the deepest completed iteration's, if any, said as such.
 * It says what to do, and the page offers the larger search (a button) if there is one. */
function summary(tree) {
  const name = tree.algorithm === "minimax" ? "Minimax" : "Alpha-beta";
  const choice = () => `${info.moveNoun} ${tree.best_move} (value ${M.valueText(tree.root_value, "exact")}${valueWords(tree)})` +
    (tree.pv ? `, expecting ${tree.pv.split("").join(" ")}` : "");
  const { reach, note } = M.searchEnd(tree, info.columns * info.rows - request.moves.length);
  if (!tree.truncated) {
    return `${name} visited ${count(tree.node_count)} nodes` + (tree.best_move ? `, chose ${choice()}.` : ".") + (note ? ` ${note}` : "");
  }
  const stopped = `${name} stopped at the node limit (${count(tree.limit)} nodes) before it finished the search to depth ${reach}.`;
  const deepest = M.lastComplete(tree.iterations);
  const found = deepest !== null && tree.best_move
    ? ` Its deepest completed iteration, depth ${deepest.depth}, chose ${choice()}.`
    : " No iteration was completed, so it chose no move.";
  const todo = limits.max > tree.limit
    ? ` To see the whole search, search again with up to ${count(limits.max)} nodes, or lower the depth.`
    : " To see the whole search, lower the depth.";
  return `${stopped}${found}${todo}`;
}

async function start() {
  bind();
  try {
    state.tree = await fetchTree({});
  } catch (err) {
    $("tree-status").textContent = err.message;
    $("tree-status").classList.add("error");
    return;
  }
  $("tree-status").textContent = summary(state.tree);
  const raise = $("raise-limit");
  raise.hidden = !(state.tree.truncated && limits.max > request.limit);
  raise.textContent = `Search again with up to ${count(limits.max)} nodes`;
  document.body.classList.add("tree-loaded");
  goTo(0);
  if (location.hash === "#compare") compare();
}

/** @type {any} */ (window).treeExplorer = { state, goTo, setPlaying }; // for tests and the frame-rate script
start();
