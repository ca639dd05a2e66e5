// The evaluation bar beside the board: who is winning at a glance. An exact
// value reads in words ("Red wins with best play, in 9 of Red's moves"); an
// estimate moves the bar and reads "Red is slightly better". Beside the words
// a figure says it in short: a result ("Red wins in 9", "Draw") or an
// estimate's number from the first player's side ("+0.12"). Render-only.

import { describeScore, signed } from "./format.js";
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

/**
 * The bar's figure: "Red wins in 9", "Draw" when exact; an estimate's number from the
 * first player's side ("+0.12": the first player better, "−0.05": the second), as the
 * bar leans; "" once over (the words say who won) or when nothing is known.
 */
export function evalFigure(value, ply, info, over) {
  if (over || !value) return ""; // over: the words say it ("Red won"), once is enough
  const side = ply % 2;
  if (!value.exact) return signed(side === 0 ? value.score : -value.score);
  if (value.score === 0) return "Draw";
  const winner = value.score > 0 ? side : 1 - side;
  return `${info.players[winner]} wins in ${describeScore(value.score, true, info, ply).moves}`;
}

/** The bar's words for position of `ply` stones, worth `value` to the side to move. */
export function evalWords(value, ply, info, over) {
  if (over) return over.winner === null ? "Drawn" : `${info.players[over.winner]} won`;
  if (!value) return "Evaluating…";
  const side = ply % 2;
  if (!value.exact) {
    const notes = [value.depth ? `search depth ${value.depth}` : "", value.solving ? "solving…" : ""];
    const note = notes.filter(Boolean).join(", ");
    return `${leaderWords(value.score, side, info)}${note ? ` (${note})` : ""}`;
  }
  if (value.score === 0) return "Draw with best play";
  const words = describeScore(value.score, true, info, ply);
  const winner = value.score > 0 ? side : 1 - side;
  const name = info.players[winner];
  const n = words.moves;
  if (n === 1) return `${name} wins with best play, with ${name}’s next move`;
  return `${name} wins with best play, in ${n} of ${name}’s moves`;
}

/** The bar in `track` (beside the board), its words in `text` and its figure in `figure`. */
export function createEvalBar({ track, text, figure }, info) {
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
    if (figure) {
      figure.textContent = evalFigure(value, ply, info, over);
      // "Draw" beside "Draw with best play" says it twice: the words alone then.
      figure.hidden = !figure.textContent || text.textContent.startsWith(figure.textContent);
      figure.dataset.kind = kind;
      const leader = over ? over.winner : share > 0.5 ? 0 : share < 0.5 ? 1 : null;
      figure.dataset.leader = leader === null ? "none" : String(leader);
    }
  }

  return { render };
}
