// The Socket.IO connection for one game: joins the game's room on every
// (re)connection, sends the page's requests and hands the server's events
// to the page. Event names come from the config the server embeds (one
// source of truth: webapp/protocol.py); none is spelled out here.

/** How long an action answered over the connection (a new game) may take. */
const ANSWER_MS = 15000;

/**
 * Connect to the server for `gameId`.
 * `handlers` maps server event names (config.events values) to callbacks,
 * plus the pseudo-events "connected" and "disconnected".
 */
export function connectGame(events, gameId, handlers) {
  const socket = /** @type {any} */ (window).io({ transports: ["websocket", "polling"] });
  const call = (name, payload) => handlers[name]?.(payload);
  let current = gameId; // the game followed: another after a switch in place (`follow`)
  // While a switch in place is on its way, the events of other games than `current`: the
  // new game's may come before the answer that names it (its room is joined first).
  /** @type {[string, any][] | null} */
  let held = null;

  // The reply to join (if the server acknowledges) is a state, with the seat.
  const join = () =>
    socket.emit(events.join, { game_id: current }, (reply) => {
      if (reply && typeof reply === "object" && reply.moves !== undefined) call(events.state, reply);
      else if (reply && reply.code) call(events.error, reply);
    });
  socket.on("connect", () => {
    call("connected");
    join();
  });
  socket.on("disconnect", (reason) => call("disconnected", reason));
  socket.on("connect_error", () => call("disconnected", "connect_error"));

  // Only this game's events: a payload naming another game is ignored
  // (a state names its game by `id`, the other events by `game_id`).
  const ours = (name, payload) => {
    const id = payload && (name === events.state ? payload.id : payload.game_id);
    return id === undefined || id === current;
  };
  const serverEvents = new Set(Object.values(events));
  for (const name of Object.keys(handlers)) {
    if (!serverEvents.has(name)) continue;
    socket.on(name, (payload) => {
      if (ours(name, payload)) call(name, payload);
      else held?.push([name, payload]);
    });
  }

  const send = (key, extra = {}) => socket.emit(events[key], { game_id: current, ...extra });
  return {
    move: (move, ply) => send("move", ply === undefined ? { move } : { move, ply }),
    /** A game between two people's actions (resign, offer, accept, decline, claim). */
    send: (key, extra = {}) => send(key, extra),
    undo: (ply) => send("undo", { ply }),
    settings: (settings) => send("settings", { settings }),
    analyse: (algorithm, moves) => send("analyse", moves === undefined ? { algorithm } : { algorithm, moves }),
    /**
     * The player's next game ("new", "rematch"), asked over this connection: resolves to
     * {id, url, state}, the connection moved to the new game's room (`follow` it once its
     * state is shown); rejects with the server's refusal, or when no answer comes in `ms`.
     */
    another: (action, ms = ANSWER_MS) =>
      new Promise((resolve, reject) => {
        const key = action === "rematch" ? "rematch" : "new_game";
        held = [];
        socket.timeout(ms).emit(events[key], { game_id: current, switch: true }, (late, reply) => {
          if (late || !(reply && typeof reply.id === "string" && reply.state)) held = null;
          // A late answer may have moved the connection to the new game's room after
          // all: back into this game's (the join's answer redraws it).
          if (late && socket.connected) join();
          if (late && !socket.connected) reject(new Error("The connection was lost: try again once it is back."));
          else if (late) reject(new Error("The server did not answer in time: try again."));
          else if (reply && typeof reply.id === "string") resolve(reply); // with its state, or {id, url} alone
          else reject(new Error(reply?.message || "The server refused that."));
        });
      }),
    /** Follow game `id` from now on; its events that came while switching are handed on. */
    follow(id) {
      current = id;
      const waiting = held ?? [];
      held = null;
      for (const [name, payload] of waiting) if (ours(name, payload)) call(name, payload);
    },
    get connected() {
      return socket.connected;
    },
  };
}
