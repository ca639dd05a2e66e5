// "Learn from your mistakes": which moves of a game to drill, and whether a try
// keeps the result. Pure (no DOM): the page is learn.js.
//
// The moves come from the game's exact review (GET /api/games/<id>/review): a
// mover's mistake (a win became a draw, or a draw a loss) or blunder (a win
// became a loss). A try is judged by the exact scores of the position before
// (GET /api/analysis): it keeps the result when its value is of the same kind
// (win, draw, loss) as the position's.

/** @typedef {import("./review-classes.js").ReviewEntry} ReviewEntry */

/** The classes a drill steps through. */
export const DRILLED = ["mistake", "blunder"];

/**
 * The moves to drill: `side`'s mistakes and blunders (every side's for null), in order.
 * @param {ReviewEntry[]} entries
 * @param {number | null} side
 * @returns {ReviewEntry[]}
 */
export function drillEntries(entries, side) {
  return entries.filter(
    (entry) => !entry.preset && entry.class !== null && DRILLED.includes(entry.class) && (side === null || entry.player === side),
  );
}

/**
 * "win", "draw" or "loss": the kind of result of a score from the mover's side.
 * @param {number} score
 */
export function resultWord(score) {
  return score > 0 ? "win" : score < 0 ? "loss" : "draw";
}

/**
 * The verdict on trying `move` in a position, from its analysis `answer`:
 * `keeps` (the move keeps the position's result), `best` (one of the best moves),
 * `result` (the position's result) and `after` (the move's, or null when the move
 * was not solved exactly: then `keeps` is null too, unknown).
 * @param {{score: number, exact: boolean, best_moves: string[], move_scores: Record<string, {score: number, exact: boolean}>}} answer
 * @param {string} move
 * @returns {{keeps: boolean | null, best: boolean, result: string, after: string | null}}
 */
export function judgeTry(answer, move) {
  const result = resultWord(answer.score);
  const value = answer.move_scores[move];
  const best = answer.best_moves.includes(move);
  if (!value || !value.exact || !answer.exact) return { keeps: best ? true : null, best, result, after: null };
  const after = resultWord(value.score);
  return { keeps: after === result, best, result, after };
}
