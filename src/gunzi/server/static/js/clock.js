// The turn clock on the table page: seconds left, red and pulsing in the last LOW seconds
// (no pulse under prefers-reduced-motion: the CSS), and a soft tick each of those seconds
// on the player's own clock: the "tick" cue of the hall's one sound module (js/sound.js),
// so the sound switch silences it like every other cue.

import { Sound } from "./sound.js";

export const LOW = 10; // seconds

/** Whole seconds left on ``turn`` for ``seat`` (server clock offset in ms), or null. */
export function secondsLeft(turn, seat, offset) {
  if (!turn || turn.seat !== seat || !turn.deadline) return null;
  return Math.max(0, Math.round((turn.deadline - (Date.now() + offset)) / 1000));
}

/** Show ``left`` (or nothing) in a clock element; ``low`` in the last seconds. */
export function paintClock(el, left) {
  el.textContent = left == null ? "" : `${left}s`;
  el.classList.toggle("low", left != null && left <= LOW);
}

let lastTick = null; // the second last ticked, so a repaint does not tick twice

/** Call on every repaint of the player's own clock: ticks once per low second. */
export function tickMine(left) {
  if (left == null || left > LOW || left === 0) { lastTick = null; return; }
  if (left === lastTick) return;
  lastTick = left;
  Sound.play("tick");
}
