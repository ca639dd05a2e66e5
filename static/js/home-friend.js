// The home page's "Play a friend": a game for two people with the chosen game, who
// starts and a clock; the creator lands on its page, with the invite link to share.

import { createGame } from "./api.js";

const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));

/** "180+2" -> {initial: 180, increment: 2}; "" -> null (no clock). */
export function clockOf(/** @type {string} */ value) {
  if (!value) return null;
  const [initial, increment] = value.split("+").map(Number);
  return { initial, increment: increment || 0 };
}

$("play-friend").addEventListener("click", async () => {
  const game = /** @type {HTMLInputElement | null} */ (document.querySelector('#new-game [name="game"]:checked'));
  const status = $("form-status");
  if (!game) {
    status.textContent = "Choose a game first.";
    return;
  }
  const settings = { starts: $("friend-starts").value, spectator_analysis: $("friend-spectators").checked };
  const clock = clockOf($("friend-clock").value);
  $("play-friend").disabled = true;
  status.textContent = "Setting up the board…";
  try {
    const created = await createGame({ game: game.value, opponent: "friend", settings: clock ? { ...settings, clock } : settings });
    window.location.assign(created.url);
  } catch (error) {
    status.textContent = error.message;
    $("play-friend").disabled = false;
  }
});

// Back with the browser's Back button: the button works again.
window.addEventListener("pageshow", () => ($("play-friend").disabled = false));
