"""A match sitting in the play phase at a given position, so the real engine can finish it.

Search bots guess the hidden cards (a *determinization*) and want the exact rules to
play the rest of the hand and score it: the last trick's kitty capture (抠底) with the
kitty doubled, kitty jokers, level changes, blood. :func:`play_position` builds a
:class:`~gunzi.engine.match.Match` from the position's parts, as if the hand had been
dealt, declared, tributed and buried the way the caller says, and stopped at the next
play. The match waits for a deal action after the hand (``auto_deal`` off), so a
caller can read ``results[-1]`` and stop.

This is the documented public way to build a position (tests and tools use it instead
of setting a match's attributes): the match is made by the public constructor, then the
hand is set to what the caller gives. It validates what it is given: cards conserved
(every card of the pack exactly ``decks`` times among hands, kitty, finished tricks and
the trick in progress) unless the caller says the position is ``partial``, and always
seats, levels and the trump suit in range, seats in turn, each trick led by the last
one's winner, trick sizes, points adding up and hand sizes fitting the trick. A test
checks that a position copied from a real match plays out to the same result.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from gunzi.engine.cards import NAMES, NUM_TYPES, POINTS, Card
from gunzi.engine.errors import IllegalActionError
from gunzi.engine.events import NOBODY
from gunzi.engine.match import Match, Phase, team_of
from gunzi.engine.order import order_for
from gunzi.engine.rules import Ruleset

__all__ = ["play_position", "position_of"]


def _fail(message: str) -> IllegalActionError:
    return IllegalActionError(f"inconsistent position: {message}", "position")


def _check_setup(dealer: int, leader: int, levels: Sequence[int], level: int | None,
                 trump: int, hands: Sequence[Sequence[int]]) -> None:
    """Seats, levels and the trump suit in range, four hands."""
    for what, seat in (("dealer", dealer), ("leader", leader)):
        if seat not in range(4):
            raise _fail(f"the {what} is seat {seat}, not one of 0-3")
    if any(x not in range(14) for x in levels):  # 13: a team past the last level
        raise _fail(f"team levels {list(levels)} are not ranks")
    if level is not None and level not in range(13):
        raise _fail(f"the hand's level {level} is not a rank")
    if trump not in range(-1, 4):
        raise _fail(f"trump suit {trump} is not a suit (or -1 for none)")
    if len(hands) != 4:
        raise _fail(f"{len(hands)} hands, not four")


def _check_tricks(leader: int, tricks_done: Sequence[Mapping[str, Any]]) -> None:
    """Each finished trick led by the previous one's winner, the current one by the last."""
    for i, t in enumerate(tricks_done):
        if t["leader"] not in range(4) or t["winner"] not in range(4):
            raise _fail(f"finished trick {i + 1} names a seat outside 0-3")
        if i and t["leader"] != tricks_done[i - 1]["winner"]:
            raise _fail(f"finished trick {i + 1} must be led by seat "
                        f"{tricks_done[i - 1]['winner']}, the previous trick's winner")
    if tricks_done and leader != tricks_done[-1]["winner"]:
        raise _fail(f"the current trick must be led by seat {tricks_done[-1]['winner']}, "
                    "the last trick's winner")


def _check(
    rules: Ruleset,
    hands: Sequence[Sequence[int]],
    kitty: Sequence[Card],
    leader: int,
    trick: Sequence[tuple[int, tuple[Card, ...]]],
    tricks_done: Sequence[Mapping[str, Any]],
    points: Sequence[int],
    partial: bool,
) -> None:
    """Seats in turn, trick sizes consistent, points adding up; unless ``partial`` also
    cards conserved and the kitty's size."""
    _check_tricks(leader, tricks_done)
    won = [c for t in tricks_done for p in t["plays"] for c in p]
    for what, cards in (("the kitty", kitty), ("the tricks", won),
                        ("the current trick", [c for _, p in trick for c in p])):
        if any(c not in range(NUM_TYPES) for c in cards):
            raise _fail(f"{what} hold a number that is not a card")
    total = [0] * NUM_TYPES
    for h in hands:
        if len(h) != NUM_TYPES or any(k < 0 for k in h):
            raise _fail("a hand must be 54 non-negative counts")
        for c in range(NUM_TYPES):
            total[c] += h[c]
    for c in kitty:
        total[c] += 1
    team_points = [0, 0]
    for t in tricks_done:
        plays = t["plays"]
        if len(plays) != 4 or len({len(p) for p in plays}) != 1:
            raise _fail("a finished trick has four plays of one size")
        for p in plays:
            for c in p:
                total[c] += 1
        pts = sum(POINTS[c] for p in plays for c in p)
        if pts != t["points"]:
            raise _fail(f"a trick holds {pts} points, not {t['points']}")
        team_points[team_of(t["winner"])] += pts
    if list(points) != team_points:
        raise _fail(f"trick points per team are {team_points}, not {list(points)}")
    for i, (s, p) in enumerate(trick):
        if s != (leader + i) % 4:
            raise _fail(f"play {i} of the current trick must be seat {(leader + i) % 4}")
        if not p or len(p) != len(trick[0][1]):
            raise _fail("every play of a trick has the lead's size")
        for c in p:
            total[c] += 1
    if len(trick) >= 4:
        raise _fail("the current trick holds at most three plays")
    if not partial:
        for c in range(NUM_TYPES):
            if total[c] != rules.decks:
                raise _fail(f"{NAMES[c]} appears {total[c]} times, not {rules.decks}")
        if len(kitty) != rules.kitty_size:
            raise _fail(f"the kitty holds {len(kitty)} cards, not {rules.kitty_size}")
    sizes = [sum(h) for h in hands]
    played = {s for s, _ in trick}
    n = len(trick[0][1]) if trick else 0
    base = [sizes[s] + (n if s in played else 0) for s in range(4)]
    if len(set(base)) != 1 or base[0] == 0:
        raise _fail(f"hand sizes {sizes} do not fit the trick in progress")


def play_position(
    rules: Ruleset,
    *,
    dealer: int,
    levels: Sequence[int],
    trump: int,
    hands: Sequence[Sequence[int]],
    kitty: Sequence[Card],
    leader: int,
    trick: Sequence[tuple[int, Sequence[Card]]] = (),
    tricks_done: Sequence[Mapping[str, Any]] = (),
    points: Sequence[int] = (0, 0),
    level: int | None = None,
    dry_pot: bool = False,
    kitty_shown: bool = False,
    kitty_known_by: frozenset[int] | None = None,
    decl: tuple[int, tuple[Card, ...], int] | None = None,
    tribute_kind: str = "none",
    payer: int = -1,
    payee: int = -1,
    tribute_cards: Sequence[Card] = (),
    tribute_n: int | None = None,
    hand_no: int = 1,
    round_no: int = 1,
    first: bool = False,
    scores: Sequence[int] = (0, 0, 0, 0),
    blood: int = 0,
    hand_failed_throws: Sequence[int] = (0, 0, 0, 0),
    failed_throws: Sequence[int] | None = None,
    gained: Sequence[int] = (0, 0),
    rng: random.Random | None = None,
    partial: bool = False,
    check: bool = True,
) -> Match:
    """A match in the PLAY phase at this position; the next seat to play is to act.

    ``hands`` are four 54-count lists (the cards still held), ``kitty`` the final kitty,
    ``trick`` the plays of the trick in progress as ``(seat, cards)`` from ``leader``,
    ``tricks_done`` the finished tricks like ``Match.tricks`` (``leader``, ``plays`` in play
    order, ``winner``, ``points``), ``points`` the trick points per team so far. ``level``
    defaults to the dealer team's level. The position must conserve the deck, unless
    ``partial`` (a few cards for a test or a puzzle), and be consistent
    (:class:`IllegalActionError` otherwise); ``check=False`` skips every check, for
    search, whose guessed deals are consistent by construction. Classic
    games also carry the failed throws of this hand (and of the game, default the same)
    and the levels gained so far, for the Part C points.
    """
    play_list = [(s, tuple(p)) for s, p in trick]
    if check:
        _check_setup(dealer, leader, levels, level, trump, hands)
        _check(rules, hands, kitty, leader, play_list, tricks_done, points, partial)
    if len(levels) != 2:
        raise _fail(f"two team levels, not {list(levels)}")
    # The public constructor sets the match and a fresh hand; then the hand is set to what
    # the draw, tribute and kitty phases would have left behind.
    m = Match(rules, rng, auto_deal=False, levels=(levels[0], levels[1]), dealer=dealer,
              blood=blood)
    m.hand_no = hand_no
    m.round_no = round_no
    m.first = first
    m.scores = list(scores)
    m.failed_throws = list(hand_failed_throws if failed_throws is None else failed_throws)
    m.gained = list(gained)
    m.deal_no = 1
    m.pos = 4 * rules.hand_size
    m.next_drawer = dealer
    m.first_seat = dealer
    m.hands = [list(h) for h in hands]
    m.kitty = list(kitty)
    m.kitty_shown = kitty_shown
    m.kitty_known_by = (
        kitty_known_by if kitty_known_by is not None
        else (NOBODY if dry_pot else frozenset((dealer,)))
    )
    m.decl = decl
    m.declarer_is_dealer = decl is not None and decl[0] == dealer
    m.trump = trump
    m.level = level if level is not None else m.levels[team_of(dealer)]
    m.order = order_for(m.level, trump, rules.permanent_twos)
    m.window = True
    m.declared = decl is not None
    m.tribute_n = len(tribute_cards) if tribute_n is None else tribute_n
    m.payer = payer
    m.payee = payee
    m.tribute_kind = tribute_kind
    m.tribute_cards = tuple(tribute_cards)
    m.dry_pot = dry_pot
    # Play.
    m.leader = leader
    m.trick = play_list
    m.lead_shape = m.variant.lead_shape(rules, play_list[0][1], m.order) if play_list else None
    m.trick_no = len(tricks_done) + 1
    m.points = list(points)
    m.tricks = [
        {"leader": t["leader"], "plays": [list(p) for p in t["plays"]], "winner": t["winner"],
         "points": t["points"]}
        for t in tricks_done
    ]
    if tricks_done:
        last = tricks_done[-1]
        m.last_trick_winner = last["winner"]
        idx = (last["winner"] - last["leader"]) % 4
        m.last_winning_play = tuple(last["plays"][idx])
    else:
        m.last_trick_winner = -1
        m.last_winning_play = ()
    m.hand_failed_throws = list(hand_failed_throws)
    m.phase = Phase.PLAY
    m.current = (leader + len(play_list)) % 4
    return m


def position_of(match: Match, hands: Sequence[Sequence[int]] | None = None,
                kitty: Sequence[Card] | None = None) -> Match:
    """A fresh match at ``match``'s play position (optionally with other hands and kitty).

    The state a seat cannot see is replaced only where the caller says so; everything
    public (tricks, points, the trick in progress, tribute, declaration) is kept.
    """
    if match.phase is not Phase.PLAY:
        raise _fail(f"the match is in the {match.phase.value} phase, not play")
    assert match.dealer is not None
    return play_position(
        match.rules,
        dealer=match.dealer,
        levels=match.levels,
        trump=match.trump,
        hands=match.hands if hands is None else hands,
        kitty=match.kitty if kitty is None else kitty,
        leader=match.leader,
        trick=match.trick,
        tricks_done=match.tricks,
        points=match.points,
        level=match.level,
        dry_pot=match.dry_pot,
        kitty_shown=match.kitty_shown,
        kitty_known_by=match.kitty_known_by,
        decl=match.decl,
        tribute_kind=match.tribute_kind,
        payer=match.payer,
        payee=match.payee,
        tribute_cards=match.tribute_cards,
        tribute_n=match.tribute_n,
        hand_no=match.hand_no,
        round_no=match.round_no,
        first=match.first,
        scores=match.scores,
        blood=match.blood_next,
        hand_failed_throws=match.hand_failed_throws,
        failed_throws=match.failed_throws,
        gained=match.gained,
    )
