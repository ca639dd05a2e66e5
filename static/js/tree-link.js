// The game page's "Show the search tree" link: it opens /tree on the game's
// current position (read from the server at the click, so it is never stale;
// the link's own href, the position the page loaded with, works without it).

const link = document.getElementById("tree-link");
link?.addEventListener("click", async (event) => {
  event.preventDefault();
  const gameId = decodeURIComponent(window.location.pathname.split("/").pop());
  let href = link.href;
  try {
    const response = await fetch(`/api/games/${encodeURIComponent(gameId)}`);
    if (response.ok) {
      const state = await response.json();
      const query = new URLSearchParams({ game: state.game, algorithm: state.settings.algorithm });
      if (state.moves && state.status === "playing") query.set("moves", state.moves);
      href = `/tree?${query}`;
    }
  } catch {
    // the page's own href
  }
  window.location.href = href;
});
