// The home page: pick a game and the engine's settings, start a game.
// Without JavaScript the form still works: it is a POST to /new.

import { readConfig } from "./config.js";
import { createGame } from "./api.js";
import { showRecentGames } from "./recent-games.js";
import { bindSettings } from "./settings-form.js";

const config = readConfig();
const form = /** @type {HTMLFormElement} */ (document.getElementById("new-game"));
const status = /** @type {HTMLElement} */ (document.getElementById("form-status"));
const settings = bindSettings(form.querySelector(".settings-fields"), { limits: config.limits });

function chosenGame() {
  const input = /** @type {HTMLInputElement | null} */ (form.querySelector('[name="game"]:checked'));
  const title = input?.closest(".game-card")?.querySelector(".game-card-title");
  return input ? { name: input.value, label: title?.textContent ?? input.value } : null;
}

function syncGame() {
  const game = chosenGame();
  for (const card of /** @type {NodeListOf<HTMLElement>} */ (form.querySelectorAll(".game-card"))) {
    card.classList.toggle("is-selected", card.dataset.game === game?.name);
  }
}

form.addEventListener("change", (event) => {
  if (/** @type {HTMLInputElement} */ (event.target).name === "game") syncGame();
});

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const game = chosenGame();
  if (!game) {
    status.textContent = "Choose a game first.";
    return;
  }
  const values = settings.values();
  const why = values.level === "custom" ? settings.problem() : null;
  if (why) {
    status.textContent = why; // the field says it too; nothing starts until it is right
    settings.focusProblem();
    return;
  }
  const button = /** @type {HTMLButtonElement} */ (form.querySelector('[type="submit"]'));
  button.disabled = true;
  status.textContent = "Setting up the board…";
  try {
    const created = await createGame({ game: game.name, settings: values });
    window.location.assign(created.url || `/g/${created.id}`);
  } catch (error) {
    status.textContent = error.message;
    button.disabled = false;
  }
});

// Coming back with the browser's Back button re-enables the form (and the list is news).
window.addEventListener("pageshow", (event) => {
  /** @type {HTMLButtonElement} */ (form.querySelector('[type="submit"]')).disabled = false;
  status.textContent = "";
  if (event.persisted) showRecentGames(document.getElementById("recent-games"), config.games, config.levels);
});

syncGame();
showRecentGames(document.getElementById("recent-games"), config.games, config.levels);
