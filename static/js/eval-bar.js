// The evaluation bar beside the board: who is winning at a glance. An exact
// value reads in words ("Red wins with best play, in 9 of Red's moves"); an
// estimate moves the bar and reads "Red is slightly better". Render-only.

import { describeScore } from "./format.js";
import { leaderWords } from "./score-words.js";

/**
 * Where the bar stands for a value `{score, exact}` of the side to move
 * `side`: the first player's share, 0..1 (0.5 even). Exact results sit at
 * the ends (or the middle for a draw); estimates lean by the server's steps.
 */
export function firstPlayerShare(value, side, info) {
  if (!value) return 0.5;
  const forFirst = side === 0 ? value.score : -value.score;
  if (value.exact) return forFirst > 0 ? 1 : forFirst < 0 ? 0 : 0.5;
  const top = info.steps[info.steps.length - 1] || 1;
  return 0.5 + 0.4 * Math.max(-1, Math.min(1, forFirst / top));
}

/** The bar's words for position of `ply` stones, worth `value` to the side to move. */
export function evalWords(value, ply, info, over) {
  if (over) return over.winner === null ? "Drawn" : `${info.players[over.winner]} won`;
  if (!value) return "Evaluating…";
  const side = ply % 2;
  if (!value.exact) {
    const depth = value.depth ? ` (search depth ${value.depth})` : "";
    return `${leaderWords(value.score, side, info)}${depth}`;
  }
  if (value.score === 0) return "Draw with best play";
  const words = describeScore(value.score, true, info, ply);
  const winner = value.score > 0 ? side : 1 - side;
  const name = info.players[winner];
  const n = words.moves;
  return `${name} wins with best play, in ${n} of ${name}’s ${n === 1 ? "move" : "moves"}`;
}

/** The bar in `track` (beside the board) and its words in `text` (under it). */
export function createEvalBar({ track, text }, info) {
  track.classList.add("eval-track");
  track.setAttribute("aria-hidden", "true"); // the words say it all
  const fill = document.createElement("div");
  fill.className = "eval-fill";
  track.replaceChildren(fill);
  const root = text;

  /** value: {score, exact, depth} for the side to move at `ply`, or null; over: {winner} or null. */
  function render({ value, ply, over }) {
    let share = firstPlayerShare(value, ply % 2, info);
    if (over) share = over.winner === null ? 0.5 : over.winner === 0 ? 1 : 0;
    fill.style.setProperty("--share", String(share));
    const kind = over ? "over" : !value ? "unknown" : value.exact ? "exact" : "estimate";
    root.dataset.kind = track.dataset.kind = kind;
    track.dataset.share = share.toFixed(2);
    text.textContent = evalWords(value, ply, info, over);
  }

  return { render };
}
