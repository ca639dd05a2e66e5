// A position link's page: draw the position read-only. The "Play from here"
// button is a plain form POST to /new (it works without this script).

import { boardView, createBoard } from "./board-view.js";
import { readJSON } from "./config.js";

const position = readJSON("position");
const board = createBoard(document.getElementById("board"), position.game, () => {});
board.set(boardView({ game: position.game, moves: position.moves, interactive: false }));
