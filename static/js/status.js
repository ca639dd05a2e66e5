// The page's two voices: a visible status line for errors and notes (an ARIA
// live region, so screen readers hear it too) and a hidden live region that
// announces the moves and the result.

/** How long a note stays, and an error (a refused move, the server's word): long enough
 * to read twice, never for good (a spectator who clicked a cell has no next action that
 * would clear it, and it covers the board's top row). A lost connection stays. */
export const INFO_MS = 6000;
export const ERROR_MS = 12000;

export function createStatus({ notice, announcer }) {
  let timer = null;
  let connectionLost = false;

  /** @param {number | null} lasts milliseconds it stays; null: until replaced */
  function show(text, kind, lasts) {
    clearTimeout(timer);
    notice.textContent = text;
    notice.dataset.kind = kind;
    notice.hidden = !text;
    if (text && lasts !== null) timer = setTimeout(() => show("", "info", null), lasts);
  }

  return {
    /** An error from the server or a refused action: until the next one, or ERROR_MS. */
    error: (text) => show(text, "error", ERROR_MS),
    info: (text) => show(text, "info", INFO_MS),
    clear: () => {
      if (!connectionLost) show("", "info", null);
    },
    announce(text) {
      // Re-setting the same text is not announced again: clear first.
      announcer.textContent = "";
      requestAnimationFrame(() => (announcer.textContent = text));
    },
    copied(button) {
      show("Copied the link to this game.", "info", INFO_MS);
      const label = button.querySelector("[data-label]") || button;
      label.dataset.original ??= label.textContent;
      label.textContent = "Copied";
      setTimeout(() => (label.textContent = label.dataset.original), 2000);
    },
    connectionLost() {
      connectionLost = true;
      show("Connection lost. Reconnecting…", "error", null);
    },
    clearConnection() {
      if (connectionLost) show("", "info", null);
      connectionLost = false;
    },
  };
}
