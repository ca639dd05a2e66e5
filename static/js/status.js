// The page's two voices: a visible status line for errors and notes (an ARIA
// live region, so screen readers hear it too) and a hidden live region that
// announces the moves and the result.

export function createStatus({ notice, announcer }) {
  let timer = null;
  let connectionLost = false;

  function show(text, kind, sticky) {
    clearTimeout(timer);
    notice.textContent = text;
    notice.dataset.kind = kind;
    notice.hidden = !text;
    if (text && !sticky) timer = setTimeout(() => show("", "info", true), 6000);
  }

  return {
    /** An error from the server or a refused action: stays until the next action. */
    error: (text) => show(text, "error", true),
    info: (text) => show(text, "info", false),
    clear: () => {
      if (!connectionLost) show("", "info", true);
    },
    announce(text) {
      // Re-setting the same text is not announced again: clear first.
      announcer.textContent = "";
      requestAnimationFrame(() => (announcer.textContent = text));
    },
    copied(button) {
      show("Copied the link to this game.", "info", false);
      const label = button.querySelector("[data-label]") || button;
      label.dataset.original ??= label.textContent;
      label.textContent = "Copied";
      setTimeout(() => (label.textContent = label.dataset.original), 2000);
    },
    connectionLost() {
      connectionLost = true;
      show("Connection lost. Reconnecting…", "error", true);
    },
    clearConnection() {
      if (connectionLost) show("", "info", true);
      connectionLost = false;
    },
  };
}
