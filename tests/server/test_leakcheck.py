"""The leak scanner catches leaks (mutation test): honest frames pass, every injected leak fails.

Honest frames are what a recipient should get (the engine's own per-seat stream
and view); each mutant injects one leak of a kind recorded in other games'
trackers (another hand in a view, a secret field in an event, the kitty before
it is shown, the seat being asked to declare, cards in an error message, ...).
"""

from __future__ import annotations

import copy
import functools
import json
import random
from collections.abc import Callable
from typing import Any

from gunzi.engine import actions as A
from gunzi.engine import records
from gunzi.engine.actions import Kind
from gunzi.engine.match import Match, Phase
from gunzi.engine.rules import preset
from gunzi.engine.view import stream, view

from .leakcheck import Truth, check

RECIPIENTS: tuple[int | None, ...] = (0, 1, 2, 3, None)
Frames = dict[int | None, list[dict[str, Any]]]


def _honest(rules: str, seed: int, hands: int, **options: Any
            ) -> tuple[list[dict[str, Any]], Frames]:
    m = Match(preset(rules, **options), auto_deal=False)
    rng = random.Random(seed)
    frames: Frames = {r: [] for r in RECIPIENTS}
    last = dict.fromkeys(RECIPIENTS, 0)
    while len(m.results) < hands and not m.is_over:
        if m.to_act == -1:
            m.apply(A.deal(m.deal_seed(rng.getrandbits(256))))
        else:
            seat = m.to_act
            assert seat is not None
            legal = m.legal_actions(seat)
            if legal.kind is Kind.DECLARE and rng.random() < 0.8:
                m.apply(A.pass_(seat))  # pass most asks, so private passes occur
            else:
                m.apply(legal.sample(rng))
        for r in RECIPIENTS:
            evs = stream(m, r, since=last[r])
            if not evs:
                continue
            last[r] = evs[-1]["seq"]
            to = m.current if m.phase is not Phase.DRAW or m.current == r else None
            frames[r].append(json.loads(json.dumps(
                {"t": "events", "seq": last[r], "events": evs, "view": view(m, r),
                 "turn": {"seat": to, "deadline": None, "clock": 0}})))
    head = records.header(m)
    lines = [json.loads(json.dumps(x)) for x in [head, *records.finished_events(m)]]
    return lines, frames


def _find_tribute_game() -> tuple[list[dict[str, Any]], Frames]:
    for seed in range(40):
        lines, frames = _honest("gunzi", seed, 2)
        if any(e["type"] == "tribute" for e in lines[1:]):
            return lines, frames
    raise AssertionError("no tribute in 40 games")


@functools.cache
def _game() -> tuple[Truth, Frames]:
    lines, frames = _find_tribute_game()
    return Truth(lines), frames


class _Lazy:
    """Module-level names for the mutants, computed on first use (not at collection)."""

    def __getattr__(self, name: str) -> Any:
        truth, frames = _game()
        return {"TRUTH": truth, "FRAMES": frames}[name]


G = _Lazy()


def _mid_hand(r: int | None, pred: Callable[[dict[str, Any]], bool]) -> int:
    """Index of r's first frame (of hand 1, before it ends) holding an event matching pred."""
    for i, f in enumerate(G.FRAMES[r]):
        if f["view"]["hand_no"] == 1 and f["view"]["phase"] != "deal" and any(
                pred(e) for e in f["events"]):
            return i
    raise AssertionError("no such frame")


def _truth(pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    return next(e for e in G.TRUTH.events if pred(e))


def test_honest_frames_pass() -> None:
    for r in RECIPIENTS:
        rep = check(G.TRUTH, r, G.FRAMES[r])
        assert rep.leaks == [] and rep.wrong == [], (r, rep.leaks[:3], rep.wrong[:3])
        assert rep.events > 300


def _m_other_draw_card(fr: Frames) -> int | None:
    i = _mid_hand(0, lambda e: e["type"] == "draw" and e["seat"] == 1)
    ev = next(e for e in fr[0][i]["events"] if e["type"] == "draw" and e["seat"] == 1)
    truth = G.TRUTH.streams[0][ev["seq"] - 1]
    ev["card"] = truth["card"]
    return 0


def _m_other_hand_in_view(fr: Frames) -> int | None:
    i = _mid_hand(0, lambda e: e["type"] == "draw" and e["seat"] == 1)
    card = _truth(lambda e: e["type"] == "draw" and e["seat"] == 1)["card"]
    fr[0][i]["view"]["hand"].append(card)
    return 0


def _m_seed_early(fr: Frames) -> int | None:
    f = fr[2][0]
    deal = next(e for e in f["events"] if e["type"] == "deal")
    deal["seed"] = _truth(lambda e: e["type"] == "deal")["seed"]
    return 2


def _m_deck_early(fr: Frames) -> int | None:
    f = fr[None][0]
    deal = next(e for e in f["events"] if e["type"] == "deal")
    deal["deck"] = _truth(lambda e: e["type"] == "deal")["deck"]
    return None


def _m_hidden_kitty(fr: Frames) -> int | None:
    i = _mid_hand(3, lambda e: e["type"] == "draw")
    deal = _truth(lambda e: e["type"] == "deal")
    fr[3][i]["view"]["kitty"]["cards"] = deal["deck"][-6:]
    return 3


def _m_asked_seat(fr: Frames) -> int | None:
    for r in (0, 1, 2, 3):
        for f in fr[r]:
            if f["view"]["phase"] == "draw" and f["view"]["to_act"] is None:
                f["view"]["to_act"] = (r + 1) % 4
                return r
    return None


def _m_private_pass(fr: Frames) -> int | None:
    e = _truth(lambda e: e["type"] == "pass" and "n" in e)
    other = (e["seat"] + 1) % 4
    for f in fr[other]:
        for k, ev in enumerate(f["events"]):
            if ev["seq"] >= 2 and ev["type"] == "draw" and ev.get("n") == e["n"] + 1:
                f["events"].insert(k, {"type": "pass", "hand": 1, "seat": e["seat"],
                                       "n": e["n"], "seq": ev["seq"]})
                return other
    return None


def _m_tribute_to_third(fr: Frames) -> int | None:
    t = _truth(lambda e: e["type"] == "tribute")
    third = next(s for s in range(4) if s not in (t["seat"], t["to"]))
    for f in fr[third]:
        for ev in f["events"]:
            if ev["type"] == "tribute" and "cards" not in ev:
                ev["cards"] = t["cards"]
                return third
    return None


def _m_tribute_view_to_third(fr: Frames) -> int | None:
    t = _truth(lambda e: e["type"] == "tribute")
    third = next(s for s in range(4) if s not in (t["seat"], t["to"]))
    for f in fr[third]:
        if f["view"]["tribute"]["from"] == t["seat"] and f["view"]["phase"] == "return":
            f["view"]["tribute"]["cards"] = t["cards"]
            return third
    return None


def _m_kitty_taken_shown(fr: Frames) -> int | None:
    t = _truth(lambda e: e["type"] == "take_kitty")
    other = (t["seat"] + 1) % 4
    for f in fr[other]:
        for ev in f["events"]:
            if ev["type"] == "take_kitty":
                ev["cards"] = t["cards"]
                return other
    return None


def _m_bury_shown(fr: Frames) -> int | None:
    t = _truth(lambda e: e["type"] == "bury")
    other = (t["seat"] + 2) % 4
    for f in fr[other]:
        for ev in f["events"]:
            if ev["type"] == "bury":
                ev["cards"] = t["cards"]
                return other
    return None


def _m_extra_view_field(fr: Frames) -> int | None:
    fr[1][5]["view"]["hands"] = [["AS"], ["KH"]]
    return 1


def _m_spectator_hand(fr: Frames) -> int | None:
    fr[None][3]["view"]["hand"] = ["3H"]
    return None


def _m_card_in_error(fr: Frames) -> int | None:
    fr[2].insert(4, {"t": "ack", "id": "x", "ok": False, "seq": 1,
                     "error": {"code": "out_of_turn", "message": "waiting for seat 1",
                               "cards": ["BJ"]}})
    return 2


def _m_card_in_table_frame(fr: Frames) -> int | None:
    fr[0].insert(2, {"t": "table", "table": {"seats": [{"name": "guest", "hand": ["10S"]}]}})
    return 0


def _m_hint_with_others_cards(fr: Frames) -> int | None:
    i = _mid_hand(1, lambda e: e["type"] == "draw" and e["seat"] == 1)
    mine = set(fr[1][i]["view"]["hand"])
    card = next(e["card"] for e in G.TRUTH.events if e["type"] == "draw" and e["seat"] == 3
                and e["card"] not in mine)
    fr[1].insert(i + 1, {"t": "hint", "action": {"type": "play", "cards": [card]}})
    return 1


def _m_unplayed_in_trick(fr: Frames) -> int | None:
    for f in fr[0]:
        if f["view"]["phase"] == "play" and f["view"]["hand_no"] == 1 and f["view"]["trick"][
                "plays"]:
            other = next(e["card"] for e in G.TRUTH.events if e["type"] == "draw"
                         and e["seat"] == 2)
            f["view"]["trick"]["plays"][0]["cards"] = [other, other, other, other]
            return 0
    return None


def _m_return_to_third(fr: Frames) -> int | None:
    t = _truth(lambda e: e["type"] == "return")
    third = next(s for s in range(4) if s not in (t["seat"], t["to"]))
    for f in fr[third]:
        for ev in f["events"]:
            if ev["type"] == "return" and "cards" not in ev:
                ev["cards"] = t["cards"]
                return third
    return None


MUTANTS = [
    _m_other_draw_card, _m_other_hand_in_view, _m_seed_early, _m_deck_early, _m_hidden_kitty,
    _m_asked_seat, _m_private_pass, _m_tribute_to_third, _m_tribute_view_to_third,
    _m_kitty_taken_shown, _m_bury_shown, _m_extra_view_field, _m_spectator_hand,
    _m_card_in_error, _m_card_in_table_frame, _m_hint_with_others_cards, _m_unplayed_in_trick,
    _m_return_to_third,
]


class _Copy(dict):  # type: ignore[type-arg]
    """Recipients' frame lists, deep-copied on first access (mutants touch one or two)."""

    def __missing__(self, r: int | None) -> list[dict[str, Any]]:
        value = copy.deepcopy(G.FRAMES[r])
        self[r] = value
        return value


def _changed(original: list[dict[str, Any]], mutated: list[dict[str, Any]]) -> int:
    for i, (a, b) in enumerate(zip(original, mutated, strict=False)):
        if a != b:
            return i
    return min(len(original), len(mutated))


def test_every_injected_leak_is_caught() -> None:
    caught = []
    for mutate in MUTANTS:
        frames = _Copy()
        r = mutate(frames)  # type: ignore[arg-type]
        assert r in frames, mutate.__name__
        # Check up to the mutated frame (later frames are honest).
        upto = _changed(G.FRAMES[r], frames[r]) + 1
        rep = check(G.TRUTH, r, frames[r][:upto])
        if rep.leaks or rep.wrong:
            caught.append(mutate.__name__)
    missed = [m.__name__ for m in MUTANTS if m.__name__ not in caught]
    print(f"injected leaks caught {len(caught)}/{len(MUTANTS)}")
    assert missed == []


# 复式: a board's first play is sealed during its second play, which repeats its deal.

@functools.cache
def _duplicate() -> tuple[Truth, Frames]:
    lines, frames = _honest("classic-1", 3, 2, duplicate=1)
    return Truth(lines), frames


def _second_play(r: int | None) -> int:
    """Index of r's first frame in the second play's play phase."""
    _, frames = _duplicate()
    return next(i for i, f in enumerate(frames[r])
                if f["view"]["hand_no"] == 2 and f["view"]["phase"] == "play")


def _with_frame(r: int | None, i: int, frame: dict[str, Any]) -> list[dict[str, Any]]:
    _, frames = _duplicate()
    return [*copy.deepcopy(frames[r][:i]), frame]


def _first_kitty() -> dict[str, Any]:
    truth, _ = _duplicate()
    return next(e for e in truth.events if e["type"] == "hand_end" and e["play"] == 1)


def test_duplicate_honest_frames_pass_and_sealed_leaks_are_caught() -> None:
    truth, frames = _duplicate()
    for r in RECIPIENTS:
        rep = check(truth, r, frames[r])
        assert rep.leaks == [] and rep.wrong == [], (r, rep.leaks[:3], rep.wrong[:3])
    end1 = _first_kitty()
    dealer = end1["dealer"]
    i = _second_play(dealer)
    honest = frames[dealer][i]
    # 1. the first play's kitty in the second play's view
    view_leak = copy.deepcopy(honest)
    view_leak["view"]["last_result"].update(
        {k: end1[k] for k in ("kitty", "kitty_points")})
    # 2. a resync during the second play re-sending the first play's hand_end in full
    stream1 = truth.streams[dealer]
    seq_end = next(k + 1 for k, e in enumerate(stream1) if e["v"] == end1["v"])
    full_end = {k: v for k, v in end1.items() if k != "v"} | {"seq": seq_end, "hand": 1}
    resync_end = {**copy.deepcopy(honest), "events": [full_end], "resync": True}
    # 3. a resync re-sending the dealer its own first-play burial
    bury = next(e for e in truth.events if e["type"] == "bury" and truth.hand_of[e["v"]] == 1)
    seq_bury = next(k + 1 for k, e in enumerate(stream1) if e["v"] == bury["v"])
    full_bury = {k: v for k, v in bury.items() if k != "v"} | {"seq": seq_bury, "hand": 1}
    resync_bury = {**copy.deepcopy(honest), "events": [full_bury], "resync": True}
    for name, frame in (("view", view_leak), ("hand_end", resync_end), ("bury", resync_bury)):
        rep = check(truth, dealer, _with_frame(dealer, i, frame))
        assert rep.leaks, name
