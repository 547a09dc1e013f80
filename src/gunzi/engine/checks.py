"""Validation of every decision: raise a typed error naming seat, cards and rule; change nothing.

:func:`verify` checks the action's form and the turn, then calls the one function per
action kind (:meth:`Match.verify` is this).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NoReturn

from gunzi.engine import cards as C
from gunzi.engine import gunzi_tricks as GT
from gunzi.engine.actions import CHANCE, Action, Kind
from gunzi.engine.cards import BJ, LJ, NAMES, NUM_TYPES, Card
from gunzi.engine.errors import IllegalActionError, MalformedActionError, OutOfTurnError
from gunzi.engine.state import PHASE_KIND, PHASE_RULE, MatchState, Phase
from gunzi.engine.view import visible_to_act

SEED_LIMIT = 2**256


def clause(m: MatchState, part_a: str, classic: str = "B") -> str:
    """The clause of docs/rules.md an error cites: ``part_a`` in 打滚子; classic 升级 cites its own
    Part B (no numbered sub-clauses), with the Part A clause it adopts where it says so
    (``B/A4.2``: Part B declares "with the A4.2 overturn ladder")."""
    return m.variant.clause(part_a, classic)


def _show(cards: Sequence[Card]) -> str:
    return " ".join(NAMES[c] for c in cards) or "no cards"


def verify_deal(m: MatchState, action: Action) -> None:
    if action.seed is None or not 0 <= action.seed < SEED_LIMIT:
        raise MalformedActionError("a deal needs a seed in [0, 2**256)")
    if action.deck is not None and sorted(action.deck) != sorted(C.deck(m.rules.decks)):
            raise IllegalActionError(
                f"the deck must hold exactly {m.rules.decks} full deck(s) "
                f"({54 * m.rules.decks} cards)", clause(m, "A1")
            )
    if action.first_seat is not None and not m.first:
        raise IllegalActionError("only a first hand of a round has a chosen start seat",
                                 clause(m, "A4"))
    if m.deal_seed(action.seed) != action.seed:
        raise IllegalActionError(
            f"the second play of duplicate board {m.hand_no // 2 + 1} repeats the first "
            "play's deal: its seed must be the same", "duplicate")

def verify_declare(m: MatchState, action: Action) -> None:
    cards = action.cards
    seat = action.seat
    if not m.asks or m.asks[0] != seat:
        raise OutOfTurnError(f"{action}: seat {seat} is not being asked to declare")
    if not cards:
        raise MalformedActionError("a declaration shows 1 to 3 cards")
    if any(c != cards[0] for c in cards) or len(cards) > 3:
        raise IllegalActionError(
            f"seat {seat} declares with {_show(cards)}: a declaration shows 1, 2 or 3 "
            "identical cards", clause(m, "A4.2", "B/A4.2")
        )
    err = GT.held_error(cards, m.hands[seat])
    if err:
        raise IllegalActionError(f"seat {seat} declares {_show(cards)} but {err}",
                                 clause(m, "A4"))
    if Action(Kind.DECLARE, seat, cards, action.suit) not in m.declarations(seat):
        raise IllegalActionError(_why_not_declaration(m, action), clause(m, "A4.2", "B/A4.2"))

def _why_not_declaration(m: MatchState, action: Action) -> str:
    cards = action.cards
    who = f"seat {action.seat}"
    if m.first and m.variant.grabs_big_joker:
        if m.decl is not None:
            return f"{who}: the big joker was already grabbed; it cannot be overturned"
        return f"{who}: the first hand is declared by showing one BJ (抢亮大王)"
    if cards[0] >= LJ:
        if not m.rules.joker_declarations:
            return f"{who}: these rules do not allow joker declarations"
        if len(cards) != 3:
            return f"{who}: jokers declare only as three LJ or three BJ"
        if not 0 <= action.suit <= 3:
            return f"{who}: a three-joker declaration must name a suit (S, H, C or D)"
    elif cards[0] % 13 != m.level:
        return (f"{who}: {_show(cards)} is not a level card; this hand is played at "
                f"{C.RANKS[m.level]}")
    elif action.suit not in (-1, cards[0] // 13):
        return f"{who}: a level-card declaration names its own suit"
    standing = m.decl
    if standing is not None:
        return (f"{who}: {_show(cards)} is not stronger than the standing declaration "
                f"{_show(standing[1])} by seat {standing[0]}")
    return f"{who}: {_show(cards)} is not a valid declaration"

def verify_pass(m: MatchState, action: Action) -> None:
    if m.pickup_jokers is not None:
        raise IllegalActionError(
            f"seat {action.seat} announced jokers and must choose its pick-up", "A6.4")
    if m.phase == "draw" and (not m.asks or m.asks[0] != action.seat):
        raise OutOfTurnError(f"seat {action.seat} is not being asked to declare")

def verify_tribute(m: MatchState, action: Action) -> None:
    seat = action.seat
    cards = action.cards
    n = m.tribute_n
    if len(cards) != n:
        raise IllegalActionError(
            f"seat {seat} tributes {_show(cards)}: must give {n} tribute card(s), not "
            f"{len(cards)}", "A5")
    err = GT.held_error(cards, m.hands[seat])
    if err:
        raise IllegalActionError(f"seat {seat} tributes {_show(cards)} but {err}", "A5")
    forced, tied, k = m.tribute_split(seat)
    rest = list(cards)
    for c in forced:
        if c not in rest:
            raise IllegalActionError(
                f"seat {seat} tributes {_show(cards)}: must give its {n} biggest non-point "
                f"cards, including {_show(forced)}", "A5")
        rest.remove(c)
    pool = list(tied)
    for c in rest:
        if c not in pool:
            raise IllegalActionError(
                f"seat {seat} tributes {_show(cards)}: must give its {n} biggest non-point "
                f"cards: {NAMES[c]} is not one of them (choose {k} of {_show(tied)}"
                + (f" after {_show(forced)})" if forced else ")"), "A5")
        pool.remove(c)

def verify_return(m: MatchState, action: Action) -> None:
    seat = action.seat
    cards = action.cards
    n = m.tribute_n
    if len(cards) != n:
        raise IllegalActionError(
            f"seat {seat} returns {_show(cards)}: must return {n} card(s), not {len(cards)}",
            "A5")
    err = GT.held_error(cards, m.hands[seat])
    if err:
        raise IllegalActionError(f"seat {seat} returns {_show(cards)} but {err}", "A5")
    side, other, cap1, cap2, cap3 = m.return_caps(seat)
    a1 = sum(1 for c in cards if c in side)
    a2 = sum(1 for c in cards if c in other)
    if a1 != cap1 or a2 != cap2:
        raise IllegalActionError(
            f"seat {seat} returns {_show(cards)}: the return must be {n} side cards that are "
            f"not point cards ({cap1} such card(s) here"
            + (f", then {cap2} other non-point card(s)" if cap2 else "")
            + (f", then {cap3} of any card(s)" if cap3 else "")
            + ")", "A5/I-6")

def verify_bury(m: MatchState, action: Action) -> None:
    seat = action.seat
    cards = action.cards
    k = m.rules.kitty_size
    if len(cards) != k:
        raise IllegalActionError(
            f"seat {seat} buries {_show(cards)}: must bury {k} cards, not {len(cards)}",
            clause(m, "A6.3"))
    err = GT.held_error(cards, m.hands[seat])
    if err:
        raise IllegalActionError(f"seat {seat} buries {_show(cards)} but {err}",
                                 clause(m, "A6.3"))
    if m.variant.big_joker_first and LJ in cards:
        kept_bj = m.hands[seat][BJ] - cards.count(BJ)
        if kept_bj:
            raise IllegalActionError(
                f"seat {seat} buries {_show(cards)}: a LJ while keeping {kept_bj} BJ; a big "
                "joker must be buried first (有大王必须先扣大王)", "A6.3")

def verify_bury_jokers(m: MatchState, action: Action) -> None:
    seat = action.seat
    jokers = action.cards
    take = action.take
    if not jokers or any(c < LJ for c in jokers):
        raise IllegalActionError(f"seat {seat} may bury only jokers, not {_show(jokers)}",
                                 "A6.4")
    err = GT.held_error(jokers, m.hands[seat])
    if err:
        raise IllegalActionError(f"seat {seat} buries {_show(jokers)} but {err}", "A6.4")
    if LJ in jokers and m.hands[seat][BJ] - jokers.count(BJ) > 0:
        raise IllegalActionError(
            f"seat {seat} buries {_show(jokers)}: a LJ while keeping a BJ; a big joker must "
            "be buried first", "A6.4")
    if m.pickup_jokers is not None:
        if tuple(sorted(jokers)) != m.pickup_jokers or not take:
            raise IllegalActionError(
                f"seat {seat} announced {_show(m.pickup_jokers)} and must now choose which "
                "kitty cards to take back for them", "A6.4")
    elif not m.kitty_shown:
        if take:
            raise IllegalActionError(
                f"seat {seat} names kitty cards to take back, but the kitty is hidden: the "
                "lowest exchangeable cards are taken for it", "A6.4")
        return
    eligible = sorted(m.pickup_eligible(), key=m.pickup_key)
    if len(jokers) > len(eligible):
        raise IllegalActionError(
            f"seat {seat} buries {_show(jokers)}: the kitty holds only {len(eligible)} "
            "card(s) that are neither point cards nor jokers to take back", "A6.4")
    if not take:
        return
    if len(take) != len(jokers):
        raise IllegalActionError(
            f"seat {seat} buries {_show(jokers)} taking {_show(take)}: must take back as "
            f"many kitty cards as jokers ({len(jokers)}), not {len(take)}", "A6.4")
    lowest = eligible[: len(jokers)]
    cut = m.pickup_key(lowest[-1])
    forced = [c for c in lowest if m.pickup_key(c) < cut]
    tied = [c for c in eligible if m.pickup_key(c) == cut]
    rest = list(take)
    for c in forced:
        if c not in rest:
            raise IllegalActionError(_pickup_msg(seat, lowest, take), "A6.4")
        rest.remove(c)
    for c in rest:
        if c not in tied:
            raise IllegalActionError(_pickup_msg(seat, lowest, take), "A6.4")
        tied.remove(c)

def _pickup_msg(seat: int, lowest: list[Card], take: Sequence[Card]) -> str:
    return (f"seat {seat} takes {_show(take)}: a joker burier takes back the kitty's lowest "
            f"cards that are neither point cards nor jokers ({_show(lowest)}; same rank, any "
            "suit)")

def verify_play(m: MatchState, action: Action) -> None:
    seat = action.seat
    cards = action.cards
    if not cards:
        raise IllegalActionError(f"seat {seat} must play at least one card", "A7")
    err = m.variant.play_error(m, seat, cards)
    if err:
        verb = "leads" if not m.trick else "follows with"
        raise IllegalActionError(f"seat {seat} {verb} {_show(cards)}: {err}",
                                 m.variant.play_rule)


_VERIFY = {
    Kind.DEAL: verify_deal,
    Kind.DECLARE: verify_declare,
    Kind.PASS: verify_pass,
    Kind.TRIBUTE: verify_tribute,
    Kind.RETURN: verify_return,
    Kind.BURY: verify_bury,
    Kind.BURY_JOKERS: verify_bury_jokers,
    Kind.PLAY: verify_play,
}


def verify(m: MatchState, action: Action) -> None:
    """Raise the error :meth:`apply` would raise for ``action``; change nothing."""
    if not isinstance(action, Action):
        raise MalformedActionError(f"not an action: {action!r}")
    for group in (action.cards, action.take) if action.take else (action.cards,):
        try:
            bad = bool(group) and (min(group) < 0 or max(group) >= NUM_TYPES)
        except TypeError:
            bad = True
        if bad:
            raise MalformedActionError(
                f"{action.kind.value}: {list(group)!r} holds something that is not a card "
                "id 0..53")
    if action.seat != m.current or action.kind not in PHASE_KIND[m.phase]:
        _refuse_turn(m, action)
    _VERIFY[action.kind](m, action)

def _refuse_turn(m: MatchState, action: Action) -> NoReturn:
    """Raise the error for an action by the wrong seat or of the wrong kind."""
    seat = action.seat
    if type(seat) is not int or not (seat == CHANCE if action.kind is Kind.DEAL
                                     else 0 <= seat <= 3):
        what = "the dealer machine (-1)" if action.kind is Kind.DEAL else "a seat 0..3"
        raise MalformedActionError(f"{action.kind.value}: seat {seat!r} is not {what}")
    rule = clause(m, PHASE_RULE[m.phase])
    if m.phase is Phase.OVER:
        raise OutOfTurnError(f"the match is over; {action} is not possible", rule)
    expected = " or ".join(k.value for k in PHASE_KIND[m.phase])
    if visible_to_act(m, seat) is None and seat != CHANCE:
        # Who is being asked may be private (view.visible_to_act): in a first hand of
        # 打滚子 only big-joker holders are asked, so naming the seat would tell.
        raise OutOfTurnError(
            f"{action}: during the draw a seat acts only when asked whether to "
            f"declare (then: {expected}); seat {seat} is not being asked now", rule)
    who = "the dealer machine" if m.current == CHANCE else f"seat {m.current}"
    if action.kind not in PHASE_KIND[m.phase]:
        raise OutOfTurnError(
            f"{action}: the {m.phase.value} phase expects {expected} from {who}", rule)
    raise OutOfTurnError(f"{action}: not this seat's turn; waiting for {who}", rule)

def can_apply(m: MatchState, action: Action) -> bool:
    try:
        verify(m, action)
    except (MalformedActionError, OutOfTurnError, IllegalActionError):
        return False
    return True
