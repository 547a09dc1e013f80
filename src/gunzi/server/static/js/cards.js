// Cards as the engine writes them ("10H", "AS", "BJ", "LJ"): parsing, trump grouping,
// the 记牌器 counts, and drawing (CSS boxes: big rank, suit symbol, red/black, 大王/小王).

import { t } from "./i18n.js";

export const SUITS = ["S", "H", "C", "D"];
export const SUIT_SYMBOL = { S: "♠", H: "♥", C: "♣", D: "♦" };
export const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];

/** {name, rank, suit, joker}; rank is the text ("10"), suit a letter, joker "BJ"/"LJ"/null. */
export function parse(name) {
  if (name === "BJ" || name === "LJ") return { name, rank: null, suit: null, joker: name };
  return { name, rank: name.slice(0, -1), suit: name.slice(-1), joker: null };
}

export function isRed(name) {
  const c = parse(name);
  if (c.joker) return c.joker === "BJ";
  return c.suit === "H" || c.suit === "D";
}

export function points(name) {
  const r = parse(name).rank;
  if (r === "5") return 5;
  if (r === "10" || r === "K") return 10;
  return 0;
}

/** Level rank index (0 = "2") of a level given as text ("3", "10", "passed"). */
export function rankIndex(text) {
  const i = RANKS.indexOf(String(text));
  return i;
}

/** Level text for an engine level index (13 = passed A / passed 10). */
export function levelText(index) {
  return index >= 13 ? "passed" : RANKS[index] ?? String(index);
}

/**
 * Whether a card is a trump (主): jokers, permanent 2s (打滚子), level cards, trump suit.
 * ctx = {level: "3", trump: "H" | null, twos: true}
 */
export function isTrump(name, ctx) {
  const c = parse(name);
  if (c.joker) return true;
  if (ctx.twos && c.rank === "2") return true;
  if (c.rank === ctx.level) return true;
  return ctx.trump != null && c.suit === ctx.trump;
}

/**
 * Split a hand (already sorted by the server: trumps first, then suits) into groups:
 * [{key: "T" | "S" | ..., cards: [name, ...]}], trumps first, suits in the server's order.
 */
export function groupHand(hand, ctx) {
  const groups = new Map();
  groups.set("T", []);
  for (const name of hand) {
    const key = isTrump(name, ctx) ? "T" : parse(name).suit;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(name);
  }
  const out = [];
  for (const [key, cards] of groups) if (cards.length) out.push({ key, cards });
  return out;
}

/** Count of every card name in a list. */
export function countOf(list) {
  const out = new Map();
  for (const name of list) out.set(name, (out.get(name) || 0) + 1);
  return out;
}

/**
 * 记牌器: how many copies of each card this seat has not seen yet.
 * Seen = own hand + every card played (finished tricks and the current one) + the kitty
 * when this seat knows it (shown, or buried by this seat).
 */
export function unseenCounts(view, decks) {
  const left = new Map();
  for (const s of SUITS) for (const r of RANKS) left.set(r + s, decks);
  left.set("LJ", decks);
  left.set("BJ", decks);
  const take = (name) => left.set(name, Math.max(0, (left.get(name) || 0) - 1));
  for (const name of view.hand || []) take(name);
  for (const t of view.tricks || []) for (const play of t.plays) for (const name of play) take(name);
  for (const p of (view.trick && view.trick.plays) || []) for (const name of p.cards) take(name);
  const kitty = view.kitty || {};
  // During the bury the kitty's cards are in the dealer's hand (already counted there).
  if (kitty.cards && kitty.size > 0 && view.phase !== "bury") for (const name of kitty.cards) take(name);
  return left;
}

/** Points still out (not yet taken in tricks) among cards this seat has not seen. */
export function unseenPoints(left) {
  let n = 0;
  for (const [name, k] of left) n += points(name) * k;
  return n;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  return e;
}

/**
 * A card element. opts: {size: "hand" | "small" | "tiny", trump: bool, selectable: bool}
 * The corner (rank over suit) stays visible when cards overlap.
 */
export function cardElement(name, opts = {}) {
  const c = parse(name);
  const red = isRed(name);
  const e = el("div", "card " + (red ? "red" : "black"));
  if (opts.size) e.classList.add(opts.size);
  if (opts.trump) e.classList.add("trump");
  e.dataset.card = name;
  if (c.joker) {
    e.classList.add("joker", c.joker === "BJ" ? "big-joker" : "little-joker");
    const corner = el("div", "corner");
    corner.appendChild(el("span", "rank joker-text", c.joker === "BJ" ? "大王" : "小王"));
    e.appendChild(corner);
    e.appendChild(el("div", "pip joker-pip", c.joker === "BJ" ? "★" : "☆"));
    e.setAttribute("aria-label", c.joker === "BJ" ? "大王 big joker" : "小王 little joker");
  } else {
    const corner = el("div", "corner");
    corner.appendChild(el("span", "rank" + (c.rank === "10" ? " ten" : ""), c.rank));
    corner.appendChild(el("span", "suit", SUIT_SYMBOL[c.suit]));
    e.appendChild(corner);
    e.appendChild(el("div", "pip", SUIT_SYMBOL[c.suit]));
    e.setAttribute("aria-label", c.rank + SUIT_SYMBOL[c.suit]);
  }
  if (points(name)) e.classList.add("point");
  return e;
}

/** A row of small cards (tricks, kitty, summaries). */
export function cardRow(names, opts = {}) {
  const row = el("div", "card-row " + (opts.size || "small"));
  row.style.setProperty("--n", String(names.length)); // a phone's trick fits long plays by it
  for (const name of names) row.appendChild(cardElement(name, { size: opts.size || "small", trump: opts.ctx ? isTrump(name, opts.ctx) : false }));
  return row;
}

/** Short text of cards, e.g. "K♥ K♥" or "大王": rank first, as on the card's corner and in
 * the server's refusal texts (gunzi.wording.names), so one notation reads everywhere. */
export function cardsText(names) {
  return names.map((n) => {
    const c = parse(n);
    if (c.joker) return t(c.joker === "BJ" ? "bj_short" : "lj_short");
    return c.rank + SUIT_SYMBOL[c.suit];
  }).join(" ");
}
