// The tic-tac-toe board: nine cell buttons over a hand-drawn-looking grid.
//
// API (the same as the Connect Four board): createTicTacToeBoard(host,
// {onPlay, info}) returns {set(view), focusMove(move), element}.

import { drawBadge, drawBestRing } from "./badges.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const MARK_NAMES = ["X", "O"];

function svg(tag, attrs) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  return node;
}

/** An X or an O drawn in a 100 x 100 box. */
function markSvg(player) {
  const box = svg("svg", { viewBox: "0 0 100 100", class: `mark mark-p${player}`, "aria-hidden": "true", focusable: "false" });
  if (player === 0) {
    box.append(svg("path", { d: "M24 24L76 76", pathLength: "1" }));
    box.append(svg("path", { d: "M76 24L24 76", pathLength: "1" }));
  } else {
    box.append(svg("circle", { cx: "50", cy: "50", r: "28", pathLength: "1" }));
  }
  return box;
}

export function createTicTacToeBoard(host, { onPlay, info }) {
  const root = document.createElement("div");
  root.className = "board ttt";
  root.setAttribute("role", "group");
  root.setAttribute("aria-label", "Tic-tac-toe board, cells 1 to 9 row by row from the top left");

  const grid = svg("svg", { viewBox: "0 0 300 300", class: "ttt-grid", "aria-hidden": "true", focusable: "false" });
  grid.append(svg("path", { d: "M100 8V292M200 8V292M8 100H292M8 200H292" }));
  root.append(grid);

  const buttons = [];
  for (let i = 0; i < info.cells; i += 1) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "ttt-cell";
    button.dataset.move = String(i + 1);
    // The second click of a double click is not a second move (keyboard clicks count 0).
    button.addEventListener("click", (event) => event.detail < 2 && onPlay(button.dataset.move));
    const number = document.createElement("span");
    number.className = "ttt-number";
    number.setAttribute("aria-hidden", "true");
    number.textContent = String(i + 1);
    const badge = document.createElement("span");
    badge.className = "score-badge";
    badge.setAttribute("aria-hidden", "true");
    button.append(number, badge);
    buttons.push(button);
    root.append(button);
  }
  host.replaceChildren(root);

  let shown = null;

  function set(view) {
    const newCell = shown && view.moves.length === shown.length + 1 && view.moves.startsWith(shown)
      ? view.lastCell
      : null;
    root.classList.toggle("is-interactive", view.interactive);
    root.classList.toggle("is-review", view.review);
    root.classList.toggle("is-over", view.over);
    root.dataset.toMove = String(view.toMove);
    root.classList.toggle("has-scores", Boolean(view.scores));
    const ghosts = new Map((view.ghosts || []).map((g) => [g.cell, g]));

    buttons.forEach((button, i) => {
      const move = String(i + 1);
      const who = view.cells[i];
      drawMark(button, who, i === newCell);
      drawGhost(button, ghosts.get(i));
      const score = view.scores ? view.scores[move] : null;
      drawBadge(button.querySelector(".score-badge"), score);
      button.setAttribute("aria-label", cellName(move, who, score, ghosts.get(i)));
      const legal = view.legal.has(move);
      button.setAttribute("aria-disabled", String(!(legal && view.interactive)));
      button.classList.toggle("is-legal", legal);
      button.classList.toggle("is-last", i === view.lastCell);
      button.classList.toggle("is-win", Boolean(view.winLine && view.winLine.includes(i)));
      drawBestRing(button, (view.bestCells || []).includes(i));
    });
    shown = view.moves;
  }

  function focusMove(move) {
    buttons[Number(move) - 1]?.focus();
  }

  return { set, focusMove, element: root };
}

/**
 * A cell's accessible name. It holds the cell's visible text in the order it
 * is drawn (the number, the score's words, the line's step), so a voice user
 * can say what they see (WCAG 2.5.3, label in name): "Cell 5 loss in 3, empty",
 * "Cell 7, O, 2 in the expected line".
 */
export function cellName(move, who, score, ghost) {
  let name = `Cell ${move}`;
  if (score) name += ` ${score.text}${score.best ? " (best)" : ""}`;
  name += `, ${who === null ? "empty" : MARK_NAMES[who]}`;
  if (ghost) name += `, ${ghost.n} in the expected line`;
  return name;
}

function drawMark(button, who, animate) {
  const current = button.querySelector(".mark:not(.ghost-mark)");
  if (who === null) {
    current?.remove();
    return;
  }
  if (current && current.classList.contains(`mark-p${who}`)) return;
  current?.remove();
  const mark = markSvg(who);
  if (animate) mark.classList.add("is-drawing");
  button.prepend(mark);
}

function drawGhost(button, ghost) {
  button.querySelector(".ghost-mark")?.remove();
  button.querySelector(".ghost")?.remove();
  if (!ghost) return;
  if (!ghost.occupied) {
    const mark = markSvg(ghost.player);
    mark.classList.add("ghost-mark");
    button.append(mark);
  }
  const n = document.createElement("span");
  n.className = `ghost ghost-p${ghost.player}${ghost.occupied ? " ghost-on-stone" : ""}`;
  n.setAttribute("aria-hidden", "true");
  n.textContent = String(ghost.n);
  button.append(n);
}
