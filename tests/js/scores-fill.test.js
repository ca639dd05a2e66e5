// scores-fill.js: an earlier position's scores asked of the server's analysis, once.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_ASKS, SETTLE_MS, createScoresFill } from "../../static/js/scores-fill.js";

/** A clock the test moves by hand: wait(ms, signal) resolves when `tick()` is called. */
function handClock() {
  const waiting = [];
  const wait = (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      waiting.push({ ms, resolve });
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
  return { wait, waiting, tick: () => waiting.shift()?.resolve() };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const SCORES = { 4: { score: 0, exact: true } };

test("a position shown a moment is asked for once, and its scores handed on", async () => {
  const clock = handClock();
  const asked = [];
  const got = [];
  const fetcher = async (game, moves) => (asked.push([game, moves]), { move_scores: SCORES, complete: true });
  const fill = createScoresFill("connect4", (payload) => got.push(payload), { fetcher, wait: clock.wait });
  fill.want("44");
  fill.want("44"); // a render again: the same question, not a second
  await settle();
  assert.deepEqual(asked, []); // it waits first
  assert.equal(clock.waiting[0].ms, SETTLE_MS);
  clock.tick();
  await settle();
  assert.deepEqual(asked, [["connect4", "44"]]);
  assert.deepEqual(got, [{ moves: "44", move_scores: SCORES, complete: true, solving: false }]);
  fill.want("44"); // answered: never asked again
  fill.want(null);
  fill.want("44");
  await settle();
  assert.equal(clock.waiting.length, 0);
  assert.equal(asked.length, 1);
});

test("stepping past a position asks nothing for it; coming back asks anew", async () => {
  const clock = handClock();
  const asked = [];
  const fetcher = async (game, moves) => (asked.push(moves), { move_scores: SCORES, complete: false });
  const fill = createScoresFill("connect4", () => {}, { fetcher, wait: clock.wait });
  fill.want("4");
  fill.want("44"); // the first wait is cancelled
  await settle();
  assert.equal(clock.waiting.length, 2);
  clock.tick(); // the cancelled one: nothing follows
  clock.tick();
  await settle();
  assert.deepEqual(asked, ["44"]);
  fill.want("4");
  await settle();
  clock.tick();
  await settle();
  assert.deepEqual(asked, ["44", "4"]);
});

test("'not yet' is asked again after the server's delay, then given up for good", async () => {
  const clock = handClock();
  let asks = 0;
  const fetcher = async () => ((asks += 1), { pending: true, retryAfter: 2 });
  const got = [];
  const fill = createScoresFill("tictactoe", (p) => got.push(p), { fetcher, wait: clock.wait });
  fill.want("5");
  for (let i = 0; i <= MAX_ASKS; i += 1) {
    await settle();
    if (i > 0) assert.equal(clock.waiting[0]?.ms ?? 2000, 2000);
    clock.tick();
  }
  await settle();
  assert.equal(asks, MAX_ASKS);
  assert.deepEqual(got, []);
  fill.want(null);
  fill.want("5"); // given up: not asked again
  await settle();
  assert.equal(clock.waiting.length, 0);
  assert.equal(asks, MAX_ASKS);
});

test("'busy' and 'too many' are asked again after their delay; estimates get the answer's depth", async () => {
  const clock = handClock();
  const replies = [
    () => Promise.reject(Object.assign(new Error("Too many"), { status: 429, retryAfter: 3 })),
    () => Promise.reject(Object.assign(new Error("Busy"), { status: 503, retryAfter: null })),
    () => Promise.resolve({ move_scores: { 4: { score: 0.2, exact: false }, 3: { score: 1, exact: true } }, depth: 8, complete: false }),
  ];
  const got = [];
  const fill = createScoresFill("connect4", (p) => got.push(p), { fetcher: () => replies.shift()(), wait: clock.wait });
  fill.want("44");
  await settle();
  clock.tick(); // settled
  await settle();
  assert.equal(clock.waiting[0].ms, 3000); // the 429's Retry-After
  clock.tick();
  await settle();
  assert.equal(clock.waiting[0].ms, 2000); // none given: 2 s
  clock.tick();
  await settle();
  assert.deepEqual(got, [{
    moves: "44",
    move_scores: { 4: { score: 0.2, exact: false, depth: 8 }, 3: { score: 1, exact: true } },
    complete: false,
    solving: false,
  }]);
});

test("a refusal leaves the board bare and is not asked again", async () => {
  const clock = handClock();
  let asks = 0;
  const fetcher = async () => {
    asks += 1;
    throw Object.assign(new Error("Not a position"), { status: 400 });
  };
  const fill = createScoresFill("connect4", () => assert.fail("no scores"), { fetcher, wait: clock.wait });
  fill.want("3");
  await settle();
  clock.tick();
  await settle();
  fill.want(null);
  fill.want("3");
  await settle();
  assert.equal(asks, 1);
  assert.equal(clock.waiting.length, 0);
});

test("the page can say a position is being asked for, and hears when the question ends", async () => {
  const clock = handClock();
  let ends = 0;
  const fetcher = async () => ({ pending: true, retryAfter: 1 });
  const fill = createScoresFill("connect4", () => {}, { fetcher, wait: clock.wait, onEnd: () => (ends += 1) });
  assert.equal(fill.asking("4"), false);
  fill.want("4");
  assert.equal(fill.asking("4"), true); // waiting to see whether the page stays
  assert.equal(fill.asking("44"), false);
  fill.want("44"); // left: that question ends unheard (the page shows another position)
  await settle();
  assert.equal(fill.asking("4"), false);
  assert.equal(fill.asking("44"), true);
  clock.tick(); // the cancelled wait: nothing follows
  for (let i = 0; i <= MAX_ASKS; i += 1) {
    await settle();
    assert.equal(ends, 0);
    clock.tick();
  }
  await settle();
  assert.equal(fill.asking("44"), false); // given up
  assert.equal(ends, 1);
});

test("an answer ends the question too", async () => {
  const clock = handClock();
  let ends = 0;
  const got = [];
  const fetcher = async () => ({ move_scores: SCORES, complete: true });
  const fill = createScoresFill("connect4", (p) => got.push(p), { fetcher, wait: clock.wait, onEnd: () => (ends += 1) });
  fill.want("44");
  await settle();
  clock.tick();
  await settle();
  assert.equal(got.length, 1);
  assert.equal(fill.asking("44"), false);
  assert.equal(ends, 1);
});
