// The turn clock on the table page: seconds left, red and pulsing in the last LOW seconds
// (no pulse under prefers-reduced-motion: the CSS), and a soft tick each of those seconds
// on the player's own clock. The tick obeys the sound switch's localStorage key
// "gunzi.sound" ("off" silences it); until the hall has a sound module it is a tiny
// WebAudio beep, made only after the player has touched the page (browsers refuse sound
// before that).

export const LOW = 10; // seconds
const SOUND_KEY = "gunzi.sound";

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

let audio = null;
let lastTick = null; // the second last ticked, so a repaint does not tick twice

function unlock() {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!audio && Ctx) {
    try { audio = new Ctx(); } catch { audio = null; }
  }
}
for (const ev of ["pointerdown", "keydown"]) document.addEventListener(ev, unlock, { once: true, capture: true });

function soundOn() {
  try { return localStorage.getItem(SOUND_KEY) !== "off"; } catch { return false; }
}

function beep() {
  if (!audio || !soundOn()) return;
  try {
    if (audio.state === "suspended") audio.resume();
    const now = audio.currentTime;
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = 880;
    gain.gain.setValueAtTime(0.04, now);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + 0.08);
    osc.connect(gain);
    gain.connect(audio.destination);
    osc.start(now);
    osc.stop(now + 0.09);
  } catch { /* no sound: the clock still shows */ }
}

/** Call on every repaint of the player's own clock: ticks once per low second. */
export function tickMine(left) {
  if (left == null || left > LOW || left === 0) { lastTick = null; return; }
  if (left === lastTick) return;
  lastTick = left;
  beep();
}
