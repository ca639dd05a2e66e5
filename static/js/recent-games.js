// "Your recent games" on the home page: the games this browser started or took
// the second seat of (the server knows them by its identity cookie), newest
// first. Hidden when there are none, or when the list cannot be read (it is a
// convenience, not a need).

import { myGames } from "./api.js";
import { GAMES } from "./rules.js";

const OUTCOMES = { playing: "in progress", drawn: "draw" };

/** "You won", "You lost", "draw", "in progress" for a game of the list. */
export function outcome(game) {
  if (game.status === "won") return game.winner === game.human_side ? "you won" : "you lost";
  return OUTCOMES[game.status] || game.status;
}

/** "5 min ago", "3 h ago", "2 days ago", or the date, for an ISO time. */
export function ago(iso, now = Date.now()) {
  const then = Date.parse(iso);
  if (!Number.isFinite(then)) return "";
  const minutes = Math.max(0, Math.round((now - then) / 60000));
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  if (days < 14) return `${days} day${days === 1 ? "" : "s"} ago`;
  return new Date(then).toISOString().slice(0, 10);
}

/**
 * A card's two lines: the game and whom it is against ("Connect Four · Easy", "Tic-tac-toe
 * · with a friend"), then your side, how it stands, its moves and when ("you play Red · in
 * progress · 1 move · just now"): two games of one kind started in a row differ.
 * @param {any} game @param {Record<string, string>} labels @param {Record<string, {label: string}>} levels
 */
export function describeGame(game, labels, levels = {}, now = Date.now()) {
  const against = game.level ? levels[game.level]?.label || game.level : "with a friend";
  const side = GAMES[game.game]?.players[game.human_side];
  const moves = `${game.move_count} move${game.move_count === 1 ? "" : "s"}`;
  return {
    title: `${labels[game.game] || game.game} · ${against}`,
    // A no-break space before each dot: a line that wraps starts with words, not "·".
    detail: [side ? `you play ${side}` : "", outcome(game), moves, ago(game.updated_at, now)].filter(Boolean).join("\u00a0· "),
  };
}

/** Fill `section` (its list is `[data-list]` or the first `ol`) with `games`. */
export function renderRecentGames(section, games, labels, levels = {}) {
  const list = section.querySelector("ol");
  list.replaceChildren();
  for (const game of games) {
    const item = document.createElement("li");
    item.className = `recent-game recent-${game.status}`;
    const link = document.createElement("a");
    link.className = "recent-link";
    link.href = game.url;
    const title = document.createElement("span");
    title.className = "recent-title";
    const described = describeGame(game, labels, levels);
    title.textContent = described.title;
    const detail = document.createElement("span");
    detail.className = "recent-detail";
    detail.textContent = described.detail;
    link.append(title, detail);
    item.append(link);
    list.append(item);
  }
  section.hidden = games.length === 0;
}

/** Load and show the list; leave the section hidden on any failure. */
export async function showRecentGames(section, labels, levels = {}) {
  try {
    renderRecentGames(section, await myGames(), labels, levels);
  } catch {
    section.hidden = true;
  }
}
