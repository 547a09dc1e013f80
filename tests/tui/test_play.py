"""The terminal game played headless by key presses (Textual pilot)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from gunzi.engine import cards as C
from gunzi.engine import records
from gunzi.engine.actions import Kind
from gunzi.engine.events import thaw
from gunzi.engine.match import Match, Phase
from gunzi.engine.rules import preset
from gunzi.engine.view import view
from gunzi.tui.app import GunziApp
from gunzi.tui.i18n import cards_plain, event_text, seat_name
from gunzi.tui.session import Session, stacked_first_deck
from gunzi.tui.widgets import HandView
from helpers import passer, run_until

from .driver import (
    SIZE,
    dealer_session,
    hint_until,
    move_cursor_to,
    run,
    screen_text,
    summary_open,
)


def test_complete_hand_by_keys(tmp_path: Path) -> None:
    """Declare BJ with d+Enter, bury six cards by cursor keys, try an illegal lead, play the
    hand out with the hint key, read the summary; the saved record replays."""
    session = dealer_session(tmp_path)
    app = GunziApp(session, lang="zh", delay=0)

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            m = session.match
            # Seat 0 drew BJ first and is asked at once.
            assert app.turn is not None and app.turn.kind is Kind.DECLARE
            assert "亮主" in app.texts["prompt"]
            await pilot.press("d")
            assert app.chosen() == [C.BJ]
            await pilot.press("enter")
            assert m.dealer == 0 and m.trump == 1  # hearts, from 3H
            # Burying: 45 cards; choose six non-joker side cards by moving the cursor.
            assert app.turn is not None and app.turn.kind is Kind.BURY
            assert len(app.cards) == 45
            # The six lowest side cards: a few key presses left of the first card, wrapping.
            side = [i for i in app._display_order
                    if not m.order.is_trump(app.cards[i])][-6:]
            for i in side[:5]:
                await move_cursor_to(pilot, app, i)
                await pilot.press("space")
            assert sorted(app.selected) == sorted(side[:5])
            # LJ cannot join while the BJ is kept and only one place is left.
            lj = app.cards.index(C.LJ)
            await move_cursor_to(pilot, app, lj)
            await pilot.press("space")
            assert lj not in app.selected and len(app.selected) == 5
            assert "有大王必须先扣大王" in app.status
            # Enter with five cards: the engine's count error, nothing changes.
            events = len(m.events)
            await pilot.press("enter")
            assert "要扣 6 张底牌，不是 5 张" in app.status
            assert len(m.events) == events and m.phase is Phase.BURY
            await move_cursor_to(pilot, app, side[5])
            await pilot.press("space")
            buried = sorted(app.cards[i] for i in side)
            await pilot.press("enter")
            assert m.phase is not Phase.BURY
            assert sorted(m.kitty) == buried or m.kitty_shown  # jokers may join it
            # Others may bury jokers; then the dealer (seat 0) leads.
            assert app.turn is not None and app.turn.kind is Kind.PLAY and not m.trick
            # An illegal lead (BJ with LJ: not identical) shows the engine's text.
            before = (len(m.events), list(m.hands[0]))
            for card in (C.BJ, C.LJ):
                await move_cursor_to(pilot, app, app.cards.index(card))
                await pilot.press("space")
            await pilot.press("enter")
            # In Chinese, with cards as shown in the hand (the engine's text is English).
            assert app.status.startswith("不合法：首出 小王 大王：首出必须是相同的牌")
            assert "seat" not in app.status and "LJ" not in app.status
            assert (len(m.events), list(m.hands[0])) == before
            assert len(app.selected) == 2  # the selection is kept for correction
            app.save_screenshot(filename="gunzi-tui-play.svg", path=str(tmp_path))
            await pilot.press("escape")
            assert not app.selected
            # After a trick, its cards stay on the table (dim) while the next one is played.
            await hint_until(pilot, app, lambda: len(m.tricks) >= 1)
            last = m.tricks[-1]
            assert "上墩 " + cards_plain(last["plays"][0], "zh") in app.texts["table"]
            assert f"上墩 {seat_name('zh', last['winner'])}赢" in app.texts["table"]
            # Play the hand out: hint, then Enter.
            await hint_until(pilot, app, lambda: summary_open(app))
            assert m.results and session.summary is not None
            summary = app.texts["summary"]
            assert "第1局结束" in summary and "抓分方（对方）得分" in summary
            assert str(m.results[0]["score"]) in summary
            text = screen_text(app)
            assert "第1局结束" in text
            # The record was written when the hand ended, and replays.
            record = tmp_path / "game.jsonl"
            with record.open(encoding="utf-8") as fh:
                rep = records.replay(records.read_lines(fh))
            assert len(rep.hands) == 1 and rep.hands[0]["score"] == m.results[0]["score"]
            head = json.loads(record.read_text(encoding="utf-8").splitlines()[0])
            assert head["tui"]["unfinished"] is None
            assert head["seats"][0] == "human"
            # The player's last play is still in the status line under the summary.
            assert app.status.startswith("你出了 ")
            # Enter continues: the next hand is dealt (dealer from the result).
            await pilot.press("enter")
            assert not summary_open(app)
            assert m.hand_no == 2
            # The player's first decision of the new hand: hand 1's play is not shown with it.
            assert app.turn is not None and not app.status.startswith("你出了")
            await pilot.press("q")
        assert app.return_value == record

    run(body)
    assert (tmp_path / "gunzi-tui-play.svg").exists()


def test_bad_keys_change_nothing(tmp_path: Path) -> None:
    session = dealer_session(tmp_path)
    app = GunziApp(session, lang="en", delay=0)

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            m = session.match
            state = (len(m.events), m.phase, list(m.hands[0]))
            await pilot.press("x")
            assert "Unknown key x" in app.status
            await pilot.press("P")  # stop declaring asks: legal while drawing
            assert m.phase is not Phase.DRAW  # the deal ran to its end without us
            assert m.dealer != 0 or m.decl is None
            state = (len(m.events), m.phase, list(m.hands[0]))
            await pilot.press("P")
            assert "Not dealing now" in app.status
            await pilot.press("z", "1")
            assert "Unknown key 1" in app.status
            assert (len(m.events), m.phase, list(m.hands[0])) == state

    run(body)


def test_not_your_turn_and_pass_errors(tmp_path: Path) -> None:
    session = dealer_session(tmp_path)
    app = GunziApp(session, lang="en", delay=0)

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            m = session.match
            await pilot.press("d", "enter")  # declare BJ: seat 0 buries next
            assert app.turn is not None and app.turn.kind is Kind.BURY
            events = len(m.events)
            await pilot.press("p")  # a bury cannot be passed
            assert app.status == "You cannot pass here: you must bury cards"
            assert app.status_error
            await pilot.press("d")  # nothing to cycle when burying
            assert "Nothing to cycle" in app.status
            assert len(m.events) == events

    run(body)


def test_mouse_click_toggles_a_card(tmp_path: Path) -> None:
    session = dealer_session(tmp_path)
    app = GunziApp(session, lang="zh", delay=0)

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("d", "enter")
            hand = app.query_one("#hand", HandView)
            await pilot.pause()
            y, x0, _, index = hand._hits[10]
            # Hits are content coordinates; the click offset counts the padding and border.
            dx = hand.content_region.x - hand.region.x
            dy = hand.content_region.y - hand.region.y
            await pilot.click("#hand", offset=(x0 + dx, y + dy))
            assert index in app.selected and app.cursor == index
            await pilot.click("#hand", offset=(x0 + dx, y + dy))
            assert index not in app.selected

    run(body)


def test_language_toggle_and_counter(tmp_path: Path) -> None:
    session = dealer_session(tmp_path)
    app = GunziApp(session, lang="zh", delay=0)

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            assert "第1局" in app.texts["info"] and "亮主" in app.texts["prompt"]
            assert "空格 选牌" in app.texts["keys"]
            await pilot.press("l")
            assert "Hand 1" in app.texts["info"] and "Declare?" in app.texts["prompt"]
            assert "space select" in app.texts["keys"]
            assert "Language: English" in app.status
            await pilot.press("l")
            assert "第1局" in app.texts["info"]
            # The card counter, from seat 0's view: three decks minus the own hand.
            assert not app.query_one("#counter").display
            await pilot.press("c")
            assert app.query_one("#counter").display
            assert "记牌器" in app.texts["counter"]
            assert " 8 9 10 J Q" in app.texts["counter"] and "T" not in app.texts["counter"]
            counts = session.counter()
            hand = session.match.hands[0]
            assert all(counts[c] == 3 - hand[c] for c in range(C.NUM_TYPES))
            await pilot.press("question_mark")
            assert "按键" in screen_text(app)
            await pilot.press("escape")
            await pilot.press("c")
            assert not app.query_one("#counter").display

    run(body)


def _snapshot(session: Session) -> tuple[Any, ...]:
    m = session.match
    return ([e.to_dict() for e in m.events], view(m, 0), m.to_act, m.phase)


def _continue(session: Session, decisions: int) -> None:
    """Make the human's decisions with the hint, bots in between (no UI)."""
    for _ in range(decisions):
        session.run_bots()
        if session.summary is not None or session.is_over:
            return
        action = session.hint()
        assert action is not None
        assert session.human(action) is None


def test_quit_saves_and_resume_continues_at_the_same_point(tmp_path: Path) -> None:
    session = Session(preset("gunzi"), bots=["random"] * 3, seed=2024,
                      record_path=tmp_path / "match.jsonl")
    app = GunziApp(session, lang="en", delay=0)
    saved: dict[str, Any] = {}

    async def first() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await hint_until(pilot, app, lambda: len(session.match.tricks) >= 5)
            await pilot.press("c")  # the card counter on: kept in the record
            saved["prompt"] = app.texts["prompt"]
            saved["state"] = _snapshot(session)
            await pilot.press("q")

    run(first)
    record = tmp_path / "match.jsonl"
    assert app.return_value == record
    head = json.loads(record.read_text(encoding="utf-8").splitlines()[0])
    unfinished = head["tui"]["unfinished"]
    assert unfinished["hand"] == 1 and unfinished["actions"][0]["type"] == "deal"
    # The finished part is a valid engine record on its own (no hand finished yet).
    with record.open(encoding="utf-8") as fh:
        assert records.replay(records.read_lines(fh)).hands == []

    resumed = Session.resume(record)
    assert resumed.seed == 2024 and resumed.bot_names == ["random"] * 3
    assert _snapshot(resumed) == saved["state"]
    app2 = GunziApp(resumed, delay=0)  # no language given: the saved one

    async def second() -> None:
        async with app2.run_test(size=SIZE) as pilot:
            assert app2.lang == "en" and app2.query_one("#counter").display
            assert app2.texts["prompt"] == saved["prompt"]
            assert app2.status == f"Resumed from {record} (hand 1)"
            await hint_until(pilot, app2, lambda: summary_open(app2))
            await pilot.press("q")

    run(second)
    # Exactness: the original session, continued the same way, gives the same match.
    _continue(session, 1000)
    assert [e.to_dict() for e in resumed.match.events] == \
        [e.to_dict() for e in session.match.events]
    with record.open(encoding="utf-8") as fh:
        rep = records.replay(records.read_lines(fh))
    assert len(rep.hands) == 1


def test_resume_after_finished_hands(tmp_path: Path) -> None:
    """A record with finished hands and a hand in progress rebuilds the same match."""
    session = Session(preset("gunzi"), bots=["random"] * 3, seed=7,
                      record_path=tmp_path / "m.jsonl")
    _continue(session, 1000)  # hand 1
    assert session.summary is not None
    session.acknowledge()
    _continue(session, 20)  # into hand 2
    session.save()
    resumed = Session.resume(tmp_path / "m.jsonl", record_path=tmp_path / "copy.jsonl")
    assert _snapshot(resumed) == _snapshot(session)
    assert resumed.record_path == tmp_path / "copy.jsonl"


def test_classic_hand_by_hint(tmp_path: Path) -> None:
    """Classic 升级 with one deck: plays are checked with match.verify (not listed)."""
    session = Session(preset("classic-1"), bots=["random"] * 3, seed=3,
                      record_path=tmp_path / "c.jsonl")
    app = GunziApp(session, lang="en", delay=0)

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await hint_until(pilot, app, lambda: summary_open(app))
            assert "Hand 1 is over" in app.texts["summary"]

    run(body)
    with (tmp_path / "c.jsonl").open(encoding="utf-8") as fh:
        assert len(records.replay(records.read_lines(fh)).hands) == 1


def test_bot_delay_shows_moves_one_by_one(tmp_path: Path) -> None:
    session = dealer_session(tmp_path)
    # 1.5 s a bot move: the check that only our card is out right after we play must not
    # race a bot on a loaded machine (at 0.3 s a clean-clone CI run saw a bot's card there).
    app = GunziApp(session, lang="en", delay=1.5)

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("d", "enter")
            assert app.turn is not None and app.turn.kind is Kind.BURY
            await pilot.press("h", "enter")
            # The human leads; bots answer with a timer each.
            while session.match.phase is Phase.BURY_JOKERS or app.turn is None:
                await pilot.pause(0.02)
            await pilot.press("h", "enter")
            assert len(session.match.trick) == 1  # only our card so far: bots wait
            assert "Illegal" not in app.status
            await pilot.press("space")
            assert "Not your turn" in app.status
            for _ in range(600):
                if app.turn is not None:
                    break
                await pilot.pause(0.02)
            assert app.turn is not None
            assert len(session.match.tricks) == 1 or session.match.trick

    run(body)


def _later_hand(tmp_path: Path, dealer: int, seed: int) -> Session:
    """A later hand of a round (levels 3/3) owing two tribute cards, seat ``dealer`` dealing."""
    m = Match(preset("gunzi"), auto_deal=False, levels=(1, 1), dealer=dealer, blood=2)
    return Session(bots=["random"] * 3, seed=seed, record_path=tmp_path / "t.jsonl", match=m)


async def _pass_declaring(pilot: Any, app: GunziApp) -> None:
    while app.turn is not None and app.turn.kind is Kind.DECLARE:
        await pilot.press("p")


def test_tribute_by_keys(tmp_path: Path) -> None:
    """Seat 0 is the dealer's 上家: it must give its two biggest non-point cards."""
    session = _later_hand(tmp_path, dealer=1, seed=4)
    app = GunziApp(session, lang="en", delay=0)

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            m = session.match
            await _pass_declaring(pilot, app)
            assert m.tribute_kind == "normal" and m.payer == 0
            assert app.turn is not None and app.turn.kind is Kind.TRIBUTE
            assert "Tribute: give the dealer your 2 biggest" in app.texts["prompt"]
            # The two smallest cards are not a tribute: the engine says which are due.
            events = len(m.events)
            for index in app._display_order[-2:]:
                await move_cursor_to(pilot, app, index)
                await pilot.press("space")
            await pilot.press("enter")
            assert "you must give your 2 biggest non-point cards, including" in app.status
            assert len(m.events) == events
            await pilot.press("escape", "d")
            choice = app.turn.choices()[0]
            assert sorted(app.chosen()) == sorted(choice.cards)
            await pilot.press("enter")
            assert m.tribute_cards == choice.cards
            assert m.phase not in (Phase.TRIBUTE, Phase.RETURN)
            assert "Tribute 2 You→East" in app.texts["info"]
            assert "Tribute (2 cards) You → East: " + cards_plain(choice.cards, "en") \
                in app.texts["log"]

    run(body)


def test_return_by_keys(tmp_path: Path) -> None:
    """Seat 0 deals and gets the tribute; only non-point side cards can be returned."""
    session = _later_hand(tmp_path, dealer=0, seed=4)
    app = GunziApp(session, lang="en", delay=0)

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            m = session.match
            await _pass_declaring(pilot, app)
            assert m.tribute_kind == "normal" and m.payee == 0
            assert app.turn is not None and app.turn.kind is Kind.RETURN
            assert "Return: choose 2 cards for West" in app.texts["prompt"]
            point = next(i for i in app._display_order
                         if C.POINTS[app.cards[i]] and not m.order.is_trump(app.cards[i]))
            await move_cursor_to(pilot, app, point)
            await pilot.press("space")
            assert point not in app.selected
            assert "Cannot select" in app.status and "not point cards" in app.status
            await pilot.press("h")
            assert len(app.selected) == 2
            given = sorted(app.chosen())
            await pilot.press("enter")
            assert m.phase is not Phase.RETURN
            assert m.hands[3][given[0]] >= 1
            await pilot.press("s")
            assert "Saved to" in app.status

    run(body)
    # A match that started mid-round resumes from its header's start and the side field.
    record = tmp_path / "t.jsonl"
    head = json.loads(record.read_text(encoding="utf-8").splitlines()[0])
    assert head["start"] == {"levels": [1, 1], "dealer": 0, "blood": 2}
    assert _snapshot(Session.resume(record)) == _snapshot(session)


def test_match_end(tmp_path: Path) -> None:
    """The last hand's summary says the match is over; q saves the whole match."""
    session = Session(preset("gunzi"), bots=["random"] * 3, seed=1,
                      record_path=tmp_path / "whole.jsonl")
    while not session.is_over:
        _continue(session, 1000)
        if session.summary is not None and not session.is_over:
            session.acknowledge()
    app = GunziApp(session, lang="en", delay=0)

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            assert summary_open(app)
            assert "The match is over" in app.texts["summary"]
            assert "Round over" in app.texts["summary"]
            # l switches the language on the summary too; other keys say which keys work.
            await pilot.press("l")
            assert summary_open(app) and app.lang == "zh"
            assert "比赛结束" in app.texts["summary"] and "比赛结束" in screen_text(app)
            await pilot.press("x")
            assert summary_open(app) and "无效按键 x" in screen_text(app)
            await pilot.press("l")
            assert "The match is over" in screen_text(app) and "无效按键" not in screen_text(app)
            await pilot.press("enter")
            assert "The match is over" in app.texts["prompt"]
            await pilot.press("space")
            assert "no decision" in app.status
            await pilot.press("q")

    run(body)
    with (tmp_path / "whole.jsonl").open(encoding="utf-8") as fh:
        rep = records.replay(records.read_lines(fh))
    assert len(rep.hands) == session.match.hand_no and rep.match.is_over


def test_event_texts_in_both_languages() -> None:
    ev = {"type": "play", "seat": 1, "cards": ["3S"], "attempted": ["AS", "3S"], "trick": 2}
    zh = event_text(ev, "zh")
    en = event_text(ev, "en")
    assert zh is not None and "甩牌失败" in zh.plain and "下家" in zh.plain
    assert en is not None and "Failed throw by East" in en.plain
    assert event_text({"type": "play", "seat": 1, "cards": ["3S"], "trick": 2}, "en") is None
    trick = event_text({"type": "trick", "trick": 3, "winner": 0, "points": 20}, "en")
    assert trick is not None and trick.plain == "Trick 3 won by You: 20 pts"
    # The number of tribute cards is not read as a card; seats not involved see no cards.
    tribute = {"type": "tribute", "seat": 3, "to": 0, "n": 2, "cards": ["7S", "6S"]}
    assert str(event_text(tribute, "en")) == "Tribute (2 cards) West → You: 7♠ 6♠"
    assert str(event_text(tribute, "zh")) == "上家 进贡 2张给 你：7♠ 6♠"
    hidden = {"type": "return", "seat": 1, "to": 2, "n": 1}
    assert str(event_text(hidden, "en")) == "Return (1 card) East → North"


def test_bury_jokers_by_keys(tmp_path: Path) -> None:
    """A bot deals; seat 0 holds two BJ and a LJ and is asked whether to bury jokers."""
    rules = preset("gunzi")
    m = Match(rules, auto_deal=False, levels=(1, 1), dealer=1)
    deck = stacked_first_deck(rules, 1, ["BJ BJ LJ", None, None, None])
    session = Session(bots=["random"] * 3, seed=8, record_path=tmp_path / "j.jsonl", match=m,
                      first_deck=deck)
    app = GunziApp(session, lang="en", delay=0)

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("P")  # no declaring asks for us this deal
            assert app.turn is not None and app.turn.kind is Kind.BURY_JOKERS
            assert "Bury jokers?" in app.texts["prompt"]
            events = len(m.events)
            await move_cursor_to(pilot, app, app.cards.index(C.LJ))
            await pilot.press("space", "enter")
            assert "a big joker must be buried before a little one" in app.status
            assert len(m.events) == events
            await pilot.press("escape", "d")
            choice = app.turn.choices()[0]
            assert choice.cards == (C.BJ,) and app.chosen() == [C.BJ]
            assert "Bury jokers: bury BJ" in app.texts["prompt"]
            await pilot.press("enter")
            ev = next(e for e in reversed(m.events) if e.type == "bury_jokers")
            assert thaw(ev.public)["seat"] == 0 and thaw(ev.public)["cards"] == ["BJ"]
            assert "Jokers buried by You: BJ" in app.texts["log"]

    run(body)


def test_bots_think_off_the_ui_thread(tmp_path: Path) -> None:
    """With a move delay (the interactive default) a bot's card play is computed on a worker
    thread; the screen keeps answering keys meanwhile and the play lands afterwards."""
    import threading

    session = dealer_session(tmp_path, bots="rule")
    threads: list[str] = []  # where each bot card play was computed
    real = session.bot_action

    def spy() -> Any:
        if session.match.phase is Phase.PLAY:
            threads.append(threading.current_thread().name)
        return real()

    session.bot_action = spy  # type: ignore[method-assign]
    app = GunziApp(session, lang="en", delay=0.01)

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            m = session.match
            await pilot.press("d", "enter")  # declare BJ: seat 0 deals
            await hint_until(pilot, app, lambda: m.phase is Phase.PLAY)
            plays_before = sum(1 for e in m.events if e.type == "play")
            for _ in range(6):  # the human leads by hint; bots answer on their own
                for _ in range(200):
                    if app.turn is not None and m.to_act == 0:
                        break
                    await pilot.pause(0.02)
                await pilot.press("h", "enter")
            for _ in range(200):
                if m.to_act == 0:
                    break
                await pilot.pause(0.02)
            assert sum(1 for e in m.events if e.type == "play") >= plays_before + 6 * 2
            await pilot.press("q")

    run(body)
    assert len(threads) >= 12 and threading.main_thread().name not in threads


def test_full_match_by_keys_ends_and_is_saved(tmp_path: Path) -> None:
    """A whole match played by keys — h and Enter for every decision, Enter on each hand's
    summary — ends with the result on screen; every hand was saved without pressing q."""
    m = Match(preset("gunzi"), auto_deal=False, levels=(8, 8), dealer=0)  # both teams at 10
    record = tmp_path / "match.jsonl"
    session = Session(bots=["random"] * 3, seed=16, record_path=record, match=m)
    app = GunziApp(session, lang="en", delay=0)

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            summaries = 0
            while True:
                await hint_until(pilot, app, lambda: summary_open(app))
                summaries += 1
                if session.is_over:
                    break
                assert "Enter to continue" in app.texts["summary"]
                await pilot.press("enter")
            assert summaries == len(m.results) == 2
            summary = app.texts["summary"]
            assert "Round over: they win (passed 10)" in summary
            assert "The match is over · they won (passed 10)" in summary
            assert f"Record saved: {record}" in summary
            # Saved at the end of the match, before any q.
            with record.open(encoding="utf-8") as fh:
                rep = records.replay(records.read_lines(fh))
            assert rep.match.is_over and len(rep.hands) == 2
            head = json.loads(record.read_text(encoding="utf-8").splitlines()[0])
            assert head["tui"]["unfinished"] is None
            assert head["start"] == {"levels": [8, 8], "dealer": 0, "blood": 0}
            await pilot.press("enter")  # close the last summary: the end screen stays
            assert not summary_open(app)
            assert app.texts["info"].startswith("Gunzi · Match over · 2 hands")
            assert "\nThey won (passed 10) · Scores us -4 · them +4" in app.texts["info"]
            assert app.texts["prompt"] == "The match is over: they won (passed 10) · q to quit"
            assert "Match over" in screen_text(app).split("Log", 1)[1]  # newest log line
            await pilot.press("h")
            assert app.status == "You have no decision to make now"
            await pilot.press("q")
        assert app.return_value == record

    run(body)


def test_failed_throw_is_shown(tmp_path: Path) -> None:
    """Classic: a throw that another seat can beat is cut to its smallest failing part, and
    the status line says so (the table shows only what was played)."""
    rules = preset("classic-1")
    deck = stacked_first_deck(rules, 0, ["2H 3S 4S", "AS", None, None], kitty="5C 6C 7C 8C 9C JC")
    session = Session(rules, bots=["random"] * 3, seed=2, record_path=tmp_path / "c.jsonl",
                      first_deck=deck, first_seat=0)
    app = GunziApp(session, lang="en", delay=0)

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            m = session.match
            await pilot.press("d", "enter", "P")  # declare 2♥: seat 0 deals
            assert app.turn is not None and app.turn.kind is Kind.BURY
            keep = [C.parse("3S"), C.parse("4S")]
            for index in app._display_order:
                if len(app.selected) < 6 and app.cards[index] not in keep:
                    await move_cursor_to(pilot, app, index)
                    await pilot.press("space")
            await pilot.press("enter")
            assert app.turn is not None and app.turn.kind is Kind.PLAY and not m.trick
            await pilot.press("escape")
            for card in keep:
                await move_cursor_to(pilot, app, app.cards.index(card))
                await pilot.press("space")
            await pilot.press("enter")
            assert m.failed_throws[0] == 1
            assert app.status == ("Failed throw by You: 3♠ 4♠ could not all be thrown; 3♠ "
                                  "was played")
            assert app.status_error
            assert "Failed throw by You: 3♠ 4♠ → plays 3♠" in app.texts["log"]

    run(body)


def test_no_joker_no_question(tmp_path: Path) -> None:
    """Every seat is asked whether to bury jokers; holding none, the player is not stopped
    for it: the pass is made for them and the status line says why."""
    rules = preset("gunzi")
    m = Match(rules, auto_deal=False, levels=(1, 1), dealer=1)
    deck = stacked_first_deck(rules, 1, [None, "BJ BJ BJ LJ LJ LJ", None, None])
    session = Session(bots=["random"] * 3, seed=8, record_path=tmp_path / "j.jsonl", match=m,
                      first_deck=deck)
    app = GunziApp(session, lang="zh", delay=0)

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("P")  # no declaring asks this deal
            assert m.phase is Phase.PLAY
            assert session.jokerless_passes == 1
            assert "你 不扣王" in app.texts["log"]
            assert app.turn is not None and app.turn.kind is Kind.PLAY  # our turn to follow
            assert app.status == "你没有王：自动不扣王"

    run(body)


def test_quit_when_saving_fails(tmp_path: Path) -> None:
    """A record that cannot be written: q says so and stays; a second q quits."""
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    session = dealer_session(tmp_path)
    session.record_path = blocker / "game.jsonl"  # under a file: cannot be created
    app = GunziApp(session, lang="en", delay=0)

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("q")
            assert app.is_running
            assert app.status.startswith("Saving failed:")
            assert app.status.endswith("press q again to quit without saving")
            await pilot.press("q")
        assert app.return_value is None

    run(body)


def test_suit_colours_are_distinct() -> None:
    """Four suits and two jokers in six colours, given as RGB (a named ANSI red and magenta
    become the same pink in Textual's default theme)."""
    from rich.style import Style

    from gunzi.tui.i18n import card_style

    colours = {Style.parse(card_style(c)).color for c in (0, 13, 26, 39, C.LJ, C.BJ)}
    assert len(colours) == 6
    assert all(c is not None and c.triplet is not None for c in colours)


def test_event_text_of_a_no_trump_hand() -> None:
    """[I-30] 无主 is said in the log; a suitless trump event of any other kind stays silent."""
    ev = {"type": "trump", "suit": None, "how": "no-trump", "cards": []}
    zh, en = event_text(ev, "zh"), event_text(ev, "en")
    assert zh is not None and "无主" in zh.plain
    assert en is not None and en.plain.startswith("No trump")
    assert event_text({"type": "trump", "suit": None, "how": "kitty-random", "cards": ["BJ"]},
                      "en") is None


def test_no_trump_hand_says_so_in_the_top_bar_and_the_summary(tmp_path: Path) -> None:
    """[I-30] 无主: the top bar names no trump (not "unknown", which is for the draw) and the
    hand summary does not show a "?" suit."""
    m = Match(preset("classic-2", no_declaration="no-trump"), random.Random(3),
              auto_deal=False, levels=(3, 3), dealer=0)
    m.apply(m.legal_actions(m.to_act).sample(random.Random(3)))  # type: ignore[arg-type]
    run_until(m, Phase.PLAY, passer)
    assert m.trump == -1 and view(m, 0)["no_trump"]
    session = Session(bots=["random"] * 3, seed=5, record_path=tmp_path / "n.jsonl", match=m)
    app = GunziApp(session, lang="en", delay=0)

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert "No trump (无主)" in app.texts["info"]
            assert "Trump unknown" not in app.texts["info"]
            await hint_until(pilot, app, lambda: summary_open(app))
            assert "trump No trump (无主)" in app.texts["summary"]
            assert "trump ?" not in app.texts["summary"]

    run(body)


def test_trump_unknown_while_drawing_is_not_no_trump() -> None:
    """Before the draw ends a missing suit means "not decided yet", also under [I-30]."""
    m = Match(preset("classic-2", no_declaration="no-trump"), auto_deal=False)
    assert m.phase is Phase.DEAL and m.trump == -1
    assert view(m, 0)["no_trump"] is False


def _declaring_bots(session: Session) -> None:
    """Bots that make the longest declaration open to them (else the first legal action),
    so who declares does not depend on a bot's taste."""
    def choose() -> Any:
        m = session.match
        assert m.to_act is not None
        legal = list(m.legal_actions(m.to_act)) if m.phase is Phase.DRAW else []
        declares = [a for a in legal if a.kind is Kind.DECLARE]
        if declares:
            return max(declares, key=lambda a: len(a.cards))
        return m.legal_actions(m.to_act).sample(session_rng)

    import random
    session_rng = random.Random(1)
    session.bot_action = choose  # type: ignore[method-assign]


def _unasked_status(session: Session, lang: str) -> str:
    """Play until the human's first decision after the draw; return the status line."""
    app = GunziApp(session, lang=lang, delay=0)
    seen: list[str] = []

    async def body() -> None:
        async with app.run_test(size=SIZE):
            assert session.match.phase is not Phase.DRAW
            assert session._asked_hand != session.match.hand_no  # never asked to declare
            seen.append(app.status)

    run(body)
    return seen[0]


def test_a_draw_that_never_asks_the_player_says_why(tmp_path: Path) -> None:
    """打滚子's first hand: East shows the first BJ, which cannot be overturned, so seat 0
    is never asked; the status line says so instead of leaving a silent skip."""
    rules = preset("gunzi")
    deck = stacked_first_deck(rules, 0, ["3S 4S 5S", "BJ", None, None])
    session = Session(rules, bots=["random"] * 3, seed=3, record_path=tmp_path / "g.jsonl",
                      first_deck=deck, first_seat=0)
    _declaring_bots(session)
    status = _unasked_status(session, "zh")
    assert status.splitlines()[0] == "这一局没有可亮的主：大王已被下家抢亮，首局不能反"


def _classic_unasked(tmp_path: Path, name: str, mine: list[str], west: str | None,
                     lang: str) -> str:
    """The status after a classic draw in which seat 0 draws ``mine`` and West ``west``."""
    rules = preset(name)
    deck = stacked_first_deck(rules, 0, [" ".join(mine), None, None, west])
    session = Session(rules, bots=["random"] * 3, seed=4, record_path=tmp_path / "c.jsonl",
                      first_deck=deck, first_seat=0)
    _declaring_bots(session)
    return _unasked_status(session, lang).splitlines()[0]


NO_TWO_NO_JOKER = [n for n in C.NAMES if n[0] != "2" and n not in ("LJ", "BJ")]


def test_no_level_card_no_declaration_in_classic(tmp_path: Path) -> None:
    """Classic, one deck, level 2: seat 0 holds no 2 and no joker, so it can never declare
    (classic has no joker declarations, [I-12])."""
    assert _classic_unasked(tmp_path, "classic-1", NO_TWO_NO_JOKER[:12], None, "en") == (
        "No declaration open to you this deal (it needs a level card 2)")


def test_a_declaration_too_strong_to_overturn_is_named(tmp_path: Path) -> None:
    """Classic, two decks: West draws 2♥ 2♥ before seat 0's only 2 (2♣) comes, and declares
    the pair; a single 2 cannot overturn it, so seat 0 is never asked."""
    mine = [*NO_TWO_NO_JOKER[:24], "2C"]
    assert _classic_unasked(tmp_path, "classic-2", mine, "2H 2H", "zh") == (
        "这一局没有可亮的主：反上家的 2♥ 2♥ 需要更多张同花色的级牌 2")


def test_a_player_who_was_asked_gets_no_such_note(tmp_path: Path) -> None:
    session = dealer_session(tmp_path)
    app = GunziApp(session, lang="zh", delay=0)

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            assert app.turn is not None and app.turn.kind is Kind.DECLARE
            await pilot.press("P")  # pass this deal's asks
            await pilot.pause()
            assert session.match.phase is not Phase.DRAW
            assert "没有可亮的主" not in app.status and not session.unasked_draws

    run(body)


def test_duplicate_summary_withholds_the_first_plays_kitty(tmp_path: Path) -> None:
    """复式 in the TUI: the second play repeats the deal, so the first play's summary names
    no kitty (it would tell the human where cards lie); the second play's summary does."""
    from gunzi.tui.texts import summary_lines
    session = Session(preset("classic-1", duplicate=1), bots=["random"] * 3, seed=5,
                      record_path=tmp_path / "d.jsonl")
    _continue(session, 1000)
    first = session.summary
    assert first is not None and first["play"] == 1
    buried = session.match.results[0]["kitty"]  # the engine's truth, not shown to the human
    assert buried and "kitty" not in first and "kitty_points" not in first
    text = " ".join(line.plain for line in summary_lines(first, session, "en"))
    sealed = "Kitty shown once the board's second play is over"
    assert sealed in text and "Kitty " not in text.replace(sealed, "")
    session.acknowledge()
    _continue(session, 1000)
    second = session.summary
    assert session.is_over and second is not None and second["play"] == 2
    assert "kitty" in second
    assert session.view()["last_result"]["kitty"] == session.match.results[1]["kitty"]
    assert session.match.results[0]["hand"] == 1
