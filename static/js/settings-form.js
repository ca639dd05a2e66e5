// The engine settings fields (rendered by the `settings_fields` macro), used
// by the home page to start a game and by the game page to change it.

import { readJSON } from "./config.js";

/** The game the fields are for: the home page's chosen card, or the game page's game. */
function currentGame() {
  return document.querySelector('[name="game"]:checked')?.value ?? readJSON("initial-state")?.game;
}

/**
 * Say beside "Minimax" how deep it will search without a depth of its own
 * (protocol.client_config().minimax_depth: a depth, or null for the whole tree).
 */
function labelMinimax(root) {
  const span = root.querySelector('[name="algorithm"][value="minimax"]')?.closest("label")?.querySelector("span");
  const depths = readJSON("config")?.minimax_depth ?? {};
  const game = currentGame();
  if (!span || !game || !(game in depths)) return;
  span.dataset.base ??= span.textContent;
  const depth = depths[game];
  span.textContent = `${span.dataset.base} (${depth === null ? "whole tree" : `depth ${depth}`})`;
}

/**
 * Wire the settings fields inside `root`. `onChange(partial)` is called with
 * the settings a person just changed; custom limits only once they can be used
 * (each field empty or in its range, one given), else `onInvalid(message)`.
 */
export function bindSettings(root, { limits, onChange = () => {}, onInvalid = () => {} }) {
  const field = (name) => root.querySelector(`[name="${name}"]`);
  const checked = (name) => root.querySelector(`[name="${name}"]:checked`);
  const customBox = root.querySelector("[data-custom-limits]");
  const hint = root.querySelector("[data-level-hint]");

  function syncLevel() {
    const level = checked("level");
    customBox.hidden = !level || level.value !== "custom";
    if (hint && level) hint.textContent = level.closest("label").title || "";
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
    depth: number("depth", 1, limits.max_depth, true),
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
      const value = settings[name] ?? null;
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
      if (why) onInvalid(why);
      else onChange({ level: "custom", ...customLimits() });
    } else if (name === "show_analysis") {
      onChange({ show_analysis: event.target.checked });
    } else if (name === "algorithm" || name === "engine_plays") {
      onChange({ [name]: event.target.value });
    }
  });
  syncLevel();
  labelMinimax(root);
  document.addEventListener("change", (event) => {
    if (event.target.name === "game") labelMinimax(root);
  });

  return { values, show, problem };
}
