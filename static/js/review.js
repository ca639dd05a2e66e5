// The game page's review: each move's class in the move list (a symbol and a
// word, never colour alone), a summary when the game is over (the result, the
// counts per class, the moves where the result changed, each with "Retry from
// here"), and a link to the analysis board for the position shown.
//
// It stands apart from game.js: it mounts its own panel after the move list,
// reads the game from the API, watches the page (the body's data-status, the
// move list's rows) and marks the list again whenever game.js redraws it.

import { createGame } from "./api.js";
import { fetchGame, fetchReview, settingsFor } from "./analysis-api.js";
import { readJSON } from "./config.js";
import { moveName } from "./format.js";
import { gameInfo } from "./rules.js";

/** The classes, best first: the symbol and the word shown, and what they mean. */
export const CLASSES = {
  best: { symbol: "!", word: "best", meaning: "kept the best result" },
  inaccuracy: { symbol: "?!", word: "inaccuracy", meaning: "kept the result, but wins slower or loses faster" },
  mistake: { symbol: "?", word: "mistake", meaning: "a win became a draw, or a draw a loss" },
  blunder: { symbol: "??", word: "blunder", meaning: "a win became a loss" },
};
/** A move the game was made with (a link with moves=): played by neither side, judged as no one's. */
export const PRESET = { symbol: "·", word: "preset", meaning: "on the board when the game was made" };
/** Asking again for a review that is still being solved, at most this many times. */
const MAX_RETRIES = 10;

/** Counts per side and class (preset moves apart: no one's), and the moves where the
 * result with best play changed. */
export function summarise(entries) {
  const counts = [0, 1].map(() => Object.fromEntries([...Object.keys(CLASSES), "unknown"].map((c) => [c, 0])));
  const played = entries.filter((entry) => !entry.preset);
  for (const entry of played) counts[entry.player][entry.class ?? "unknown"] += 1;
  const turns = played.filter((e) => e.class === "mistake" || e.class === "blunder");
  return { counts, turns, preset: entries.length - played.length };
}

/** "a win became a loss" (values from the mover's side). */
export function change(entry) {
  const word = (v) => (v > 0 ? "win" : v < 0 ? "loss" : "draw");
  return `a ${word(entry.value_before)} became a ${word(entry.value_after)}`;
}

function mount() {
  const initial = readJSON("initial-state");
  const movesPanel = document.getElementById("moves");
  if (!initial || !movesPanel) return;
  const info = gameInfo(initial.game);
  const list = movesPanel.querySelector(".move-list");

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
    .map((c) => `${c.symbol} ${c.word}`)
    .join(", ");

  let state = initial;
  let review = null; // {moves, entries, pending}
  let loading = false;
  let requestedFor = null; // the moves the last automatic review was asked for

  /** The live moves, read from the list game.js drew, and the ply shown on the board. */
  function listed() {
    const buttons = [.../** @type {NodeListOf<HTMLButtonElement>} */ (list.querySelectorAll("button[data-ply]"))];
    const moves = buttons.map((b) => b.dataset.move ?? (b.dataset.move = b.textContent.trim())).join("");
    const current = /** @type {HTMLButtonElement | null} */ (list.querySelector("button[aria-current]"));
    return { buttons, moves, shown: current ? moves.slice(0, Number(current.dataset.ply)) : moves };
  }

  function markList() {
    const { buttons, moves, shown } = listed();
    $("analyse-link").href = `/analysis?${new URLSearchParams({ game: state.game, moves: shown })}`;
    if (!review) return;
    buttons.forEach((button, index) => {
      const entry = review.entries[index];
      if (!entry || !moves.startsWith(review.moves.slice(0, index + 1)) || button.querySelector(".review-mark")) return;
      const known = entry.preset ? PRESET : CLASSES[entry.class];
      if (!known) return;
      const mark = document.createElement("span");
      mark.className = `review-mark review-${entry.preset ? "preset" : entry.class}`;
      mark.innerHTML = `<span class="review-symbol" aria-hidden="true"></span> <span class="review-word"></span>`;
      mark.firstElementChild.textContent = known.symbol;
      mark.lastElementChild.textContent = known.word;
      button.append(mark);
      button.setAttribute("aria-label", `${button.getAttribute("aria-label") || ""}, ${known.word}`);
    });
    list.classList.toggle("has-review", true);
  }

  function sideLabel(side) {
    const colour = info.players[side];
    if (state.seat === "player") return `${colour} (${side === state.human_side ? "you" : "engine"})`;
    return `${colour} (${side === state.engine_side ? "engine" : "player"})`;
  }

  function resultText() {
    if (state.status === "won") return `${sideLabel(state.winner)} won.`;
    if (state.status === "drawn") return "Draw.";
    return `In progress, after ${state.moves.length} moves.`;
  }

  function renderSummary() {
    const box = $("review-summary");
    box.hidden = !review;
    if (!review) return;
    const { counts, turns, preset } = summarise(review.entries);
    box.replaceChildren();
    const result = document.createElement("p");
    result.className = "review-result";
    result.textContent = resultText();
    const table = document.createElement("table");
    table.className = "data-table review-counts";
    table.innerHTML = `<caption class="sr-only">Moves of each class, by side</caption>
      <thead><tr><th scope="col">Class</th><th scope="col" class="num"></th><th scope="col" class="num"></th></tr></thead><tbody></tbody>`;
    table.querySelectorAll("thead th.num").forEach((th, side) => (th.textContent = sideLabel(side)));
    const body = table.querySelector("tbody");
    for (const [name, known] of Object.entries(CLASSES)) {
      const row = body.insertRow();
      const head = document.createElement("th");
      head.scope = "row";
      head.innerHTML = `<span class="review-mark review-${name}"><span class="review-symbol" aria-hidden="true"></span> <span class="review-word"></span></span>`;
      head.querySelector(".review-symbol").textContent = known.symbol;
      head.querySelector(".review-word").textContent = known.word;
      row.append(head);
      for (const side of [0, 1]) {
        const cell = row.insertCell();
        cell.className = "num";
        cell.textContent = String(counts[side][name]);
      }
    }
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
    for (const entry of turns) moments.append(moment(entry));
    box.append(result, table, title, moments);
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

  function moment(entry) {
    const item = document.createElement("li");
    item.className = `review-moment review-moment-${entry.class}`;
    const known = CLASSES[entry.class];
    const text = document.createElement("p");
    const best = entry.best_moves.length ? ` Best: ${info.moveNoun} ${entry.best_moves.join(" or ")}.` : "";
    text.textContent = `Move ${Math.ceil(entry.ply / 2)}, ${sideLabel(entry.player)}: ${info.moveNoun} ${entry.move} ${known.symbol} ${known.word}, ${change(entry)}.${best}`;
    const actions = document.createElement("span");
    actions.className = "review-moment-actions";
    const show = document.createElement("button");
    show.type = "button";
    show.className = "button button-small";
    show.textContent = "Show";
    show.setAttribute("aria-label", `Show the position after ${moveName(entry.ply, info.players)}`);
    show.addEventListener("click", () => /** @type {HTMLButtonElement | null} */ (list.querySelector(`button[data-ply="${entry.ply}"]`))?.click());
    actions.append(show);
    if (state.seat !== "player" || entry.player === state.human_side) {
      const retry = document.createElement("button");
      retry.type = "button";
      retry.className = "button button-small button-primary";
      retry.textContent = "Retry from here";
      retry.setAttribute("aria-label", `Retry from the position before move ${entry.ply}, in a new game`);
      retry.addEventListener("click", () => retryFrom(entry, retry));
      actions.append(retry);
    }
    item.append(text, actions);
    return item;
  }

  async function retryFrom(entry, button) {
    button.disabled = true;
    try {
      const moves = review.moves.slice(0, entry.ply - 1);
      const created = await createGame({ game: state.game, moves, settings: settingsFor(state.settings, entry.player) });
      window.location.assign(created.url || `/g/${created.id}`);
    } catch (error) {
      $("review-status").textContent = error.message;
      button.disabled = false;
    }
  }

  async function load(retries = 0) {
    if (loading && retries === 0) return;
    loading = true;
    $("review-status").textContent = retries ? $("review-status").textContent : "Solving every position of the game…";
    try {
      const [game, answer] = await Promise.all([fetchGame(state.id), fetchReview(state.id)]);
      state = game;
      review = { moves: game.moves.slice(0, answer.entries.length), entries: answer.entries, pending: answer.pending };
      $("review-status").textContent = answer.pending
        ? `Still solving ${answer.pending} position${answer.pending === 1 ? "" : "s"}…`
        : "";
      list.querySelectorAll(".review-mark").forEach((mark) => mark.remove());
      markList();
      renderSummary();
      if (answer.pending && retries < MAX_RETRIES) {
        setTimeout(() => load(retries + 1), answer.retryAfter * 1000);
        return;
      }
      if (answer.pending) $("review-status").textContent = "Some positions could not be solved in time.";
    } catch (error) {
      $("review-status").textContent = error.message;
    }
    loading = false;
  }

  function onStatus() {
    const over = document.body.dataset.status && document.body.dataset.status !== "playing";
    $("review-button").textContent = over ? "Review the game again" : "Review the moves so far";
    const { moves } = listed();
    if (over && requestedFor !== moves) {
      requestedFor = moves;
      load();
    }
  }

  $("review-button").addEventListener("click", () => load());
  new MutationObserver(markList).observe(list, { childList: true });
  new MutationObserver(onStatus).observe(document.body, { attributes: true, attributeFilter: ["data-status"] });
  markList();
  onStatus();
}

mount();
