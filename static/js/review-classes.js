// The review's classes of moves and what the summary counts: pure (no DOM),
// shared by the review panel (review-panel.js) and its unit tests.

/**
 * One move of a game's review (GET /api/games/<id>/review): its class by the
 * exact result it keeps (null when not solved in time), values from the mover's side.
 * @typedef {object} ReviewEntry
 * @property {number} ply
 * @property {string} move
 * @property {0 | 1} player
 * @property {"best" | "inaccuracy" | "mistake" | "blunder" | null} class
 * @property {boolean} [preset]
 * @property {number} value_before
 * @property {number} value_after
 * @property {string[]} best_moves
 */

/** The classes, best first: the symbol and the word shown, and what they mean. */
export const CLASSES = {
  best: { symbol: "!", word: "best", meaning: "kept the best result" },
  inaccuracy: { symbol: "?!", word: "inaccuracy", meaning: "kept the result, but wins slower or loses faster" },
  mistake: { symbol: "?", word: "mistake", meaning: "a win became a draw, or a draw a loss" },
  blunder: { symbol: "??", word: "blunder", meaning: "a win became a loss" },
};
/** A move the game was made with (a link with moves=): played by neither side, judged as no one's. */
export const PRESET = { symbol: "·", word: "preset", meaning: "on the board when the game was made" };
/** Counts per side and class (preset moves apart: no one's), and the moves where the
 * result with best play changed. */
export function summarise(/** @type {ReviewEntry[]} */ entries) {
  const counts = [0, 1].map(() => Object.fromEntries([...Object.keys(CLASSES), "unknown"].map((c) => [c, 0])));
  const played = entries.filter((entry) => !entry.preset);
  for (const entry of played) counts[entry.player][entry.class ?? "unknown"] += 1;
  const turns = played.filter((e) => e.class === "mistake" || e.class === "blunder");
  return { counts, turns, preset: entries.length - played.length };
}

/** "a win became a loss" (values from the mover's side). */
export function change(/** @type {ReviewEntry} */ entry) {
  const word = (/** @type {number} */ v) => (v > 0 ? "win" : v < 0 ? "loss" : "draw");
  return `a ${word(entry.value_before)} became a ${word(entry.value_after)}`;
}

/**
 * A side's name in the review: "Red (you)", "X (engine)"; in a game between two
 * people "O (your friend)" for its players and the side's name alone for spectators
 * (no engine plays in it).
 * @param {{seat?: string, opponent?: string, human_side: number, engine_side: number | null}} state
 * @param {string[]} players the sides' names
 * @param {number} side
 */
export function sideLabel(state, players, side) {
  const colour = players[side];
  if (state.opponent === "friend") {
    if (state.seat !== "player") return colour;
    return `${colour} (${side === state.human_side ? "you" : "your friend"})`;
  }
  if (state.seat === "player") return `${colour} (${side === state.human_side ? "you" : "engine"})`;
  return `${colour} (${side === state.engine_side ? "engine" : "player"})`;
}

/** How a game between two people ended other than by the rules, after the loser's name. */
const LOSER_ENDS = { resign: "resigned", flag: "ran out of time", abandon: "left the game" };

/**
 * The review's first line: the result, and how a game between two people ended when it
 * was not on the board ("X (you) won. O (your friend) resigned."): without it, "X won"
 * beside "the result with best play never changed" read as a contradiction.
 * @param {{status: string, winner: number | null, moves: string, opponent?: string,
 *   seat?: string, human_side: number, engine_side: number,
 *   friend?: {end?: string | null} | null}} state
 * @param {string[]} players
 */
export function resultText(state, players) {
  const end = state.friend?.end ?? null;
  const moves = `${state.moves.length} move${state.moves.length === 1 ? "" : "s"}`;
  if (state.status === "won" && state.winner !== null) {
    const how = end && end in LOSER_ENDS ? ` ${sideLabel(state, players, 1 - state.winner)} ${LOSER_ENDS[/** @type {keyof typeof LOSER_ENDS} */ (end)]}.` : "";
    return `${sideLabel(state, players, state.winner)} won.${how}`;
  }
  if (state.status === "drawn") return end === "agreement" ? "Draw by agreement." : "Draw.";
  if (state.status === "aborted") return `Game aborted after ${moves}.`; // as the headline says it
  return `In progress, after ${moves}.`;
}
