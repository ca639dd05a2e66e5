// HTTP calls to the server's JSON API (same origin, cookies included: the
// server hands out the seat cookie that makes this browser a player).

async function request(method, url, body) {
  let response;
  try {
    response = await fetch(url, {
      method,
      credentials: "same-origin",
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new Error("Could not reach the server. Check your connection and try again.");
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const message = data && (data.message || data.error?.message || data.error);
    const error = new Error(typeof message === "string" ? message : `The server said ${response.status}.`);
    error.status = response.status;
    throw error;
  }
  return data;
}

/** Start a game: {game, settings, moves?} -> the new game's state (with id, url). */
export function createGame(body) {
  return request("POST", "/api/games", body);
}

/** POST to one of a game's actions ("new", "rematch") -> {id, url}. */
export function gameAction(gameId, action) {
  return request("POST", `/api/games/${encodeURIComponent(gameId)}/${action}`);
}

/** The games this browser started, newest first: [{id, game, move_count, status, winner, human_side, updated_at, url}]. */
export function myGames() {
  return request("GET", "/api/my/games");
}
