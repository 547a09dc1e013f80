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
from collections import deque
from collections.abc import Coroutine
from typing import Any

import structlog
from sqlalchemy import ColumnElement

from gunzi.bots.base import Bot, observe
from gunzi.engine import actions as A
from gunzi.engine import records
from gunzi.engine.actions import CHANCE, Action
from gunzi.engine.errors import GunziError, IllegalActionError
from gunzi.engine.match import Match, Phase
from gunzi.engine.rules import PRESETS, Ruleset, from_options, preset
from gunzi.engine.view import numbered, seq_at, stream, view, visible_to_act
from gunzi.ladder.own_play import TIMEOUTS_TO_AUTO, OwnPlay
from gunzi.ladder.points import Points, closed_points, game_of
from gunzi.ladder.result import LadderResult
from gunzi.server import db, refusals
from gunzi.server.auth import Principal
from gunzi.server.halls import CODE_ALPHABET, BaseHall, Loaded, check_replay, mark_started
from gunzi.server.limits import Throttle
from gunzi.server.presence import (
    LIVE,
    CommitError,
    Conn,
    SeatedTable,
    SeatState,
    TableError,
    clean_text,
    where,
)
from gunzi.server.protocol import ACTION_KEYS, PLAYER_ACTIONS, CreateTable, QuickPlay, dumps

log = structlog.get_logger("gunzi.tables")

RECIPIENTS: tuple[int | None, ...] = (0, 1, 2, 3, None)
ALLOWED_BOTS = ("rule", "random")
RESYNC_MAX = 5000  # larger gaps get a snapshot instead of the missing events

__all__ = ["ALLOWED_BOTS", "CODE_ALPHABET", "LIVE", "CommitError", "Conn", "Hall", "SeatState",
           "Table", "TableError", "clean_text", "where"]


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


class Table(SeatedTable):
    """A card table: a :class:`Match`, its bots, clock, chat and per-recipient frames."""

    bots_allowed = ALLOWED_BOTS
    hall: Hall

    def __init__(self, hall: Hall, row: db.TableRow, seats: list[SeatState]) -> None:
        super().__init__(hall, row, seats)
        self.rules: Ruleset = from_options(dict(row.rules))
        self.ladder_game = game_of(self.rules)  # the ladder its results go to
        self.clock = row.clock
        self.max_hands = row.max_hands
        self.counter = row.counter
        self.header = row.header
        self.match: Match | None = None
        self.seq = [0, 0, 0, 0, 0]
        self.last_turn: list[dict[str, Any] | None] = [None] * 5
        self.bots: list[Bot | None] = [None, None, None, None]
        self.decision_key = -1
        self.deadline: float | None = None  # monotonic
        self.deadline_wall: int | None = None  # epoch ms, for clients
        self.chat: deque[dict[str, Any]] = deque(maxlen=self.settings.chat_history)
        self.chat_limit = Throttle(self.settings.chat_rate_messages,
                                   self.settings.chat_rate_window)

    # ------------------------------------------------------------------ info
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
            "host": self.host,
            "created_at": self.created_at,
        }

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
        to = visible_to_act(m, r)
        deadline = None
        if to is not None and to >= 0 and self.decision_key == len(m.events):
            deadline = self.deadline_wall
        return {"seat": to, "deadline": deadline, "clock": self.clock}

    def _by_recipient(self) -> list[list[Conn]]:
        out: list[list[Conn]] = [[], [], [], [], []]
        for c in self.conns:
            out[ridx(c.seat)].append(c)
        return out

    def _publish(self, start: int) -> None:
        """Frames for the events from ``start`` on: per recipient, as ``stream`` numbers them."""
        m = self.match
        assert m is not None
        groups = self._by_recipient()
        sent = 0
        for r in RECIPIENTS:
            i = ridx(r)
            conns = groups[i]
            out = list(numbered(m, r, start, self.seq[i]))
            if out:
                self.seq[i] = out[-1]["seq"]
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
        return seq_at(m, r, v_end)

    def _count_seqs(self) -> None:
        m = self.match
        assert m is not None
        for r in RECIPIENTS:
            self.seq[ridx(r)] = seq_at(m, r)

    # ------------------------------------------------------------- scheduling
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
            delay = self.settings.hand_pause if m.results else 0.0
            gone = self._gone_since()
            if m.results and gone is not None:
                # Nobody is here: the next hand waits out the players' grace (a reload, a
                # restart), then the table ends instead of dealing (see _tick).
                delay = max(delay, gone + self.settings.away_after - time.monotonic())
            self._later(delay, key, "deal")
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
                if kind == "deal" and m.results and self._gone_since() is not None:
                    if self._unwatched():  # no ghost hand: the table ends here
                        await self._abandon("unwatched")
                    else:
                        self._schedule()  # they left during the pause: wait out the grace
                elif kind == "deal":
                    await self._apply(A.deal(m.deal_seed(secrets.randbits(256))), "server")
                elif kind == "bot":
                    await self._bot_move("bot" if self.seats[m.current or 0].bot else "auto")
                elif kind == "timeout":
                    seat = m.current
                    assert seat is not None and seat >= 0
                    self.hall.metrics.timeouts.inc()
                    # The bot makes this one decision; the second timeout in a row puts the
                    # seat in 托管 until the player returns. While drawing the bot answers
                    # quietly: a public status change would tell who was asked.
                    if (m.phase is not Phase.DRAW
                            and self.own.timeouts[seat] + 1 >= TIMEOUTS_TO_AUTO):
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
    def _ends(self, m: Match) -> bool:
        """Is the table over once ``m`` is where it is (the match, or the hand limit)?"""
        return m.over or bool(self.max_hands and m.phase is Phase.DEAL
                              and len(m.results) >= self.max_hands)

    def _status_after(self) -> str:
        assert self.match is not None
        return "finished" if self._ends(self.match) else self.status

    def _tally(self, m: Match, seat: int, source: str, quiet: bool,
               results_before: int) -> tuple[Points, tuple[bool, ...]] | None:
        """Feed an applied action to the own-play tally (live and on replay alike); the
        points and counted seats of the ladder result it closed, if it closed one."""
        self.own.decided(seat, source, quiet=quiet)
        if len(m.results) == results_before:
            return None
        self.own.hand_ended()
        points = closed_points(m, table_ends=self._ends(m))
        return None if points is None else (points, self.own.result_closed())

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
        quiet = m.phase is Phase.DRAW
        m.apply(action, validate=False)
        closed = self._tally(m, action.seat, source, quiet, results_before)
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
        ladder = None if closed is None else self._ladder_result(*closed)
        t0 = time.perf_counter()
        try:
            await self.hall.store.commit(self.id, action_row, event_rows, table_row, ladder)
        except Exception as exc:
            raise await self._commit_failed(exc) from exc
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

    def _ladder_result(self, points: Points, own: tuple[bool, ...]) -> LadderResult:
        """The ladder result the action just closed (a 打滚子 hand, a classic game)."""
        m = self.match
        assert m is not None
        keys = [s.ladder_key or "?" for s in self.seats]
        rated, counted = self._counted(own)
        return LadderResult(self.ladder_game, self.id, int(m.results[-1]["hand"]),
                            (keys[0], keys[1], keys[2], keys[3]), points, rated,
                            counted=counted)

    def _cut_short(self) -> LadderResult | None:
        """A classic game stopped after some of its hands is scored where it stopped, as the
        hand limit scores it (docs/ladder.md); 打滚子 scores every hand as it ends."""
        m = self.match
        if m is None or not m.results or self.own.open_hands == 0:
            return None
        points = closed_points(m, table_ends=True)
        return None if points is None else self._ladder_result(points, self.own.counted())

    def _replay(self, rows: list[db.ActionRow]) -> None:
        assert self.header is not None
        m = records.start_match(self.header)
        cids: dict[tuple[int | None, str], int] = {}
        self.own = OwnPlay(len(self.seats))
        for row in rows:
            results_before, quiet = len(m.results), m.phase is Phase.DRAW
            m.apply(A.from_dict(row.data))
            self._tally(m, row.seat, row.source, quiet, results_before)
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
    # (the acting path is SeatedTable._act; these are its card parts)
    action_types = frozenset(PLAYER_ACTIONS)
    action_keys = ACTION_KEYS
    action_shape = ("an action is {type, cards?, suit?, take?} with type one of "
                    + ", ".join(sorted(PLAYER_ACTIONS)))

    def _has_game(self) -> bool:
        return self.match is not None

    def _seq_of(self, seat: int | None) -> int:
        return self.seq[ridx(seat)]

    def _action_from(self, payload: dict[str, Any], seat: int) -> Action:
        return A.from_dict({**payload, "seat": seat})

    def _illegal_detail(self, seat: int, exc: IllegalActionError) -> dict[str, Any]:
        assert self.match is not None
        return refusals.illegal(self.match, seat, str(exc), exc.rule)

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
            self.own.reset_timeouts(seat)
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

    def _attached(self, conn: Conn) -> None:
        self.last_turn[ridx(conn.seat)] = self._turn(conn.seat)

    # ------------------------------------------------------------------ lobby
    async def start(self, who: Principal | None) -> None:
        async with self.lock:
            self._check_start(who)
            match = Match(self.rules, auto_deal=False)
            names = [s.name if s.user_id is not None else f"bot:{s.bot}" for s in self.seats]
            header = records.header(match, seats=[n or "?" for n in names],
                                    extra={"table": self.id})
            await self.hall.store.run(mark_started, self.id, header)
            self.header = header
            self.match = match
            self._count_seqs()
            self._mark_started()
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


# ---------------------------------------------------------------------------- hall


class Hall(BaseHall[Table]):
    """Every live card table of this server process."""

    def _which(self) -> ColumnElement[bool]:
        return db.TableRow.preset.not_like("quoridor%")  # board_tables has those

    def _new_table(self, row: db.TableRow, seats: list[SeatState]) -> Table:
        return Table(self, row, seats)

    def _rebuild(self, table: Table, item: Loaded, check: bool) -> None:
        if item.row.header is None:
            return
        table._replay(item.actions)
        assert table.match is not None
        if check:
            check_replay(table.match.events, item)

    def count_tables(self) -> None:
        counts: dict[str, int] = {"open": 0, "playing": 0, "finished": 0}
        for t in self.tables.values():
            counts[t.status] = counts.get(t.status, 0) + 1
        for status, n in counts.items():
            self.metrics.tables.labels(status).set(n)

    # -------------------------------------------------------------- lifecycle
    async def startup(self) -> None:
        await asyncio.to_thread(self.store.migrate)
        await self._restore()
        kind = "sqlite" if self.settings.is_sqlite else "postgresql"
        log.info("hall_started", tables=len(self.tables), db=kind)

    async def shutdown(self) -> None:
        await self._stop()
        await asyncio.to_thread(self.store.close)

    # ------------------------------------------------------------------ create
    async def create(self, who: Principal, body: CreateTable | QuickPlay,
                     *, public: bool, quick: bool = False) -> Table:
        self._check_room(who, quick)
        if body.preset not in PRESETS:
            raise TableError(400, "bad_preset", f"presets: {', '.join(PRESETS)}")
        try:
            rules = preset(body.preset, **body.options)
        except (GunziError, TypeError) as exc:
            raise TableError(400, "bad_rules", str(exc)[:500]) from None
        clock = self.settings.default_clock if body.clock is None else body.clock
        if clock > self.settings.max_clock:
            raise TableError(400, "bad_clock", f"the clock is 0..{self.settings.max_clock} s")
        name = getattr(body, "name", None) or ""  # unnamed: the page says whose table it is
        return await self._open(
            who, name=name, public=public, quick=quick, preset=body.preset,
            rules={"name": rules.name, **rules.options()}, seats=4, clock=clock,
            max_hands=body.max_hands, counter=body.counter)

    async def quickplay(self, who: Principal, body: QuickPlay) -> Table:
        """A new table with the player at seat 0 and three bots, started at once (see
        :meth:`BaseHall._quick`)."""
        return await self._quick(who, body.bot or self.settings.bot, ALLOWED_BOTS,
                                 lambda: self.create(who, body, public=body.public, quick=True))
