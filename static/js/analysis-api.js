// The analysis endpoints: GET /api/analysis (a position's scores, side to
// move) and GET /api/games/<id>/review. Both may answer "not yet": the
// caller decides whether to ask again after `retryAfter` seconds.

import { send } from "./api.js";

const getJSON = (url, signal) => send("GET", url, { signal });

/**
 * A position's analysis: {pending: true, retryAfter} while the server still
 * searches (ask again), else the answer {moves, to_move, score, exact,
 * best_moves, move_scores, depth, book, complete}.
 */
export async function fetchAnalysis(game, moves, signal) {
  const query = new URLSearchParams({ game, moves });
  const { data, status, retryAfter } = await getJSON(`/api/analysis?${query}`, signal);
  if (status === 202) return { pending: true, retryAfter: retryAfter || 2 };
  return data;
}

/** A game's review: {entries, pending (positions still unknown), retryAfter}. */
export async function fetchReview(gameId, signal) {
  const url = `/api/games/${encodeURIComponent(gameId)}/review`;
  const { data, retryAfter, headers } = await getJSON(url, signal);
  return { entries: data, pending: Number(headers.get("X-Review-Pending")) || 0, retryAfter: retryAfter || 2 };
}

/** A game's state (public): {game, moves, status, winner, seat, human_side, settings ...}. */
export async function fetchGame(gameId, signal) {
  const { data } = await getJSON(`/api/games/${encodeURIComponent(gameId)}`, signal);
  return data;
}

/** The settings a new game "from here" keeps from `settings`, the viewer playing `side`. */
export function settingsFor(settings, side) {
  const kept = { level: settings.level, algorithm: settings.algorithm };
  if (settings.level === "custom") Object.assign(kept, { depth: settings.depth, time: settings.time });
  return { ...kept, engine_plays: side === 0 ? "second" : "first" };
}
