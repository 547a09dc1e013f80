// REST calls to the hall (same origin; the session is an HttpOnly cookie).

// A 503 with Retry-After is a table between two servers of the hall (docs/deploy.md): the
// request was not carried out, so it is sent again, at most this many times.
const RETRIES = 4;

/** fetch JSON: resolves to {ok, status, data, error} and never throws on HTTP errors. */
export async function api(path, { method = "GET", body } = {}) {
  const opts = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  let r;
  for (let attempt = 0; ; attempt++) {
    try {
      r = await fetch(path, opts);
    } catch (exc) {
      return { ok: false, status: 0, data: null, error: String(exc.message || exc) };
    }
    const wait = Number(r.headers.get("Retry-After"));
    if (r.status !== 503 || !(wait > 0) || attempt >= RETRIES) break;
    await new Promise((done) => setTimeout(done, Math.min(wait, 2) * 1000));
  }
  let data = null;
  const text = await r.text();
  if (text) {
    try { data = JSON.parse(text); } catch { data = text; }
  }
  return { ok: r.ok, status: r.status, data, error: r.ok ? null : errorText(data, r.status) };
}

/** The server's error text: {detail: {code, message}} or pydantic's list, or the status. */
export function errorText(data, status) {
  if (data && typeof data === "object") {
    const d = data.detail ?? data.error ?? data;
    if (typeof d === "string") return d;
    if (Array.isArray(d) && d.length) {
      const e = d[0];
      return (e.loc ? e.loc.filter((x) => x !== "body").join(".") + ": " : "") + (e.msg || JSON.stringify(e));
    }
    if (d && d.message) return d.message;
  }
  return "HTTP " + status;
}

export const me = () => api("/api/me");
export const guest = () => api("/api/auth/guest", { method: "POST" });
export const login = (username, password) => api("/api/auth/login", { method: "POST", body: { username, password } });
export const register = (username, password) => api("/api/auth/register", { method: "POST", body: { username, password } });
export const logout = () => api("/api/auth/logout", { method: "POST" });
export const rules = () => api("/api/rules");
export const tables = () => api("/api/tables");
export const table = (id) => api("/api/tables/" + encodeURIComponent(id));
export const tableByCode = (code) => api("/api/tables/code/" + encodeURIComponent(code.trim().toUpperCase()));
export const createTable = (body) => api("/api/tables", { method: "POST", body });
export const quickplay = (body = {}) => api("/api/quickplay", { method: "POST", body });
export const takeSeat = (id, seat) => api(`/api/tables/${encodeURIComponent(id)}/seats/${seat}`, { method: "POST" });
export const leaveSeat = (id, seat) => api(`/api/tables/${encodeURIComponent(id)}/seats/${seat}`, { method: "DELETE" });
export const addBot = (id, seat, bot = "rule") => api(`/api/tables/${encodeURIComponent(id)}/seats/${seat}/bot`, { method: "PUT", body: { bot } });
export const removeBot = (id, seat) => api(`/api/tables/${encodeURIComponent(id)}/seats/${seat}/bot`, { method: "DELETE" });
export const start = (id) => api(`/api/tables/${encodeURIComponent(id)}/start`, { method: "POST" });
