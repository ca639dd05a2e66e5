// The Connect Four board: a blue frame of 7 column buttons with round holes.
//
// API (like chessground's): createConnect4Board(host, {onPlay}) returns
//   set(view)        draw a view (see board-view.js), animating a new disc
//   focusMove(move)  focus a column button
// The board keeps no game state: it draws what it is given and reports clicks.

import { drawBadge, drawBestRing } from "./badges.js";
import { columnHeight, landingCell } from "./rules.js";

export function createConnect4Board(host, { onPlay, info }) {
  const root = document.createElement("div");
  root.className = "board c4";
  root.setAttribute("role", "group");
  root.setAttribute("aria-label", "Connect Four board, 7 columns");

  const frame = document.createElement("div");
  frame.className = "c4-frame";
  const numbers = document.createElement("div");
  numbers.className = "c4-numbers";
  numbers.setAttribute("aria-hidden", "true");
  const badges = document.createElement("div");
  badges.className = "board-badges c4-badges";
  badges.setAttribute("aria-hidden", "true"); // the column names carry the scores

  const columns = [];
  const slots = []; // by cell index, row by row from the top
  for (let col = 0; col < info.columns; col += 1) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "c4-col";
    button.dataset.move = String(col + 1);
    // The second click of a double click is not a second move (keyboard clicks count 0).
    button.addEventListener("click", (event) => event.detail < 2 && onPlay(button.dataset.move));
    columns.push(button);
    frame.append(button);

    const number = document.createElement("span");
    number.textContent = String(col + 1);
    numbers.append(number);
    const badge = document.createElement("span");
    badge.className = "score-badge";
    badges.append(badge);
  }
  for (let row = 0; row < info.rows; row += 1) {
    for (let col = 0; col < info.columns; col += 1) {
      const slot = document.createElement("span");
      slot.className = "c4-slot";
      slot.setAttribute("aria-hidden", "true");
      slot.style.gridRow = String(row + 1);
      columns[col].append(slot);
      slots.push(slot);
    }
  }
  root.append(badges, frame, numbers); // the scores above the board, as the player reads down to drop
  host.replaceChildren(root);

  let shown = null; // the last view drawn, to animate only the new disc

  function set(view) {
    const { cells } = view;
    const newCell = dropTarget(shown, view);
    root.dataset.toMove = String(view.toMove);
    root.classList.toggle("is-interactive", view.interactive);
    root.classList.toggle("is-review", view.review);
    root.classList.toggle("is-over", view.over);

    const landing = new Set(landingCells(info, cells, view.legal));
    for (let i = 0; i < cells.length; i += 1) {
      drawSlot(slots[i], cells[i], i === newCell ? Math.floor(i / info.columns) + 1 : 0);
      slots[i].classList.toggle("is-landing", landing.has(i)); // the hover preview
      slots[i].classList.toggle("is-last", i === view.lastCell);
      slots[i].classList.toggle("is-win", Boolean(view.winLine && view.winLine.includes(i)));
      drawBestRing(slots[i], (view.bestCells || []).includes(i));
    }
    drawGhosts(view.ghosts || []);

    columns.forEach((button, col) => {
      const move = String(col + 1);
      const height = columnHeight(info, cells, col);
      const legal = view.legal.has(move);
      const score = view.scores ? view.scores[move] : null;
      let name = `Column ${move}, ${height} ${height === 1 ? "stone" : "stones"}`;
      if (height === info.rows) name += ", full";
      if (score) name += `, ${score.text}${score.best ? " (best)" : ""}`;
      button.setAttribute("aria-label", name);
      button.setAttribute("aria-disabled", String(!(legal && view.interactive)));
      button.classList.toggle("is-legal", legal);
      drawBadge(badges.children[col], score);
    });
    badges.hidden = !view.scores;
    shown = { moves: view.moves, cells: cells.slice() };
  }

  function drawGhosts(ghosts) {
    for (const slot of slots) slot.querySelector(".ghost")?.remove();
    for (const ghost of ghosts) {
      const mark = document.createElement("span");
      mark.className = `ghost ghost-p${ghost.player}${ghost.occupied ? " ghost-on-stone" : ""}`;
      mark.textContent = String(ghost.n);
      slots[ghost.cell].append(mark);
    }
  }

  function focusMove(move) {
    columns[Number(move) - 1]?.focus();
  }

  return { set, focusMove, element: root };
}

function drawSlot(slot, who, dropRows) {
  let disc = slot.querySelector(".disc");
  if (who === null) {
    disc?.remove();
    return;
  }
  if (!disc) {
    disc = document.createElement("span");
    slot.prepend(disc);
  }
  disc.className = `disc disc-p${who}`;
  if (dropRows) {
    disc.style.setProperty("--drop-rows", String(dropRows));
    disc.classList.add("is-dropping");
    disc.addEventListener("animationend", () => disc.classList.remove("is-dropping"), { once: true });
  }
}

/** The one cell to animate: the new disc when exactly one move was added. */
function dropTarget(before, view) {
  if (!before || view.moves.length !== before.moves.length + 1) return null;
  if (!view.moves.startsWith(before.moves)) return null;
  return view.lastCell;
}

/** Where a disc would land in each legal column. */
function landingCells(info, cells, legal) {
  return [...legal].map((move) => landingCell(info, cells, move)).filter((cell) => cell !== null);
}
