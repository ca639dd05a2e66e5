// The engine settings fields (rendered by the `settings_fields` macro), used
// by the home page to start a game and by the game page to change it.

import { readJSON } from "./config.js";
import { depthBound, depthRangeText, parseDepth } from "./depth-limit.js";

/** The game the fields are for: the home page's chosen card, or the game page's game. */
function currentGame() {
  const chosen = /** @type {HTMLInputElement | null} */ (document.querySelector('[name="game"]:checked'));
  return chosen?.value ?? readJSON("initial-state")?.game;
}

/**
 * How deep plain minimax searches at `level` (a level name; `customDepth` the custom
 * level's depth or null) in the current game: the level's depth under the server's cap
 * (protocol.client_config().minimax_depth: a depth, or null for the whole tree).
 * Returns {depth, capped}: depth null for the whole tree; capped when the cap, not the
 * level, stops it. Undefined when the game is not known.
 */
export function minimaxReach(level, customDepth) {
  const config = readJSON("config") ?? {};
  const depths = config.minimax_depth ?? {};
  const game = currentGame();
  if (!game || !(game in depths)) return undefined;
  const cap = depths[game];
  const own = level === "custom" ? customDepth : (config.levels?.[level]?.depth ?? null);
  if (own === null || own === undefined) return { depth: cap, capped: cap !== null };
  return cap !== null && own > cap ? { depth: cap, capped: true } : { depth: own, capped: false };
}

/**
 * Say beside "Minimax" how deep it will search at the level chosen; `refused`: the custom
 * depth typed is one the server would refuse, so no depth is named (never a bad one).
 */
function labelMinimax(root, level, customDepth, refused) {
  const span = root.querySelector('[name="algorithm"][value="minimax"]')?.closest("label")?.querySelector("span");
  const reach = refused ? undefined : minimaxReach(level, customDepth);
  if (!span) return;
  span.dataset.base ??= span.textContent;
  if (!reach) span.textContent = span.dataset.base;
  else span.textContent = `${span.dataset.base} (${reach.depth === null ? "whole tree" : `depth ${reach.depth}`})`;
}

/**
 * The level's hint, true of the algorithm chosen: plain minimax stopped by its depth cap
 * is not what the level promises (Perfect: "cannot be beaten"), so the hint says so.
 */
export function levelHint(base, level, algorithm, customDepth) {
  const reach = algorithm === "minimax" ? minimaxReach(level, customDepth) : undefined;
  if (!reach || !reach.capped) return base;
  const cut = `With Minimax it stops at depth ${reach.depth}, its cap in this game (a whole-tree search would take hours)`;
  if (level === "perfect") return `${cut}: strong, but it can be beaten. Alpha-beta solves exactly.`;
  return `${base} ${cut}.`;
}

/**
 * Wire the settings fields inside `root`. `onChange(partial)` is called with
 * the settings a person just changed; custom limits only once they can be used
 * (each field empty or in its range, one given), else `onInvalid(message)`.
 */
/** The note for settings just saved (`partial`: the keys changed). What the engine plays
 * with takes effect from its next move; showing or hiding the analysis, at once. */
export function savedNote(partial) {
  const forEngine = Object.keys(partial).some((key) => key !== "show_analysis");
  return forEngine ? "Settings saved: they apply from the engine’s next move." : "Settings saved.";
}

export function bindSettings(root, { limits, onChange = (_partial) => {}, onInvalid = (_message) => {} }) {
  const field = (name) => root.querySelector(`[name="${name}"]`);
  const checked = (name) => root.querySelector(`[name="${name}"]:checked`);
  const customBox = root.querySelector("[data-custom-limits]");
  const hint = root.querySelector("[data-level-hint]");

  /** The deepest custom depth the server takes in the current game (tic-tac-toe: 9). */
  const maxDepth = () => depthBound(limits, currentGame());

  /** The depth field's bound and its words, the current game's (the home page's game may change). */
  function syncDepthBound() {
    const input = field("depth");
    const range = root.querySelector('[data-range-of="depth"]');
    if (!input) return;
    const max = maxDepth();
    input.max = String(max);
    if (range) range.textContent = depthRangeText(max);
    if (input.value.trim() !== "") number("depth", 1, max, true); // 30: fine in Connect Four, refused in tic-tac-toe
  }

  function syncLevel() {
    syncDepthBound();
    const level = checked("level");
    customBox.hidden = !level || level.value !== "custom";
    const text = field("depth")?.value ?? "";
    const depth = parseDepth(text, maxDepth());
    const refused = level?.value === "custom" && text.trim() !== "" && depth === null;
    const algorithm = checked("algorithm")?.value;
    // Every level's hint (its pill's tooltip too) true of the algorithm chosen.
    for (const input of root.querySelectorAll('[name="level"]')) {
      const label = input.closest("label");
      label.dataset.hint ??= label.title || "";
      label.title = levelHint(label.dataset.hint, input.value, algorithm, depth);
    }
    if (hint && level) hint.textContent = level.closest("label").title;
    labelMinimax(root, level?.value, depth, refused);
  }

  /** The field's value; null when empty (no limit of that kind) or outside its range. */
  function number(name, min, max, integer) {
    const input = field(name);
    const given = input.value.trim() !== "";
    const value = integer ? Number.parseInt(input.value, 10) : Number.parseFloat(input.value);
    const ok = Number.isFinite(value) && value >= min && value <= max && (!integer || /^\s*\d+\s*$/.test(input.value));
    input.setAttribute("aria-invalid", String(given && !ok));
    // The allowed range, always in words beside the field; stressed while the value is outside it.
    root.querySelector(`[data-range-of="${name}"]`)?.classList.toggle("is-error", given && !ok);
    return ok ? value : null;
  }

  const customLimits = () => ({
    depth: number("depth", 1, maxDepth(), true),
    time: number("time", limits.min_time, limits.max_time, false),
  });

  /** Why the custom limits cannot be used as they stand (null: they can). */
  function problem() {
    const found = customLimits();
    for (const [name, label] of [["depth", "Depth"], ["time", "Time"]]) {
      if (found[name] === null && field(name).value.trim() !== "") {
        const range = root.querySelector(`[data-range-of="${name}"]`)?.textContent ?? "";
        return `${label}: ${range.charAt(0).toLowerCase()}${range.slice(1)}`;
      }
    }
    return found.depth === null && found.time === null ? "Give a depth or a time for the custom level." : null;
  }

  /**
   * Focus the field that makes problem() true (the first invalid one, else the empty
   * depth), scrolled to the middle of the window: clear of the home page's sticky buttons.
   */
  function focusProblem() {
    const found = customLimits();
    const bad = ["depth", "time"].find((name) => found[name] === null && field(name).value.trim() !== "");
    const input = field(bad ?? "depth");
    if (!input || input.closest("[hidden]")) return;
    input.focus({ preventScroll: true });
    input.scrollIntoView({ block: "center" });
  }

  /** All the settings as the form shows them. */
  function values() {
    const level = checked("level")?.value;
    const out = {
      algorithm: checked("algorithm")?.value,
      level,
      depth: null,
      time: null,
      show_analysis: field("show_analysis").checked,
    };
    if (level === "custom") Object.assign(out, customLimits());
    const enginePlays = checked("engine_plays");
    if (enginePlays) out.engine_plays = enginePlays.value;
    return out;
  }

  /** Show `settings` (from the server) without firing onChange. */
  function show(settings) {
    for (const name of ["algorithm", "level", "engine_plays"]) {
      const input = root.querySelector(`[name="${name}"][value="${settings[name]}"]`);
      if (input) input.checked = true;
    }
    // A custom level shows its limits as the server holds them (empty: no limit of that kind).
    for (const name of ["depth", "time"]) {
      let value = settings[name] ?? null;
      // A depth stored before the game's own bound (an older server: tic-tac-toe at 30)
      // searches the same tree as the bound, and the next game takes the bound: show that.
      if (name === "depth" && typeof value === "number") value = Math.min(value, maxDepth());
      if (document.activeElement === field(name)) continue;
      if (value !== null) field(name).value = value;
      else if (settings.level === "custom") field(name).value = "";
    }
    if (settings.level === "custom") customLimits();
    field("show_analysis").checked = Boolean(settings.show_analysis);
    syncLevel();
  }

  // Say what is wrong while typing, not only once the field is left.
  root.addEventListener("input", (event) => {
    if (event.target.name === "depth" || event.target.name === "time") customLimits();
  });

  root.addEventListener("change", (event) => {
    const name = event.target.name;
    syncLevel();
    if (name === "level") {
      const partial = { level: event.target.value };
      if (partial.level === "custom") {
        const why = problem();
        if (why) return onInvalid(why); // sent once the limits can be used
        Object.assign(partial, customLimits());
      }
      onChange(partial);
    } else if (name === "depth" || name === "time") {
      const why = problem();
      // Still in the field (Enter): it goes to the middle of the window, clear of the
      // notice that says what is wrong (a phone's bottom edge had both on top of it).
      if (why && document.activeElement === event.target) event.target.scrollIntoView({ block: "center" });
      if (why) onInvalid(why);
      else onChange({ level: "custom", ...customLimits() });
    } else if (name === "show_analysis") {
      onChange({ show_analysis: event.target.checked });
    } else if (name === "algorithm" || name === "engine_plays") {
      onChange({ [name]: event.target.value });
    }
  });
  root.addEventListener("input", (event) => {
    if (event.target.name === "depth") syncLevel();
  });
  syncLevel();
  document.addEventListener("change", (event) => {
    if (/** @type {HTMLInputElement} */ (event.target).name === "game") syncLevel();
  });

  return { values, show, problem, focusProblem };
}
