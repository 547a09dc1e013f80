"""Tables: one actor per table (the game + bots + clock + persistence), and the card hall.

There is one table class, :class:`Table`, for every game; what differs by game is a
:class:`gunzi.server.table_games.TableGame` chosen by the table's preset (the card
``Match`` and the 步步为营 ``QuoridorGame``, both driven through the game protocol).

Each table has one ``asyncio.Lock``; everything that reads or changes its game runs under
it, so the lock holder is the table's only writer. An accepted action goes: validate →
apply → **commit** (the action and every event it produced, one transaction) → frames to
every socket → ack. Nothing is acknowledged or broadcast before it is committed; a refused
commit rebuilds the game from the database (:meth:`SeatedTable._act`, ``CommitError``).

What leaves a table goes through the game's numbering and view only: each group of
recipients (at a card table seats 0..3 and the spectators, via :mod:`gunzi.engine.view`;
at a board table everybody) gets its own numbered events and its own ``view``.

Every game gets the same automatic steps: the bot's moves (a bot seat, or a person's seat
under 托管), the turn clock (``clock`` seconds per decision: a timeout lets the bot decide
once, the second in a row puts the seat in 托管), and a chance step (a card deal, its seed
``secrets.randbits(256)`` stored with the action so the actions replay exactly).
"""
from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Coroutine
from typing import Any

import structlog
from sqlalchemy import ColumnElement

from gunzi import core
from gunzi.engine.actions import CHANCE
from gunzi.engine.errors import GunziError, IllegalActionError
from gunzi.engine.rules import PRESETS, preset
from gunzi.ladder.own_play import TIMEOUTS_TO_AUTO, OwnPlay
from gunzi.ladder.result import LadderResult
from gunzi.server import db, ladder_db
from gunzi.server.auth import Principal
from gunzi.server.halls import CODE_ALPHABET, BaseHall, Loaded, check_replay, mark_started
from gunzi.server.limits import Throttle
from gunzi.server.presence import (
    LIVE,
    CommitError,
    Conn,
    HallLike,
    SeatedTable,
    SeatState,
    TableError,
    clean_text,
    where,
)
from gunzi.server.protocol import CreateTable, QuickPlay, dumps
from gunzi.server.table_games import ALLOWED_BOTS, TableGame, table_game

log = structlog.get_logger("gunzi.tables")

RESYNC_MAX = 5000  # larger gaps get a snapshot instead of the missing events
RESUME_GRACE = 5.0  # s of turn clock a pending decision keeps at least after a takeover

__all__ = ["ALLOWED_BOTS", "CODE_ALPHABET", "LIVE", "CommitError", "Conn", "Hall", "SeatState",
           "Table", "TableError", "TableHall", "clean_text", "where"]


class Table(SeatedTable):
    """A table of any game: its :class:`TableGame`, bots, clock, chat and frames."""

    def __init__(self, hall: HallLike, row: db.TableRow, seats: list[SeatState]) -> None:
        super().__init__(hall, row, seats)
        self.game: TableGame = table_game(row.preset, dict(row.rules))
        g = self.game
        self.bots_allowed = g.bots_allowed
        self.ladder_game = g.ladder_game  # the ladder its results go to
        self.action_types, self.action_keys = g.action_types, g.action_keys
        self.action_shape = g.action_shape
        self.clock = row.clock
        self.max_hands = row.max_hands
        self.counter = row.counter
        self.header = row.header
        self.seq = [0] * g.groups
        self.last_turn: list[dict[str, Any] | None] = [None] * g.groups
        self.bots: list[Any] = [None] * len(seats)
        self.decision_key = -1
        self.deadline: float | None = None  # monotonic
        self.deadline_wall: int | None = None  # epoch ms, for clients
        self.chat: deque[dict[str, Any]] = deque(maxlen=self.settings.chat_history)
        self.chat_limit = Throttle(self.settings.chat_rate_messages,
                                   self.settings.chat_rate_window)

    # ------------------------------------------------------------------ info
    def info(self) -> dict[str, Any]:
        base = (self.settings.public_url or self.hall.base_url or "").rstrip("/")
        g = self.game
        rules = g.rules
        return {
            "id": self.id,
            "name": self.name,
            "public": self.public,
            "code": self.code,
            "link": f"{base}/{g.page}?t={self.id}",
            "preset": self.preset,
            "rules": {"name": rules.name, **rules.options()},
            "clock": self.clock,
            "max_hands": self.max_hands,
            "counter": self.counter,
            "quick": self.quick,
            "status": self.status,
            **g.info(),
            "seats": [s.public(i) for i, s in enumerate(self.seats)],
            "spectators": self._spectators(),
            "owner": self._owner_name(),
            "host": self.host,
            "created_at": self.created_at,
        }

    # --------------------------------------------------------------- helpers
    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        self.hall.spawn(coro)

    def _bot(self, seat: int) -> Any:
        bot = self.bots[seat]
        if bot is None:
            name = self.seats[seat].bot or self.game.auto_bot(self.settings)
            bot = self.bots[seat] = self.game.make_bot(name)
        return bot

    def _turn(self, r: int | None) -> dict[str, Any]:
        g = self.game
        if g.state is None or self.status != "playing":
            return {"seat": None, "deadline": None, "clock": self.clock}
        to = g.visible_to_act(r)
        deadline = None
        if to is not None and to >= 0 and self.decision_key == g.n_events:
            deadline = self.deadline_wall
        return {"seat": to, "deadline": deadline, "clock": self.clock}

    def _by_group(self) -> list[list[Conn]]:
        out: list[list[Conn]] = [[] for _ in range(self.game.groups)]
        for c in self.conns:
            out[self.game.group(c.seat)].append(c)
        return out

    def _publish(self, start: int) -> None:
        """Frames for the events from ``start`` on: per group of recipients, as the game
        numbers them."""
        g = self.game
        groups = self._by_group()
        sent = 0
        for i, conns in enumerate(groups):
            r = g.recipient(i)
            out = g.numbered(r, start, self.seq[i])
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
                        with_view = dumps({**frame, "view": g.view(r)})
                    c.send(with_view)
                else:
                    if plain is None:
                        plain = dumps(frame)
                    c.send(plain)
                sent += 1
        self.hall.metrics.frames.inc(sent)

    def _count_seqs(self) -> None:
        for i in range(self.game.groups):
            self.seq[i] = self.game.seq_at(self.game.recipient(i))

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
        g = self.game
        state = g.state
        if state is None or self.status != "playing" or self.broken or state.is_over:
            return
        key = g.n_events
        to = state.to_act
        if to is None:
            return
        if to == CHANCE:
            done = g.hands_done()
            delay = self.settings.hand_pause if done else 0.0
            gone = self._gone_since()
            if done and gone is not None:
                # Nobody is here: the next hand waits out the players' grace (a reload, a
                # restart), then the table ends instead of dealing (see _tick).
                delay = max(delay, gone + self.settings.away_after - time.monotonic())
            self._later(delay, key, "deal")
            return
        seat = self.seats[to]
        if seat.bot is not None or seat.auto:
            self._later(g.bot_delay(self.settings), key, "bot")
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

    def _reschedule(self) -> None:
        """:meth:`_schedule` outside an action, and the turn sent if it changed with it: a
        seat taken back from 托管 on its turn starts its clock here, and its socket must
        see that deadline (no action follows to carry it)."""
        self._schedule()
        if self.game.state is not None:
            self._publish(self.game.n_events)

    async def _tick(self, key: int, kind: str) -> None:
        async with self.lock:
            g = self.game
            state = g.state
            if state is None or self.status != "playing" or self.broken or g.n_events != key:
                return
            if kind in ("bot", "timeout") and state.to_act is not None and state.to_act >= 0:
                s = self.seats[state.to_act]
                if (kind == "bot") != (s.bot is not None or s.auto):
                    # Due before the seat changed hands (托管 turned off or on while this
                    # step waited for the lock): the bot must not play a seat taken back.
                    self._schedule()
                    return
            try:
                if kind == "deal" and g.hands_done() and self._gone_since() is not None:
                    if self._unwatched():  # no ghost hand: the table ends here
                        await self._abandon("unwatched")
                    else:
                        self._schedule()  # they left during the pause: wait out the grace
                elif kind == "deal":
                    await self._apply(g.chance(), "server")
                elif kind == "bot":
                    await self._bot_move("bot" if self.seats[state.to_act or 0].bot else "auto")
                elif kind == "timeout":
                    seat = state.to_act
                    assert seat is not None and seat >= 0
                    self.hall.metrics.timeouts.inc()
                    # The bot makes this one decision; the second timeout in a row puts the
                    # seat in 托管 until the player returns. While drawing the bot answers
                    # quietly: a public status change would tell who was asked.
                    if not g.quiet() and self.own.timeouts[seat] + 1 >= TIMEOUTS_TO_AUTO:
                        self.seats[seat].auto = True
                        self.seats[seat].auto_reason = "timeout"
                        self._publish_table()
                    await self._bot_move("timeout")
            except CommitError:
                pass  # rebuilt from the database, which scheduled the next step
            except Exception as exc:
                log.error("table_tick_failed", table=self.id, kind=kind, **where(exc))
                self.retry_at = time.monotonic() + 1.0
                self._schedule()

    async def _bot_move(self, source: str) -> None:
        state = self.game.state
        assert state is not None and state.to_act is not None and state.to_act >= 0
        seat = state.to_act
        t0 = time.perf_counter()
        action = await self._think(seat)
        self.hall.metrics.bot_seconds.observe(time.perf_counter() - t0)
        await self._apply(action, source)

    def _suggest(self, seat: int) -> Any:
        return self.game.suggest(self._bot(seat), seat, self.rng)

    async def _think(self, seat: int) -> Any:
        """The seat's bot's action, never on the event loop's back: boards think in a
        thread, card bots in a batch or the hall's bot threads (``suggest_batched``)."""
        if self.game.bot_in_thread:
            return await asyncio.to_thread(self._suggest, seat)
        return await self.game.suggest_batched(self._bot(seat), seat, self.rng,
                                               self.hall.bot_batch)

    # ------------------------------------------------------------------ apply
    def _ends(self) -> bool:
        """Is the table over once the game is where it is (the game, or the hand limit)?"""
        g = self.game
        assert g.state is not None
        return g.state.is_over or bool(self.max_hands and g.between_hands()
                                       and g.hands_done() >= self.max_hands)

    def _status_after(self) -> str:
        return "finished" if self._ends() else self.status

    def _tally(self, seat: int, source: str, quiet: bool,
               hands_before: int) -> tuple[tuple[int, ...], tuple[bool, ...]] | None:
        """Feed an applied action to the own-play tally (live and on replay alike); the
        points and counted seats of the ladder result it closed, if it closed one."""
        self.own.decided(seat, source, quiet=quiet)
        if self.game.hands_done() == hands_before:
            return None
        self.own.hand_ended()
        points = self.game.points(table_ends=self._ends())
        return None if points is None else (points, self.own.result_closed())

    async def _apply(
        self, action: Any, source: str, user_id: int | None = None, cid: str | None = None
    ) -> int:
        """Validate, apply, commit, broadcast. Raises GunziError (nothing changed) or
        CommitError (the game was rebuilt from the database)."""
        g = self.game
        t_start = time.perf_counter()
        start = g.n_events
        hands_before = g.hands_done()
        quiet = g.quiet()
        g.apply(action)  # raises on an illegal action, changing nothing
        closed = self._tally(action.seat, source, quiet, hands_before)
        n = self.n_actions + 1
        status = self._status_after()
        action_row = {
            "table_id": self.id, "n": n, "seat": action.seat, "source": source,
            "user_id": user_id, "cid": cid, "data": g.action_data(action, start),
            "v_end": g.n_events, "created_at": db.now(),
        }
        event_rows = [{"table_id": self.id, "n": n, **row} for row in g.event_rows(start)]
        table_row = {"n_actions": n, "n_events": g.n_events, "status": status,
                     "updated_at": db.now()}
        ladder = None if closed is None else self._ladder_result(*closed)
        t0 = time.perf_counter()
        try:
            self._check_owner()
            await self.hall.store.commit(self.id, action_row, event_rows, table_row,
                                         None if ladder is None else ladder_db.writer(ladder),
                                         self.fence)
        except Exception as exc:
            raise await self._commit_failed(exc) from exc
        self.hall.metrics.commit_seconds.observe(time.perf_counter() - t0)
        self.n_actions = n
        if cid is not None:
            self.cid_index[(user_id, cid)] = g.n_events
        if g.hands_done() > hands_before:
            for bot in self.bots:
                if bot is not None:
                    g.new_hand(bot)
        status_changed = status != self.status
        self.status = status
        self._schedule()
        self._publish(start)
        if ladder is not None and ladder.rated:
            await self._refresh_titles(fresh=True)
        if status_changed:
            self._publish_table()
            self.hall.count_tables()
            log.info("table_finished", table=self.id, hands=g.hands_done())
        self.hall.metrics.actions.labels(source).inc()
        if source == "player":
            self.hall.metrics.action_seconds.observe(time.perf_counter() - t_start)
        return g.n_events

    def _ladder_result(self, points: tuple[int, ...], own: tuple[bool, ...]) -> LadderResult:
        """The ladder result the action just closed (a 打滚子 hand, a classic game, a
        步步为营 game)."""
        keys = tuple(s.ladder_key or "?" for s in self.seats)
        rated, counted = self._counted(own)
        return LadderResult(self.ladder_game, self.id, self.game.ladder_hand(), keys, points,
                            rated, self.game.teams(), counted)

    def _cut_short(self) -> LadderResult | None:
        """A classic game stopped after some of its hands is scored where it stopped, as the
        hand limit scores it (docs/ladder.md); 打滚子 scores every hand as it ends."""
        if self.game.state is None or not self.game.hands_done() or self.own.open_hands == 0:
            return None
        points = self.game.points(table_ends=True)
        return None if points is None else self._ladder_result(points, self.own.counted())

    def _replay(self, rows: list[db.ActionRow]) -> None:
        assert self.header is not None
        g = self.game
        g.restart(self.header)
        cids: dict[tuple[int | None, str], int] = {}
        self.own = OwnPlay(len(self.seats))
        for row in rows:
            hands_before, quiet = g.hands_done(), g.quiet()
            g.apply(g.stored_action(dict(row.data)))
            self._tally(row.seat, row.source, quiet, hands_before)
            if g.n_events != row.v_end:
                raise GunziError(f"action {row.n} replays to {g.n_events} events, "
                                 f"stored {row.v_end}")
            if row.cid is not None:
                cids[(row.user_id, row.cid)] = row.v_end
        self.n_actions = len(rows)
        self.cid_index = cids
        self.bots = [None] * len(self.seats)
        self._count_seqs()

    def rebuild(self, item: Loaded, check: bool) -> None:
        """Replay the stored table (restart, cold copies); ``check``: raise if the events
        differ from the stored ones."""
        if item.row.header is None:
            return
        self._replay(item.actions)
        if check:
            check_replay(self.game.events(), item)
        if self.clock > 0 and item.actions:
            self._resume_clock(item.actions[-1].created_at)

    def _resume_clock(self, since: float) -> None:
        """The turn clock of the decision pending since ``since`` (the last stored action,
        epoch s) runs on from there after a restart or a takeover by another process, not
        from full: a seat with 1 s left got a fresh 30 s at the new owner. It keeps at
        least RESUME_GRACE s (at most the clock), since its player's socket is only then
        finding the table again."""
        left = max(self.clock - (time.time() - since), min(self.clock, RESUME_GRACE))
        self.decision_key = self.game.n_events
        self.deadline = time.monotonic() + left
        self.deadline_wall = int((time.time() + left) * 1000)

    # --------------------------------------------------------------- players
    # (the acting path is SeatedTable._act; these are its game parts)
    def _has_game(self) -> bool:
        return self.game.state is not None

    def _seq_of(self, seat: int | None) -> int:
        return self.seq[self.game.group(seat)]

    def _seq_at(self, seat: int | None, v_end: int) -> int:
        return self.game.seq_at(seat, v_end)

    def _action_from(self, payload: dict[str, Any], seat: int) -> Any:
        return self.game.action_from(payload, seat)

    def _illegal_detail(self, seat: int, exc: IllegalActionError) -> dict[str, Any]:
        return self.game.illegal_detail(seat, exc)

    async def hint(self, seat: int | None) -> dict[str, Any]:
        """The bot's suggestion for the seat's current decision."""
        async with self.lock:
            state = self.game.state
            if state is None or self.status != "playing" or seat is None \
                    or state.to_act != seat:
                raise TableError(409, "no_decision", "you have no decision to make now")
            return self.game.wire(await self._think(seat))

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
            self._reschedule()

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
            **self.game.welcome(),
            "table": self.info(),
            "seat": conn.seat,
            "role": "player" if conn.seat is not None else "spectator",
            "you": None if conn.user_id is None else {"id": conn.user_id, "name": conn.name},
            "server_time": int(time.time() * 1000),
            "chat": list(self.chat),
        }

    def _sync(self, conn: Conn, last_seq: int | None) -> None:
        g = self.game
        r = conn.seat
        if g.state is None:
            conn.send(dumps({"t": "snapshot", "seq": 0, "view": None, "events": [],
                             "turn": self._turn(r)}))
            return
        cur = self.seq[g.group(r)]
        if last_seq is not None and last_seq <= cur and cur - last_seq <= RESYNC_MAX:
            frame: dict[str, Any] = {"t": "events", "seq": cur, "events": g.stream(r, last_seq),
                                     "turn": self._turn(r), "resync": True}
            if conn.views:
                frame["view"] = g.view(r)
            conn.send(dumps(frame))
            return
        conn.send(dumps({"t": "snapshot", "seq": cur, "view": g.view(r),
                         "events": g.snapshot_events(r), "turn": self._turn(r)}))

    def _attached(self, conn: Conn) -> None:
        self.last_turn[self.game.group(conn.seat)] = self._turn(conn.seat)

    # ------------------------------------------------------------------ lobby
    def _seat_names(self) -> list[str]:
        return [(s.name or "?") if s.user_id is not None else f"bot:{s.bot}" if s.bot
                else "empty" for s in self.seats]

    async def start(self, who: Principal | None) -> None:
        async with self.lock:
            self._check_start(who)
            header = self.game.begin(self._seat_names(), self.id)
            await self._write(mark_started, self.id, header)
            self.header = header
            self._count_seqs()
            self._mark_started()
            log.info("table_started", table=self.id, rules=self.game.rules.name)
            self._publish_table()
            self.hall.count_tables()
            self._schedule()
            if self.game.state is not None and self.game.state.to_act != CHANCE:
                self._publish(self.game.n_events)  # a person to act first: say so now

    def record(self) -> str:
        """The table's record (JSON Lines); see :meth:`TableGame.record`."""
        if self.game.state is None or self.header is None:
            raise TableError(404, "no_record", "the table has not started")
        return self.game.record(self.header, self._seat_names(), self.id)


# ---------------------------------------------------------------------------- hall


class TableHall(BaseHall[Table]):
    """Every live table of one kind (the card hall, the 步步为营 hall): one table class."""

    def _new_table(self, row: db.TableRow, seats: list[SeatState]) -> Table:
        return Table(self, row, seats)

    def _rebuild(self, table: Table, item: Loaded, check: bool) -> None:
        table.rebuild(item, check)

    def _clock(self, clock: int | None) -> int:
        """A new table's turn clock (seconds per decision, 0 off; the server's default)."""
        clock = self.settings.default_clock if clock is None else clock
        if clock > self.settings.max_clock:
            raise TableError(400, "bad_clock", f"the clock is 0..{self.settings.max_clock} s")
        return clock


class Hall(TableHall):
    """Every live card table of this server process."""

    def _which(self) -> ColumnElement[bool]:
        return db.TableRow.preset.not_like("quoridor%")  # the board hall has those

    def count_tables(self) -> None:
        super().count_tables()
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
        log.info("hall_started", tables=len(self.tables), db=kind, core=core.active())

    async def shutdown(self) -> None:
        await self._stop()
        self.bot_batch.close()
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
        clock = self._clock(body.clock)
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
