// What a board shows, computed from the game and the page's choices: the
// position, whether clicks count, the scores of the side to move's options
// and the engine's expected line. Kept apart from the board components so
// both games share it.

import { createConnect4Board } from "./board-connect4.js";
import { createTicTacToeBoard } from "./board-tictactoe.js";
import { describeScore } from "./format.js";
import { gameInfo, landingCell, lineCells, replay } from "./rules.js";

/** The expected line drawn on the board stops here (the text shows all of it). */
const MAX_GHOSTS = 12;

/** Mount the board component for `game` in `host`. */
export function createBoard(host, game, onPlay) {
  const info = gameInfo(game);
  const make = game === "connect4" ? createConnect4Board : createTicTacToeBoard;
  return make(host, { onPlay, info });
}

/**
 * The view a board draws.
 * - moves: the position to show;
 * - interactive: whether a click may become a move;
 * - review: an earlier position is shown;
 * - scores: the side to move's options at this very position
 *   ({move: {score, exact, depth?}}, a `scores` event's), or null;
 * - solving: the server is still solving them (an estimate reads "solving…");
 * - line: {from, pv} an expected line to draw from position `from`, or null;
 * - best: the best moves to ring on the board (where each would land), or null.
 * @param {object} options
 * @param {import("./types.js").GameName} options.game
 * @param {string} options.moves
 * @param {boolean} options.interactive
 * @param {boolean} [options.review]
 * @param {import("./types.js").MoveScores | null} [options.scores]
 * @param {boolean} [options.solving]
 * @param {{from: string, pv: string} | null} [options.line]
 * @param {string[] | null} [options.best]
 */
export function boardView({ game, moves, interactive, review = false, scores = null, solving = false, line = null, best = null }) {
  const position = replay(game, moves);
  const view = {
    moves: position.moves,
    cells: position.cells,
    toMove: position.toMove,
    legal: position.legal,
    over: position.over,
    lastCell: position.placed.length ? position.placed[position.placed.length - 1] : null,
    winLine: position.winLine,
    interactive: Boolean(interactive) && !position.over,
    review: Boolean(review),
    scores: /** @type {Record<string, any> | null} */ (null),
    ghosts: /** @type {any[]} */ ([]),
    bestCells: /** @type {number[]} */ ([]),
  };
  if (best && !position.over) {
    view.bestCells = best.map((move) => landingCell(position.info, position.cells, move)).filter((cell) => cell !== null);
  }
  if (scores && !position.over) view.scores = moveScores(position.info, position.moves, scores, solving);
  if (line && line.pv) {
    view.ghosts = lineCells(game, line.from, line.pv.slice(0, MAX_GHOSTS)).map((g) => ({
      ...g,
      occupied: position.cells[g.cell] !== null,
    }));
  }
  return view;
}

/**
 * Every option's score in words, for the side to move at `from`; the best ones marked.
 * `solving`: the exact pass is under way, so an estimate says "solving…" beside its depth.
 */
export function moveScores(info, from, values, solving = false) {
  const entries = Object.entries(values || {});
  if (!entries.length) return null;
  const top = Math.max(...entries.map(([, v]) => v.score));
  const scores = {};
  for (const [move, value] of entries) {
    const words = describeScore(value.score, value.exact, info, from.length, value.depth ?? null);
    if (solving && !value.exact) {
      words.text = `${words.text}${value.depth ? ", " : " · "}solving…`;
      words.solving = true;
    }
    scores[move] = { ...words, best: value.score === top };
  }
  return scores;
}

/**
 * The moves whose score is the top one among `values` ({move: {score}}), or [] for none.
 * @param {Record<string, {score: number}> | null | undefined} values
 * @returns {string[]}
 */
export function topMoves(values) {
  const entries = Object.entries(values || {});
  if (!entries.length) return [];
  const top = Math.max(...entries.map(([, v]) => v.score));
  return entries.filter(([, v]) => v.score === top).map(([move]) => move);
}
