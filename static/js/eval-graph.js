// The evaluation graph over the whole game: one point per move, the value of
// the position after it from the first player's side (up: the first player
// is better), exact results at the edges, estimates in between. Clicking a
// point reviews that position (the move list does the same from the keyboard,
// with targets a finger can hit; the chart is a picture to assistive tech).
// SVG, drawn here: no build step, no library. Render-only.

import { firstPlayerShare } from "./eval-bar.js";
import { moveName } from "./format.js";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 300;
const HEIGHT = 90;
const PAD = 8;

function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

export function createEvalGraph(root, { info, onSelect }) {
  const chart = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "eval-graph", role: "img" });
  chart.setAttribute("aria-label", `Evaluation after each move (up: ${info.players[0]} better)`);
  root.replaceChildren(chart);
  chart.addEventListener("click", (event) => {
    const point = event.target.closest("[data-ply]");
    if (point) onSelect(Number(point.dataset.ply));
  });

  /**
   * points: [{ply, value, over, words}] one per move (ply 1..n), value as the
   * evaluation bar takes it (for the side to move after that move) or null;
   * shown: the ply on the board.
   */
  function render({ points, shown }) {
    chart.replaceChildren();
    const mid = HEIGHT / 2;
    chart.append(svg("line", { x1: PAD, x2: WIDTH - PAD, y1: mid, y2: mid, class: "eval-axis" }));
    const step = points.length > 1 ? (WIDTH - 2 * PAD) / (points.length - 1) : 0;
    const at = (i) => (points.length > 1 ? PAD + i * step : WIDTH / 2);
    const y = (p) => {
      let share = firstPlayerShare(p.value, p.ply % 2, info);
      if (p.over) share = p.over.winner === null ? 0.5 : p.over.winner === 0 ? 1 : 0;
      return PAD + (1 - share) * (HEIGHT - 2 * PAD);
    };
    const known = points.map((p, i) => ({ p, i })).filter(({ p }) => p.value || p.over);
    if (known.length > 1) {
      const path = known.map(({ p, i }, k) => `${k ? "L" : "M"}${at(i).toFixed(1)},${y(p).toFixed(1)}`).join(" ");
      chart.append(svg("path", { d: path, class: "eval-line" }));
    }
    points.forEach((p, i) => {
      const unknown = !p.value && !p.over;
      const kind = unknown ? "unknown" : p.over || p.value.exact ? "exact" : "estimate";
      const dot = svg("circle", {
        cx: at(i),
        cy: unknown ? mid : y(p),
        r: p.ply === shown ? 5 : 3.5,
        class: `eval-point is-${kind}${p.ply === shown ? " is-shown" : ""} p${(p.ply - 1) % 2}`,
        "data-ply": p.ply,
      });
      const title = svg("title", {});
      const name = moveName(p.ply, info.players);
      title.textContent = `${name.charAt(0).toUpperCase()}${name.slice(1)}: ${p.words}`;
      dot.append(title);
      chart.append(dot);
    });
  }

  return { render };
}
