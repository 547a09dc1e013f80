// The leaderboard: one 积分 ladder per game (打滚子, 升级, 步步为营), people by default and the
// bots' own ladder apart, titles, ratings, paging.

import { api } from "./api.js";
import { t, applyI18n, getLang, botName, titleTip } from "./i18n.js";
import { h, clear, toast, account, loadMe, accountBar, langSwitch } from "./ui.js";

const $ = (id) => document.getElementById(id);
const PAGE = 50;
const GAMES = ["gunzi", "classic", "quoridor"];
const KINDS = ["people", "bots"];
const S = { game: "gunzi", kind: "people", offset: 0, data: null };

function playerUrl(id) { return "/player.html?p=" + encodeURIComponent(id); }

function render() {
  for (const g of GAMES) {
    $("game-" + g).classList.toggle("on", g === S.game);
    $("game-" + g).setAttribute("aria-selected", String(g === S.game));
  }
  for (const k of KINDS) {
    $("kind-" + k).classList.toggle("on", k === S.kind);
    $("kind-" + k).setAttribute("aria-selected", String(k === S.kind));
  }
  const body = clear($("ladder-rows"));
  const d = S.data;
  if (!d) return;
  if (!d.players.length) {
    body.append(h("tr", h("td.note.empty", { colspan: 6 }, t("ladder_empty"))));
  }
  for (const p of d.players) {
    const who = p.player.kind === "bot" ? botName(p.player.name) : p.player.name;
    body.append(h("tr", { dataset: { player: p.player.id } },
      h("td.rank", String(p.rank)),
      h("td", h("a.player-link", { href: playerUrl(p.player.id) }, who)),
      h("td", h("span.ladder-title", { title: titleTip(p.title, p.total), lang: "zh-CN" }, p.title)),
      h("td.num", String(p.total)),
      h("td.num", { title: `μ ${p.rating.mu} σ ${p.rating.sigma}` }, p.rating.ordinal.toFixed(1)),
      h("td.num", String(p.games))));
  }
  const last = Math.min(d.offset + d.players.length, d.count);
  $("page-info").textContent = d.count ? `${d.offset + 1}–${last} / ${d.count}` : "";
  $("btn-prev").disabled = d.offset === 0;
  $("btn-next").disabled = last >= d.count;
}

async function load() {
  const r = await api(`/api/ladder?game=${S.game}&kind=${S.kind}&limit=${PAGE}&offset=${S.offset}`);
  if (!r.ok) { toast(r.error, "error"); return; }
  S.data = r.data;
  render();
  document.body.dataset.ready = "1";
}

function choose(game, kind) {
  S.game = game;
  S.kind = kind;
  S.offset = 0;
  history.replaceState(null, "", `?game=${game}${kind === "bots" ? "&kind=bots" : ""}`);
  load();
}

function showMe() {
  const link = $("link-me");
  link.hidden = !account.user;
  if (account.user) link.href = playerUrl(account.user.id);
}

async function main() {
  applyI18n(document);
  document.documentElement.lang = getLang() === "zh" ? "zh-CN" : "en";
  const params = new URLSearchParams(location.search);
  if (GAMES.includes(params.get("game"))) S.game = params.get("game");
  if (KINDS.includes(params.get("kind"))) S.kind = params.get("kind");
  await loadMe();
  accountBar($("account"), showMe);
  showMe();
  langSwitch($("btn-lang"), render);
  for (const g of GAMES) $("game-" + g).addEventListener("click", () => choose(g, S.kind));
  for (const k of KINDS) $("kind-" + k).addEventListener("click", () => choose(S.game, k));
  $("btn-prev").addEventListener("click", () => { S.offset = Math.max(0, S.offset - PAGE); load(); });
  $("btn-next").addEventListener("click", () => { S.offset += PAGE; load(); });
  load();
}

main();
