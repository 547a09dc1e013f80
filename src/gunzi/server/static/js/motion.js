// Card motion: decoration only. The DOM is always drawn in its final state first; these
// helpers then play a transform/opacity animation (Web Animations API) from where a card
// came from, or fly a throw-away copy ("ghost", aria-hidden, no pointer events) to where
// cards went. Nothing waits for an animation, so tests and players see the state at once.
// `prefers-reduced-motion: reduce` turns all of it off. Timings follow the table-feel notes:
// 220 ms cubic in-out for a play, 350 ms for a trick sweeping to its winner, a 30 ms deal
// stagger capped at 1.5 s.

const EASE = "cubic-bezier(.65,0,.35,1)";
const PLAY_MS = 220;
const SWEEP_MS = 350;
const DEAL_MS = 260;
const STAGGER_MS = 30;
const STAGGER_CAP_MS = 1500;

const reduce = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;

export function motionOn() { return !(reduce && reduce.matches) && typeof Element.prototype.animate === "function"; }

function center(r) { return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; }

/** Card name -> list of on-screen rectangles of the cards under root (before a re-render). */
export function cardRects(root) {
  const out = new Map();
  if (!root) return out;
  for (const el of root.querySelectorAll(".card[data-card]")) {
    const list = out.get(el.dataset.card) || [];
    list.push(el.getBoundingClientRect());
    out.set(el.dataset.card, list);
  }
  return out;
}

/**
 * Slide each card element from a source to where it now is. from: a Map of card name ->
 * rectangles (cards that left a hand; each rectangle is used once) or one Element / DOMRect
 * for all of them (a seat badge: cards grow from 0.6 to full size).
 */
export function slideIn(cards, from, { ms = PLAY_MS, stagger = 0 } = {}) {
  if (!motionOn() || !from) return;
  const pool = from instanceof Map ? new Map([...from].map(([k, v]) => [k, [...v]])) : null;
  const fixed = pool ? null : from instanceof Element ? from.getBoundingClientRect() : from;
  let i = 0;
  for (const el of cards) {
    const src = pool ? (pool.get(el.dataset.card) || []).shift() : fixed;
    if (!src) continue;
    const to = el.getBoundingClientRect();
    const a = center(src), b = center(to);
    const scale = pool ? Math.max(0.4, Math.min(2, src.width / (to.width || 1))) : 0.6;
    const delay = Math.min(i * stagger, STAGGER_CAP_MS);
    el.animate([
      { transform: `translate(${a.x - b.x}px, ${a.y - b.y}px) scale(${scale})`, opacity: pool ? 1 : 0.3 },
      { transform: "none", opacity: 1 },
    ], { duration: ms, easing: EASE, delay, fill: "backwards" });
    i++;
  }
}

/** Dealing: new hand cards fly in from the middle of the board, one after another. */
export function dealIn(cards, fromEl) {
  slideIn(cards, fromEl, { ms: DEAL_MS, stagger: STAGGER_MS });
}

let layer = null;
function ghostLayer() {
  if (!layer || !layer.isConnected) {
    layer = document.createElement("div");
    layer.className = "motion-layer";
    layer.setAttribute("aria-hidden", "true");
    document.body.appendChild(layer);
  }
  return layer;
}

/** Sweep copies of cards (already gone from the DOM's state) to a target, e.g. the winner. */
export function sweepTo(rects, target, { ms = SWEEP_MS } = {}) {
  if (!motionOn() || !target || !rects.length) return;
  const dest = center(target.getBoundingClientRect());
  const box = ghostLayer();
  for (const { rect, node } of rects) {
    const g = node.cloneNode(true);
    g.removeAttribute("id");
    g.classList.add("ghost");
    Object.assign(g.style, { left: `${rect.left}px`, top: `${rect.top}px`, width: `${rect.width}px`, height: `${rect.height}px` });
    box.appendChild(g);
    const c = center(rect);
    const anim = g.animate([
      { transform: "none", opacity: 1 },
      { transform: `translate(${dest.x - c.x}px, ${dest.y - c.y}px) scale(.45)`, opacity: 0 },
    ], { duration: ms, easing: EASE, fill: "forwards" });
    anim.onfinish = () => g.remove();
    anim.oncancel = () => g.remove();
  }
}

/** The rectangles and nodes of cards under root, for sweepTo once they are re-rendered. */
export function snapshotCards(root) {
  return [...root.querySelectorAll(".card")].map((node) => ({ rect: node.getBoundingClientRect(), node }));
}
