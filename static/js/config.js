// The protocol config the server embeds in every page (webapp/protocol.py's
// client_config(): event names, levels, algorithms, limits, defaults).

/**
 * Parse the JSON of a <script type="application/json"> element (null if the page has none).
 * @param {string} id
 * @returns {any}
 */
export function readJSON(id) {
  const node = document.getElementById(id);
  return node ? JSON.parse(node.textContent ?? "null") : null;
}

/** The protocol config (throws if the page has none). @returns {any} */
export function readConfig() {
  const config = readJSON("config");
  if (!config) throw new Error("the page has no #config");
  return config;
}
