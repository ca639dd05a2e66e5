// The game page: wires the board, the engine panel, the move list and the
// settings to the server. The model (game-model.js) holds the state; every
// change goes through update(), which redraws from it.

import { createAnalysisPanel } from "./analysis.js";
import { depthBound } from "./depth-limit.js";
import { gameAction } from "./api.js";
import { boardView, createBoard, topMoves } from "./board-view.js";
import { readConfig, readJSON } from "./config.js";
import { createEvalBar, evalWords } from "./eval-bar.js";
import { createEvalGraph } from "./eval-graph.js";
import * as M from "./game-model.js";
import { moveName } from "./format.js";
import { analysisTitle, createFriendPanel } from "./friend-panel.js";
import { createGraphFill } from "./graph-fill.js";
import { createMoveList } from "./movelist.js";
import { gameInfo, replay } from "./rules.js";
import { bindSettings, savedNote } from "./settings-form.js";
import { connectGame } from "./socket.js";
import { createScoresFill } from "./scores-fill.js";
import { createStatus } from "./status.js";

const config = readConfig();
const EV = config.events;
const model = M.createModel(readJSON("initial-state"));
const info = gameInfo(model.state.game);
let gameId = model.state.id; // another once "New game" or "Rematch" switches in place
/** The page's element `id` (the template decides its kind: input, button, link...). */
const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));

const status = createStatus({ notice: $("notice"), announcer: $("announcer") });
const board = createBoard($("board"), model.state.game, play);
const moveList = createMoveList($("moves"), { info, onSelect: (ply) => review(ply) });
const evalBar = createEvalBar({ track: $("eval-bar"), text: $("eval-text"), figure: $("eval-figure") }, info);
const evalGraph = createEvalGraph($("eval-graph"), { info, onSelect: (ply) => review(ply) });
const panel = createAnalysisPanel($("analysis"), {
  info,
  algorithms: config.algorithms,
  levels: config.levels,
  styles: config.play_styles,
  // A click decides: the hover preview stops until the pointer leaves and comes back,
  // so "Hide line on board" hides it at once.
  onToggleLine: () => update(() => ((model.showLine = !model.showLine), (model.hoverLine = false))),
  onHoverLine: (on) => update(() => (model.hoverLine = on)),
  onCompare: compare,
});
const settingsForm = bindSettings($("settings-form"), {
  limits: config.limits,
  onChange: (partial) => {
    if (!M.isPlayer(model)) return status.error("Only the players can change the engine’s settings.");
    sentSettings = { ...sentSettings, ...partial };
    socket.settings(partial);
    status.info(savedNote(partial));
  },
  onInvalid: (message) => status.error(`Not saved. ${message}`),
});

M.noteEngineMove(model);
M.noteScores(model, model.state.scores);
/** Settings sent and not yet in a state: a state the server sent before they came (the
 * engine's options, saved a moment after its move) must not undo the click on the form. */
let sentSettings = {};

// The graph's positions played before this page was here come from the game's review.
/** The graph's filler of game `id`: the answers of a game the page has left are dropped. */
function graphFillOf(id) {
  const fill = createGraphFill(id, (values) => fill === graphFill && update(() => M.noteReviewValues(model, values)));
  return fill;
}
let graphFill = graphFillOf(gameId);
/** Fair play: in a game between two people, no analysis while it is played, but for the
 * spectators when its creator allowed it (the server refuses the rest anyway). */
const fairPlay = () =>
  M.isFriendGame(model) && model.state.status === "playing" && (M.isPlayer(model) || !model.state.friend?.spectator_analysis);
const fillGraph = () => model.state.settings.show_analysis && !fairPlay() && graphFill.fill(model.state.moves);
// An earlier position's scores this page never saw live come from the server's analysis.
/** The filler of earlier positions' scores (asked once each: afresh for a new game). */
function scoresFillOf() {
  const fill = createScoresFill(model.state.game, (payload) => fill === scoresFill && update(() => M.noteScores(model, payload)), {
    onEnd: () => fill === scoresFill && update(() => {}), // "Scoring it…" goes
  });
  return fill;
}
let scoresFill = scoresFillOf();
let joining = false; // the next state is a join's answer: moves this page may not have seen
// Connections since the page was loaded or brought Back: from the second on, a join's
// answer is a reconnection of a page that stayed open, and what it missed meanwhile (a
// rematch both players agreed) happened while it was open.
let connections = 0;
window.addEventListener("pageshow", (event) => {
  if (event.persisted) connections = 0; // Back (the page kept in memory): a fresh start
});
fillGraph();

// -- Server events --------------------------------------------------------------

const socket = connectGame(EV, gameId, {
  connected: () =>
    update(
      () => ((model.connected = true), (joining = true), (connections += 1)),
      () => (status.clearConnection(), friendPanel?.connection(true)),
    ),
  // A move on its way when the line dropped is not drawn as played: the state sent on
  // reconnecting says whether the server got it.
  disconnected: () =>
    update(
      () => ((model.connected = false), (model.pending = null)),
      () => (status.connectionLost(), friendPanel?.connection(false)),
    ),
  [EV.state]: (state) => {
    // States can cross on the way (a join's answer and a room broadcast): the newest wins.
    if (typeof state.version === "number" && state.version < (model.state.version ?? 0)) return;
    update(() => applyState(state));
  },
  [EV.thinking]: (row) =>
    update(() => {
      M.addDepthRow(model, row);
      model.pulse = null; // a completed depth is newer news than any pulse before it
      model.queued = null;
    }),
  [EV.searching]: (pulse) =>
    update(() => {
      model.pulse = pulse;
      model.queued = null;
    }),
  [EV.engine_move]: (result) =>
    update(() => {
      for (const row of result.depths ?? []) M.addDepthRow(model, row); // a quick search's
      M.noteEngineMove(model, result);
      model.queued = null;
    }),
  [EV.analysis]: (result) =>
    update(() => {
      const asked = model.compare.waiting.shift();
      const from = typeof result.moves === "string" ? result.moves : asked ? asked.from : model.state.moves;
      M.addResult(model, from, result, "analysis");
      model.queued = null;
      const next = model.compare.waiting[0];
      if (next) socket.analyse(next.algorithm, next.from);
    }),
  [EV.scores]: (payload) => update(() => M.noteScores(model, payload)),
  // The engine's move waits for a free engine (an analysis's wait is the analysis's own).
  [EV.queued]: (payload) => payload.kind !== "analysis" && update(() => (model.queued = payload.position ?? 0)),
  [EV.error]: (error) =>
    update(() => {
      model.pending = null;
      undoneAt = null;
      model.compare.waiting = [];
      if (Object.keys(sentSettings).length) {
        sentSettings = {}; // perhaps refused: the form shows the settings as the server holds them
        settingsForm.show(model.state.settings);
      }
      status.error(error.message || "The server refused that.");
    }),
});

// A game between two people: clocks, invite, seat, offers (friend-panel.js).
const friendPanel = M.isFriendGame(model)
  ? createFriendPanel($("friend"), {
      gameId,
      act: (key, extra) => {
        status.clear();
        socket.send(key, extra);
      },
      say: (message) => status.info(message),
      names: (side) => M.sideName(model, info, side),
    })
  : null;

function applyState(state) {
  const before = model.state;
  if (!M.stillPending(model, state)) model.pending = null; // else the disc stays drawn
  model.state = state;
  // Panels that keep no model of their own (engine-compare.js) hear that the game moved.
  if (state.moves !== before.moves) document.dispatchEvent(new CustomEvent("lookahead:moves", { detail: state.moves }));
  if (state.seat) model.seat = state.seat;
  if (state.moves.length < before.moves.length) {
    model.depthRows = []; // taken back: the rows were another game's line
    model.searchFrom = null;
  }
  // A new search; its first rows may have come before this state: keep those.
  if (state.engine_thinking && model.searchFrom !== state.moves) {
    model.depthRows = [];
    model.searchFrom = state.moves;
  }
  if (!state.engine_thinking) model.queued = null;
  model.pulse = null; // the search under way may be another now (a settings change restarts it)
  if (model.reviewPly !== null && model.reviewPly >= state.moves.length) model.reviewPly = null;
  M.noteEngineMove(model); // in case this page missed the engine_move event
  M.noteScores(model, state.scores); // the live position's options so far (on join too)
  for (const [name, value] of Object.entries(sentSettings)) if (state.settings[name] === value) delete sentSettings[name];
  settingsForm.show({ ...state.settings, ...sentSettings });
  announceChanges(before, state);
  friendPanel?.heard(before, state, !joining || connections > 1); // the rematch made while this page is open
  const overNow = before.status === "playing" && state.status !== "playing"; // the review is open now
  if (joining || overNow || (state.settings.show_analysis && !before.settings.show_analysis)) fillGraph();
  if (joining) document.body.dataset.joined = String(connections); // the join's answer is in (which connection's)
  joining = false;
}

function announceChanges(before, after) {
  if (after.moves.length < before.moves.length) {
    status.announce(`${M.takenBackText(before.moves.length - after.moves.length)} ${M.turnText(model, info)}.`);
    return;
  }
  if (after.moves === before.moves || !after.moves.startsWith(before.moves)) return;
  const lines = [];
  for (let i = before.moves.length; i < after.moves.length; i += 1) {
    lines.push(`${M.sideName(model, info, i % 2)} played ${info.moveNoun} ${after.moves[i]}.`);
  }
  lines.push(after.status === "playing" ? `${M.turnText(model, info)}.` : `Game over: ${M.turnText(model, info)}.`);
  status.announce(lines.join(" "));
}

// -- Actions ----------------------------------------------------------------------

function play(move) {
  status.clear();
  const s = model.state;
  if (!M.isPlayer(model) && !M.isFriendGame(model)) {
    // Said at once, connected or not (the server refuses a spectator's move anyway), and
    // first: "press End to play" would promise a watcher a move it cannot make.
    return status.error("You are watching this game: only its player can move, undo or change it.");
  }
  if (model.reviewPly !== null) {
    return status.error("You are looking at an earlier move. Press End or “Back to live” to play.");
  }
  if (s.status !== "playing") return status.error("The game is over. Start a new game or a rematch.");
  if (!model.connected) {
    return status.error("Not connected to the server: your move was not played. Wait for the connection to come back, then play it again.");
  }
  if (model.pending !== null) return; // a double click: the first click's move is on its way
  if (!replay(s.game, M.liveMoves(model)).legal.has(move)) {
    return status.error(info.name === "connect4" ? `Column ${move} is full.` : `Cell ${move} is taken.`);
  }
  if (M.myTurn(model)) update(() => (model.pending = move));
  // The move says which position it answers: one sent from an older position (a race, a
  // click sent before the last answer arrived) is refused rather than played there.
  socket.move(move, s.moves.length); // the server may refuse it
}

function review(ply) {
  update(() => {
    const live = model.state.moves.length;
    const clamped = Math.max(0, Math.min(ply, live));
    model.reviewPly = clamped === live ? null : clamped;
  });
}

/**
 * A new game or a rematch. Asked over the game's connection when it is up (the identity
 * cookie it was opened with holds the new seat), and shown in place: the connection
 * moves to the new game's room, the page keeps everything else (no page load, no new
 * connection). Without a connection, over HTTP (whose answer sets that cookie), then
 * the new game's page.
 */
let starting = false; // a new game or rematch on its way: a double click makes one game
async function startAnother(action) {
  if (starting) return;
  starting = true;
  status.info(action === "rematch" ? "Setting up the rematch…" : "Setting up a new game…");
  try {
    if (socket.connected) {
      const created = await socket.another(action);
      if (!created.state) return window.location.assign(created.url || `/g/${created.id}`); // a server from before switching
      switchTo(created);
      starting = false;
      return;
    }
    const created = await gameAction(gameId, action);
    window.location.assign(created.url || `/g/${created.id}`);
  } catch (error) {
    starting = false;
    status.error(error.message);
  }
}

/** Show game `created` ({id, url, state}) in place of this one, as a page load of it would. */
function switchTo(created) {
  const state = created.state;
  gameId = created.id;
  window.history.pushState({ game: gameId }, "", created.url || `/g/${gameId}`);
  graphFill = graphFillOf(gameId);
  scoresFill.want(null); // the last game's question ends; the new filler asks afresh
  scoresFill = scoresFillOf();
  undoneAt = null;
  $("share-url").hidden = true; // the copy field of the last game's link
  $("share-url").value = "";
  sentSettings = {}; // the last game's: the new one's state holds its own
  update(
    () => {
      Object.assign(model, M.createModel(state), { connected: model.connected, showLine: model.showLine });
      M.noteEngineMove(model);
      M.noteScores(model, state.scores);
      settingsForm.show(state.settings);
    },
    () => {
      status.clear();
      status.announce(`A new game. ${M.turnText(model, info)}.`);
    },
  );
  showNames(state);
  // Panels that keep no model of their own (review.js, engine-compare.js) hear of it,
  // before the new game's events that came ahead of the answer are handed on.
  document.dispatchEvent(new CustomEvent("lookahead:game", { detail: state }));
  document.dispatchEvent(new CustomEvent("lookahead:moves", { detail: state.moves }));
  socket.follow(gameId);
  fillGraph();
}

/** The players' names by side ("Engine", "You"), which a rematch swaps (as the template). */
function showNames(state) {
  for (const chip of document.querySelectorAll(".player")) {
    const side = chip.classList.contains("player-p0") ? 0 : 1;
    const name = chip.querySelector(".player-name");
    if (name) name.textContent = side === state.engine_side ? "Engine" : M.isPlayer(model) ? "You" : "Player";
  }
}

// Back (or Forward) to a game this page switched from: its own page (a link to a place
// in the page changes no game).
window.addEventListener("popstate", () => {
  if (decodeURIComponent(window.location.pathname.split("/").pop() ?? "") !== gameId) window.location.reload();
});

function compare() {
  const from = M.shownMoves(model); // the position on the board: live, or one looked back at
  const current = model.state.settings.algorithm;
  const other = Object.keys(config.algorithms).find((a) => a !== current) || current;
  const known = new Set(M.analysesOf(model, from).map((r) => r.algorithm));
  const wanted = [other, current].filter((a) => !known.has(a));
  update(() => {
    model.compare = { waiting: wanted.map((algorithm) => ({ from, algorithm })) };
  });
  if (wanted.length) socket.analyse(wanted[0], from);
}

async function copyLink() {
  const url = window.location.href;
  const field = $("share-url");
  try {
    await navigator.clipboard.writeText(url);
    status.copied($("copy-link"));
  } catch {
    field.hidden = false;
    field.value = url;
    field.focus();
    field.select();
    let ok;
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    if (ok) status.copied($("copy-link"));
    else status.info("Press Ctrl+C (or ⌘C) to copy the selected link.");
  }
}

let undoneAt = null; // the state version an undo was sent from: a second click there waits
$("undo").addEventListener("click", () => {
  status.clear();
  if (!model.connected) return status.error("Not connected to the server: nothing was taken back. Try again once it is back.");
  if (undoneAt === model.state.version) return; // a double click: one turn is taken back
  undoneAt = model.state.version;
  socket.undo(model.state.moves.length);
});
$("new-game").addEventListener("click", () => startAnother("new"));
$("rematch").addEventListener("click", () => startAnother("rematch"));
$("copy-link").addEventListener("click", copyLink);
$("settings-form").addEventListener("submit", (event) => event.preventDefault());
$("back-to-live").addEventListener("click", () => review(Infinity));

// A settings switch or option clicked with the pointer gives the keys back to the
// game: otherwise the arrow keys would go on changing that setting.
let pointerClick = false;
$("settings-form").addEventListener("pointerdown", () => (pointerClick = true));
$("settings-form").addEventListener("keydown", () => (pointerClick = false));
$("settings-form").addEventListener("click", (event) => {
  if (pointerClick && event.target.matches('input[type="radio"], input[type="checkbox"]')) event.target.blur();
});

/** True when a key pressed on `target` is the field's own: typing, or choosing with the arrows. */
function keyBelongsToField(target, key) {
  if (target.closest("select, textarea, [contenteditable]")) return true;
  if (!target.matches("input")) return false;
  if (target.type === "radio") return key.startsWith("Arrow"); // a radio group moves with them
  return target.type !== "checkbox" && target.type !== "button";
}

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (keyBelongsToField(event.target, event.key)) return;
  const shown = M.shownMoves(model).length;
  const reviewing = model.reviewPly !== null;
  // Up, Down, and End or Escape when live, keep their usual jobs (scrolling).
  const keys = {
    ArrowLeft: () => review(shown - 1),
    ArrowRight: () => review(shown + 1),
    Home: () => review(0),
    ...(reviewing ? { End: () => review(Infinity), Escape: () => review(Infinity) } : {}),
  };
  if (keys[event.key]) {
    event.preventDefault();
    keys[event.key]();
  } else if (/^[1-9]$/.test(event.key) && Number(event.key) <= info.moveKeys) {
    event.preventDefault();
    play(event.key);
    board.focusMove(event.key);
  }
});

// -- Drawing -----------------------------------------------------------------------

function update(change, after) {
  change();
  after?.();
  render();
}

/** The bar for the position on the board, the graph for the whole game. */
function renderEvaluation(shown, analysisOn) {
  const moves = model.state.moves;
  // A game over before its first move (called off, resigned at once) has no position
  // anyone will evaluate: no bar, no words ("Evaluating…" would wait for good).
  const nothingPlayed = model.state.status !== "playing" && moves.length === 0;
  $("eval-bar").hidden = !analysisOn || nothingPlayed;
  $("eval-summary").hidden = !analysisOn || nothingPlayed;
  $("eval-graph-panel").hidden = !analysisOn || nothingPlayed;
  if (!analysisOn || nothingPlayed) return;
  const overOf = (position) => {
    const end = replay(model.state.game, position);
    return end.over ? { winner: end.winner } : null;
  };
  const value = (position) => (overOf(position) ? null : M.positionValue(model, position));
  evalBar.render({ value: value(shown), ply: shown.length, over: overOf(shown) });
  const points = [];
  for (let ply = 1; ply <= moves.length; ply += 1) {
    const position = moves.slice(0, ply);
    const point = { ply, value: value(position), over: overOf(position) };
    points.push({ ...point, words: evalWords(point.value, ply, info, point.over) });
  }
  evalGraph.render({ points, shown: shown.length });
  $("eval-graph-empty").hidden = points.length > 0;
}

function render() {
  const s = model.state;
  const shown = M.shownMoves(model);
  const reviewing = model.reviewPly !== null;
  const analysisOn = Boolean(s.settings.show_analysis) && !fairPlay();
  const live = M.resultFor(model, shown) || (reviewing ? null : M.provisional(model));
  // A game the player's move ended: the panel keeps the engine's last search, as when
  // the engine's move ends it (no line on the board: it starts from an earlier position).
  const over = !live && shown && replay(s.game, shown).over;
  const match = live || (over ? M.resultFor(model, shown.slice(0, -1)) : null);
  const lineOn = (model.showLine || model.hoverLine) && match === live;
  const unscored = reviewing && analysisOn && !M.scoresFor(model, shown) && !replay(s.game, shown).over;
  scoresFill.want(unscored ? shown : null);
  const scoring = unscored && scoresFill.asking(shown);

  board.set(
    boardView({
      game: s.game,
      moves: shown,
      interactive: !reviewing && M.myTurn(model) && model.connected, // a click meanwhile is refused in words
      review: reviewing,
      // The side to move's options at this very position (never another's: matched on moves).
      scores: analysisOn ? M.scoresFor(model, shown) : null,
      solving: M.solvingAt(model, shown),
      line: analysisOn && match && lineOn ? { from: match.from, pv: match.result.pv } : null,
      // Reviewing an earlier position: where the best moves were (a ring on the board).
      best: reviewing && analysisOn ? topMoves(M.scoresFor(model, shown)) : null,
    }),
  );
  renderEvaluation(shown, analysisOn);

  const ply = model.reviewPly ?? 0; // read only while reviewing
  const where = ply === 0 ? "the starting position" : `the position after ${moveName(ply, info.players)}`;
  const step = ply === 0 ? "the start" : moveName(ply, info.players);
  const now = s.status === "playing" ? "live" : "final"; // a finished game has no live position
  // The live (or final) position named by the move that made it: "after move 3, X".
  $("turn").textContent = reviewing ? `Reviewing ${step} (${now}: after ${moveName(s.moves.length, info.players)})` : M.turnText(model, info);
  $("spectator-note").textContent =
    s.status === "playing" ? "You are watching this game live: only its player can move." : "This game is over: you are looking at it as it ended.";
  document.title = `${M.turnText(model, info)} · ${info.label} · Lookahead`;
  document.body.dataset.status = s.status;
  document.body.dataset.fairPlay = String(fairPlay()); // friend.css hides the analysis and review
  $("board-area").classList.toggle("is-thinking", Boolean(s.engine_thinking));
  for (const chip of document.querySelectorAll(".player")) {
    const side = chip.classList.contains("player-p0") ? 0 : 1;
    chip.classList.toggle("is-to-move", s.status === "playing" && s.to_move === side);
    chip.classList.toggle("is-winner", s.status === "won" && s.winner === side);
  }
  $("review-banner").hidden = !reviewing;
  $("review-text").textContent = reviewing ? `You are looking at ${where}, not the live game.${scoring ? " Scoring it…" : ""}` : "";
  const maxDepth = depthBound(config.limits, s.game);
  $("review-continue").href = M.continueUrl(model, shown, maxDepth);

  const player = M.isPlayer(model);
  const friend = M.isFriendGame(model); // its own offers, no engine to undo or rematch
  const undo = $("undo");
  const held = document.activeElement === undo;
  undo.disabled = !player || !M.canUndo(model);
  undo.hidden = friend;
  // Disabled under the keyboard's focus (the last move taken back), it would drop the
  // focus to the top of the page: the board takes it (digits play, Tab reaches its cells).
  if (held && (undo.disabled || undo.hidden)) {
    // The board itself, not a cell: a repeated Enter must not play a move (QA).
    board.element.tabIndex = -1;
    board.element.focus();
  }
  $("new-game").hidden = !player || friend;
  $("rematch").hidden = !player || friend;
  $("spectator-bar").hidden = player || friend;
  // A spectator's keys, and everyone's once the game is over, step through the moves only.
  $("keys-play").hidden = !player || s.status !== "playing";
  $("settings-form").closest(".settings-panel").hidden = friend;
  friendPanel?.render(s);
  if (friend) $("analysis-title").textContent = analysisTitle(s);
  $("continue-link").href = M.continueUrl(model, s.moves, maxDepth);
  // Looking back, the review banner's "Continue from here" (the position shown) is the one.
  $("continue-link").hidden = reviewing;
  $("settings-form").toggleAttribute("inert", !player);
  $("settings-readonly").hidden = player;

  moveList.render({ moves: s.moves, shownPly: shown.length, names: [0, 1].map((side) => M.sideName(model, info, side)) });

  panel.setHidden(!analysisOn);
  // The depth under way: the one after the last completed, if the game has that many moves left.
  const last = model.depthRows[model.depthRows.length - 1];
  const depth = last && last.depth < info.cells - s.moves.length ? last.depth + 1 : null;
  const pulse = M.currentPulse(model);
  panel.renderThinking({ active: Boolean(s.engine_thinking), queued: model.queued, depth, who: "Engine", pulse });
  // The depth table goes with the headline: only the search it shows (or the one under way).
  const searched = (model.searchFrom ?? s.moves).length;
  panel.renderDepths(M.depthsOf(model, match), searched, match?.kind === "thinking" ? null : match?.result, match?.kind === "engine");
  const shownResult = match && match.kind !== "thinking" ? match : null;
  panel.renderResult(shownResult ? shownResult.result : null, shownResult ? shownResult.from : "", {
    played: shownResult?.kind === "engine",
    next: Boolean(shownResult && shownResult.from === shown),
    showLine: model.showLine,
    level: shownResult?.level ?? null,
  });
  const otherAlgorithm = Object.keys(config.algorithms).find((a) => a !== s.settings.algorithm);
  const finalShown = replay(s.game, shown).over;
  const hint = $("compare-hint");
  hint.dataset.usual ??= hint.textContent ?? "";
  // The button greyed out on a finished position says why, and where to go instead.
  hint.textContent = finalShown ? "Nothing to search on this position: the game is over here. Step back to an earlier one." : hint.dataset.usual;
  panel.renderCompare({
    label: `Analyse with ${(otherAlgorithm && config.algorithms[otherAlgorithm]) || "the other algorithm"}`,
    // The comparison of the position on the board (another's stays for when it is back).
    rows: M.analysesOf(model, shown),
    ply: shown.length,
    busy: model.compare.waiting.length > 0,
    // Any position of the game but a finished one (a finished game's too, for its review).
    disabled: !model.connected || Boolean(s.engine_thinking) || finalShown,
  });
}

render();
