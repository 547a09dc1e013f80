// The table page: one table over its WebSocket. The per-seat `view` of the latest frame is
// the single source of truth for what is drawn; events feed the log, the trick pause and
// the end-of-hand summary. Decisions go out in the engine's record form.

import * as API from "./api.js";
import { TableSocket } from "./socket.js";
import { secondsLeft, paintClock, tickMine } from "./clock.js";
import { t, getLang, applyI18n, rulesHref, seatRel, suitName, botKind, botLabel, botName, tableName, titleTip } from "./i18n.js";
import { h, clear, toast, account, loadMe, ensureGuest, accountBar, langSwitch, soundSwitch, balanceRows } from "./ui.js";
import {
  SUITS, SUIT_SYMBOL, RANKS, parse, isTrump, groupHand, countOf, unseenCounts, unseenPoints,
  cardElement, cardRow, cardsText, levelText, points,
} from "./cards.js";
import { Sound } from "./sound.js";
import { cardRects, slideIn, dealIn, sweepTo, snapshotCards } from "./motion.js";

const params = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);
const TRICK_HOLD_MS = 1100; // a finished trick stays in the middle this long
const AUTO_PASS_MS = 250; // auto-pass while drawing: time to click a declaration instead

const S = {
  tableId: params.get("t"),
  watch: ["1", "true", "yes"].includes(params.get("watch") || ""),
  info: null,
  seat: null,
  role: null,
  view: null,
  turn: null,
  offset: 0, // server clock - local clock (ms)
  sock: null,
  selected: new Set(), // indices into view.hand
  takeSel: new Set(), // indices into the kitty (joker pick-up choice)
  handKey: "",
  fromKitty: null, // Map name -> count of cards just taken from the kitty (dealer)
  hint: null, // {action, key}
  busy: false,
  summary: null, // hand_end result shown in the modal
  handResults: {}, // hand number -> hand_end result (复式 compares a board's two plays)
  summarySeen: 0, // hand number of the last summary opened
  heldTrick: null, // {trick, until}
  refusal: null, // the server's refusal of my last action, shown above the hand
  log: [],
  chat: [],
  counterOn: localStorage.getItem("gunzi.counter") !== "off",
  autoPass: localStorage.getItem("gunzi.autopass") !== "off",
  autoPassTimer: null,
  pendingDeclare: null, // {key, action}: a declaration to send at the next ask
  buttonsSig: "",
  buttonMap: null,
  panel: null, // phone drawer: "chat" | "counter" | "log" | null
  connection: "connecting",
  leadCards: null, // the current trick's lead, to tell a kill (毙) from a follow
  shownTrick: null, // {number}: the trick whose cards are in the middle now
  markPending: false, // the first-paint mark is asked for (once per page)
  botKind: "rule", // the bot "Add bot" seats (the table's info.bots)
};

// ------------------------------------------------------------------ derived facts

const rulesOpt = () => (S.info && S.info.rules) || {};
const decks = () => rulesOpt().decks || 3;
const isGunzi = () => (S.view ? S.view.game : rulesOpt().game) === "gunzi";
const teamOf = (seat) => seat % 2;

/** A seated bot's tooltip: its name, and for a net trained on another game, which. */
function botTip(bot) {
  const other = S.info && S.info.bots_untrained ? S.info.bots_untrained[bot] : null;
  return other ? botName(bot) + " · " + t("bot_untrained_tip", { preset: t("preset_" + other) }) : botName(bot);
}

const baseSeat = () => (S.seat == null ? 0 : S.seat);
const relPos = (seat) => (seat - baseSeat() + 4) % 4; // 0 me/bottom, 1 right, 2 top, 3 left
const POS = ["bottom", "right", "top", "left"];
const playing = () => S.info && S.info.status === "playing";
const counterAllowed = () => !(S.info && S.info.counter === false); // a table setting

function trumpCtx() {
  const v = S.view;
  return { level: v ? v.level : "3", trump: v ? v.trump : null, twos: !!rulesOpt().permanent_twos || isGunzi() };
}

function myTurn() {
  const v = S.view;
  return !!(v && S.seat != null && playing() && v.to_act === S.seat && !v.is_over);
}

function seatName(seat) {
  if (seat == null || seat < 0) return "—";
  const info = S.info && S.info.seats ? S.info.seats[seat] : null;
  const rel = seatRel(relPos(seat), S.seat != null);
  if (!info || info.kind === "empty") return rel;
  const name = info.kind === "bot" ? botName(info.bot) : info.name;
  return S.seat === seat ? t("you") : `${name}`;
}

function seatLabel(seat) {
  // "下家 · rule bot": the relative position first (what players talk about)
  if (S.seat === seat) return t("you");
  return `${seatRel(relPos(seat), S.seat != null)} ${seatName(seat)}`;
}

function teamName(team) {
  if (S.seat == null) return t(team === 0 ? "team_ns" : "team_ew");
  return t(team === teamOf(S.seat) ? "team_us" : "team_them");
}

function levelLabel(text) { return text === "passed" ? t("passed") : text; }

// ------------------------------------------------------------------ socket frames

function onFrame(f) {
  switch (f.t) {
    case "welcome":
      S.info = f.table;
      S.seat = f.seat;
      S.role = f.role;
      S.offset = (f.server_time || Date.now()) - Date.now();
      S.chat = f.chat || [];
      renderAll();
      renderChat();
      break;
    case "table":
      S.info = f.table;
      renderAll();
      break;
    case "snapshot":
      S.log = [];
      takeFrame(f, true);
      break;
    case "events":
      takeFrame(f, !!f.resync);
      break;
    case "chat":
      S.chat.push(f);
      if (S.chat.length > 200) S.chat.shift();
      renderChat();
      if (S.panel !== "chat" && window.matchMedia("(max-width: 900px)").matches) $("btn-chat").classList.add("unread");
      break;
    case "error":
      toast(errorText(f), "error");
      break;
    case "bye":
      toast(f.message || t("disconnected"), "error");
      break;
    default:
      break;
  }
}

function takeFrame(f, quiet) {
  const events = f.events || [];
  let handEnd = null;
  const wasMyTurn = myTurn();
  const handBefore = quiet ? null : cardRects($("hand"));
  const countBefore = quiet || !S.view || !S.view.hand ? null : countOf(S.view.hand);
  const cues = [];
  for (const e of events) {
    logEvent(e);
    if (!quiet) cues.push(...cuesOf(e));
    if (e.type === "play" && !S.leadCards) S.leadCards = e.cards;
    if (e.type === "trick" || e.type === "deal") S.leadCards = null;
    if (e.type === "trick" && !quiet) {
      // Keep the finished trick in the middle for a moment.
      S.heldTrick = { number: e.trick, until: Date.now() + TRICK_HOLD_MS };
      setTimeout(renderBoard, TRICK_HOLD_MS + 20);
    }
    if (e.type === "hand_end") { handEnd = e; S.handResults[e.hand] = e; }
    if (e.type === "take_kitty" && e.seat === S.seat && e.cards) S.fromKitty = countOf(e.cards);
    if (e.type === "play_begins" || e.type === "deal") S.fromKitty = e.type === "deal" ? null : S.fromKitty;
  }
  if (f.turn) S.turn = f.turn;
  if (f.view !== undefined && f.view !== null) S.view = f.view;
  let openNow = false;
  if (handEnd) {
    S.summary = handEnd;
    S.summarySeen = handEnd.hand;
    openNow = true;
  } else if (quiet && S.view && S.view.last_result && ["deal", "over"].includes(S.view.phase) && S.summarySeen !== S.view.last_result.hand) {
    // Joined or reconnected between hands: show the hand that just ended.
    S.summary = S.view.last_result;
    S.summarySeen = S.summary.hand;
    openNow = true;
  }
  const key = S.view && S.view.hand ? S.view.hand.join(",") + "|" + S.view.phase + "|" + S.view.hand_no : "";
  if (key !== S.handKey) {
    S.handKey = key;
    S.selected.clear();
    S.hint = null;
    S.refusal = null; // a new decision: the old refusal no longer applies
  }
  if (!myTurn()) { S.hint = null; S.takeSel.clear(); }
  if (quiet) S.leadCards = S.view && S.view.trick && S.view.trick.plays.length ? S.view.trick.plays[0].cards : null;
  renderAll();
  if (!quiet) {
    animateFrame(events, handBefore, countBefore);
    playCues(cues, !wasMyTurn && myTurn() && S.view.phase !== "draw");
  }
  if (openNow) openSummary();
  // A decision of mine (other than a declaring ask) closes the summary of the last hand.
  else if (myTurn() && S.view.phase !== "draw") closeModal("summary");
  scheduleAutoPass();
}

// ------------------------------------------------------------------ sound and motion

/** The cues one event asks for, by importance (the frame plays only its most important). */
function cuesOf(e) {
  const mine = (seat) => S.seat != null && teamOf(seat) === teamOf(S.seat);
  switch (e.type) {
    case "play": {
      if (e.attempted) return ["fail"];
      const ctx = trumpCtx();
      const kill = S.leadCards && !isTrump(S.leadCards[0], ctx) && e.cards.every((c) => isTrump(c, ctx));
      return [kill ? "kill" : e.seat === S.seat ? "play" : "play_other"];
    }
    case "trick": return [S.seat == null || mine(e.winner) ? "trick_us" : "trick_them"];
    case "hand_end": {
      const up = e.attackers_take ? e.attackers : 1 - e.attackers;
      return [S.seat == null || mine(up) ? "end_win" : "end_lose"];
    }
    default: return [];
  }
}

const CUE_ORDER = ["end_win", "end_lose", "fail", "kill", "trick_us", "trick_them", "play", "play_other"];

function playCues(cues, turnNow) {
  const best = CUE_ORDER.find((c) => cues.includes(c));
  if (best) Sound.play(best);
  if (turnNow) setTimeout(() => { if (myTurn()) Sound.play("turn"); }, best ? 180 : 0);
}

/** Decoration after the final state is drawn: plays slide in, new hand cards are dealt in. */
function animateFrame(events, handBefore, countBefore) {
  for (const e of events) {
    if (e.type !== "play") continue;
    const slot = $("play-" + POS[relPos(e.seat)]);
    const from = e.seat === S.seat ? handBefore : $("seat-" + POS[relPos(e.seat)]);
    slideIn(slot.querySelectorAll(".card"), from);
  }
  if (!countBefore || !S.view || !S.view.hand) return;
  const grown = new Map();
  for (const [name, n] of countOf(S.view.hand)) if (n > (countBefore.get(name) || 0)) grown.set(name, n - (countBefore.get(name) || 0));
  if (!grown.size) return;
  const fresh = [];
  for (const el of [...$("hand").querySelectorAll(".card[data-card]")].reverse()) {
    const k = grown.get(el.dataset.card);
    if (k) { fresh.unshift(el); grown.set(el.dataset.card, k - 1); }
  }
  dealIn(fresh, document.querySelector("#board .center"));
}

// ------------------------------------------------------------------ the log

function logEvent(e) {
  if (!describe(e)) return;
  S.log.push(e); // described again at each render, in the current language
  if (S.log.length > 300) S.log.shift();
}

function describe(e) {
  const who = (s) => seatLabel(s);
  switch (e.type) {
    case "deal": return t("ev_deal", { hand: e.hand, round: e.round });
    case "redeal": return t("ev_redeal");
    case "declare": return t("ev_declare", { who: who(e.seat), cards: cardsText(e.cards) + (e.suit && parse(e.cards[0]).joker ? " → " + suitName(e.suit) : "") });
    case "trump": return e.suit ? t("ev_trump", { suit: suitName(e.suit) }) : (e.how === "no-trump" ? t("ev_no_trump") : null);
    case "kitty_flip": return t("ev_kitty_flip", { cards: cardsText(e.cards), who: e.dealer == null ? "—" : who(e.dealer) });
    case "kitty_shown": return t("ev_kitty_shown", { cards: cardsText(e.cards) });
    case "dry_pot": return t("ev_dry_pot");
    case "tribute": return t("ev_tribute", { who: who(e.seat), to: who(e.to), n: e.n, cards: e.cards ? cardsText(e.cards) : "" });
    case "return": return t("ev_return", { who: who(e.seat), to: who(e.to), n: e.n, cards: e.cards ? cardsText(e.cards) : "" });
    case "tribute_cancelled": return t("ev_tribute_cancelled");
    case "take_kitty": return t("ev_take_kitty", { who: who(e.seat) });
    case "bury": return t("ev_bury", { who: who(e.seat), cards: e.cards ? cardsText(e.cards) : "" });
    case "joker_announce": return t("ev_joker_announce", { who: who(e.seat), cards: cardsText(e.cards) });
    case "bury_jokers":
      return e.cards && e.cards.length
        ? t("ev_bury_jokers", { who: who(e.seat), cards: cardsText(e.cards), take: cardsText(e.take || []) })
        : t("ev_bury_jokers_none", { who: who(e.seat) });
    case "pass": return e.n == null ? t("ev_pass_jokers", { who: who(e.seat) }) : null;
    case "play_begins": return t("ev_play_begins", { who: who(e.leader) });
    case "play": return t("ev_play", { who: who(e.seat), cards: cardsText(e.cards) }) + (e.attempted ? " " + t("ev_failed_throw", { cards: cardsText(e.attempted) }) : "");
    case "trick": return t("ev_trick", { n: e.trick, who: who(e.winner), points: e.points });
    case "hand_end": return t("ev_hand_end", { hand: e.hand, score: e.score });
    case "match_end": return t("ev_match_end");
    default: return null;
  }
}

// ------------------------------------------------------------------ rendering

function renderAll() {
  renderTop();
  renderInfo();
  renderBoard();
  renderPrestart();
  renderActions();
  renderHand();
  renderRefusal();
  renderCounter();
  renderLog();
  document.body.classList.toggle("spectator", S.seat == null);
  document.body.classList.toggle("my-turn", myTurn());
  document.body.dataset.phase = S.view ? S.view.phase : S.info ? S.info.status : "";
  document.title = (myTurn() ? "● " : "") + (S.info ? tableName(S.info) + " · " : "") + t("hall_name");
  // First meaningful paint: the first frame that shows the game (measured by the tests).
  if (S.view && !performance.getEntriesByName("gunzi-table-drawn").length && !S.markPending) {
    S.markPending = true;
    requestAnimationFrame(() => performance.mark("gunzi-table-drawn"));
  }
}

function renderTop() {
  const info = S.info;
  $("table-name").textContent = tableName(info);
  const v = S.view;
  $("hand-no").textContent = v && v.hand_no ? t("hand_no", { n: v.hand_no, round: v.round_no }) : info ? t("status_" + info.status) : "";
  $("conn").textContent = S.connection === "open" ? "" : t("conn_" + S.connection);
  $("conn").className = "conn " + S.connection;
  $("role").textContent = S.seat == null ? t("spectating") : "";
  const auto = S.seat != null && info && info.seats[S.seat] && info.seats[S.seat].auto;
  const ab = $("btn-auto");
  ab.hidden = S.seat == null || !playing();
  ab.classList.toggle("on", !!auto);
  ab.textContent = auto ? t("auto_on") : t("auto");
  $("btn-counter").hidden = !counterAllowed();
  $("btn-last").disabled = !(v && v.tricks && v.tricks.length);
  $("btn-summary").hidden = !(v && v.last_result);
}

/** The hand that just ended while its summary stands: between hands the engine already
 *  holds the next dealer and the new levels, so until the next deal the info bar and the
 *  seats keep showing the ended hand as its summary does (else the attackers' points would
 *  be relabelled for the other team). */
function endedHand() {
  const v = S.view;
  const r = v && v.last_result;
  return r && ["deal", "over"].includes(v.phase) && r.hand === v.hand_no ? r : null;
}

const shownDealer = () => { const r = endedHand(); return r ? r.dealer : S.view.dealer; };
const shownLevels = () => { const r = endedHand(); return r ? r.levels_before.map(levelText) : S.view.levels; };

function renderInfo() {
  const v = S.view;
  const box = clear($("info"));
  if (!v) {
    if (S.info) box.append(h("span.chip", t("preset_" + S.info.preset)));
    return;
  }
  const ended = endedHand();
  const ctxTrump = ended ? ended.trump : v.trump;
  const level = ended ? levelText(ended.level) : v.level;
  const dealer = shownDealer();
  const chip = (label, value, cls = "") => h("span.chip" + (cls ? "." + cls : ""), h("b", label), " ", value);
  // [I-30] 无主: no suit for the whole hand, which is not the "not decided yet" dash.
  const trumpEl = ctxTrump ? h("span.suit-sym" + (ctxTrump === "H" || ctxTrump === "D" ? ".red" : ""), SUIT_SYMBOL[ctxTrump])
    : (v.no_trump ? t("no_trump_value") : "—");
  box.append(chip(t("trump"), trumpEl, "trump-chip"));
  box.append(chip(t("level"), h("span.level-card", ctxTrump ? cardsText([level + ctxTrump]) : level), "level-chip"));
  box.append(chip(t("dealer"), dealer == null ? "—" : seatLabel(dealer), "dealer-chip"));
  const levels = shownLevels();
  const lv = (team) => levelLabel(levels[team]);
  box.append(chip(t("levels"), `${teamName(0)} ${lv(0)} · ${teamName(1)} ${lv(1)}`, "levels-chip"));
  if (dealer != null && dealer >= 0) {
    const att = 1 - teamOf(dealer);
    // In play the attackers' trick points (闲家抓分); once the hand ended, its final score with
    // the kitty (最终得分), labelled as in the summary so the two never contradict.
    box.append(chip(t(ended ? "score" : "points_taken"), h("span#points", String(ended ? ended.score : v.points[att])), "points-chip"));
  }
  if (v.declaration) {
    const d = v.declaration;
    box.append(chip(t("declared"), `${seatLabel(d.seat)} ${cardsText(d.cards)}${d.suit && parse(d.cards[0]).joker ? " → " + suitName(d.suit) : ""}`, "decl-chip"));
  }
  if (v.tribute && v.tribute.n > 0 && v.tribute.kind && v.tribute.kind !== "none") {
    box.append(chip(t("tribute"), t("tribute_line", { n: v.tribute.n, from: seatLabel(v.tribute.from), to: seatLabel(v.tribute.to) }), "tribute-chip"));
  }
  if (v.kitty && v.kitty.dry_pot) box.append(h("span.chip.warn", t("dry_pot")));
  const k = v.kitty || {};
  const known = k.cards && k.cards.length ? k.cards : k.turned && k.turned.length ? k.turned : null;
  if (k.size || known) {
    box.append(h("button.chip.kitty-chip#kitty-chip", { type: "button", disabled: !known, on: { click: openKitty } },
      h("b", t("kitty")), " ", known ? cardsText(known) : String(k.size)));
  }
}

function paintClocks() {
  for (const el of document.querySelectorAll(".clock[data-seat]")) paintClock(el, secondsLeft(S.turn, Number(el.dataset.seat), S.offset));
  const mine = S.seat != null ? secondsLeft(S.turn, S.seat, S.offset) : null;
  paintClock($("my-clock"), mine);
  tickMine(mine);
}

function renderSeats() {
  const v = S.view;
  const info = S.info;
  for (let seat = 0; seat < 4; seat++) {
    const pos = POS[relPos(seat)];
    const box = clear($("seat-" + pos));
    box.dataset.seat = seat;
    const si = info && info.seats ? info.seats[seat] : null;
    const toAct = v && playing() && (S.turn ? S.turn.seat === seat : v.to_act === seat);
    box.classList.toggle("to-act", !!toAct);
    const dealer = v ? shownDealer() : null;
    box.classList.toggle("dealer", !!(v && dealer === seat));
    const badges = h("span.badges");
    if (v && dealer === seat) badges.append(h("span.badge.dealer-badge", { title: t("dealer") }, t("dealer_short")));
    // A bot's kind goes in its badge (机器人 [规则]) so narrow phone seats keep it in view.
    if (si && si.kind === "bot") badges.append(h("span.badge.bot-badge", { title: botTip(si.bot) }, botKind(si.bot)));
    if (si && si.auto) badges.append(h("span.badge.auto-badge", t("auto_short")));
    if (si && si.kind === "human" && !si.connected) badges.append(h("span.badge.off-badge", t("offline")));
    const name = si && si.kind !== "empty" ? (si.kind === "bot" ? t("bot_short") : si.name) : t("empty_seat");
    box.append(
      h("div.seat-head",
        h("span.rel", seatRel(relPos(seat), S.seat != null)),
        h("span.name" + (si && si.kind === "bot" ? ".bot-name" : ""), { title: name }, name),
        si && si.title ? h("span.seat-title.ladder-title", { title: titleTip(si.title, si.total), lang: "zh-CN" }, si.title) : null,
        badges),
      h("div.seat-meta",
        v ? h("span.count", { title: t("cards_in_hand") }, h("i.mini-card"), String(v.hand_sizes[seat])) : null,
        v ? h("span.team", teamName(teamOf(seat)) + " " + levelLabel(shownLevels()[teamOf(seat)])) : null,
        h("span.clock", { dataset: { seat } })));
  }
  paintClocks();
}

function trickToShow() {
  const v = S.view;
  if (!v) return null;
  const cur = v.trick;
  const held = S.heldTrick && S.heldTrick.until > Date.now() && !myTurn();
  if (cur && cur.plays.length && !(held && v.tricks.length && v.tricks.length === S.heldTrick.number)) {
    return { plays: cur.plays, leader: cur.leader, winner: cur.winning, done: false, number: cur.number };
  }
  if (v.tricks && v.tricks.length && ["play", "deal", "over"].includes(v.phase)) {
    const last = v.tricks[v.tricks.length - 1];
    const plays = last.plays.map((cards, i) => ({ seat: (last.leader + i) % 4, cards }));
    return { plays, leader: last.leader, winner: last.winner, done: true, points: last.points, number: v.tricks.length };
  }
  return null;
}

function renderBoard() {
  renderSeats();
  const v = S.view;
  const tr = trickToShow();
  const gone = S.shownTrick && (!tr || tr.number !== S.shownTrick.number) && v && v.tricks
    ? v.tricks[S.shownTrick.number - 1] : null;
  const leaving = gone ? snapshotCards(document.querySelector("#board .center")) : [];
  for (const pos of POS) clear($("play-" + pos));
  const caption = clear($("trick-caption"));
  S.shownTrick = tr ? { number: tr.number } : null;
  // A finished trick leaving the middle sweeps to its winner's seat.
  if (gone) sweepTo(leaving.filter((c) => !c.node.closest("#kitty")), $("seat-" + POS[relPos(gone.winner)]));
  const ctx = trumpCtx();
  if (tr) {
    for (const p of tr.plays) {
      const slot = $("play-" + POS[relPos(p.seat)]);
      slot.append(cardRow(p.cards, { size: "small", ctx }));
      const tags = h("div.play-tags");
      if (p.seat === tr.leader) tags.append(h("span.tag.lead-tag", t("lead_short")));
      if (p.seat === tr.winner) tags.append(h("span.tag.win-tag", t(tr.done ? "won_short" : "winning_short")));
      slot.append(tags);
      slot.classList.toggle("winning", p.seat === tr.winner);
    }
    caption.append(h("span", tr.done
      ? t("trick_done", { n: tr.number, who: seatLabel(tr.winner), points: tr.points })
      : t("trick_now", { n: tr.number })));
    $("board").classList.toggle("trick-done", tr.done);
  } else {
    $("board").classList.remove("trick-done");
  }
  renderThrowBanner(tr);
  // The kitty: shown cards, turned cards, or just its size.
  const kbox = clear($("kitty"));
  if (v && v.kitty) {
    const k = v.kitty;
    const shown = k.cards && k.cards.length ? k.cards : null;
    if (shown || (k.turned && k.turned.length)) {
      kbox.append(h("div.kitty-label", t("kitty") + (k.size ? ` ${k.size}` : "")));
      if (shown) kbox.append(cardRow(shown, { size: "tiny", ctx }));
      else if (k.turned && k.turned.length) kbox.append(h("div.turned", t("turned")), cardRow(k.turned, { size: "tiny", ctx }));
    }
  }
  if (!v && S.info && S.info.status === "open") caption.append(h("span", t("waiting_start")));
  if (v && v.phase === "draw") caption.append(h("span.drawing", t("drawing", { n: v.drawn, total: totalDraw() })));
}

/** A failed throw (classic): what was tried, who stopped it with which cards, what was
 *  played instead, over the trick it belongs to (the trick itself shows the forced play). */
function renderThrowBanner(tr) {
  const box = clear($("throw-banner"));
  const ft = S.view && S.view.failed_throw;
  box.hidden = !(tr && ft && ft.trick === tr.number);
  if (box.hidden) return;
  box.append(h("span", t("throw_failed", { who: seatLabel(ft.seat), cards: cardsText(ft.attempted), blocker: seatLabel(ft.blocker), beats: cardsText(ft.beats) })),
    h("span.forced", t("throw_forced", { cards: cardsText(ft.cards) })));
}

function totalDraw() {
  const v = S.view;
  return decks() * 54 - (v && v.kitty ? v.kitty.size : 0);
}

function renderPrestart() {
  const box = $("prestart");
  const info = S.info;
  const open = info && info.status === "open";
  box.hidden = !open;
  if (!open) return;
  clear(box);
  const mySeat = info.seats.findIndex((s) => account.user && s.kind === "human" && s.name === account.user.name);
  const seated = mySeat >= 0;
  const rows = info.seats.map((s, i) => {
    const controls = h("span.seat-controls");
    if (s.kind === "empty") {
      if (!seated) controls.append(h("button.small.primary", { dataset: { act: "sit", seat: i }, on: { click: () => sit(i) } }, t("take_seat")));
      if (seated || (account.user && info.owner === account.user.name)) {
        controls.append(h("button.small", { dataset: { act: "bot", seat: i }, on: { click: () => bot(i, true) } }, t("add_bot")));
      }
    } else if (s.kind === "bot") {
      if (seated) controls.append(h("button.small", { dataset: { act: "unbot", seat: i }, on: { click: () => bot(i, false) } }, t("remove_bot")));
    } else if (i === mySeat) {
      controls.append(h("button.small", { dataset: { act: "leave", seat: i }, on: { click: () => leave(i) } }, t("leave_seat")));
    }
    const who = s.kind === "empty" ? t("empty_seat") : s.kind === "bot" ? botLabel(s.bot, info.bots_untrained) : s.name;
    return h("li.prestart-seat", h("span.pseat", t("seat_n", { n: i + 1, pos: t("compass_" + i) })), h("span.pname", who), controls);
  });
  const full = info.seats.every((s) => s.kind !== "empty");
  const link = info.link || `${location.origin}/table.html?t=${info.id}`;
  const kinds = info.bots || ["rule"];
  if (!kinds.includes(S.botKind)) S.botKind = kinds[0];
  const picker = h("label.bot-kind", t("bot_kind_label"),
    h("select#bot-kind", { on: { change: (e) => { S.botKind = e.target.value; } } },
      kinds.map((b) => h("option", { value: b, selected: b === S.botKind }, botLabel(b, info.bots_untrained)))));
  box.append(
    h("h2", t("seats_title")),
    info.seats.some((s) => s.kind === "empty") && (seated || (account.user && info.owner === account.user.name)) ? picker : "",
    h("ul.prestart-seats", rows),
    h("div.row",
      h("button.primary#btn-start", { disabled: !full || !seated, on: { click: startTable } }, full ? t("start") : t("need_four"))),
    h("div.share",
      h("div", h("b", t("share_link")), " ", h("input#share-link", { value: link, readonly: true, on: { focus: (e) => e.target.select() } }),
        h("button.small", { on: { click: () => copy(link) } }, t("copy"))),
      info.code ? h("div", h("b", t("room_code")), " ", h("code#room-code", info.code)) : h("div.note", t("public_table"))),
    account.user ? "" : h("p.note", t("sign_in_to_sit")));
}

async function copy(text) {
  try { await navigator.clipboard.writeText(text); toast(t("copied")); } catch { toast(text); }
}

async function sit(seat) {
  if (!(await ensureGuest())) return;
  const r = await API.takeSeat(S.info.id, seat);
  if (!r.ok) { toast(r.error, "error"); return; }
  S.info = r.data;
  S.sock.rehello();
}
async function leave(seat) {
  const r = await API.leaveSeat(S.info.id, seat);
  if (!r.ok) { toast(r.error, "error"); return; }
  S.info = r.data;
  S.sock.rehello();
}
async function bot(seat, add) {
  const r = add ? await API.addBot(S.info.id, seat, S.botKind || "rule") : await API.removeBot(S.info.id, seat);
  if (!r.ok) { toast(r.error, "error"); return; }
  S.info = r.data;
  renderAll();
}
async function startTable() {
  const r = await API.start(S.info.id);
  if (!r.ok) { toast(r.error, "error"); return; }
  S.info = r.data;
  renderAll();
}

// ------------------------------------------------------------------ decisions

/** The seat's decision as its view describes it (engine/view.py ``decision``): the kind,
 *  how many cards it takes (tribute, return, bury) and the declarations it may make. */
const decision = () => (S.view && S.view.decision) || { kind: null, count: null, options: null };

function selectedCards() {
  const hand = (S.view && S.view.hand) || [];
  return [...S.selected].sort((a, b) => a - b).map((i) => hand[i]);
}

function leadCount() {
  const v = S.view;
  return v && v.trick && v.trick.plays.length ? v.trick.plays[0].cards.length : 0;
}

/** What the action bar offers now: [{key, label, action() | null, primary, disabled}] */
function decisionButtons() {
  const v = S.view;
  const out = [];
  const declareButtons = (queue) => {
    for (const o of decision().options || []) {
      const action = { type: "declare", cards: o.cards, ...(o.suit ? { suit: o.suit } : {}) };
      const key = "declare:" + o.cards.join("") + ":" + (o.suit || "");
      const queued = !!(S.pendingDeclare && S.pendingDeclare.key === key);
      out.push({ key, label: t(queued ? "declare_queued" : "declare_btn", { cards: cardsText(o.cards) + (o.suit ? " → " + SUIT_SYMBOL[o.suit] : "") }), action, cls: "declare" + (queued ? ".queued" : ""), queue });
    }
  };
  if (!myTurn()) {
    // Between asks while drawing: a declaration is queued and sent at the next ask.
    if (v && S.seat != null && playing() && v.phase === "draw") declareButtons(true);
    return out;
  }
  const sel = selectedCards();
  switch (v.phase) {
    case "draw":
      declareButtons(false);
      out.push({ key: "pass", label: t("no_declare"), action: { type: "pass" } });
      break;
    case "tribute":
      out.push({ key: "submit", label: t("give_tribute", { k: sel.length, n: decision().count }), action: { type: "tribute", cards: sel }, primary: true, disabled: sel.length !== decision().count });
      break;
    case "return":
      out.push({ key: "submit", label: t("return_tribute", { k: sel.length, n: decision().count }), action: { type: "return", cards: sel }, primary: true, disabled: sel.length !== decision().count });
      break;
    case "bury": {
      const n = decision().count;
      out.push({ key: "submit", label: t("bury_btn", { k: sel.length, n }), action: { type: "bury", cards: sel }, primary: true, disabled: sel.length !== n });
      break;
    }
    case "bury_jokers": {
      if (v.pickup_pending) {
        const kitty = (v.kitty && v.kitty.cards) || [];
        const take = [...S.takeSel].sort((a, b) => a - b).map((i) => kitty[i]);
        out.push({ key: "submit", label: t("take_btn", { k: take.length, n: v.pickup_pending.length }), action: { type: "bury_jokers", cards: v.pickup_pending, take }, primary: true, disabled: take.length !== v.pickup_pending.length });
        break;
      }
      const jokers = sel.filter((c) => c === "BJ" || c === "LJ");
      const hintTake = S.hint && S.hint.action.type === "bury_jokers" && sameCards(S.hint.action.cards, jokers) ? S.hint.action.take : null;
      const action = { type: "bury_jokers", cards: jokers };
      if (hintTake && hintTake.length) action.take = hintTake;
      const held = v.hand.filter((c) => c === "BJ" || c === "LJ").length;
      if (held) out.push({ key: "submit", label: t("bury_jokers_btn", { k: jokers.length }), action, primary: true, disabled: !jokers.length || jokers.length !== sel.length });
      out.push({ key: "pass", label: t("no_bury_jokers"), action: { type: "pass" } });
      break;
    }
    case "play": {
      const n = leadCount();
      out.push({ key: "submit", label: n ? t("play_btn_n", { k: sel.length, n }) : t("play_btn"), action: { type: "play", cards: sel }, primary: true, disabled: !sel.length || (n && sel.length !== n) });
      break;
    }
    default:
      break;
  }
  return out;
}

function sameCards(a, b) {
  if (!a || !b || a.length !== b.length) return false;
  const x = [...a].sort().join(",");
  return x === [...b].sort().join(",");
}

/** What a lead may be in this game: 打滚子 has no runs or throws, classic has tractors and
 *  throws, and triples only with three decks (one deck has no pairs either). */
function leadPrompt() {
  if (isGunzi()) return "ask_lead";
  return decks() >= 3 ? "ask_lead_classic3" : decks() === 2 ? "ask_lead_classic" : "ask_lead_classic1";
}

function statusText() {
  const v = S.view;
  const info = S.info;
  if (!info) return t("loading");
  if (info.status === "open") return t("waiting_start");
  if (info.status === "finished") return t("table_finished");
  if (info.status === "abandoned") return t("table_abandoned");
  if (!v) return t("loading");
  if (v.is_over) return t("match_over");
  if (v.phase === "deal") return t("next_hand_soon");
  if (myTurn()) {
    switch (v.phase) {
      case "draw": return v.first_hand && isGunzi() ? t("ask_grab") : t("ask_declare");
      case "tribute": return t("ask_tribute", { n: v.tribute.n, to: seatLabel(v.tribute.to) });
      case "return": return t("ask_return", { n: v.tribute.n, to: seatLabel(v.tribute.from) });
      case "bury": return t("ask_bury", { n: decision().count });
      case "bury_jokers": return v.pickup_pending ? t("ask_pickup", { n: v.pickup_pending.length }) : t("ask_bury_jokers");
      case "play": return leadCount() ? t("ask_follow", { n: leadCount() }) : t(leadPrompt());
      default: return t("your_turn");
    }
  }
  const seat = S.turn ? S.turn.seat : v.to_act;
  if (v.phase === "draw") return t("drawing", { n: v.drawn, total: totalDraw() });
  if (seat == null || seat < 0) return "";
  return t("waiting_for", { who: seatLabel(seat), what: t("phase_" + v.phase) });
}

function renderActions() {
  const bar = $("actions");
  const status = $("status");
  status.textContent = statusText();
  paintClocks();
  const canHint = myTurn();
  bar.hidden = !playing() && !(S.info && ["finished", "abandoned"].includes(S.info.status));
  const list = decisionButtons();
  const drawing = S.seat != null && playing() && S.view && S.view.phase === "draw";
  const selectedAny = S.selected.size || S.takeSel.size;
  // Rebuild the buttons only when they change: a button replaced between press and
  // release loses the click (frames arrive several times a second while drawing).
  const sig = JSON.stringify([list.map((b) => [b.key, b.label, !!b.disabled, b.cls, S.hint && S.hint.key === b.key]),
    canHint, S.busy, !!selectedAny, drawing, S.autoPass, getLang()]);
  S.buttonMap = new Map(list.map((b) => [b.key, b]));
  if (sig === S.buttonsSig) return renderPickup();
  S.buttonsSig = sig;
  const btns = clear($("buttons"));
  for (const b of list) {
    const btn = h("button.act" + (b.primary ? ".primary" : "") + (b.cls ? "." + b.cls : ""), {
      dataset: { key: b.key },
      disabled: !!b.disabled || S.busy,
      on: { click: () => pressed(b.key) },
    }, b.label);
    if (S.hint && S.hint.key === b.key) btn.classList.add("suggested");
    btns.append(btn);
  }
  if (canHint) {
    btns.append(h("button.act#btn-hint", { disabled: S.busy, on: { click: askHint } }, t("hint")));
    if (selectedAny) btns.append(h("button.act#btn-clear", { on: { click: () => { S.selected.clear(); S.takeSel.clear(); S.hint = null; renderHand(); renderActions(); } } }, t("clear")));
  }
  if (drawing) {
    btns.append(h("label.autopass", h("input#autopass", { type: "checkbox", checked: S.autoPass, on: { change: (e) => { S.autoPass = e.target.checked; localStorage.setItem("gunzi.autopass", S.autoPass ? "on" : "off"); scheduleAutoPass(); } } }), " ", t("auto_pass")));
  }
  renderPickup();
}

function pressed(key) {
  const b = S.buttonMap && S.buttonMap.get(key);
  if (!b) return;
  if (b.queue) {
    S.pendingDeclare = S.pendingDeclare && S.pendingDeclare.key === key ? null : { key, action: b.action };
    renderActions();
    return;
  }
  submit(b.action);
}

function renderPickup() {
  // Joker pick-up: choose kitty cards.
  const pick = clear($("pickup"));
  const v = S.view;
  pick.hidden = !(myTurn() && v && v.phase === "bury_jokers" && v.pickup_pending);
  if (!pick.hidden) {
    const kitty = (v.kitty && v.kitty.cards) || [];
    pick.append(h("div.note", t("pickup_note")));
    const row = h("div.card-row.small.pickable");
    kitty.forEach((name, i) => {
      const c = cardElement(name, { size: "small", trump: isTrump(name, trumpCtx()) });
      c.classList.toggle("selected", S.takeSel.has(i));
      c.addEventListener("click", () => { S.takeSel.has(i) ? S.takeSel.delete(i) : S.takeSel.add(i); renderActions(); });
      row.append(c);
    });
    pick.append(row);
  }
}

function renderHand() {
  // Keyboard play: a focused card keeps the focus across the re-render.
  const focused = document.activeElement && document.activeElement.closest("#hand .card");
  const refocus = focused ? focused.dataset.index : null;
  const box = clear($("hand"));
  const v = S.view;
  if (!v || !v.hand) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const ctx = trumpCtx();
  const groups = groupHand(v.hand, ctx);
  // Indices follow the server's order; groups keep that order within themselves.
  const used = new Map();
  const indexOf = (name) => {
    let from = used.get(name) ?? -1;
    const i = v.hand.indexOf(name, from + 1);
    used.set(name, i);
    return i;
  };
  const fresh = new Map(S.fromKitty && v.phase === "bury" ? S.fromKitty : []);
  const must = countOf((S.refusal && S.refusal.cards) || []); // cards that satisfy the rule
  const clickable = S.seat != null && myTurn() && ["tribute", "return", "bury", "bury_jokers", "play", "draw"].includes(v.phase) && !v.pickup_pending;
  box.classList.toggle("clickable", clickable);
  for (const g of groups) {
    const group = h("div.group", { dataset: { group: g.key } });
    group.append(h("span.group-label", g.key === "T" ? t("trumps_short") : SUIT_SYMBOL[g.key]));
    for (const name of g.cards) {
      const i = indexOf(name);
      const c = cardElement(name, { size: "hand", trump: g.key === "T" });
      c.dataset.index = i;
      if (S.selected.has(i)) c.classList.add("selected");
      if (fresh.get(name)) { c.classList.add("fresh"); fresh.set(name, fresh.get(name) - 1); }
      if (must.get(name)) { c.classList.add("must"); must.set(name, must.get(name) - 1); }
      c.addEventListener("click", () => onCardClick(i));
      if (clickable) {
        c.tabIndex = 0;
        c.setAttribute("role", "button");
        c.setAttribute("aria-pressed", String(S.selected.has(i)));
        c.addEventListener("keydown", (e) => {
          if (e.key !== " " && e.key !== "Enter") return;
          e.preventDefault();
          e.stopPropagation(); // Enter on a card selects it; Enter elsewhere presses the button
          onCardClick(i);
        });
      }
      group.append(c);
    }
    box.append(group);
    balanceRows(group, [...group.querySelectorAll(".card")]);
  }
  $("hand-count").textContent = t("n_cards", { n: v.hand.length });
  if (refocus != null) { const c = box.querySelector(`.card[data-index="${refocus}"]`); if (c) c.focus({ preventScroll: true }); }
}

function onCardClick(i) {
  const v = S.view;
  if (!v || !v.hand || S.seat == null) return;
  if (S.selected.has(i)) {
    S.selected.delete(i);
  } else {
    const n = v.phase === "play" ? leadCount() : 0;
    if (v.phase === "play" && n > 1 && S.selected.size === 0) {
      // Following a pair or a triple: one tap takes as many identical copies as it can.
      const name = v.hand[i];
      const same = v.hand.map((c, j) => (c === name ? j : -1)).filter((j) => j >= 0);
      if (same.length >= n) { same.slice(0, n).forEach((j) => S.selected.add(j)); }
      else S.selected.add(i);
    } else {
      S.selected.add(i);
    }
  }
  S.hint = null;
  renderHand();
  renderActions();
}

async function submit(action) {
  if (S.busy) return;
  S.busy = true;
  renderActions();
  const r = await S.sock.act(action);
  S.busy = false;
  S.refusal = r.ok ? null : r.error || { code: "server_error" };
  if (!r.ok) Sound.play("no");
  if (r.ok) {
    S.selected.clear();
    S.takeSel.clear();
    S.hint = null;
  }
  renderActions();
  renderHand();
  renderRefusal();
}

/** An error in the page's language: the server's wording of a broken rule (it knows the
 *  engine's reason), else the label of the error code; the server's English only for a
 *  code this page does not know. */
function errorText(err) {
  const lang = getLang();
  if (err.text && err.text[lang]) return err.text[lang];
  const key = "err_" + err.code;
  return t(key) !== key ? t(key) : err.message || err.code;
}

function renderRefusal() {
  const box = clear($("refusal"));
  const err = S.refusal;
  box.hidden = !err;
  if (!err) return;
  box.append(h("span.refusal-text", errorText(err)));
  if (err.rule) box.append(h("span.refusal-rule", t("refusal_rule", { rule: err.rule })));
  box.append(h("button.small.refusal-close", { type: "button", on: { click: () => { S.refusal = null; renderRefusal(); renderHand(); } } }, t("refusal_close")));
}

async function askHint() {
  const r = await S.sock.hint();
  if (!r.action) { toast(r.error ? errorText(r.error) : t("no_hint"), "error"); return; }
  applyHint(r.action);
}

function applyHint(action) {
  const v = S.view;
  S.selected.clear();
  S.takeSel.clear();
  let key = "submit";
  const pick = (names, list, set) => {
    const used = new Set();
    for (const name of names) {
      const i = list.findIndex((c, j) => c === name && !used.has(j));
      if (i >= 0) { used.add(i); set.add(i); }
    }
  };
  if (action.type === "pass") key = "pass";
  else if (action.type === "declare") key = "declare:" + action.cards.join("") + ":" + (action.suit || "");
  else if (action.type === "bury_jokers" && v.pickup_pending) pick(action.take || [], (v.kitty && v.kitty.cards) || [], S.takeSel);
  else pick(action.cards || [], v.hand || [], S.selected);
  S.hint = { action, key };
  renderHand();
  renderActions();
  const btn = document.querySelector(`#buttons button[data-key="${CSS.escape(key)}"]`);
  if (btn) btn.focus({ preventScroll: true });
}

function scheduleAutoPass() {
  clearTimeout(S.autoPassTimer);
  const v = S.view;
  if (!v || v.phase !== "draw") S.pendingDeclare = null;
  if (myTurn() && v.phase === "draw" && S.pendingDeclare && !S.busy) {
    const { action } = S.pendingDeclare;
    S.pendingDeclare = null;
    submit(action);
    return;
  }
  if (!S.autoPass || !myTurn() || v.phase !== "draw") return;
  if (v.drawn >= totalDraw()) return; // the last window: the player decides
  const key = S.sock.lastSeq;
  S.autoPassTimer = setTimeout(() => {
    if (S.autoPass && myTurn() && S.view.phase === "draw" && S.sock.lastSeq === key && !S.busy) submit({ type: "pass" });
  }, AUTO_PASS_MS);
}

// ------------------------------------------------------------------ side panels

function renderCounter() {
  const box = clear($("counter"));
  const allowed = counterAllowed();
  $("counter-panel").hidden = !allowed || !S.counterOn || !S.view;
  if (!allowed || !S.counterOn || !S.view) return;
  const left = unseenCounts(S.view, decks());
  const table = h("table.counter-grid");
  const head = h("tr", h("th", ""), ...[...RANKS].reverse().map((r) => h("th", r)));
  table.append(head);
  for (const s of SUITS) {
    const row = h("tr", h("th.suit-sym" + (s === "H" || s === "D" ? ".red" : ""), SUIT_SYMBOL[s]));
    for (const r of [...RANKS].reverse()) {
      const n = left.get(r + s);
      row.append(h("td" + (n === 0 ? ".zero" : "") + (points(r + s) ? ".pts" : ""), { dataset: { card: r + s } }, String(n)));
    }
    table.append(row);
  }
  box.append(table);
  box.append(h("div.counter-jokers",
    h("span", { dataset: { card: "BJ" } }, t("big_joker"), " ", h("b", String(left.get("BJ")))),
    h("span", { dataset: { card: "LJ" } }, t("little_joker"), " ", h("b", String(left.get("LJ")))),
    h("span", t("points_out"), " ", h("b", String(unseenPoints(left))))));
}

function renderLog() {
  const box = clear($("log"));
  const lines = S.log.slice(-120);
  for (const e of lines) box.append(h("div.log-line.ev-" + e.type, describe(e)));
  box.scrollTop = box.scrollHeight;
}

function renderChat() {
  const box = clear($("chat-lines"));
  for (const m of S.chat.slice(-100)) {
    const who = m.seat != null ? `${seatRel(relPos(m.seat), S.seat != null)} ${m.from}` : `${m.from} (${t("spectator")})`;
    box.append(h("div.chat-line", h("b", who + ": "), m.text));
  }
  box.scrollTop = box.scrollHeight;
  $("chat-form").hidden = !account.user;
  $("chat-signin").hidden = !!account.user;
}

function showPanel(name) {
  S.panel = S.panel === name ? null : name;
  document.body.dataset.panel = S.panel || "";
  if (name === "chat") $("btn-chat").classList.remove("unread");
  if (name === "counter" && S.panel === "counter") { S.counterOn = true; localStorage.setItem("gunzi.counter", "on"); renderCounter(); }
}

// ------------------------------------------------------------------ modals

function openModal(id) { const d = $(id); if (!d.open) d.showModal(); }
function closeModal(id) { const d = $(id); if (d && d.open) d.close(); }

function openSummary() {
  const r = S.summary || (S.view && S.view.last_result);
  if (!r) return;
  const box = clear($("summary-body"));
  const ctx = { level: levelText(r.level), trump: r.trump, twos: isGunzi() };
  const att = r.attackers;
  const dteam = 1 - att;
  const row = (label, value, cls = "") => h("tr" + (cls ? "." + cls : ""), h("th", label), h("td", value));
  const levels = h("div.level-changes",
    [0, 1].map((team) => h("div.level-change" + (r.levels_after[team] !== r.levels_before[team] ? ".up" : ""),
      h("b", teamName(team)), " ",
      levelLabel(levelText(r.levels_before[team])), " → ", levelLabel(levelText(r.levels_after[team])))));
  const scores = h("div.hand-scores", (r.hand_scores || []).map((s, i) => h("span", `${seatLabel(i)} ${s > 0 ? "+" : ""}${s}`)));
  let outcome;
  if (r.attackers_take) outcome = t("outcome_take", { team: teamName(att), n: r.levels_awarded });
  else outcome = r.levels_awarded ? t("outcome_keep_up", { team: teamName(dteam), n: r.levels_awarded }) : t("outcome_keep", { team: teamName(dteam) });
  const table = h("table.summary-table",
    row(t("dealer"), `${seatLabel(r.dealer)} (${teamName(dteam)})`),
    row(t("trump"), `${r.trump ? SUIT_SYMBOL[r.trump] : t("no_trump_value")} · ${t("level")} ${levelText(r.level)}`),
    // A duplicate board's first play comes without its kitty until the board is done.
    row(t("kitty"), r.kitty === undefined ? h("span.note", t("kitty_sealed"))
      : h("div", cardRow(r.kitty, { size: "small", ctx }), h("span.note", t("kitty_points", { n: r.kitty_points })))),
    row(t("trick_points"), String(r.trick_points)),
    row(t("kou_di"), r.kou ? t("kou_yes", { team: teamName(att), mult: r.kitty_multiplier || 2 }) : t("kou_no", { team: teamName(dteam) }), r.kou ? "kou" : ""),
    row(t("score"), h("b.big-score", String(r.score))),
    r.dry_pot ? row(t("dry_pot"), t("yes")) : null,
    r.kitty_jokers && (r.kitty_jokers.BJ || r.kitty_jokers.LJ) ? row(t("kitty_jokers"), t("kitty_jokers_line", { bj: r.kitty_jokers.BJ, lj: r.kitty_jokers.LJ })) : null,
    row(t("result"), outcome, "outcome"),
    row(t("levels"), levels),
    r.blood_next != null ? row(t("blood"), t("blood_line", { n: r.blood_next })) : null,
    r.tribute && r.tribute.n ? row(t("tribute"), t("tribute_line", { n: r.tribute.n, from: seatLabel(r.tribute.from), to: seatLabel(r.tribute.to) })) : null,
    r.hand_scores ? row(t("hand_scores"), scores) : null,
    r.failed_throws && r.failed_throws.some((n) => n) ? row(t("failed_throws"), r.failed_throws.map((n, i) => `${seatLabel(i)} ${n}`).join(" · ")) : null,
    r.round_end ? row(t("round_end"), t("round_won", { team: teamName(r.round_winner) }) + ` (${t("why_" + r.round_end)})`, "outcome") : null,
    r.board ? row(t("board"), boardText(r)) : null);
  box.append(h("h2", t("summary_title", { n: r.hand })), table);
  box.append(h("p", h("a.button.small#btn-replay", { href: `/replay.html?t=${encodeURIComponent(S.tableId)}&hand=${r.hand}&trick=0`, target: "_blank", rel: "noopener" }, t("replay_link"))));
  $("summary").dataset.hand = r.hand;
  openModal("summary");
}

/** Net levels of a hand for a team: levels it gained minus levels the other team gained. */
function netLevels(r, team) {
  if (!r.levels_awarded) return 0;
  const up = r.attackers_take ? r.attackers : 1 - r.attackers;
  return up === team ? r.levels_awarded : -r.levels_awarded;
}

/** 复式: which board and play; after the second play, the board's two results side by side. */
function boardText(r) {
  const line = t("board_line", { board: r.board, play: r.play });
  const first = S.handResults[r.hand - 1];
  if (r.play !== 2 || !first) return line;
  const team = S.seat != null ? teamOf(S.seat) : 0;
  const sign = (n) => (n > 0 ? "+" : "") + n;
  const a = netLevels(first, team), b = netLevels(r, team);
  return line + " — " + t("board_compare", {
    first: `${teamName(team)} ${sign(a)}`, second: `${teamName(team)} ${sign(b)}`,
    team: teamName(team), net: sign((a + b) / 2) });
}

function openKitty() {
  const v = S.view;
  const k = v && v.kitty;
  if (!k) return;
  const box = clear($("last-body"));
  box.append(h("h2", t("kitty")));
  if (k.cards && k.cards.length) box.append(cardRow(k.cards, { size: "small", ctx: trumpCtx() }));
  else if (k.turned && k.turned.length) box.append(h("p", t("turned")), cardRow(k.turned, { size: "small", ctx: trumpCtx() }));
  openModal("last");
}

function openLastTrick() {
  const v = S.view;
  if (!v || !v.tricks || !v.tricks.length) return;
  const last = v.tricks[v.tricks.length - 1];
  const box = clear($("last-body"));
  box.append(h("h2", t("last_trick_title", { n: v.tricks.length })));
  const ctx = trumpCtx();
  last.plays.forEach((cards, i) => {
    const seat = (last.leader + i) % 4;
    box.append(h("div.last-play" + (seat === last.winner ? ".winner" : ""),
      h("span.who", seatLabel(seat) + (i === 0 ? ` (${t("lead_short")})` : "")),
      cardRow(cards, { size: "small", ctx }),
      seat === last.winner ? h("span.tag.win-tag", t("won_short")) : null));
  });
  box.append(h("p", t("trick_points_line", { n: last.points })));
  openModal("last");
}

// ------------------------------------------------------------------ start

function tick() {
  paintClocks();
  if (S.heldTrick && S.heldTrick.until < Date.now() && S.heldTrick.until > Date.now() - 1500) renderBoard();
}

async function resolveTable() {
  if (S.tableId) return S.tableId;
  const code = params.get("code");
  if (!code) return null;
  const r = await API.tableByCode(code);
  if (!r.ok) return null;
  const url = new URL(location.href);
  url.searchParams.delete("code");
  url.searchParams.set("t", r.data.id);
  history.replaceState(null, "", url);
  return r.data.id;
}

function wire() {
  $("btn-last").addEventListener("click", openLastTrick);
  $("btn-summary").addEventListener("click", openSummary);
  $("btn-counter").addEventListener("click", () => {
    if (window.matchMedia("(max-width: 900px)").matches) { showPanel("counter"); return; }
    S.counterOn = !S.counterOn;
    localStorage.setItem("gunzi.counter", S.counterOn ? "on" : "off");
    renderCounter();
  });
  $("btn-chat").addEventListener("click", () => showPanel("chat"));
  $("btn-log").addEventListener("click", () => showPanel("log"));
  $("btn-auto").addEventListener("click", () => {
    const on = !(S.info && S.info.seats[S.seat] && S.info.seats[S.seat].auto);
    S.sock.auto(on);
  });
  for (const b of document.querySelectorAll("[data-close]")) b.addEventListener("click", () => closeModal(b.dataset.close));
  for (const b of document.querySelectorAll("[data-panel-close]")) b.addEventListener("click", () => showPanel(null));
  $("chat-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const input = $("chat-input");
    const text = input.value.trim();
    if (!text) return;
    S.sock.chat(text);
    input.value = "";
  });
  $("chat-signin").addEventListener("click", () => ensureGuest());
  document.addEventListener("keydown", (e) => {
    if (e.target.closest("input, textarea, dialog")) return;
    if (e.key === "Enter") { const b = document.querySelector("#buttons button.primary:not([disabled])"); if (b) b.click(); }
    if (e.key === "h" || e.key === "H") { const b = $("btn-hint"); if (b) b.click(); }
  });
}

function connect() {
  if (S.sock) S.sock.close();
  const sock = new TableSocket(S.tableId, {
    watch: S.watch,
    onFrame: (f) => { if (sock === S.sock) onFrame(f); },
    onStatus: (state) => {
      if (sock !== S.sock) return;
      S.connection = state;
      renderTop();
      if (state === "gone") toast(t("disconnected"), "error");
      if (state === "closed") {
        // A refused handshake looks like any drop: ask the REST API whether the table exists.
        API.table(S.tableId).then((r) => {
          if (r.status === 404 && sock === S.sock) { sock.close(); toast(t("no_such_table"), "error"); }
        });
      }
    },
  });
  S.sock = sock;
  sock.connect();
}

async function main() {
  applyI18n(document);
  langSwitch($("btn-lang"), () => { renderAll(); renderChat(); if ($("summary").open) openSummary(); });
  wire();
  await loadMe();
  soundSwitch($("btn-sound"));
  // Signing in or out changes who the socket is: open a new one (the server binds the seat).
  accountBar($("account"), () => { if (S.sock) connect(); renderChat(); renderPrestart(); });
  const id = await resolveTable();
  if (!id) {
    $("status").textContent = t("no_such_table");
    $("actions").hidden = false;
    return;
  }
  S.tableId = id;
  $("link-rules").href = rulesHref();  // a room code became ?t=ID
  const r = await API.table(id);
  if (r.ok) S.info = r.data;
  connect();
  setInterval(tick, 500);
  renderAll();
  document.documentElement.lang = getLang() === "zh" ? "zh-CN" : "en";
  document.body.dataset.ready = "1";
}

main();
