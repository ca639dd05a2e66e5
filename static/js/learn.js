// Learn from your mistakes (/learn/<game_id>): step through the player's
// mistakes and blunders of a game (its exact review), each from the position
// before it. The player tries a move on the board; the page says whether it
// keeps the result (learn-drill.js judges it from the position's exact scores),
// then shows the best moves ringed on the board and the line that follows.

import { fetchAnalysis, fetchGame, fetchReview } from "./analysis-api.js";
import { boardView, createBoard } from "./board-view.js";
import { readJSON } from "./config.js";
import { describeScore, moveNumber } from "./format.js";
import { drillEntries, judgeTry } from "./learn-drill.js";
import { change } from "./review-classes.js";
import { gameInfo } from "./rules.js";

/** Asking again for a review or an analysis still being solved, at most this many times. */
const MAX_RETRIES = 15;

const { game_id: gameId, game } = readJSON("learn");
const info = gameInfo(game);
const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));
const board = createBoard($("board"), game, tryMove);

let moves = ""; // the game's moves
let steps = /** @type {any[]} */ ([]); // the review entries drilled
let index = 0;
let answer = /** @type {any} */ (null); // the analysis of the position shown
let revealed = false;

const wait = (/** @type {number} */ seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));
const moveName = (/** @type {string} */ move) => `${info.moveNoun} ${move}`;

async function load() {
  try {
    const state = await fetchGame(gameId);
    moves = state.moves;
    let review = await fetchReview(gameId);
    for (let retry = 0; review.pending && retry < MAX_RETRIES; retry += 1) {
      $("learn-progress").textContent = `Solving the game: ${review.pending} position${review.pending === 1 ? "" : "s"} to go…`;
      await wait(review.retryAfter);
      review = await fetchReview(gameId);
    }
    steps = drillEntries(review.entries, state.human_side);
  } catch (error) {
    $("learn-progress").textContent = `No review: ${error.message}`;
    return;
  }
  if (!steps.length) {
    $("learn-progress").textContent = "No mistake or blunder of yours in this game, by its exact review. Well played.";
    board.set(boardView({ game, moves, interactive: false }));
    return;
  }
  show(0);
}

async function show(/** @type {number} */ at) {
  index = at;
  answer = null;
  revealed = false;
  const entry = steps[index];
  const before = moves.slice(0, entry.ply - 1);
  const mover = info.players[entry.player];
  $("learn-progress").textContent = `${entry.class === "blunder" ? "Blunder" : "Mistake"} ${index + 1} of ${steps.length}`;
  $("learn-task").textContent = `At move ${moveNumber(entry.ply)} you played ${moveName(entry.move)}: ${change(entry)}. Find a better move for ${mover}.`;
  $("learn-analysis").href = `/analysis?${new URLSearchParams({ game, moves: before })}`;
  verdict("");
  render();
  for (let retry = 0; retry <= MAX_RETRIES; retry += 1) {
    if (index !== at) return; // the player moved on
    try {
      const got = await fetchAnalysis(game, before);
      if (index !== at) return;
      if (!got.pending) {
        answer = got;
        break;
      }
      await wait(got.retryAfter);
    } catch (error) {
      if (!error.retryAfter) return verdict(`No scores for this position: ${error.message}`);
      await wait(error.retryAfter);
    }
  }
  render();
}

function tryMove(/** @type {string} */ move) {
  if (!answer || revealed) return;
  const entry = steps[index];
  const judged = judgeTry(answer, move);
  const value = answer.move_scores[move];
  const words = value ? describeScore(value.score, value.exact, info, entry.ply - 1).text : "";
  const name = moveName(move)[0].toUpperCase() + moveName(move).slice(1);
  if (judged.keeps === null) {
    verdict(`${name} was not solved exactly: it cannot be judged. Try another, or show the answer.`, "info");
  } else if (judged.keeps) {
    const better = judged.best ? "one of the best moves" : "though a faster one exists";
    const detail = words && words !== judged.result ? ` (${words})` : "";
    verdict(`${name} keeps the ${judged.result}${detail}: ${better}. Well found.`, "good");
    revealed = true;
  } else if (move === entry.move) {
    verdict(`${name} is the move you played: ${change(entry)}. Try another.`, "error");
  } else {
    verdict(`${name} does not keep the ${judged.result}: ${words}. Try again, or show the answer.`, "error");
  }
  render();
}

function render() {
  const entry = steps[index];
  const before = moves.slice(0, entry.ply - 1);
  const ready = Boolean(answer);
  board.set(
    boardView({
      game,
      moves: before,
      interactive: ready && !revealed,
      scores: revealed && answer ? answer.move_scores : null,
      best: revealed && answer ? answer.best_moves : null,
      line: revealed && answer && answer.pv ? { from: before, pv: answer.pv } : null,
    }),
  );
  $("learn-prev").disabled = index === 0;
  $("learn-next").disabled = index >= steps.length - 1;
  $("learn-answer").disabled = !ready || revealed;
  $("learn-line").hidden = !(revealed && answer);
  if (revealed && answer) {
    const best = answer.best_moves.map(moveName).join(" or ");
    const line = answer.pv ? ` The line: ${[...answer.pv].join(" ")}.` : "";
    $("learn-line").textContent = `Best: ${best} (ringed on the board).${line}`;
  }
  if (!ready && !$("learn-verdict").textContent) verdict("Solving this position…", "info");
  else if (ready && $("learn-verdict").textContent === "Solving this position…") verdict("");
}

function verdict(/** @type {string} */ text, kind = "info") {
  $("learn-verdict").textContent = text;
  $("learn-verdict").dataset.kind = kind;
  $("learn-verdict").hidden = !text;
}

// The keys of the game page: a number tries that move, the arrows go from mistake to mistake.
document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || !steps.length) return;
  if (/** @type {Element} */ (event.target).closest("input, select, textarea")) return;
  if (event.key === "ArrowLeft" && index > 0) {
    event.preventDefault();
    show(index - 1);
  } else if (event.key === "ArrowRight" && index < steps.length - 1) {
    event.preventDefault();
    show(index + 1);
  } else if (/^[1-9]$/.test(event.key) && Number(event.key) <= info.moveKeys) {
    event.preventDefault();
    // A legal move only (the position's scores name them all); a full column or a taken
    // cell does nothing, as a click on it does.
    if (answer && event.key in answer.move_scores) tryMove(event.key);
  }
});

$("learn-prev").addEventListener("click", () => show(index - 1));
$("learn-next").addEventListener("click", () => show(index + 1));
$("learn-answer").addEventListener("click", () => {
  revealed = true;
  render();
});

load();
