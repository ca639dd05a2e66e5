// Why the engine played a move its search did not rank best, in words.
//
// Easy and Medium play like people (webapp/engine/style.py): now and then a
// weaker move on purpose, and otherwise any move near the best. Such a move's
// result names the move played with its own score and line, and carries
// extra.style (why: one of the protocol's play_styles) and extra.strongest
// ({move, score, exact}: what the search found best). Without these words the
// panel's headline (the move played) and its depth table (the search's best
// line) would seem to contradict each other.

import { describeScore } from "./format.js";

/**
 * The name of the level that played `result`, or null when it is not sure:
 * `level` (the game's level when the move came) if that level has a style and
 * searches that deep, else the only such level, else none (the level was
 * changed since).
 */
export function levelName(levels, level, result) {
  const fits = (key) => Boolean(levels[key]?.style) && (levels[key].depth ?? Infinity) >= result.depth;
  if (fits(level)) return levels[level].label;
  const others = Object.keys(levels).filter(fits);
  return others.length === 1 ? levels[others[0]].label : null;
}

/**
 * null when `result` is a best move (or an analysis); otherwise
 * {kind: "weaker" | "near_equal", strongest, tag, text}: `tag` labels the move
 * played in the depth table (after the search's rows), `text` tells the story.
 * `ply`: the stones on the board when the engine moved (its scores are its own).
 */
export function styleNote(result, { info, styles, levels, level, ply }) {
  const style = result?.extra?.style;
  const strongest = result?.extra?.strongest;
  if (!style || !strongest || strongest.move === result.best_move) return null;
  const kind = style === styles.near_equal ? "near_equal" : "weaker";
  const who = levelName(levels, level, result) || "The engine";
  const name = (move) => `${info.moveNoun} ${move}`;
  const best = describeScore(strongest.score, strongest.exact, info, ply);
  const played = describeScore(result.score, result.exact, info, ply);
  // Two estimates may read alike ("slightly worse"): their numbers tell them apart.
  const alike = best.text === played.text;
  const words = (score) => (alike && score.number ? `${score.text}, ${score.number}` : score.text);
  const why =
    kind === "weaker"
      ? `${who} played ${name(result.best_move)} on purpose: now and then it plays a weaker move, so it can be beaten.`
      : `${who} played ${name(result.best_move)}, one of the moves close to its best: it picks among those at random, so its games vary.`;
  // Even their numbers may read alike (near-equal moves differ in the third decimal).
  const same = alike && best.number === played.number;
  const preferred = same
    ? `Its search rated ${name(strongest.move)} and ${name(result.best_move)} about the same (${words(best)}); ${name(strongest.move)} came first by a hair.`
    : `Its search preferred ${name(strongest.move)} (${words(best)}) to ${name(result.best_move)} (${words(played)}).`;
  return {
    kind,
    strongest,
    tag: "played instead",
    text: `${why} ${preferred}`,
  };
}
