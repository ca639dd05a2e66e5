// The review panel's drawing: the panel itself, the marks in the move list
// and the summary (the result, the counts per class, the moments where the
// result changed). It reads a ReviewContext and never fetches: review.js
// owns the loading and the page's events.

import { moveName, moveNumber } from "./format.js";
import { CLASSES, PRESET, change, resultText, sideLabel as sideOf, summarise } from "./review-classes.js";

/** @typedef {import("./review-classes.js").ReviewEntry} ReviewEntry */

/**
 * What the review knows and where it draws.
 * @typedef {object} ReviewContext
 * @property {import("./types.js").GameInfo} info
 * @property {HTMLElement} list the move list game.js draws
 * @property {(id: string) => any} $ the panel's element `id`
 * @property {import("./types.js").State} state the game, as last read
 * @property {{moves: string, entries: ReviewEntry[], pending: number} | null} review
 */

/**
 * The panel, placed after the moves panel; returns its element lookup.
 * @param {HTMLElement} movesPanel
 * @returns {(id: string) => any}
 */
export function createReviewPanel(movesPanel) {
  const panel = document.createElement("section");
  panel.className = "panel review-panel";
  panel.id = "review";
  panel.setAttribute("aria-labelledby", "review-title");
  panel.innerHTML = `
    <header class="panel-head">
      <h2 class="panel-title" id="review-title">Review</h2>
      <a class="button button-small" id="analyse-link" href="#">Analyse this position</a>
    </header>
    <p class="field-hint" id="review-hint">Every move is judged by the exact result it keeps:
      <span class="review-legend"></span></p>
    <button type="button" class="button" id="review-button">Review the moves so far</button>
    <p class="review-status" id="review-status" role="status" aria-live="polite"></p>
    <div class="review-summary" id="review-summary" hidden></div>`;
  movesPanel.after(panel);
  /** The panel's element `id` (the template decides its kind). */
  const $ = (/** @type {string} */ id) => /** @type {any} */ (panel.querySelector(`#${id}`));
  $("review-hint").querySelector(".review-legend").textContent = Object.values(CLASSES)
    .map((c) => `${c.symbol}\u00a0${c.word}`) // "?" and "mistake" on one line
    .join(", ");
  return $;
}

/**
 * The live moves, read from the list game.js drew, and the ply shown on the board.
 * @param {HTMLElement} list
 */
export function listed(list) {
  const buttons = [.../** @type {NodeListOf<HTMLButtonElement>} */ (list.querySelectorAll("button[data-ply]"))];
  const moves = buttons.map((b) => b.dataset.move ?? (b.dataset.move = b.textContent.trim())).join("");
  const current = /** @type {HTMLButtonElement | null} */ (list.querySelector("button[aria-current]"));
  return { buttons, moves, shown: current ? moves.slice(0, Number(current.dataset.ply)) : moves };
}

/** Mark each reviewed move of the list (once), and point the analysis link at the shown position. @param {ReviewContext} ctx */
export function markList(ctx) {
  const { list, review } = ctx;
  const { buttons, moves, shown } = listed(list);
  ctx.$("analyse-link").href = `/analysis?${new URLSearchParams({ game: ctx.state.game, moves: shown })}`;
  if (!review) return;
  buttons.forEach((button, index) => {
    const entry = review.entries[index];
    if (!entry || !moves.startsWith(review.moves.slice(0, index + 1)) || button.querySelector(".review-mark")) return;
    const known = entry.preset ? PRESET : CLASSES[entry.class];
    if (!known) return;
    const mark = document.createElement("span");
    mark.className = `review-mark review-${entry.preset ? "preset" : entry.class}`;
    mark.innerHTML = `<span class="review-symbol" aria-hidden="true"></span> <span class="review-word"></span>`;
    const [symbol, word] = mark.children;
    symbol.textContent = known.symbol;
    word.textContent = known.word;
    button.append(mark);
    button.setAttribute("aria-label", `${button.getAttribute("aria-label") || ""}, ${known.word}`);
  });
  list.classList.toggle("has-review", true);
}

/** "Red (you)", "X (engine)", "O (your friend)". @param {ReviewContext} ctx @param {number} side */
function sideLabel(ctx, side) {
  return sideOf(ctx.state, ctx.info.players, side);
}

/**
 * Draw the summary (hidden until there is a review).
 * @param {ReviewContext} ctx
 * @param {(entry: ReviewEntry, button: HTMLButtonElement) => void} onRetry
 */
export function renderSummary(ctx, onRetry) {
  const { review } = ctx;
  const box = ctx.$("review-summary");
  box.hidden = !review;
  if (!review) return;
  const { counts, turns, preset } = summarise(review.entries);
  box.replaceChildren();
  const result = document.createElement("p");
  result.className = "review-result";
  result.textContent = resultText(ctx.state, ctx.info.players);
  const title = document.createElement("h3");
  title.className = "sub-title";
  title.textContent = "Where the result changed";
  const moments = document.createElement("ol");
  moments.className = "review-moments";
  if (!turns.length) {
    const none = document.createElement("li");
    none.textContent = review.entries.some((e) => e.class === null && !e.preset)
      ? "No mistake among the moves solved exactly."
      : "Nowhere: the result with best play never changed.";
    moments.append(none);
  }
  for (const entry of turns) moments.append(moment(ctx, entry, onRetry));
  box.append(result, countsTable(ctx, counts), title, moments);
  const yours = turns.filter((entry) => entry.player === ctx.state.human_side).length;
  if (yours && ctx.state.status !== "playing") {
    const learn = document.createElement("a");
    learn.className = "button button-primary learn-link";
    learn.href = `/learn/${encodeURIComponent(ctx.state.id)}`;
    learn.textContent = `Learn from your mistakes (${yours})`;
    box.append(learn);
  }
  if (preset) {
    const note = document.createElement("p");
    note.className = "field-hint review-preset-note";
    note.textContent = `The first ${preset === 1 ? "move was" : `${preset} moves were`} on the board when the game was made (preset): played by neither side here, judged as no one’s.`;
    box.append(note);
  }
  const unknown = counts[0].unknown + counts[1].unknown;
  if (unknown) {
    const note = document.createElement("p");
    note.className = "field-hint";
    note.textContent = `${unknown} move${unknown === 1 ? "" : "s"} could not be solved exactly in time and ${unknown === 1 ? "has" : "have"} no class.`;
    box.append(note);
  }
}

/**
 * The moves of each class, by side.
 * @param {ReviewContext} ctx
 * @param {Record<string, number>[]} counts
 */
function countsTable(ctx, counts) {
  const table = document.createElement("table");
  table.className = "data-table review-counts";
  table.innerHTML = `<caption class="sr-only">Moves of each class, by side</caption>
    <thead><tr><th scope="col">Class</th><th scope="col" class="num"></th><th scope="col" class="num"></th></tr></thead><tbody></tbody>`;
  table.querySelectorAll("thead th.num").forEach((th, side) => (th.textContent = sideLabel(ctx, side)));
  const body = /** @type {HTMLTableSectionElement} */ (table.querySelector("tbody"));
  for (const [name, known] of Object.entries(CLASSES)) {
    const row = body.insertRow();
    const head = document.createElement("th");
    head.scope = "row";
    head.innerHTML = `<span class="review-mark review-${name}"><span class="review-symbol" aria-hidden="true"></span> <span class="review-word"></span></span>`;
    const [symbol, word] = /** @type {Element} */ (head.firstElementChild).children;
    symbol.textContent = known.symbol;
    word.textContent = known.word;
    row.append(head);
    for (const side of [0, 1]) {
      const cell = row.insertCell();
      cell.className = "num";
      cell.textContent = String(counts[side][name]);
    }
  }
  return table;
}

/**
 * One moment where the result changed, with "Show" and "Retry from here".
 * @param {ReviewContext} ctx
 * @param {ReviewEntry} entry
 * @param {(entry: ReviewEntry, button: HTMLButtonElement) => void} onRetry
 */
function moment(ctx, entry, onRetry) {
  const { info, state, list } = ctx;
  const item = document.createElement("li");
  item.className = `review-moment review-moment-${entry.class}`;
  const known = CLASSES[entry.class];
  const text = document.createElement("p");
  const best = entry.best_moves.length ? ` Best: ${info.moveNoun} ${entry.best_moves.join(" or ")}.` : "";
  text.textContent = `Move ${moveNumber(entry.ply)}, ${sideLabel(ctx, entry.player)}: ${info.moveNoun} ${entry.move} ${known.symbol} ${known.word}, ${change(entry)}.${best}`;
  const actions = document.createElement("span");
  actions.className = "review-moment-actions";
  const show = document.createElement("button");
  show.type = "button";
  show.className = "button button-small";
  show.textContent = "Show";
  show.setAttribute("aria-label", `Show the position after ${moveName(entry.ply, info.players)}`);
  show.addEventListener("click", () => {
    /** @type {HTMLButtonElement | null} */ (list.querySelector(`button[data-ply="${entry.ply}"]`))?.click();
    // the board it changes is above, off-screen on a phone: bring it in view
    document.getElementById("board")?.scrollIntoView({ block: "nearest" });
  });
  actions.append(show);
  if (state.seat !== "player" || entry.player === state.human_side) {
    const retry = document.createElement("button");
    retry.type = "button";
    retry.className = "button button-small button-primary";
    retry.textContent = "Retry from here";
    retry.setAttribute("aria-label", `Retry from the position before move ${entry.ply}, in a new game`);
    retry.addEventListener("click", () => onRetry(entry, retry));
    actions.append(retry);
  }
  item.append(text, actions);
  return item;
}
