// Words and numbers for people: scores, node counts, rates, times.
//
// Scores come from the side to move at the searched position. Exact scores
// are integers: a win with the winner's k-th stone scores winBase - k, where
// winBase is the server's max_exact_score (rules.js gameInfo reads it from
// the page's config), a draw 0, a loss the negation.
// Heuristic scores are numbers strictly between -1 and 1, read in words
// (score-words.js, with the server's steps).

import { estimateWords } from "./score-words.js";

/**
 * A score in words (describeScore's answer); a board's badge adds `solving`.
 * @typedef {object} ScoreWords
 * @property {"win" | "loss" | "draw" | "heuristic" | "unknown"} kind
 * @property {string} text
 * @property {number | null} moves the winning side's moves still to play
 * @property {string} [number] an estimate's signed figure
 * @property {number | null} [depth]
 * @property {boolean} [solving]
 */

/**
 * Describe a score for the side to move at a position of `ply` stones.
 * Returns {kind: "win"|"loss"|"draw"|"heuristic"|"unknown", text, moves}
 * (and for an estimate `number`, its signed value, and `depth` if given).
 * `moves` counts the winning side's moves still to play (the move being
 * scored included when the side to move wins).
 * @param {number | null | undefined} score
 * @param {boolean} exact
 * @param {Pick<import("./types.js").GameInfo, "steps" | "winBase">} info
 * @param {number | null | undefined} ply
 * @param {number | null} [depth]
 * @returns {ScoreWords}
 */
export function describeScore(score, exact, info, ply, depth = null) {
  if (score === null || score === undefined) return { kind: "unknown", text: "–", moves: null };
  if (!exact) {
    const text = estimateWords(score, info) + (depth ? ` · depth ${depth}` : "");
    return { kind: "heuristic", text, moves: null, number: signed(score), depth };
  }
  if (score === 0) return { kind: "draw", text: "draw", moves: null };
  const winnerFinalStones = info.winBase - Math.abs(score);
  if (ply === null || ply === undefined) {
    return { kind: score > 0 ? "win" : "loss", text: score > 0 ? "win" : "loss", moves: null };
  }
  // The side to move has played floor(ply / 2) stones, the other side the rest.
  const moverStones = Math.floor(ply / 2);
  const otherStones = ply - moverStones;
  if (score > 0) {
    const n = Math.max(1, winnerFinalStones - moverStones);
    return { kind: "win", text: `win in ${n}`, moves: n };
  }
  const n = Math.max(1, winnerFinalStones - otherStones);
  return { kind: "loss", text: `loss in ${n}`, moves: n };
}

/**
 * The number of the move (a pair: one stone or mark each) that brings the board to
 * `ply`, as the move list and the review number their rows: plies 1 and 2 are move 1.
 * @param {number} ply
 */
export function moveNumber(ply) {
  return Math.ceil(ply / 2);
}

/**
 * "move 8, Red": the move after which the board stands at `ply`, numbered as the
 * move list numbers its rows (a move is a pair: one stone or mark each).
 * @param {number} ply
 * @param {string[]} players
 */
export function moveName(ply, players) {
  return `move ${moveNumber(ply)}, ${players[(ply - 1) % 2]}`;
}

/** "+0.12", "−0.05", "0.00": a heuristic score with its sign. @param {number} value */
export function signed(value) {
  const fixed = Math.abs(value).toFixed(2);
  if (Number(fixed) === 0) return "0.00";
  return `${value > 0 ? "+" : "\u2212"}${fixed}`;
}

const grouping = new Intl.NumberFormat("en-US");

/** 1234567 -> "1,234,567". @param {number} n */
export function count(n) {
  return Number.isFinite(n) ? grouping.format(Math.round(n)) : "–";
}

/** Nodes per second, compact: "845 k/s" below a million, "1.0 M/s", "14.7 M/s" from there. */
export function rate(/** @type {number} */ nodes, /** @type {number} */ ms) {
  if (!Number.isFinite(nodes) || !Number.isFinite(ms) || ms <= 0) return "–";
  const perSecond = (nodes * 1000) / ms;
  // Rounded first, so 999,700/s reads "1.0 M/s", never "1000 k/s".
  if (Math.round(perSecond / 1e3) >= 1000) return `${(perSecond / 1e6).toFixed(1)} M/s`;
  if (Math.round(perSecond) >= 1000) return `${Math.round(perSecond / 1e3)} k/s`;
  return `${Math.round(perSecond)} /s`;
}

/**
 * Milliseconds as "0.41 ms", "840 ms" or "2.41 s": a search of a few milliseconds keeps
 * its small digits, so its speed beside it can be read from it (a "0 ms" beside "35 k/s"
 * and another "0 ms" beside "50 k/s" puzzled a new user).
 */
export function duration(/** @type {number} */ ms) {
  if (!Number.isFinite(ms)) return "–";
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** A ratio such as "12.4×" (null when it means nothing). */
export function ratio(/** @type {number} */ a, /** @type {number} */ b) {
  if (!(a > 0) || !(b > 0)) return null;
  const r = a / b;
  return `${r >= 100 ? r.toFixed(0) : r.toFixed(1)}\u00d7`;
}
