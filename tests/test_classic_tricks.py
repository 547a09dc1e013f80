"""docs/rules.md Part B trick rules of classic 升级 (gunzi.engine.classic_tricks): concrete cases
and properties. Test names start with the clause, B."""

from __future__ import annotations

import random
from collections import Counter
from itertools import islice, product

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gunzi.engine.cards import NUM_TYPES, RANKS, SUITS, counts, deck, names, parse_many
from gunzi.engine.classic_tricks import (
    Shape,
    _info,
    _req,
    _search,
    blocker,
    decompose,
    failed_throw,
    follow_error,
    kitty_multiplier,
    lead_error,
    legal_follows,
    legal_leads,
    random_follow,
    random_lead,
    trick_winner,
)
from gunzi.engine.errors import InvalidRulesError
from gunzi.engine.order import TRUMP, Order, order_for


def order(level: str, trump: str) -> Order:
    """Classic order (no permanent 2s) for a level rank like '5' and a trump suit like 'H'."""
    return order_for(RANKS.index(level), SUITS.index(trump), False)


def cards(text: str) -> list[int]:
    return parse_many(text)


def hand(text: str) -> list[int]:
    return counts(parse_many(text))


def shape(text: str, o: Order) -> Shape:
    return decompose(cards(text), o)


def units(text: str, o: Order) -> list[tuple[int, int, list[str]]]:
    """(size, length, card names) of each unit, in canonical order."""
    return [(u.size, u.length, names(u.cards)) for u in shape(text, o).units]


def follows(lead: str, held: str, o: Order) -> set[tuple[str, ...]]:
    return {
        tuple(sorted(names(p))) for p in legal_follows(shape(lead, o), hand(held), o)
    }


def t(text: str) -> tuple[str, ...]:
    return tuple(sorted(text.split()))


L5H = order("5", "H")  # level 5, hearts trump: the running example
L2S = order("2", "S")
L10C = order("10", "C")


# --------------------------------------------------------------------------- decomposition


class TestTractorsAcrossTheLevelRank:
    def test_B_side_suit_pairs_around_the_level_rank_are_a_tractor(self) -> None:
        assert units("4S 4S 6S 6S", L5H) == [(2, 2, ["4S", "4S", "6S", "6S"])]
        assert shape("4S 4S 6S 6S", L5H).cls == 0

    def test_B_trump_suit_pairs_around_the_level_rank_are_a_tractor(self) -> None:
        assert units("4H 4H 6H 6H", L5H) == [(2, 2, ["4H", "4H", "6H", "6H"])]
        assert shape("4H 4H 6H 6H", L5H).cls == TRUMP

    def test_B_trump_ace_pair_and_off_suit_level_pair_are_adjacent(self) -> None:
        assert units("AH AH 5S 5S", L5H) == [(2, 2, ["AH", "AH", "5S", "5S"])]
        assert units("AH AH 5D 5D", L5H) == [(2, 2, ["AH", "AH", "5D", "5D"])]

    def test_B_two_off_suit_level_pairs_are_not_a_tractor(self) -> None:
        assert [(s, n) for s, n, _ in units("5S 5S 5C 5C", L5H)] == [(2, 1), (2, 1)]
        assert [(s, n) for s, n, _ in units("5S 5S 5C 5C 5D 5D", L5H)] == [(2, 1)] * 3

    def test_B_off_suit_level_pair_and_trump_level_pair_are_a_tractor(self) -> None:
        assert units("5C 5C 5H 5H", L5H) == [(2, 2, ["5C", "5C", "5H", "5H"])]

    def test_B_trump_level_pair_and_little_jokers_and_big_jokers(self) -> None:
        assert units("5H 5H LJ LJ BJ BJ", L5H) == [
            (2, 3, ["5H", "5H", "LJ", "LJ", "BJ", "BJ"])
        ]
        assert units("LJ LJ BJ BJ", L5H) == [(2, 2, ["LJ", "LJ", "BJ", "BJ"])]

    def test_B_trump_ace_to_big_joker_is_one_long_tractor(self) -> None:
        got = units("AH AH 5S 5S 5H 5H LJ LJ BJ BJ", L5H)
        assert [(s, n) for s, n, _ in got] == [(2, 5)]

    def test_B_trump_ace_pair_and_trump_level_pair_are_not_adjacent(self) -> None:
        # the off-suit level cards sit between them
        assert [(s, n) for s, n, _ in units("AH AH 5H 5H", L5H)] == [(2, 1), (2, 1)]

    def test_B_level_card_never_chains_with_side_cards_of_its_own_suit(self) -> None:
        s = shape("4S 4S 5S 5S", L5H)
        assert s.cls == -1  # 5S is a trump, 4S a spade
        assert all(u.length == 1 for u in s.units)
        assert all(u.length == 1 for u in shape("5S 5S 6S 6S", L5H).units)

    def test_B_level_card_of_the_trump_suit_skips_to_the_other_level_cards(self) -> None:
        o = order("5", "S")
        assert [(s, n) for s, n, _ in units("4S 4S 6S 6S", o)] == [(2, 2)]
        assert [(s, n) for s, n, _ in units("AS AS 5S 5S", o)] == [(2, 1), (2, 1)]
        assert [(s, n) for s, n, _ in units("AS AS 5H 5H", o)] == [(2, 2)]

    def test_B_level_two_makes_three_and_ace_ends_of_the_side_suits(self) -> None:
        assert [(s, n) for s, n, _ in units("AH AH 2D 2D", L2S)] == [(2, 1), (2, 1)]
        assert shape("AH AH 2D 2D", L2S).cls == -1
        assert [(s, n) for s, n, _ in units("AS AS 2D 2D", L2S)] == [(2, 2)]
        assert [(s, n) for s, n, _ in units("3D 3D 4D 4D", L2S)] == [(2, 2)]

    def test_B_nine_and_jack_are_adjacent_at_level_ten(self) -> None:
        assert [(s, n) for s, n, _ in units("9S 9S JS JS", L10C)] == [(2, 2)]
        assert [(s, n) for s, n, _ in units("9S 9S 10S 10S", L10C)] == [(2, 1), (2, 1)]

    def test_B_no_trump_suit_level_cards_all_tie_below_the_jokers(self) -> None:
        o = order_for(3, -1, False)
        assert [(s, n) for s, n, _ in units("5S 5S 5H 5H", o)] == [(2, 1), (2, 1)]
        assert [(s, n) for s, n, _ in units("5S 5S LJ LJ", o)] == [(2, 2)]


class TestDecomposition:
    def test_B_single_pair_triple(self) -> None:
        assert units("7S", L5H) == [(1, 1, ["7S"])]
        assert units("7S 7S", L5H) == [(2, 1, ["7S", "7S"])]
        assert units("7S 7S 7S", L5H) == [(3, 1, ["7S", "7S", "7S"])]

    def test_B_non_adjacent_pairs_are_two_units(self) -> None:
        assert [(s, n) for s, n, _ in units("7S 7S 9S 9S", L5H)] == [(2, 1), (2, 1)]

    def test_B_triple_tractor_with_three_decks(self) -> None:
        assert units("7S 7S 7S 8S 8S 8S", L5H) == [
            (3, 2, ["7S", "7S", "7S", "8S", "8S", "8S"])
        ]

    def test_B_a_triple_never_chains_with_a_pair(self) -> None:
        assert [(s, n) for s, n, _ in units("7S 7S 7S 8S 8S", L5H)] == [(3, 1), (2, 1)]

    def test_B_canonical_order_strongest_structure_first(self) -> None:
        got = units("AS AS KS KS 9S 7S 7S 3S 3S 3S", L5H)
        assert got == [
            (2, 2, ["KS", "KS", "AS", "AS"]),
            (3, 1, ["3S", "3S", "3S"]),
            (2, 1, ["7S", "7S"]),
            (1, 1, ["9S"]),
        ]

    def test_B_bigger_tractor_before_smaller_and_higher_top_first(self) -> None:
        got = units("3S 3S 4S 4S 7S 7S 8S 8S 9S 9S JS JS QS QS", L5H)
        assert [(s, n, c[-1]) for s, n, c in got] == [(2, 3, "9S"), (2, 2, "QS"), (2, 2, "4S")]

    def test_B_shared_power_longest_run_first_lowest_id(self) -> None:
        # 5S/5C share a power: the run AH-5S-5H is taken, 5C5C is left as a pair
        got = units("AH AH 5S 5S 5C 5C 5H 5H", L5H)
        assert got == [(2, 3, ["AH", "AH", "5S", "5S", "5H", "5H"]), (2, 1, ["5C", "5C"])]

    def test_B_mixed_classes_have_class_minus_one(self) -> None:
        s = shape("7S 7H", L5H)
        assert s.cls == -1
        assert len(s.units) == 2

    def test_B_units_cover_the_play_exactly(self) -> None:
        play = cards("AS AS KS KS 9S 7S 7S 3S 3S 3S")
        s = decompose(play, L5H)
        assert sorted(c for u in s.units for c in u.cards) == sorted(play)
        assert s.count == len(play)


# --------------------------------------------------------------------------- leads, throws


class TestLeads:
    def test_B_any_one_class_multiset_is_a_lead(self) -> None:
        h = hand("7S 7S 9S 3H 5S BJ")
        assert lead_error(cards("7S 7S 9S"), h, L5H) is None
        assert lead_error(cards("3H 5S BJ"), h, L5H) is None

    def test_B_mixed_classes_are_not_a_lead(self) -> None:
        err = lead_error(cards("7S 3H"), hand("7S 3H"), L5H)
        assert err is not None
        assert "one suit class" in err and "7S" in err and "3H" in err

    def test_B_cards_not_held(self) -> None:
        assert lead_error(cards("7S"), hand("8S"), L5H) == "does not hold 7S"
        err = lead_error(cards("7S 7S"), hand("7S"), L5H)
        assert err == "plays 2 × 7S but holds only 1"

    def test_B_empty_lead(self) -> None:
        assert lead_error([], hand("7S"), L5H) is not None

    def test_B_legal_leads_single_units_first_then_throws(self) -> None:
        h = hand("7S 7S 8S 8S 9S")
        got = [tuple(names(x)) for x in legal_leads(h, L5H)]
        singles = [("7S",), ("8S",), ("9S",), ("7S", "7S"), ("8S", "8S"), ("7S", "7S", "8S", "8S")]
        assert got[:6] == singles
        assert len(got) == len(set(got)) == 3 * 3 * 2 - 1
        assert all(len(decompose(cards(" ".join(x)), L5H).units) >= 2 for x in got[6:])

    def test_B_legal_leads_tractors_from_triples_and_shared_powers(self) -> None:
        h = hand("AH AH AH 5S 5S 5C 5C 5H 5H")
        leads = {tuple(sorted(names(x))) for x in legal_leads(h, L5H)}
        assert t("AH AH 5S 5S") in leads
        assert t("AH AH 5C 5C 5H 5H") in leads
        assert t("AH AH AH") in leads
        assert t("5S 5S 5C 5C") in leads  # a throw of two pairs

    def test_B_legal_leads_is_lazy(self) -> None:
        h = counts(deck(2)[:54] + deck(1)[:20])
        got = list(islice(legal_leads(h, L5H), 2000))
        assert len(got) == 2000

    def test_B_random_lead_is_legal_and_mostly_one_unit(self) -> None:
        rng = random.Random(7)
        h = hand("7S 7S 8S 8S 9S 3H 3H 4C AD KD")
        throws = 0
        for _ in range(400):
            lead = random_lead(h, L5H, rng, throw_chance=0.25)
            assert lead_error(lead, h, L5H) is None
            throws += len(decompose(lead, L5H).units) > 1
        assert 50 < throws < 150

    def test_B_random_lead_always_throws_with_chance_one(self) -> None:
        rng = random.Random(3)
        h = hand("7S 7S 8S 8S")
        for _ in range(50):
            lead = random_lead(h, L5H, rng, throw_chance=1.0)
            assert len(decompose(lead, L5H).units) >= 2

    def test_B_random_lead_without_a_possible_throw_is_a_unit(self) -> None:
        rng = random.Random(3)
        h = hand("7S 7S 7S")
        for _ in range(20):
            assert len(decompose(random_lead(h, L5H, rng, 1.0), L5H).units) == 1


class TestThrows:
    def test_B_single_unit_never_fails(self) -> None:
        lead = shape("7S 7S", L5H)
        assert failed_throw(lead, [hand("AS AS")], L5H) is None

    def test_B_throw_stands_when_nobody_beats_any_part(self) -> None:
        lead = shape("AS AS KS", L5H)
        others = [hand("QS QS JS"), hand("3H 3H BJ"), hand("")]
        assert failed_throw(lead, others, L5H) is None

    def test_B_throw_fails_on_a_higher_single(self) -> None:
        lead = shape("AS KS", L5H)
        got = failed_throw(lead, [hand("3S"), hand("AS"), hand("")], L5H)
        assert got is not None and names(got.cards) == ["KS"]

    def test_B_smallest_failing_part_fewest_cards(self) -> None:
        lead = shape("QS QS 9S", L5H)
        got = failed_throw(lead, [hand("KS KS"), hand("10S"), hand("")], L5H)
        assert got is not None and names(got.cards) == ["9S"]

    def test_B_smallest_failing_part_lowest_top(self) -> None:
        lead = shape("AS 9S 7S", L5H)
        got = failed_throw(lead, [hand("10S 8S"), hand(""), hand("")], L5H)
        assert got is not None and names(got.cards) == ["7S"]

    def test_B_pair_fails_before_tractor(self) -> None:
        lead = shape("7S 7S 8S 8S 3S 3S", L5H)
        others = [hand("9S 9S 10S 10S"), hand("4S 4S"), hand("")]
        got = failed_throw(lead, others, L5H)
        assert got is not None and names(got.cards) == ["3S", "3S"]

    def test_B_tractor_fails_only_on_a_higher_tractor_of_the_same_size(self) -> None:
        lead = shape("7S 7S 8S 8S AS", L5H)
        # two higher but non-adjacent pairs cannot beat the tractor
        assert failed_throw(lead, [hand("9S 9S JS JS")], L5H) is None
        got = failed_throw(lead, [hand("10S 10S JS JS")], L5H)
        assert got is not None and names(got.cards) == ["7S", "7S", "8S", "8S"]
        # a longer higher tractor beats it too
        got = failed_throw(lead, [hand("9S 9S 10S 10S JS JS")], L5H)
        assert got is not None and got.length == 2
        # a lower tractor does not
        assert failed_throw(lead, [hand("3S 3S 4S 4S")], L5H) is None

    def test_B_blocker_is_the_first_seat_that_beats_with_its_lowest_beating_unit(self) -> None:
        """The banner of a failed throw names who stops it and with what (docs/rules.md B,
        classic_tricks' Rule L): for the forced 9S, 10S of the first hand beats it (JS of the
        second is not asked)."""
        lead = shape("QS QS 9S", L5H)
        others = [hand("3S 10S KS"), hand("JS"), hand("")]
        part = failed_throw(lead, others, L5H)
        assert part is not None
        got = blocker(part, 3, [*others, hand("")], L5H)  # seat 3 threw: seats 0, 1, 2 follow
        assert got is not None and got[0] == 0 and names(got[1]) == ["10S"]
        # A tractor is stopped by a higher tractor: the lowest one above it, whole.
        lead = shape("7S 7S 8S 8S AS", L5H)
        others = [hand("3S"), hand("9S 9S 10S 10S JS JS QS")]
        part = failed_throw(lead, others, L5H)
        assert part is not None
        got = blocker(part, 0, [hand(""), *others], L5H)
        assert got is not None and got[0] == 2 and names(got[1]) == ["9S", "9S", "10S", "10S"]

    def test_B_tractor_part_beaten_by_a_tractor_inside_triples(self) -> None:
        lead = shape("7S 7S 8S 8S AS", L5H)
        got = failed_throw(lead, [hand("9S 9S 9S 10S 10S 10S")], L5H)
        assert got is not None and got.length == 2

    def test_B_pair_part_fails_on_a_higher_triple(self) -> None:
        lead = shape("QS QS AS", L5H)
        got = failed_throw(lead, [hand("KS KS KS")], L5H)
        assert got is not None and names(got.cards) == ["QS", "QS"]

    def test_B_triple_part_needs_a_higher_triple_to_fail(self) -> None:
        lead = shape("QS QS QS AS", L5H)
        assert failed_throw(lead, [hand("KS KS")], L5H) is None
        got = failed_throw(lead, [hand("KS KS KS")], L5H)
        assert got is not None and got.size == 3

    def test_B_trumps_of_others_do_not_fail_a_side_throw(self) -> None:
        lead = shape("AS KS", L5H)
        assert failed_throw(lead, [hand("BJ BJ 5S 5S"), hand("2H")], L5H) is None

    def test_B_trump_throw_fails_on_a_higher_trump(self) -> None:
        lead = shape("LJ 5H 5H", L5H)
        got = failed_throw(lead, [hand("BJ 5D")], L5H)
        assert got is not None and names(got.cards) == ["LJ"]
        # an off-suit level pair does not beat the trump-suit level pair
        assert failed_throw(lead, [hand("5D 5D")], L5H) is None

    def test_B_equal_off_suit_level_card_does_not_beat(self) -> None:
        lead = shape("5S 5H", L5H)
        assert failed_throw(lead, [hand("5C 5D")], L5H) is None
        got = failed_throw(shape("5S AH", L5H), [hand("5C 5D")], L5H)
        assert got is not None and names(got.cards) == ["AH"]


# --------------------------------------------------------------------------- follows


class TestFollowSuit:
    def test_B_must_follow_the_led_suit(self) -> None:
        lead = shape("AS", L5H)
        h = hand("7S 9S 3D")
        assert follow_error(lead, cards("3D"), h, L5H) == "must follow spades: holds 9S 7S"
        assert follow_error(lead, cards("7S"), h, L5H) is None

    def test_B_short_in_the_led_suit_plays_all_of_it_then_anything(self) -> None:
        lead = shape("7S 7S 8S 8S", L5H)
        h = hand("9S 3D 4D BJ 6H")
        assert follow_error(lead, cards("9S 3D 4D BJ"), h, L5H) is None
        err = follow_error(lead, cards("3D 4D BJ 6H"), h, L5H)
        assert err == "must play every card of spades held: 9S"
        assert len(follows("7S 7S 8S 8S", "9S 3D 4D BJ 6H", L5H)) == 4

    def test_B_trumps_follow_a_trump_lead(self) -> None:
        lead = shape("BJ", L5H)
        h = hand("5S 3D")
        assert follow_error(lead, cards("3D"), h, L5H) == "must follow trumps: holds 5S"
        assert follow_error(lead, cards("5S"), h, L5H) is None

    def test_B_wrong_number_of_cards(self) -> None:
        lead = shape("7S 7S", L5H)
        err = follow_error(lead, cards("8S"), hand("8S 9S"), L5H)
        assert err == "must play 2 cards to follow, not 1"

    def test_B_cards_not_held(self) -> None:
        lead = shape("7S", L5H)
        assert follow_error(lead, cards("8S"), hand("9S"), L5H) == "does not hold 8S"


class TestFollowPairs:
    def test_B_pair_led_must_play_a_pair(self) -> None:
        lead = shape("7S 7S", L5H)
        h = hand("3S 3S 9S JS")
        err = follow_error(lead, cards("9S JS"), h, L5H)
        assert err == "must play a pair of spades: holds 3S 3S"
        assert follows("7S 7S", "3S 3S 9S JS", L5H) == {t("3S 3S")}

    def test_B_trump_pair_led_must_play_a_trump_pair(self) -> None:
        assert follows("3H 3H", "5C 5C 5D BJ 4S", L5H) == {t("5C 5C")}

    def test_B_pair_led_without_a_pair_any_two(self) -> None:
        assert follows("7S 7S", "3S 9S JS", L5H) == {t("3S 9S"), t("3S JS"), t("9S JS")}

    def test_B_pair_led_with_a_triple_plays_a_pair_out_of_it(self) -> None:
        assert follows("7S 7S", "3S 3S 3S 9S", L5H) == {t("3S 3S")}

    def test_B_pair_led_with_two_pairs_chooses(self) -> None:
        assert follows("7S 7S", "3S 3S 9S 9S", L5H) == {t("3S 3S"), t("9S 9S")}

    def test_B_two_pairs_led_must_play_two_pairs(self) -> None:
        got = follows("7S 7S 10S 10S", "3S 3S 9S 9S JS QS", L5H)
        assert got == {t("3S 3S 9S 9S")}

    def test_B_two_pair_throw_with_one_pair_held(self) -> None:
        got = follows("7S 7S 10S 10S", "3S 3S 9S JS", L5H)
        assert got == {t("3S 3S 9S JS")}

    def test_B_off_suit_level_cards_are_not_a_pair(self) -> None:
        assert follows("BJ BJ", "5S 5C 4H", L5H) == {t("5S 5C"), t("5S 4H"), t("5C 4H")}

    def test_B_message_for_two_pairs(self) -> None:
        lead = shape("7S 7S 10S 10S", L5H)
        err = follow_error(lead, cards("3S 3S 9S JS"), hand("3S 3S 9S 9S JS"), L5H)
        assert err == "must play 2 pairs of spades: holds 9S 9S 3S 3S (plays 1)"


class TestFollowTriples:
    def test_B_triple_led_must_play_a_triple(self) -> None:
        assert follows("7S 7S 7S", "3S 3S 3S 9S 9S", L5H) == {t("3S 3S 3S")}

    def test_B_triple_led_without_triple_plays_a_pair_and_one(self) -> None:
        got = follows("7S 7S 7S", "3S 3S 9S JS", L5H)
        assert got == {t("3S 3S 9S"), t("3S 3S JS")}
        err = follow_error(shape("7S 7S 7S", L5H), cards("3S 9S JS"), hand("3S 3S 9S JS"), L5H)
        assert err == "must play a pair of spades: holds 3S 3S"

    def test_B_triple_led_without_pairs_any_three(self) -> None:
        assert len(follows("7S 7S 7S", "3S 4S 9S JS", L5H)) == 4

    def test_B_triple_and_pair_led(self) -> None:
        got = follows("7S 7S 7S 10S 10S", "3S 3S 3S 9S 9S JS", L5H)
        assert got == {t("3S 3S 3S 9S 9S")}

    def test_B_two_triples_led_with_one_triple_and_pairs(self) -> None:
        # the second triple is answered by a pair
        got = follows("7S 7S 7S JS JS JS", "3S 3S 3S 9S 9S QS KS", L5H)
        assert got == {t("3S 3S 3S 9S 9S QS"), t("3S 3S 3S 9S 9S KS")}

    def test_B_message_for_triple(self) -> None:
        err = follow_error(
            shape("7S 7S 7S", L5H), cards("3S 3S 9S"), hand("3S 3S 9S 9S 9S"), L5H
        )
        assert err == "must play a triple of spades: holds 9S 9S 9S"


class TestFollowTractors:
    def test_B_tractor_led_must_play_a_tractor(self) -> None:
        assert follows("7S 7S 8S 8S", "3S 3S 4S 4S JS JS", L5H) == {t("3S 3S 4S 4S")}
        err = follow_error(
            shape("7S 7S 8S 8S", L5H), cards("3S 3S JS JS"), hand("3S 3S 4S 4S JS JS"), L5H
        )
        assert err == "must play a tractor of spades: holds 4S 4S 3S 3S"

    def test_B_tractor_led_without_tractor_plays_pairs(self) -> None:
        assert follows("7S 7S 8S 8S", "3S 3S 9S 9S JS", L5H) == {t("3S 3S 9S 9S")}

    def test_B_tractor_led_with_one_pair_plays_it_and_fills(self) -> None:
        got = follows("7S 7S 8S 8S", "3S 3S 9S JS QS", L5H)
        assert got == {t("3S 3S 9S JS"), t("3S 3S 9S QS"), t("3S 3S JS QS")}

    def test_B_tractor_across_the_level_rank_must_be_played(self) -> None:
        assert follows("9S 9S 10S 10S", "4S 4S 6S 6S 8S", L5H) == {t("4S 4S 6S 6S")}

    def test_B_tractor_out_of_triples(self) -> None:
        got = follows("7S 7S 8S 8S", "3S 3S 3S 4S 4S 4S 9S", L5H)
        assert got == {t("3S 3S 4S 4S")}

    def test_B_longest_tractor_up_to_the_lead_length(self) -> None:
        got = follows("7S 7S 8S 8S 9S 9S", "3S 3S 4S 4S JS JS QS QS KS KS AS", L5H)
        assert got == {t("JS JS QS QS KS KS")}
        # a longer holding: any three consecutive pairs of it
        got = follows("7S 7S 8S 8S 9S 9S", "JS JS QS QS KS KS AS AS", L5H)
        assert got == {t("JS JS QS QS KS KS"), t("QS QS KS KS AS AS")}

    def test_B_shorter_tractor_then_pairs(self) -> None:
        got = follows("7S 7S 8S 8S 9S 9S", "3S 3S 4S 4S JS JS AS", L5H)
        assert got == {t("3S 3S 4S 4S JS JS")}
        err = follow_error(
            shape("7S 7S 8S 8S 9S 9S", L5H),
            cards("3S 3S JS JS AS 4S"),
            hand("3S 3S 4S 4S JS JS AS"),
            L5H,
        )
        assert err == "must play a tractor of spades: holds 4S 4S 3S 3S"

    def test_B_trump_tractor_with_shared_power_level_cards(self) -> None:
        got = follows("3H 3H 4H 4H", "AH AH 5S 5S 5C 5C 7H", L5H)
        assert got == {t("AH AH 5S 5S"), t("AH AH 5C 5C")}

    def test_B_off_suit_level_pairs_are_not_a_tractor_for_following(self) -> None:
        got = follows("3H 3H 4H 4H", "5S 5S 5C 5C 7H", L5H)
        assert got == {t("5S 5S 5C 5C")}  # still two pairs

    def test_B_triple_tractor_led_with_three_decks(self) -> None:
        lead = "7S 7S 7S 8S 8S 8S"
        assert follows(lead, "3S 3S 3S 4S 4S 4S 9S 9S 9S", L5H) == {t("3S 3S 3S 4S 4S 4S")}
        # no triple tractor: both triples
        assert follows(lead, "3S 3S 3S JS JS JS 9S", L5H) == {t("3S 3S 3S JS JS JS")}
        # a triple and pairs: triple, then a pair for the unanswered triple, then one more
        got = follows(lead, "3S 3S 3S 9S 9S JS", L5H)
        assert got == {t("3S 3S 3S 9S 9S JS")}

    def test_B_pair_tractor_does_not_answer_a_triple_tractor_as_a_tractor(self) -> None:
        # the pairs are still owed (one pair per unanswered triple)
        got = follows("7S 7S 7S 8S 8S 8S", "3S 3S 4S 4S 9S 9S JS QS", L5H)
        assert t("3S 3S 9S 9S JS QS") in got
        assert t("3S 3S 4S 4S 9S 9S") in got
        assert t("3S 4S 9S 9S JS QS") not in got
        assert len(got) == 10  # every 6 of the 8 cards that keep two pairs

    def test_B_throw_with_tractor_and_pair_two_decks(self) -> None:
        got = follows("7S 7S 8S 8S KS KS", "3S 3S 4S 4S 10S 10S JS", L5H)
        assert got == {t("3S 3S 4S 4S 10S 10S")}

    def test_B_trumping_is_free_when_void(self) -> None:
        got = follows("7S 7S 8S 8S", "3H 3H 4H 4H 9D", L5H)
        assert t("3H 3H 4H 4H") in got and t("3H 4H 4H 9D") in got


# --------------------------------------------------------------------------- winner


def winner(lead: str, plays: list[str], o: Order) -> int:
    return trick_winner(shape(lead, o), [cards(lead), *[cards(p) for p in plays]], o)


class TestTrickWinner:
    def test_B_higher_single_in_the_led_suit_wins(self) -> None:
        assert winner("7S", ["9S", "8S", "3S"], L5H) == 1

    def test_B_other_side_suit_never_wins(self) -> None:
        assert winner("7S", ["AD", "AC", "3S"], L5H) == 0

    def test_B_trump_beats_side_and_higher_trump_overtrumps(self) -> None:
        assert winner("AS", ["3H", "KS", "5C"], L5H) == 3
        assert winner("AS", ["3H", "BJ", "5C"], L5H) == 2

    def test_B_equal_plays_earlier_wins(self) -> None:
        assert winner("7S", ["7S", "7S"], L5H) == 0
        assert winner("AS", ["5S", "5C", "5D"], L5H) == 1  # equal off-suit level cards
        assert winner("7S 7S", ["3H 3H", "3H 3H", "2S 3S"], L5H) == 1

    def test_B_trumping_a_pair_needs_a_trump_pair(self) -> None:
        assert winner("7S 7S", ["3H 4H", "8S 9S", "2D 3D"], L5H) == 0
        assert winner("7S 7S", ["3H 4H", "3H 3H", "2D 3D"], L5H) == 2
        # two equal but different level cards are not a pair
        assert winner("7S 7S", ["5C 5D", "8S 9S", "2D 3D"], L5H) == 0

    def test_B_non_matching_trump_play_never_wins(self) -> None:
        assert winner("7S 7S 8S 8S", ["BJ BJ LJ 5H", "3S 4S 9S 9S", "AH AH KH KH"], L5H) == 3
        assert winner("7S 7S 8S 8S", ["BJ BJ 3H 3H", "9S 9S 10S 10S", "2D 3D 4D 6D"], L5H) == 2
        assert winner("7S 7S 8S 8S", ["BJ BJ 3H 3H"], L5H) == 0

    def test_B_higher_tractor_in_led_suit_wins(self) -> None:
        assert winner("7S 7S 8S 8S", ["9S 9S 10S 10S"], L5H) == 1
        assert winner("7S 7S 8S 8S", ["2S 2S 3S 3S"], L5H) == 0

    def test_B_triple_tractor_does_not_beat_a_pair_tractor_lead(self) -> None:
        assert winner("7S 7S 8S 8S 9S 9S", ["JS JS JS QS QS QS"], L5H) == 0

    def test_B_trump_tractor_across_the_level_rank_wins(self) -> None:
        assert winner("7S 7S 8S 8S", ["AH AH 5D 5D", "3H 3H 4H 4H"], L5H) == 1
        assert winner("7S 7S 8S 8S", ["3H 3H 4H 4H", "AH AH 5D 5D"], L5H) == 2

    def test_B_throw_trumped_with_matching_structure(self) -> None:
        assert winner("AS AS KS", ["3H 3H 4H", "9H 9H 2H", "QS JS 10S"], L5H) == 2
        assert winner("AS AS KS", ["3H 4H 6H"], L5H) == 0

    def test_B_throw_in_suit_cannot_be_beaten_by_unmatched_structure(self) -> None:
        assert winner("AS AS KS", ["QS JS 10S", "2S 2S 3S"], L5H) == 0

    def test_B_trump_lead_higher_trump_wins(self) -> None:
        assert winner("5S 5S", ["5H 5H", "LJ LJ", "BJ 3H"], L5H) == 2

    def test_B_comparison_by_strongest_unit(self) -> None:
        # the pair decides, not the single
        assert winner("QS QS 3S", ["AH AH 2H", "KH KH BJ"], L5H) == 1


# --------------------------------------------------------------------------- kitty


class TestKittyMultiplier:
    @pytest.mark.parametrize(
        ("play", "doubling", "linear"),
        [
            ("7S", 2, 2),
            ("7S 7S", 4, 4),
            ("7S 7S 9S", 4, 4),
            ("7S 7S 8S 8S", 8, 8),
            ("7S 7S 8S 8S 9S 9S", 16, 12),
            ("7S 7S 9S 9S", 8, 8),
            ("7S 7S 7S", 4, 6),
            ("7S 7S 7S 8S 8S 8S", 8, 12),
            ("7S 7S 7S 9S 9S", 8, 10),
            ("7S 8S 9S", 2, 2),
        ],
    )
    def test_B_kitty_multiplier_modes(self, play: str, doubling: int, linear: int) -> None:
        s = shape(play, L5H)
        assert kitty_multiplier(s, "doubling") == doubling
        assert kitty_multiplier(s, "linear") == linear

    def test_B_unknown_mode(self) -> None:
        with pytest.raises(InvalidRulesError):
            kitty_multiplier(shape("7S", L5H), "tripling")


# --------------------------------------------------------------------------- properties

ORDERS = [L5H, L2S, L10C, order("A", "D"), order("9", "S")]


def _pools(o: Order) -> tuple[list[int], list[int]]:
    """Two small pools of cards rich in structure: adjacent side ranks, and the trumps
    around the level rank (where off-suit level cards share a power)."""
    side = next(cl for cl in range(4) if cl != o.trump)
    return list(o.class_cards[side][3:9]), list(o.class_cards[TRUMP][-8:])


@st.composite
def situations(draw: st.DrawFn) -> tuple[Order, Shape, list[int], int]:
    """An order, a one-class lead, a small follower hand (mostly of the led class) and the
    number of decks."""
    o = draw(st.sampled_from(ORDERS))
    decks = draw(st.sampled_from([2, 3, 3, 1]))
    side, trumps = _pools(o)
    led, other = (side, trumps) if draw(st.booleans()) else (trumps, side)
    copies = st.integers(1, decks)
    lead_counts = draw(st.dictionaries(st.sampled_from(led), copies, min_size=1, max_size=4))
    lead_cards = [c for c, k in lead_counts.items() for _ in range(k)][:8]
    held = draw(st.dictionaries(st.sampled_from(led), copies, max_size=6))
    extra = draw(st.dictionaries(st.sampled_from(other), copies, max_size=2))
    h = [0] * NUM_TYPES
    for c, k in [*held.items(), *extra.items()]:
        h[c] = k
    while sum(h) > 13:  # keep the brute force small
        c = max(c for c in range(NUM_TYPES) if h[c])
        h[c] -= 1
    return o, decompose(lead_cards, o), h, decks


def _sub_multisets(h: list[int], k: int) -> list[tuple[int, ...]]:
    items = [(c, h[c]) for c in range(NUM_TYPES) if h[c]]
    out = []
    for ks in product(*[range(n + 1) for _, n in items]):
        if sum(ks) == k:
            out.append(tuple(sorted(c for (c, _), m in zip(items, ks, strict=True)
                                    for _ in range(m))))
    return out


def _oracle_vector(lead: Shape, q: Counter[int], o: Order) -> tuple[int, int, int]:
    """The Rule F match vector by brute force over subsets (independent of the engine's
    run scanning and counting)."""
    tractors = [(u.size, u.length) for u in lead.units if u.length >= 2 and u.size in (2, 3)]
    n3 = sum(u.length for u in lead.units if u.size == 3)
    n2 = sum(u.length for u in lead.units if u.size == 2)
    best = (-1, -1, -1)

    def segments(rem: Counter[int], s: int, length: int) -> list[list[int]]:
        ids = [c for c in rem if rem[c] >= s]
        out = []
        for mask in range(1, 1 << len(ids)):
            chosen = [ids[i] for i in range(len(ids)) if mask >> i & 1]
            if not 2 <= len(chosen) <= length:
                continue
            us = decompose([c for c in chosen for _ in range(s)], o).units
            if len(us) == 1 and us[0].length == len(chosen):
                out.append(chosen)
        return out

    def rec(i: int, rem: Counter[int], k3: int, k2: int, c1: int) -> None:
        nonlocal best
        if i == len(tractors):
            trip_ids = [c for c in rem if rem[c] >= 3]
            for mask in range(1 << len(trip_ids)):
                used = [trip_ids[j] for j in range(len(trip_ids)) if mask >> j & 1]
                if k3 + len(used) > n3:
                    continue
                c2 = k3 + len(used)
                pairs = sum(1 for c in rem if rem[c] >= 2 and c not in used)
                c3 = min(n2 + n3 - c2, k2 + pairs)
                best = max(best, (c1, c2, c3))
            return
        rec(i + 1, rem, k3, k2, c1)
        s, length = tractors[i]
        for seg in segments(rem, s, length):
            r2 = rem.copy()
            for c in seg:
                r2[c] -= s
            rec(i + 1, +r2, k3 + (len(seg) if s == 3 else 0), k2 + (len(seg) if s == 2 else 0),
                c1 + s * len(seg))

    rec(0, +q, 0, 0, 0)
    return best


def _oracle_legal(lead: Shape, h: list[int], o: Order) -> set[tuple[int, ...]]:
    n = lead.count
    cl = lead.cls
    plays = _sub_multisets(h, n)
    held = sum(h[c] for c in o.class_cards[cl])
    if held < n:
        return {p for p in plays if sum(1 for c in p if o.cls[c] == cl) == held}
    plays = [p for p in plays if all(o.cls[c] == cl for c in p)]
    vecs = {p: _oracle_vector(lead, Counter(p), o) for p in plays}
    top = max(vecs.values())
    return {p for p, v in vecs.items() if v == top}


SLOW = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class TestProperties:
    @SLOW
    @given(situations())
    def test_B_legal_follows_agrees_with_follow_error(
        self, sit: tuple[Order, Shape, list[int], int]
    ) -> None:
        o, lead, h, _ = sit
        got = list(legal_follows(lead, h, o))
        assert len(got) == len(set(got))
        assert all(p == tuple(sorted(p)) for p in got)
        valid = {p for p in _sub_multisets(h, lead.count) if follow_error(lead, p, h, o) is None}
        assert set(got) == valid

    @SLOW
    @given(situations())
    def test_B_legal_follows_matches_a_brute_force_oracle(
        self, sit: tuple[Order, Shape, list[int], int]
    ) -> None:
        o, lead, h, _ = sit
        assert set(legal_follows(lead, h, o)) == _oracle_legal(lead, h, o)

    @SLOW
    @given(situations(), st.randoms(use_true_random=False))
    def test_B_random_follow_is_always_legal(
        self, sit: tuple[Order, Shape, list[int], int], rng: random.Random
    ) -> None:
        o, lead, h, _ = sit
        if sum(h) < lead.count:
            with pytest.raises(ValueError):
                random_follow(lead, h, o, rng)
            return
        for _ in range(5):
            play = random_follow(lead, h, o, rng)
            assert follow_error(lead, play, h, o) is None

    @SLOW
    @given(situations())
    def test_B_error_messages_name_the_rule(self, sit: tuple[Order, Shape, list[int], int]) -> None:
        o, lead, h, _ = sit
        for p in _sub_multisets(h, lead.count):
            err = follow_error(lead, p, h, o)
            if err is not None:
                assert err.startswith("must ")

    @SLOW
    @given(situations())
    def test_B_budgeted_bound_at_the_root_equals_the_holding_vector(
        self, sit: tuple[Order, Shape, list[int], int]
    ) -> None:
        o, lead, h, _ = sit
        req = _req(lead)
        inf = _info(o, lead.cls)
        hold = [h[c] for c in inf.ids]
        if sum(hold) < req.n:
            return
        free = _search(req, inf, hold, None, 0)[0]
        budget = _search(req, inf, [0] * len(hold), hold, req.n)[0]
        assert free == budget

    @settings(max_examples=150, deadline=None)
    @given(
        st.sampled_from(ORDERS),
        st.lists(st.integers(0, 53), min_size=1, max_size=8),
    )
    def test_B_legal_leads_are_every_one_class_multiset(self, o: Order, held: list[int]) -> None:
        h = [min(k, 3) for k in counts(held)]  # at most three decks
        got = list(legal_leads(h, o))
        assert len(got) == len(set(got))
        expect = {
            p
            for k in range(1, sum(h) + 1)
            for p in _sub_multisets(h, k)
            if len({o.cls[c] for c in p}) == 1
        }
        assert set(got) == expect
        sizes = [len(decompose(p, o).units) for p in got]
        first_throw = next((i for i, s in enumerate(sizes) if s > 1), len(sizes))
        assert all(s == 1 for s in sizes[:first_throw])
        assert all(s > 1 for s in sizes[first_throw:])
        assert all(lead_error(p, h, o) is None for p in got)

    @settings(max_examples=200, deadline=None)
    @given(situations(), st.lists(st.integers(0, 53), max_size=10))
    def test_B_failed_throw_matches_single_unit_leads_of_others(
        self, sit: tuple[Order, Shape, list[int], int], other: list[int]
    ) -> None:
        o, lead, h, _ = sit
        others = [h, counts(other)]

        def beatable(u_size: int, u_len: int, top: int) -> bool:
            for oh in others:
                for p in legal_leads(oh, o):
                    s = decompose(p, o)
                    if len(s.units) > 1:
                        break  # throws follow the single units
                    v = s.units[0]
                    same = s.cls == lead.cls and (v.size, v.length) == (u_size, u_len)
                    if same and v.top > top:
                        return True
            return False

        got = failed_throw(lead, others, o)
        if len(lead.units) == 1:
            assert got is None
            return
        failing = [u for u in lead.units if beatable(u.size, u.length, u.top)]
        if not failing:
            assert got is None
        else:
            assert got == min(failing, key=lambda u: (len(u.cards), u.top, u.size, u.cards))

    @SLOW
    @given(situations(), st.integers(0, 2**32))
    def test_B_trick_winner_in_range_and_matches_the_lead_structure(
        self, sit: tuple[Order, Shape, list[int], int], seed: int
    ) -> None:
        o, lead, _, _ = sit
        rng = random.Random(seed)
        n = lead.count
        plays: list[list[int]] = [list(lead.cards)]
        for _ in range(3):
            pool = [c for c in deck(3) if rng.random() < 0.25]
            if len(pool) < n:
                pool = deck(3)
            h = counts(rng.sample(pool, min(len(pool), n + 6)))
            plays.append(list(random_follow(lead, h, o, rng)))
        w = trick_winner(lead, plays, o)
        assert 0 <= w < len(plays)
        ws = decompose(plays[w], o)
        assert ws.structure == lead.structure
        assert ws.cls in (lead.cls, TRUMP)
        for i, p in enumerate(plays):
            s = decompose(p, o)
            if i == w or s.structure != lead.structure or s.cls < 0:
                continue
            if s.cls == ws.cls:  # nobody of the winner's class is higher, nor equal earlier
                assert s.units[0].top < ws.units[0].top or (
                    s.units[0].top == ws.units[0].top and i > w
                )
            if ws.cls == lead.cls and lead.cls != TRUMP:
                assert s.cls != TRUMP  # a matching trump play would have won


# --------------------------------------------------------------------------- whole hands


@pytest.mark.parametrize("decks", [1, 2, 3])
def test_B_random_hands_play_out_legally(decks: int) -> None:
    """Deal, lead, judge throws, follow and win tricks until the hands are empty."""
    rng = random.Random(decks)
    o = order("7", "D")
    for _ in range(5):
        pack = deck(decks)
        rng.shuffle(pack)
        per = (len(pack) - (6 if decks != 2 else 8)) // 4
        hands = [counts(pack[i * per : (i + 1) * per]) for i in range(4)]
        seat = 0
        for _trick in range(per):
            h = hands[seat]
            lead_cards = random_lead(h, o, rng, throw_chance=0.3)
            assert lead_error(lead_cards, h, o) is None
            lead = decompose(lead_cards, o)
            fail = failed_throw(lead, [hands[(seat + k) % 4] for k in (1, 2, 3)], o)
            if fail is not None:
                lead_cards = fail.cards
                lead = decompose(lead_cards, o)
                assert len(lead.units) == 1
            plays = [tuple(lead_cards)]
            for c in lead_cards:
                h[c] -= 1
            for k in (1, 2, 3):
                fh = hands[(seat + k) % 4]
                p = random_follow(lead, fh, o, rng)
                assert follow_error(lead, p, fh, o) is None
                for c in p:
                    fh[c] -= 1
                plays.append(p)
            w = trick_winner(lead, plays, o)
            seat = (seat + w) % 4
            if sum(hands[seat]) == 0:
                break
        assert all(sum(x) == 0 for x in hands)
