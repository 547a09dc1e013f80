// 步步为营 table page: the board as SVG, moves by clicking a lit square, walls by hovering
// (or tapping) a groove for a preview and confirming. board.html?t=ID (&watch=1 to watch);
// board.html?new=quoridor-2|quoridor-4 starts a quick game against bots first. Before a
// table made in the lobby starts, its seats can be taken, given bots, and the game started.

import { api } from "./api.js";
import { t, applyI18n, botName, rulesHref, titleTip, getLang } from "./i18n.js";
import { h, clear, toast, account, loadMe, ensureGuest, accountBar, langSwitch, soundSwitch } from "./ui.js";
import { Sound } from "./sound.js";
import { TableSocket } from "./socket.js";

const SVG = "http://www.w3.org/2000/svg";
const S = 48, G = 12, P = S + G, M = 22; // square, groove, pitch, margin (SVG units)
const COLORS = ["#1f6feb", "#d1242f", "#bf8700", "#1a7f37"];
const FILES = "abcdefghijklmnopqrstuvwxyz";
const SIDES = { bottom: "bb_side_bottom", top: "bb_side_top", left: "bb_side_left", right: "bb_side_right" };

class BoardSocket extends TableSocket {
  path() { return "/ws/board/"; }
}

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const st = {
  id: params.get("t"), watch: params.get("watch") === "1", seat: null, info: null, view: null,
  mode: "move", orient: "h", hover: null, pending: null, sending: false,
};
let sock = null;

const square = (r, c) => FILES[c] + (r + 1);
const wallName = (w) => square(w.r, w.c) + w.o;
function parseWall(text) {
  const m = /^([a-z])(\d+)([hv])$/.exec(text);
  return m ? { r: Number(m[2]) - 1, c: FILES.indexOf(m[1]), o: m[3] } : null;
}
function parseSquare(text) { return { r: Number(text.slice(1)) - 1, c: FILES.indexOf(text[0]) }; }

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

const playing = () => st.info && st.info.status === "playing";
const myTurn = () => playing() && st.view && !st.view.is_over && st.seat != null && st.view.to_act === st.seat;
const legal = () => new Set(myTurn() ? st.view.legal : []);

function wallRect(w, n) {
  if (w.o === "h") return { x: M + w.c * P, y: M + (n - 1 - w.r) * P - G + 2, width: 2 * S + G, height: G - 4 };
  return { x: M + w.c * P + S + 2, y: M + (n - 2 - w.r) * P, width: G - 4, height: 2 * S + G };
}

function seatName(i) {
  const s = st.info && st.info.seats[i];
  if (!s) return String(i + 1);
  const who = s.kind === "bot" ? botName(s.bot) : s.name || "?";
  return i === st.seat ? `${who}（${t("bb_you")}）` : who;
}

/** The seat's ladder title (步步为营's ladder), shown beside the name. */
function seatTitle(i) {
  const s = st.info && st.info.seats[i];
  return s && s.title ? h("span.seat-title.ladder-title", { title: titleTip(s.title, s.total), lang: "zh-CN" }, s.title) : null;
}

// ------------------------------------------------------------------ drawing
function draw() {
  const svg = $("bb-board");
  clear(svg);
  const v = st.view;
  if (!v) return;
  const n = v.board_size;
  const size = 2 * M + n * P - G;
  svg.setAttribute("viewBox", `0 0 ${size} ${size}`);
  el("rect", { x: 0, y: 0, width: size, height: size, rx: 10, class: "bb-bg" }, svg);
  const lit = legal();
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      const name = square(r, c);
      const sq = el("rect", { x: M + c * P, y: M + (n - 1 - r) * P, width: S, height: S, rx: 5,
        class: "bb-sq" + (lit.has(name) ? " bb-legal" : ""), "data-square": name }, svg);
      if (lit.has(name)) sq.addEventListener("click", () => send({ type: "move", to: name }));
    }
  }
  for (let i = 0; i < n; i++) {
    el("text", { x: M + i * P + S / 2, y: size - 6, class: "bb-label" }, svg).textContent = FILES[i];
    el("text", { x: 8, y: M + (n - 1 - i) * P + S / 2 + 4, class: "bb-label" }, svg).textContent = String(i + 1);
  }
  // groove targets: hover previews a wall, a click (tap) selects it, a second click places it
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      if (r < n - 1) groove(svg, { x: M + c * P, y: M + (n - 1 - r) * P - G, width: S + G, height: G },
        { r, c: Math.min(c, n - 2), o: "h" }, `h${r}-${c}`);
      if (c < n - 1) groove(svg, { x: M + c * P + S, y: M + (n - 1 - r) * P, width: G, height: S + G },
        { r: Math.min(r, n - 2), c, o: "v" }, `v${r}-${c}`);
    }
  }
  for (const w of v.walls) {
    const p = parseWall(w.wall);
    el("rect", { ...wallRect(p, n), rx: 3, class: "bb-wall", fill: w.seat >= 0 ? COLORS[w.seat] : "#555",
      "data-wall": w.wall }, svg);
  }
  const preview = st.pending || st.hover;
  if (preview && myTurn()) {
    const ok = lit.has(wallName(preview));
    el("rect", { ...wallRect(preview, n), rx: 3, class: "bb-preview " + (ok ? "ok" : "bad"),
      "data-preview": wallName(preview) }, svg);
  }
  for (const p of v.pawns) {
    const q = parseSquare(p.square);
    const g = el("g", { class: "bb-pawn", "data-seat": p.seat, "data-square": p.square }, svg);
    el("circle", { cx: M + q.c * P + S / 2, cy: M + (n - 1 - q.r) * P + S / 2, r: S * 0.36, fill: COLORS[p.seat],
      stroke: v.to_act === p.seat && !v.is_over ? "#fff" : "none", "stroke-width": 3 }, g);
    el("text", { x: M + q.c * P + S / 2, y: M + (n - 1 - q.r) * P + S / 2 + 5, class: "bb-pawn-no" }, g)
      .textContent = String(p.seat + 1);
  }
  if (st.mode === "wall" && myTurn()) {
    const layer = el("rect", { x: 0, y: 0, width: size, height: size, class: "bb-wall-layer" }, svg);
    const pick = (ev) => nearestWall(svg, ev, n);
    layer.addEventListener("pointermove", (ev) => setHover(pick(ev)));
    layer.addEventListener("click", (ev) => choose(pick(ev)));
  }
}

function groove(svg, rect, wall, key) {
  const g = el("rect", { ...rect, class: "bb-groove", "data-groove": key }, svg);
  g.addEventListener("pointerenter", (ev) => {
    if (ev.pointerType === "mouse" && myTurn() && !st.pending) setHover(wall);
  });
  g.addEventListener("pointerleave", () => setHover(null));
  g.addEventListener("click", () => choose(wall));
}

/** Redraw only when the previewed wall changes (drawing replaces the elements under the pointer). */
function setHover(wall) {
  if ((wall && wallName(wall)) === (st.hover && wallName(st.hover))) return;
  st.hover = wall;
  draw();
}

/** Wall mode: the anchor nearest to the pointer, in the chosen orientation. */
function nearestWall(svg, ev, n) {
  const pt = svg.createSVGPoint();
  pt.x = ev.clientX; pt.y = ev.clientY;
  const p = pt.matrixTransform(svg.getScreenCTM().inverse());
  const clamp = (x) => Math.max(0, Math.min(n - 2, x));
  const c = clamp(Math.round((p.x - M - S - G / 2) / P));
  const r = clamp(n - 1 - Math.round((p.y - M + G / 2) / P));
  return { r, c, o: st.orient };
}

function choose(wall) {
  if (!myTurn() || !wall) return;
  if (st.pending && wallName(st.pending) === wallName(wall)) { placePending(); return; }
  st.pending = wall;
  st.hover = null;
  render();
}

function placePending() {
  if (!st.pending) return;
  const w = wallName(st.pending);
  if (!legal().has(w)) { toast(t("bb_wall_illegal"), "error"); return; }
  send({ type: "wall", wall: w });
}

/** A refusal in the page's language: the server's wording of the engine's reason, else
 *  its English message. */
function refusalText(err) {
  if (!err) return "?";
  return (err.text && err.text[getLang()]) || err.message || err.code;
}

async function send(action) {
  if (st.sending || !sock) return;
  st.sending = true;
  const r = await sock.act(action);
  st.sending = false;
  st.pending = null;
  st.hover = null;
  if (!r.ok) toast(refusalText(r.error), "error");
  render();
}

// ------------------------------------------------------------------ side panel
function render() {
  draw();
  const v = st.view;
  const seats = clear($("bb-seats"));
  $("role").hidden = st.seat != null;
  renderOpen();
  if (!v) return;
  $("turn-no").textContent = t("bb_turn_no", { n: v.turn });
  for (const p of v.pawns) {
    seats.append(h("li" + (v.to_act === p.seat && !v.is_over ? ".bb-to-move" : ""), { dataset: { seat: p.seat } },
      h("span.bb-dot", { style: `background:${COLORS[p.seat]}` }, String(p.seat + 1)), " ",
      h("b", seatName(p.seat)), " ", seatTitle(p.seat), " ",
      h("span.note", `${t(SIDES[p.side])} · ${t("bb_walls_left", { n: p.walls_left })} · ${t("bb_steps", { n: p.distance })}`)));
  }
  let status;
  if (st.info && st.info.status === "open") status = t("waiting_start");
  else if (v.is_over) status = v.winner == null ? t("bb_draw") : t("bb_won", { name: seatName(v.winner) });
  else if (myTurn()) status = t("bb_your_turn");
  else status = t("bb_turn_of", { name: seatName(v.to_act) });
  $("bb-status").textContent = status;
  $("bb-mode").textContent = t(st.mode === "wall" ? "bb_mode_wall" : "bb_mode_move");
  $("bb-mode").hidden = $("bb-rotate").hidden = st.seat == null || v.is_over || !playing();
  $("bb-rotate").textContent = `${t("bb_rotate")} (${st.orient === "h" ? "—" : "|"})`;
  const confirm = $("bb-confirm");
  // Only a legal (green) preview can be confirmed; a red one says why not instead.
  const pendingOk = !!st.pending && legal().has(wallName(st.pending));
  confirm.hidden = !(pendingOk && myTurn());
  $("bb-wall-note").hidden = !(st.pending && !pendingOk && myTurn());
  if (st.pending) $("bb-place").textContent = t("bb_confirm_wall", { w: wallName(st.pending) });
  $("bb-again").hidden = !(v.is_over && st.seat != null);
  // Boxed in with no wall to place, the engine's only legal action is the pass.
  $("bb-pass-row").hidden = !(myTurn() && v.legal.length === 1 && v.legal[0] === "pass");
  const rec = $("btn-record");
  rec.hidden = false;
  rec.href = `/api/board/tables/${encodeURIComponent(st.id)}/record`;
}

// ------------------------------------------------------------------ before the start
function renderOpen() {
  const box = $("bb-open");
  const info = st.info;
  box.hidden = !(info && info.status === "open");
  if (box.hidden) return;
  clear(box);
  const me = account.user;
  const mine = info.seats.findIndex((s) => me && s.kind === "human" && s.name === me.name);
  const manager = mine >= 0 || (me && info.owner === me.name);
  const rows = info.seats.map((s, i) => {
    const controls = h("span.seat-controls");
    if (s.kind === "empty") {
      if (mine < 0) controls.append(h("button.small.primary", { dataset: { act: "sit", seat: i }, on: { click: () => seatCall(i, "POST", "", true) } }, t("take_seat")));
      if (manager) controls.append(h("button.small", { dataset: { act: "bot", seat: i }, on: { click: () => seatCall(i, "PUT", "/bot", false) } }, t("add_bot")));
    } else if (s.kind === "bot" && manager) {
      controls.append(h("button.small", { dataset: { act: "unbot", seat: i }, on: { click: () => seatCall(i, "DELETE", "/bot", false) } }, t("remove_bot")));
    } else if (i === mine) {
      controls.append(h("button.small", { dataset: { act: "leave", seat: i }, on: { click: () => seatCall(i, "DELETE", "", true) } }, t("leave_seat")));
    }
    const who = s.kind === "empty" ? t("empty_seat") : s.kind === "bot" ? botName(s.bot) : s.name;
    return h("li", { dataset: { seat: i } }, h("span.bb-dot", { style: `background:${COLORS[i]}` }, String(i + 1)), " ", h("b", who), " ", controls);
  });
  const full = info.seats.every((s) => s.kind !== "empty");
  box.append(h("h3", t("seats_title")), h("ul.bb-seats", rows),
    h("button.primary#bb-start", { disabled: !full || !manager, on: { click: startGame } }, full ? t("start") : t("bb_need_players")),
    info.code ? h("p", h("b", t("room_code")), " ", h("code#room-code", info.code)) : null);
}

/** Sit, leave, add or remove a bot (``/seats/{i}`` + ``tail``); a seat change rebinds the socket. */
async function seatCall(seat, method, tail, rebind) {
  if (!(await ensureGuest())) return;
  const body = method === "PUT" ? { bot: "search" } : undefined;
  const r = await api(`/api/board/tables/${encodeURIComponent(st.id)}/seats/${seat}${tail}`, { method, body });
  if (!r.ok) { toast(r.error, "error"); return; }
  st.info = r.data;
  if (rebind) sock.rehello();
  render();
}

async function startGame() {
  const r = await api(`/api/board/tables/${encodeURIComponent(st.id)}/start`, { method: "POST" });
  if (!r.ok) toast(r.error, "error");
}

function onFrame(f) {
  if (f.t === "welcome") { st.seat = f.seat; st.info = f.table; }
  else if (f.t === "table") st.info = f.table;
  else if (f.t === "snapshot" || f.t === "events") {
    const wasMine = myTurn();
    st.view = f.view;
    if (st.pending && !myTurn()) st.pending = null;
    if (f.t === "events") boardCue(f.events || [], wasMine);
  } else if (f.t === "error") toast(f.message, "error");
  render();
}

/** Cues of a frame: the game's end, else our move and others' moves (a frame may hold both:
 * ours and the bot's answer), and a chime when it is our turn. */
function boardCue(events, wasMine) {
  const end = events.find((e) => e.type === "end");
  const acts = events.filter((e) => e.type === "move" || e.type === "wall");
  if (end) Sound.play(end.winner === st.seat ? "end_win" : "end_lose");
  else {
    if (acts.some((e) => e.seat === st.seat)) Sound.play("play");
    if (acts.some((e) => e.seat !== st.seat)) Sound.play("play_other");
  }
  if (!wasMine && myTurn()) setTimeout(() => { if (myTurn()) Sound.play("turn"); }, 150);
}

async function quick(preset) {
  if (!(await ensureGuest())) return null;
  const r = await api("/api/board/quickplay", { method: "POST", body: { preset, bot: "search" } });
  if (!r.ok) { toast(r.error, "error"); return null; }
  return r.data.id;
}

async function main() {
  applyI18n(document);
  await loadMe();
  accountBar($("account"));
  soundSwitch($("btn-sound"));
  langSwitch($("btn-lang"), render);
  $("bb-mode").addEventListener("click", () => { st.mode = st.mode === "wall" ? "move" : "wall"; st.hover = null; render(); });
  $("bb-rotate").addEventListener("click", () => {
    st.orient = st.orient === "h" ? "v" : "h";
    if (st.pending) st.pending = { ...st.pending, o: st.orient };
    render();
  });
  $("bb-place").addEventListener("click", placePending);
  $("bb-pass").addEventListener("click", () => send({ type: "pass" }));
  $("bb-cancel").addEventListener("click", () => { st.pending = null; render(); });
  $("bb-again").addEventListener("click", async () => {
    const id = await quick(st.info ? st.info.preset : "quoridor-2");
    if (id) location.href = `/board.html?t=${encodeURIComponent(id)}`;
  });
  const fresh = params.get("new");
  if (!st.id && fresh) {
    st.id = await quick(fresh);
    if (!st.id) return;
    history.replaceState(null, "", `/board.html?t=${encodeURIComponent(st.id)}`);
    $("link-rules").href = rulesHref();
  }
  if (!st.id) { location.href = "/"; return; }
  sock = new BoardSocket(st.id, {
    watch: st.watch, onFrame,
    onStatus: (s) => { $("conn").textContent = s === "open" ? "" : "…"; $("conn").dataset.state = s; },
  });
  sock.connect();
}

main();
