// The engine panel: the search growing depth by depth, then the engine's
// move with its expected line, its statistics and the score of every option;
// and the minimax / alpha-beta comparison. Render-only: game.js owns the data.
// When Easy or Medium played a move its search did not rank best, the panel
// says so in words (style-note.js), so the headline (the move played) and the
// depth table (the search's best line) agree.

import { count, describeScore, duration, rate, ratio } from "./format.js";
import { styleNote } from "./style-note.js";

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function cells(row, values) {
  for (const value of values) {
    const td = el("td", value.className, value.text);
    if (value.data) Object.assign(td.dataset, value.data);
    if (value.span) td.colSpan = value.span;
    row.append(td);
  }
}

/**
 * `levels` and `styles`: the protocol's levels and play styles (the page's
 * config), to say which level played a move on purpose.
 */
export function createAnalysisPanel(root, { info, algorithms, levels, styles, onToggleLine, onHoverLine, onCompare }) {
  /** The panel's element `id` (the template decides its kind). */
  const $ = (/** @type {string} */ id) => /** @type {any} */ (root.querySelector(`#${id}`));
  const parts = {
    thinking: $("thinking"),
    thinkingText: $("thinking-text"),
    empty: $("analysis-empty"),
    result: $("result"),
    headline: $("result-headline"),
    styleNote: $("style-note"),
    pv: $("pv"),
    pvToggle: $("pv-toggle"),
    stats: $("stats"),
    candidates: $("candidates"),
    candidatesTitle: $("candidates-title"),
    legend: $("scores-legend"),
    depthBody: root.querySelector("#depth-table tbody"),
    depths: $("depths"),
    compareButton: $("compare-button"),
    compareTable: $("compare-table"),
    compareSummary: $("compare-summary"),
    body: $("analysis-body"),
    off: $("analysis-off"),
  };

  parts.pvToggle.addEventListener("click", () => onToggleLine());
  for (const target of [parts.pv, parts.pvToggle]) {
    target.addEventListener("mouseenter", () => onHoverLine(true));
    target.addEventListener("mouseleave", () => onHoverLine(false));
    target.addEventListener("focusin", () => onHoverLine(true));
    target.addEventListener("focusout", () => onHoverLine(false));
  }
  parts.compareButton.addEventListener("click", () => onCompare());

  const idleWords = parts.empty.textContent;
  const searchingWords = "Searching: each depth appears here as soon as it is complete.";
  const playerName = (ply) => info.players[ply % 2];
  const moveName = (move) => `${info.moveNoun} ${move}`;

  /** thinking: {active, queued, depth, who, pulse} */
  function renderThinking(/** @type {Thinking} */ thinking) {
    parts.thinking.hidden = !thinking.active && thinking.queued === null;
    root.classList.toggle("is-thinking", thinking.active);
    parts.thinkingText.textContent = thinkingText(thinking);
    // Under way before its first depth is done (a long minimax depth): not "as soon as
    // it starts thinking" beside "Engine is thinking…".
    parts.empty.textContent = thinking.active ? searchingWords : idleWords;
  }

  /**
   * The table of completed depths of the current (or last) search. `result`:
   * the answer they led to, if in; when the opening book gave it, its row says
   * "opening book" (not a jump from depth 8 to the end of the game); when its
   * level chose another move than the search's best, or one as good as the
   * deepest line's first (`playedAsGood`), a last row shows the move played
   * (`played`; else the one an analysis chose), labelled as such.
   */
  function renderDepths(/** @type {any[]} */ rows, /** @type {number} */ ply, /** @type {any} */ result = null, played = true) {
    parts.depths.hidden = rows.length === 0;
    parts.empty.dataset.rows = String(rows.length);
    parts.depthBody.replaceChildren();
    for (const row of rows) {
      const tr = el("tr");
      const score = describeScore(row.score, row.exact, info, ply);
      const book = fromBook(result) && row.depth === result.depth;
      if (book) tr.classList.add("is-book");
      cells(tr, [
        { text: book ? "opening book" : row.depth, className: "num" },
        { text: score.text, className: `score score-${score.kind}` },
        { text: spaced(row.pv), className: "line" },
        { text: count(row.nodes), className: "num", data: { nodes: String(row.nodes) } },
        { text: rate(row.nodes, row.elapsed_ms), className: "num" },
        { text: duration(row.elapsed_ms), className: "num" },
      ]);
      parts.depthBody.append(tr);
    }
    const note = rows.length ? styleNote(result, { info, styles, levels, level: null, ply }) : null;
    const tag = note ? note.tag : playedAsGood(rows, result, played);
    if (tag) {
      const tr = el("tr", "is-played");
      const score = describeScore(result.score, result.exact, info, ply);
      cells(tr, [
        { text: tag, className: "num" },
        { text: score.text, className: `score score-${score.kind}` },
        { text: spaced(result.pv), className: "line" },
        { text: "", className: "num" },
        { text: "", className: "num" },
        { text: "", className: "num" },
      ]);
      parts.depthBody.append(tr);
    }
    // Each row counts the nodes so far. The search's own count (the figures above) may be
    // more than the deepest row's: a level that plays like a person (Easy, Medium) looks at
    // its moves once more before playing (style.py), and a search stopped by its budget
    // counts the deeper depth it left unfinished. The table says so, and by how much.
    const deepest = rows.at(-1);
    if (result && deepest && deepest.depth === result.depth && result.nodes > deepest.nodes) {
      const more = count(result.nodes - deepest.nodes);
      const why = result.stopped
        ? `and what it searched past this depth before it stopped (${more} more nodes)`
        : `and one more look at its moves before choosing (${more} more nodes)`;
      const tr = el("tr", "is-total");
      cells(tr, [
        { text: "in all", className: "num" },
        { text: why, className: "why", span: 2 },
        { text: count(result.nodes), className: "num", data: { nodes: String(result.nodes) } },
        { text: "", className: "num" },
        { text: "", className: "num" },
      ]);
      parts.depthBody.append(tr);
    }
  }

  /**
   * The engine's move (or an analysis): `result` is the server's payload,
   * `from` the position it searched, `played` whether it was played, `level`
   * the game's level when it was, `next` whether the board shows the position it was
   * played from (so the move is not on it yet).
   */
  /** @param {any} result @param {string} from @param {{played: boolean, showLine: boolean, level?: string | null, next?: boolean}} options */
  function renderResult(result, from, { played, showLine, level = null, next = false }) {
    const levelLabel = level === null ? undefined : levels?.[level]?.label;
    parts.empty.hidden = Boolean(result) || parts.empty.dataset.rows > 0;
    parts.result.hidden = !result;
    if (!result) return;
    const ply = from.length;
    const mover = playerName(ply);
    const note = played ? styleNote(result, { info, styles, levels, level, ply }) : null;
    const { score, own, ownWords, onPurpose, boardNote } = playedVerdict(result, { played, note, info, ply });
    parts.headline.replaceChildren();
    // `next`: the board shows the position the move was played from (looking back).
    const verb = played ? `${next ? "From here, " : ""}${mover} played` : `Best for ${mover}:`;
    const purpose = onPurpose ? " on purpose" : "";
    parts.headline.append(el("span", "headline-move", `${verb} ${moveName(result.best_move)}${purpose}`));
    parts.headline.append(el("span", `score-badge inline score-${score.kind}`, score.text));
    if (played) parts.headline.append(el("span", "headline-own", `${ownSearchLabel(result, levelLabel)}${ownWords}`));
    parts.styleNote.hidden = !note;
    parts.styleNote.textContent = note ? `${note.text}${boardNote}` : "";

    parts.pv.replaceChildren();
    [...(result.pv || "")].forEach((move, i) => {
      const item = el("li", `pv-move pv-p${(ply + i) % 2}`);
      item.append(el("span", "sr-only", `${playerName(ply + i)} `), el("span", "", move));
      parts.pv.append(item);
    });
    parts.pv.setAttribute("aria-label", `Expected line: ${spaced(result.pv)}`);
    parts.pvToggle.setAttribute("aria-pressed", String(showLine));
    parts.pvToggle.textContent = showLine ? "Hide line on board" : "Show line on board";

    parts.stats.replaceChildren();
    const stats = [
      ["Algorithm", algorithms[result.algorithm] || result.algorithm, "algorithm"],
      ["Depth", fromBook(result) ? "opening book" : result.depth, "depth"],
      ["Nodes", count(result.nodes), "nodes"],
      ["Time", duration(result.time_ms), "time"],
      ["Speed", rate(result.nodes, result.time_ms), "speed"],
    ];
    for (const [term, value, key] of stats) {
      const group = el("div", `stat stat-${key}`);
      group.append(el("dt", "", term), el("dd", "", value));
      if (key === "nodes") group.dataset.nodes = String(result.nodes);
      parts.stats.append(group);
    }
    if (played) parts.stats.append(el("p", "stat-note own-search", ownSearchNote(result, levelLabel, score !== own)));
    if (result.stopped) parts.stats.append(el("p", "stat-note", stoppedNote(result)));

    parts.candidates.replaceChildren();
    const entries = Object.entries(result.move_scores || {}).sort((a, b) => Number(a[0]) - Number(b[0]));
    parts.candidates.hidden = entries.length === 0;
    parts.candidatesTitle.hidden = entries.length === 0;
    for (const [move, value] of entries) {
      const words = describeScore(value.score, value.exact, info, ply, value.depth ?? null);
      const strongest = move === note?.strongest.move;
      const item = el("li", move === result.best_move ? "candidate is-best" : strongest ? "candidate is-strongest" : "candidate");
      item.dataset.move = move;
      item.append(el("span", "candidate-move", move));
      item.append(el("span", `score-badge inline score-${words.kind}`, words.text));
      if (move === result.best_move) item.append(el("span", "candidate-note", played ? "played" : "best"));
      if (strongest) item.append(el("span", "candidate-note", "search’s best"));
      parts.candidates.append(item);
    }
    parts.candidatesTitle.textContent = played ? "Engine’s options before its move" : `Every option for ${mover}`;
    parts.candidates.setAttribute(
      "aria-label",
      played ? `The engine’s options before its move (${mover})` : `Score of each ${info.moveNoun} for ${mover}`,
    );
    parts.legend.textContent = legend(mover, entries.map(([, v]) => v), played, levelLabel, result.algorithm);
  }

  /** The comparison: `rows` are analyses of one position, `busy` while waiting. */
  function renderCompare({ label, rows, ply, busy, disabled }) {
    parts.compareButton.textContent = busy ? "Analysing…" : label;
    parts.compareButton.disabled = busy || disabled;
    parts.compareTable.hidden = rows.length === 0;
    const body = parts.compareTable.querySelector("tbody");
    body.replaceChildren();
    for (const row of rows) {
      const tr = el("tr");
      tr.dataset.algorithm = row.algorithm;
      const words = describeScore(row.score, row.exact, info, ply);
      cells(tr, [
        { text: algorithms[row.algorithm] || row.algorithm, className: "algorithm" },
        { text: row.depth, className: "num" },
        { text: `${row.best_move} (${words.text})`, className: "line" },
        { text: count(row.nodes), className: "num nodes", data: { nodes: String(row.nodes) } },
        { text: duration(row.time_ms), className: "num" },
      ]);
      body.append(tr);
    }
    parts.compareSummary.textContent = compareSummary(rows);
  }

  function setHidden(hidden) {
    parts.body.hidden = hidden;
    parts.off.hidden = !hidden;
    root.classList.toggle("is-off", hidden);
  }

  return { renderThinking, renderDepths, renderResult, renderCompare, setHidden };
}

/**
 * The depth table's label for the move played (`played`; else the move an analysis
 * names) when the table's last line starts with another move of the same score (a tie
 * between best moves, or near ones at its level, broken at random): "played, as good"
 * ("chosen, as good"). null when the line starts with that move, when the search
 * stopped short of its deepest row, or with no line. A move played on purpose or among
 * near moves of different scores has its own label (style-note.js).
 */
export function playedAsGood(rows, result, played = true) {
  const deepest = rows?.at(-1);
  if (!result?.best_move || !result.pv || !deepest?.pv || deepest.depth !== result.depth) return null;
  if (deepest.pv.startsWith(result.best_move)) return null;
  if (deepest.score !== result.score || deepest.exact !== result.exact) return null;
  return played ? "played, as good" : "chosen, as good";
}

/**
 * The sentence under "Analyse with …": how many more nodes minimax searched, and to which
 * depths. @param {{algorithm: string, depth: number, exact: boolean, nodes: number}[]} rows
 */
export function compareSummary(rows) {
  const by = Object.fromEntries(rows.map((r) => [r.algorithm, r]));
  const mm = by.minimax;
  const ab = by.alphabeta;
  if (!mm || !ab) return "";
  const times = ratio(mm.nodes, ab.nodes);
  // An exact row searched as deep as it needed (minimax to the game's end, alpha-beta until
  // its answer was proved): "capped" only for a depth that stopped short of the truth.
  const mmNote = mm.exact ? `minimax to the end of the game, depth ${mm.depth}` : `minimax capped at depth ${mm.depth}`;
  const abNote = ab.exact ? `alpha-beta proved it by depth ${ab.depth}` : `alpha-beta depth ${ab.depth}`;
  const depthNote = mm.depth === ab.depth ? `both at depth ${ab.depth}` : `${mmNote}, ${abNote}`;
  if (!times) return "";
  if (mm.nodes < ab.nodes) {
    // Never "0.9× the nodes": alpha-beta deepens pass by pass, a small tree's passes add up.
    return `Alpha-beta searched more nodes than minimax here (${depthNote}): it searches depth by depth, and on so small a tree its shallower passes cost more than its cut-offs save.`;
  }
  return `Minimax searched ${times} the nodes of alpha-beta (${depthNote}).`;
}

/**
 * "Easy’s own search, depth 2": the engine's move, score and line come from the
 * opponent's search at its level, never from the board's analysis.
 */
export function ownSearchLabel(result, levelLabel) {
  const who = levelLabel ? `${levelLabel}’s` : "The engine’s";
  return `${who} own search, ${fromBook(result) ? "the opening book" : `depth ${result.depth}`}`;
}

/**
 * The headline's words for `result`, the engine's own search from a position of `ply`
 * stones (`played`: the move it played; `note`: its style note, or null).
 *
 * A move played: once the board's analysis has solved it (its options, exact), its badge
 * `score` is that exact score and the engine's own estimate goes with its search's label
 * (`ownWords`), so a solved move's headline never contradicts its option below ("slightly
 * worse" beside "win in 15"). Unsolved, both are estimates, each labelled as whose it is.
 * A weaker move on purpose (`onPurpose`, by its search) that the board finds no worse
 * than the move the search preferred is not called so; `boardNote` then says why.
 */
export function playedVerdict(result, { played, note, info, ply }) {
  const own = describeScore(result.score, result.exact, info, ply);
  const solved = played && !result.exact ? result.move_scores?.[result.best_move] : null;
  const score = solved?.exact ? describeScore(solved.score, true, info, ply) : own;
  const weaker = note?.kind === "weaker";
  const preferred = weaker && solved?.exact ? result.move_scores?.[note.strongest.move] : null;
  const noWorse = Boolean(solved && preferred?.exact && preferred.score <= solved.score);
  const boardNote = noWorse
    ? ` The board’s analysis, which has solved both, finds it no worse: ${score.text} against ${describeScore(preferred.score, true, info, ply).text}.`
    : "";
  return { score, own, ownWords: score === own ? "" : `: ${own.text}`, onPurpose: weaker && !noWorse, boardNote };
}

/**
 * The label's longer form, under the search's figures; `solved`: the move's badge above
 * is the board's exact score, not this search's.
 */
export function ownSearchNote(result, levelLabel, solved = false) {
  const label = ownSearchLabel(result, levelLabel);
  if (result.line_after) {
    // An exact solve's line is proved after its move goes out, by a search of its own
    // (never `solved`: that is a move whose own search was not exact).
    return `${label}: the move and its score. Its line above was proved after the move, by a search of its own that these figures leave out. The board’s scores are the strongest analysis, exact where solved.`;
  }
  return solved
    ? `${label}: the move, its line and these figures. The move’s badge above is the board’s analysis, which has solved it; the search’s own estimate is beside its label.`
    : `${label}: the move, its score and its line above. The board’s scores are the strongest analysis, exact where solved.`;
}

/** What the scores mean, for whom. */
export function legend(mover, values, played, levelLabel = null, algorithm = "alphabeta") {
  if (!values.length) return "";
  const parts = [`Scores for ${mover}${played ? ", before its move" : ""}.`];
  // The options are the board's analysis (alpha-beta until exact) whatever the level and
  // the algorithm: the move's own search (above) may have stopped at another depth.
  if (played) {
    const own = levelLabel ? `${levelLabel}’s own search` : "the engine’s own search";
    parts.push(algorithm === "minimax"
      ? `They come from the board’s analysis, not from ${own}: the board always searches with alpha-beta until the scores are exact, which gives the values minimax would, with fewer nodes. The move was chosen by minimax, so its own estimate (beside its label) and depth may differ.`
      : `They come from the board’s analysis (alpha-beta until exact), not from ${own}, so they may differ from its estimate (beside its label) and its depth.`);
  }
  if (values.some((v) => v.exact && v.score !== 0)) {
    parts.push("“Win in N” and “loss in N” count the winner’s moves still to play.");
  }
  if (values.some((v) => !v.exact)) {
    parts.push(`“Better” and “worse” are estimates for ${mover} from a search that stopped at the depth shown.`);
  }
  return parts.join(" ");
}

/**
 * The thinking line's words. A search waiting for a free engine says so, with its place
 * (the server counts from 1, next to start): the game says its engine is thinking from
 * the move on, waiting included (it read "is thinking…" through a 9 s wait, QA).
 * `depth`: the depth under way, if known; `pulse`: the search's latest `searching` event
 * (game-model.js currentPulse), whose nodes so far it tells, and whose depth (null: an
 * exact solve) it names.
 * @typedef {{active: boolean, queued: number | null, depth: number | null, who: string,
 *   pulse?: import("./game-model.js").Pulse | null}} Thinking
 */
export function thinkingText(/** @type {Thinking} */ { queued, depth, who, pulse = null }) {
  if (queued !== null) return `Waiting for a free engine: ${queued <= 1 ? "next in line" : `number ${queued} in line`}`;
  if (pulse) return `${who} is thinking… ${pulse.depth === null ? "solving" : `depth ${pulse.depth}`}: ${count(pulse.nodes)} nodes`;
  return `${who} is thinking…${depth ? ` searching depth ${depth}` : ""}`;
}

/** True when the opening book gave this answer (the result's extra fields say so). */
function fromBook(result) {
  return Boolean(result && result.extra && result.extra.book);
}

/** "4453" -> "4 4 5 3". */
function spaced(line) {
  return [...(line || "")].join(" ");
}

/** Why a search ended before its scores were exact, in words. */
export function stoppedNote(result) {
  const counted = result.iterations_counted ? " Its node count adds up every depth it searched." : "";
  if (result.stopped === "depth") return `Plain minimax stops at its depth cap for this game (depth ${result.depth}).${counted}`;
  if (result.stopped === "nodes") return `Stopped at its node budget: the deepest completed search is shown.${counted}`;
  if (result.stopped === "cancelled") return `Stopped early: the deepest completed search is shown.${counted}`;
  return `Stopped by its time limit: the deepest completed search is shown.${counted}`;
}
