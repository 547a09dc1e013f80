"""Error texts: typed, naming the seat, the offered cards and the rule, and never a secret."""

from __future__ import annotations

import random
import re

import pytest

from gunzi.engine import actions as A
from gunzi.engine.cards import NAMES, POINTS
from gunzi.engine.errors import IllegalActionError, MalformedActionError, OutOfTurnError
from gunzi.engine.match import Match, Phase
from gunzi.engine.rules import preset
from gunzi.engine.view import view
from helpers import cards, deal_match, run_until


@pytest.mark.parametrize("seed", range(12))
def test_A4_out_of_turn_during_the_draw_never_names_the_asked_seat(seed: int) -> None:
    """In a first hand only big-joker holders are asked: naming the asked seat would leak."""
    m = Match(preset("gunzi"), random.Random(seed))
    assert m.phase is Phase.DRAW and m.current is not None
    asked = m.current
    for other in range(4):
        if other == asked:
            continue
        assert view(m, other)["to_act"] is None
        for action in (A.pass_(other), A.declare(other, cards("BJ")), A.play(other, [0])):
            with pytest.raises(OutOfTurnError) as info:
                m.verify(action)
            mentioned = {int(s) for s in re.findall(r"seat (\d)", str(info.value))}
            assert mentioned == {other}, str(info.value)
            assert info.value.rule == "A4"


@pytest.mark.parametrize("seat", [4, 7, -2, 100])
def test_a_seat_outside_0_to_3_is_malformed_not_out_of_turn(seat: int) -> None:
    m = Match(preset("gunzi"), random.Random(1))
    with pytest.raises(MalformedActionError, match=f"seat {seat} is not a seat 0..3"):
        m.verify(A.pass_(seat))


def test_out_of_turn_play_names_the_seat_waited_for_and_the_rule() -> None:
    m = Match(preset("gunzi"), random.Random(2))
    run_until(m, Phase.PLAY)
    waiting = m.current
    assert waiting is not None
    other = (waiting + 1) % 4
    with pytest.raises(OutOfTurnError) as info:
        m.verify(A.play(other, [0]))
    assert f"waiting for seat {waiting}" in str(info.value) and info.value.rule == "A7"


def test_A6_3_bury_errors_name_the_offered_cards() -> None:
    m = deal_match(first_seat=0, hands=["BJ", None, None, None])
    run_until(m, Phase.BURY)
    dealer = m.current
    assert dealer is not None
    held = [c for c in range(54) for _ in range(m.hands[dealer][c])]
    offer = held[:5]
    with pytest.raises(IllegalActionError) as info:
        m.verify(A.bury(dealer, offer))
    text = str(info.value)
    shown = " ".join(NAMES[c] for c in sorted(offer))
    assert f"seat {dealer} buries {shown}: must bury 6 cards, not 5" in text
    assert info.value.rule == "A6.3"


def test_A5_tribute_and_return_errors_name_the_offered_cards_and_a_flat_rule_tag() -> None:
    rng = random.Random(5)
    for seed in range(200):
        m = Match(preset("gunzi"), random.Random(seed))
        while not m.is_over and m.phase is not Phase.TRIBUTE and m.hand_no < 4:
            seat = m.current
            assert seat is not None
            m.apply(m.legal_actions(seat).sample(rng))
        if m.phase is Phase.TRIBUTE:
            break
    else:
        pytest.fail("no tribute in 200 matches")
    payer = m.current
    assert payer is not None
    one = [next(c for c in range(54) if m.hands[payer][c])]
    if m.tribute_n != 1:
        with pytest.raises(IllegalActionError) as info:
            m.verify(A.tribute(payer, one))
        assert f"seat {payer} tributes {NAMES[one[0]]}: must give" in str(info.value)
    m.apply(m.legal_actions(payer).sample(rng))
    payee = m.current
    assert payee is not None and m.phase is Phase.RETURN
    points = [c for c in range(54) if m.hands[payee][c] and POINTS[c]]
    if len(points) >= m.tribute_n:
        bad = points[: m.tribute_n]
        with pytest.raises(IllegalActionError) as info:
            m.verify(A.return_(payee, bad))
        assert str(info.value).startswith(f"seat {payee} returns ")
        assert info.value.rule == "A5/I-6" and "[A5/I-6]" in str(info.value)


def test_a_lead_of_more_copies_than_held_says_how_many_are_held() -> None:
    from gunzi.engine import gunzi_tricks as GT

    hand = [0] * 54
    for c in cards("3S 9H"):
        hand[c] += 1
    assert GT.lead_error(cards("3S 3S 3S"), hand) == "does not hold 3S 3S 3S (holds only 3S)"
    assert GT.lead_error(cards("AS AS"), hand) == "does not hold AS AS"


def _cites(m: Match, action: A.Action, kind: type[Exception]) -> str:
    with pytest.raises(kind) as info:
        m.verify(action)
    return getattr(info.value, "rule", "")


def test_classic_errors_cite_part_b_not_the_gunzi_clauses() -> None:
    """Classic 升级 is Part B of docs/rules.md: its bury, declaring and turn errors cite B, never a
    bare Part A clause of 打滚子 (A4 declaring, A6.3 burying, ...)."""
    m = deal_match("classic-2", first_seat=0, hands=["2S", None, None, None])
    assert m.phase is Phase.DRAW and m.current == 0
    assert _cites(m, A.declare(0, cards("2H")), IllegalActionError) == "B"  # not held
    # four identical cards: Part B declares "with the A4.2 overturn ladder", so it says so
    assert _cites(m, A.declare(0, cards("2S 2S 2S 2S")), IllegalActionError) == "B/A4.2"
    assert _cites(m, A.play(1, [0]), OutOfTurnError) == "B"
    run_until(m, Phase.BURY)
    dealer = m.current
    assert dealer is not None
    held = [c for c in range(54) for _ in range(m.hands[dealer][c])]
    assert _cites(m, A.bury(dealer, held[:3]), IllegalActionError) == "B"  # 8 go to the kitty
    missing = next(c for c in range(54) if not m.hands[dealer][c])
    assert _cites(m, A.bury(dealer, [*held[:7], missing]), IllegalActionError) == "B"
    assert _cites(m, A.play(dealer, held[:1]), OutOfTurnError) == "B"
    # the same bury in 打滚子 cites A6.3
    g = deal_match(first_seat=0, hands=["BJ", None, None, None])
    run_until(g, Phase.BURY)
    assert g.current is not None
    assert _cites(g, A.bury(g.current, []), IllegalActionError) == "A6.3"
