"""docs/rules.md A7 (打滚子 play): leads, 死棒/活棒 following, the trick winner, points.

Two layers: the pure functions of ``gunzi.engine.gunzi_tricks`` against many
concrete cases and against an independent reading of A2/A7 written here (no
use of ``order.py``), and the same rules through a :class:`Match` whose deal is
fully stacked, so every hand is known card for card.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import pairwise

import pytest

from gunzi.engine import actions as A
from gunzi.engine import gunzi_tricks as GT
from gunzi.engine.actions import Action
from gunzi.engine.cards import BJ, LJ, NUM_TYPES, counts, deck, names, parse_many
from gunzi.engine.errors import IllegalActionError, OutOfTurnError
from gunzi.engine.match import Match, Phase
from gunzi.engine.order import TRUMP, Order, order_for
from gunzi.engine.rules import Ruleset, preset
from helpers import deal_match, passer, random_policy, run_until
from spec_a7 import multisets, spec_follow_ok, spec_winner

S, H, C, D = 0, 1, 2, 3
LEVEL3 = 1  # rank index of level 3
# The running example: level 3, hearts trump, 2s permanent trumps.
ORD = order_for(LEVEL3, H, True)
# Level 10, spades trump.
O10S = order_for(8, S, True)


def cs(text: str) -> list[int]:
    return parse_many(text)


def hand(text: str) -> list[int]:
    return counts(parse_many(text))


def lead_ok(text: str, held: str) -> bool:
    return GT.lead_error(cs(text), hand(held)) is None


def follow_ok(lead: str, play: str, held: str, order: Order = ORD, live: bool = False) -> bool:
    return GT.follow_error(cs(lead), cs(play), hand(held), order, live) is None


def winner(*plays: str, order: Order = ORD) -> int:
    return GT.trick_winner([cs(p) for p in plays], order)


def follows(lead: str, held: str, order: Order = ORD, live: bool = False) -> set[tuple[str, ...]]:
    return {
        tuple(sorted(names(p)))
        for p in GT.legal_follows(cs(lead), hand(held), order, live)
    }


def t(text: str) -> tuple[str, ...]:
    return tuple(sorted(text.split()))


# ============================================================================================
# Leads (A7: single, pair, triple of identical cards only)


class TestLeadsPure:
    HELD = "4S 5S 6S 7S 7S 8S 8S 9S 9S 9S 10S 10S 10S AS AS KS 3S 3C 2H 2H BJ BJ BJ LJ"

    @pytest.mark.parametrize("lead", ["4S", "7S 7S", "9S 9S 9S", "3S", "2H 2H", "BJ BJ BJ",
                                      "LJ", "BJ BJ", "AS AS", "10S 10S 10S"])
    def test_A7_lead_single_pair_triple_accepted(self, lead: str) -> None:
        assert lead_ok(lead, self.HELD)

    @pytest.mark.parametrize(
        "lead",
        [
            "4S 5S 6S",  # run (顺子)
            "4S 5S 6S 7S 8S",  # longer run
            "7S 7S 8S 8S",  # tractor (拖拉机)
            "9S 9S 10S 10S",  # tractor
            "9S 9S 9S 10S 10S 10S",  # 泰坦尼克
            "AS KS",  # throw (甩牌) of two singles
            "AS AS KS",  # throw: pair + single
            "BJ LJ",  # two different trumps
            "3S 3C",  # equal but not identical level cards are not a pair
            "2H 2H 2H 2H",  # more than three
            "7S 8S",
        ],
    )
    def test_A7_lead_runs_tractors_throws_rejected(self, lead: str) -> None:
        err = GT.lead_error(cs(lead), hand(self.HELD))
        assert err is not None

    def test_A7_lead_not_held_rejected(self) -> None:
        assert not lead_ok("QS", self.HELD)
        assert not lead_ok("4S 4S", self.HELD)  # holds one 4S
        assert not lead_ok("LJ LJ", self.HELD)

    def test_A7_lead_empty_rejected(self) -> None:
        assert GT.lead_error([], hand(self.HELD)) is not None

    def test_A7_legal_leads_are_exactly_identical_groups(self) -> None:
        held = hand(self.HELD)
        got = {tuple(x) for x in GT.legal_leads(held)}
        want = {(c,) * k for c in range(NUM_TYPES) for k in range(1, held[c] + 1)}
        assert got == want
        assert all(GT.lead_error(list(x), held) is None for x in got)


# ============================================================================================
# 死棒 following (default)


class TestDeadFollowSuitClass:
    def test_A7_dead_follow_single_must_follow_suit(self) -> None:
        held = "4S KS 7C BJ"
        assert follow_ok("AS", "4S", held)
        assert follow_ok("AS", "KS", held)
        assert not follow_ok("AS", "7C", held)
        assert not follow_ok("AS", "BJ", held)  # no trumping while holding the suit

    def test_A7_dead_follow_single_void_may_play_anything(self) -> None:
        held = "7C 8D BJ 4H"
        for play in ("7C", "8D", "BJ", "4H"):
            assert follow_ok("AS", play, held)

    def test_A7_dead_follow_side_suit_excludes_its_2_and_level_card(self) -> None:
        # 2S and 3S are trumps (A2): a seat holding only those is void in spades.
        held = "2S 3S 7C"
        assert follow_ok("AS", "7C", held)
        assert follow_ok("AS", "2S", held)
        assert follow_ok("AS", "3S", held)

    def test_A7_dead_follow_trump_lead_counts_level_cards_2s_and_jokers_as_trumps(self) -> None:
        # A heart lead is a trump lead; 3C (level), 2D (常主) and LJ are trumps too.
        for trump_card in ("3C", "2D", "LJ", "BJ", "9H"):
            held = f"{trump_card} 7C 8D"
            assert follow_ok("4H", trump_card, held)
            assert not follow_ok("4H", "7C", held), trump_card
            assert not follow_ok("BJ", "8D", held), trump_card

    def test_A7_dead_follow_wrong_count_rejected(self) -> None:
        assert not follow_ok("AS", "4S 5S", "4S 5S")
        assert not follow_ok("AS AS", "4S", "4S 5S")
        assert not follow_ok("AS AS AS", "4S 4S", "4S 4S 5S")

    def test_A7_dead_follow_cards_not_held_rejected(self) -> None:
        assert not follow_ok("AS", "KS", "4S")
        assert not follow_ok("AS AS", "4S 4S", "4S 5S")

    def test_A7_dead_follow_short_of_suit_plays_all_of_it_plus_any(self) -> None:
        held = "4S 7C 8D 9D BJ"
        assert follow_ok("AS AS", "4S 7C", held)
        assert follow_ok("AS AS", "4S BJ", held)
        assert not follow_ok("AS AS", "7C 8D", held)  # must include its spade
        assert follows("AS AS", held) == {t("4S 7C"), t("4S 8D"), t("4S 9D"), t("4S BJ")}

    def test_A7_dead_follow_short_of_suit_triple_led(self) -> None:
        held = "4S 4S 7C 7C 8D"
        assert follow_ok("AS AS AS", "4S 4S 7C", held)
        assert follow_ok("AS AS AS", "4S 4S 8D", held)
        assert not follow_ok("AS AS AS", "4S 7C 7C", held)
        held2 = "5S 7C 7C 8D"
        assert follow_ok("KS KS KS", "5S 7C 7C", held2)
        assert follow_ok("KS KS KS", "5S 7C 8D", held2)
        assert not follow_ok("KS KS KS", "7C 7C 8D", held2)

    def test_A7_dead_follow_exactly_enough_suit_cards_all_must_be_played(self) -> None:
        held = "4S 9S 7C 7C"
        assert follow_ok("AS AS", "4S 9S", held)
        assert not follow_ok("AS AS", "7C 7C", held)
        assert not follow_ok("AS AS", "4S 7C", held)


class TestDeadFollowPair:
    def test_A7_dead_follow_pair_led_must_play_pair(self) -> None:
        held = "4S 4S 9S KS 7C"
        assert follow_ok("AS AS", "4S 4S", held)
        assert not follow_ok("AS AS", "9S KS", held)
        assert not follow_ok("AS AS", "4S 9S", held)
        assert follows("AS AS", held) == {t("4S 4S")}

    def test_A7_dead_follow_pair_led_any_of_several_pairs(self) -> None:
        held = "4S 4S 9S 9S KS"
        assert follows("AS AS", held) == {t("4S 4S"), t("9S 9S")}

    def test_A7_dead_follow_pair_led_triple_is_not_a_pair_any_two(self) -> None:
        # 没棒有滚子时可以不出滚子: a triple and no pair -> any two cards of the suit.
        held = "4S 4S 4S 9S KS 7C"
        assert follow_ok("AS AS", "9S KS", held)
        assert follow_ok("AS AS", "4S 9S", held)
        assert follow_ok("AS AS", "4S 4S", held)  # a pair out of the triple is allowed too
        assert not follow_ok("AS AS", "9S 7C", held)  # still the suit class
        assert follows("AS AS", held) == {
            t("4S 4S"), t("4S 9S"), t("4S KS"), t("9S KS"),
        }

    def test_A7_dead_follow_pair_led_triple_only_holder_of_two_triples(self) -> None:
        held = "4S 4S 4S 9S 9S 9S"
        assert follow_ok("AS AS", "4S 9S", held)

    def test_A7_dead_follow_pair_led_with_pair_and_triple_must_pair(self) -> None:
        held = "4S 4S 4S 9S 9S KS"
        assert not follow_ok("AS AS", "4S 9S", held)
        assert not follow_ok("AS AS", "9S KS", held)
        assert follow_ok("AS AS", "9S 9S", held)

    def test_A7_dead_follow_pair_led_no_pair_any_two_of_suit(self) -> None:
        held = "4S 9S KS 7C"
        assert follows("AS AS", held) == {t("4S 9S"), t("4S KS"), t("9S KS")}

    def test_A7_dead_follow_pair_led_equal_but_not_identical_is_no_pair(self) -> None:
        # Trump pair led; 3S and 3C are equal trumps, not a pair: free choice of two trumps.
        held = "3S 3C 5H 7C"
        assert follow_ok("2H 2H", "3S 5H", held)
        assert follow_ok("2H 2H", "3S 3C", held)
        # whereas a real trump pair must be played
        held2 = "3S 3S 5H 7C"
        assert not follow_ok("2H 2H", "3S 5H", held2)
        assert follow_ok("2H 2H", "3S 3S", held2)

    def test_A7_dead_follow_pair_led_pair_of_other_class_does_not_oblige(self) -> None:
        held = "4S 9S 7C 7C"
        assert follow_ok("AS AS", "4S 9S", held)
        assert not follow_ok("AS AS", "7C 7C", held)

    def test_A7_dead_follow_trump_pair_led_with_trump_pair(self) -> None:
        held = "LJ LJ 9H 4C"
        assert not follow_ok("BJ BJ", "LJ 9H", held)
        assert follow_ok("BJ BJ", "LJ LJ", held)


class TestDeadFollowTriple:
    def test_A7_dead_follow_triple_led_must_play_triple(self) -> None:
        held = "4S 4S 4S 9S 9S KS"
        assert follow_ok("AS AS AS", "4S 4S 4S", held)
        assert not follow_ok("AS AS AS", "9S 9S KS", held)
        assert not follow_ok("AS AS AS", "4S 9S KS", held)
        assert follows("AS AS AS", held) == {t("4S 4S 4S")}

    def test_A7_dead_follow_triple_led_pair_plus_one(self) -> None:
        held = "4S 4S 9S KS 7C"
        assert follow_ok("AS AS AS", "4S 4S 9S", held)
        assert follow_ok("AS AS AS", "4S 4S KS", held)
        assert not follow_ok("AS AS AS", "4S 9S KS", held)
        assert not follow_ok("AS AS AS", "4S 4S 7C", held)  # the one more is of the suit
        assert follows("AS AS AS", held) == {t("4S 4S 9S"), t("4S 4S KS")}

    def test_A7_dead_follow_triple_led_two_pairs_pair_plus_one(self) -> None:
        held = "4S 4S 9S 9S"
        assert follows("AS AS AS", held) == {t("4S 4S 9S"), t("4S 9S 9S")}

    def test_A7_dead_follow_triple_led_no_pair_any_three(self) -> None:
        held = "4S 9S KS QS 7C"
        assert follow_ok("AS AS AS", "4S 9S KS", held)
        assert follow_ok("AS AS AS", "9S KS QS", held)
        assert not follow_ok("AS AS AS", "4S 9S 7C", held)
        assert len(follows("AS AS AS", held)) == 4

    def test_A7_dead_follow_triple_led_trumps(self) -> None:
        held = "2S 2S 5H 9H 6D"
        assert follow_ok("BJ BJ BJ", "2S 2S 5H", held)
        assert not follow_ok("BJ BJ BJ", "2S 5H 9H", held)


class TestLiveFollow:
    def test_A7_live_follow_pair_led_any_two_of_suit(self) -> None:
        held = "4S 4S 9S KS 7C"
        assert follow_ok("AS AS", "9S KS", held, live=True)
        assert follow_ok("AS AS", "4S KS", held, live=True)
        assert not follow_ok("AS AS", "9S 7C", held, live=True)  # suit class still applies

    def test_A7_live_follow_triple_led_any_three_of_suit(self) -> None:
        held = "4S 4S 4S 9S KS QS 7C"
        assert follow_ok("AS AS AS", "9S KS QS", held, live=True)
        assert follow_ok("AS AS AS", "4S 9S KS", held, live=True)
        assert not follow_ok("AS AS AS", "9S KS 7C", held, live=True)

    def test_A7_live_follow_short_of_suit_all_plus_any(self) -> None:
        held = "4S 7C 8D"
        assert follow_ok("AS AS", "4S 8D", held, live=True)
        assert not follow_ok("AS AS", "7C 8D", held, live=True)

    def test_A7_live_follow_single_still_suit_class(self) -> None:
        assert not follow_ok("4H", "7C", "3D 7C", live=True)  # 3D is a trump
        assert follow_ok("4H", "3D", "3D 7C", live=True)

    def test_A7_live_legal_follows_are_all_suit_multisets(self) -> None:
        held = "4S 4S 9S KS 7C"
        assert follows("AS AS", held, live=True) == {
            t("4S 4S"), t("4S 9S"), t("4S KS"), t("9S KS"),
        }


def _random_hand(rng: random.Random, size: int) -> list[int]:
    """A hand biased to few card types so pairs and triples are common."""
    types = rng.sample(range(NUM_TYPES), rng.randint(3, 9))
    held = [0] * NUM_TYPES
    while sum(held) < size:
        c = rng.choice(types)
        if held[c] < 3:
            held[c] += 1
        elif all(held[x] >= 3 for x in types):
            break
    return held


@pytest.mark.parametrize("live", [False, True])
def test_A7_follow_rules_match_an_independent_reading(live: bool) -> None:
    """follow_error and legal_follows agree with spec_follow_ok on many random positions."""
    rng = random.Random(7 + live)
    checked = 0
    for _ in range(250):
        level = rng.choice([1, 3, 8])
        trump = rng.randrange(4)
        order = order_for(level, trump, True)
        n = rng.choice([1, 2, 3])
        lead_card = rng.randrange(NUM_TYPES)
        lead = [lead_card] * n
        held = _random_hand(rng, rng.randint(n, 9))
        want = set()
        for play in multisets(held, n):
            ok = spec_follow_ok(lead, play, held, level, trump, live)
            got = GT.follow_error(lead, list(play), held, order, live) is None
            assert got == ok, (names(lead), names(play), names(c for c in range(54)
                                                            for _ in range(held[c])))
            if ok:
                want.add(tuple(sorted(play)))
            checked += 1
        legal = {tuple(sorted(p)) for p in GT.legal_follows(lead, held, order, live)}
        assert legal == want
        assert want, "a seat always has a legal follow"
    assert checked > 1000


# ============================================================================================
# Trick winner


class TestTrickWinnerPure:
    def test_A7_winner_lead_wins_unless_beaten(self) -> None:
        assert winner("9S", "4S", "5S", "8S") == 0
        assert winner("9S 9S", "4S 4S", "5S 6S", "7C 7C") == 0

    def test_A7_winner_higher_card_of_led_suit(self) -> None:
        assert winner("9S", "JS", "AS", "KS") == 2
        assert winner("4D", "QD", "KD", "AD") == 3

    def test_A7_winner_other_side_suit_never_wins(self) -> None:
        assert winner("4S", "AC", "AD", "5S") == 3
        assert winner("4S", "AC", "AD", "KD") == 0

    def test_A7_winner_trump_beats_side_lead(self) -> None:
        assert winner("AS", "4H", "KS", "5S") == 1
        assert winner("AS", "KS", "2C", "5S") == 2  # a 2 is a trump
        assert winner("AS", "KS", "QS", "3D") == 3  # a level card is a trump

    def test_A7_winner_higher_trump_overtrumps(self) -> None:
        assert winner("AS", "4H", "5H", "KS") == 2
        assert winner("AS", "5H", "4H", "KS") == 1
        assert winner("AS", "AH", "2C", "2H") == 3
        assert winner("AS", "3C", "3H", "LJ") == 3
        assert winner("AS", "LJ", "BJ", "3H") == 2

    def test_A7_winner_side_card_never_beats_trump_lead(self) -> None:
        assert winner("4H", "AS", "AC", "AD") == 0

    def test_A7_winner_trump_order(self) -> None:
        # BJ > LJ > 3H > 3S=3C=3D > 2H > 2S=2C=2D > AH > ... > 4H
        ladder = ["4H", "9H", "AH", "2S", "2H", "3S", "3H", "LJ", "BJ"]
        for lo, hi in pairwise(ladder):
            assert winner(lo, hi, "4C", "4C") == 1, (lo, hi)
            assert winner(hi, lo, "4C", "4C") == 0, (hi, lo)

    def test_A7_winner_equal_cards_earlier_wins(self) -> None:
        assert winner("AS", "AS", "AS", "4S") == 0
        assert winner("4S", "AS", "AS", "AS") == 1

    def test_A7_winner_level_cards_of_other_suits_are_equal(self) -> None:
        assert winner("3S", "3C", "3D", "4H") == 0
        assert winner("4H", "3C", "3S", "3D") == 1
        assert winner("AS", "3C", "3D", "KS") == 1  # both ruff with equal level cards
        assert winner("4H", "3C", "3S", "3H") == 3  # trump-suit level card is higher

    def test_A7_winner_other_suit_2s_are_equal(self) -> None:
        assert winner("2S", "2C", "2D", "4H") == 0
        assert winner("4H", "2D", "2C", "2H") == 3

    def test_A7_winner_pair_beats_only_with_higher_pair(self) -> None:
        assert winner("9S 9S", "JS JS", "QS KS", "AS 4S") == 1
        assert winner("9S 9S", "10S JS", "QS KS", "AS AS") == 3

    def test_A7_winner_non_shape_play_never_wins(self) -> None:
        assert winner("4S 4S", "AS KS", "BJ LJ", "5S 6S") == 0
        assert winner("4S 4S 4S", "AS AS KS", "BJ BJ LJ", "QS QS QS") == 3
        assert winner("4S 4S 4S", "AS AS KS", "BJ BJ LJ", "4C 4C 4C") == 0

    def test_A7_winner_trump_pair_ruffs_side_pair(self) -> None:
        assert winner("AS AS", "4H 4H", "KS KS", "7C 7C") == 1
        assert winner("AS AS", "4H 4H", "5H 5H", "4H 4H") == 2
        assert winner("AS AS", "3C 3C", "3D 3D", "2H 2H") == 1  # equal level pairs: first

    def test_A7_winner_equal_level_pairs_of_other_suits(self) -> None:
        assert winner("3S 3S", "3C 3C", "3D 3D", "2H 2H") == 0
        assert winner("3S 3S", "3C 3C", "3H 3H", "2H 2H") == 2

    def test_A7_winner_trump_triple_ruffs_side_triple(self) -> None:
        assert winner("KS KS KS", "AS AS AS", "4H 4H 4H", "5H 5H 9C") == 2

    def test_A7_winner_side_suit_order_at_level_10(self) -> None:
        # level 10, spades trump: hearts run A K Q J 9 ... 3 (10 and 2 are trumps).
        assert winner("9H", "JH", "10H", "4H", order=O10S) == 2  # 10H is a trump
        assert winner("9H", "JH", "2H", "4H", order=O10S) == 2  # 2H is a trump
        assert winner("9H", "JH", "QH", "3H", order=O10S) == 2
        assert winner("10H", "10C", "10S", "2S", order=O10S) == 2


def test_A7_trick_winner_matches_an_independent_reading() -> None:
    rng = random.Random(11)
    pool = list(range(NUM_TYPES))
    for _ in range(3000):
        level = rng.choice([1, 3, 8])
        trump = rng.randrange(4)
        order = order_for(level, trump, True)
        n = rng.choice([1, 1, 2, 3])
        plays = [[rng.choice(pool)] * n]
        for _ in range(3):
            if n > 1 and rng.random() < 0.3:
                plays.append([rng.choice(pool) for _ in range(n)])
            else:
                plays.append([rng.choice(pool)] * n)
        assert GT.trick_winner(plays, order) == spec_winner(plays, level, trump), (
            [names(p) for p in plays], level, trump)


# ============================================================================================
# Through a Match: fully stacked later-hand deals, level 3, hearts trump.

KITTY = "4H 4H 4H 6H 6H 6H"  # all hearts: the random kitty card names hearts


def stacked_hands(
    want: dict[int, str],
    kitty: str = KITTY,
    avoid: dict[int, Callable[[int], bool]] | None = None,
    seed: int = 5,
) -> list[str]:
    """Four 39-card hands: each seat's wanted cards, then filler it does not ``avoid``."""
    pool = counts(deck(3))
    for text in [*want.values(), kitty]:
        for c in cs(text):
            pool[c] -= 1
            assert pool[c] >= 0, text
    rest = [c for c in range(NUM_TYPES) for _ in range(pool[c])]
    random.Random(seed).shuffle(rest)
    avoid = avoid or {}
    hands: dict[int, list[int]] = {s: cs(want.get(s, "")) for s in range(4)}
    for s in sorted(range(4), key=lambda x: x not in avoid):
        bad = avoid.get(s, lambda c: False)
        keep = []
        for c in rest:
            if len(hands[s]) < 39 and not bad(c):
                hands[s].append(c)
            else:
                keep.append(c)
        rest = keep
        assert len(hands[s]) == 39, f"cannot fill seat {s}"
    assert not rest
    return [" ".join(names(hands[s])) for s in range(4)]


def keep_kitty(kitty: str) -> Callable[[Match, int], Action]:
    """The dealer buries back exactly the kitty it took; everything else passes."""

    def policy(m: Match, seat: int) -> Action:
        if m.phase is Phase.BURY:
            return A.bury(seat, cs(kitty))
        return passer(m, seat)

    return policy


def at_play(
    want: dict[int, str],
    avoid: dict[int, Callable[[int], bool]] | None = None,
    rules: Ruleset | str = "gunzi",
    kitty: str = KITTY,
    dealer: int = 0,
) -> Match:
    hands = stacked_hands(want, kitty, avoid)
    m = deal_match(rules, hands=hands, kitty=kitty, dealer=dealer, levels=(LEVEL3, LEVEL3))
    run_until(m, Phase.PLAY, keep_kitty(kitty))
    assert m.trump == H and m.level == LEVEL3 and m.dealer == dealer
    for s in range(4):
        assert m.hand_size(s) == 39
        assert counts(cs(hands[s])) == m.hands[s]
    return m


def spade(c: int) -> bool:
    return c < 52 and c // 13 == S and c % 13 not in (0, LEVEL3)


def trump(c: int) -> bool:
    return ORD.cls[c] == TRUMP


def play(m: Match, seat: int, text: str) -> None:
    m.apply(A.play(seat, cs(text)))


def rejected(m: Match, seat: int, text: str) -> IllegalActionError:
    before = [list(h) for h in m.hands]
    trick = list(m.trick)
    with pytest.raises(IllegalActionError) as info:
        m.apply(A.play(seat, cs(text)))
    assert info.value.rule == "A7"
    assert m.hands == before and m.trick == trick  # nothing changed
    assert A.play(seat, cs(text)) not in m.legal_actions(seat)
    return info.value


class TestMatchLeads:
    def test_A7_match_dealer_leads_first_trick(self) -> None:
        m = at_play({})
        assert m.to_act == 0
        with pytest.raises(OutOfTurnError):
            m.apply(A.play(1, [next(c for c in range(54) if m.hands[1][c])]))

    def test_A7_match_lead_run_rejected(self) -> None:
        m = at_play({0: "4S 5S 6S 7S 7S 8S 8S 9S 9S 9S 10S 10S 10S AS KS"})
        rejected(m, 0, "4S 5S 6S")
        rejected(m, 0, "7S 7S 8S 8S")  # tractor
        rejected(m, 0, "9S 9S 9S 10S 10S 10S")  # 泰坦尼克
        rejected(m, 0, "AS KS")  # throw
        rejected(m, 0, "7S 7S AS")  # throw
        play(m, 0, "9S 9S 9S")  # a triple is fine
        assert m.to_act == 1

    def test_A7_match_lead_pair_and_single_accepted(self) -> None:
        m = at_play({0: "7S 7S"})
        assert A.play(0, cs("7S 7S")) in m.legal_actions(0)
        assert all(len(set(a.cards)) == 1 for a in m.legal_actions(0))
        play(m, 0, "7S 7S")
        assert m.trick == [(0, tuple(cs("7S 7S")))]


class TestMatchFollow:
    def test_A7_match_dead_follow_pair_led_must_play_pair(self) -> None:
        m = at_play({0: "9S 9S", 1: "4S 4S 5S 8S"}, avoid={1: spade})
        play(m, 0, "9S 9S")
        rejected(m, 1, "5S 8S")
        rejected(m, 1, "4S 5S")
        assert {a.cards for a in m.legal_actions(1)} == {tuple(cs("4S 4S"))}
        play(m, 1, "4S 4S")

    def test_A7_match_dead_follow_triple_no_pair_any_two(self) -> None:
        m = at_play({0: "9S 9S", 1: "4S 4S 4S 5S 8S"}, avoid={1: spade})
        play(m, 0, "9S 9S")
        play(m, 1, "5S 8S")
        assert m.to_act == 2

    def test_A7_match_dead_follow_triple_led(self) -> None:
        m = at_play({0: "QS QS QS", 1: "4S 4S 5S 8S", 2: "6S 6S 6S 7S 7S"},
                    avoid={1: spade, 2: spade})
        play(m, 0, "QS QS QS")
        rejected(m, 1, "4S 5S 8S")
        play(m, 1, "4S 4S 8S")
        rejected(m, 2, "6S 7S 7S")
        play(m, 2, "6S 6S 6S")

    def test_A7_match_dead_follow_short_of_suit_all_plus_any(self) -> None:
        m = at_play({0: "QS QS QS", 1: "5S 7C 8D 8D"}, avoid={1: spade})
        play(m, 0, "QS QS QS")
        rejected(m, 1, "7C 8D 8D")  # leaves out its only spade
        play(m, 1, "5S 7C 8D")
        assert m.to_act == 2

    def test_A7_match_may_not_trump_side_lead_holding_the_suit(self) -> None:
        m = at_play({0: "9S", 1: "4S 2C"}, avoid={1: spade})
        play(m, 0, "9S")
        rejected(m, 1, "2C")
        play(m, 1, "4S")

    def test_A7_match_live_option_frees_the_shape_not_the_suit(self) -> None:
        rules = preset("gunzi", follow="live")
        m = at_play({0: "9S 9S", 1: "4S 4S 5S 8S 7C"}, avoid={1: spade}, rules=rules)
        play(m, 0, "9S 9S")
        rejected(m, 1, "5S 7C")
        play(m, 1, "5S 8S")  # holds a pair but need not play it

    def test_A7_match_trump_lead_level_card_of_side_suit_must_follow(self) -> None:
        m = at_play({0: "5H", 1: "3S 7C"}, avoid={1: trump})
        play(m, 0, "5H")
        rejected(m, 1, "7C")
        play(m, 1, "3S")


class TestMatchWinner:
    def test_A7_match_winner_leads_next_and_takes_points(self) -> None:
        m = at_play({0: "5S", 1: "KS", 2: "10S", 3: "5C"}, avoid={3: spade})
        play(m, 0, "5S")
        play(m, 1, "KS")
        play(m, 2, "10S")
        play(m, 3, "5C")
        assert m.tricks[-1]["winner"] == 1
        assert m.tricks[-1]["points"] == 30
        assert m.points == [0, 30]
        assert m.to_act == 1 and m.trick == []

    def test_A7_match_trump_ruff_wins_when_void(self) -> None:
        m = at_play({0: "AS", 1: "4S", 2: "KS", 3: "9H"}, avoid={3: spade})
        play(m, 0, "AS")
        play(m, 1, "4S")
        play(m, 2, "KS")
        play(m, 3, "9H")
        assert m.tricks[-1]["winner"] == 3
        assert m.points == [0, 10]
        assert m.to_act == 3

    def test_A7_match_discard_of_other_side_suit_never_wins(self) -> None:
        m = at_play({0: "4S", 1: "AD", 2: "5S", 3: "AC"}, avoid={1: spade, 3: spade})
        play(m, 0, "4S")
        play(m, 1, "AD")
        play(m, 2, "5S")
        play(m, 3, "AC")
        assert m.tricks[-1]["winner"] == 2
        assert m.points == [5, 0]
        assert m.to_act == 2

    def test_A7_match_equal_level_cards_earlier_wins(self) -> None:
        m = at_play({0: "3S", 1: "3C", 2: "3D", 3: "2H"})
        play(m, 0, "3S")
        play(m, 1, "3C")
        play(m, 2, "3D")
        play(m, 3, "2H")
        assert m.tricks[-1]["winner"] == 0
        assert m.to_act == 0

    def test_A7_match_non_pair_never_wins_pair_trick(self) -> None:
        avoid = {1: spade, 3: lambda c: spade(c) or c in (BJ, LJ)}
        m = at_play({0: "4S 4S", 1: "AS KS", 2: "6S 6S", 3: "BJ LJ"}, avoid=avoid)
        play(m, 0, "4S 4S")
        play(m, 1, "AS KS")
        play(m, 2, "6S 6S")
        play(m, 3, "BJ LJ")
        assert m.tricks[-1]["winner"] == 2
        assert m.points == [10, 0]  # AS KS: the K's 10 points go to the winner
        assert m.to_act == 2

    def test_A7_match_trump_pair_ruffs_side_pair(self) -> None:
        avoid = {3: spade}
        m = at_play({0: "KS KS", 1: "4S 4S", 2: "6S 6S", 3: "2C 2C"}, avoid=avoid)
        play(m, 0, "KS KS")
        play(m, 1, "4S 4S")
        play(m, 2, "6S 6S")
        play(m, 3, "2C 2C")
        assert m.tricks[-1]["winner"] == 3
        assert m.points == [0, 20]


@pytest.mark.parametrize("follow", ["dead", "live"])
def test_A7_full_hands_every_trick_follows_the_rules(follow: str) -> None:
    """Random legal play of whole hands: every accepted follow is legal by the independent
    reading, every trick's winner and points agree with it, the winner leads the next trick,
    and the trick points add up to 300 minus the kitty's points."""
    rules = preset("gunzi", follow=follow)
    for seed in range(6):
        m = Match(rules, random.Random(seed), auto_deal=False)
        m.apply(A.deal(1000 + seed))
        pol = random_policy(random.Random(seed))
        while m.phase is not Phase.PLAY:
            m.apply(pol(m, m.to_act))
        level, trmp, live = m.level, m.trump, follow == "live"
        while m.phase is Phase.PLAY:
            seat = m.to_act
            held = list(m.hands[seat])
            act = pol(m, seat)
            if m.trick:
                lead = list(m.trick[0][1])
                assert spec_follow_ok(lead, act.cards, held, level, trmp, live)
            else:
                assert len(set(act.cards)) == 1
                expected_leader = m.tricks[-1]["winner"] if m.tricks else m.dealer
                assert seat == expected_leader
            m.apply(act)
        total = 0
        for tr in m.tricks:
            assert tr["winner"] == (tr["leader"] + spec_winner(tr["plays"], level, trmp)) % 4
            pts = sum(5 if c % 13 == 3 else 10 if c % 13 in (8, 11) else 0
                      for p in tr["plays"] for c in p if c < 52)
            assert tr["points"] == pts
            total += pts
        kitty_pts = sum(5 if c % 13 == 3 else 10 if c % 13 in (8, 11) else 0
                        for c in m.kitty if c < 52)
        assert total + kitty_pts == 300
        dteam = m.results[-1]["dealer"] % 2
        won = [0, 0]
        for tr in m.tricks:
            won[tr["winner"] % 2] += tr["points"]
        assert m.points == won
        assert m.results[-1]["trick_points"] == won[1 - dteam]


def test_A7_legal_actions_agree_with_verify_at_the_table() -> None:
    """Every listed play is accepted; a sample of unlisted same-size plays is rejected."""
    rng = random.Random(3)
    m = Match(preset("gunzi"), random.Random(3), auto_deal=False)
    m.apply(A.deal(77))
    pol = random_policy(random.Random(3))
    while m.phase is not Phase.PLAY:
        m.apply(pol(m, m.to_act))
    steps = 0
    while m.phase is Phase.PLAY and steps < 60:
        seat = m.to_act
        legal = list(m.legal_actions(seat))
        assert legal
        for a in legal:
            m.verify(a)
        n = len(legal[0].cards)
        held = [c for c in range(54) for _ in range(m.hands[seat][c])]
        listed = {a.cards for a in legal}
        for _ in range(20):
            cand = tuple(sorted(rng.sample(held, n)))
            if cand not in listed:
                assert not m.can_apply(A.play(seat, cand))
        m.apply(rng.choice(legal))
        steps += 1
