// The board's scores of an earlier position this page never saw live (after a
// reload, or for a spectator who joined later): when the player steps back to
// one, the server's analysis of it (GET /api/analysis, the same strongest
// analysis as the live scores, exact where solved) is asked for, once the page
// has stayed on it a moment (stepping through with the arrow keys asks for
// nothing on the way), and asked again while the server says "not yet".
// Leaving the position cancels the question; a position is asked for to the
// end once (answered, refused or given up), never again. Render nothing here.

import { fetchAnalysis } from "./analysis-api.js";

/** Milliseconds a position stays shown before its scores are asked for: longer than a
 * step through the moves with the arrow keys, each of which would start a search. */
export const SETTLE_MS = 700;
/** How many times the page asks (a "not yet", or "busy, try later") before it gives up
 * (the board stays bare). */
export const MAX_ASKS = 6;
/** Answers that mean "later": too many of this browser's searches under way, a full server
 * (and no answer at all: the network). */
const LATER = new Set([429, 503, undefined]);

/**
 * want(moves): the position the page shows and lacks scores for (null: none);
 * asking(moves): whether its scores are being asked for now (the page says so).
 * `onScores(payload)` gets a scores payload {moves, move_scores, complete, solving};
 * `onEnd()` is called when the question of the position still shown ends (answered,
 * refused or given up), so that the page stops saying it is asking.
 * `fetcher` and `wait` are the network and the clock (replaced in tests).
 */
export function createScoresFill(game, onScores, { fetcher = fetchAnalysis, wait = sleep, onEnd = () => {} } = {}) {
  /** @type {{moves: string, controller: AbortController} | null} */
  let current = null;
  /** Positions asked for to the end. */
  const settled = new Set();

  async function ask(moves, signal) {
    await wait(SETTLE_MS, signal);
    for (let asks = 0; asks < MAX_ASKS; asks += 1) {
      let answer;
      try {
        answer = await fetcher(game, moves, signal);
      } catch (error) {
        if (signal.aborted || !LATER.has(error.status)) throw error;
        answer = { pending: true, retryAfter: error.retryAfter || 2 };
      }
      if (!answer.pending) {
        onScores({ moves, move_scores: withDepths(answer), complete: Boolean(answer.complete), solving: false });
        return;
      }
      await wait(answer.retryAfter * 1000, signal);
    }
  }

  return {
    want(/** @type {string | null} */ moves) {
      if (current && current.moves === moves) return;
      current?.controller.abort();
      current = null;
      if (moves === null || settled.has(moves)) return;
      const controller = new AbortController();
      const asked = { moves, controller };
      current = asked;
      ask(moves, controller.signal)
        .then(
          () => settled.add(moves),
          // A refusal or no network: the board stays without scores. An abort: asked anew
          // when the position is shown again.
          () => controller.signal.aborted || settled.add(moves),
        )
        .finally(() => {
          if (current !== asked) return; // left meanwhile: the page shows another position
          current = null;
          onEnd();
        });
    },
    asking(/** @type {string} */ moves) {
      return current !== null && current.moves === moves;
    },
  };
}

/** The answer's scores, each estimate with the depth it was searched to (the answer's). */
function withDepths(answer) {
  const scores = {};
  for (const [move, value] of Object.entries(answer.move_scores || {})) {
    scores[move] = value.exact || value.depth || !answer.depth ? value : { ...value, depth: answer.depth };
  }
  return scores;
}

/** Resolve after `ms`, or reject at once when `signal` aborts. */
export function sleep(/** @type {number} */ ms, /** @type {AbortSignal} */ signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}
