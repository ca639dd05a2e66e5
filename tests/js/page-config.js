// A stand-in for the page the browser modules run in: the one thing the pure
// modules read from it is the server's protocol config (<script id="config">),
// for the score convention. Import this module first (before rules.js):
// ES modules run in import order. config.json holds the server's values
// (protocol.client_config()'s `scores` and `limits`); tests/test_js_config.py keeps it so.

import { readFileSync } from "node:fs";

const config = readFileSync(new URL("./config.json", import.meta.url), "utf8");
/** @type {Record<string, {textContent: string}>} */
const elements = { config: { textContent: config } };

globalThis.document = /** @type {any} */ ({ getElementById: (/** @type {string} */ id) => elements[id] ?? null });
