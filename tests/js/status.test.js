// status.js: a note and an error fade (a spectator's refused click must not cover the
// board for good); a lost connection stays until it is back.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ERROR_MS, INFO_MS, createStatus } from "../../static/js/status.js";

function page() {
  const notice = { textContent: "", dataset: {}, hidden: true };
  return { notice, status: createStatus({ notice, announcer: { textContent: "" } }) };
}

test("an error stays to be read, then fades; a note fades sooner", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const { notice, status } = page();
  status.error("You are watching this game: only its player can move.");
  assert.equal(notice.hidden, false);
  assert.equal(notice.dataset.kind, "error");
  t.mock.timers.tick(ERROR_MS - 1);
  assert.equal(notice.hidden, false);
  t.mock.timers.tick(1);
  assert.equal(notice.hidden, true);
  status.info("Settings saved.");
  t.mock.timers.tick(INFO_MS);
  assert.equal(notice.hidden, true);
  assert.ok(INFO_MS < ERROR_MS);
});

test("a lost connection stays until it is back; a later error does not clear it early", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const { notice, status } = page();
  status.connectionLost();
  t.mock.timers.tick(10 * ERROR_MS);
  assert.equal(notice.textContent, "Connection lost. Reconnecting…");
  status.clear(); // the next action: the lost connection is still the news
  assert.equal(notice.hidden, false);
  status.clearConnection();
  assert.equal(notice.hidden, true);
});

test("a new message replaces the old one and its timer", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const { notice, status } = page();
  status.info("first");
  t.mock.timers.tick(INFO_MS - 10);
  status.error("second");
  t.mock.timers.tick(20); // the first one's timer is gone: the error is still shown
  assert.equal(notice.textContent, "second");
  assert.equal(notice.hidden, false);
});

