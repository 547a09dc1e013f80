// A player's page: title and 积分 per game, a rating-over-time chart (inline SVG), and the
// recent rated results with links to the table and its replay.

import { api } from "./api.js";
import { t, applyI18n, getLang, botName, titleTip } from "./i18n.js";
import { h, clear, loadMe, accountBar, langSwitch } from "./ui.js";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const GAMES = ["gunzi", "classic", "quoridor"];
let DATA = null;

const GAME_NAMES = {
  gunzi: () => t("ladder_game_gunzi"),
  classic: () => t("ladder_game_classic"),
  quoridor: () => t("ladder_game_quoridor"),
};

function gameName(game) { return (GAME_NAMES[game] || (() => game))(); }

function svg(tag, attrs, ...children) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  for (const c of children) e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  return e;
}

/** The ordinal rating after each result, as a line over the result number. */
function ratingChart(points, game) {
  const W = 600, H = 200, L = 44, R = 10, T = 12, B = 24;
  const ys = points.map((p) => p.ordinal);
  let lo = Math.min(0, ...ys), hi = Math.max(0, ...ys);
  if (hi - lo < 1) { hi += 0.5; lo -= 0.5; }
  const x = (i) => L + (points.length === 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (points.length - 1));
  const y = (v) => T + ((hi - v) * (H - T - B)) / (hi - lo);
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "rating-chart", role: "img",
    "aria-label": t("rating_chart") + " · " + gameName(game), "data-game": game });
  chart.appendChild(svg("rect", { x: L, y: T, width: W - L - R, height: H - T - B, class: "rc-bg" }));
  chart.appendChild(svg("line", { x1: L, x2: W - R, y1: y(0), y2: y(0), class: "rc-zero" }));
  for (const v of [hi, lo]) {
    chart.appendChild(svg("text", { x: L - 4, y: y(v) + 4, class: "rc-axis", "text-anchor": "end" }, v.toFixed(1)));
  }
  chart.appendChild(svg("text", { x: L, y: H - 6, class: "rc-axis" }, new Date(points[0].time * 1000).toLocaleDateString()));
  chart.appendChild(svg("text", { x: W - R, y: H - 6, class: "rc-axis", "text-anchor": "end" },
    new Date(points[points.length - 1].time * 1000).toLocaleDateString()));
  chart.appendChild(svg("polyline", { class: "rc-line", points: points.map((p, i) => `${x(i).toFixed(1)},${y(p.ordinal).toFixed(1)}`).join(" ") }));
  points.forEach((p, i) => {
    chart.appendChild(svg("circle", { cx: x(i).toFixed(1), cy: y(p.ordinal).toFixed(1), r: 3, class: "rc-dot" },
      svg("title", {}, `${p.ordinal.toFixed(2)} · ${t("col_total")} ${p.total}`)));
  });
  return chart;
}

function render() {
  const d = DATA;
  if (!d) return;
  const who = d.player.kind === "bot" ? botName(d.player.name) : d.player.name;
  $("player-name").textContent = who;
  document.title = who + " · " + t("hall_name");
  const st = clear($("standings"));
  for (const g of GAMES) {
    const l = d.ladders[g];
    st.append(h("div.standing", { dataset: { game: g } },
      h("h3", gameName(g)),
      h("p.ladder-title.big-title", { title: titleTip(l.title, l.total), lang: "zh-CN" }, l.title),
      h("p", t("col_total") + " ", h("b.total", String(l.total)), l.rank ? " · " + t("rank_n", { n: l.rank }) : null),
      h("p.note", `${t("col_rating")} ${l.rating.ordinal.toFixed(1)} (μ ${l.rating.mu}, σ ${l.rating.sigma}) · ${t("col_games")} ${l.games}`)));
  }
  const charts = clear($("charts"));
  let any = false;
  for (const g of GAMES) {
    const pts = d.series[g] || [];
    if (!pts.length) continue;
    any = true;
    charts.append(h("figure.chart", h("figcaption", gameName(g)), ratingChart(pts, g)));
  }
  if (!any) charts.append(h("p.note", t("no_results")));
  const body = clear($("history"));
  if (!d.history.length) body.append(h("tr", h("td.note", { colspan: 7 }, t("no_results"))));
  for (const e of d.history) {
    const sign = e.score > 0 ? "+" : "";
    body.append(h("tr",
      h("td", gameName(e.game)),
      h("td", h("a", { href: (e.game === "quoridor" ? "/board.html?t=" : "/table.html?t=") + encodeURIComponent(e.table_id) }, e.table_id)),
      h("td", e.game === "quoridor"
        ? h("a", { href: `/api/board/tables/${encodeURIComponent(e.table_id)}/record`, title: t("bb_record") }, String(e.hand))
        : h("a", { href: `/replay.html?t=${encodeURIComponent(e.table_id)}&hand=${e.hand}`, title: t("replay") }, String(e.hand))),
      h("td", new Date(e.time * 1000).toLocaleString()),
      h("td.num" + (e.score > 0 ? ".gain" : e.score < 0 ? ".loss" : ""), sign + e.score),
      h("td.num", String(e.total_after)),
      h("td.num", e.rating_after.ordinal.toFixed(1) + ` (${e.rating_change >= 0 ? "+" : ""}${e.rating_change.toFixed(1)})`)));
  }
}

async function main() {
  applyI18n(document);
  document.documentElement.lang = getLang() === "zh" ? "zh-CN" : "en";
  await loadMe();
  accountBar($("account"));
  langSwitch($("btn-lang"), render);
  const ref = new URLSearchParams(location.search).get("p") || "";
  const r = await api("/api/players/" + encodeURIComponent(ref));
  if (!r.ok) {
    $("player-error").textContent = r.status === 404 ? t("no_player") : r.error;
  } else {
    DATA = r.data;
    render();
  }
  document.body.dataset.ready = "1";
}

main();
