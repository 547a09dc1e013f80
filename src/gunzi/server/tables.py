"""Tables: one actor per table (Match + bots + clock + persistence), and the hall that holds them.

Each :class:`Table` has one ``asyncio.Lock``; everything that reads or changes
its match runs under it, so the lock holder is the table's only writer. An
accepted action goes: validate → apply → **commit** (the action and every
event it produced, one transaction) → frames to every socket → ack. Nothing
is acknowledged or broadcast before it is committed.

What leaves a table goes through :mod:`gunzi.engine.view` only: each
recipient (seats 0..3, or the spectators) gets its own ``redact``-ed events,
numbered exactly as ``stream(match, recipient)`` numbers them, and its own
``view``. Match state is never serialized any other way.

Randomness: each hand's seed is ``secrets.randbits(256)``, supplied with the
``deal`` action (tables use ``auto_deal=False``), so the stored actions replay
exactly: a restarted server rebuilds every table by replaying them.
"""

from __future__ import annotations

import asyncio
import secrets
import time
import traceback
import unicodedata
from collections import OrderedDict, deque
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import structlog
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from gunzi.bots.base import Bot, observe
from gunzi.engine import actions as A
from gunzi.engine import records
from gunzi.engine.actions import CHANCE, Action
from gunzi.engine.errors import GunziError, IllegalActionError, OutOfTurnError
from gunzi.engine.match import Match, Phase
from gunzi.engine.rules import PRESETS, Ruleset, from_options, preset
from gunzi.engine.view import redact, stream, view
from gunzi.ladder.points import closed_points, game_of
from gunzi.ladder.result import LadderResult, bot_key, user_key
from gunzi.ladder.titles import title_for
from gunzi.server import db, ladder_db
from gunzi.server.auth import Principal, Throttle
from gunzi.server.protocol import ACTION_KEYS, PLAYER_ACTIONS, CreateTable, QuickPlay, dumps

if TYPE_CHECKING:
    from gunzi.server.metrics import Metrics
    from gunzi.server.settings import Settings

log = structlog.get_logger("gunzi.tables")

RECIPIENTS: tuple[int | None, ...] = (0, 1, 2, 3, None)
ALLOWED_BOTS = ("rule", "random")
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
RESYNC_MAX = 5000  # larger gaps get a snapshot instead of the missing events
RETIRE_AFTER = 300.0  # a finished table with nobody connected leaves memory after this
LIVE = ("open", "playing")


def ridx(recipient: int | None) -> int:
    return 4 if recipient is None else recipient


def make_bot(name: str) -> Bot:
    """A bot by name; the rule bot may not be installed yet, so fall back to random."""
    from gunzi.bots import registry

    try:
        return registry.make_bot(name)
    except Exception:
        log.warning("bot_fallback", wanted=name, using="random")
        return registry.make_bot("random")


def where(exc: BaseException) -> dict[str, str]:
    """An exception for the log without its message (a message may name cards)."""
    tb = traceback.extract_tb(exc.__traceback__)[-3:]
    return {"error": type(exc).__name__,
            "at": " < ".join(f"{Path(f.filename).name}:{f.lineno}" for f in reversed(tb))}


def clean_text(text: str, limit: int) -> str:
    """Chat text: no control or format characters, trimmed, at most ``limit`` characters."""
    kept = "".join(
        " " if ch in "\t\n\r" else ch
        for ch in text
        if ch in "\t\n\r" or unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co", "Cn")
    )
    return " ".join(kept.split())[:limit]


class Conn(Protocol):
    """A client socket as a table sees it (implemented by :class:`gunzi.server.ws.Client`)."""

    seat: int | None
    user_id: int | None
    session_id: int | None
    name: str | None
    watch: bool
    views: bool

    def send(self, text: str) -> None: ...

    def close(self, code: int, reason: str) -> None: ...


class TableError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


@dataclass
class SeatState:
    user_id: int | None = None
    name: str | None = None
    bot: str | None = None
    conns: int = 0
    away_since: float | None = None
    auto: bool = False  # 托管: the bot plays this human seat
    auto_reason: str | None = None
    away_timer: asyncio.TimerHandle | None = field(default=None, repr=False)
    total: int | None = None  # ladder total in the table's game, and its title
    title: str | None = None

    @property
    def empty(self) -> bool:
        return self.user_id is None and self.bot is None

    @property
    def ladder_key(self) -> str | None:
        if self.user_id is not None:
            return user_key(self.user_id)
        return None if self.bot is None else bot_key(self.bot)

    def public(self, seat: int) -> dict[str, Any]:
        kind = "bot" if self.bot else "human" if self.user_id is not None else "empty"
        return {
            "seat": seat,
            "kind": kind,
            "name": self.name if self.user_id is not None else self.bot,
            "bot": self.bot,
            "connected": kind == "bot" or self.conns > 0,
            "auto": self.auto,
            "title": self.title,
            "total": self.total,
        }


class Table:
    def __init__(self, hall: Hall, row: db.TableRow, seats: list[SeatState]) -> None:
        self.hall = hall
        self.settings = hall.settings
        self.id = row.id
        self.code = row.code
        self.name = row.name
        self.public = row.public
        self.preset = row.preset
        self.rules: Ruleset = from_options(dict(row.rules))
        self.game = game_of(self.rules)  # the ladder its results go to
        self.clock = row.clock
        self.max_hands = row.max_hands
        self.counter = row.counter
        self.quick = row.quick
        self.status = row.status
        self.owner_id = row.owner_id
        self.created_at = row.created_at
        self.header = row.header
        self.seats = seats
        self.match: Match | None = None
        self.lock = asyncio.Lock()
        self.conns: set[Conn] = set()
        self.seq = [0, 0, 0, 0, 0]
        self.last_turn: list[dict[str, Any] | None] = [None] * 5
        self.n_actions = 0
        self.cid_index: dict[tuple[int | None, str], int] = {}
        self.bots: list[Bot | None] = [None, None, None, None]
        self.rng = secrets.SystemRandom()
        self.timer: asyncio.TimerHandle | None = None
        self.idle_timer: asyncio.TimerHandle | None = None
        self.decision_key = -1
        self.deadline: float | None = None  # monotonic
        self.deadline_wall: int | None = None  # epoch ms, for clients
        self.chat: deque[dict[str, Any]] = deque(maxlen=self.settings.chat_history)
        self.chat_limit = Throttle(self.settings.chat_rate_messages,
                                   self.settings.chat_rate_window)
        self.broken: str | None = None
        self.retry_at = 0.0  # automatic steps wait until then after a failure

    # ------------------------------------------------------------------ info
    def seat_of(self, user_id: int | None) -> int | None:
        if user_id is None:
            return None
        for i, s in enumerate(self.seats):
            if s.user_id == user_id:
                return i
        return None

    def info(self) -> dict[str, Any]:
        base = (self.settings.public_url or self.hall.base_url or "").rstrip("/")
        m = self.match
        return {
            "id": self.id,
            "name": self.name,
            "public": self.public,
            "code": self.code,
            "link": f"{base}/table.html?t={self.id}",
            "preset": self.preset,
            "rules": {"name": self.rules.name, **self.rules.options()},
            "clock": self.clock,
            "max_hands": self.max_hands,
            "counter": self.counter,
            "quick": self.quick,
            "status": self.status,
            "hand_no": m.hand_no if m else 0,
            "hands_played": len(m.results) if m else 0,
            "seats": [s.public(i) for i, s in enumerate(self.seats)],
            "spectators": sum(1 for c in self.conns if c.seat is None),
            "owner": self._owner_name(),
            "created_at": self.created_at,
        }

    def _owner_name(self) -> str | None:
        for s in self.seats:
            if s.user_id is not None and s.user_id == self.owner_id:
                return s.name
        return None

    # --------------------------------------------------------------- helpers
    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        self.hall.spawn(coro)

    def _bot(self, seat: int) -> Bot:
        bot = self.bots[seat]
        if bot is None:
            bot = self.bots[seat] = make_bot(self.seats[seat].bot or self.settings.bot)
        return bot

    def _turn(self, r: int | None) -> dict[str, Any]:
        m = self.match
        if m is None or self.status != "playing":
            return {"seat": None, "deadline": None, "clock": self.clock}
        to = m.current
        if m.phase is Phase.DRAW and to != r:
            to = None  # who is asked to declare is private (it tells that they could)
        deadline = None
        if to is not None and to >= 0 and self.decision_key == len(m.events):
            deadline = self.deadline_wall
        return {"seat": to, "deadline": deadline, "clock": self.clock}

    def _send_all(self, frame: dict[str, Any]) -> None:
        text = dumps(frame)
        for c in list(self.conns):
            c.send(text)
        self.hall.metrics.frames.inc(len(self.conns))

    def _publish_table(self) -> None:
        self._send_all({"t": "table", "table": self.info()})

    def _by_recipient(self) -> list[list[Conn]]:
        out: list[list[Conn]] = [[], [], [], [], []]
        for c in self.conns:
            out[ridx(c.seat)].append(c)
        return out

    def _publish(self, start: int) -> None:
        """Frames for the events from ``start`` on: per recipient, as ``stream`` numbers them."""
        m = self.match
        assert m is not None
        new = m.events[start:]
        finished = m.revealed_hands()
        groups = self._by_recipient()
        sent = 0
        for r in RECIPIENTS:
            i = ridx(r)
            conns = groups[i]
            out: list[dict[str, Any]] = []
            for ev in new:
                d = redact(ev, r)
                if d is None:
                    continue
                self.seq[i] += 1
                if not conns:
                    continue
                if ev.hand <= finished:
                    d = redact(ev, r, reveal=True)
                    assert d is not None
                    d.pop("v", None)
                d["seq"] = self.seq[i]
                out.append(d)
            turn = self._turn(r)
            changed = turn != self.last_turn[i]
            self.last_turn[i] = turn
            if not conns or not (out or changed):
                continue
            frame: dict[str, Any] = {"t": "events", "seq": self.seq[i], "events": out,
                                     "turn": turn}
            plain = with_view = None
            for c in conns:
                if c.views:
                    if with_view is None:
                        with_view = dumps({**frame, "view": view(m, r)})
                    c.send(with_view)
                else:
                    if plain is None:
                        plain = dumps(frame)
                    c.send(plain)
                sent += 1
        self.hall.metrics.frames.inc(sent)

    def _seq_at(self, r: int | None, v_end: int) -> int:
        m = self.match
        assert m is not None
        return sum(1 for ev in m.events[:v_end] if redact(ev, r) is not None)

    def _count_seqs(self) -> None:
        m = self.match
        assert m is not None
        for r in RECIPIENTS:
            self.seq[ridx(r)] = sum(1 for ev in m.events if redact(ev, r) is not None)

    # ------------------------------------------------------------- scheduling
    def _cancel_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _later(self, delay: float, key: int, kind: str) -> None:
        loop = asyncio.get_running_loop()
        delay = max(delay, self.retry_at - time.monotonic())  # back off after a failure
        self.timer = loop.call_later(max(0.0, delay), self._fire, key, kind)

    def _fire(self, key: int, kind: str) -> None:
        self.timer = None
        self._spawn(self._tick(key, kind))

    def _schedule(self) -> None:
        """Arrange the table's next automatic step: a deal, a bot move, or a clock."""
        self._cancel_timer()
        m = self.match
        if m is None or self.status != "playing" or self.broken or m.over:
            return
        key = len(m.events)
        to = m.current
        if to is None:
            return
        if to == CHANCE:
            self._later(self.settings.hand_pause if m.results else 0.0, key, "deal")
            return
        seat = self.seats[to]
        if seat.bot is not None or seat.auto:
            # Answer a declaring ask at once: a pause would tell the table a seat was asked.
            delay = 0.0 if m.phase is Phase.DRAW else self.settings.bot_delay
            self._later(delay, key, "bot")
            return
        if key != self.decision_key:
            self.decision_key = key
            if self.clock > 0:
                self.deadline = time.monotonic() + self.clock
                self.deadline_wall = int((time.time() + self.clock) * 1000)
            else:
                self.deadline = self.deadline_wall = None
        if self.deadline is not None:
            self._later(self.deadline - time.monotonic(), key, "timeout")

    async def _tick(self, key: int, kind: str) -> None:
        async with self.lock:
            m = self.match
            if m is None or self.status != "playing" or self.broken or len(m.events) != key:
                return
            try:
                if kind == "deal":
                    await self._apply(A.deal(m.deal_seed(secrets.randbits(256))), "server")
                elif kind == "bot":
                    await self._bot_move("bot" if self.seats[m.current or 0].bot else "auto")
                elif kind == "timeout":
                    seat = m.current
                    assert seat is not None and seat >= 0
                    self.hall.metrics.timeouts.inc()
                    if m.phase is not Phase.DRAW:
                        # 托管 until the player returns. While drawing the bot answers this
                        # one ask quietly: a public status change would tell who was asked.
                        self.seats[seat].auto = True
                        self.seats[seat].auto_reason = "timeout"
                        self._publish_table()
                    await self._bot_move("timeout")
            except CommitError:
                pass
            except Exception as exc:
                log.error("table_tick_failed", table=self.id, kind=kind, **where(exc))
                self.retry_at = time.monotonic() + 1.0
                self._schedule()

    async def _bot_move(self, source: str) -> None:
        m = self.match
        assert m is not None and m.current is not None and m.current >= 0
        seat = m.current
        t0 = time.perf_counter()
        action = self._suggest(seat)
        self.hall.metrics.bot_seconds.observe(time.perf_counter() - t0)
        await self._apply(action, source)

    def _suggest(self, seat: int) -> Action:
        m = self.match
        assert m is not None
        try:
            action = self._bot(seat).choose(observe(m, seat), self.rng)
            m.verify(action)
            return action
        except Exception:
            log.warning("bot_failed", table=self.id, seat=seat)
            return m.legal_actions(seat).sample(self.rng)

    # ------------------------------------------------------------------ apply
    def _status_after(self) -> str:
        m = self.match
        assert m is not None
        if m.over:
            return "finished"
        if self.max_hands and m.phase is Phase.DEAL and len(m.results) >= self.max_hands:
            return "finished"
        return self.status

    async def _apply(
        self, action: Action, source: str, user_id: int | None = None, cid: str | None = None
    ) -> int:
        """Validate, apply, commit, broadcast. Raises GunziError (nothing changed) or
        CommitError (the match was rebuilt from the database)."""
        m = self.match
        assert m is not None
        m.verify(action)
        t_start = time.perf_counter()
        start = len(m.events)
        results_before = len(m.results)
        m.apply(action, validate=False)
        n = self.n_actions + 1
        new = m.events[start:]
        status = self._status_after()
        action_row = {
            "table_id": self.id, "n": n, "seat": action.seat, "source": source,
            "user_id": user_id, "cid": cid, "data": action.to_dict(), "v_end": len(m.events),
            "created_at": db.now(),
        }
        event_rows = [
            {"table_id": self.id, "v": ev.v, "n": n, "hand": ev.hand, "type": ev.type,
             "data": ev.to_dict(), "audience": ",".join(map(str, sorted(ev.audience))),
             "private": ev.private}
            for ev in new
        ]
        table_row = {"n_actions": n, "n_events": len(m.events), "status": status,
                     "updated_at": db.now()}
        ladder = self._ladder_result(results_before, status)
        t0 = time.perf_counter()
        try:
            await self.hall.store.commit(self.id, action_row, event_rows, table_row, ladder)
        except Exception as exc:
            log.error("commit_failed", table=self.id, error=type(exc).__name__)
            self.retry_at = time.monotonic() + 1.0
            await self._reload()
            raise CommitError from exc
        self.hall.metrics.commit_seconds.observe(time.perf_counter() - t0)
        self.n_actions = n
        if cid is not None:
            self.cid_index[(user_id, cid)] = len(m.events)
        if len(m.results) > results_before:
            for bot in self.bots:
                if bot is not None:
                    bot.new_hand()
        status_changed = status != self.status
        self.status = status
        self._schedule()
        self._publish(start)
        if ladder is not None and ladder.rated:
            await self._refresh_titles(fresh=True)
        if status_changed:
            self._publish_table()
            self.hall.count_tables()
            log.info("table_finished", table=self.id, hands=len(m.results))
        self.hall.metrics.actions.labels(source).inc()
        if source == "player":
            self.hall.metrics.action_seconds.observe(time.perf_counter() - t_start)
        return len(m.events)

    def _ladder_result(self, results_before: int, status: str) -> LadderResult | None:
        """The ladder result the action just closed (a 打滚子 hand, a classic game), if any.
        Rated when at least one person is seated; bots count under their names."""
        m = self.match
        assert m is not None
        if len(m.results) == results_before:
            return None
        points = closed_points(m, table_ends=status == "finished")
        if points is None:
            return None
        keys = [s.ladder_key or "?" for s in self.seats]
        rated = any(s.user_id is not None for s in self.seats)
        return LadderResult(self.game, self.id, int(m.results[-1]["hand"]),
                            (keys[0], keys[1], keys[2], keys[3]), points, rated)

    async def _refresh_titles(self, fresh: bool = False) -> None:
        """Seat titles from the hall's ladder cache (read from the database when missing or
        ``fresh``); the table is republished if one changed. Never fails the caller."""
        keys = [s.ladder_key for s in self.seats]
        try:
            totals = await self.hall.ladder_totals(self.game, [k for k in keys if k], fresh)
        except Exception as exc:
            log.warning("titles_failed", table=self.id, **where(exc))
            return
        changed = False
        for s, key in zip(self.seats, keys, strict=True):
            total = None if key is None else totals.get(key, 0)
            title = None if total is None else title_for(total)
            if (s.total, s.title) != (total, title):
                s.total, s.title = total, title
                changed = True
        if changed:
            self._publish_table()

    async def refresh_titles(self) -> None:
        async with self.lock:
            await self._refresh_titles()

    async def _reload(self) -> None:
        """Rebuild the match from the database (after a failed commit) and resync everyone."""
        try:
            rows = await self.hall.store.run(db.load_actions, self.id)
            self._replay(rows)
        except Exception as exc:
            log.error("reload_failed", table=self.id, **where(exc))
            self.broken = "reload failed"
            for c in list(self.conns):
                c.close(1011, "table unavailable")
            return
        for c in list(self.conns):
            self._sync(c, None)
        self._schedule()

    def _replay(self, rows: list[db.ActionRow]) -> None:
        assert self.header is not None
        m = records.start_match(self.header)
        cids: dict[tuple[int | None, str], int] = {}
        for row in rows:
            m.apply(A.from_dict(row.data))
            if len(m.events) != row.v_end:
                raise GunziError(f"action {row.n} replays to {len(m.events)} events, "
                                 f"stored {row.v_end}")
            if row.cid is not None:
                cids[(row.user_id, row.cid)] = row.v_end
        self.match = m
        self.n_actions = len(rows)
        self.cid_index = cids
        self.bots = [None, None, None, None]
        self._count_seqs()

    # --------------------------------------------------------------- players
    async def act(self, conn: Conn, cid: str, payload: dict[str, Any],
                  client_seq: int | None) -> None:
        """A decision from a socket; the ack (or refusal) is queued on that socket."""
        async with self.lock:
            ack = await self._act(conn, cid, payload, client_seq)
            conn.send(dumps(ack))

    async def _act(self, conn: Conn, cid: str, payload: dict[str, Any],
                   client_seq: int | None) -> dict[str, Any]:
        seat = conn.seat
        i = ridx(seat)

        def refuse(code: str, message: str, rule: str = "") -> dict[str, Any]:
            self.hall.metrics.rejected.labels(code).inc()
            log.info("action_refused", table=self.id, seat=seat, reason=code, rule=rule)
            err = {"code": code, "message": message}
            if rule:
                err["rule"] = rule
            return {"t": "ack", "id": cid, "ok": False, "seq": self.seq[i], "error": err}

        done = self.cid_index.get((conn.user_id, cid))
        if done is not None:
            self.hall.metrics.duplicates.inc()
            return {"t": "ack", "id": cid, "ok": True, "dup": True,
                    "seq": self._seq_at(seat, done)}
        m = self.match
        if m is None or self.status != "playing" or self.broken:
            return refuse("not_playing", "the table is not playing")
        if seat is None or self.seats[seat].user_id != conn.user_id:
            return refuse("not_seated", "spectators cannot act")
        if client_seq is not None and client_seq != self.seq[i]:
            return refuse("stale", "your view is out of date: resync and decide again")
        kind = payload.get("type")
        if kind not in PLAYER_ACTIONS or not set(payload) <= ACTION_KEYS:
            return refuse("malformed", "an action is {type, cards?, suit?, take?} with type "
                          "one of " + ", ".join(sorted(PLAYER_ACTIONS)))
        if payload.get("seat", seat) != seat:
            return refuse("not_your_seat", "you can only act for your own seat")
        try:
            action = A.from_dict({**payload, "seat": seat})
        except (GunziError, TypeError, ValueError) as exc:
            return refuse("malformed", str(exc)[:300])
        if self.seats[seat].auto:
            self.seats[seat].auto = False  # the player is back: 托管 ends
            self.seats[seat].auto_reason = None
            self._publish_table()
        try:
            await self._apply(action, "player", conn.user_id, cid)
        except OutOfTurnError:
            # The engine's message may name the seat being asked to declare: keep it generic.
            return refuse("out_of_turn", "it is not your turn to make this decision")
        except IllegalActionError as exc:
            return refuse("illegal", str(exc)[:500], exc.rule)
        except CommitError:
            return refuse("server_error", "the action was not saved; please retry")
        except GunziError as exc:
            return refuse("malformed", str(exc)[:300])
        return {"t": "ack", "id": cid, "ok": True, "dup": False, "seq": self.seq[i]}

    async def hint(self, seat: int | None) -> dict[str, Any]:
        """The bot's suggestion for the seat's current decision."""
        async with self.lock:
            m = self.match
            if m is None or self.status != "playing" or seat is None or m.current != seat:
                raise TableError(409, "no_decision", "you have no decision to make now")
            return self._suggest(seat).to_dict()

    async def set_auto(self, conn: Conn, on: bool) -> None:
        async with self.lock:
            seat = conn.seat
            if seat is None or self.seats[seat].user_id != conn.user_id:
                return
            s = self.seats[seat]
            if s.auto == on:
                return
            s.auto = on
            s.auto_reason = "asked" if on else None
            self._publish_table()
            self._schedule()

    async def say(self, conn: Conn, text: str) -> str | None:
        """Chat; returns an error code or None."""
        if conn.user_id is None:
            return "login_required"
        clean = clean_text(text, self.settings.chat_max_len)
        if not clean:
            return "empty"
        key = str(conn.user_id)
        if self.chat_limit.blocked(key):
            return "chat_rate"
        self.chat_limit.hit(key)
        msg = {"t": "chat", "from": conn.name, "seat": conn.seat, "text": clean,
               "ts": int(time.time() * 1000)}
        self.chat.append(msg)
        self._send_all(msg)
        return None

    # ------------------------------------------------------------ connections
    def _welcome(self, conn: Conn) -> dict[str, Any]:
        return {
            "t": "welcome",
            "protocol": 1,
            "table": self.info(),
            "seat": conn.seat,
            "role": "player" if conn.seat is not None else "spectator",
            "you": None if conn.user_id is None else {"id": conn.user_id, "name": conn.name},
            "server_time": int(time.time() * 1000),
            "chat": list(self.chat),
        }

    def _sync(self, conn: Conn, last_seq: int | None) -> None:
        m = self.match
        r = conn.seat
        i = ridx(r)
        if m is None:
            conn.send(dumps({"t": "snapshot", "seq": 0, "view": None, "events": [],
                             "turn": self._turn(r)}))
            return
        cur = self.seq[i]
        if last_seq is not None and last_seq <= cur and cur - last_seq <= RESYNC_MAX:
            events = stream(m, r, since=last_seq)
            frame: dict[str, Any] = {"t": "events", "seq": cur, "events": events,
                                     "turn": self._turn(r), "resync": True}
            if conn.views:
                frame["view"] = view(m, r)
            conn.send(dumps(frame))
            return
        full = stream(m, r)
        first = 0
        for k in range(len(full) - 1, -1, -1):
            if full[k].get("type") == "deal" and full[k].get("deal_no", 1) == 1:
                first = k
                break
        conn.send(dumps({"t": "snapshot", "seq": cur, "view": view(m, r),
                         "events": full[first:], "turn": self._turn(r)}))

    async def attach(self, conn: Conn, last_seq: int | None, views: bool) -> None:
        """Bind a socket (hello): its seat is the user's seat here, unless it only watches."""
        async with self.lock:
            self._detach(conn)
            seat = None if conn.watch else self.seat_of(conn.user_id)
            conn.seat = seat
            conn.views = views
            self.conns.add(conn)
            self._cancel_idle()
            back = False
            if seat is not None:
                s = self.seats[seat]
                s.conns += 1
                s.away_since = None
                if s.away_timer is not None:
                    s.away_timer.cancel()
                    s.away_timer = None
                if s.auto:  # the player is back: 托管 ends
                    s.auto = False
                    s.auto_reason = None
                    back = True
            conn.send(dumps(self._welcome(conn)))
            self._sync(conn, last_seq)
            self.last_turn[ridx(seat)] = self._turn(seat)
            self._publish_table()
            if back:
                self._schedule()

    async def resync(self, conn: Conn, last_seq: int | None) -> None:
        async with self.lock:
            if conn in self.conns:
                self._sync(conn, last_seq)

    async def detach(self, conn: Conn) -> None:
        async with self.lock:
            if self._detach(conn):
                self._publish_table()

    def _detach(self, conn: Conn) -> bool:
        if conn not in self.conns:
            return False
        self.conns.discard(conn)
        seat = conn.seat
        if seat is not None:
            s = self.seats[seat]
            s.conns = max(0, s.conns - 1)
            if s.conns == 0 and s.user_id is not None:
                self._away(seat)
        if not self.conns:
            self._start_idle()
        return True

    def _away(self, seat: int) -> None:
        s = self.seats[seat]
        s.away_since = time.monotonic()
        if s.away_timer is not None:
            s.away_timer.cancel()
        loop = asyncio.get_running_loop()
        s.away_timer = loop.call_later(self.settings.away_after,
                                       lambda: self._spawn(self._gone(seat)))

    async def _gone(self, seat: int) -> None:
        async with self.lock:
            s = self.seats[seat]
            s.away_timer = None
            if s.conns or s.auto or s.user_id is None or self.status != "playing":
                return
            s.auto = True
            s.auto_reason = "away"
            self._publish_table()
            self._schedule()

    def _cancel_idle(self) -> None:
        if self.idle_timer is not None:
            self.idle_timer.cancel()
            self.idle_timer = None

    def _start_idle(self) -> None:
        self._cancel_idle()
        delay = self.settings.abandon_after if self.status in LIVE else RETIRE_AFTER
        loop = asyncio.get_running_loop()
        self.idle_timer = loop.call_later(delay, lambda: self._spawn(self._idle()))

    async def _idle(self) -> None:
        async with self.lock:
            self.idle_timer = None
            if self.conns:
                return
            await self._abandon("idle")

    async def _abandon(self, why: str) -> None:
        """Close a live table for good (its record stays) and take it out of the hall."""
        if self.status in LIVE:
            self.status = "abandoned"
            self._cancel_timer()
            await self.hall.store.run(_set_status, self.id, "abandoned")
            log.info("table_abandoned", table=self.id, why=why)
        self.hall.retire(self)

    async def abandon_if_unwatched(self, why: str) -> bool:
        """Abandon this table unless someone is connected to it; True if it was."""
        async with self.lock:
            if self.conns or self.status not in LIVE:
                return False
            self._cancel_idle()
            await self._abandon(why)
            return True

    def close_all(self, code: int, reason: str) -> None:
        self._cancel_timer()
        self._cancel_idle()
        for s in self.seats:
            if s.away_timer is not None:
                s.away_timer.cancel()
        for c in list(self.conns):
            c.close(code, reason)

    # ------------------------------------------------------------------ lobby
    def _may_manage(self, who: Principal) -> bool:
        return who.user_id == self.owner_id or self.seat_of(who.user_id) is not None

    async def take_seat(self, who: Principal, seat: int) -> None:
        async with self.lock:
            if self.status != "open":
                raise TableError(409, "started", "the table has started")
            if self.seat_of(who.user_id) is not None:
                raise TableError(409, "seated", "you already have a seat at this table")
            if not self.seats[seat].empty:
                raise TableError(409, "taken", "that seat is taken")
            await self.hall.store.run(_set_seat, self.id, seat, who.user_id, None)
            self.seats[seat] = SeatState(user_id=who.user_id, name=who.name)
            self._publish_table()
            await self._refresh_titles()

    async def leave_seat(self, who: Principal, seat: int) -> None:
        async with self.lock:
            s = self.seats[seat]
            if self.status != "open":
                raise TableError(409, "started", "seats are fixed once the table has started")
            if s.bot is not None:
                if not self._may_manage(who):
                    raise TableError(403, "forbidden", "only the owner or a seated player may")
            elif s.user_id != who.user_id:
                raise TableError(403, "forbidden", "that is not your seat")
            await self.hall.store.run(_set_seat, self.id, seat, None, None)
            self.seats[seat] = SeatState()
            self._publish_table()

    async def set_bot(self, who: Principal, seat: int, bot: str) -> None:
        if bot not in ALLOWED_BOTS:
            raise TableError(400, "bad_bot", f"bots: {', '.join(ALLOWED_BOTS)}")
        async with self.lock:
            if self.status != "open":
                raise TableError(409, "started", "the table has started")
            if not self._may_manage(who):
                raise TableError(403, "forbidden", "only the owner or a seated player may")
            if not self.seats[seat].empty:
                raise TableError(409, "taken", "that seat is taken")
            await self.hall.store.run(_set_seat, self.id, seat, None, bot)
            self.seats[seat] = SeatState(bot=bot)
            self._publish_table()
            await self._refresh_titles()

    async def start(self, who: Principal | None) -> None:
        async with self.lock:
            if self.status != "open":
                raise TableError(409, "started", "the table has started")
            if who is not None and not self._may_manage(who):
                raise TableError(403, "forbidden", "only the owner or a seated player may")
            if any(s.empty for s in self.seats):
                raise TableError(409, "seats_empty", "four players (people or bots) are needed")
            match = Match(self.rules, auto_deal=False)
            names = [s.name if s.user_id is not None else f"bot:{s.bot}" for s in self.seats]
            header = records.header(match, seats=[n or "?" for n in names],
                                    extra={"table": self.id})
            await self.hall.store.run(_start, self.id, header)
            self.header = header
            self.match = match
            self.status = "playing"
            self._count_seqs()
            for i, s in enumerate(self.seats):
                if s.user_id is not None and s.conns == 0:
                    self._away(i)
            log.info("table_started", table=self.id, rules=self.rules.name)
            self._publish_table()
            self.hall.count_tables()
            self._schedule()

    def record(self) -> str:
        """The record of the finished hands (seeds revealed); the hand in play is left out."""
        m = self.match
        if m is None or self.header is None:
            raise TableError(404, "no_record", "the table has not started")
        return records.dumps(self.header, records.finished_events(m))


class CommitError(Exception):
    """The database refused a commit; the table was rebuilt from what it holds."""


# ------------------------------------------------------------------- db helpers


def _set_seat(session: Session, table_id: str, seat: int, user_id: int | None,
              bot: str | None) -> None:
    session.execute(
        update(db.SeatRow)
        .where(db.SeatRow.table_id == table_id, db.SeatRow.seat == seat)
        .values(user_id=user_id, bot=bot)
    )


def _start(session: Session, table_id: str, header: dict[str, Any]) -> None:
    session.execute(
        update(db.TableRow).where(db.TableRow.id == table_id)
        .values(status="playing", header=header, updated_at=db.now())
    )


def _set_status(session: Session, table_id: str, status: str) -> None:
    session.execute(
        update(db.TableRow).where(db.TableRow.id == table_id)
        .values(status=status, updated_at=db.now())
    )


def _create(session: Session, row: db.TableRow) -> None:
    session.add(row)
    session.flush()
    for i in range(4):
        session.add(db.SeatRow(table_id=row.id, seat=i, user_id=None, bot=None))


@dataclass
class Loaded:
    row: db.TableRow
    seats: list[SeatState]
    actions: list[db.ActionRow]
    last_event: dict[str, Any] | None


def _load(session: Session, statuses: tuple[str, ...] | None, table_id: str | None
          ) -> list[Loaded]:
    q = select(db.TableRow).where(db.TableRow.preset.not_like("quoridor%"))  # board_tables
    if statuses is not None:
        q = q.where(db.TableRow.status.in_(statuses))
    if table_id is not None:
        q = q.where(db.TableRow.id == table_id)
    out = []
    for row in session.scalars(q.order_by(db.TableRow.created_at)):
        seats = [SeatState() for _ in range(4)]
        for seat, user_id, bot, name in session.execute(
            select(db.SeatRow.seat, db.SeatRow.user_id, db.SeatRow.bot, db.User.name)
            .outerjoin(db.User, db.User.id == db.SeatRow.user_id)
            .where(db.SeatRow.table_id == row.id)
        ):
            seats[seat] = SeatState(user_id=user_id, name=name, bot=bot)
        actions = db.load_actions(session, row.id) if row.header is not None else []
        last = None
        if row.n_events:
            ev = session.get(db.EventRow, (row.id, row.n_events))
            last = None if ev is None else ev.data
        out.append(Loaded(row, seats, actions, last))
    return out


# ---------------------------------------------------------------------------- hall


class Hall:
    """Every live table of this server process."""

    def __init__(self, settings: Settings, store: db.Store, metrics: Metrics) -> None:
        self.settings = settings
        self.store = store
        self.metrics = metrics
        self.tables: dict[str, Table] = {}
        self.codes: dict[str, str] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.base_url: str | None = None
        self.cold_cache: OrderedDict[str, Table] = OrderedDict()
        self.ladder_cache: dict[tuple[str, str], int] = {}  # (game, player) -> total

    async def ladder_totals(self, game: str, keys: list[str], fresh: bool) -> dict[str, int]:
        """Ladder totals for seat titles, cached per player; ``fresh`` rereads them (after a
        rated result). Players with no result yet count 0."""
        missing = keys if fresh else [k for k in keys if (game, k) not in self.ladder_cache]
        if missing:
            found = await self.store.run(ladder_db.totals, game, sorted(set(missing)))
            if len(self.ladder_cache) > 50_000:
                self.ladder_cache.clear()
            for k in missing:
                self.ladder_cache[(game, k)] = found.get(k, 0)
        return {k: self.ladder_cache.get((game, k), 0) for k in keys}

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def count_tables(self) -> None:
        counts: dict[str, int] = {"open": 0, "playing": 0, "finished": 0}
        for t in self.tables.values():
            counts[t.status] = counts.get(t.status, 0) + 1
        for status, n in counts.items():
            self.metrics.tables.labels(status).set(n)

    # -------------------------------------------------------------- lifecycle
    async def startup(self) -> None:
        await asyncio.to_thread(self.store.migrate)
        loaded = await self.store.run(_load, LIVE, None)
        for item in loaded:
            table = Table(self, item.row, item.seats)
            try:
                if item.row.header is not None:
                    table._replay(item.actions)
                    m = table.match
                    assert m is not None
                    if len(m.events) != item.row.n_events:
                        raise GunziError(f"{len(m.events)} events replayed, "
                                         f"{item.row.n_events} stored")
                    if item.last_event is not None and m.events[-1].to_dict() != item.last_event:
                        raise GunziError("the last replayed event differs from the stored one")
            except Exception as exc:
                log.error("restore_failed", table=item.row.id, error=str(exc)[:200])
                continue
            self._register(table)
            if table.status == "playing":
                for i, s in enumerate(table.seats):
                    if s.user_id is not None:
                        table._away(i)
                table._schedule()
            table._start_idle()
            self.spawn(table.refresh_titles())
            self.metrics.restored.inc()
        self.count_tables()
        kind = "sqlite" if self.settings.is_sqlite else "postgresql"
        log.info("hall_started", tables=len(self.tables), db=kind)

    async def shutdown(self) -> None:
        for table in list(self.tables.values()):
            table.close_all(1012, "server restarting")
        for task in list(self.tasks):
            task.cancel()
        await asyncio.sleep(0)
        await asyncio.to_thread(self.store.close)

    def _register(self, table: Table) -> None:
        self.tables[table.id] = table
        if table.code:
            self.codes[table.code] = table.id

    def retire(self, table: Table) -> None:
        table.close_all(1001, "table closed")
        self.tables.pop(table.id, None)
        if table.code:
            self.codes.pop(table.code, None)
        self.count_tables()

    def revoke_session(self, session_id: int) -> None:
        for table in self.tables.values():
            for c in list(table.conns):
                if c.session_id == session_id:
                    c.close(1008, "logged out")

    # ------------------------------------------------------------------ lookup
    def get(self, table_id: str) -> Table | None:
        return self.tables.get(table_id)

    def by_code(self, code: str) -> Table | None:
        tid = self.codes.get(code.strip().upper())
        return None if tid is None else self.tables.get(tid)

    async def cold(self, table_id: str) -> Table | None:
        """A table that is no longer live, rebuilt read-only from the database (cached)."""
        if len(table_id) > 24:
            return None
        if table_id in self.cold_cache:
            self.cold_cache.move_to_end(table_id)
            return self.cold_cache[table_id]
        loaded = await self.store.run(_load, None, table_id)
        if not loaded:
            return None
        item = loaded[0]
        table = Table(self, item.row, item.seats)
        if item.row.header is not None:
            table._replay(item.actions)
        await table._refresh_titles()
        if table.status not in LIVE:  # a live table may come back; a finished one is final
            self.cold_cache[table_id] = table
            while len(self.cold_cache) > 32:
                self.cold_cache.popitem(last=False)
        return table

    def public_tables(self) -> list[dict[str, Any]]:
        return [t.info() for t in self.tables.values() if t.public and t.status in LIVE]

    # ------------------------------------------------------------------ create
    async def create(self, who: Principal, body: CreateTable | QuickPlay,
                     *, public: bool, quick: bool = False) -> Table:
        if len(self.tables) >= self.settings.max_tables:
            raise TableError(503, "hall_full", "the hall is full; try again later")
        owned = sum(1 for t in self.tables.values()
                    if t.owner_id == who.user_id and t.status in LIVE and t.quick == quick)
        if owned >= self.settings.max_tables_per_user:
            raise TableError(429, "too_many_tables",
                             f"at most {self.settings.max_tables_per_user} open tables each")
        if body.preset not in PRESETS:
            raise TableError(400, "bad_preset", f"presets: {', '.join(PRESETS)}")
        try:
            rules = preset(body.preset, **body.options)
        except (GunziError, TypeError) as exc:
            raise TableError(400, "bad_rules", str(exc)[:500]) from None
        clock = self.settings.default_clock if body.clock is None else body.clock
        if clock > self.settings.max_clock:
            raise TableError(400, "bad_clock", f"the clock is 0..{self.settings.max_clock} s")
        name = getattr(body, "name", None) or f"{who.name}'s table"
        t = db.now()
        code = None if public else "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))
        row = db.TableRow(
            id=secrets.token_urlsafe(9), code=code, name=clean_text(name, 64), public=public,
            preset=body.preset, rules={"name": rules.name, **rules.options()}, clock=clock,
            max_hands=body.max_hands, status="open", owner_id=who.user_id, header=None,
            created_at=t, updated_at=t, n_actions=0, n_events=0,
            counter=body.counter, quick=quick,
        )
        await self.store.run(_create, row)
        table = Table(self, row, [SeatState() for _ in range(4)])
        self._register(table)
        table._start_idle()
        self.count_tables()
        log.info("table_created", table=table.id, public=public, rules=rules.name)
        return table

    async def quickplay(self, who: Principal, body: QuickPlay) -> Table:
        """A new table with the player at seat 0 and three bots, started at once.

        Quick-play tables are counted apart from tables made in the lobby, and a
        player's earlier quick-play tables that no browser has open any more are
        abandoned first (their records stay), so repeated clicks never pile up
        against the per-player limit; ones still open in a tab are left alone."""
        bot = body.bot or self.settings.bot
        if bot not in ALLOWED_BOTS:
            raise TableError(400, "bad_bot", f"bots: {', '.join(ALLOWED_BOTS)}")
        for old in [t for t in self.tables.values()
                    if t.quick and t.owner_id == who.user_id and t.status in LIVE]:
            await old.abandon_if_unwatched("replaced by quick play")
        table = await self.create(who, body, public=body.public, quick=True)
        await table.take_seat(who, 0)
        for seat in (1, 2, 3):
            await table.set_bot(who, seat, bot)
        await table.start(who)
        return table
