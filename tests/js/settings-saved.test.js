// settings-form.js savedNote: hiding or showing the analysis takes effect at once, so
// its note does not say "from the engine's next move"; the engine's own settings do.
import "./page-config.js";
import assert from "node:assert/strict";
import { test } from "node:test";
import { savedNote } from "../../static/js/settings-form.js";

test("the analysis shown or hidden: saved, at once", () => {
  assert.equal(savedNote({ show_analysis: false }), "Settings saved.");
  assert.equal(savedNote({ show_analysis: true }), "Settings saved.");
});

test("what the engine plays with: from its next move", () => {
  const later = "Settings saved: they apply from the engine’s next move.";
  assert.equal(savedNote({ level: "hard" }), later);
  assert.equal(savedNote({ algorithm: "minimax", show_analysis: true }), later);
});
