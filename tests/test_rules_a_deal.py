"""docs/rules.md A3-A6: dealing and declaring, tribute, the kitty and joker burying.

Every situation is set up with a stacked deal (``deal_match``), so each test
knows exactly which seat holds the cards that matter. Tests are named after
the clause they check.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from gunzi.engine import actions as A
from gunzi.engine.actions import Action, Kind
from gunzi.engine.cards import BJ, LJ, NUM_TYPES, POINTS, name, names, parse, parse_many
from gunzi.engine.errors import GunziError, IllegalActionError, OutOfTurnError
from gunzi.engine.events import thaw
from gunzi.engine.match import Match, Phase
from gunzi.engine.order import TRUMP
from gunzi.engine.rules import preset

try:  # tests/ as a plain directory (rootdir on sys.path) or as a package
    from helpers import deal_match
except ImportError:  # pragma: no cover
    from tests.helpers import deal_match

S, H, C, D = range(4)
GUNZI = preset("gunzi")
END_ONLY = preset("gunzi", declare_asks="end-only")

# 35 low side cards that are not point cards (spades and clubs 4..Q, no 5/10/K).
LOW = [r + s for s in "SC" for r in ("4", "6", "7", "8", "9", "J", "Q") for _ in range(3)][:35]
# A kitty with a heart and side diamonds: never a dry pot when hearts are trump.
KITTY_OK = "4H 6D 7D 8D 9D JD"


def c(text: str) -> int:
    return parse(text)


def cs(text: str) -> list[int]:
    return parse_many(text)


def low(n: int) -> str:
    return " ".join(LOW[:n])


def held(m: Match, seat: int) -> list[str]:
    return [name(x) for x in range(NUM_TYPES) for _ in range(m.hands[seat][x])]


def snapshot(m: Match) -> tuple[Any, ...]:
    return (
        m.phase, m.to_act, [list(h) for h in m.hands], list(m.kitty), m.decl, m.trump,
        m.dealer, len(m.events), m.tribute_n, m.tribute_kind, m.kitty_shown, m.dry_pot,
        list(m.kitty_public),
    )


def rejected(m: Match, action: Action, error: type[GunziError], rule: str | None = None) -> str:
    """The action raises ``error`` (with ``rule``), is not legal, and changes nothing."""
    before = snapshot(m)
    with pytest.raises(error) as info:
        m.apply(action)
    assert snapshot(m) == before
    assert not m.can_apply(action)
    assert action not in m.legal_actions(action.seat)
    if rule is not None:
        assert isinstance(info.value, IllegalActionError)
        assert info.value.rule == rule
    return str(info.value)


def events(m: Match, type_: str) -> list[dict[str, Any]]:
    return [thaw(e.public) for e in m.events if e.type == type_]


def types_after(m: Match, type_: str) -> list[str]:
    """Event types (draws left out) after the last event of ``type_``."""
    idx = max(i for i, e in enumerate(m.events) if e.type == type_)
    return [e.type for e in m.events[idx + 1 :] if e.type != "draw"]


def drawn(m: Match) -> int:
    """Cards drawn so far in the current deal."""
    for e in reversed(m.events):
        if e.type == "draw":
            return int(e.public["n"])
        if e.type == "deal":
            return 0
    return 0


def pass_draw(m: Match, limit: int = 5000) -> None:
    for _ in range(limit):
        if m.phase is not Phase.DRAW:
            return
        m.apply(A.pass_(m.to_act))
    raise AssertionError("the draw never ended")


def bid(m: Match, *declarations: Action) -> None:
    """Finish the draw: each listed declaration is made when its seat is next asked."""
    todo = list(declarations)
    while m.phase is Phase.DRAW:
        seat = m.to_act
        if todo and todo[0].seat == seat:
            m.apply(todo.pop(0))
        else:
            m.apply(A.pass_(seat))
    assert not todo, f"never asked: {todo}"


def later(hands, kitty=None, *, dealer=0, level=1, blood=0, rules=END_ONLY, seed=1) -> Match:
    """A later hand of a round (level-card declaring) at ``level`` with a stacked deal."""
    return deal_match(rules, dealer=dealer, levels=(level, level), hands=hands, kitty=kitty,
                      blood=blood, seed=seed)


def legal_set(m: Match, seat: int) -> set[Action]:
    return set(m.legal_actions(seat))


def listed(m: Match, seat: int) -> list[Action]:
    """The seat's legal actions when they are listed eagerly (small decisions), else []."""
    legal = m.legal_actions(seat)
    return list(legal) if legal.enumerable else []


# =========================================================================== A3


def test_A3_first_hand_of_a_round_needs_both_teams_at_the_same_level():
    with pytest.raises(IllegalActionError) as err:
        Match(GUNZI, random.Random(1), levels=(1, 2))
    assert err.value.rule == "A3"
    m = Match(GUNZI, random.Random(1))
    assert m.levels == [1, 1] and m.first
    assert events(m, "deal")[0]["first_hand"] is True


def test_A3_later_hand_is_played_at_the_dealer_teams_level():
    # Team 1 (dealer seat 1) is at 4, team 0 at 6: the hand is played at 4.
    lv4, lv6 = 2, 4
    m = deal_match(END_ONLY, dealer=1, levels=(lv6, lv4), hands=(None, "4H 6S", None, None),
                   kitty=KITTY_OK)
    assert m.level == lv4
    assert events(m, "deal")[0]["level"] == lv4
    assert events(m, "deal")[0]["first_hand"] is False
    assert m.to_act == 1  # the window starts with the dealer, who holds a level card
    assert A.declare(1, [c("4H")]) in legal_set(m, 1)
    msg = rejected(m, A.declare(1, [c("6S")]), IllegalActionError, "A4.2")
    assert "not a level card" in msg


# =========================================================================== A4 drawing


def test_A4_later_hand_draws_one_card_at_a_time_from_the_dealer_in_playing_order():
    m = later(("4S", "4C", "6S", "6C"), KITTY_OK, dealer=2, rules=END_ONLY)
    draws = events(m, "draw")
    assert len(draws) == 156
    assert [d["seat"] for d in draws[:8]] == [2, 3, 0, 1, 2, 3, 0, 1]
    assert [d["n"] for d in draws] == list(range(1, 157))
    assert [m.hand_size(s) for s in range(4)] == [39, 39, 39, 39]
    assert names(m.kitty) == KITTY_OK.split()
    # Each draw's card is secret to the drawer only.
    first = next(e for e in m.events if e.type == "draw")
    assert first.audience == frozenset({2}) and "card" not in first.public


def test_A4_first_hand_draws_from_the_chosen_start_seat():
    m = deal_match(END_ONLY, first_seat=3, hands=("4S", "4C", "6S", "6C"), kitty=KITTY_OK)
    assert events(m, "deal")[0]["first_seat"] == 3
    assert events(m, "deal")[0]["dealer"] is None
    assert [d["seat"] for d in events(m, "draw")[:5]] == [3, 0, 1, 2, 3]


def test_A4_first_hand_start_seat_is_random_without_a_choice():
    seats = set()
    for seed in range(12):
        m = Match(END_ONLY, random.Random(seed))
        start = events(m, "deal")[0]["first_seat"]
        assert events(m, "draw")[0]["seat"] == start
        seats.add(start)
    assert len(seats) > 1


def test_A4_only_a_first_hand_has_a_chosen_start_seat():
    m = Match(GUNZI, random.Random(1), auto_deal=False, levels=(1, 1), dealer=0)
    action = A.deal(5, None, first_seat=2)
    with pytest.raises(IllegalActionError) as err:
        m.apply(action)
    assert err.value.rule == "A4"
    assert m.phase is Phase.DEAL and m.events == []


# =========================================================================== A4.1 joker grab


def test_A4_1_only_bj_holders_are_asked():
    m = deal_match(GUNZI, first_seat=0, hands=("4S 5S", "6S", "BJ", "7S"), kitty=KITTY_OK)
    # Cards 1 and 2 went to seats 0 and 1, who hold no BJ: the first ask is seat 2 after card 3.
    assert drawn(m) == 3 and m.to_act == 2
    assert legal_set(m, 2) == {A.pass_(2), A.declare(2, [BJ])}
    for seat in (0, 1, 3):
        assert list(m.legal_actions(seat)) == []
    rejected(m, A.declare(0, [BJ]), OutOfTurnError)
    rejected(m, A.pass_(1), OutOfTurnError)
    # Nobody grabs: every ask goes to a seat that holds a BJ at that moment.
    for _ in range(2000):
        if m.phase is not Phase.DRAW:
            break
        seat = m.to_act
        assert m.hands[seat][BJ] > 0
        assert legal_set(m, seat) == {A.pass_(seat), A.declare(seat, [BJ])}
        m.apply(A.pass_(seat))
    assert m.phase is not Phase.DRAW


def test_A4_1_bj_grab_sets_dealer_and_next_suited_card_trump():
    m = deal_match(GUNZI, first_seat=0, hands=("4S", "4S", "BJ LJ BJ 7D 8S", "4S"),
                   kitty="4D 6D 7D 8D 9D JD")
    assert m.to_act == 2 and drawn(m) == 3
    ev = m.apply(A.declare(2, [BJ]))
    assert ev.type == "declare"
    assert thaw(ev.public)["seat"] == 2 and thaw(ev.public)["cards"] == ["BJ"]
    assert thaw(ev.public)["dealer"] == 2 and thaw(ev.public)["suit"] is None
    assert m.dealer == 2
    trumps = events(m, "trump")
    assert len(trumps) == 1
    assert trumps[0]["how"] == "bj-next-card" and trumps[0]["suit"] == "D"
    assert m.trump == D
    assert m.order.power[c("3D")] > m.order.power[c("3S")]  # 此花色的3为主3
    # The trump was fixed when seat 2 drew its 4th card (7D, card 15): LJ and BJ were skipped.
    idx = next(i for i, e in enumerate(m.events) if e.type == "trump")
    before = m.events[idx - 1]
    assert before.type == "draw" and before.public == {"seat": 2, "n": 15}
    assert len(events(m, "declare")) == 1


def test_A4_1_trump_is_the_first_suited_card_drawn_after_declaring():
    # Seat 0 draws BJ (card 1) and 5H (card 5) before it declares; 6S (card 9) comes after.
    m = deal_match(GUNZI, first_seat=0, hands=("BJ 5H 6S", "4D", "4D", "4D"),
                   kitty="BJ BJ 7C 7C 7C 8C")
    assert m.to_act == 0 and drawn(m) == 1
    while drawn(m) < 5:
        m.apply(A.pass_(m.to_act))
    assert m.to_act == 0 and drawn(m) == 5
    m.apply(A.declare(0, [BJ]))
    assert m.dealer == 0
    assert events(m, "trump")[0]["how"] == "bj-next-card"
    assert m.trump == S


def test_A4_1_bj_grab_cannot_be_overturned():
    m = deal_match(GUNZI, first_seat=0, hands=("BJ 4H", "BJ", "BJ", "4S"), kitty=KITTY_OK)
    m.apply(A.declare(0, [BJ]))
    # The other BJ holders are never asked again: the draw ends at once.
    assert m.phase is not Phase.DRAW
    assert len(events(m, "declare")) == 1
    assert not events(m, "pass")
    assert m.dealer == 0 and m.trump == H
    rejected(m, A.declare(1, [BJ]), OutOfTurnError)
    assert all(a.kind is not Kind.DECLARE for s in range(4) for a in listed(m, s))


def test_A4_1_bj_grab_in_end_only_mode_is_asked_after_the_last_card():
    m = deal_match(END_ONLY, first_seat=1, hands=("4S", "BJ", "4S", "BJ"),
                   kitty="LJ 8C 9D 9D JD QD")
    # Nobody is asked during the draw; the window starts with the start seat.
    assert drawn(m) == 156 and m.to_act == 1
    m.apply(A.pass_(1))
    assert m.to_act in (2, 3) and m.hands[m.to_act][BJ] > 0
    while m.to_act != 3:
        m.apply(A.pass_(m.to_act))
    m.apply(A.declare(3, [BJ]))
    assert m.dealer == 3
    # The declarer draws nothing afterwards: [I-3] the first suited kitty card gives the suit.
    trump = events(m, "trump")[0]
    assert trump["how"] == "kitty-turn" and trump["cards"] == ["LJ", "8C"]
    assert m.trump == C


def _seat0_declares_bj_on_its_37th_draw() -> tuple[str, str]:
    # Seat 0's 39 draws: 36 non-jokers, then BJ, LJ, LJ. The other BJs and the last LJ are in
    # the kitty, so nobody can grab before seat 0 draws its BJ.
    hand = " ".join([*LOW, "AD"]) + " BJ LJ LJ"
    return hand, "BJ BJ LJ 8H 9D 9D"


def test_I3_declarer_draws_no_suited_card_after_declaring_first_suited_kitty_card():
    hand, kitty = _seat0_declares_bj_on_its_37th_draw()
    m = deal_match(GUNZI, first_seat=0, hands=(hand, None, None, None), kitty=kitty)
    assert m.to_act == 0 and drawn(m) == 145
    assert legal_set(m, 0) == {A.pass_(0), A.declare(0, [BJ])}
    m.apply(A.declare(0, [BJ]))
    assert m.dealer == 0
    trump = events(m, "trump")
    assert trump == [{"suit": "H", "how": "kitty-turn", "cards": ["BJ", "BJ", "LJ", "8H"]}]
    assert m.trump == H
    assert names(m.kitty_public) == ["BJ", "BJ", "LJ", "8H"]
    assert not events(m, "redeal")


def test_I3_declaring_in_the_final_window_uses_the_kitty_turn():
    m = deal_match(GUNZI, first_seat=2, hands=("4D", "4D", "BJ", "4D"),
                   kitty="BJ BJ LJ 7C 8D 9D")
    while drawn(m) < 156:
        m.apply(A.pass_(m.to_act))
    # The draw is over; seat 2 is still asked (last card's asks, then the final window).
    assert m.phase is Phase.DRAW and m.to_act == 2
    m.apply(A.declare(2, [BJ]))
    assert m.dealer == 2 and m.trump == C
    assert events(m, "trump")[0] == {"suit": "C", "how": "kitty-turn",
                                     "cards": ["BJ", "BJ", "LJ", "7C"]}
    assert m.phase is Phase.BURY and m.to_act == 2


def test_I3_option_redeal_when_the_declarer_draws_no_suited_card():
    rules = preset("gunzi", bj_suit_fallback="redeal")
    hand, kitty = _seat0_declares_bj_on_its_37th_draw()
    m = deal_match(rules, first_seat=0, hands=(hand, None, None, None), kitty=kitty)
    m.apply(A.declare(0, [BJ]))
    assert events(m, "redeal") == [{"reason": "bj-declarer-drew-no-suited-card"}]
    assert not events(m, "trump")
    deals = events(m, "deal")
    assert [d["deal_no"] for d in deals] == [1, 2]
    assert deals[1]["first_seat"] == 0 and deals[1]["first_hand"] is True
    assert m.dealer is None and m.decl is None and m.trump == -1
    assert m.phase is Phase.DRAW


# --------------------------------------------------------------------------- kitty flip

FLIPS = [
    # kitty, start seat, expected dealer, expected trump suit
    ("9S 4H 7C 4D 5S 5S", 1, 2, "H"),  # two lowest 4s: the first turned (seat 2) wins
    ("4D 9S 4H 7C 5S 5S", 1, 1, "D"),
    ("2S 3C LJ 4D 5S 5S", 1, 0, "D"),  # a side 4 is below level 3s and 2s
    ("2S LJ 2C 3D 5S 5S", 0, 3, "D"),  # level 3s are below 2s
    ("LJ 2D LJ 2H 5S 5S", 2, 3, "D"),  # 2s below LJ; equal 2s: first turned
    ("AS KH QC 10D 5S 5S", 3, 2, "D"),
    ("LJ LJ LJ AC 5S 5S", 0, 3, "C"),  # jokers are the highest
    ("3S 3H 3C 3D 4S 4S", 2, 2, "S"),  # equal level cards: first turned
]


@pytest.mark.parametrize(("kitty", "start", "dealer", "suit"), FLIPS)
def test_A4_1_nobody_grabs_kitty_flip_lowest_card_owner_deals(kitty, start, dealer, suit):
    m = deal_match(GUNZI, first_seat=start, hands=("BJ", "BJ", "BJ", None), kitty=kitty)
    pass_draw(m)
    turned = kitty.split()[:4]
    flip = events(m, "kitty_flip")
    assert flip == [{"cards": turned, "first_seat": start, "dealer": dealer}]
    assert events(m, "trump") == [{"suit": suit, "how": "kitty-flip", "cards": turned}]
    assert m.dealer == dealer and m.trump == "SHCD".index(suit)
    assert not events(m, "declare")
    # A6.1: nobody declared, so the kitty is not shown (only the four turned cards are public).
    assert not events(m, "kitty_shown") and not m.kitty_shown
    assert names(m.kitty_public) == turned
    assert not m.dry_pot
    assert m.phase is Phase.BURY and m.to_act == dealer
    assert m.hand_size(dealer) == 45


def test_I4_all_four_turned_cards_are_jokers_redeal():
    m = deal_match(GUNZI, first_seat=1, hands=("4S", "4S", "4S", None),
                   kitty="BJ LJ BJ LJ 9S 4H")
    for _ in range(2000):
        if m.deal_no > 1 or m.phase is not Phase.DRAW:
            break
        m.apply(A.pass_(m.to_act))
    assert events(m, "kitty_flip")[0]["cards"] == ["BJ", "LJ", "BJ", "LJ"]
    assert events(m, "kitty_flip")[0]["dealer"] is None
    assert events(m, "redeal") == [{"reason": "flip-all-jokers"}]
    assert m.deal_no == 2 and [d["deal_no"] for d in events(m, "deal")] == [1, 2]
    assert not events(m, "trump")


def test_I4_option_turn_more_keeps_turning_kitty_cards():
    rules = preset("gunzi", flip_all_jokers="turn-more")
    m = deal_match(rules, first_seat=1, hands=("4S", "4S", "4S", None),
                   kitty="BJ LJ BJ LJ 9S 4H")
    pass_draw(m)
    # The 5th card is turned by the start seat again; it is the lowest, so seat 1 deals.
    assert events(m, "kitty_flip") == [{"cards": ["BJ", "LJ", "BJ", "LJ", "9S"],
                                        "first_seat": 1, "dealer": 1}]
    assert m.dealer == 1 and m.trump == S
    assert not events(m, "redeal")


def test_I4_option_turn_more_redeals_when_all_six_are_jokers():
    rules = preset("gunzi", flip_all_jokers="turn-more")
    m = deal_match(rules, first_seat=1, hands=("4S", "4S", "4S", None),
                   kitty="BJ LJ BJ LJ LJ BJ")
    for _ in range(2000):
        if m.deal_no > 1:
            break
        m.apply(A.pass_(m.to_act))
    assert events(m, "redeal") == [{"reason": "flip-all-jokers"}]


# =========================================================================== A4.2 later hands

# Every level card (3) and joker is placed: seat 0 3H + 3 BJ, seat 1 3S 3S, seat 2 3D x3 + 3C,
# seat 3 three LJ, the rest of the 3s in the kitty.
LADDER_HANDS = ("3H BJ BJ BJ", "3S 3S", "3D 3D 3D 3C", "LJ LJ LJ")
LADDER_KITTY = "3H 3H 3S 3C 3C 7D"


def test_A4_2_overturn_ladder_one_two_three_identical_then_three_lj_then_three_bj():
    m = later(LADDER_HANDS, LADDER_KITTY)
    assert drawn(m) == 156 and m.to_act == 0
    assert legal_set(m, 0) == {A.pass_(0), A.declare(0, [c("3H")]),
                               *(A.declare(0, [BJ] * 3, s) for s in range(4))}
    m.apply(A.declare(0, [c("3H")]))
    assert m.decl == (0, (c("3H"),), H) and m.trump == H
    # Seat 1 overturns with two identical 3S; one 3S would not be stronger.
    assert m.to_act == 1
    assert legal_set(m, 1) == {A.pass_(1), A.declare(1, cs("3S 3S"))}
    rejected(m, A.declare(1, [c("3S")]), IllegalActionError, "A4.2")
    m.apply(A.declare(1, cs("3S 3S")))
    assert m.decl == (1, (c("3S"), c("3S")), S) and m.trump == S
    # Seat 2: one 3C or two 3D are not stronger than two 3S; three 3D are.
    assert m.to_act == 2
    assert legal_set(m, 2) == {A.pass_(2), A.declare(2, cs("3D 3D 3D"))}
    msg = rejected(m, A.declare(2, [c("3C")]), IllegalActionError, "A4.2")
    assert "not stronger" in msg
    rejected(m, A.declare(2, cs("3D 3D")), IllegalActionError, "A4.2")
    m.apply(A.declare(2, cs("3D 3D 3D")))
    assert m.trump == D
    # Seat 3: three LJ name any suit.
    assert m.to_act == 3
    assert legal_set(m, 3) == {A.pass_(3), *(A.declare(3, [LJ] * 3, s) for s in range(4))}
    m.apply(A.declare(3, [LJ] * 3, C))
    assert m.decl == (3, (LJ, LJ, LJ), C) and m.trump == C
    # Seat 0: only three BJ beat three LJ.
    assert m.to_act == 0
    assert legal_set(m, 0) == {A.pass_(0), *(A.declare(0, [BJ] * 3, s) for s in range(4))}
    m.apply(A.declare(0, [BJ] * 3, H))
    # Nothing beats three BJ: the bidding closes.
    assert m.phase is not Phase.DRAW
    assert m.trump == H
    decls = events(m, "declare")
    assert [(d["seat"], d["cards"], d["suit"]) for d in decls] == [
        (0, ["3H"], "H"), (1, ["3S", "3S"], "S"), (2, ["3D", "3D", "3D"], "D"),
        (3, ["LJ", "LJ", "LJ"], "C"), (0, ["BJ", "BJ", "BJ"], "H")]
    # A4.2: declaring never changes the dealer in a later hand.
    assert all(d["dealer"] == 0 for d in decls) and m.dealer == 0
    assert events(m, "trump") == [{"suit": "H", "how": "declared", "cards": []}]


def test_A4_2_declaring_does_not_change_the_dealer():
    m = later(LADDER_HANDS, LADDER_KITTY, dealer=0)
    bid(m, A.declare(1, cs("3S 3S")))
    assert m.dealer == 0 and m.trump == S
    assert m.phase is Phase.BURY and m.to_act == 0  # the dealer, not the declarer, takes the kitty
    assert events(m, "take_kitty")[0]["seat"] == 0


@pytest.mark.parametrize("suit", range(4))
def test_A4_2_three_lj_name_any_suit(suit):
    m = later(LADDER_HANDS, LADDER_KITTY)
    bid(m, A.declare(3, [LJ] * 3, suit))
    assert m.trump == suit and m.decl == (3, (LJ, LJ, LJ), suit)
    assert events(m, "declare")[0]["suit"] == "SHCD"[suit]


def test_A4_2_three_jokers_never_declare_no_trump():
    m = later(LADDER_HANDS, LADDER_KITTY)
    while m.to_act != 3:
        m.apply(A.pass_(m.to_act))
    msg = rejected(m, A.declare(3, [LJ] * 3), IllegalActionError, "A4.2")
    assert "name a suit" in msg
    rejected(m, A.declare(3, [LJ] * 3, 4), IllegalActionError, "A4.2")
    rejected(m, A.declare(3, [LJ] * 2, H), IllegalActionError, "A4.2")
    jokers = [a for a in m.legal_actions(3) if a.kind is Kind.DECLARE]
    assert sorted(a.suit for a in jokers) == [0, 1, 2, 3]


def test_A4_2_malformed_declarations_are_rejected():
    m = later(LADDER_HANDS, LADDER_KITTY)
    assert m.to_act == 0
    rejected(m, A.declare(0, [c("3H")], S), IllegalActionError, "A4.2")  # names another suit
    rejected(m, A.declare(0, [c("3S")]), IllegalActionError, "A4")  # not held
    rejected(m, A.declare(0, cs("3H 3H")), IllegalActionError, "A4")  # holds only one
    rejected(m, A.declare(0, [BJ, BJ]), IllegalActionError, "A4.2")  # two jokers
    rejected(m, A.declare(0, [c("3H"), BJ]), IllegalActionError, "A4.2")  # not identical
    rejected(m, A.declare(1, cs("3S 3S")), OutOfTurnError)  # seat 1 is not being asked
    held_other = next(x for x in range(52) if m.hands[0][x] and x % 13 != 1)
    msg = rejected(m, A.declare(0, [held_other]), IllegalActionError, "A4.2")
    assert "not a level card" in msg


def test_A4_2_standing_declarer_reinforces_its_own_suit():
    m = later(("3H 3H 3H", "3S 3S", None, None), "3S 3C 3C 3C 3D 3D")
    m.apply(A.declare(0, [c("3H")]))
    # Everyone else passes; the standing declarer is asked last and may show more copies.
    while m.to_act != 0:
        m.apply(A.pass_(m.to_act))
    assert legal_set(m, 0) == {A.pass_(0), A.declare(0, cs("3H 3H")), A.declare(0, cs("3H 3H 3H"))}
    rejected(m, A.declare(0, [c("3H")]), IllegalActionError, "A4.2")  # not stronger
    m.apply(A.declare(0, cs("3H 3H")))
    assert m.decl == (0, (c("3H"),) * 2, H) and m.trump == H
    while m.to_act != 0:
        m.apply(A.pass_(m.to_act))
    assert legal_set(m, 0) == {A.pass_(0), A.declare(0, cs("3H 3H 3H"))}
    m.apply(A.declare(0, cs("3H 3H 3H")))
    pass_draw(m)
    assert m.trump == H and m.decl == (0, (c("3H"),) * 3, H)
    assert [d["cards"] for d in events(m, "declare")] == [["3H"], ["3H", "3H"], ["3H"] * 3]


def test_A4_2_standing_declarer_may_overturn_its_own_suit():
    m = later(("3H 3S 3S", None, None, None), "3H 3H 3C 3C 3D 3D")
    # The other 3S, 3C, 3D are single cards elsewhere: nobody else can beat one 3H.
    m.apply(A.declare(0, [c("3H")]))
    while m.to_act != 0:
        m.apply(A.pass_(m.to_act))
    assert A.declare(0, cs("3S 3S")) in legal_set(m, 0)
    m.apply(A.declare(0, cs("3S 3S")))
    pass_draw(m)
    assert m.trump == S and m.dealer == 0


def test_A4_2_the_other_team_overturns_with_two_and_keeps_the_dealer():
    m = later(("3H", "3S 3S", None, None), "3H 3H 3S 3C 3C 3C", dealer=0)
    bid(m, A.declare(0, [c("3H")]), A.declare(1, cs("3S 3S")))
    assert m.trump == S and m.dealer == 0 and m.decl[0] == 1


def test_I12_joker_declarations_option_off_three_bj_not_offered():
    rules = preset("gunzi", declare_asks="end-only", joker_declarations=False)
    m = later(LADDER_HANDS, LADDER_KITTY, rules=rules)
    assert m.to_act == 0
    assert legal_set(m, 0) == {A.pass_(0), A.declare(0, [c("3H")])}
    rejected(m, A.declare(0, [BJ] * 3, H), IllegalActionError, "A4.2")
    asked = []
    while m.phase is Phase.DRAW:
        asked.append(m.to_act)
        m.apply(A.pass_(m.to_act))
    assert 3 not in asked  # three LJ and no level card: nothing to declare


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_A4_2_nobody_declares_random_kitty_card_suit_jokers_drawn_again(seed):
    m = later((None, None, None, None), "LJ LJ LJ BJ BJ 7C", dealer=1, seed=seed)
    pass_draw(m)
    trump = events(m, "trump")
    assert len(trump) == 1
    assert trump[0]["how"] == "kitty-random" and trump[0]["suit"] == "C"
    assert trump[0]["cards"][-1] == "7C"
    assert set(trump[0]["cards"][:-1]) <= {"LJ", "BJ"}
    assert m.trump == C and m.dealer == 1
    assert names(m.kitty_public) == trump[0]["cards"]
    # A6.1: nobody declared, so the kitty is not shown.
    assert not m.kitty_shown and not events(m, "kitty_shown")
    assert m.phase is Phase.BURY and m.to_act == 1


def test_A4_2_nobody_declares_the_drawn_card_is_random():
    suits = set()
    for seed in range(1, 13):
        m = later((None, None, None, None), "4S 4H 4C 4D 6S 6H", seed=seed)
        pass_draw(m)
        suits.add(m.trump)
        assert events(m, "trump")[0]["cards"] == [name(x) for x in m.kitty_public]
    assert len(suits) > 1


def test_A4_2_nobody_declares_and_all_six_kitty_cards_are_jokers_redeal():
    m = later((None, None, None, None), "LJ LJ LJ BJ BJ BJ", dealer=2)
    for _ in range(2000):
        if m.deal_no > 1:
            break
        m.apply(A.pass_(m.to_act))
    assert events(m, "trump")[0]["suit"] is None
    assert sorted(events(m, "trump")[0]["cards"]) == ["BJ"] * 3 + ["LJ"] * 3
    assert events(m, "redeal") == [{"reason": "kitty-all-jokers"}]
    assert m.deal_no == 2 and m.dealer == 2


# --------------------------------------------------------------------------- [I-2] asks

# Seat 0 holds all twelve 3s; the jokers are split so nobody else can ever declare.
ALL_THREES = "3S 3S 3S 3H 3H 3H 3C 3C 3C 3D 3D 3D"
SPLIT_JOKERS = ("BJ LJ", "BJ LJ", "BJ LJ")


def test_I2_every_draw_asks_after_each_card_and_once_more_after_the_last():
    m = later((ALL_THREES, *SPLIT_JOKERS), KITTY_OK, rules=GUNZI)
    asks = []
    while m.phase is Phase.DRAW:
        asks.append((m.to_act, drawn(m)))
        m.apply(A.pass_(m.to_act))
    # Asked once after each of the 156 cards (from its first 3, card 1), then the final window.
    assert [seat for seat, _ in asks] == [0] * 157
    assert [n for _, n in asks] == [*range(1, 157), 156]


def test_I2_every_draw_asks_start_with_the_drawer_in_playing_order():
    m = later(("3S", "3H", "4S", "4S"), KITTY_OK, rules=GUNZI)
    assert (m.to_act, drawn(m)) == (0, 1)
    m.apply(A.pass_(0))
    # Card 2 went to seat 1: it is asked first, then seat 0 (seats 2 and 3 cannot declare).
    assert (m.to_act, drawn(m)) == (1, 2)
    m.apply(A.pass_(1))
    assert (m.to_act, drawn(m)) == (0, 2)
    m.apply(A.pass_(0))
    # Card 3 went to seat 2, who cannot declare: seat 0 then seat 1.
    assert (m.to_act, drawn(m)) == (0, 3)
    m.apply(A.pass_(0))
    assert (m.to_act, drawn(m)) == (1, 3)


def test_I2_every_draw_declaration_is_taken_and_drawing_continues():
    m = later(("3S 4D", "3H 3H", "4S", "4S"), KITTY_OK, rules=GUNZI)
    m.apply(A.pass_(0))
    assert (m.to_act, drawn(m)) == (1, 2)
    m.apply(A.declare(1, [c("3H")]))
    assert m.decl == (1, (c("3H"),), H) and m.trump == H
    # The rest of card 2's asks are dropped (seat 0 is not asked again for card 2) and drawing
    # continues; nobody can beat one 3H until seat 1 draws its second 3H (card 6).
    assert (m.to_act, drawn(m)) == (1, 6)
    assert legal_set(m, 1) == {A.pass_(1), A.declare(1, cs("3H 3H"))}


def test_I2_option_end_only_asks_only_after_the_last_card():
    m = later((ALL_THREES, *SPLIT_JOKERS), KITTY_OK, rules=END_ONLY)
    assert drawn(m) == 156 and m.to_act == 0
    m.apply(A.pass_(0))
    assert m.phase is not Phase.DRAW  # one window, nobody else can declare
    assert events(m, "trump")[0]["how"] == "kitty-random"


def test_I2_end_only_window_asks_from_the_dealer_in_playing_order_and_reopens():
    m = later(LADDER_HANDS, LADDER_KITTY, dealer=0, rules=END_ONLY)
    asked = [m.to_act]
    m.apply(A.pass_(0))
    asked.append(m.to_act)
    m.apply(A.declare(1, cs("3S 3S")))
    # The declaration reopens the window: seats after the declarer, the declarer last.
    while m.phase is Phase.DRAW:
        asked.append(m.to_act)
        m.apply(A.pass_(m.to_act))
    assert asked == [0, 1, 2, 3, 0]


def test_I2_final_window_allows_a_late_declaration():
    m = later((ALL_THREES, *SPLIT_JOKERS), KITTY_OK, rules=GUNZI)
    while drawn(m) < 156:
        m.apply(A.pass_(0))
    m.apply(A.pass_(0))  # the last card's ask
    assert m.phase is Phase.DRAW and m.to_act == 0  # the final window
    m.apply(A.declare(0, cs("3D 3D 3D")))
    assert m.trump == D
    assert m.phase is not Phase.DRAW


def test_A4_2_level_card_declaration_naming_its_own_suit_is_accepted():
    m = later(LADDER_HANDS, LADDER_KITTY)
    m.apply(A.declare(0, [c("3H")], H))
    assert m.trump == H


# =========================================================================== A5 tribute


def tribute_match(giver: str | None, *, blood: int, dealer: str = "3H", partner: str | None = None,
                  level: int = 1, declaration: str = "3H", kitty: str = KITTY_OK,
                  rules=END_ONLY) -> Match:
    """Dealer 0 declares ``declaration``; seat 3 (the dealer's 上家) gives ``blood`` cards."""
    m = later((dealer, partner, None, giver), kitty, dealer=0, level=level, blood=blood,
              rules=rules)
    bid(m, A.declare(0, cs(declaration)))
    return m


def test_A5_tribute_is_the_givers_n_biggest_non_point_cards():
    giver = "BJ LJ 3S 2H 2S AH KH 10H 5H " + low(30)
    m = tribute_match(giver, blood=7)
    assert m.phase is Phase.TRIBUTE and m.to_act == 3
    assert (m.payer, m.payee, m.tribute_kind, m.tribute_n) == (3, 0, "normal", 7)
    # KH, 10H and 5H are point cards: skipped, the 7th card is the best side card QS.
    expected = A.tribute(3, cs("BJ LJ 3S 2H 2S AH QS"))
    assert list(m.legal_actions(3)) == [expected]
    rejected(m, A.tribute(3, cs("BJ LJ 3S 2H 2S AH KH")), IllegalActionError, "A5")
    rejected(m, A.tribute(3, cs("BJ LJ 3S 2H 2S AH")), IllegalActionError, "A5")
    rejected(m, A.tribute(0, cs("BJ LJ 3S 2H 2S AH QS")), OutOfTurnError)
    before0, before3 = list(m.hands[0]), list(m.hands[3])
    ev = m.apply(expected)
    assert ev.type == "tribute"
    assert thaw(ev.public) == {"seat": 3, "to": 0, "n": 7, "kind": "normal"}
    assert sorted(thaw(ev.secret)["cards"]) == sorted(["BJ", "LJ", "3S", "2H", "2S", "AH", "QS"])
    assert ev.audience == frozenset({0, 3})
    for x in expected.cards:
        assert m.hands[3][x] == before3[x] - expected.cards.count(x)
        assert m.hands[0][x] == before0[x] + expected.cards.count(x)
    assert m.phase is Phase.RETURN and m.to_act == 0


def test_A5_tribute_ties_are_chosen_by_the_giver():
    m = tribute_match("BJ 3S 3C 3D " + low(35), blood=3)
    choices = {a.cards for a in m.legal_actions(3)}
    assert choices == {tuple(sorted(cs(t))) for t in ("BJ 3S 3C", "BJ 3S 3D", "BJ 3C 3D")}
    rejected(m, A.tribute(3, cs("BJ 3S QS")), IllegalActionError, "A5")
    rejected(m, A.tribute(3, cs("3S 3C 3D")), IllegalActionError, "A5")
    m.apply(A.tribute(3, cs("BJ 3C 3D")))
    assert m.hands[3][c("3S")] == 1 and m.hands[3][c("3C")] == 0
    assert m.tribute_cards == tuple(sorted(cs("BJ 3C 3D")))


@pytest.mark.parametrize(("level", "rank"), [(3, "5"), (8, "10")])
def test_A5_level_5_and_10_cards_are_point_cards_never_given(level, rank):
    giver = f"BJ {rank}H {rank}S {rank}C 2S 2D " + low(33)
    m = tribute_match(giver, blood=2, dealer=f"{rank}H", level=level, declaration=f"{rank}H")
    assert m.level == level and m.trump == H
    assert {a.cards for a in m.legal_actions(3)} == {
        tuple(sorted(cs("BJ 2S"))), tuple(sorted(cs("BJ 2D")))}
    rejected(m, A.tribute(3, cs(f"BJ {rank}H")), IllegalActionError, "A5")
    rejected(m, A.tribute(3, cs(f"BJ {rank}S")), IllegalActionError, "A5")


def test_A5_return_is_n_non_point_side_cards_of_the_dealers_choice():
    m = tribute_match("BJ 3S 3C 3D " + low(35), blood=3, dealer="3H 5S KS 4D 6D 7D 8D AD")
    m.apply(A.tribute(3, cs("BJ 3S 3C")))
    assert m.phase is Phase.RETURN and m.to_act == 0
    legal = m.legal_actions(0)
    assert not legal.enumerable
    options = legal.selection().options([])
    assert options
    for x in options:
        assert not POINTS[x] and m.order.cls[x] != TRUMP, name(x)
    rejected(m, A.return_(0, cs("5S 4D 6D")), IllegalActionError, "A5/I-6")  # point card
    rejected(m, A.return_(0, cs("KS 4D 6D")), IllegalActionError, "A5/I-6")  # point card
    rejected(m, A.return_(0, cs("3H 4D 6D")), IllegalActionError, "A5/I-6")  # a trump
    rejected(m, A.return_(0, cs("BJ 4D 6D")), IllegalActionError, "A5/I-6")  # a trump
    rejected(m, A.return_(0, cs("4D 6D")), IllegalActionError, "A5")  # too few
    rejected(m, A.return_(3, cs("4D 6D 7D")), OutOfTurnError)
    ev = m.apply(A.return_(0, cs("4D 6D AD")))
    assert thaw(ev.public) == {"seat": 0, "to": 3, "n": 3}
    assert thaw(ev.secret) == {"cards": ["4D", "6D", "AD"]}
    assert m.hands[3][c("AD")] >= 1
    # A5 happens before the kitty: the kitty is shown only now (A6.1), then taken.
    assert types_after(m, "return")[:2] == ["kitty_shown", "take_kitty"]
    assert m.phase is Phase.BURY


# The dealer's only non-point side card is 7D; the rest are trumps and point cards.
HEARTS_24 = " ".join(f"{r}H {r}H {r}H" for r in ("4", "6", "7", "8", "9", "J", "Q", "A"))
SHORT_DEALER = "3H 7D " + HEARTS_24 + " 5S 5S 5S 10S 10S 10S KS KS KS 5C 5C 5C 10C"


def _short_return(fill: str) -> Match:
    rules = preset("gunzi", declare_asks="end-only", return_fill=fill)
    m = tribute_match("BJ 3S 3C 3D " + low(35), blood=3, dealer=SHORT_DEALER, rules=rules,
                      kitty="3H 6D 8D 9D JD QD")
    m.apply(A.tribute(3, cs("BJ 3S 3C")))
    assert m.phase is Phase.RETURN
    return m


def test_I6_too_few_side_cards_fill_with_other_non_point_cards_first():
    m = _short_return("non-point-first")
    assert m.can_apply(A.return_(0, cs("7D 4H 4H")))
    assert m.can_apply(A.return_(0, cs("7D BJ 3S")))
    rejected(m, A.return_(0, cs("7D 5S 5S")), IllegalActionError, "A5/I-6")
    rejected(m, A.return_(0, cs("7D 5S 4H")), IllegalActionError, "A5/I-6")
    rejected(m, A.return_(0, cs("4H 4H 6H")), IllegalActionError, "A5/I-6")  # 7D must go
    sel = m.legal_actions(0).selection()
    assert c("7D") in sel.options([])
    assert not any(POINTS[x] for x in sel.options([]))
    assert c("7D") not in sel.options([c("7D")])
    m.apply(A.return_(0, cs("7D 4H 6H")))
    assert m.phase is Phase.BURY


def test_I6_option_any_fills_with_any_cards():
    m = _short_return("any")
    assert m.can_apply(A.return_(0, cs("7D 5S 5S")))
    assert m.can_apply(A.return_(0, cs("7D 5S 4H")))
    assert m.can_apply(A.return_(0, cs("7D 4H 4H")))
    rejected(m, A.return_(0, cs("5S 5S 5S")), IllegalActionError, "A5/I-6")  # 7D must go
    sel = m.legal_actions(0).selection()
    assert c("5S") in sel.options([]) and c("KS") in sel.options([])
    m.apply(A.return_(0, cs("7D 10S KS")))
    assert m.hands[3][c("KS")] == 1


def test_A5_reversed_tribute_when_giver_holds_three_bj():
    m = tribute_match("BJ BJ BJ AD " + low(35), blood=2, dealer="3H LJ LJ", partner="LJ")
    assert m.phase is Phase.TRIBUTE
    assert (m.payer, m.payee, m.tribute_kind) == (0, 3, "reversed")
    # The dealer gives its own 2 biggest non-point cards to the giver.
    assert m.to_act == 0
    assert list(m.legal_actions(0)) == [A.tribute(0, [LJ, LJ])]
    rejected(m, A.tribute(3, cs("BJ BJ")), OutOfTurnError)
    ev = m.apply(A.tribute(0, [LJ, LJ]))
    assert thaw(ev.public) == {"seat": 0, "to": 3, "n": 2, "kind": "reversed"}
    assert m.hands[3][LJ] == 2 and m.hands[0][LJ] == 0
    # The giver returns non-point side cards.
    assert m.phase is Phase.RETURN and m.to_act == 3
    rejected(m, A.return_(3, [LJ, LJ]), IllegalActionError, "A5/I-6")
    rejected(m, A.return_(3, cs("BJ AD")), IllegalActionError, "A5/I-6")
    ev = m.apply(A.return_(3, cs("4S AD")))
    assert thaw(ev.public) == {"seat": 3, "to": 0, "n": 2}
    assert m.hands[0][c("AD")] >= 1
    assert m.phase is Phase.BURY and m.to_act == 0


def test_A5_cancelled_when_the_givers_partner_holds_three_bj():
    m = later(("3H", "BJ BJ BJ", None, None), KITTY_OK, dealer=0, blood=4)
    hands_before = None
    while m.phase is Phase.DRAW:
        if m.to_act == 0 and m.decl is None:
            m.apply(A.declare(0, [c("3H")]))
            hands_before = [list(h) for h in m.hands]
        else:
            m.apply(A.pass_(m.to_act))
    assert events(m, "tribute_cancelled") == [{"giver": 3, "dealer": 0, "n": 4}]
    assert m.tribute_kind == "cancelled" and m.tribute_n == 0
    assert not events(m, "tribute") and not events(m, "return")
    assert m.phase is Phase.BURY and m.to_act == 0
    for seat in (1, 2, 3):
        assert m.hands[seat] == hands_before[seat]


def test_A5_giver_is_the_dealers_upper_seat():
    # Dealer 2: its 上家 is seat 1.
    m = later((None, "BJ 3S 3C 3D " + low(35), "3H", None), KITTY_OK, dealer=2, blood=1)
    bid(m, A.declare(2, [c("3H")]))
    assert (m.payer, m.payee) == (1, 2) and m.to_act == 1
    assert list(m.legal_actions(1)) == [A.tribute(1, [BJ])]


def test_A5_no_tribute_without_blood():
    m = tribute_match("BJ 3S 3C 3D " + low(35), blood=0)
    assert m.tribute_n == 0 and m.tribute_kind == "none"
    assert m.phase is Phase.BURY


def test_I5_no_tribute_in_the_first_hand_of_a_round():
    m = deal_match(GUNZI, first_seat=0, hands=("4S", "4S", "BJ 4H", "4S"), kitty=KITTY_OK,
                   blood=3)
    assert events(m, "deal")[0]["tribute"] == 0
    m.apply(A.declare(2, [BJ]))
    assert m.tribute_n == 0
    assert not events(m, "tribute")
    assert m.phase in (Phase.BURY, Phase.PLAY)


def test_I5_option_first_hand_tribute():
    rules = preset("gunzi", first_hand_tribute=True)
    m = deal_match(rules, first_seat=0, hands=("4S", "4S", "BJ 4H", "4S"), kitty=KITTY_OK,
                   blood=3)
    assert events(m, "deal")[0]["tribute"] == 3
    m.apply(A.declare(2, [BJ]))
    # The grabber (seat 2) is the dealer; its 上家 (seat 1) gives.
    assert m.phase is Phase.TRIBUTE
    assert (m.payer, m.payee, m.tribute_n) == (1, 2, 3) and m.to_act == 1


# =========================================================================== A6 kitty


def test_A6_1_kitty_shown_to_everyone_after_declaring():
    m = later(("3H", None, None, None), KITTY_OK)
    bid(m, A.declare(0, [c("3H")]))
    shown = events(m, "kitty_shown")
    assert shown == [{"cards": KITTY_OK.split(), "when": "after-declaring"}]
    assert types_after(m, "trump")[:2] == ["kitty_shown", "take_kitty"]
    take = next(e for e in m.events if e.type == "take_kitty")
    assert take.audience == frozenset({0})
    assert m.phase is Phase.BURY and m.hand_size(0) == 45


def test_A6_1_kitty_shown_after_a_first_hand_grab():
    m = deal_match(GUNZI, first_seat=0, hands=("BJ 4H", "4S", "4S", "4S"), kitty=KITTY_OK)
    m.apply(A.declare(0, [BJ]))
    assert events(m, "kitty_shown") == [{"cards": KITTY_OK.split(), "when": "after-declaring"}]


def test_A6_1_kitty_not_shown_when_nobody_declared():
    m = later((None, None, None, None), "4H 4H 4H 6D 7D 8D")
    pass_draw(m)
    assert not events(m, "kitty_shown") and not m.kitty_shown
    take = next(e for e in m.events if e.type == "take_kitty")
    assert take.audience == frozenset({0}) and "cards" not in take.public


DRY = [
    # kitty, dry under 'no-trump-suit' (default), dry under 'no-trump'
    ("4H 6S 7S 8S 9S JS", False, False),  # one heart
    ("4S 6S 7S 8S 9S JS", True, True),  # no trump at all
    ("2S 4S 6S 7S 8S 9S", True, False),  # another suit's 2 is a trump but not a heart
    ("3S 4S 6S 7S 8S 9S", True, False),  # another suit's level card
    ("LJ 4S 6S 7S 8S 9S", True, False),  # a joker
    ("2S 3C LJ 4H 6H 7H", True, True),  # all trumps
    ("3H 4S 6S 7S 8S 9S", False, False),  # the trump-suit level card is a heart
    ("2H 4S 6S 7S 8S 9S", False, False),  # the trump-suit 2 is a heart
]


@pytest.mark.parametrize(("kitty", "dry_default", "dry_no_trump"), DRY)
@pytest.mark.parametrize("option", ["no-trump-suit", "no-trump"])
def test_A6_2_I7_dry_pot_under_each_reading(kitty, dry_default, dry_no_trump, option):
    rules = preset("gunzi", declare_asks="end-only", dry_pot=option)
    m = later(("3H", None, None, None), kitty, rules=rules)
    bid(m, A.declare(0, [c("3H")]))
    dry = dry_default if option == "no-trump-suit" else dry_no_trump
    assert m.dry_pot is dry
    if dry:
        assert events(m, "dry_pot") == [{"cards": kitty.split()}]
        # No exchange and no joker burying: play begins with the kitty untouched.
        assert m.phase is Phase.PLAY and m.to_act == 0
        assert names(m.kitty) == kitty.split()
        assert [m.hand_size(s) for s in range(4)] == [39] * 4
        assert not events(m, "take_kitty")
        six = [x for x in range(NUM_TYPES) for _ in range(m.hands[0][x])][:6]
        rejected(m, A.bury(0, six), OutOfTurnError)
        rejected(m, A.bury_jokers(1, [LJ], ()), OutOfTurnError)
    else:
        assert not events(m, "dry_pot")
        assert m.phase is Phase.BURY and m.hand_size(0) == 45


def test_A6_2_dry_pot_after_a_first_hand_grab():
    # Trump is spades (seat 0's next suited draw); the kitty holds no spade.
    m = deal_match(GUNZI, first_seat=0, hands=("BJ 6S", "4D", "4D", "4D"),
                   kitty="BJ BJ 7C 7C 7C 8C")
    m.apply(A.declare(0, [BJ]))
    assert m.trump == S and m.dry_pot
    assert m.phase is Phase.PLAY and m.hand_size(0) == 39


def test_A6_2_dry_pot_is_judged_only_on_a_shown_kitty():
    # Nobody declares; trump comes from a random kitty card (clubs); the kitty is all trumps
    # but it is not shown, so it is no dry pot.
    m = later((None, None, None, None), "LJ 7C 8C 9C 7C 8C")
    pass_draw(m)
    assert m.trump == C
    assert not m.dry_pot and not events(m, "dry_pot")
    assert m.phase is Phase.BURY


def test_A6_2_kitty_flip_hand_is_not_a_dry_pot():
    # First hand, nobody grabs: the flip makes seat 0 dealer with spades (2S is the lowest of
    # 2S LJ LJ LJ). The kitty is all trumps, but it is not shown, so it is no dry pot.
    m = deal_match(GUNZI, first_seat=0, hands=("BJ", "BJ", "BJ", None), kitty="2S LJ LJ LJ 2H 2D")
    pass_draw(m)
    assert m.dealer == 0 and m.trump == S
    assert all(m.order.is_trump(x) for x in cs("2S LJ LJ LJ 2H 2D"))
    assert not m.dry_pot and not events(m, "dry_pot")
    assert m.phase is Phase.BURY and m.hand_size(0) == 45


# --------------------------------------------------------------------------- A6.3 bury

BURY_KITTY = "4H 6S 6C 9D 7S 8S"


def to_bury(dealer_hand: str, others=(None, None, None), kitty: str = BURY_KITTY,
            rules=END_ONLY, dealer: int = 0) -> Match:
    hands: list[str | None] = list(others)
    hands.insert(dealer, dealer_hand)
    m = later(tuple(hands), kitty, dealer=dealer, rules=rules)
    bid(m, A.declare(dealer, [c("3H")]))
    assert m.phase is Phase.BURY and m.to_act == dealer
    return m


def test_A6_3_dealer_takes_the_kitty_and_buries_six():
    m = to_bury("3H 4D", ("BJ LJ", "BJ LJ", "BJ LJ"))
    assert m.hand_size(0) == 45
    for x in cs(BURY_KITTY):
        assert m.hands[0][x] >= 1
    rejected(m, A.bury(0, cs("4H 6S 6C 9D 7S")), IllegalActionError, "A6.3")  # 5 cards
    rejected(m, A.bury(0, cs("4H 6S 6C 9D 7S 8S 4D")), IllegalActionError, "A6.3")  # 7
    rejected(m, A.bury(0, cs("4H 6S 6C 9D 7S BJ")), IllegalActionError, "A6.3")  # not held
    rejected(m, A.bury(1, cs("4H 6S 6C 9D 7S 8S")), OutOfTurnError)
    ev = m.apply(A.bury(0, cs("4H 6S 6C 9D 7S 4D")))
    assert thaw(ev.public) == {"seat": 0, "n": 6}
    assert ev.audience == frozenset({0})
    assert sorted(m.kitty) == sorted(cs("4H 6S 6C 9D 7S 4D"))
    assert m.hand_size(0) == 39
    # No joker buried: the new kitty is hidden.
    assert not m.kitty_shown


def test_A6_3_point_cards_and_any_number_of_jokers_may_be_buried():
    m = to_bury("3H BJ LJ LJ 5S 10S KS", ("BJ", "BJ", "LJ"))
    action = A.bury(0, cs("BJ LJ LJ 5S 10S KS"))
    assert action in m.legal_actions(0)
    m.apply(action)
    assert sorted(m.kitty) == sorted(cs("BJ LJ LJ 5S 10S KS"))
    assert m.hands[0][BJ] == 0 and m.hands[0][LJ] == 0


def test_A6_3_bj_must_be_buried_before_lj():
    m = to_bury("3H BJ BJ LJ", ("BJ", "LJ", "LJ"))
    msg = rejected(m, A.bury(0, cs("LJ 4H 6S 6C 9D 7S")), IllegalActionError, "A6.3")
    assert "有大王必须先扣大王" in msg
    rejected(m, A.bury(0, cs("BJ LJ 4H 6S 6C 9D")), IllegalActionError, "A6.3")  # keeps a BJ
    assert A.bury(0, cs("BJ 4H 6S 6C 9D 7S")) in m.legal_actions(0)  # BJ alone is fine
    assert A.bury(0, cs("BJ BJ LJ 4H 6S 6C")) in m.legal_actions(0)
    sel = m.legal_actions(0).selection()
    # With LJ and 4 other cards chosen, only a BJ can complete a legal burial.
    assert sel.options(cs("LJ 4H 6S 6C 9D")) == []
    assert sel.options(cs("LJ BJ 6S 6C 9D")) == [BJ]
    m.apply(A.bury(0, cs("BJ BJ LJ 4H 6S 6C")))
    assert m.kitty_shown


# --------------------------------------------------------------------------- A6.4 others


def test_I18_others_bury_jokers_in_order_from_the_dealers_lower_seat():
    m = to_bury("3H", ("BJ LJ", "BJ LJ", "BJ LJ"), dealer=2)
    m.apply(A.bury(2, cs(BURY_KITTY)))
    order = []
    while m.phase is Phase.BURY_JOKERS:
        order.append(m.to_act)
        assert m.legal_actions(m.to_act).kind is Kind.BURY_JOKERS
        m.apply(A.pass_(m.to_act))
    assert order == [3, 0, 1]
    assert m.phase is Phase.PLAY and m.to_act == 2


def test_I18_option_before_dealer_order():
    rules = preset("gunzi", declare_asks="end-only", joker_bury_order="before-dealer")
    m = to_bury("3H", ("BJ LJ", "BJ LJ", "BJ LJ"), dealer=2, rules=rules)
    m.apply(A.bury(2, cs(BURY_KITTY)))
    order = []
    while m.phase is Phase.BURY_JOKERS:
        order.append(m.to_act)
        m.apply(A.pass_(m.to_act))
    assert order == [1, 0, 3]


def test_A6_4_seat_without_jokers_may_only_pass():
    m = to_bury("3H BJ LJ", ("BJ LJ", "4S", "BJ LJ"))
    m.apply(A.bury(0, cs(BURY_KITTY)))
    m.apply(A.pass_(1))
    assert m.to_act == 2
    assert list(m.legal_actions(2)) == [A.pass_(2)]
    rejected(m, A.bury_jokers(2, [c("4S")], ()), IllegalActionError, "A6.4")
    rejected(m, A.bury_jokers(2, [LJ], ()), IllegalActionError, "A6.4")


def _shown_kitty_for_pickup(rules=END_ONLY) -> Match:
    # Dealer buries BJ: the kitty (shown) holds 4H (a trump), 6S 6C 9D (side) and 5S (points).
    m = to_bury("3H BJ LJ 5S 10S KS", ("LJ", "BJ BJ LJ", None), kitty="4H 6S 6C 9D 7S 8S",
                rules=rules)
    m.apply(A.bury(0, cs("BJ 5S 6S 6C 9D 4H")))
    assert m.kitty_shown
    assert events(m, "kitty_shown")[-1] == {"cards": ["5S", "6S", "4H", "6C", "9D", "BJ"],
                                            "when": "dealer-buried-jokers"}
    assert m.phase is Phase.BURY_JOKERS and m.to_act == 1
    return m


def test_A6_4_pickup_is_the_lowest_non_point_non_joker_same_rank_player_chooses():
    m = _shown_kitty_for_pickup()
    assert legal_set(m, 1) == {
        A.pass_(1),
        A.bury_jokers(1, [LJ], [c("6S")]),
        A.bury_jokers(1, [LJ], [c("6C")]),
    }
    rejected(m, A.bury_jokers(1, [LJ], [c("9D")]), IllegalActionError, "A6.4")  # not lowest
    rejected(m, A.bury_jokers(1, [LJ], [c("4H")]), IllegalActionError, "A6.4")  # a trump
    rejected(m, A.bury_jokers(1, [LJ], [c("5S")]), IllegalActionError, "A6.4")  # point card
    rejected(m, A.bury_jokers(1, [LJ], [BJ]), IllegalActionError, "A6.4")  # a joker
    rejected(m, A.bury_jokers(1, [LJ], cs("6S 6C")), IllegalActionError, "A6.4")  # too many
    ev = m.apply(A.bury_jokers(1, [LJ], [c("6C")]))
    assert thaw(ev.public)["cards"] == ["LJ"] and thaw(ev.public)["take"] == ["6C"]
    assert m.hands[1][LJ] == 0 and m.hands[1][c("6C")] >= 1
    assert sorted(m.kitty) == sorted(cs("5S 6S 4H 9D BJ LJ"))
    assert m.to_act == 2


def test_A6_4_pickup_side_before_trump_then_rank_and_bj_first():
    m = _shown_kitty_for_pickup()
    m.apply(A.pass_(1))
    assert m.to_act == 2
    # Seat 2 holds BJ BJ LJ: LJ only after both BJ; cards taken: 6s, then 9D, then 4H (trump).
    six = {A.bury_jokers(2, [BJ], [c(t)]) for t in ("6S", "6C")}
    assert legal_set(m, 2) == {
        A.pass_(2),
        *six,
        A.bury_jokers(2, [BJ, BJ], cs("6S 6C")),
        A.bury_jokers(2, [BJ, BJ, LJ], cs("6S 6C 9D")),
    }
    rejected(m, A.bury_jokers(2, [LJ], [c("6S")]), IllegalActionError, "A6.4")
    rejected(m, A.bury_jokers(2, [BJ, LJ], cs("6S 6C")), IllegalActionError, "A6.4")
    rejected(m, A.bury_jokers(2, [BJ, BJ, LJ], cs("6S 6C 4H")), IllegalActionError, "A6.4")
    m.apply(A.bury_jokers(2, [BJ, BJ, LJ], cs("6S 6C 9D")))
    assert sorted(m.kitty) == sorted(cs("5S 4H BJ BJ BJ LJ"))


def test_A6_4_k_jokers_only_if_the_kitty_holds_k_such_cards():
    m = _shown_kitty_for_pickup()
    m.apply(A.pass_(1))
    m.apply(A.bury_jokers(2, [BJ, BJ], cs("6S 6C")))
    # Eligible now: 9D and 4H. Seat 3 holds no joker (all six are placed), so it passes.
    assert m.to_act == 3
    assert list(m.legal_actions(3)) == [A.pass_(3)]
    m.apply(A.pass_(3))
    assert m.phase is Phase.PLAY


def test_A6_4_more_jokers_than_eligible_cards_is_rejected_on_a_shown_kitty():
    # Dealer buries BJ + four point cards + 6S: one exchangeable card.
    m = to_bury("3H BJ LJ 5S 10S KS 5C", ("LJ", "BJ BJ LJ", None))
    m.apply(A.bury(0, cs("BJ 5S 10S KS 5C 6S")))
    m.apply(A.pass_(1))
    assert m.to_act == 2
    assert legal_set(m, 2) == {A.pass_(2), A.bury_jokers(2, [BJ], [c("6S")])}
    msg = rejected(m, A.bury_jokers(2, [BJ, BJ], ()), IllegalActionError, "A6.4")
    assert "only 1" in msg
    m.apply(A.bury_jokers(2, [BJ], ()))  # the lowest card is taken for it
    assert m.hands[2][c("6S")] >= 1
    assert m.phase is Phase.PLAY  # nothing exchangeable is left: nobody else is asked


def test_A6_4_dealer_buried_only_points_and_jokers_nobody_else_is_asked():
    m = to_bury("3H BJ LJ 5S 10S KS 5C 5D", ("LJ", "BJ BJ LJ", None))
    m.apply(A.bury(0, cs("BJ 5S 10S KS 5C 5D")))
    assert m.kitty_shown
    assert m.phase is Phase.PLAY and m.to_act == 0
    assert m.hands[1][LJ] == 1 and m.hands[2][BJ] == 2
    assert not events(m, "bury_jokers")


def _point_only_bury() -> Match:
    m = to_bury("3H BJ LJ 5S 10S KS 5C 5D KC", ("LJ", "BJ BJ LJ", None))
    m.apply(A.bury(0, cs("5S 10S KS 5C 5D KC")))
    assert not m.kitty_shown  # no joker buried: the kitty is hidden
    assert m.phase is Phase.BURY_JOKERS and m.to_act == 1
    return m


def test_A6_4_dealer_buried_only_point_cards_nobody_can_bury_jokers():
    m = _point_only_bury()
    kitty = sorted(m.kitty)
    # The seat cannot see the hidden kitty, so it may announce; nothing is buried.
    m.apply(A.bury_jokers(1, [LJ], ()))
    assert m.hands[1][LJ] == 1
    assert sorted(m.kitty) == kitty
    assert events(m, "bury_jokers")[-1]["cards"] == []
    assert m.phase is Phase.PLAY
    assert m.hands[2][BJ] == 2


def test_A6_5_failed_joker_burial_leaves_a_jokerless_kitty_hidden():
    m = _point_only_bury()
    ev = m.apply(A.bury_jokers(1, [LJ], ()))
    assert not any(x in (BJ, LJ) for x in m.kitty)
    assert not m.kitty_shown
    assert thaw(ev.public).get("shown") is None


def test_A6_4_hidden_kitty_burial_shows_the_kitty_and_takes_side_before_trump():
    # Dealer buries no joker: hidden kitty with 9D (side) and 6H (trump) exchangeable.
    m = to_bury("3H BJ LJ 5S 10S KS 5C 6H", ("LJ", "BJ BJ LJ", None))
    m.apply(A.bury(0, cs("5S 10S KS 5C 9D 6H")))
    assert not m.kitty_shown and m.to_act == 1
    # The kitty is hidden: the seat announces jokers, it cannot name the cards to take.
    assert legal_set(m, 1) == {A.pass_(1), A.bury_jokers(1, [LJ], ())}
    rejected(m, A.bury_jokers(1, [LJ], [c("9D")]), IllegalActionError, "A6.4")
    ev = m.apply(A.bury_jokers(1, [LJ], ()))
    assert sorted(thaw(ev.public)["shown"]) == sorted(["5S", "10S", "KS", "5C", "9D", "6H"])
    assert thaw(ev.public)["take"] == ["9D"]  # side before trump, though 6 < 9
    assert m.kitty_shown
    assert m.hands[1][c("9D")] >= 1 and m.hands[1][LJ] == 0
    # Seat 2 now sees the kitty: only 6H is left to take.
    assert m.to_act == 2
    assert legal_set(m, 2) == {A.pass_(2), A.bury_jokers(2, [BJ], [c("6H")])}


def test_A6_4_hidden_kitty_more_jokers_announced_than_exchangeable_cards():
    m = to_bury("3H BJ LJ 5S 5S 10S KS 5C", ("LJ", "BJ BJ LJ", None))
    m.apply(A.bury(0, cs("5S 10S KS 5C 9D 5S")))
    m.apply(A.pass_(1))
    assert m.to_act == 2
    m.apply(A.bury_jokers(2, [BJ, BJ, LJ], ()))
    # Only one exchangeable card (9D): one joker, a BJ, is buried; the others stay in hand.
    assert m.hands[2][BJ] == 1 and m.hands[2][LJ] == 1
    assert sorted(m.kitty) == sorted(cs("5S 5S 10S KS 5C BJ"))


def test_A6_4_hidden_kitty_same_rank_pickup_is_the_players_choice():
    # Hidden kitty: the announcement shows the kitty; 6C and 6D tie, so the seat chooses next.
    m = to_bury("3H BJ LJ 5S 10S KS 5C 6D", ("LJ", "BJ BJ LJ", None))
    m.apply(A.bury(0, cs("5S 10S KS 5C 6C 6D")))
    assert not m.kitty_shown and m.to_act == 1
    ev = m.apply(A.bury_jokers(1, [LJ], ()))
    assert ev.type == "joker_announce"
    assert sorted(thaw(ev.public)["shown"]) == sorted(["5S", "10S", "KS", "5C", "6C", "6D"])
    assert m.kitty_shown and m.to_act == 1
    assert legal_set(m, 1) == {A.bury_jokers(1, [LJ], [c("6C")]),
                               A.bury_jokers(1, [LJ], [c("6D")])}
    rejected(m, A.pass_(1), IllegalActionError, "A6.4")
    rejected(m, A.bury_jokers(1, [LJ], [c("5C")]), IllegalActionError, "A6.4")
    m.apply(A.bury_jokers(1, [LJ], [c("6D")]))
    assert m.hands[1][c("6D")] >= 1 and c("6C") in m.kitty and LJ in m.kitty
    assert m.to_act == 2


# --------------------------------------------------------------------------- A6.5 final kitty


def test_A6_5_final_kitty_without_jokers_stays_hidden():
    m = to_bury("3H", ("BJ LJ", "BJ LJ", "BJ LJ"))
    m.apply(A.bury(0, cs(BURY_KITTY)))
    while m.phase is Phase.BURY_JOKERS:
        m.apply(A.pass_(m.to_act))
    assert m.phase is Phase.PLAY
    assert not m.kitty_shown
    assert "kitty_shown" not in types_after(m, "bury")


def test_A6_5_final_kitty_with_a_dealer_joker_is_shown():
    m = to_bury("3H BJ", ("BJ LJ", "BJ LJ", "LJ"))
    m.apply(A.bury(0, cs("BJ 4H 6S 6C 9D 7S")))
    assert events(m, "kitty_shown")[-1] == {
        "cards": ["6S", "7S", "4H", "6C", "9D", "BJ"], "when": "dealer-buried-jokers"}
    while m.phase is Phase.BURY_JOKERS:
        m.apply(A.pass_(m.to_act))
    assert m.kitty_shown and BJ in m.kitty


def test_A6_5_final_kitty_with_another_seats_joker_is_shown():
    m = to_bury("3H", ("BJ LJ", "BJ LJ", "BJ LJ"))
    m.apply(A.bury(0, cs(BURY_KITTY)))
    m.apply(A.pass_(1))
    m.apply(A.bury_jokers(2, [BJ], ()))
    ev = events(m, "joker_announce")[-1]
    assert sorted(ev["shown"]) == sorted(BURY_KITTY.split())  # the hidden kitty is shown first
    m.apply(A.bury_jokers(2, [BJ], [c("6C")]))  # 6S and 6C tie: the seat chooses
    assert m.kitty_shown and BJ in m.kitty and c("6S") in m.kitty
    m.apply(A.pass_(3))
    assert m.phase is Phase.PLAY and m.kitty_shown
