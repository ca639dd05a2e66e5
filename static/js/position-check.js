// The analysis board's own checks of a typed move sequence and of a drawn
// position, before it asks the server (GET /api/position): a refusal the
// page can see for itself is said at once, in the server's words
// (webapp/games/notation.py), and never becomes a 400 in the console. The
// server stays the referee: it checks again, and alone finds a move order
// that reaches a drawn board.

import { gameInfo, lineThrough, replay } from "./rules.js";

/** What may stand between two moves of a typed sequence (notation.py's SEPARATORS). */
const SEPARATORS = /[\s,;.-]+/g;
/** Connect Four's columns as letters, left to right. */
const COLUMN_LETTERS = "abcdefg";
/** Why a word with both letters and digits is refused (notation.py's MIXED). */
const MIXED = "letters and digits in one word: write the columns as 1-7 or as a-g";
/** The most positions the backward search looks at (notation.py's STATES_SEARCHED). */
const STATES_SEARCHED = 5_000;

/**
 * A typed sequence ("4453", "4 4 5 3", "ddec") as the app's move string, or the
 * sentence that refuses it: "Move 7 (1): column 1 is full."
 * @param {string} game
 * @param {string} text
 * @returns {{moves: string, error: null} | {moves: null, error: string}}
 */
export function readSequence(game, text) {
  const info = gameInfo(game);
  let moves = "";
  if (info.name === "connect4") { // "d4" is a chess square, not two columns: say so, never guess
    let before = 0;
    for (const word of text.trim().split(SEPARATORS)) {
      if (/[a-g]/i.test(word) && /\d/.test(word)) return { moves: null, error: `Move ${before + 1} (${word}): ${MIXED}.` };
      before += word.length;
    }
  }
  const typed = [...text.trim().replace(SEPARATORS, "")];
  for (const [index, move] of typed.entries()) {
    const refuse = (/** @type {string} */ reason) => ({ moves: null, error: `Move ${index + 1} (${move}): ${reason}.` });
    const letter = info.name === "connect4" ? COLUMN_LETTERS.indexOf(move.toLowerCase()) : -1;
    const digit = letter >= 0 ? String(letter + 1) : move;
    if (!/^[1-9]$/.test(digit) || Number(digit) > info.moveKeys) {
      return refuse(`'${move}' ${info.name === "connect4" ? "is not a column (1-7 or a-g)" : "is not a cell (1-9)"}`);
    }
    const position = replay(game, moves);
    if (position.over) return refuse("the game is already over");
    if (!position.legal.has(digit)) return refuse(`${info.moveNoun} ${digit} is ${info.name === "connect4" ? "full" : "taken"}`);
    moves += digit;
  }
  return { moves, error: null };
}

/**
 * Why no game reaches a drawn board (`cells` row by row from the top left, 0 the first
 * player, 1 the second, null empty) with `toMove` to move, or null when the page sees no
 * reason (the server still looks for a move order that reaches it).
 * @param {string} game
 * @param {(number | null)[]} cells
 * @param {number} toMove
 * @returns {string | null}
 */
export function boardProblem(game, cells, toMove) {
  const info = gameInfo(game);
  const [first, second] = info.players;
  const counts = [0, 1].map((side) => cells.filter((who) => who === side).length);
  if (!(counts[1] <= counts[0] && counts[0] <= counts[1] + 1)) {
    return `${first} has ${counts[0]} and ${second} ${counts[1]}: ${first} moves first, so ${first} has as many as ${second} or one more.`;
  }
  if (info.name === "connect4") {
    for (let cell = 0; cell < (info.rows - 1) * info.columns; cell += 1) {
      if (cells[cell] !== null && cells[cell + info.columns] === null) {
        return `A disc floats in column ${(cell % info.columns) + 1}: the cell under it is empty.`;
      }
    }
  }
  const mover = (counts[0] + counts[1]) % 2;
  const winners = [0, 1].filter((side) => cells.some((who, cell) => who === side && lineThrough(info, cells, cell)));
  if (winners.length === 2) return `Both ${first} and ${second} have a line: one game has one winner.`;
  if (winners.length === 1 && winners[0] !== 1 - mover) {
    const winner = info.players[winners[0]];
    return `${winner} has a line, so the game ended on ${winner}'s move, but the counts say ${info.players[1 - mover]} moved last.`;
  }
  if (toMove !== mover) {
    return `With ${counts[0]} ${first} and ${counts[1]} ${second}, ${info.players[mover]} is to move, not ${info.players[toMove]}.`;
  }
  const bottom = cells.slice((info.rows - 1) * info.columns);
  if (info.name === "connect4" && counts[0] && !bottom.includes(0)) {
    return `The first disc is ${first}'s, so some ${first} disc lies on the bottom row: none does.`;
  }
  const order = reachable(info, cells);
  if (order === "tangled") {
    return "This position takes too long to trace back to a start: type its moves instead, or draw a simpler one.";
  }
  if (!order) {
    return "No order of moves reaches this position: every way back to the start makes a line before the last move, or needs a move out of turn.";
  }
  return null;
}

/**
 * Whether some game reaches `drawn`, found backwards (take back the last stone, never
 * through a position with a line): true, false, or "tangled" past STATES_SEARCHED.
 * @param {import("./types.js").GameInfo} info
 * @param {(number | null)[]} drawn
 * @returns {boolean | "tangled"}
 */
function reachable(info, drawn) {
  const cells = drawn.slice();
  const lineOf = (/** @type {number} */ side) => cells.some((who, cell) => who === side && lineThrough(info, cells, cell) !== null);
  /** The cells the last mover `side` could have played last. */
  const lastStones = (/** @type {number} */ side) => {
    if (info.name === "tictactoe") return cells.flatMap((who, cell) => (who === side ? [cell] : []));
    const tops = [];
    for (let column = 0; column < info.columns; column += 1) {
      for (let cell = column; cell < cells.length; cell += info.columns) {
        if (cells[cell] === null) continue;
        if (cells[cell] === side) tops.push(cell);
        break;
      }
    }
    return tops;
  };
  const failed = new Set();
  let searched = 0;
  /** @returns {boolean} */
  const back = (/** @type {number} */ stones) => {
    if (stones === 0) return true;
    const key = cells.map((who) => who ?? ".").join("");
    if (failed.has(key)) return false;
    searched += 1;
    if (searched > STATES_SEARCHED) throw new RangeError("tangled");
    const last = (stones - 1) % 2;
    for (const cell of lastStones(last)) {
      cells[cell] = null;
      // before the last move nobody had a line, else the game was already over
      const found = !lineOf(0) && !lineOf(1) && back(stones - 1);
      cells[cell] = last;
      if (found) return true;
    }
    failed.add(key);
    return false;
  };
  try {
    return back(cells.filter((who) => who !== null).length);
  } catch (error) {
    if (error instanceof RangeError && error.message === "tangled") return "tangled";
    throw error;
  }
}
