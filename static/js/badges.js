// Score badges shared by both boards: the words of a score in high-contrast
// text ("win" / "in 3"), styled by kind, with the engine's choice outlined.

/** Draw `score` ({text, kind, best}) into `badge`, or empty it for null. */
export function drawBadge(badge, score) {
  badge.replaceChildren();
  badge.className = "score-badge";
  badge.removeAttribute("title");
  if (!score) return;
  badge.classList.add(`score-${score.kind}`);
  if (score.best) badge.classList.add("is-best");
  const [word, ...rest] = score.text.split(" ");
  const strong = document.createElement("strong");
  strong.textContent = word;
  badge.append(strong);
  if (rest.length) {
    const small = document.createElement("span");
    small.textContent = rest.join(" ");
    badge.append(small);
  }
  badge.title = score.best ? `${score.text} (the engine's choice)` : score.text;
}
