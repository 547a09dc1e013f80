// The table WebSocket (/ws/tables/{id}): hello/resync, reconnect with backoff, acts and
// hints matched to their replies by id, and a client-side rate limit under the server's.

const RATE_LIMIT = 240; // messages per window (the server closes a socket past 300 / 20 s)
const RATE_WINDOW = 20000;
const MOVED = 4010; // close code: the table is played by the process named in the reason

let counter = 0;
const newId = (p) => `${p}${Date.now().toString(36)}${(++counter).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

export class TableSocket {
  /**
   * handlers: onFrame(frame), onStatus(state, detail) with state in
   * "connecting" | "open" | "closed" | "gone".
   */
  constructor(tableId, { watch = false, onFrame, onStatus } = {}) {
    this.tableId = tableId;
    this.watch = watch;
    this.onFrame = onFrame || (() => {});
    this.onStatus = onStatus || (() => {});
    this.lastSeq = null;
    this.ws = null;
    this.retry = 0;
    this.stopped = false;
    this.pending = new Map(); // id -> {msg, resolve, arm, disarm}: asked, not answered yet
    this.sent = []; // send times, for the rate limit
    this.queue = [];
    this.flushTimer = null;
    this.pingTimer = null;
    this.syncing = false;
    this.node = null;
    this.moves = 0;
  }

  path() { return "/ws/tables/"; }

  /** With several hall processes, `node` names the one playing the table (a `moved` close
   * told us); the reverse proxy routes `?node=` to it (docs/deploy.md). */
  url() {
    const proto = location.protocol === "https:" ? "wss://" : "ws://";
    const q = new URLSearchParams();
    if (this.watch) q.set("watch", "1");
    if (this.node) q.set("node", this.node);
    const query = q.toString();
    return `${proto}${location.host}${this.path()}${encodeURIComponent(this.tableId)}${query ? "?" + query : ""}`;
  }

  connect() {
    this.stopped = false;
    this.onStatus("connecting");
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.onopen = () => {
      this.retry = 0;
      if (!this.node) this.moves = 0;
      this.onStatus("open");
      this.raw({ t: "hello", last_seq: this.lastSeq });
      // What was asked on a socket that dropped (its owner died, or handed the table over)
      // and never answered: ask again here, same id (the server applies an act once).
      for (const p of this.pending.values()) { p.arm(); this.send(p.msg); }
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.raw({ t: "ping" }), 25000);
    };
    ws.onmessage = (m) => {
      let f;
      try { f = JSON.parse(m.data); } catch { return; }
      if (f.t === "events" && !f.resync && this.lastSeq != null && f.events && f.events.length
          && f.events[0].seq !== this.lastSeq + 1) {
        if (!this.syncing) this.resync(); // a gap: fetch the missing events, render nothing past it
        return;
      }
      if (f.t === "snapshot" || f.resync) this.syncing = false;
      if (f.t === "events" || f.t === "snapshot") {
        if (typeof f.seq === "number") this.lastSeq = f.seq;
      }
      if ((f.t === "ack" || f.t === "hint") && f.id && this.pending.has(f.id)) {
        this.pending.get(f.id).resolve(f);
      }
      this.onFrame(f);
    };
    ws.onclose = (ev) => {
      clearInterval(this.pingTimer);
      if (this.ws !== ws) return;
      this.ws = null;
      this.queue = [];
      // 1008 "logged out", 1001 "table closed", 4xxx: do not hammer the server.
      const final = this.stopped || ev.code === 1001 || (ev.code === 1008 && /logged out/.test(ev.reason || ""));
      if (final) {
        for (const p of [...this.pending.values()]) p.resolve({ t: "ack", ok: false, error: { code: "closed", message: "connection lost" } });
        this.onStatus("gone", ev.reason || String(ev.code));
        return;
      }
      // Unanswered acts and hints wait for the next socket, which asks them again
      // (docs/protocol.md §2.4); their clocks stop meanwhile: the page says it reconnects.
      for (const p of this.pending.values()) p.disarm();
      if (ev.code === MOVED) {
        // Another process plays the table (the reason names it), or it is changing hands
        // (no name): go there at once, or ask again shortly; no back-off for this.
        this.node = ev.reason || null;
        this.moves = (this.moves || 0) + 1;
        const soon = ev.reason && this.moves < 4 ? 0 : 300;
        setTimeout(() => { if (!this.stopped) this.connect(); }, soon);
        return;
      }
      this.node = null; // a drop: the process may be gone; any process knows the new owner
      this.moves = 0;
      // 1013 "too slow" and network drops: reconnect; hello with last_seq resyncs.
      this.onStatus("closed", ev.reason || String(ev.code));
      const delay = Math.min(10000, 500 * 2 ** this.retry++);
      setTimeout(() => { if (!this.stopped) this.connect(); }, delay);
    };
  }

  close() {
    this.stopped = true;
    clearInterval(this.pingTimer);
    if (this.ws) this.ws.close(1000, "bye");
  }

  /** Re-bind after taking or leaving a seat: the per-seat numbering changes, so no last_seq. */
  rehello() {
    this.lastSeq = null;
    this.send({ t: "hello", last_seq: null });
  }

  resync() {
    this.syncing = true;
    this.send({ t: "sync", last_seq: this.lastSeq });
  }

  raw(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  /** Send through the rate limit (messages beyond it wait their turn). */
  send(msg) {
    this.queue.push(msg);
    this.flush();
  }

  flush() {
    clearTimeout(this.flushTimer);
    while (this.queue.length) {
      const now = Date.now();
      while (this.sent.length && this.sent[0] < now - RATE_WINDOW) this.sent.shift();
      if (this.sent.length >= RATE_LIMIT) {
        this.flushTimer = setTimeout(() => this.flush(), this.sent[0] + RATE_WINDOW - now + 20);
        return;
      }
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) { this.queue = []; return; }
      this.sent.push(now);
      this.raw(this.queue.shift());
    }
  }

  /** Send {t: kind, id, ...body} and resolve with its answer (ack or hint). Kept across a
   * reconnect and sent again on the next socket, until answered, or timed out after
   * `timeoutMs` connected with no answer, or the socket is gone for good. */
  request(kind, body, timeoutMs = 12000, id = newId(kind[0])) {
    const msg = { t: kind, id, ...body };
    return new Promise((resolve) => {
      const p = { msg, again: null, timer: null };
      p.disarm = () => { clearTimeout(p.again); clearTimeout(p.timer); };
      p.resolve = (f) => { p.disarm(); this.pending.delete(id); resolve(f); };
      p.arm = () => {
        p.disarm();
        // No answer in 4 s: send the same message again (same id: the server applies it once).
        p.again = setTimeout(() => this.send(msg), 4000);
        p.timer = setTimeout(() => p.resolve({ t: kind === "act" ? "ack" : "hint", ok: false, action: null, error: { code: "timeout", message: "no answer from the server" } }), timeoutMs);
      };
      this.pending.set(id, p);
      // Not connected now: the next socket sends it when it opens.
      if (this.ws && this.ws.readyState === WebSocket.OPEN) { p.arm(); this.send(msg); }
    });
  }

  /** A decision in the engine's record form, e.g. {type: "play", cards: ["KH", "KH"]}. */
  async act(action) {
    const id = newId("a");
    let r = await this.request("act", { action }, 12000, id);
    if (!r.ok && r.error && r.error.code === "server_error") {
      r = await this.request("act", { action }, 12000, id); // not stored: resend, same id
    }
    if (!r.ok && r.error && ["out_of_turn", "stale"].includes(r.error.code)) this.resync();
    return r;
  }

  hint() { return this.request("hint", {}); }

  chat(text) { this.send({ t: "chat", text }); }

  auto(on) { this.send({ t: "auto", on }); }
}
