// The not-found page (404.html): the server answers it for unknown paths and for table links
// that name no table (a malformed id, an unknown id or room code, none at all). It says
// which, in Chinese or English, and leads back to the lobby.

import { t, applyI18n, getLang } from "./i18n.js";
import { langSwitch } from "./ui.js";

const $ = (id) => document.getElementById(id);
const ID = /^[A-Za-z0-9_-]{1,24}$/; // the server's table ids (and room codes)

function reason() {
  if (!/\/(table|board)\.html$/.test(location.pathname)) return null;
  const p = new URLSearchParams(location.search);
  const id = p.get("t") ?? p.get("code");
  if (!id) return { key: "nf_no_id", id: "" };
  return { key: ID.test(id) ? "nf_table" : "nf_malformed", id: id.slice(0, 40) };
}

function render() {
  applyI18n(document);
  document.documentElement.lang = getLang() === "zh" ? "zh-CN" : "en";
  const why = reason();
  document.body.dataset.reason = why ? why.key : "nf_page";
  if (!why) return; // the page's own labels say it
  $("nf-title").textContent = t("nf_table_title");
  $("nf-text").textContent = t(why.key, { id: why.id });
}

langSwitch($("btn-lang"), render);
render();
document.body.dataset.ready = "1";
