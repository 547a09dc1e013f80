"""Classic 升级 variant options [I-20]..[I-30] and the kitty multipliers ([I-31]) 'unit-size',
'power'.

Every position is built with the public constructor :func:`play_position` (unchecked:
the hands hold only the cards a case needs, so a trick or two ends the hand). Expected
winners, obligations and scores are read by hand from the rule texts of
docs/rules-classic-variants.md, written next to each case; the default value of each
option is checked too, so a case fails if an option changes nothing.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from gunzi.cli import app
from gunzi.engine import actions as A
from gunzi.engine import records, scoring
from gunzi.engine.cards import counts, parse, parse_many
from gunzi.engine.classic_policy import Policy
from gunzi.engine.classic_tricks import (
    Shape,
    _cover_tops,
    decompose,
    follow_error,
    legal_follows,
    random_follow,
)
from gunzi.engine.errors import IllegalActionError, InvalidRulesError
from gunzi.engine.match import Match, Phase
from gunzi.engine.order import TRUMP, Order
from gunzi.engine.position import play_position
from gunzi.engine.rules import OPTIONS, Ruleset, preset
from gunzi.ladder.points import closed_points
from helpers import passer, run_until
from test_classic_tricks import _sub_multisets, situations

S, H, C, D = 0, 1, 2, 3
L2, L5, KING, ACE = 0, 3, 11, 12  # level rank indices


def table(rules: Ruleset, hands: dict[int, str], *, leader: int = 0, trump: int = H,
          levels: tuple[int, int] = (L2, L2), dealer: int = 0, kitty: str = "",
          **kw: object) -> Match:
    """A play-phase match whose seats hold exactly ``hands`` (cards as text)."""
    return play_position(
        rules, dealer=dealer, levels=levels, trump=trump,
        hands=[counts(parse_many(hands.get(s, ""))) for s in range(4)],
        kitty=parse_many(kitty), leader=leader, check=False, **kw)  # type: ignore[arg-type]


def play(m: Match, seat: int, text: str) -> None:
    m.apply(A.play(seat, parse_many(text)))


def trick(rules: Ruleset, plays: dict[int, str], leader: int = 0, **kw: object) -> int:
    """Play one whole trick of exactly these plays; the seat that wins it."""
    m = table(rules, plays, leader=leader, **kw)
    for i in range(4):
        seat = (leader + i) % 4
        play(m, seat, plays[seat])
    return int(m.tricks[-1]["winner"])


def refused(m: Match, seat: int, text: str) -> bool:
    try:
        play(m, seat, text)
    except IllegalActionError:
        return True
    return False


# ============================================================================== [I-20]
# Lead: three separate spade pairs (nobody else holds spades, so the throw stands).
# Seat 1 trumps with the tractor 5H5H6H6H plus 9H9H. Reading of [I-20]: 'same' needs the
# units pair, pair, pair; 'cover' lets the tractor cover two of the pairs and 9H9H the third.
THREE_PAIRS = {0: "3S 3S 7S 7S JS JS", 1: "5H 5H 6H 6H 9H 9H",
               2: "3D 4D 6D 7D 8D 9D", 3: "3C 4C 6C 7C 8C 9C"}


@pytest.mark.parametrize(("value", "winner"), [("same", 0), ("cover", 1)])
def test_I20_tractor_and_pair_trump_three_pairs(value: str, winner: int) -> None:
    assert trick(preset("classic-2", trump_structure=value), THREE_PAIRS) == winner


@pytest.mark.parametrize(("value", "winner"), [("same", 0), ("cover", 1)])
def test_I20_two_chained_trump_pairs_count_as_two_pairs(value: str, winner: int) -> None:
    # Lead 3S3S + 9S9S (two pairs); seat 1 trumps with 7H7H8H8H, which is a tractor.
    plays = {0: "3S 3S 9S 9S", 1: "7H 7H 8H 8H", 2: "3D 4D 6D 7D", 3: "3C 4C 6C 7C"}
    assert trick(preset("classic-2", trump_structure=value), plays) == winner


@pytest.mark.parametrize(("value", "winner"), [("same", 0), ("cover", 0), ("cover-triples", 1)])
def test_I20_a_triple_covers_a_pair_only_if_the_ruleset_says_so(value: str, winner: int) -> None:
    # Lead 3S3S + 7S (pair + single); seat 1 trumps with the triple QHQHQH: only
    # 'cover-triples' lets two of its cards cover the pair and the third the single.
    plays = {0: "3S 3S 7S", 1: "QH QH QH", 2: "3D 4D 6D", 3: "3C 4C 6C"}
    assert trick(preset("classic-3", trump_structure=value), plays) == winner


def test_I20_cover_still_needs_every_unit_covered() -> None:
    # Lead two spade pairs; seat 1 trumps with one pair and two singles: no cover.
    plays = {0: "3S 3S 9S 9S", 1: "7H 7H 8H 10H", 2: "3D 4D 6D 7D", 3: "3C 4C 6C 7C"}
    assert trick(preset("classic-2", trump_structure="cover"), plays) == 0


# ============================================================================== [I-21]
# Lead 3S3S + 9S (a pair and a single, standing). Seats 1 and 2 both trump it with a pair
# and a single; [I-21] picks between them. Trumps are hearts at level 2.
@pytest.mark.parametrize(("seat1", "seat2", "mode", "winner"), [
    # 8H8H > 6H6H on the strongest unit: seat 2 wins by 'highest-unit'; by 'every-unit'
    # its 7H does not beat AH, so seat 1 keeps the trick; by 'highest-card' AH > 8H.
    ("6H 6H AH", "8H 8H 7H", "highest-unit", 2),
    ("6H 6H AH", "8H 8H 7H", "every-unit", 1),
    ("6H 6H AH", "8H 8H 7H", "highest-card", 1),
    # 8H8H > 6H6H, and 7H > 4H: seat 2 beats seat 1 on every reading.
    ("6H 6H 4H", "8H 8H 7H", "highest-unit", 2),
    ("6H 6H 4H", "8H 8H 7H", "every-unit", 2),
    ("6H 6H 4H", "8H 8H 7H", "highest-card", 2),
    # The single 2S is a level card, above every plain heart: only 'highest-card' sees it.
    ("JH JH 2S", "QH QH 3H", "highest-unit", 2),
    ("JH JH 2S", "QH QH 3H", "highest-card", 1),
])
def test_I21_several_trumped_throws(seat1: str, seat2: str, mode: str, winner: int) -> None:
    plays = {0: "3S 3S 9S", 1: seat1, 2: seat2, 3: "3C 4C 6C"}
    assert trick(preset("classic-2", throw_compare=mode), plays) == winner


# ======================================================================= kitty multiplier
# The attackers (seat 1) win the last trick; the kitty holds 10S + KS = 20 points and the
# trick itself no points, so the score is 20 x multiplier. 'unit-size': 2 x the cards of
# the winning play's largest unit; 'power': 2 ** those cards.
@pytest.mark.parametrize(("lead", "mode", "mult"), [
    ("9H", "unit-size", 2), ("9H", "power", 2),
    ("9H 9H", "unit-size", 4), ("9H 9H", "power", 4),
    ("8H 8H 9H 9H", "unit-size", 8), ("8H 8H 9H 9H", "power", 16),
    ("8H 8H 9H 9H", "doubling", 8), ("8H 8H 9H 9H", "linear", 8),
])
def test_kitty_multipliers(lead: str, mode: str, mult: int) -> None:
    n = len(parse_many(lead))
    filler = {0: "3D 4D 6D 7D", 2: "3C 4C 6C 7C", 3: "8C 9C JC QC"}
    hands = {1: lead, **{s: " ".join(t.split()[:n]) for s, t in filler.items()}}
    m = table(preset("classic-2", kitty_multiplier=mode), hands, leader=1, kitty="10S KS")
    for seat in (1, 2, 3, 0):
        play(m, seat, hands[seat])
    result = m.results[-1]
    assert result["kou"] and result["kitty_multiplier"] == mult
    assert result["score"] == 20 * mult


def test_kitty_multiplier_of_a_triple() -> None:
    # A triple is 3 cards: 'unit-size' x6, 'power' x8.
    for mode, mult in (("unit-size", 6), ("power", 8)):
        hands = {1: "9H 9H 9H", 2: "3C 4C 6C", 3: "8C 9C JC", 0: "3D 4D 6D"}
        m = table(preset("classic-3", kitty_multiplier=mode), hands, leader=1, kitty="10S")
        for seat in (1, 2, 3, 0):
            play(m, seat, hands[seat])
        assert m.results[-1]["kitty_multiplier"] == mult


# ============================================================================== [I-23]
def test_I23_three_pair_minimum_makes_two_pairs_a_throw() -> None:
    # 3S3S4S4S: a tractor by default (one unit: it always stands); with a minimum of three
    # pairs it is a throw of two pairs, and seat 2's 9S9S beats the pair parts: the lead
    # is cut to its smallest failing part, 3S3S, and the throw is counted as failed.
    hands = {0: "3S 3S 4S 4S", 1: "3D 4D 6D 7D", 2: "9S 9S 6C 7C", 3: "3C 4C 8C JC"}
    for value, lead, failed in ((2, "3S 3S 4S 4S", 0), (3, "3S 3S", 1)):
        m = table(preset("classic-2", tractor_min_length=value), hands)
        play(m, 0, "3S 3S 4S 4S")
        assert sorted(m.trick[0][1]) == sorted(parse_many(lead))
        assert m.hand_failed_throws[0] == failed


def test_I23_two_pairs_do_not_oblige_a_tractor_under_a_three_pair_minimum() -> None:
    # Lead JSJS QSQS; seat 1 holds 6S6S 7S7S 3S3S. Default: the lead is a tractor and seat 1
    # holds one, so 6S6S 3S3S (no tractor) is refused. Minimum 3: the lead is two pairs
    # (it stands: nobody holds a higher spade pair) and any two pairs follow it.
    hands = {0: "JS JS QS QS", 1: "6S 6S 7S 7S 3S 3S", 2: "3D 4D 6D 7D", 3: "3C 4C 6C 7C"}
    for value, bad in ((2, True), (3, False)):
        m = table(preset("classic-2", tractor_min_length=value), hands)
        play(m, 0, "JS JS QS QS")
        assert refused(m, 1, "6S 6S 3S 3S") is bad


# ============================================================================== [I-24]
def test_I24_triples_tractors_or_separate() -> None:
    # 3S3S3S4S4S4S: one tractor of triples (stands) by default; with triple_tractors off two
    # triples, a throw that seat 2's 9S9S9S beats: cut to 3S3S3S.
    hands = {0: "3S 3S 3S 4S 4S 4S", 1: "3D 4D 6D 7D 8D 9D", 2: "9S 9S 9S 6C 7C 8C",
             3: "3C 4C 8C JC QC KC"}
    for value, lead in ((True, "3S 3S 3S 4S 4S 4S"), (False, "3S 3S 3S")):
        m = table(preset("classic-3", triple_tractors=value), hands)
        play(m, 0, "3S 3S 3S 4S 4S 4S")
        assert sorted(m.trick[0][1]) == sorted(parse_many(lead))


# ============================================================================== [I-25]
def test_I25_breaking_a_longer_tractor() -> None:
    # Lead 3S3S4S4S; seat 1 holds the longer tractor 6S6S7S7S8S8S. Default: it must give a
    # tractor out of it, so 6S6S 8S8S (pairs, not adjacent) is refused. Off: the longer
    # tractor is protected; it still owes two pairs, so 6S6S 7S 8S is refused either way.
    hands = {0: "3S 3S 4S 4S", 1: "6S 6S 7S 7S 8S 8S", 2: "3D 4D 6D 7D", 3: "3C 4C 6C 7C"}
    for value, bad in ((True, True), (False, False)):
        m = table(preset("classic-2", break_longer_tractor=value), hands)
        play(m, 0, "3S 3S 4S 4S")
        assert refused(m, 1, "6S 6S 7S 8S")
        assert refused(m, 1, "6S 6S 8S 8S") is bad


def test_I25_legal_follows_agree_with_the_refusals() -> None:
    hands = {0: "3S 3S 4S 4S", 1: "6S 6S 7S 7S 8S 8S", 2: "3D 4D 6D 7D", 3: "3C 4C 6C 7C"}
    m = table(preset("classic-2", break_longer_tractor=False), hands)
    play(m, 0, "3S 3S 4S 4S")
    listed = {a.cards for a in m.legal_actions(1)}
    # Any two of the three pairs: 6677, 6688, 7788 (read by hand from [I-25] 'False').
    want = {tuple(sorted(parse_many(t))) for t in
            ("6S 6S 7S 7S", "6S 6S 8S 8S", "7S 7S 8S 8S")}
    assert listed == want


# ============================================================================== [I-26]
def test_I26_a_shorter_tractor_or_pairs_from_any_ranks() -> None:
    # Lead the 3-pair tractor 3S..5S; seat 1 holds 7S7S8S8S (a shorter tractor), 10S10S and
    # QSQS. 'tractor': it must play 7788 and one more pair, so 7S7S 10S10S QSQS is refused.
    # 'pairs': any three pairs.
    hands = {0: "3S 3S 4S 4S 5S 5S", 1: "7S 7S 8S 8S 10S 10S QS QS",
             2: "3D 4D 6D 7D 8D 9D", 3: "3C 4C 6C 7C 8C 9C"}
    for value, bad in (("tractor", True), ("pairs", False)):
        m = table(preset("classic-2", short_tractor_follow=value), hands)
        play(m, 0, "3S 3S 4S 4S 5S 5S")
        assert refused(m, 1, "7S 7S 10S 10S QS 8S")  # three pairs are owed either way
        assert refused(m, 1, "7S 7S 10S 10S QS QS") is bad


# ============================================================================== [I-27]
def test_I27_a_triple_is_drawn_for_a_pair_only_without_protection() -> None:
    # Lead 3S3S; seat 1 holds 7S7S7S, 9S, JS (no pair). 'none': the triple gives a pair,
    # so 9S JS is refused; 'longer-tuples': the triple is protected and any two spades do.
    hands = {0: "3S 3S", 1: "7S 7S 7S 9S JS", 2: "3D 4D", 3: "3C 4C"}
    for value, bad in (("none", True), ("longer-tuples", False), ("no-format", False)):
        m = table(preset("classic-3", draw_protection=value), hands)
        play(m, 0, "3S 3S")
        listed = {a.cards for a in m.legal_actions(1)}
        assert (tuple(sorted(parse_many("9S JS"))) in listed) is not bad
        assert tuple(sorted(parse_many("7S 7S"))) in listed  # splitting stays allowed
        assert refused(m, 1, "9S JS") is bad


@pytest.mark.parametrize(("value", "owed"), [("none", True), ("no-format", False)])
def test_I27_no_format_asks_only_the_suit(value: str, owed: bool) -> None:
    # 2 decks. Lead the tractor 3S3S4S4S; seat 1 holds the tractor 7S7S8S8S and 10S, QS.
    # 'none': it owes its tractor, so 7S 8S 10S QS is refused and 7S7S8S8S is the only
    # follow. 'no-format' (the trick draw policy that draws by suit only): any four of its
    # spades: 7S and 8S up to twice, 10S and QS up to once, four cards in all: 8 multisets.
    hands = {0: "3S 3S 4S 4S", 1: "7S 7S 8S 8S 10S QS", 2: "3D 4D 6D 7D", 3: "3C 4C 6C 7C"}
    m = table(preset("classic-2", draw_protection=value), hands)
    play(m, 0, "3S 3S 4S 4S")
    listed = {a.cards for a in m.legal_actions(1)}
    want = {tuple(sorted(parse_many(t))) for t in (
        "7S 7S 8S 8S", "7S 7S 8S 10S", "7S 7S 8S QS", "7S 7S 10S QS", "7S 8S 8S 10S",
        "7S 8S 8S QS", "8S 8S 10S QS", "7S 8S 10S QS")}
    assert listed == ({tuple(sorted(parse_many("7S 7S 8S 8S")))} if owed else want)
    # Following the suit is owed either way: a diamond is refused while spades are held.
    assert refused(m, 1, "7S 8S 10S 3D")
    assert refused(m, 1, "7S 8S 10S QS") is owed


# ============================================================================== [I-28]
# Seat 0 (dealer team) throws 3S3S + 9S; seat 1 holds QS, so the single fails and 9S alone
# is played. No card of the hand is a point card and the kitty is empty of points, so the
# attackers' trick points are 0 whatever is played.
PENALTY = {0: "3S 3S 9S", 1: "QS 4D 6D", 2: "3C 4C 6C", 3: "7C 8C 9C"}


def finish(m: Match) -> dict[str, object]:
    rng = random.Random(1)
    while m.phase is Phase.PLAY:
        seat = m.to_act
        assert seat is not None
        m.apply(m.legal_actions(seat).sample(rng))
    return dict(m.results[-1])


@pytest.mark.parametrize(("value", "score"), [
    ("ladder", 0), ("none", 0),
    ("points-5", 5), ("points-10", 10), ("points-20", 20), ("points-30", 30),
    ("points-40", 40),  # a dealer-team thrower gives the attackers N
])
def test_I28_a_dealer_teams_failed_throw_gives_the_attackers(value: str, score: int) -> None:
    m = table(preset("classic-2", throw_penalty=value), PENALTY, kitty="3H")
    play(m, 0, "3S 3S 9S")
    assert m.hand_failed_throws[0] == 1
    assert finish(m)["score"] == score


ATTACKER_THROW = {1: "3S 3S 9S", 2: "QS 4D 6D", 3: "3C 4C 6C", 0: "7C 8C 9C"}


@pytest.mark.parametrize(("value", "before", "score"), [
    ("none", 30, 30), ("ladder", 30, 30),  # no card points change hands
    ("points-10", 30, 20), ("points-20", 30, 10),  # the attackers pay for their own throw
    ("points-10", 5, 0),  # never below 0
])
def test_I28_an_attackers_failed_throw_costs_the_attackers(value: str, before: int,
                                                          score: int) -> None:
    # Seat 1 (attackers, team 1) throws 3S3S + 9S; seat 2 holds QS, so it fails. The
    # attackers came in with ``before`` trick points; nothing in these cards is a point.
    m = table(preset("classic-2", throw_penalty=value), ATTACKER_THROW, leader=1, kitty="3H",
              points=(0, before))
    play(m, 1, "3S 3S 9S")
    assert m.hand_failed_throws[1] == 1
    assert finish(m)["score"] == score


@pytest.mark.parametrize(("value", "take"), [("none", False), ("points-10", True)])
def test_I28_the_rules_text_example(value: str, take: bool) -> None:
    # docs/rules-classic-variants.md: 2 decks, the dealer fails one throw and the attackers
    # take 75 in tricks; with points-10 their score is 85 and they take the deal (80-115).
    m = table(preset("classic-2", throw_penalty=value), PENALTY, kitty="3H", points=(0, 75))
    play(m, 0, "3S 3S 9S")
    result = finish(m)
    assert result["score"] == (85 if take else 75)
    assert result["attackers_take"] is take


@pytest.mark.parametrize(("value", "charged"), [("ladder", 1), ("none", 0), ("points-10", 0)])
def test_I28_the_ladder_point_only_under_ladder(value: str, charged: int) -> None:
    # The dealer team stands at A and keeps the attackers at 0 (points-10: at 10), so it
    # passes A and the game ends; seat 0's failed throw costs it `charged` game points
    # against its partner's (same team, same levels otherwise).
    m = table(preset("classic-2", throw_penalty=value), PENALTY, kitty="3H",
              levels=(ACE, L5))
    play(m, 0, "3S 3S 9S")
    result = finish(m)
    assert result["round_end"] == "passed-A"
    points = result["game_points"]
    assert isinstance(points, list)
    assert points[2] - points[0] == charged


@pytest.mark.parametrize(("value", "charged"), [("ladder", 1), ("none", 0)])
def test_I28_a_table_ending_mid_game_charges_only_under_ladder(value: str,
                                                              charged: int) -> None:
    m = table(preset("classic-2", throw_penalty=value), PENALTY, kitty="3H", levels=(L5, L5))
    play(m, 0, "3S 3S 9S")
    assert finish(m)["round_end"] is None
    points = closed_points(m, table_ends=True)
    assert points is not None and points[2] - points[0] == charged


# ============================================================================== [I-29]
# The attackers (team 1) stand at K and score 160 in 2 decks (the kitty's 40 points x4 for
# a pair): they take the deal and gain (160 - 80) // 40 = 2 levels.
@pytest.mark.parametrize(("value", "after", "ended"), [
    ("A", KING + 1, False),  # stops on A: they must defend it as the dealer team
    ("none", ACE + 1, True),  # K -> A -> past A: the game ends at once
    ("5-10-K-A", KING, False),  # standing on K as attackers: they must play K first
    ("5-10-K", KING, False),
])
def test_I29_must_defend(value: str, after: int, ended: bool) -> None:
    hands = {1: "9H 9H", 2: "3D 4D", 3: "6D 7D", 0: "8D 9D"}
    m = table(preset("classic-2", must_defend=value), hands, leader=1, levels=(L5, KING),
              kitty="10S 10S KS KS")
    for seat in (1, 2, 3, 0):
        play(m, seat, hands[seat])
    result = m.results[-1]
    assert result["score"] == 160 and result["attackers_take"]
    assert result["levels_after"][1] == after
    assert (result["round_end"] == "passed-A") is ended
    if ended:
        assert result["round_winner"] == 1


@pytest.mark.parametrize(("level", "gain", "dealer", "stops", "after"), [
    (3, 2, True, "5-10-K-A", 5),  # 5 -> 6 -> 7: a dealer team leaves the stop it stood on
    (3, 2, False, "5-10-K-A", 3),  # attackers on 5 stay on 5
    (1, 3, False, "5-10-K-A", 3),  # 3 -> 4 -> 5, stop
    (7, 3, True, "5-10-K", 8),  # 9 -> 10, stop
    (11, 3, True, "A", 12),  # K -> A, stop (Part B)
    (12, 1, True, "A", 13),  # the dealer team at A passes A
    (12, 2, False, "A", 12),  # attackers at A stay at A
    (10, 3, False, "none", 13),  # Q -> K -> A -> past A
])
def test_I29_climb_reading(level: int, gain: int, dealer: bool, stops: str, after: int) -> None:
    assert scoring.classic_climb(level, gain, dealer, stops) == after


# ============================================================================== [I-30]
@pytest.mark.parametrize("first", [False, True])
def test_I30_no_trump_when_nobody_declares(first: bool) -> None:
    rules = preset("classic-2", no_declaration="no-trump")
    m = Match(rules, random.Random(3), auto_deal=False,
              **({} if first else {"levels": (L5, L5), "dealer": 0}))  # type: ignore[arg-type]
    m.apply(m.legal_actions(m.to_act).sample(random.Random(3)))  # type: ignore[arg-type]
    run_until(m, Phase.PLAY, passer)
    trump = [e.to_dict() for e in m.events if e.to_dict()["type"] == "trump"]
    assert trump[-1]["suit"] is None and trump[-1]["how"] == "no-trump"
    assert m.trump == -1
    # 无主: only jokers and level cards are trumps; a plain heart stays a heart.
    level = m.level
    assert m.order.cls[parse("AH")] == H and m.order.cls[parse("BJ")] == TRUMP
    assert all(m.order.cls[s * 13 + level] == TRUMP for s in range(4))


@pytest.mark.parametrize(("value", "trump", "plays", "winner"), [
    # Level 5. 无主 (trump -1): a plain heart does not trump spades; a level card of any
    # suit does; level cards of different suits are equal (the first played keeps the
    # trick); a joker is above every level card. Read by hand from [I-30] 'no-trump'.
    ("no-trump", -1, {0: "3S", 1: "AH", 2: "4D", 3: "4C"}, 0),
    ("no-trump", -1, {0: "AS", 1: "5C", 2: "4D", 3: "4C"}, 1),
    ("no-trump", -1, {0: "5S", 1: "5H", 2: "4D", 3: "4C"}, 0),
    ("no-trump", -1, {0: "5S", 1: "5H", 2: "LJ", 3: "4C"}, 2),
    # The default names a suit (hearts here): the plain heart trumps spades and the trump
    # suit's level card is above the other level cards.
    ("kitty-card", H, {0: "3S", 1: "AH", 2: "4D", 3: "4C"}, 1),
    ("kitty-card", H, {0: "5S", 1: "5H", 2: "4D", 3: "4C"}, 1),
])
def test_I30_play_positions(value: str, trump: int, plays: dict[int, str],
                            winner: int) -> None:
    rules = preset("classic-2", no_declaration=value)
    assert trick(rules, plays, trump=trump, levels=(L5, L5)) == winner


def test_I30_default_names_a_trump_suit() -> None:
    m = Match(preset("classic-2"), random.Random(3), auto_deal=False, levels=(L5, L5),
              dealer=0)
    m.apply(m.legal_actions(m.to_act).sample(random.Random(3)))  # type: ignore[arg-type]
    run_until(m, Phase.PLAY, passer)
    assert m.trump >= 0


# ============================================================================ catalogue
NEW = ("trump_structure", "throw_compare", "tractor_min_length", "triple_tractors",
       "break_longer_tractor", "short_tractor_follow", "draw_protection", "throw_penalty",
       "must_defend", "no_declaration")


def test_every_variant_is_a_classic_option_refused_in_gunzi() -> None:
    for key in NEW:
        opt = OPTIONS[key]
        assert opt.since == 2 and "[I-" in opt.clause
        with pytest.raises(InvalidRulesError, match=key):
            preset("gunzi", **{key: opt.values[1]})
        # the default is today's rule: every classic preset starts at values[0]
        for name in ("classic-2", "classic-3"):
            assert getattr(preset(name), key) == opt.values[0]


def test_I22_the_throw_reading_is_named_with_its_one_value() -> None:
    assert OPTIONS["throw_reading"].values == ("longest-first",)
    assert "[I-22]" in OPTIONS["throw_reading"].clause


def test_I22_longest_first_keeps_a_triple_whole_in_a_position() -> None:
    # 3 decks: the throw 5S5S 6S6S6S reads as the pair 5S5S and the triple 6S6S6S (no pair
    # tractor 5S5S6S6S is made by splitting the triple). Seat 2's 9S9S beats the pair part,
    # nobody holds a higher spade triple, so the throw is cut to 5S5S (read by hand).
    hands = {0: "5S 5S 6S 6S 6S", 1: "3D 4D 6D 7D 8D", 2: "9S 9S 6C 7C 8C",
             3: "3C 4C 8C JC QC"}
    m = table(preset("classic-3", throw_reading="longest-first"), hands)
    play(m, 0, "5S 5S 6S 6S 6S")
    assert sorted(m.trick[0][1]) == sorted(parse_many("5S 5S"))
    assert m.hand_failed_throws[0] == 1


@pytest.mark.parametrize(("name", "key", "value"), [
    ("classic-2", "triple_tractors", False), ("classic-2", "draw_protection", "longer-tuples"),
    ("classic-1", "draw_protection", "no-format"),
    ("classic-2", "trump_structure", "cover-triples"), ("classic-1", "tractor_min_length", 3),
])
def test_variants_that_change_nothing_are_refused(name: str, key: str, value: object) -> None:
    with pytest.raises(InvalidRulesError, match=key):
        preset(name, **{key: value})


def test_rules_command_lists_the_variants() -> None:
    out = CliRunner().invoke(app, ["rules", "--json"])
    assert out.exit_code == 0, out.output
    text = out.output
    for key in NEW:
        assert key in text
    assert "unit-size" in text and "power" in text


def test_records_state_the_variants_and_replay_them() -> None:
    rules = preset("classic-3", trump_structure="cover-triples", throw_compare="every-unit",
                   kitty_multiplier="power", draw_protection="longer-tuples",
                   break_longer_tractor=False, short_tractor_follow="pairs",
                   triple_tractors=False, must_defend="5-10-K-A", no_declaration="no-trump",
                   throw_penalty="points-20", tractor_min_length=3)
    m = Match(rules, random.Random(4))
    rng = random.Random(5)
    while len(m.results) < 3 and not m.is_over:
        seat = m.to_act
        assert seat is not None
        m.apply(m.legal_actions(seat).sample(rng))
    text = records.dumps(records.header(m, seed=4), records.finished_events(m))
    lines = [json.loads(x) for x in text.splitlines()]
    head = lines[0]
    assert head["version"] == 2
    for key in NEW:
        assert head["rules"][key] == getattr(rules, key)
    replayed = records.replay(lines)
    assert replayed.assumed == []
    assert len(replayed.hands) == len(m.results)


# ============================================================================ invariants
POLICIES = st.builds(
    Policy,
    tractor_min=st.sampled_from([2, 3]),
    triple_tractors=st.booleans(),
    break_longer=st.booleans(),
    short_tractor=st.sampled_from(["tractor", "pairs"]),
    protect_longer=st.booleans(),
    format_draw=st.booleans(),
)
SLOW = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SLOW
@given(situations(), POLICIES, st.randoms(use_true_random=False))
def test_follow_rules_agree_under_every_policy(
    sit: tuple[Order, Shape, list[int], int], pol: Policy, rng: random.Random
) -> None:
    """legal_follows lists exactly the plays follow_error accepts, at least one when the
    hand can follow, and random_follow draws one of them, whatever the policy."""
    o, lead0, h, _ = sit
    lead = decompose(lead0.cards, o, pol)
    got = list(legal_follows(lead, h, o, pol))
    assert len(got) == len(set(got))
    valid = {p for p in _sub_multisets(h, lead.count) if follow_error(lead, p, h, o, pol) is None}
    assert set(got) == valid
    if sum(h) >= lead.count:
        assert valid
        assert random_follow(lead, h, o, rng, pol) in valid


@SLOW
@given(situations())
def test_cover_contains_same_structure(sit: tuple[Order, Shape, list[int], int]) -> None:
    """A play with the lead's own units covers it, showing the lead's own unit tops: so
    [I-20] 'cover' wins wherever 'same' does."""
    o, lead, _, _ = sit
    for split in (False, True):
        assert _cover_tops(lead, lead, o, split) == tuple(u.top for u in lead.units)


def _oracle_vector(lead: Shape, q: Counter[int], hold: Counter[int], o: Order,
                   pol: Policy) -> tuple[int, int, int]:
    """Rule F's match vector of ``q`` read straight from the variant texts, by brute force:
    [I-23]/[I-26] bound a segment's length, [I-25] forbids the ids of a run of the holding
    longer than the lead tractor, [I-27] counts only ids with exactly s copies."""
    power = o.power
    tractors = [(u.size, u.length) for u in lead.units if u.length >= 2]
    n3 = sum(u.length for u in lead.units if u.size == 3)
    n2 = sum(u.length for u in lead.units if u.size == 2)

    def ok(m: int, s: int) -> bool:
        return m == s if pol.protect_longer else m >= s

    def long_run_ids(s: int, length: int) -> set[int]:
        ids = [c for c in hold if ok(hold[c], s)]
        pws = sorted({power[c] for c in ids})
        out: set[int] = set()
        start = 0
        for i in range(1, len(pws) + 1):
            if i == len(pws) or pws[i] != pws[i - 1] + 1:
                if i - start > length:
                    out |= {c for c in ids if power[c] in pws[start:i]}
                start = i
        return out

    best = (-1, -1, -1)

    def rec(i: int, rem: Counter[int], k3: int, k2: int, c1: int) -> None:
        nonlocal best
        if i == len(tractors):
            trips = [c for c in rem if rem[c] >= 3]
            for mask in range(1 << len(trips)):
                used = {trips[j] for j in range(len(trips)) if mask >> j & 1}
                if k3 + len(used) > n3:
                    continue
                c2 = k3 + len(used)
                pairs = sum(1 for c in rem if c not in used and ok(rem[c], 2))
                best = max(best, (c1, c2, min(n2 + n3 - c2, k2 + pairs)))
            return
        rec(i + 1, rem, k3, k2, c1)
        s, length = tractors[i]
        low = length if pol.short_tractor == "pairs" else pol.tractor_min
        banned = set() if pol.break_longer else long_run_ids(s, length)
        ids = [c for c in rem if ok(rem[c], s) and c not in banned]
        for mask in range(1, 1 << len(ids)):
            seg = [ids[j] for j in range(len(ids)) if mask >> j & 1]
            pws = sorted(power[c] for c in seg)
            if not low <= len(seg) <= length or pws != list(range(pws[0], pws[0] + len(seg))):
                continue
            r2 = rem.copy()
            for c in seg:
                r2[c] -= s
            rec(i + 1, +r2, k3 + (len(seg) if s == 3 else 0),
                k2 + (len(seg) if s == 2 else 0), c1 + s * len(seg))

    rec(0, +q, 0, 0, 0)
    return best


@SLOW
@given(situations(), POLICIES)
def test_legal_follows_match_a_brute_force_reading_of_the_variants(
    sit: tuple[Order, Shape, list[int], int], pol: Policy
) -> None:
    o, lead0, h, _ = sit
    lead = decompose(lead0.cards, o, pol)
    cl, n = lead.cls, lead.count
    plays = _sub_multisets(h, n)
    held = sum(h[c] for c in o.class_cards[cl])
    if held < n:
        want = {p for p in plays if sum(1 for c in p if o.cls[c] == cl) == held}
    elif not pol.format_draw:  # [I-27] 'no-format': any cards of the led class
        want = {p for p in plays if all(o.cls[c] == cl for c in p)}
    else:
        hold = Counter({c: h[c] for c in o.class_cards[cl] if h[c]})
        need = _oracle_vector(lead, hold, hold, o, pol)
        want = set()
        for p in plays:
            if all(o.cls[c] == cl for c in p):
                got = _oracle_vector(lead, Counter(p), hold, o, pol)
                if all(a >= b for a, b in zip(got, need, strict=True)):
                    want.add(p)
    assert set(legal_follows(lead, h, o, pol)) == want
