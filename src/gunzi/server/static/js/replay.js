// The replay page: a finished hand trick by trick, all four hands shown, the hand's end,
// and the search bot's review of one seat. The URL (?t=&hand=&trick=) follows the step,
// so a link opens the same trick; a record file from the disk can be opened too.

import * as API from "./api.js";
import { t, getLang, applyI18n, playerName } from "./i18n.js";
import { h, clear, toast, loadMe, accountBar, langSwitch } from "./ui.js";
import { SUIT_SYMBOL, isTrump, cardElement, cardRow, cardsText, levelText } from "./cards.js";

const params = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);
const MAX_UPLOAD = 2_000_000;

const S = {
  tableId: params.get("t"),
  timeline: null, // {rules, game, seats, hands}
  hand: null, // the shown hand
  step: 0, // 0 = set-up, 1..N = after trick k
  review: null,
  reviewing: false,
};

const teamOf = (seat) => seat % 2;
const steps = () => (S.hand ? S.hand.tricks.length : 0);

function seatLabel(seat) {
  const names = (S.timeline && S.timeline.seats) || [];
  const name = names[seat];
  return `${t("compass_" + seat)}${name ? " " + playerName(name) : ""}`;
}

function teamLabel(team) { return t(team === 0 ? "team_ns" : "team_ew"); }

function ctx() {
  const hd = S.hand;
  const twos = S.timeline.game === "gunzi" || !!(S.timeline.rules || {}).permanent_twos;
  return { level: hd ? hd.level_text : "2", trump: hd ? hd.trump : null, twos };
}

// ------------------------------------------------------------------ loading

async function loadTable(id) {
  const r = await API.api(`/api/tables/${encodeURIComponent(id)}/timeline`);
  if (!r.ok) { showError(r.error); return; }
  const dl = $("rp-download");
  dl.href = `/api/tables/${encodeURIComponent(id)}/record`;
  dl.setAttribute("download", `gunzi-${id}.jsonl`);
  dl.hidden = false;
  $("rp-source").textContent = id;
  show(r.data, Number(params.get("hand")) || null, params.has("trick") ? Number(params.get("trick")) : null);
}

async function openFile(file) {
  if (!file) return;
  if (file.size > MAX_UPLOAD) { showError(t("record_too_big")); return; }
  const text = await file.text();
  let r;
  try {
    const resp = await fetch("/api/timeline", { method: "POST", body: text, credentials: "same-origin", headers: { "Content-Type": "application/x-ndjson", Accept: "application/json" } });
    const data = await resp.json().catch(() => null);
    r = { ok: resp.ok, data, error: resp.ok ? null : API.errorText(data, resp.status) };
  } catch (exc) {
    r = { ok: false, error: String(exc.message || exc) };
  }
  if (!r.ok) { showError(t("bad_record_file", { why: r.error })); return; }
  S.tableId = null;
  $("rp-download").hidden = true;
  $("rp-source").textContent = file.name;
  toast(t("record_loaded", { n: r.data.hands.length }));
  show(r.data, null, 0);
}

function showError(text) {
  $("rp-error").textContent = text;
  if (text) toast(text, "error");
}

function show(tl, handNo, trick) {
  showError("");
  S.timeline = tl;
  const sel = clear($("rp-hand"));
  for (const hd of tl.hands) sel.append(h("option", { value: hd.hand }, t("hand_no_short", { n: hd.hand })));
  labelHands();
  if (!tl.hands.length) {
    S.hand = null;
    showError(t("no_finished_hands"));
    render();
    return;
  }
  const hd = tl.hands.find((x) => x.hand === handNo) || tl.hands[0];
  selectHand(hd.hand, trick == null ? 0 : trick);
}

/** The hand selector's options in the current language (re-run on a language switch). */
function labelHands() {
  for (const o of $("rp-hand").options) o.textContent = t("hand_no_short", { n: o.value });
}

function selectHand(no, step) {
  S.hand = S.timeline.hands.find((x) => x.hand === Number(no));
  $("rp-hand").value = String(S.hand.hand);
  S.review = null;
  S.step = Math.max(0, Math.min(steps(), Number(step) || 0));
  render();
}

function go(step) {
  if (!S.hand) return;
  S.step = Math.max(0, Math.min(steps(), step));
  render();
}

function syncUrl() {
  const url = new URL(location.href);
  if (S.tableId) url.searchParams.set("t", S.tableId); else url.searchParams.delete("t");
  if (S.hand) {
    url.searchParams.set("hand", S.hand.hand);
    url.searchParams.set("trick", S.step);
  }
  history.replaceState(null, "", url);
}

// ------------------------------------------------------------------ drawing

function render() {
  syncUrl();
  const has = !!S.hand;
  for (const id of ["rp-first", "rp-prev"]) $(id).disabled = !has || S.step <= 0;
  for (const id of ["rp-next", "rp-last"]) $(id).disabled = !has || S.step >= steps();
  $("rp-step").textContent = has ? (S.step === 0 ? t("setup") : t("trick_of", { n: S.step, total: steps() })) : "";
  renderInfo();
  renderTrick();
  renderHands();
  renderEnd();
  renderReview();
  document.body.dataset.step = String(S.step);
}

function renderInfo() {
  const box = clear($("rp-info"));
  const hd = S.hand;
  if (!hd) return;
  const chip = (label, value) => h("span.chip", h("b", label), " ", value);
  const trick = S.step > 0 ? hd.tricks[S.step - 1] : null;
  const run = trick ? trick.running : [0, 0];
  box.append(
    chip(t("dealer"), `${seatLabel(hd.dealer)}`),
    chip(t("trump"), hd.trump ? SUIT_SYMBOL[hd.trump] : t("no_trump_value")), // a played hand without a suit is 无主 [I-30]
    chip(t("level"), hd.level_text),
    chip(t("attackers"), teamLabel(hd.attackers)),
    chip(t("attackers_points"), String(run[hd.attackers])));
  const kitty = h("div.rp-kitty", h("b", t("kitty")), cardRow(hd.kitty, { size: "tiny", ctx: ctx() }));
  box.append(kitty);
}

function renderTrick() {
  const hd = S.hand;
  const box = clear($("rp-trick"));
  const title = $("rp-trick-title");
  if (!hd) { title.textContent = ""; return; }
  if (S.step === 0) {
    title.textContent = t("setup");
    box.append(setupView(hd));
    return;
  }
  const tr = hd.tricks[S.step - 1];
  title.textContent = t("trick_title", { n: tr.n, who: seatLabel(tr.winner), points: tr.points });
  const lead = tr.plays[0];
  if (lead && lead.attempted) {
    // A failed throw: what was tried, who stopped it with which cards, what was played.
    box.append(h("div.throw-banner.rp-throw", { role: "note" },
      h("span", t("throw_failed", { who: seatLabel(lead.seat), cards: cardsText(lead.attempted), blocker: seatLabel(lead.blocker), beats: cardsText(lead.beats || []) })),
      h("span.forced", t("throw_forced", { cards: cardsText(lead.cards) }))));
  }
  for (const [i, p] of tr.plays.entries()) {
    box.append(h("div.rp-play" + (p.seat === tr.winner ? ".winner" : ""), { dataset: { seat: p.seat } },
      h("span.who", seatLabel(p.seat)),
      cardRow(p.cards, { size: "small", ctx: ctx() }),
      i === 0 ? h("span.tag.lead-tag", t("lead_short")) : null,
      p.seat === tr.winner ? h("span.tag.win-tag", t("won_short")) : null,
      p.attempted ? h("span.note", t("failed_throw_of", { cards: cardsText(p.attempted) })) : null));
  }
  box.append(h("p.note", t("running_points", { a: teamLabel(0), pa: tr.running[0], b: teamLabel(1), pb: tr.running[1] })));
}

function setupView(hd) {
  const c = ctx();
  const out = h("div.rp-setup");
  for (const d of hd.declarations) out.append(h("p", t("declared_line", { who: seatLabel(d.seat), cards: cardsText(d.cards) })));
  if (hd.tribute) out.append(h("p", t("tribute_given", { who: seatLabel(hd.tribute.seat), to: seatLabel(hd.tribute.to), cards: cardsText(hd.tribute.cards) })));
  if (hd.return) out.append(h("p", t("tribute_returned", { who: seatLabel(hd.return.seat), to: seatLabel(hd.return.to), cards: cardsText(hd.return.cards) })));
  out.append(h("div.rp-kitty", h("b", t("kitty_dealt")), cardRow(hd.kitty_dealt, { size: "tiny", ctx: c })));
  if (hd.buried.length) out.append(h("div.rp-kitty", h("b", t("buried")), cardRow(hd.buried, { size: "tiny", ctx: c })));
  for (const b of hd.bury_jokers) if (b.cards.length) out.append(h("p", t("jokers_buried", { who: seatLabel(b.seat), cards: cardsText(b.cards), take: cardsText(b.take) })));
  out.append(h("h4", t("dealt_hands")));
  for (let s = 0; s < 4; s++) out.append(h("div.rp-seat", h("span.who", seatLabel(s)), wrapRow(hd.dealt[s], null)));
  return out;
}

function wrapRow(names, played) {
  const row = h("div.rp-cards");
  const left = new Map(played || []);
  const c = ctx();
  for (const name of names) {
    const e = cardElement(name, { size: "tiny", trump: isTrump(name, c) });
    const k = left.get(name) || 0;
    if (k > 0) { e.classList.add("played"); left.set(name, k - 1); }
    row.append(e);
  }
  return row;
}

function renderHands() {
  const box = clear($("rp-hands"));
  const hd = S.hand;
  if (!hd) return;
  const played = [new Map(), new Map(), new Map(), new Map()];
  for (const tr of hd.tricks.slice(0, S.step)) {
    for (const p of tr.plays) for (const c of p.cards) played[p.seat].set(c, (played[p.seat].get(c) || 0) + 1);
  }
  for (let s = 0; s < 4; s++) {
    const left = hd.start[s].length - [...played[s].values()].reduce((a, b) => a + b, 0);
    box.append(h("div.rp-seat" + (s === hd.dealer ? ".dealer" : ""), { dataset: { seat: s } },
      h("div.rp-seat-head", h("span.who", seatLabel(s)), s === hd.dealer ? h("span.badge.dealer-badge", t("dealer_short")) : null,
        h("span.note", t("cards_left", { n: left }))),
      wrapRow(hd.start[s], played[s])));
  }
}

function renderEnd() {
  const box = clear($("rp-end"));
  const hd = S.hand;
  box.hidden = !hd || S.step < steps();
  if (box.hidden) return;
  const r = hd.end;
  const mult = r.kitty_multiplier || 2;
  const lv = (x) => (x >= 13 ? t("passed") : levelText(x));
  const parts = [
    h("h3", t("summary_title", { n: r.hand })),
    h("div.rp-kitty", h("b", t("kitty")), cardRow(r.kitty || [], { size: "small", ctx: ctx() }), h("span.note", t("kitty_points", { n: r.kitty_points }))),
    h("p", r.kou ? t("kou_yes", { team: teamLabel(r.attackers), mult }) : t("kou_no", { team: teamLabel(1 - r.attackers) })),
    h("p", h("b", t("score")), " ", String(r.score)),
    h("p", [0, 1].map((team) => `${teamLabel(team)} ${lv(r.levels_before[team])} → ${lv(r.levels_after[team])}`).join(" · ")),
    r.hand_scores ? h("p", h("b", t("hand_scores")), " ", r.hand_scores.map((s, i) => `${seatLabel(i)} ${s > 0 ? "+" : ""}${s}`).join(" · ")) : null];
  box.append(...parts.filter(Boolean));
}

// ------------------------------------------------------------------ review

function renderReview() {
  const panel = $("rp-review");
  panel.hidden = !S.tableId || !S.hand;
  if (panel.hidden) return;
  const sel = $("rp-review-seat");
  if (!sel.options.length) for (let s = 0; s < 4; s++) sel.append(h("option", { value: s }, seatLabel(s)));
  else for (let s = 0; s < 4; s++) sel.options[s].textContent = seatLabel(s);
  $("rp-review-run").disabled = S.reviewing;
  const body = clear($("rp-review-body"));
  if (S.reviewing) { body.append(h("p.note", t("reviewing"))); return; }
  const rv = S.review;
  if (!rv || rv.hand !== S.hand.hand) return;
  const list = h("ul.rp-callouts");
  for (const c of rv.callouts) {
    const li = h("li.callout." + c.kind, c.text);
    if (c.trick) li.append(" ", h("button.small.link", { on: { click: () => go(c.trick) } }, t("go_trick", { n: c.trick })));
    list.append(li);
  }
  if (!rv.callouts.length) list.append(h("li", t("review_clean")));
  body.append(h("h4", t("callouts")), list);
  const table = h("table.rp-decisions", h("tr", h("th", t("trick")), h("th", t("chosen")), h("th", t("best_option")), h("th", t("loss"))));
  for (const d of rv.decisions) {
    if (d.kind !== "play") { table.append(h("tr", h("td", "—"), h("td", { colspan: 3 }, d.text))); continue; }
    const current = d.trick === S.step;
    table.append(h("tr" + (current ? ".current" : "") + (d.rated && d.loss >= rv.budget.min_loss ? ".lossy" : ""),
      h("td", h("button.small.link", { on: { click: () => go(d.trick) } }, String(d.trick))),
      h("td", cardsText(d.chosen)),
      h("td", d.rated ? cardsText(d.best) : "—"),
      h("td", d.rated ? d.loss.toFixed(2) : (d.forced ? t("forced") : "—"))));
  }
  body.append(h("h4", t("decisions")), table);
}

async function runReview() {
  if (!S.tableId || !S.hand || S.reviewing) return;
  S.reviewing = true;
  renderReview();
  const seat = $("rp-review-seat").value;
  const r = await API.api(`/api/tables/${encodeURIComponent(S.tableId)}/review?hand=${S.hand.hand}&seat=${seat}&lang=${getLang()}`);
  S.reviewing = false;
  if (!r.ok) {
    toast(r.status === 401 ? t("review_sign_in") : r.error, "error");
    renderReview();
    return;
  }
  S.review = r.data;
  renderReview();
}

// ------------------------------------------------------------------ start

function wire() {
  $("rp-first").addEventListener("click", () => go(0));
  $("rp-prev").addEventListener("click", () => go(S.step - 1));
  $("rp-next").addEventListener("click", () => go(S.step + 1));
  $("rp-last").addEventListener("click", () => go(steps()));
  $("rp-hand").addEventListener("change", (e) => selectHand(e.target.value, 0));
  $("rp-file").addEventListener("change", (e) => { openFile(e.target.files[0]); e.target.value = ""; });
  $("rp-review-run").addEventListener("click", runReview);
  document.addEventListener("keydown", (e) => {
    if (e.target.closest("input, select, textarea, dialog")) return;
    if (e.key === "ArrowRight") go(S.step + 1);
    else if (e.key === "ArrowLeft") go(S.step - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(steps());
  });
}

async function main() {
  applyI18n(document);
  langSwitch($("btn-lang"), () => { S.review = null; labelHands(); render(); });
  wire();
  await loadMe();
  accountBar($("account"));
  if (S.tableId) await loadTable(S.tableId);
  else { showError(t("replay_pick_file")); render(); }
  document.documentElement.lang = getLang() === "zh" ? "zh-CN" : "en";
  document.body.dataset.ready = "1";
}

main();
