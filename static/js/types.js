// The protocol payloads the pages read, as JSDoc types for `tsc --checkJs`
// (no code: import a type with `@typedef {import("./types.js").State} State`).
// The server defines them (webapp/protocol.py, services/state.py,
// engine/results.py, services/live_scores.py); this restates only their shape.

/** 0: the first player (X, Red); 1: the second. @typedef {0 | 1} Side */

/**
 * One move's value for the side to move: exact (a proven result) or an
 * estimate (strictly between -1 and 1) found at `depth`.
 * @typedef {object} MoveScore
 * @property {number} score
 * @property {boolean} exact
 * @property {number | null} [depth]
 */

/** Each legal move's score, keyed by move: @typedef {Record<string, MoveScore>} MoveScores */

/**
 * A position's worth to its side to move (what the eval bar and graph show).
 * @typedef {object} PositionValue
 * @property {number} score
 * @property {boolean} exact
 * @property {number | null} [depth]
 */

/**
 * The `scores` event: the side to move's options at position `moves`.
 * @typedef {object} ScoresPayload
 * @property {string} [game_id]
 * @property {string} moves
 * @property {number} [to_move]
 * @property {MoveScores} move_scores
 * @property {boolean} [complete] every score is exact
 * @property {boolean} [solving] the server is still solving some estimates
 */

/**
 * A search's result: the `engine_move` and `analysis` events, a state's
 * `last_engine_move` (engine/results.py SearchResult.to_dict, plus its game and position).
 * @typedef {object} EngineMove
 * @property {string} [game_id]
 * @property {string} [moves] the position searched
 * @property {string} [move]
 * @property {string | null} best_move
 * @property {number} score
 * @property {boolean} exact
 * @property {string} pv
 * @property {boolean} [line_after] an exact solve's line, proved after its move went out (its figures leave it out)
 * @property {number} nodes
 * @property {number} depth
 * @property {number} time_ms
 * @property {string} algorithm
 * @property {MoveScores | null} [move_scores]
 * @property {string | null} [stopped]
 * @property {Record<string, unknown>} [extra]
 * @property {boolean} [iterations_counted]
 * @property {import("./game-model.js").DepthRow[]} [depths] a quick search's depths, sent with its move instead of as `thinking` events
 */

/**
 * The `state` event (services/state.py game_state, plus the viewer's `seat`).
 * @typedef {object} State
 * @property {string} id
 * @property {number} version
 * @property {GameName} game
 * @property {string} moves
 * @property {"playing" | "won" | "drawn" | "aborted"} status
 * @property {Side | null} winner
 * @property {Side} to_move
 * @property {Record<string, any>} settings
 * @property {Side} human_side
 * @property {Side} engine_side
 * @property {boolean} engine_thinking
 * @property {EngineMove | null} last_engine_move
 * @property {ScoresPayload | null} scores
 * @property {number} move_count
 * @property {string} [created_at]
 * @property {string} [updated_at]
 * @property {string} url
 * @property {"player" | "spectator"} [seat]
 * @property {"friend"} [opponent] a game between two people (no engine plays)
 * @property {FriendState} [friend] its seats, clock, offers and end
 */

/**
 * A game between two people's part of its state (services/friends.py ``view``).
 * @typedef {object} FriendState
 * @property {Side | null} your_side null for a spectator
 * @property {Side} creator_side
 * @property {boolean} seated the invite's seat is taken
 * @property {{initial_ms: number, increment_ms: number, remaining_ms: number[], running: Side | null} | null} clock
 * @property {Record<string, Side | null>} offers the side offering each kind, if any
 * @property {"resign" | "flag" | "abandon" | "agreement" | "aborted" | null} end
 * @property {string | null} next the rematch's id
 * @property {string | null} next_url
 * @property {boolean} spectator_analysis
 * @property {(number | null)[]} gone_ms how long each side has had no connection
 * @property {number} abandon_ms
 * @property {string} [invite_url] the creator's, until the seat is taken
 */

/** @typedef {"tictactoe" | "connect4"} GameName */

/**
 * A game's facts (rules.js gameInfo): its board, its players' names, and the
 * server's score convention (a win with the winner's k-th stone scores
 * winBase - k; estimate words start at `steps`).
 * @typedef {object} GameInfo
 * @property {GameName} name
 * @property {string} label
 * @property {number} columns
 * @property {number} rows
 * @property {number} inARow
 * @property {string} moveNoun
 * @property {string[]} players the players' names, first to move first
 * @property {number} cells
 * @property {number} winBase
 * @property {number[]} steps
 * @property {number} moveKeys
 */

export {};
