// Any position on the analysis board: a typed or pasted move sequence ("4453",
// "4 4 5 3", "ddec") and a position editor (click cells; the side to move
// follows the counts). The server is the referee: GET /api/position normalises a sequence, or
// finds a move order that reaches a drawn board, or says in one sentence why
// not; the page shows that sentence beside the field and goes to the moves.
// What the page can check itself (position-check.js) it refuses first, in the
// same words, without a request the server would refuse.

import { send } from "./api.js";
import { boardProblem, readSequence } from "./position-check.js";
import { boardText, nextMark, replay, sideToMove } from "./rules.js";

/**
 * Mount the panel. `currentMoves()` is the board's position (the editor starts
 * from it), `onMoves(moves)` shows a position the server accepted.
 * @param {{game: string, currentMoves: () => string, onMoves: (moves: string) => void}} options
 */
export function mountPositionInput({ game, currentMoves, onMoves }) {
  const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));
  const form = $("ab-sequence-form");
  const field = $("ab-sequence");
  const editor = $("ab-editor");
  const grid = $("ab-editor-grid");
  /** @type {(number | null)[]} */
  let cells = [];

  async function ask(query, errorId, after = "") {
    showError(errorId, "");
    try {
      const { data } = await send("GET", `/api/position?${new URLSearchParams({ game, ...query })}`);
      onMoves(data.moves);
      return true;
    } catch (error) {
      showError(errorId, after ? `${error.message} ${after}` : error.message);
      return false;
    }
  }

  form.addEventListener("submit", async (/** @type {Event} */ event) => {
    event.preventDefault();
    if (!field.value.trim()) return showError("ab-sequence-error", `Type a move sequence, like ${game === "connect4" ? "4453" : "519"}.`);
    const read = readSequence(game, field.value);
    if (read.error !== null) return showError("ab-sequence-error", `${read.error} ${KEPT}`);
    if (await ask({ moves: read.moves }, "ab-sequence-error", KEPT)) field.value = "";
  });
  field.addEventListener("input", () => showError("ab-sequence-error", ""));

  $("ab-learn-form").addEventListener("submit", async (/** @type {Event} */ event) => {
    event.preventDefault();
    const id = gameIdOf($("ab-learn").value);
    if (!id) return showError("ab-learn-error", "That is not a game link: it looks like …/g/ and the game’s id.");
    // Asked first: a word that only looks like an id ("hello") left the board for a 404.
    showError("ab-learn-error", "");
    try {
      await send("GET", `/api/games/${encodeURIComponent(id)}`);
    } catch (error) {
      const gone = /** @type {{status?: number}} */ (error).status === 404;
      return showError("ab-learn-error", gone ? "No game has that link: check it, or paste a game’s address (…/g/ and its id)." : error.message);
    }
    window.location.assign(`/learn/${encodeURIComponent(id)}`);
  });

  $("ab-edit").addEventListener("click", () => {
    const open = editor.hidden;
    editor.hidden = !open;
    $("ab-edit").setAttribute("aria-expanded", String(open));
    if (open) {
      const position = replay(game, currentMoves());
      cells = position.cells.slice();
      setSide(sideToMove(cells));
      drawGrid(position.info.columns);
    }
  });
  $("ab-editor-clear").addEventListener("click", () => {
    cells = cells.map(() => null);
    setSide(0);
    drawGrid(replay(game, "").info.columns);
  });
  $("ab-editor-go").addEventListener("click", async () => {
    const side = document.querySelector('input[name="ab-to-move"]:checked');
    const toMove = side ? /** @type {HTMLInputElement} */ (side).value : String(sideToMove(cells));
    const problem = boardProblem(game, cells, Number(toMove));
    if (problem !== null) return showError("ab-editor-error", problem);
    if (await ask({ board: boardText(cells), to_move: toMove }, "ab-editor-error")) {
      editor.hidden = true;
      $("ab-edit").setAttribute("aria-expanded", "false");
    }
  });

  function setSide(/** @type {number} */ side) {
    const words = $("ab-editor-side-text"); // Connect Four: the side as words, no radios
    if (words) words.textContent = `${game === "connect4" ? ["Red", "Yellow"][side] : ["X", "O"][side]} to move`;
    for (const input of document.querySelectorAll('input[name="ab-to-move"]')) {
      /** @type {HTMLInputElement} */ (input).checked = Number(/** @type {HTMLInputElement} */ (input).value) === side;
    }
  }

  function drawGrid(/** @type {number} */ columns) {
    grid.style.setProperty("--columns", String(columns));
    grid.replaceChildren();
    const players = game === "connect4" ? ["Red", "Yellow"] : ["X", "O"];
    cells.forEach((_, index) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "ab-editor-cell";
      const row = Math.floor(index / columns) + 1;
      const column = (index % columns) + 1;
      const paint = () => {
        const mark = cells[index];
        if (mark === null) delete button.dataset.mark;
        else button.dataset.mark = String(mark);
        button.textContent = game === "tictactoe" && mark !== null ? players[mark] : "";
        const what = mark === null ? "empty" : players[mark];
        button.setAttribute("aria-label", `Row ${row}, column ${column}: ${what}`);
      };
      button.addEventListener("click", () => {
        cells[index] = nextMark(cells[index]);
        setSide(sideToMove(cells)); // the counts decide it: never a choice to get wrong
        showError("ab-editor-error", "");
        paint();
      });
      paint();
      grid.append(button);
    });
  }
}

/**
 * The game id in a game link ("https://host/g/ID", "/g/ID") or a bare id; null for none.
 * @param {string} text
 */
export function gameIdOf(text) {
  const found = text.trim().match(/(?:^|\/g\/)([A-Za-z0-9_-]{4,64})\/?(?:[?#].*)?$/);
  return found ? found[1] : null;
}

/** After a refused sequence: the board has not moved, and says so. */
const KEPT = "The board still shows the previous position.";

/** Show `text` in the error line `id` (hidden when empty). */
function showError(/** @type {string} */ id, /** @type {string} */ text) {
  const line = /** @type {HTMLElement} */ (document.getElementById(id));
  line.textContent = text;
  line.hidden = !text;
  // the field may sit at the screen's bottom edge (a phone): bring its answer in view
  if (text) line.scrollIntoView({ block: "nearest" });
}
