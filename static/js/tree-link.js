// The game page's "Show the search tree" link: it opens /tree on the position
// shown on the board (the live one, or the move the reader stepped back to).
// A finished position has no search to show, so a shown position that is over
// opens the one before its last move: where that move was searched.
//
// The moves are read from the server at the click (so they are never stale)
// and cut at the ply the move list marks as shown; the link's own href (the
// position the page loaded with) works without scripts.

import { replay } from "./rules.js";

const link = /** @type {HTMLAnchorElement | null} */ (document.getElementById("tree-link"));

/** The ply on the board: null when it is the live position. */
function shownPly() {
  if (document.getElementById("review-banner")?.hidden !== false) return null;
  const current = /** @type {HTMLButtonElement | null} */ (document.querySelector("#moves .move-list button[aria-current]"));
  return current ? Number(current.dataset.ply) : 0; // no move marked: the starting position
}

/** The position to search for `moves` shown up to `ply`: the one before the end if it is over. */
export function searchedPosition(game, moves, ply) {
  const shown = ply === null ? moves : moves.slice(0, ply);
  return shown && replay(game, shown).over ? shown.slice(0, -1) : shown;
}

link?.addEventListener("click", async (event) => {
  event.preventDefault();
  const gameId = decodeURIComponent(window.location.pathname.split("/").pop() ?? "");
  let href = link.href;
  try {
    const response = await fetch(`/api/games/${encodeURIComponent(gameId)}`);
    if (response.ok) {
      const state = await response.json();
      const query = new URLSearchParams({ game: state.game, algorithm: state.settings.algorithm });
      const moves = searchedPosition(state.game, state.moves || "", shownPly());
      if (moves) query.set("moves", moves);
      href = `/tree?${query}`;
    }
  } catch {
    // the page's own href
  }
  window.location.href = href;
});
