// The rules the page needs to draw a position: where a move lands, whose
// stone is where, which moves are legal, the winning line. The server is the
// referee; this only mirrors what it decided so the board can be drawn (and
// an earlier position reviewed) without a round trip.
//
// A position is the string of moves played, first player first: tic-tac-toe
// cells "1"-"9" row by row from the top left, Connect Four columns "1"-"7"
// from the left. Cells are indexed row by row from the top left (0-based).

import { readJSON } from "./config.js";

/** @typedef {import("./types.js").GameInfo} GameInfo */
/** @typedef {import("./types.js").GameName} GameName */
/** A board's cells, row by row from the top left: the side whose stone is there, or null. @typedef {(number | null)[]} Cells */

// The exact-score convention comes from the server (webapp/engine/scores.py
// through protocol.client_config()): a win with the winner's k-th stone
// scores max_exact_score - k.
/** @type {Record<string, {max_exact_score: number, heuristic_steps?: number[]}>} */
const SCORES = readJSON("config")?.scores ?? {};

const CONNECT4 = {
  name: "connect4",
  label: "Connect Four",
  columns: 7,
  rows: 6,
  inARow: 4,
  moveNoun: "column",
  players: ["Red", "Yellow"],
};

const TICTACTOE = {
  name: "tictactoe",
  label: "Tic-tac-toe",
  columns: 3,
  rows: 3,
  inARow: 3,
  moveNoun: "cell",
  players: ["X", "O"],
};

/** @type {Record<GameName, typeof CONNECT4>} */
export const GAMES = { connect4: CONNECT4, tictactoe: TICTACTOE };

/**
 * A game's facts with the server's score convention (throws for an unknown game).
 * @param {string} name
 * @returns {GameInfo}
 */
export function gameInfo(name) {
  const info = GAMES[/** @type {GameName} */ (name)];
  if (!info) throw new Error(`unknown game ${name}`);
  const cells = info.columns * info.rows;
  const winBase = SCORES[name]?.max_exact_score;
  if (winBase === undefined) throw new Error(`the page’s config has no score convention for ${name}`);
  const steps = SCORES[name]?.heuristic_steps ?? [0, 0, 0];
  return { ...info, name: /** @type {GameName} */ (info.name), cells, winBase, steps, moveKeys: info.name === "connect4" ? 7 : 9 };
}

/**
 * The cell a move lands on in `cells` (null if illegal).
 * @param {GameInfo} info
 * @param {Cells} cells
 * @param {string} move
 * @returns {number | null}
 */
export function landingCell(info, cells, move) {
  const n = Number(move);
  if (!Number.isInteger(n) || n < 1) return null;
  if (info.name === "tictactoe") {
    return n <= 9 && cells[n - 1] === null ? n - 1 : null;
  }
  if (n > info.columns) return null;
  for (let row = info.rows - 1; row >= 0; row -= 1) {
    const cell = row * info.columns + (n - 1);
    if (cells[cell] === null) return cell;
  }
  return null;
}

/**
 * Replay `moves` (a string of digits). Returns the cells (0, 1 or null per
 * cell), the ply, the side to move, the cell of each move, the winner and
 * its line, and the legal moves. Stops at the first illegal move.
 * @param {string} gameName
 * @param {string} moves
 */
export function replay(gameName, moves) {
  const info = gameInfo(gameName);
  /** @type {Cells} */
  const cells = new Array(info.cells).fill(null);
  /** @type {number[]} */
  const placed = [];
  /** @type {number[] | null} */
  let winLine = null;
  for (const move of moves) {
    const cell = landingCell(info, cells, move);
    if (cell === null || winLine) break;
    cells[cell] = placed.length % 2;
    placed.push(cell);
    winLine = lineThrough(info, cells, cell);
  }
  const ply = placed.length;
  const full = ply === info.cells;
  const over = Boolean(winLine) || full;
  /** @type {Set<string>} */
  const legal = new Set();
  if (!over) {
    for (let m = 1; m <= info.moveKeys; m += 1) {
      if (landingCell(info, cells, String(m)) !== null) legal.add(String(m));
    }
  }
  return {
    info,
    moves: moves.slice(0, ply),
    cells,
    placed,
    ply,
    toMove: ply % 2,
    winner: winLine ? cells[winLine[0]] : null,
    winLine,
    over,
    legal,
  };
}

/**
 * The winning line (cell indexes) through `cell`, or null.
 * @param {GameInfo} info
 * @param {Cells} cells
 * @param {number} cell
 * @returns {number[] | null}
 */
export function lineThrough(info, cells, cell) {
  const who = cells[cell];
  const row = Math.floor(cell / info.columns);
  const col = cell % info.columns;
  for (const [dr, dc] of [[0, 1], [1, 0], [1, 1], [1, -1]]) {
    const line = [cell];
    for (const sign of [1, -1]) {
      let r = row + sign * dr;
      let c = col + sign * dc;
      while (r >= 0 && r < info.rows && c >= 0 && c < info.columns && cells[r * info.columns + c] === who) {
        line.push(r * info.columns + c);
        r += sign * dr;
        c += sign * dc;
      }
    }
    if (line.length >= info.inARow) return line.sort((a, b) => a - b);
  }
  return null;
}

/**
 * The cells where the moves of `line` land, played from position `from`.
 * @param {string} gameName
 * @param {string} from
 * @param {string} line
 */
export function lineCells(gameName, from, line) {
  const start = replay(gameName, from);
  const cells = start.cells.slice();
  const out = [];
  for (let i = 0; i < line.length; i += 1) {
    const cell = landingCell(start.info, cells, line[i]);
    if (cell === null) break;
    const player = (start.ply + i) % 2;
    cells[cell] = player;
    out.push({ cell, player, n: i + 1, move: line[i] });
  }
  return out;
}

/**
 * Stones in a Connect Four column (for the column's accessible name).
 * @param {GameInfo} info
 * @param {Cells} cells
 * @param {number} column 0-based
 */
export function columnHeight(info, cells, column) {
  let count = 0;
  for (let row = 0; row < info.rows; row += 1) {
    if (cells[row * info.columns + column] !== null) count += 1;
  }
  return count;
}

/**
 * A drawn board as GET /api/position takes it: "x", "o" or "." per cell, rows from the top.
 * @param {Cells} cells
 * @returns {string}
 */
export function boardText(cells) {
  return cells.map((who) => (who === 0 ? "x" : who === 1 ? "o" : ".")).join("");
}

/**
 * What a click in the position editor turns a cell into: empty, first player, second, empty.
 * @param {number | null} who
 * @returns {number | null}
 */
export function nextMark(who) {
  return who === null ? 0 : who === 0 ? 1 : null;
}

/**
 * Who moves in an edited position: the counts decide it, as they do in a real game
 * (the first player starts, the sides take turns). Equal counts: the first player;
 * one more of the first: the second. Any other count is no position (the server says
 * why): the side with fewer moves then.
 * @param {(number | null)[]} cells
 * @returns {0 | 1}
 */
export function sideToMove(cells) {
  const first = cells.filter((who) => who === 0).length;
  const second = cells.filter((who) => who === 1).length;
  return first > second ? 1 : 0;
}
