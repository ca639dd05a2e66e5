// The game page's state, apart from any drawing: the server's game state,
// what this page added to it (a move on its way, the position under review,
// the searches it saw), and the questions the views ask of it.

/** @typedef {import("./types.js").State} State */
/** @typedef {import("./types.js").EngineMove} EngineMove */
/** @typedef {import("./types.js").ScoresPayload} ScoresPayload */
/** @typedef {import("./types.js").MoveScores} MoveScores */
/** @typedef {import("./types.js").PositionValue} PositionValue */

/**
 * A search result this page saw, with the position it searched.
 * `kind` "thinking": a provisional one (the latest depth of a search under way).
 * @typedef {{from: string, result: any, kind: "engine" | "analysis" | "thinking", level?: string | null}} SeenResult
 */

/**
 * One completed depth of a search (a `thinking` event).
 * @typedef {{depth: number, score: number, exact?: boolean, pv?: string, nodes?: number,
 *   elapsed_ms?: number, algorithm?: string, moves?: string, best_move?: string}} DepthRow
 */

/** The game page's model (createModel's answer). @typedef {ReturnType<typeof createModel>} Model */

/** The model of a page that just got `state`. @param {State} state */
export function createModel(state) {
  return {
    state, // the server's state for this viewer
    seat: state.seat || "spectator",
    pending: /** @type {string | null} */ (null), // a move sent and drawn, not yet confirmed
    reviewPly: /** @type {number | null} */ (null), // null: the live position
    depthRows: /** @type {DepthRow[]} */ ([]), // thinking events of the current (or last) search
    searchFrom: state.engine_thinking ? state.moves : /** @type {string | null} */ (null),
    results: /** @type {SeenResult[]} */ ([]), // {from, result, kind: "engine" | "analysis", level (the game's, for an engine move)}, oldest first
    scores: /** @type {Map<string, ScoresPayload>} */ (new Map()), // moves -> the `scores` payload of that position (its side to move's options)
    reviewed: /** @type {Map<string, PositionValue>} */ (new Map()), // moves -> {score, exact, depth} from the game's review (positions this page missed)
    compare: { waiting: /** @type {{from: string, algorithm: string}[]} */ ([]) },
    queued: /** @type {any} */ (null),
    pulse: /** @type {Pulse | null} */ (null), // the latest `searching` event: the search under way between depths
    showLine: false,
    hoverLine: false,
    connected: false,
  };
}

export const isPlayer = (/** @type {Model} */ model) => model.seat === "player";

export function liveMoves(/** @type {Model} */ model) {
  return model.state.moves + (model.pending || "");
}

export function shownMoves(/** @type {Model} */ model) {
  return model.reviewPly === null ? liveMoves(model) : model.state.moves.slice(0, model.reviewPly);
}

/**
 * Whether a move sent and drawn (`pending`) is still on its way after `state` came: only a
 * state of the same position, still awaiting that move, leaves it (the engine's options,
 * saved with its move a moment later, come as such a state); any other answers it.
 */
export function stillPending(/** @type {Model} */ model, /** @type {import("./types.js").State} */ state) {
  const before = model.state;
  return Boolean(model.pending) && state.moves === before.moves && state.status === "playing" && state.to_move === before.to_move;
}

/** True when this viewer may move now. */
export function myTurn(/** @type {Model} */ model) {
  const s = model.state;
  return isPlayer(model) && s.status === "playing" && s.to_move === s.human_side && !s.engine_thinking && !model.pending;
}

/**
 * The position the engine searched for an engine_move payload: the payload
 * says so if the server includes `moves`; otherwise it is the live position
 * (if the move is not applied yet) or the position before the engine's last
 * move.
 */
export function engineSearchFrom(/** @type {State} */ state, /** @type {Partial<EngineMove>} */ payload) {
  if (typeof payload.moves === "string") return payload.moves;
  const moves = state.moves;
  if (state.status === "playing" && state.to_move === state.engine_side && state.engine_thinking) return moves;
  for (let i = moves.length - 1; i >= 0; i -= 1) {
    if (i % 2 === state.engine_side) return moves[i] === payload.best_move ? moves.slice(0, i) : null;
  }
  return null;
}

export function addResult(/** @type {Model} */ model, /** @type {string | null} */ from, /** @type {any} */ result, /** @type {"engine" | "analysis"} */ kind, /** @type {string | null} */ level = null) {
  if (from === null) return;
  model.results.push({ from, result, kind, level });
  if (model.results.length > 200) model.results.shift();
}

/** How many of `moveScores` ({move: {score, exact}}, or null) are exact. */
function exactCount(/** @type {MoveScores | null | undefined} */ moveScores) {
  return Object.values(moveScores || {}).filter((s) => s.exact).length;
}

/** Record an engine move (an engine_move event, or a state's last_engine_move) once. */
export function noteEngineMove(/** @type {Model} */ model, /** @type {EngineMove | null} */ result = model.state.last_engine_move) {
  if (!result) return;
  const same = (/** @type {SeenResult} */ r) =>
    r.kind === "engine" && r.result.best_move === result.best_move && r.result.nodes === result.nodes && r.result.time_ms === result.time_ms;
  const known = model.results.find(same);
  if (known) {
    // The options before the move come later than the move, and improve (Perfect: exact).
    if (result.move_scores && exactCount(result.move_scores) >= exactCount(known.result.move_scores)) {
      known.result = { ...known.result, move_scores: result.move_scores };
    }
    // So does the line an exact solve expects (the move goes out first, alone).
    if (result.pv && result.pv.length > (known.result.pv || "").length) {
      known.result = { ...known.result, pv: result.pv, line_after: result.line_after };
    }
    return;
  }
  addResult(model, engineSearchFrom(model.state, result), result, "engine", model.state.settings?.level ?? null);
}

/**
 * Keep a `scores` payload (an event, or a state's `scores`): the side to
 * move's options at position `payload.moves`. A later one of the same
 * position replaces it unless it knows fewer exact scores (they only improve).
 */
export function noteScores(/** @type {Model} */ model, /** @type {Partial<ScoresPayload> | null} */ payload) {
  if (!payload || typeof payload.moves !== "string" || !payload.move_scores) return;
  const known = model.scores.get(payload.moves);
  if (known && exactCount(known.move_scores) > exactCount(payload.move_scores)) return;
  model.scores.delete(payload.moves); // re-inserted last: the newest is kept when trimming
  model.scores.set(payload.moves, /** @type {ScoresPayload} */ (payload)); // moves and move_scores checked above
  const oldest = model.scores.keys().next().value;
  if (model.scores.size > 400 && oldest !== undefined) model.scores.delete(oldest);
}

/** Whether the server is still solving position `moves` exactly (its estimates may become exact). */
export function solvingAt(/** @type {Model} */ model, /** @type {string} */ moves) {
  const scores = model.scores.get(moves);
  return Boolean(scores && scores.solving && !scores.complete);
}

/** The side to move's options at position `moves` ({move: {score, exact, depth?}}), or null. */
export function scoresFor(/** @type {Model} */ model, /** @type {string} */ moves) {
  return model.scores.get(moves)?.move_scores ?? null;
}

/**
 * What position `moves` is worth to the side to move there: {score, exact,
 * depth}. An exact value wins wherever it comes from: its options' scores once
 * every option is exact, an engine search of it, the exact score of the move
 * that reached it among its parent's options (scores are absolute, so the
 * child's value is that score negated), or the game's review. Failing that, the
 * board's estimate, or the engine's; null when nothing is known.
 */
/** @returns {PositionValue & {solving?: boolean} | null} */
export function positionValue(/** @type {Model} */ model, /** @type {string} */ moves) {
  // What the page saw of the position, the side to move's view: its scores (what the
  // board's badges show) and the newest search from it. At Perfect the engine's search
  // is exact while the scores of its position may be only the first pass its move cut
  // short; the player's scores are cut short when they move at once, and then the exact
  // score of their move among the options before it still tells the position's value.
  const seen = [];
  const scores = model.scores.get(moves);
  const values = scores ? Object.values(scores.move_scores) : [];
  if (scores && values.length) {
    const best = values.reduce((a, b) => (b.score > a.score ? b : a));
    const solving = Boolean(scores.solving && !scores.complete);
    seen.push({ score: best.score, exact: Boolean(scores.complete), depth: best.depth ?? null, solving });
  }
  for (let i = model.results.length - 1; i >= 0; i -= 1) {
    const r = model.results[i];
    if (r.from === moves) {
      seen.push({ score: r.result.score, exact: Boolean(r.result.exact), depth: r.result.depth });
      break;
    }
  }
  const exact = seen.find((value) => value.exact) ?? fromParent(model, moves);
  const reviewed = model.reviewed.get(moves);
  return exact ?? (reviewed?.exact ? reviewed : null) ?? seen[0] ?? reviewed ?? null;
}

/**
 * Position `moves`'s exact value from the exact score of its last move at its
 * parent: among the parent's options, or as the move a search from the parent
 * played; else null.
 */
function fromParent(/** @type {Model} */ model, /** @type {string} */ moves) {
  if (!moves) return null;
  const parent = moves.slice(0, -1);
  const last = moves.slice(-1);
  const options = [model.scores.get(parent)?.move_scores];
  for (let i = model.results.length - 1; i >= 0; i -= 1) {
    const { from, result } = model.results[i];
    if (from !== parent) continue;
    options.push(result.move_scores);
    // A search's score is that of the move it names (a level's own move keeps its own score).
    options.push({ [result.best_move]: { score: result.score, exact: result.exact } });
  }
  for (const moveScores of options) {
    const option = moveScores?.[last];
    if (option?.exact) return { score: -option.score || 0, exact: true, depth: null };
  }
  return null;
}

/** Keep the review's values (moves -> value); what the page saw itself still comes first. */
export function noteReviewValues(/** @type {Model} */ model, /** @type {Iterable<[string, PositionValue]>} */ values) {
  for (const [moves, value] of values) model.reviewed.set(moves, value);
}

/**
 * The analysis to show with position `moves`, the newest that fits: one of
 * that position (the options of the side to move), or the engine's search
 * that led to it (the engine's options before its last move).
 */
export function resultFor(/** @type {Model} */ model, /** @type {string} */ moves) {
  const before = moves.slice(0, -1);
  const last = moves.slice(-1);
  for (let i = model.results.length - 1; i >= 0; i -= 1) {
    const r = model.results[i];
    if (r.from === moves) return r;
    if (moves && r.kind === "engine" && r.from === before && r.result.best_move === last) return r;
  }
  return null;
}

/**
 * A `searching` event: the engine's search under way between two depths (`depth` null:
 * solving to the end of the game), with its nodes so far.
 * @typedef {{moves: string, depth: number | null, nodes: number, elapsed_ms: number}} Pulse
 */

/**
 * The pulse to show beside "Engine is thinking…": the latest, if it is of the search under
 * way (this position, still thinking) and no depth has been completed since it came.
 */
export function currentPulse(/** @type {Model} */ model) {
  const pulse = model.pulse;
  const s = model.state;
  if (!pulse || !s.engine_thinking || pulse.moves !== s.moves) return null;
  const last = model.depthRows[model.depthRows.length - 1];
  const since = last && model.searchFrom === pulse.moves && (last.elapsed_ms ?? 0) >= pulse.elapsed_ms;
  return since ? null : pulse;
}

/**
 * Add a `thinking` row (one completed depth). A row of another position or
 * algorithm starts a new table; a depth already there replaces its row, so
 * the depths replayed on joining and the ones broadcast meanwhile make one
 * table whatever their order.
 */
export function addDepthRow(/** @type {Model} */ model, /** @type {DepthRow} */ row) {
  const from = typeof row.moves === "string" ? row.moves : (model.searchFrom ?? model.state.moves);
  const first = model.depthRows[0];
  if (from !== model.searchFrom || (first && row.algorithm && first.algorithm && row.algorithm !== first.algorithm)) {
    model.depthRows = [];
  }
  model.searchFrom = from;
  model.depthRows = [...model.depthRows.filter((r) => r.depth !== row.depth), row].sort((a, b) => a.depth - b.depth);
}

/**
 * The depth rows that belong with `match` (what the headline shows): those of
 * the search under way, or of the engine search that gave `match`; none for an
 * analysis or another position's result.
 */
export function depthsOf(/** @type {Model} */ model, /** @type {SeenResult | null} */ match) {
  const last = model.depthRows[model.depthRows.length - 1];
  if (!match || !last) return [];
  if (match.kind === "thinking") return model.depthRows;
  const same = match.kind === "engine" && match.from === model.searchFrom && (!last.algorithm || last.algorithm === match.result.algorithm);
  return same ? model.depthRows : [];
}

/** "Move taken back." or "Moves taken back." for `count` moves taken back. */
export function takenBackText(/** @type {number} */ count) {
  return `${count === 1 ? "Move" : "Moves"} taken back.`;
}

/** True when the player has a move to take back (and the server can hear the request). */
export function canUndo(/** @type {Model} */ model) {
  const s = model.state;
  return model.connected && !s.engine_thinking && s.moves.length > s.human_side;
}

/** The latest completed depth, drawn as a provisional result while thinking. */
/** @returns {SeenResult | null} */
export function provisional(/** @type {Model} */ model) {
  const row = model.depthRows[model.depthRows.length - 1];
  if (!row || !model.state.engine_thinking || model.searchFrom === null) return null;
  return { from: model.searchFrom, result: { ...row, move_scores: null }, kind: "thinking" };
}

/** The analyses asked of position `from` (the comparison's; never the engine's own search
 * for its move, made at its level and settings then), the newest per algorithm. */
export function analysesOf(/** @type {Model} */ model, /** @type {string} */ from) {
  const by = new Map();
  for (const r of model.results) if (r.from === from && r.kind === "analysis") by.set(r.result.algorithm, r.result);
  return [...by.values()];
}

/** True for a game between two people (no engine plays in it). */
export function isFriendGame(/** @type {Model} */ model) {
  return model.state.opponent === "friend";
}

/** "You" / "Engine" (players) or the colour's name (spectators) for a side. */
export function sideName(/** @type {Model} */ model, /** @type {{players: string[]}} */ info, /** @type {number} */ side) {
  const s = model.state;
  if (isFriendGame(model)) return isPlayer(model) ? (side === s.human_side ? "You" : "Your friend") : info.players[side];
  if (isPlayer(model)) return side === s.human_side ? "You" : "Engine";
  return `${info.players[side]} (${side === s.engine_side ? "engine" : "player"})`;
}

/** The headline over the board. */
export function turnText(/** @type {Model} */ model, /** @type {{players: string[]}} */ info) {
  const s = model.state;
  const colour = (/** @type {number} */ side) => info.players[side];
  if (isFriendGame(model)) return friendTurnText(model, info);
  if (s.status === "won") {
    const winner = /** @type {number} */ (s.winner); // a won game has a winner
    if (!isPlayer(model)) return `${colour(winner)} (${winner === s.engine_side ? "engine" : "player"}) won`;
    return s.winner === s.human_side ? "You won. Well played!" : "The engine won";
  }
  if (s.status === "drawn") return "Draw";
  if (s.engine_thinking || s.to_move === s.engine_side) {
    // Its search waits for a free engine (the panel says its place): not "thinking" yet.
    const doing = model.queued !== null ? "is waiting its turn…" : "is thinking…";
    return isPlayer(model) ? `Engine ${doing}` : `${colour(s.to_move)} (engine) ${doing}`;
  }
  return isPlayer(model) ? `Your move (${colour(s.human_side)})` : `${colour(s.to_move)} (player) to move`;
}

/** The headline of a game between two people. */
function friendTurnText(/** @type {Model} */ model, /** @type {{players: string[]}} */ info) {
  const s = model.state;
  const friend = /** @type {import("./types.js").FriendState} */ (s.friend);
  const name = (/** @type {number} */ side) => `${sideName(model, info, side)}${isPlayer(model) ? ` (${info.players[side]})` : ""}`;
  /** @type {Record<string, string>} */
  const ends = { resign: " by resignation", flag: " on time", abandon: ": the other player left" };
  const how = (friend.end && ends[friend.end]) ?? "";
  if (s.status === "won") {
    const winner = /** @type {number} */ (s.winner);
    if (isPlayer(model)) return `${winner === s.human_side ? "You won" : "Your friend won"}${how}`;
    return `${info.players[winner]} won${how}`;
  }
  if (s.status === "drawn") return friend.end === "agreement" ? "Draw by agreement" : "Draw";
  if (s.status === "aborted") return "Game aborted";
  if (!friend.seated) return isPlayer(model) ? "Waiting for your friend to take the seat" : "Waiting for the second player";
  if (isPlayer(model)) return s.to_move === s.human_side ? `Your move (${info.players[s.human_side]})` : `${name(s.to_move)} to move`;
  return `${info.players[s.to_move]} to move`;
}

/** A link that starts a new game from `moves`, the viewer to move. */
/** `maxDepth`: the game's own bound on a custom depth (a stored depth past it, kept from
 * before the bound, searches the same tree: the link asks for the bound, never refused). */
export function continueUrl(/** @type {Model} */ model, /** @type {string} */ moves, maxDepth = Infinity) {
  const s = model.state;
  const params = new URLSearchParams({
    game: s.game,
    moves,
    engine_plays: moves.length % 2 === 0 ? "second" : "first",
    level: s.settings.level,
    algorithm: s.settings.algorithm,
  });
  if (s.settings.level === "custom") {
    if (s.settings.depth !== null) params.set("depth", String(Math.min(s.settings.depth, maxDepth)));
    if (s.settings.time !== null) params.set("time", String(s.settings.time));
  }
  return `/new?${params}`;
}
