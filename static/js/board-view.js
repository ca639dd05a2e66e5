// What a board shows, computed from the game and the page's choices: the
// position, whether clicks count, the engine's scores and its line. Kept
// apart from the board components so both games share it.

import { createConnect4Board } from "./board-connect4.js";
import { createTicTacToeBoard } from "./board-tictactoe.js";
import { describeScore } from "./format.js";
import { gameInfo, lineCells, replay } from "./rules.js";

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
 * - overlay: {from, result, showLine} the engine's analysis of position
 *   `from` (its scores and principal variation), or null.
 */
export function boardView({ game, moves, interactive, review, overlay }) {
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
    scores: null,
    ghosts: [],
  };
  if (overlay && overlay.result) {
    view.scores = moveScores(position.info, overlay.from, overlay.result);
    if (overlay.showLine && overlay.result.pv) {
      const line = overlay.result.pv.slice(0, MAX_GHOSTS);
      view.ghosts = lineCells(game, overlay.from, line).map((g) => ({
        ...g,
        occupied: position.cells[g.cell] !== null,
      }));
    }
  }
  return view;
}

/** Every candidate's score in words, from the side to move at `from`. */
export function moveScores(info, from, result) {
  const scores = {};
  const entries = Object.entries(result.move_scores || {});
  if (!entries.length) return null;
  for (const [move, value] of entries) {
    scores[move] = { ...describeScore(value.score, value.exact, info, from.length), best: move === result.best_move };
  }
  return scores;
}
