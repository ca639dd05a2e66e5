// A stand-in for the page the browser modules run in: the one thing the pure
// modules read from it is the server's protocol config (<script id="config">),
// for the score convention. Import this module first (before rules.js):
// ES modules run in import order. The values are the server's
// (webapp/protocol.py client_config()["scores"]); the browser tests
// (tests/browser/test_browser_modules.py) run the same modules with the real config.

export const SCORES = {
  tictactoe: { cells: 9, max_exact_score: 6, heuristic_steps: [0.05, 0.15, 0.4] },
  connect4: { cells: 42, max_exact_score: 22, heuristic_steps: [0.01, 0.04, 0.1] },
};

const elements = { config: { textContent: JSON.stringify({ scores: SCORES }) } };

globalThis.document = /** @type {any} */ ({ getElementById: (/** @type {string} */ id) => elements[id] ?? null });
