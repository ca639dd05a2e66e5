// Score badges shared by both boards: the words of a score in high-contrast
// text ("win" / "in 3", "slightly" / "better · depth 8"), styled by kind,
// with the best options outlined; and the ring on the board where a best move lands.

/** Draw `score` ({text, kind, best}) into `badge`, or empty it for null. */
export function drawBadge(badge, score) {
  badge.replaceChildren();
  badge.className = "score-badge";
  badge.removeAttribute("title");
  if (!score) return;
  badge.classList.add(`score-${score.kind}`);
  if (score.best) badge.classList.add("is-best");
  if (score.solving) badge.classList.add("is-solving");
  const [words, note] = score.text.split(" · "); // an estimate's depth comes after the dot
  const [word, ...rest] = words.split(" ");
  const strong = document.createElement("strong");
  strong.textContent = word;
  badge.append(strong);
  for (const text of [rest.join(" "), note]) {
    if (!text) continue;
    const small = document.createElement("span");
    small.textContent = text;
    if (text === note) small.className = "badge-note";
    badge.append(small);
  }
  badge.title = score.best ? `${score.text} (best)` : score.text;
}

/** A ring where a best move would land (the analysis board, the review). */
export function drawBestRing(container, on) {
  const ring = container.querySelector(".best-ring");
  if (on && !ring) {
    const mark = document.createElement("span");
    mark.className = "best-ring";
    mark.setAttribute("aria-hidden", "true");
    container.append(mark);
  } else if (!on) {
    ring?.remove();
  }
}
