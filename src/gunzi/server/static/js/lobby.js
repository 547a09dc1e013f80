// The lobby: quick play, join by room code, create a table (preset, options, public or
// private; a 步步为营 preset makes a board table), and the list of public tables of both
// kinds (sit or watch: card tables open table.html, board tables board.html).

import * as API from "./api.js";
import { t, applyI18n, getLang, tableName, botLabel } from "./i18n.js";
import { h, clear, toast, account, loadMe, ensureGuest, accountBar, langSwitch } from "./ui.js";

const $ = (id) => document.getElementById(id);
let RULES = null;
let BOARD_RULES = null; // /api/board/rules: the 步步为营 presets and options
const isBoard = (preset) => preset.startsWith("quoridor");

function tableUrl(id, watch = false, board = false) {
  return `/${board ? "board" : "table"}.html?t=${encodeURIComponent(id)}${watch ? "&watch=1" : ""}`;
}

async function quickPlay() {
  const btn = $("btn-quick");
  btn.disabled = true;
  try {
    if (!(await ensureGuest())) return;
    const preset = $("quick-preset").value;
    const r = await API.quickplay({ preset, bot: $("quick-bot").value });
    if (!r.ok) { toast(r.error, "error"); return; }
    location.href = tableUrl(r.data.id);
  } finally {
    btn.disabled = false;
  }
}

async function joinCode(e) {
  e.preventDefault();
  const code = $("code-input").value.trim();
  if (!code) return;
  const r = await API.tableByCode(code);
  if (!r.ok) { toast(t("no_table_with_code"), "error"); return; }
  location.href = tableUrl(r.data.id, false, r.data.game === "quoridor");
}

function presetOptions(select, selected = "gunzi") {
  clear(select);
  const names = RULES ? Object.keys(RULES.presets) : ["gunzi", "classic-1", "classic-2", "classic-3"];
  for (const name of names) select.append(h("option", { value: name, selected: name === selected }, t("preset_" + name)));
}

/** Quick play's bots (the hall's /api/rules list), each said as what it is for the chosen
 *  preset: the learned bot at a classic table was trained on 打滚子 only. */
function quickBots(selected = "rule") {
  const select = clear($("quick-bot"));
  const untrained = RULES && RULES.bots_untrained ? RULES.bots_untrained[$("quick-preset").value] : null;
  for (const name of (RULES && RULES.bots) || ["rule"]) {
    select.append(h("option", { value: name, selected: name === selected }, botLabel(name, untrained)));
  }
}

/** The create form's rules list: the card presets, then the board ones. */
function createPresets(select, selected = "gunzi") {
  presetOptions(select, selected);
  for (const name of Object.keys(BOARD_RULES ? BOARD_RULES.presets : {})) {
    select.append(h("option", { value: name, selected: name === selected }, t("preset_" + name)));
  }
}

function renderOptions() {
  const box = clear($("rule-options"));
  const preset = $("create-preset").value;
  const board = isBoard(preset);
  for (const id of ["create-clock", "create-hands", "create-duplicate", "create-counter"]) {
    $(id).closest("label").hidden = board; // card-only fields
  }
  const rules = board ? BOARD_RULES : RULES;
  if (!rules) return;
  const defaults = rules.presets[preset] || {};
  const valid = (rules.valid && rules.valid[preset]) || {};
  for (const [key, opt] of Object.entries(rules.options)) {
    if (key === "game" || key === "decks" || key === "duplicate" || key === "players") continue; // own fields
    const values = valid[key] || opt.values; // only what this preset allows
    if (values.length < 2) continue; // nothing to choose (e.g. a classic table has no tribute)
    const sel = h("select", { name: key, dataset: { option: key } });
    for (const v of values) {
      const text = String(v);
      sel.append(h("option", { value: JSON.stringify(v), selected: v === defaults[key] }, text + (v === defaults[key] ? " ✓" : "")));
    }
    box.append(h("label.option", { title: opt.doc || "" },
      h("span.opt-name", key + (opt.clause ? ` [${opt.clause}]` : "")), sel,
      opt.doc ? h("small.opt-doc", opt.doc) : null));
  }
}

async function createTable(e) {
  e.preventDefault();
  if (!(await ensureGuest())) return;
  const preset = $("create-preset").value;
  const rules = isBoard(preset) ? BOARD_RULES : RULES;
  const defaults = (rules && rules.presets[preset]) || {};
  const options = {};
  for (const sel of document.querySelectorAll("#rule-options select")) {
    const v = JSON.parse(sel.value);
    if (v !== defaults[sel.dataset.option]) options[sel.dataset.option] = v;
  }
  if (isBoard(preset)) { createBoard({ preset, options, public: $("create-public").checked }); return; }
  const body = {
    preset,
    options,
    public: $("create-public").checked,
    clock: Number($("create-clock").value),
    max_hands: Number($("create-hands").value) || 0,
  };
  if (!$("create-counter").checked) body.counter = false; // a table without 记牌器
  const boards = Number($("create-duplicate").value);
  if (boards > 0) options.duplicate = boards; // 复式: each deal twice, teams swapped
  const name = $("create-name").value.trim();
  if (name) body.name = name;
  if ($("create-sit").checked) body.seat = 0;
  const r = await API.createTable(body);
  if (!r.ok) { $("create-error").textContent = r.error; return; }
  location.href = tableUrl(r.data.id);
}

async function createBoard(body) {
  const name = $("create-name").value.trim();
  if (name) body.name = name;
  if ($("create-sit").checked) body.seat = 0;
  const r = await API.api("/api/board/tables", { method: "POST", body });
  if (!r.ok) { $("create-error").textContent = r.error; return; }
  location.href = tableUrl(r.data.id, false, true);
}

function seatsText(info) {
  return info.seats.map((s) => (s.kind === "empty" ? "○" : s.kind === "bot" ? "◆" : "●")).join("");
}

async function refreshTables() {
  const [r, b] = await Promise.all([API.tables(), API.api("/api/board/tables")]);
  const box = clear($("tables"));
  if (!r.ok) { box.append(h("li.note", r.error)); return; }
  const list = [...(r.data.tables || []), ...(b.ok ? b.data.tables || [] : [])];
  list.sort((x, y) => x.created_at - y.created_at);
  if (!list.length) { box.append(h("li.note.empty", t("no_public_tables"))); return; }
  for (const info of list) {
    const free = info.seats.filter((s) => s.kind === "empty").length;
    const board = info.game === "quoridor";
    box.append(h("li.table-item", { dataset: { id: info.id, game: board ? "quoridor" : "cards" } },
      h("div.t-main",
        h("b.t-name", tableName(info)),
        h("span.chip", t("preset_" + info.preset)),
        h("span.chip." + info.status, t("status_" + info.status)),
        info.status === "playing" && info.hand_no ? h("span.note", t("hand_no_short", { n: info.hand_no })) : null),
      h("div.t-seats", { title: t("seats_title") }, seatsText(info), " ",
        h("span.note", info.spectators ? t("n_watching", { n: info.spectators }) : "")),
      h("div.t-actions",
        info.status === "open" && free ? h("a.button.small.primary", { href: tableUrl(info.id, false, board) }, t("join")) : null,
        h("a.button.small", { href: tableUrl(info.id, true, board) }, t("watch")))));
  }
}

async function main() {
  applyI18n(document);
  document.documentElement.lang = getLang() === "zh" ? "zh-CN" : "en";
  await loadMe();
  accountBar($("account"));
  const [r, b] = await Promise.all([API.rules(), API.api("/api/board/rules")]);
  if (r.ok) RULES = r.data;
  if (b.ok) BOARD_RULES = b.data;
  presetOptions($("quick-preset"));
  quickBots();
  createPresets($("create-preset"));
  renderOptions();
  langSwitch($("btn-lang"), () => {
    const q = $("quick-preset").value;
    const c = $("create-preset").value;
    presetOptions($("quick-preset"), q);
    quickBots($("quick-bot").value);
    createPresets($("create-preset"), c);
    refreshTables();
    document.documentElement.lang = getLang() === "zh" ? "zh-CN" : "en";
  });
  $("create-preset").addEventListener("change", renderOptions);
  $("quick-preset").addEventListener("change", () => quickBots($("quick-bot").value));
  $("btn-quick").addEventListener("click", quickPlay);
  $("code-form").addEventListener("submit", joinCode);
  $("create-form").addEventListener("submit", createTable);
  $("create-public").addEventListener("change", () => {
    $("private-note").hidden = $("create-public").checked;
  });
  $("btn-refresh").addEventListener("click", refreshTables);
  refreshTables();
  setInterval(() => { if (!document.hidden) refreshTables(); }, 5000);
  account.listeners.push(() => refreshTables());
  document.body.dataset.ready = "1";
}

main();
