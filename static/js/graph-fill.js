// The evaluation graph's positions this page did not see itself (before a
// reload, or before it joined a game in progress) filled from the game's
// review (GET /api/games/<id>/review). The review gives each move's value
// after it from the mover's side; the graph plots each position's value for
// its side to move, so a value is negated (the score convention is one scale
// for both sides). Only exact values come back: a position still unknown
// stays hollow. Render nothing here; the model keeps the values.

import { fetchReview } from "./analysis-api.js";

/** The review's entries as position values: moves -> {score, exact, depth} for the side to move there. */
export function reviewValues(entries) {
  const values = new Map();
  let moves = "";
  for (const entry of entries) {
    moves += entry.move;
    if (typeof entry.value_after === "number") values.set(moves, { score: -entry.value_after || 0, exact: true, depth: null });
  }
  return values;
}

/**
 * fill(moves): ask for the review of game `gameId` once per move string, hand
 * its values to `onValues`, and ask once more later while positions are pending.
 */
export function createGraphFill(gameId, onValues) {
  let asked = null;

  async function request(retry) {
    let answer;
    try {
      answer = await fetchReview(gameId);
    } catch {
      return; // the points stay hollow: the graph is a picture, never a promise
    }
    onValues(reviewValues(answer.entries));
    if (answer.pending && retry) setTimeout(() => request(false), answer.retryAfter * 1000);
  }

  return {
    fill(moves) {
      if (!moves || moves === asked) return;
      asked = moves;
      request(true);
    },
  };
}
