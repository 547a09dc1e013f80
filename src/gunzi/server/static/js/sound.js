// Table sounds, synthesized with WebAudio (no files, no network): short tones with a 6 ms
// attack and an exponential release so they never click. One AudioContext, created on
// first use and resumed on the first pointer/key press (browsers start it suspended).
//
// The on/off switch lives in localStorage: `gunzi.sound` ("on" | "off", default on) is the
// current page's setting, which other modules (the turn clock's tick) may read directly;
// for a signed-in user it is also kept under `gunzi.sound.<user id>`, so each account on a
// shared browser keeps its own choice. Sound is never the only signal of anything.

const KEY = "gunzi.sound";
const MIN_GAP_MS = 100; // at most one cue per 100 ms (a burst of bot plays is one tick)

// name -> notes [frequency Hz, start s, length s, gain, wave]
const CUES = {
  turn: [[660, 0, 0.12, 0.22, "sine"], [880, 0.1, 0.18, 0.2, "sine"]],
  play: [[300, 0, 0.05, 0.16, "triangle"]],
  play_other: [[260, 0, 0.04, 0.08, "triangle"]],
  trick_us: [[523, 0, 0.09, 0.16, "sine"], [784, 0.08, 0.16, 0.16, "sine"]],
  trick_them: [[392, 0, 0.09, 0.13, "sine"], [330, 0.08, 0.16, 0.13, "sine"]],
  kill: [[220, 0, 0.06, 0.22, "square"], [440, 0.05, 0.14, 0.12, "square"]],
  fail: [[494, 0, 0.14, 0.18, "sawtooth"], [370, 0.13, 0.24, 0.16, "sawtooth"]],
  no: [[200, 0, 0.12, 0.14, "triangle"]],
  end_win: [[523, 0, 0.12, 0.18, "sine"], [659, 0.11, 0.12, 0.18, "sine"], [784, 0.22, 0.3, 0.2, "sine"]],
  end_lose: [[392, 0, 0.14, 0.16, "sine"], [330, 0.13, 0.14, 0.16, "sine"], [262, 0.26, 0.32, 0.16, "sine"]],
  tick: [[1000, 0, 0.03, 0.06, "square"]], // the turn clock's last seconds (js/clock.js)
};

let ctx = null;
let userId = null;
let lastAt = 0;
/** The last cues played (name, time), newest last: for tests and for debugging by hand. */
const recent = [];

function store(key, value) {
  try {
    if (value === undefined) return localStorage.getItem(key);
    localStorage.setItem(key, value);
  } catch { /* private mode: the default applies */ }
  return null;
}

function audio() {
  if (ctx && ctx.state !== "closed") return ctx;
  const AC = window.AudioContext || window.webkitAudioContext;
  if (!AC) return null;
  ctx = new AC();
  return ctx;
}

function unlock() {
  const c = audio();
  if (c && c.state !== "running") c.resume().catch(() => {});
}
for (const ev of ["pointerdown", "keydown", "touchend"]) {
  window.addEventListener(ev, unlock, { capture: true, passive: true });
}

function tone(c, [freq, start, length, gain, wave], at) {
  const osc = c.createOscillator();
  const amp = c.createGain();
  osc.type = wave;
  osc.frequency.value = freq;
  const t0 = at + start;
  amp.gain.setValueAtTime(0.0001, t0);
  amp.gain.linearRampToValueAtTime(gain, t0 + 0.006);
  amp.gain.exponentialRampToValueAtTime(0.0001, t0 + length);
  osc.connect(amp).connect(c.destination);
  osc.start(t0);
  osc.stop(t0 + length + 0.02);
}

export const Sound = {
  recent,

  /** Whether cues play: the signed-in user's choice, else this browser's (default on). */
  enabled() {
    const own = userId != null ? store(`${KEY}.${userId}`) : null;
    return (own ?? store(KEY)) !== "off";
  },

  setEnabled(on) {
    const v = on ? "on" : "off";
    store(KEY, v);
    if (userId != null) store(`${KEY}.${userId}`, v);
  },

  /** Bind the switch to an account (null when signed out); its saved choice takes over. */
  setUser(id) {
    userId = id == null ? null : String(id);
    const own = userId != null ? store(`${KEY}.${userId}`) : null;
    if (own) store(KEY, own);
  },

  /** Play a named cue if sound is on; returns whether it was played. */
  play(name) {
    const cue = CUES[name];
    if (!cue || !this.enabled()) return false;
    const now = performance.now();
    if (now - lastAt < MIN_GAP_MS && name.startsWith("play")) return false;
    lastAt = now;
    recent.push({ name, at: Date.now() });
    if (recent.length > 50) recent.shift();
    const c = audio();
    if (!c) return true;
    if (c.state === "suspended") c.resume().catch(() => {});
    for (const note of cue) tone(c, note, c.currentTime + 0.01);
    return true;
  },
};
