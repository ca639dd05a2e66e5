// HTTP calls to the server's JSON API (same origin, cookies included: the
// server hands out the seat cookie that makes this browser a player).

/**
 * Call the API and read its JSON: {data, status, retryAfter, headers}
 * (`retryAfter` in seconds, or null). An answer that is not OK throws an
 * Error with the server's message and its `status`, `code` and `retryAfter`;
 * no answer at all throws one that says so in words; an abort through
 * `signal` goes through as it is, so the caller can tell it apart.
 */
export async function send(method, url, /** @type {{body?: unknown, signal?: AbortSignal}} */ { body, signal } = {}) {
  let response;
  try {
    response = await fetch(url, {
      method,
      credentials: "same-origin",
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new Error("Could not reach the server. Check your connection and try again.", { cause: error });
  }
  let data;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  const retryAfter = Number(response.headers.get("Retry-After")) || null;
  if (!response.ok) {
    const message = data && (data.message || data.error?.message || data.error);
    const error = new Error(typeof message === "string" ? message : `The server said ${response.status}.`);
    Object.assign(error, { status: response.status, code: data?.error?.code, retryAfter });
    throw error;
  }
  return { data, status: response.status, retryAfter, headers: response.headers };
}

async function request(method, url, body) {
  return (await send(method, url, { body })).data;
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
