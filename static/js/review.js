// The game page's review: each move's class in the move list (a symbol and a
// word, never colour alone), a summary when the game is over (the result, the
// counts per class, the moves where the result changed, each with "Retry from
// here"), and a link to the analysis board for the position shown.
//
// It stands apart from game.js: it mounts its own panel after the move list,
// reads the game from the API, watches the page (the body's data-status, the
// move list's rows) and marks the list again whenever game.js redraws it.
// The classes are review-classes.js's, the drawing review-panel.js's; this
// module holds the review's state, its loading and the page's events.

import { createGame } from "./api.js";
import { fetchGame, fetchReview, settingsFor } from "./analysis-api.js";
import { readJSON } from "./config.js";
import { createReviewPanel, listed, markList, renderSummary } from "./review-panel.js";
import { gameInfo } from "./rules.js";

export { CLASSES, PRESET, change, summarise } from "./review-classes.js";

/** Asking again for a review that is still being solved, at most this many times. */
const MAX_RETRIES = 10;

function mount() {
  const initial = readJSON("initial-state");
  const movesPanel = document.getElementById("moves");
  if (!initial || !movesPanel) return;
  /** @type {import("./review-panel.js").ReviewContext} */
  const ctx = {
    info: gameInfo(initial.game),
    list: /** @type {HTMLElement} */ (movesPanel.querySelector(".move-list")),
    $: createReviewPanel(movesPanel),
    state: initial,
    review: null,
  };
  const { $ } = ctx;
  let loading = false;
  /** @type {string | null} the moves the last automatic review was asked for */
  let requestedFor = null;
  let game = 0; // the games this page has shown before the one it shows (a switch in place)

  /**
   * A new game from the position before `entry`'s move.
   * @param {import("./review-classes.js").ReviewEntry} entry
   * @param {HTMLButtonElement} button
   */
  async function retryFrom(entry, button) {
    button.disabled = true;
    try {
      const moves = (ctx.review?.moves ?? "").slice(0, entry.ply - 1); // a retry button comes with a review
      const { state } = ctx;
      const created = await createGame({ game: state.game, moves, settings: settingsFor(state.settings, entry.player) });
      window.location.assign(created.url || `/g/${created.id}`);
    } catch (error) {
      $("review-status").textContent = error.message;
      button.disabled = false;
    }
  }

  /** Read the game and its review; ask again while positions are still being solved. */
  async function load(retries = 0) {
    if (loading && retries === 0) return;
    loading = true;
    const asked = game;
    $("review-status").textContent = retries ? $("review-status").textContent : "Solving every position of the game…";
    try {
      const [state, answer] = await Promise.all([fetchGame(ctx.state.id), fetchReview(ctx.state.id)]);
      if (asked !== game) return; // the page shows another game now
      ctx.state = state;
      ctx.review = { moves: state.moves.slice(0, answer.entries.length), entries: answer.entries, pending: answer.pending };
      $("review-status").textContent = answer.pending
        ? `Still solving ${answer.pending} position${answer.pending === 1 ? "" : "s"}…`
        : "";
      ctx.list.querySelectorAll(".review-mark").forEach((mark) => mark.remove());
      markList(ctx);
      renderSummary(ctx, retryFrom);
      if (answer.pending && retries < MAX_RETRIES) {
        setTimeout(() => asked === game && load(retries + 1), answer.retryAfter * 1000);
        return;
      }
      if (answer.pending) $("review-status").textContent = "Some positions could not be solved in time.";
    } catch (error) {
      if (asked === game) $("review-status").textContent = error.message;
    }
    if (asked === game) loading = false;
  }

  /** The game ended (or the page shows another status): review it, once per position. */
  function onStatus() {
    const over = document.body.dataset.status && document.body.dataset.status !== "playing";
    $("review-button").textContent = over ? "Review the game again" : "Review the moves so far";
    const { moves } = listed(ctx.list);
    if (over && requestedFor !== moves) {
      requestedFor = moves;
      load();
    }
  }

  $("review-button").addEventListener("click", () => load());
  // "New game" or "Rematch" shown in place: the review starts afresh, of that game.
  document.addEventListener("lookahead:game", (event) => {
    game += 1;
    ctx.state = /** @type {CustomEvent} */ (event).detail;
    ctx.review = null;
    loading = false;
    requestedFor = null;
    $("review-status").textContent = "";
    ctx.list.querySelectorAll(".review-mark").forEach((mark) => mark.remove());
    renderSummary(ctx, retryFrom);
    onStatus();
  });
  new MutationObserver(() => markList(ctx)).observe(ctx.list, { childList: true });
  new MutationObserver(onStatus).observe(document.body, { attributes: true, attributeFilter: ["data-status"] });
  markList(ctx);
  onStatus();
}

mount();
