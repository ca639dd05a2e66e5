// Estimates in words: a heuristic score (strictly between -1 and 1, from the
// side to move) read as "about even", "slightly better", "better" or "much
// better" (or worse). Where each word starts is the server's, per game
// (protocol.HEURISTIC_STEPS, in the page's config as info.steps): the page
// never restates the score convention.

/** @typedef {import("./types.js").GameInfo} GameInfo */
/** @typedef {Pick<GameInfo, "steps">} Steps */

const BETTER = ["slightly better", "better", "much better"];
const WORSE = ["slightly worse", "worse", "much worse"];

/**
 * How far an estimate leans: 0 (about even) to 3 (much better), signed.
 * @param {number} score
 * @param {Steps} info
 * @returns {number}
 */
export function estimateStep(score, info) {
  const size = Math.abs(score);
  let step = 0;
  for (const edge of info.steps) if (size >= edge && edge > 0) step += 1;
  return score < 0 ? -step : step;
}

/**
 * "slightly better" for the side to move, "about even", "much worse".
 * @param {number} score
 * @param {Steps} info
 * @returns {string}
 */
export function estimateWords(score, info) {
  const step = estimateStep(score, info);
  if (step === 0) return "about even";
  return step > 0 ? BETTER[step - 1] : WORSE[-step - 1];
}

/**
 * "Red is slightly better", "About even": an estimate from `side`'s view, named.
 * @param {number} score
 * @param {number} side
 * @param {Pick<GameInfo, "steps" | "players">} info
 * @returns {string}
 */
export function leaderWords(score, side, info) {
  const step = estimateStep(score, info);
  if (step === 0) return "About even";
  const leader = step > 0 ? side : 1 - side;
  return `${info.players[leader]} is ${BETTER[Math.abs(step) - 1]}`;
}
