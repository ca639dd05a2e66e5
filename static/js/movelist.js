// The move list: one row per pair of moves ("1. 4 4"), each move a button
// that shows the board as it was after it (review mode). Render-only.

export function createMoveList(root, { info, onSelect }) {
  const list = root.querySelector("ol");
  const empty = root.querySelector("[data-empty]");
  list.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-ply]");
    if (button) onSelect(Number(button.dataset.ply));
  });

  /** moves: the live move string; shownPly: the ply on the board; sides: who is who. */
  function render({ moves, shownPly, names }) {
    empty.hidden = moves.length > 0;
    list.replaceChildren();
    for (let i = 0; i < moves.length; i += 2) {
      const row = document.createElement("li");
      row.className = "move-row";
      const number = document.createElement("span");
      number.className = "move-number";
      number.textContent = `${i / 2 + 1}.`;
      number.setAttribute("aria-hidden", "true");
      row.append(number);
      for (let j = i; j < Math.min(i + 2, moves.length); j += 1) {
        const button = document.createElement("button");
        button.type = "button";
        button.className = `move move-p${j % 2}`;
        button.dataset.ply = String(j + 1);
        button.textContent = moves[j];
        button.setAttribute("aria-label", `Move ${i / 2 + 1}: ${names[j % 2]}, ${info.moveNoun} ${moves[j]}`);
        if (j + 1 === shownPly) button.setAttribute("aria-current", "step");
        row.append(button);
      }
      list.append(row);
    }
    // Keep the shown move in view inside the list's own scroll box (never
    // scroll the page: on a phone the list sits below the board).
    const current = list.querySelector("[aria-current]");
    const box = list.parentElement;
    if (current && box.scrollHeight > box.clientHeight) {
      const offset = current.getBoundingClientRect().top - box.getBoundingClientRect().top;
      if (offset < 0 || offset > box.clientHeight - current.offsetHeight) {
        box.scrollTop += offset - box.clientHeight / 2;
      }
    }
  }

  return { render };
}
