// A custom depth's bound and reading, per game: what the server takes
// (webapp/game_settings.py), so the page never offers nor shows a depth it would refuse.

/**
 * The deepest custom depth the server takes in `game`: the game's own bound
 * (protocol.GAME_MAX_DEPTH, sent as `limits.game_max_depth`; tic-tac-toe 9), else the
 * server-wide one (`limits.max_depth`).
 * @param {{max_depth: number, game_max_depth?: Record<string, number>}} limits
 * @param {string | null | undefined} game
 * @returns {number}
 */
export function depthBound(limits, game) {
  const own = game ? limits.game_max_depth?.[game] : undefined;
  return own ?? limits.max_depth;
}

/**
 * The depth typed in `text` if the server takes it (a whole number from 1 to `max`), else null.
 * @param {string} text
 * @param {number} max
 * @returns {number | null}
 */
export function parseDepth(text, max) {
  if (!/^\s*\d+\s*$/.test(text)) return null;
  const value = Number.parseInt(text, 10);
  return value >= 1 && value <= max ? value : null;
}

/**
 * The words beside the depth field (the page's template says the same).
 * @param {number} max
 * @returns {string}
 */
export function depthRangeText(max) {
  return `A whole number from 1 to ${max}.`;
}
