// Small DOM helpers shared by the lobby and the table: element builder, toasts, the
// account bar (guest / login / register / logout) and the language switch.

import * as API from "./api.js";
import { t, getLang, setLang, applyI18n, titleTip } from "./i18n.js";
import { Sound } from "./sound.js";

/** h("div.cls#id", {attrs, on: {click}}, ...children) */
export function h(spec, attrs, ...children) {
  const m = /^([a-z0-9]+)?((?:[.#][\w-]+)*)$/i.exec(spec) || [];
  const e = document.createElement(m[1] || "div");
  for (const part of (m[2] || "").match(/[.#][\w-]+/g) || []) {
    if (part[0] === ".") e.classList.add(part.slice(1));
    else e.id = part.slice(1);
  }
  if (attrs && (typeof attrs !== "object" || attrs instanceof Node || Array.isArray(attrs))) {
    children.unshift(attrs);
    attrs = null;
  }
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k === "on") for (const [ev, fn] of Object.entries(v)) e.addEventListener(ev, fn);
    else if (k === "class") e.className += " " + v;
    else if (k === "text") e.textContent = v;
    else if (k === "dataset") Object.assign(e.dataset, v);
    else if (k === "style") e.style.cssText = v; // CSSOM: allowed by the CSP (a style attribute is not)
    else if (k in e && typeof v !== "string") e[k] = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c == null || c === false) continue;
    e.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

export function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); return e; }

/**
 * Even out a wrapping row of items (a long trump group in the hand): when the last row would
 * hold a lone item, narrow the box so every row holds about as many (17 cards on a phone
 * read 9 + 8, not 16 + 1). The box must be laid out; call it again after each render.
 */
export function balanceRows(box, items) {
  box.style.maxWidth = "";
  if (items.length < 2) return;
  const tops = items.map((e) => e.offsetTop);
  const rows = new Set(tops).size;
  if (rows < 2 || tops[tops.length - 1] === tops[tops.length - 2]) return;
  const perRow = Math.ceil(items.length / rows);
  const edge = items[perRow - 1].getBoundingClientRect().right;
  box.style.maxWidth = `${Math.ceil(edge - box.getBoundingClientRect().left) + 1}px`;
}

let toastTimer = null;
/** A short message at the bottom of the screen (errors from the server included). */
export function toast(text, kind = "info") {
  let box = document.getElementById("toast");
  if (!box) {
    box = h("div#toast", { role: "status", "aria-live": "polite" });
    document.body.appendChild(box);
  }
  box.textContent = text;
  box.className = "show " + kind;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.className = ""; }, kind === "error" ? 5000 : 2500);
}

/** Account state shared by the pages. */
export const account = { user: null, listeners: [] };

export async function loadMe() {
  const r = await API.me();
  account.user = r.ok ? r.data.user : null;
  for (const fn of account.listeners) fn(account.user);
  return account.user;
}

export async function ensureGuest() {
  if (account.user) return account.user;
  const r = await API.guest();
  if (!r.ok) { toast(r.error, "error"); return null; }
  account.user = r.data.user;
  for (const fn of account.listeners) fn(account.user);
  return account.user;
}

function loginDialog(mode) {
  const user = h("input", { name: "username", autocomplete: "username", required: true, minlength: 3, maxlength: 24 });
  const pass = h("input", { name: "password", type: "password", autocomplete: mode === "login" ? "current-password" : "new-password", required: true });
  const err = h("p.form-error");
  const dlg = h("dialog.login-dialog",
    h("form", { method: "dialog", on: { submit: async (ev) => {
      ev.preventDefault();
      const r = mode === "login" ? await API.login(user.value, pass.value) : await API.register(user.value, pass.value);
      if (!r.ok) { err.textContent = r.error; return; }
      account.user = r.data.user;
      for (const fn of account.listeners) fn(account.user);
      dlg.close();
      dlg.remove();
      toast(t("signed_in_as", { name: account.user.name }));
    } } },
      h("h3", t(mode === "login" ? "login" : "register")),
      mode === "register" && account.user && account.user.guest ? h("p.note", t("register_keeps_guest")) : null,
      h("label", t("username"), user),
      h("label", t("password"), pass),
      err,
      h("div.row",
        h("button.primary", { type: "submit" }, t(mode === "login" ? "login" : "register")),
        h("button", { type: "button", on: { click: () => { dlg.close(); dlg.remove(); } } }, t("cancel")))));
  document.body.appendChild(dlg);
  dlg.showModal();
  user.focus();
}

/** The account area in the header. onChange(user) runs after any sign-in or out. */
export function accountBar(container, onChange) {
  const render = () => {
    clear(container);
    const u = account.user;
    if (u) {
      const title = h("a.ladder-title.account-title", { href: `/player.html?p=${encodeURIComponent(u.id)}`, hidden: true });
      API.api(`/api/players/${encodeURIComponent(u.id)}`).then((r) => {
        // The title of the player's best ladder (打滚子 on a tie), beside the name.
        const ladders = r.ok && r.data && r.data.ladders ? Object.values(r.data.ladders) : [];
        const best = ladders.reduce((a, b) => (b.total > a.total ? b : a), ladders[0] || null);
        if (!best) return;
        title.textContent = best.title;
        title.title = titleTip(best.title, best.total);
        title.hidden = false;
      });
      container.append(
        h("span.who", { title: u.guest ? t("guest") : "" }, u.guest ? h("span.badge.guest-badge", t("guest")) : null, " ", u.name, " ", title),
        u.guest ? h("button.small#btn-register", { on: { click: () => loginDialog("register") } }, t("register")) : null,
        h("button.small#btn-logout", { on: { click: async () => {
          await API.logout();
          account.user = null;
          for (const fn of account.listeners) fn(null);
        } } }, t("logout")));
    } else {
      container.append(
        h("button.small.primary#btn-guest", { on: { click: () => ensureGuest() } }, t("play_as_guest")),
        h("button.small#btn-login", { on: { click: () => loginDialog("login") } }, t("login")),
        h("button.small#btn-register", { on: { click: () => loginDialog("register") } }, t("register")));
    }
  };
  account.listeners.push(() => { render(); if (onChange) onChange(account.user); });
  langRenders.push(render);
  render();
  return render;
}

const langRenders = [];

/** The 中/EN switch; onChange re-renders the page's dynamic parts. */
export function langSwitch(button, onChange) {
  const label = () => { button.textContent = getLang() === "zh" ? "EN" : "中文"; button.title = t("switch_language"); };
  label();
  button.addEventListener("click", () => {
    setLang(getLang() === "zh" ? "en" : "zh");
    applyI18n(document);
    label();
    for (const fn of langRenders) fn();
    if (onChange) onChange();
  });
}

const SPEAKER = '<path d="M4 9h4l5-4v14l-5-4H4z"/>';
const SOUND_ON_SVG = `<svg class="sound-icon" viewBox="0 0 24 24" aria-hidden="true">${SPEAKER}<path d="M16 9a4 4 0 0 1 0 6M18.5 6.5a8 8 0 0 1 0 11"/></svg>`;
const SOUND_OFF_SVG = `<svg class="sound-icon" viewBox="0 0 24 24" aria-hidden="true">${SPEAKER}<path d="M16 9l5 6M21 9l-5 6"/></svg>`;

/** The sound on/off switch (a toggle button); the choice follows the signed-in account. */
export function soundSwitch(button) {
  const label = () => {
    const on = Sound.enabled();
    // An icon (inline SVG: emoji fonts are not everywhere): the phone's top bar is narrow.
    button.innerHTML = on ? SOUND_ON_SVG : SOUND_OFF_SVG;
    button.setAttribute("aria-label", t(on ? "sound_on" : "sound_off"));
    button.setAttribute("aria-pressed", String(on));
    button.title = t("sound_tip");
  };
  const bind = () => { Sound.setUser(account.user ? account.user.id : null); label(); };
  button.addEventListener("click", () => { Sound.setEnabled(!Sound.enabled()); label(); if (Sound.enabled()) Sound.play("turn"); });
  account.listeners.push(bind);
  langRenders.push(label);
  bind();
}
