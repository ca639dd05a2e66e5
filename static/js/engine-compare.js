// The engine panel's "same position, same depth" comparison: minimax and
// alpha-beta on the position before the engine's last move, searched by the
// server (GET /api/compare) to one depth, each timed by the engine's own clock
// as the best of its runs. One small table and a sentence.
//
// The game's moves and who the engine is are read from the server at the
// click (never stale), as the tree link does.

import { count, describeScore, duration, ratio } from "./format.js";
import { gameInfo } from "./rules.js";
import { valueText } from "./tree-model.js";

/**
 * One algorithm's search, as GET /api/compare answers it.
 * @typedef {{algorithm: string, nodes: number, time_ms: number, runs: number,
 *   best_move: string, score: number, exact: boolean, depth: number}} CompareRow
 */

/**
 * The position before the engine's last move: the moves before it, or null if it has
 * not moved. The engine moves at even plies when it plays first, odd ones when second.
 * @param {string} moves
 * @param {string} enginePlays "first" or "second"
 * @returns {string | null}
 */
export function beforeEngineMove(moves, enginePlays) {
  const parity = enginePlays === "first" ? 0 : 1;
  let ply = moves.length - 1;
  if (ply >= 0 && ply % 2 !== parity) ply -= 1;
  return ply >= 0 ? moves.slice(0, ply) : null;
}

/**
 * The comparison in one sentence: the same move and value, then what each one cost.
 * The time is never said to favour the larger search when it does not: when alpha-beta
 * took longer, the sentence says so and why (its time per node).
 * `side`: the position's game and ply, to say the value in words for the side to move
 * ("slightly better for Yellow"); without it, the bare number.
 * @param {CompareRow} minimax
 * @param {CompareRow} alphabeta
 * @param {string} moveNoun "cell" or "column"
 * @param {{game: string, ply: number} | null} [side]
 */
export function compareSentence(minimax, alphabeta, moveNoun, side = null) {
  const same = minimax.best_move === alphabeta.best_move
    ? `both choose ${moveNoun} ${alphabeta.best_move}`
    : `they choose ${moveNoun} ${minimax.best_move} and ${moveNoun} ${alphabeta.best_move}, equally good`;
  const value = minimax.score === alphabeta.score ? `, ${valueWords(alphabeta, side)}` : "";
  const cost = `Alpha-beta visited ${count(alphabeta.nodes)} nodes in ${duration(alphabeta.time_ms)}; ` +
    `minimax ${count(minimax.nodes)} in ${duration(minimax.time_ms)}`;
  return `To depth ${alphabeta.depth}, ${same}${value}. ${cost}: ${costWords(minimax, alphabeta)}.`;
}

/** What the two searches cost, minimax's against alpha-beta's, never said backwards. */
function costWords(/** @type {CompareRow} */ minimax, /** @type {CompareRow} */ alphabeta) {
  if (minimax.nodes < alphabeta.nodes) return FEWER_NODES;
  const nodes = ratio(minimax.nodes, alphabeta.nodes);
  const said = nodes ? `${nodes} the nodes` : "as many nodes";
  if (alphabeta.time_ms > minimax.time_ms) {
    return `${said}, yet alpha-beta took longer: each of its nodes costs more (move ordering, the table, deepening pass by pass), which only pays off on larger trees`;
  }
  const faster = ratio(minimax.time_ms, alphabeta.time_ms);
  return faster ? `${said}, ${faster} the time` : said;
}

/** Why alpha-beta can visit more nodes than minimax on a small tree. */
export const FEWER_NODES =
  "alpha-beta visited more nodes here: it searches depth by depth, and on so small a tree its shallower passes cost more than its cut-offs save";

/** "value −0.003", or in words for the side to move: "slightly worse for Red (−0.050)",
 * "win in 3 for X", "about even (−0.003)", "draw". */
function valueWords(/** @type {CompareRow} */ row, /** @type {{game: string, ply: number} | null} */ side) {
  if (!side) return `value ${valueText(row.score)}`;
  const info = gameInfo(side.game);
  const words = describeScore(row.score, row.exact, info, side.ply);
  const number = row.exact ? "" : ` (${valueText(row.score)})`;
  const even = words.kind === "draw" || /even/.test(words.text); // no side to name
  return `${words.text}${even ? "" : ` for ${info.players[side.ply % 2]}`}${number}`;
}

/**
 * The table's rows (algorithm, nodes, best time, time per node, move); the depth, the
 * same for both, is in the sentence. An exact value in the sentence's words when the
 * position is known (`side`): "3 (win in 3 for X)", never the tree explorer's "+2"; an
 * estimate as its number, "4 (−0.003)".
 * @param {CompareRow[]} rows
 * @param {Record<string, string>} labels
 * @param {{game: string, ply: number} | null} [side]
 */
export function compareCells(rows, labels, side = null) {
  return rows.map((row) => [
    labels[row.algorithm] ?? row.algorithm,
    count(row.nodes),
    duration(row.time_ms),
    row.nodes > 0 ? `${((row.time_ms * 1000) / row.nodes).toFixed(2)} µs` : "–",
    // An exact value in words (a phone's column has room for them); an estimate as its number.
    `${row.best_move} (${side && row.exact ? valueWords(row, side) : valueText(row.score)})`,
  ]);
}

/** Mount the comparison on the game page (its elements are in game.html). */
function mount() {
  const button = /** @type {HTMLButtonElement | null} */ (document.getElementById("same-depth-button"));
  const table = /** @type {HTMLTableElement | null} */ (document.getElementById("same-depth-table"));
  const said = document.getElementById("same-depth-summary");
  if (!button || !table || !said) return;
  const config = JSON.parse(document.getElementById("config")?.textContent || "{}");
  // What is shown answers the game as it stood when asked: once it moves on, the
  // sentence ("the engine has not moved yet", "before the engine's last move") would
  // be about another position, so it goes.
  let askedAt = /** @type {string | null} */ (null);
  let game = 0; // the games the page has shown before this one ("New game" in place)
  document.addEventListener("lookahead:game", () => {
    game += 1;
    askedAt = null;
    table.hidden = true;
    said.textContent = "";
  });
  document.addEventListener("lookahead:moves", (event) => {
    if (askedAt === null || /** @type {CustomEvent} */ (event).detail === askedAt) return;
    askedAt = null;
    table.hidden = true;
    said.textContent = "";
  });
  button.addEventListener("click", async () => {
    button.disabled = true;
    said.textContent = "Searching the engine’s last position with both algorithms…";
    const asked = game;
    /** Drop an answer about a game the page has left. */
    const left = () => asked !== game;
    try {
      const gameId = decodeURIComponent(window.location.pathname.split("/").pop() ?? "");
      const stateAnswer = await fetch(`/api/games/${encodeURIComponent(gameId)}`);
      if (!stateAnswer.ok) throw new Error("The game could not be read.");
      const state = await stateAnswer.json();
      if (left()) return;
      askedAt = state.moves || "";
      const moves = beforeEngineMove(state.moves || "", state.settings.engine_plays);
      if (moves === null) {
        table.hidden = true;
        said.textContent = "The engine has not moved yet: compare after its first move.";
        return;
      }
      const query = new URLSearchParams({ game: state.game, moves });
      const answer = await fetch(`/api/compare?${query}`);
      const body = await answer.json();
      if (left()) return;
      if (!answer.ok) throw new Error(body.error?.message || "The comparison failed.");
      /** @type {CompareRow[]} */
      const rows = body.results;
      const tbody = /** @type {HTMLTableSectionElement} */ (table.tBodies[0]);
      const side = { game: state.game, ply: moves.length };
      tbody.replaceChildren(...compareCells(rows, config.algorithms ?? {}, side).map((cells) => {
        const tr = document.createElement("tr");
        cells.forEach((text, i) => {
          const cell = document.createElement(i === 0 ? "th" : "td");
          if (i === 0) cell.scope = "row";
          if (i >= 1 && i <= 3) cell.className = "num";
          cell.textContent = text;
          tr.append(cell);
        });
        return tr;
      }));
      table.hidden = false;
      const [minimax, alphabeta] = rows;
      const noun = state.game === "connect4" ? "column" : "cell";
      const where = moves ? `after ${[...moves].join(" ")}` : "the empty board";
      const runs = Math.min(minimax.runs, alphabeta.runs);
      said.textContent = `Before the engine’s last move (${where}). ${compareSentence(minimax, alphabeta, noun, side)} ` +
        `Times are the engine’s own clock in the search workers, ${runs > 1 ? `the best of ${runs} runs each` : "one run each"}, the two taking turns.`;
    } catch (error) {
      if (!left()) said.textContent = error instanceof Error ? error.message : String(error);
    } finally {
      button.disabled = false;
    }
  });
}

if (typeof document !== "undefined") mount(); // (imported by the unit tests too)
