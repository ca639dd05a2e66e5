// The panel of a game between two people: both clocks, the invite link, "Take the
// seat", resign and the offers (draw, takeback, rematch), and a claim when the other
// player has gone. It draws from the server's state only: the clocks count down from
// the milliseconds the last state carried, by the time this page has seen pass since.

import { send } from "./api.js";

/** "4:05", "0:09.3" (tenths under ten seconds). */
export function clockText(/** @type {number} */ ms) {
  const left = Math.max(0, ms);
  const minutes = Math.floor(left / 60000);
  const seconds = Math.floor((left % 60000) / 1000);
  const text = `${minutes}:${String(seconds).padStart(2, "0")}`;
  return left < 10000 ? `${text}.${Math.floor((left % 1000) / 100)}` : text;
}

/**
 * The analysis panel's title in a game between two people: while it is played only
 * spectators may see the panel (if the creator allowed it), after it everyone reviews it.
 */
export function analysisTitle(/** @type {{status: string}} */ state) {
  return state.status === "playing" ? "Engine analysis for spectators" : "Engine analysis"; // the review has its own panel
}

/**
 * What the invitee reads before taking the seat: the side they would play and who
 * moves first (the first side always does; the creator chose which side is theirs).
 * `players` are the sides' names ("X", "O").
 */
export function inviteText(/** @type {{friend: {creator_side: number}}} */ state, /** @type {string[]} */ players) {
  const yours = 1 - state.friend.creator_side;
  const first = yours === 0 ? "you start" : "your friend starts";
  return `You are invited to play ${players[yours]}. ${players[0]} moves first: ${first}.`;
}

/**
 * True when a page that showed `before` and now has `after` should go on to the rematch
 * `after` names: a player's page, and the rematch made while it was open (`live`: a change
 * it saw happen, or missed while its connection was down and heard on reconnecting). The
 * state a page loads or comes Back with never moves it: a finished game whose rematch
 * exists stays there to be reviewed, and the panel links to the rematch.
 */
export function followsRematch(/** @type {any} */ before, /** @type {any} */ after, /** @type {boolean} */ live) {
  const player = after.friend.your_side !== null && after.friend.your_side !== undefined;
  return live && player && Boolean(after.friend.next_url) && !before.friend?.next_url;
}

/**
 * Mount the panel on `root` (the template's #friend section).
 * `act(key, extra)` sends a socket event; `say` shows a message; `names` are the sides' names (a viewer's, "You"; else the side's).
 */
export function createFriendPanel(root, { gameId, act, say, names }) {
  const $ = (/** @type {string} */ name) => /** @type {any} */ (root.querySelector(`[data-friend="${name}"]`));
  /** @type {any} */
  let state = null;
  let receivedAt = 0;
  let ticking = 0;
  /** When this page's connection dropped (null: connected): the clocks stop there, dimmed.
   * Whether the server's clock runs meanwhile (is it up?) the page cannot know; run down to
   * 0:00 in red, it read like a loss on time that never happened (QA). */
  let lostAt = /** @type {number | null} */ (null);
  /** The next game's URL once this page has set off for it (every later state names it too). */
  let leavingFor = "";
  const invite = new URLSearchParams(window.location.search).get("invite");

  const button = (name, handler) => $(name)?.addEventListener("click", handler);
  button("resign", () => window.confirm("Resign this game?") && act("resign"));
  button("offer-draw", () => act("offer", { kind: "draw" }));
  button("offer-takeback", () => act("offer", { kind: "takeback" }));
  button("offer-rematch", () => act("offer", { kind: "rematch" }));
  button("claim-win", () => act("claim", { result: "win" }));
  button("claim-abort", () => act("claim", { result: "abort" }));
  button("copy-invite", copyInvite);
  button("share-invite", shareInvite);
  button("take-seat", takeSeat);
  root.addEventListener("click", (event) => {
    const target = /** @type {HTMLElement} */ (event.target).closest("[data-answer]");
    if (!target) return;
    const [answer, kind] = /** @type {string} */ (target.getAttribute("data-answer")).split(":");
    act(answer, { kind });
  });

  function inviteUrl() {
    return new URL(state.friend.invite_url, window.location.origin).href;
  }

  async function copyInvite() {
    const field = $("invite-url");
    try {
      await navigator.clipboard.writeText(inviteUrl());
      say("Invite link copied: send it to your friend.");
    } catch {
      field.focus();
      field.select();
      say("Press Ctrl+C (or ⌘C) to copy the selected link.");
    }
  }

  async function shareInvite() {
    try {
      await navigator.share({ title: "Play me at Lookahead", url: inviteUrl() });
    } catch {
      // dismissed: nothing to say
    }
  }

  async function takeSeat() {
    $("take-seat").disabled = true;
    try {
      await send("POST", `/api/games/${encodeURIComponent(gameId)}/seat`, { body: { invite } });
      window.location.replace(`/g/${gameId}`); // the new seat's socket joins as a player
    } catch (error) {
      say(error.message);
      $("take-seat").disabled = false;
    }
  }

  /** Both clocks as of now: the state's times less what has passed since it came. */
  function drawClocks() {
    const clock = state?.friend.clock;
    $("clocks").hidden = !clock;
    if (!clock) return;
    const passed = (lostAt ?? performance.now()) - receivedAt;
    for (const side of [0, 1]) {
      const running = clock.running === side && state.status === "playing";
      const left = clock.remaining_ms[side] - (running ? passed : 0);
      const face = $(`clock-${side}`);
      face.querySelector(".clock-time").textContent = clockText(left);
      face.classList.toggle("is-running", running);
      face.classList.toggle("is-low", left < 10000);
    }
  }

  function drawClaim() {
    const f = state.friend;
    const me = f.your_side;
    const gone = me === null || state.status !== "playing" ? null : f.gone_ms[1 - me];
    const away = gone === null || gone === undefined ? null : gone + (performance.now() - receivedAt);
    const canClaim = away !== null && (away >= f.abandon_ms || !f.seated);
    $("claim").hidden = !canClaim;
    $("claim-win").hidden = !f.seated || state.moves.length < 2;
    $("claim-text").textContent = f.seated ? "Your friend has been gone for a while." : "Nobody has taken the seat yet. You may call the game off.";
    $("claim-abort").textContent = f.seated ? "Abort the game" : "Call it off";
  }

  function tick() {
    drawClocks();
    if (state) drawClaim();
  }

  /** Draw `next`; the clocks count from when a new state came (a redraw of the same one keeps it). */
  function render(/** @type {any} */ next) {
    if (next === state) return tick();
    state = next;
    receivedAt = performance.now();
    const f = state.friend;
    const me = f.your_side;
    const player = me !== null && me !== undefined;
    const playing = state.status === "playing";
    const other = player ? 1 - me : null;
    for (const side of [0, 1]) $(`clock-${side}`).querySelector(".clock-name").textContent = names(side);

    $("invite").hidden = !f.invite_url;
    if (f.invite_url) $("invite-url").value = inviteUrl();
    $("share-invite").hidden = typeof navigator.share !== "function";
    $("take").hidden = player || f.seated || !invite || !playing;
    // The game's own link (not the invite) watches: say where the seat is, or it reads
    // like a game that waits for nobody (a new user's try).
    $("no-invite").hidden = player || f.seated || Boolean(invite) || !playing;
    // Both seats taken: a watcher is told so (an invite already used, too), or the page
    // reads like a game that anyone might move in.
    $("watching").hidden = player || !f.seated || !playing;
    $("watching").textContent = invite
      ? "This invite has been used: both seats are taken, and you are watching."
      : "You are watching a game between two people: both seats are taken.";
    $("take-text").textContent = inviteText(state, [names(0), names(1)]); // not seated yet: the sides' names

    $("actions").hidden = !player || !f.seated;
    $("resign").hidden = !playing;
    $("offer-draw").hidden = !playing || f.offers.draw !== null;
    $("offer-takeback").hidden = !playing || f.offers.takeback !== null || !state.moves.split("").some((_, i) => i % 2 === me);
    $("offer-rematch").hidden = playing || f.offers.rematch !== null || Boolean(f.next);

    const lines = [];
    for (const kind of ["draw", "takeback", "rematch"]) {
      const by = f.offers[kind];
      if (by === null || by === undefined) continue;
      const words = { draw: "a draw", takeback: "a takeback", rematch: "a rematch" }[kind];
      if (player && by === other) {
        lines.push(`<p class="friend-offer">Your friend offers ${words}.
          <button type="button" class="button button-small button-primary" data-answer="accept:${kind}">Accept</button>
          <button type="button" class="button button-small" data-answer="decline:${kind}">Decline</button></p>`);
      } else if (player) {
        lines.push(`<p class="friend-offer">You offered ${words}.
          <button type="button" class="button button-small" data-answer="decline:${kind}">Withdraw</button></p>`);
      } else {
        lines.push(`<p class="friend-offer">${names(by)} offers ${words}.</p>`);
      }
    }
    $("offers").innerHTML = lines.join("");

    $("next").hidden = !f.next_url;
    if (f.next_url) $("next-link").href = f.next_url;
    tick();
    if (!ticking) ticking = window.setInterval(tick, 100);
  }

  /** A state came after `before`; `live`: a change this page saw, not the one it joined with. */
  function heard(/** @type {any} */ before, /** @type {any} */ after, /** @type {boolean} */ live) {
    // Both accepted while this page was open: play on, once (a second assign would abort
    // the first navigation).
    if (!followsRematch(before, after, live) || leavingFor === after.friend.next_url) return;
    leavingFor = after.friend.next_url;
    window.location.assign(leavingFor);
  }

  /** The page's connection dropped (false) or came back (true; its join's state follows). */
  function connection(/** @type {boolean} */ connected) {
    if (connected === (lostAt === null)) return;
    lostAt = connected ? null : performance.now();
    $("clocks").classList.toggle("is-stale", !connected);
    $("clocks").title = connected ? "" : "The clocks as of the last news from the server: reconnecting…";
    tick();
  }

  return { render, heard, connection };
}
