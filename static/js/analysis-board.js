// The analysis board page (/analysis): move both sides by hand, keep the
// variations as a tree (variation-tree.js), and read every move's score for
// the side to move from GET /api/analysis (debounced; a stale answer is
// cancelled or dropped; answers are kept per position, so going back costs
// nothing). The URL follows the current line, so the address is the link.

import { fetchAnalysis, settingsFor } from "./analysis-api.js";
import { createGame } from "./api.js";
import { boardView, createBoard } from "./board-view.js";
import { readJSON } from "./config.js";
import { describeScore, signed } from "./format.js";
import { mountPositionInput } from "./position-input.js";
import { gameInfo, replay } from "./rules.js";
import * as T from "./variation-tree.js";

/** Milliseconds of quiet before a position is asked for (moving fast asks nothing). */
const DEBOUNCE_MS = 250;

const start = readJSON("position");
const game = start.game;
const info = gameInfo(game);
/** The page's element `id` (the template decides its kind: input, button, link...). */
const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));

const root = T.createTree();
let current = T.follow(root, start.moves);
const answers = new Map(); // moves -> the server's answer
let asking = null; // {moves, controller, timer}
let failure = null; // {moves, message} of the last failed ask
let showLine = false; // the principal variation drawn on the board, on request

const board = createBoard($("board"), game, play);

// -- Moving -------------------------------------------------------------------------

function play(move) {
  const moves = T.pathOf(current);
  if (!replay(game, moves).legal.has(move)) {
    return notice(info.name === "connect4" ? `Column ${move} is full or the game is over.` : `Cell ${move} is taken or the game is over.`);
  }
  go(T.addMove(current, move));
}

function go(node) {
  if (!node) return;
  current = node;
  notice("");
  const moves = T.pathOf(current);
  history.replaceState(null, "", `/analysis?${new URLSearchParams({ game, moves })}`);
  render();
  ask(moves);
}

// -- Scores ----------------------------------------------------------------------------

function ask(moves, delay = DEBOUNCE_MS) {
  if (asking) {
    clearTimeout(asking.timer);
    asking.controller.abort(); // a stale answer is never drawn
  }
  asking = null;
  if (answers.has(moves) || replay(game, moves).over) return;
  const controller = new AbortController();
  asking = { moves, controller, timer: setTimeout(() => request(moves, controller), delay) };
}

async function request(moves, controller) {
  try {
    const answer = await fetchAnalysis(game, moves, controller.signal);
    if (controller.signal.aborted) return;
    if (answer.pending) {
      ask(moves, answer.retryAfter * 1000); // still searching: ask again
      renderScores();
      return;
    }
    answers.set(moves, answer);
    failure = null;
  } catch (error) {
    if (error.name === "AbortError" || controller.signal.aborted) return;
    failure = { moves, message: error.message };
    if (error.retryAfter && (error.status === 429 || error.status === 503)) ask(moves, error.retryAfter * 1000);
  }
  if (T.pathOf(current) === moves) render();
}

// -- Drawing ---------------------------------------------------------------------------

function render() {
  const moves = T.pathOf(current);
  const position = replay(game, moves);
  const answer = answers.get(moves);
  // The side to move's options at this very position (the board view's `scores`).
  const line = answer && showLine && answer.pv ? { from: moves, pv: answer.pv } : null;
  board.set(boardView({ game, moves, interactive: true, review: false, scores: answer ? answer.move_scores : null, best: answer ? answer.best_moves : null, line }));
  $("ab-line").disabled = !answer || !answer.pv;
  $("ab-line").setAttribute("aria-pressed", String(showLine));
  $("ab-line").textContent = showLine ? "Hide the best line" : "Show the best line";
  $("ab-line-text").textContent = answer && answer.pv ? `Best line: ${[...answer.pv].join(" ")}` : "";
  $("ab-line-text").hidden = !(showLine && answer && answer.pv);
  const name = info.players[position.toMove];
  $("ab-turn").textContent = position.over
    ? position.winner !== null
      ? `${info.players[position.winner]} won after ${moves.length} moves.`
      : `Draw after ${moves.length} moves.`
    : `${name} to move${moves.length ? `, after ${moves.length} move${moves.length === 1 ? "" : "s"}` : ""}.`;
  $("ab-start").disabled = $("ab-back").disabled = !current.parent;
  $("ab-forward").disabled = $("ab-end").disabled = !current.children.length;
  $("ab-promote").disabled = T.onMainLine(current);
  $("ab-play").disabled = position.over;
  $("ab-link").value = window.location.href;
  renderScores();
  renderTree();
}

function renderScores() {
  const moves = T.pathOf(current);
  const position = replay(game, moves);
  const answer = answers.get(moves);
  const list = $("ab-scores");
  list.replaceChildren();
  const name = info.players[position.toMove];
  if (position.over) {
    $("ab-headline").textContent = "The game is over: no move to score.";
    return;
  }
  if (!answer) {
    const failed = failure && failure.moves === moves;
    $("ab-headline").textContent = failed ? `No scores: ${failure.message}` : "Solving this position…";
    return;
  }
  $("ab-headline").textContent = headline(answer, name);
  for (const move of [...position.legal]) {
    const value = answer.move_scores[move];
    const words = value ? describeScore(value.score, value.exact, info, moves.length) : { kind: "unknown", text: "–" };
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = `ab-score score-${words.kind}`;
    const best = answer.best_moves.includes(move);
    button.innerHTML = `<span class="ab-score-move"></span> <span class="ab-score-text"></span>`;
    const [moveText, scoreText] = button.children;
    moveText.textContent = `${info.moveNoun[0].toUpperCase()}${info.moveNoun.slice(1)} ${move}`;
    scoreText.textContent = `${value && !value.exact ? "about " : ""}${words.text}${best ? " · best" : ""}`;
    if (best) button.classList.add("is-best");
    button.addEventListener("click", () => play(move));
    item.append(button);
    list.append(item);
  }
}

/** "Red to move: win in 5 (exact, from the opening book)" or a heuristic in words. */
function headline(answer, name) {
  const words = describeScore(answer.score, answer.exact, info, answer.moves.length);
  if (answer.exact) {
    const source = answer.book ? ", from the opening book" : "";
    // The position's value is exact; a move not solved in the server's time is said to be
    // an estimate ("about …" on its button), never passed off as exact.
    const unsolved = Object.values(answer.move_scores).some((value) => !value.exact);
    const rest = unsolved ? " Moves marked “about” were not solved in time: estimates." : "";
    if (words.kind === "draw") return `${name} to move: a draw with best play (exact${source}).${rest}`;
    return `${name} to move: ${words.text} with best play (exact${source}).${rest}`;
  }
  const lean = Math.abs(answer.score) < 0.01 ? "about even" : answer.score > 0 ? `${name} is slightly better` : `${name} is slightly worse`;
  return `${name} to move: ${lean} (${signed(answer.score)}, not solved: searched ${answer.depth} moves deep).`;
}

function renderTree() {
  const host = $("ab-tree");
  host.replaceChildren();
  const line = document.createElement("div");
  line.className = "ab-line";
  appendLine(line, root);
  if (!root.children.length) line.textContent = "No moves yet: play one on the board.";
  host.append(line);
  scrollWithin(host, host.querySelector("[aria-current]"));
}

/**
 * Scroll `box` (and only it) so that `item` shows: scrollIntoView would scroll the
 * page too, and on a phone the page opened 444 px down, at the move list.
 */
function scrollWithin(box, item) {
  if (!item) return;
  const top = item.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop;
  if (top < box.scrollTop) box.scrollTop = top;
  else if (top + item.offsetHeight > box.scrollTop + box.clientHeight) box.scrollTop = top + item.offsetHeight - box.clientHeight;
}

/** The moves after `node`: its main continuation inline, the other children as variations. */
function appendLine(container, node) {
  let at = node;
  let branched = true; // a line's first move, and the move after a variation, carry a number
  while (at.children.length) {
    const [main, ...others] = at.children;
    container.append(moveButton(main, main.ply % 2 === 1 || branched));
    branched = others.length > 0;
    for (const variation of others) {
      const group = document.createElement("span");
      group.className = "ab-variation";
      group.setAttribute("role", "group");
      group.setAttribute("aria-label", `Variation from move ${variation.ply}`);
      group.append(moveButton(variation, true));
      appendLine(group, variation);
      container.append(group);
    }
    at = main;
  }
}

function moveButton(node, numbered) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = `ab-move move-p${(node.ply - 1) % 2}`;
  const number = Math.ceil(node.ply / 2);
  const label = numbered ? (node.ply % 2 === 1 ? `${number}. ` : `${number}… `) : "";
  button.textContent = `${label}${node.move}`;
  button.setAttribute("aria-label", `Move ${Math.ceil(node.ply / 2)}: ${info.players[(node.ply - 1) % 2]}, ${info.moveNoun} ${node.move}`);
  if (node === current) button.setAttribute("aria-current", "step");
  button.addEventListener("click", () => go(node));
  return button;
}

function notice(text) {
  $("ab-notice").textContent = text;
  $("ab-notice").hidden = !text;
}

// -- Controls ----------------------------------------------------------------------------

async function playEngine() {
  const moves = T.pathOf(current);
  const side = moves.length % 2; // the viewer plays the side to move
  $("ab-play").disabled = true;
  try {
    const settings = settingsFor({ level: $("ab-level").value, algorithm: "alphabeta" }, side);
    const created = await createGame({ game, moves, settings });
    window.location.assign(created.url || `/g/${created.id}`);
  } catch (error) {
    notice(error.message);
    $("ab-play").disabled = false;
  }
}

async function copyLink() {
  try {
    await navigator.clipboard.writeText(window.location.href);
    notice("Copied the link to this position.");
  } catch {
    $("ab-link").select();
    notice("Press Ctrl+C (or ⌘C) to copy the selected link.");
  }
}

$("ab-start").addEventListener("click", () => go(root));
$("ab-back").addEventListener("click", () => go(current.parent));
$("ab-forward").addEventListener("click", () => go(current.children[0]));
$("ab-end").addEventListener("click", () => go(T.lineEnd(current)));
$("ab-promote").addEventListener("click", () => (T.promote(current), render()));
$("ab-line").addEventListener("click", () => ((showLine = !showLine), render()));
$("ab-play").addEventListener("click", playEngine);
$("ab-copy").addEventListener("click", copyLink);
mountPositionInput({ game, currentMoves: () => T.pathOf(current), onMoves: (moves) => go(T.follow(root, moves)) });

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (/** @type {Element} */ (event.target).closest("input, select, textarea")) return;
  const keys = {
    ArrowLeft: () => go(current.parent),
    ArrowRight: () => go(current.children[0]),
    Home: () => go(root),
    End: () => go(T.lineEnd(current)),
  };
  if (keys[event.key]) {
    event.preventDefault();
    keys[event.key]();
  } else if (/^[1-9]$/.test(event.key) && Number(event.key) <= info.moveKeys) {
    event.preventDefault();
    play(event.key);
    board.focusMove?.(event.key);
  }
});

go(current);
