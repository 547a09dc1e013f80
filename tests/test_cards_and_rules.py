"""docs/rules.md A1 (notation, deck, points), A2 (card order) and rule sets ([I-n] options).

Each test is named after the clause it checks.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections import Counter

import pytest

from gunzi.engine import actions as A
from gunzi.engine import gunzi_tricks as GT
from gunzi.engine.cards import (
    BJ,
    LJ,
    NUM_TYPES,
    POINTS,
    RANKS,
    SUITS,
    chinese,
    counts,
    deck,
    name,
    parse,
    parse_many,
    points_of,
    unicode,
)
from gunzi.engine.errors import IllegalActionError, InvalidRulesError, MalformedActionError
from gunzi.engine.match import Match, Phase
from gunzi.engine.order import TRUMP, order_for
from gunzi.engine.rules import OPTIONS, PRESETS, Ruleset, make, preset, with_overrides

LEVEL_3 = RANKS.index("3")
LEVEL_5 = RANKS.index("5")
LEVEL_10 = RANKS.index("10")
S, H, C, D = range(4)


def card(text: str) -> int:
    return parse(text)


# --------------------------------------------------------------------------- A1 notation


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10H", "10H"),
        ("TH", "10H"),
        ("th", "10H"),
        ("10h", "10H"),
        ("Td", "10D"),
        ("AS", "AS"),
        ("as", "AS"),
        ("Qd", "QD"),
        ("2c", "2C"),
        ("3D", "3D"),
        ("BJ", "BJ"),
        ("bj", "BJ"),
        ("bJ", "BJ"),
        ("LJ", "LJ"),
        ("lj", "LJ"),
        (" 10H ", "10H"),
    ],
)
def test_A1_record_notation_parses_case_insensitively_with_T_for_10(text, expected):
    assert name(parse(text)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10♥", "10H"),
        ("T♥", "10H"),
        ("A♠", "AS"),
        ("K♣", "KC"),
        ("3♦", "3D"),
        ("红桃10", "10H"),
        ("黑桃A", "AS"),
        ("梅花K", "KC"),
        ("方块3", "3D"),
        ("大王", "BJ"),
        ("小王", "LJ"),
    ],
)
def test_A1_unicode_and_chinese_forms_parse(text, expected):
    assert name(parse(text)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("j♥", "JH"),
        ("a♠", "AS"),
        ("q♣", "QC"),
        ("k♦", "KD"),
        ("t♥", "10H"),
        ("红桃j", "JH"),
        ("黑桃a", "AS"),
        ("方块q", "QD"),
        ("10♥\ufe0f", "10H"),  # emoji presentation, as phones send it
        ("a♠\ufe0f", "AS"),
        ("K♣\ufe0e", "KC"),  # text presentation selector
        (" j♥\ufe0f ", "JH"),
    ],
)
def test_A1_unicode_and_chinese_forms_accept_lowercase_and_variation_selectors(text, expected):
    assert name(parse(text)) == expected


def test_A1_variation_selector_alone_is_not_a_card():
    for text in ("\ufe0f", "♥\ufe0f", "10\ufe0f"):
        with pytest.raises(MalformedActionError):
            parse(text)


def test_A1_malformed_card_message_names_every_accepted_form():
    with pytest.raises(MalformedActionError) as err:
        parse("ZZ")
    message = str(err.value)
    for form in ("10H", "T for 10", "BJ/LJ", "10♥", "红桃10", "大王/小王"):
        assert form in message, form


def test_A1_formats_record_unicode_and_chinese():
    assert [name(parse(t)) for t in ("TH", "AS", "BJ", "LJ")] == ["10H", "AS", "BJ", "LJ"]
    assert unicode(parse("10H")) == "10♥"
    assert unicode(parse("AS")) == "A♠"
    assert unicode(parse("KC")) == "K♣"
    assert unicode(parse("3D")) == "3♦"
    assert unicode(BJ) == "BJ" and unicode(LJ) == "LJ"
    assert chinese(parse("10H")) == "红桃10"
    assert chinese(parse("AS")) == "黑桃A"
    assert chinese(BJ) == "大王" and chinese(LJ) == "小王"


def test_A1_every_card_round_trips_through_all_three_forms():
    for c in range(NUM_TYPES):
        assert parse(name(c)) == c
        assert parse(unicode(c)) == c
        assert parse(chinese(c)) == c
    assert len({name(c) for c in range(NUM_TYPES)}) == NUM_TYPES


def test_A1_card_identity_is_rank_and_suit():
    # 54 distinct card types: 13 ranks x 4 suits + two jokers; "10H" is rank 10 of hearts.
    assert NUM_TYPES == 54
    assert parse("10H") != parse("10S")
    assert parse("10H") == parse("TH") == parse("10♥") == parse("红桃10")
    assert BJ != LJ


def test_A1_parse_many_accepts_spaces_and_commas():
    assert parse_many("BJ, 3H 3H,10s") == [BJ, card("3H"), card("3H"), card("10S")]
    assert parse_many(["LJ", "T♠"]) == [LJ, card("10S")]
    assert parse_many("") == []


@pytest.mark.parametrize(
    "text",
    ["1H", "11H", "10X", "XH", "", "   ", "BJJ", "J", "H10", "10HH", "0H", "大", "红桃1", "10 H",
     "JOKER", "1OH"],
)
def test_A1_malformed_card_text_raises_naming_the_text(text):
    with pytest.raises(MalformedActionError) as err:
        parse(text)
    assert repr(text) in str(err.value)


@pytest.mark.parametrize("value", [5, None, b"AS", ["AS"]])
def test_A1_non_text_card_raises_malformed(value):
    with pytest.raises(MalformedActionError):
        parse(value)


def test_A1_malformed_card_in_a_list_names_that_card():
    with pytest.raises(MalformedActionError) as err:
        parse_many("AS 3H ZZ 4D")
    assert "'ZZ'" in str(err.value)


def test_A1_malformed_card_in_a_record_action_names_the_text():
    with pytest.raises(MalformedActionError) as err:
        A.from_dict({"type": "play", "seat": 0, "cards": ["AS", "11Q"]})
    assert "'11Q'" in str(err.value)
    with pytest.raises(MalformedActionError) as err:
        A.from_dict({"type": "bury_jokers", "seat": 1, "cards": ["BJ"], "take": ["6Z"]})
    assert "'6Z'" in str(err.value)


def test_A1_record_form_of_an_action_uses_the_notation():
    action = A.play(2, parse_many("10H 10H"))
    data = action.to_dict()
    assert data == {"type": "play", "seat": 2, "cards": ["10H", "10H"]}
    assert A.from_dict({"type": "play", "seat": 2, "cards": ["TH", "10♥"]}) == action
    for key in ("cards", "take"):  # a string is refused, naming the field (issue 14)
        with pytest.raises(MalformedActionError, match=f"'{key}' must be a list"):
            A.from_dict({"type": "bury_jokers", "seat": 2, "cards": ["BJ"], key: "AS"})


# --------------------------------------------------------------------------- A1 deck, points


def test_A1_three_decks_hold_162_cards_and_300_points():
    cards = deck(3)
    assert len(cards) == 162
    assert all(k == 3 for k in counts(cards))
    assert points_of(cards) == 300


@pytest.mark.parametrize(("decks", "points"), [(1, 100), (2, 200), (3, 300)])
def test_A1_B_points_per_deck_count(decks, points):
    assert len(deck(decks)) == 54 * decks
    assert points_of(deck(decks)) == points


def test_A1_point_cards_are_5_10_K():
    for c in range(52):
        rank = RANKS[c % 13]
        assert POINTS[c] == {"5": 5, "10": 10, "K": 10}.get(rank, 0), name(c)
    assert POINTS[BJ] == POINTS[LJ] == 0


def test_A1_gunzi_ruleset_sizes_four_players_39_each_6_in_kitty():
    r = preset("gunzi")
    assert (r.decks, r.hand_size, r.kitty_size, r.total_points) == (3, 39, 6, 300)
    assert 4 * r.hand_size + r.kitty_size == len(deck(r.decks))


def test_A1_levels_run_3_to_10_and_2_is_never_a_level():
    r = preset("gunzi")
    assert RANKS[r.first_level] == "3"
    assert RANKS[r.last_level] == "10"
    assert RANKS.index("2") < r.first_level


@pytest.mark.parametrize(
    ("name_", "sizes"),
    [
        ("classic-1", (1, 12, 6, 100)),
        ("classic-2", (2, 25, 8, 200)),
        ("classic-3", (3, 39, 6, 300)),
    ],
)
def test_B_classic_deck_sizes_and_points(name_, sizes):
    r = preset(name_)
    assert (r.decks, r.hand_size, r.kitty_size, r.total_points) == sizes
    assert 4 * r.hand_size + r.kitty_size == 54 * r.decks
    assert RANKS[r.first_level] == "2" and RANKS[r.last_level] == "A"


def test_A1_a_deal_gives_39_cards_to_each_seat_and_6_to_the_kitty():
    m = Match(preset("gunzi"), random.Random(7), auto_deal=False, levels=(1, 1), dealer=0)
    shuffled = deck(3)
    random.Random(3).shuffle(shuffled)
    m.apply(A.deal(123, shuffled))
    # Pass every declaration ask until the draw is over; the dealer then holds 39 + 6.
    while m.phase is Phase.DRAW:
        m.apply(A.pass_(m.to_act))
    draws = [e for e in m.events if e.type == "draw"]
    assert len(draws) == 156
    # Nobody declared, so the kitty is not shown (no dry pot): the dealer takes it.
    assert m.phase is Phase.BURY
    assert [m.hand_size(s) for s in range(4)] == [45, 39, 39, 39]
    assert Counter(c for s in range(4) for c in range(NUM_TYPES)
                   for _ in range(m.hands[s][c])) == Counter(deck(3))


def test_A1_deal_with_a_wrong_deck_is_rejected():
    m = Match(preset("gunzi"), random.Random(7), auto_deal=False, levels=(1, 1), dealer=0)
    short = deck(3)[:-1]
    with pytest.raises(IllegalActionError) as err:
        m.apply(A.deal(1, short))
    assert err.value.rule == "A1"
    assert m.phase is Phase.DEAL and m.events == []


# --------------------------------------------------------------------------- A2 order


def test_A2_trump_order_bj_lj_trump_level_other_levels_trump_2_other_2s_trump_suit():
    o = order_for(LEVEL_3, H, True)
    tiers = [
        ["BJ"], ["LJ"], ["3H"], ["3S", "3C", "3D"], ["2H"], ["2S", "2C", "2D"],
        ["AH"], ["KH"], ["QH"], ["JH"], ["10H"], ["9H"], ["8H"], ["7H"], ["6H"], ["5H"], ["4H"],
    ]
    powers = []
    for tier in tiers:
        ps = {o.power[card(t)] for t in tier}
        assert len(ps) == 1, f"{tier} should be equal to each other"
        powers.append(ps.pop())
        for t in tier:
            assert o.is_trump(card(t)), t
    assert powers == sorted(powers, reverse=True)
    assert len(set(powers)) == len(powers), "each tier strictly beats the next"
    # The trump class holds exactly these cards.
    assert sorted(o.class_cards[TRUMP]) == sorted(card(t) for tier in tiers for t in tier)


def test_A2_side_suits_skip_their_2_and_level_card():
    o = order_for(LEVEL_3, H, True)
    for suit in (S, C, D):
        side = [name(c) for c in o.class_cards[suit]]
        assert side == [r + SUITS[suit] for r in ("4", "5", "6", "7", "8", "9", "10", "J", "Q",
                                                   "K", "A")]
        for c in o.class_cards[suit]:
            assert o.cls[c] == suit and not o.is_trump(c)
        assert o.cls[card("2" + SUITS[suit])] == TRUMP
        assert o.cls[card("3" + SUITS[suit])] == TRUMP
    assert o.class_cards[H] == ()  # the trump suit has no side cards


def test_A2_trump_suit_runs_A_to_3_skipping_level_and_2_at_level_5():
    o = order_for(LEVEL_5, D, True)
    plain = [name(c) for c in o.class_cards[TRUMP] if c < LJ and c // 13 == D
             and c % 13 not in (LEVEL_5, 0)]
    assert plain == ["3D", "4D", "6D", "7D", "8D", "9D", "10D", "JD", "QD", "KD", "AD"]
    assert o.power[card("5D")] > o.power[card("5S")] == o.power[card("5C")] > o.power[card("2D")]
    assert o.power[card("2D")] > o.power[card("2H")] > o.power[card("AD")]


def test_A2_level_10_order():
    o = order_for(LEVEL_10, S, True)
    assert o.power[BJ] > o.power[LJ] > o.power[card("10S")] > o.power[card("10H")]
    assert o.power[card("10H")] == o.power[card("10C")] == o.power[card("10D")]
    assert o.power[card("10D")] > o.power[card("2S")] > o.power[card("2C")] > o.power[card("AS")]
    assert [name(c) for c in o.class_cards[H]] == [
        "3H", "4H", "5H", "6H", "7H", "8H", "9H", "JH", "QH", "KH", "AH"]


def test_A2_cards_of_different_side_suits_never_beat_each_other():
    o = order_for(LEVEL_3, H, True)
    # 4S led: AC and AD are off-suit side cards and never win; 5S does.
    plays = [[card("4S")], [card("AC")], [card("5S")], [card("AD")]]
    assert GT.trick_winner(plays, o) == 2
    plays = [[card("4S")], [card("AC")], [card("KD")], [card("QC")]]
    assert GT.trick_winner(plays, o) == 0
    # A trump (even the smallest) beats a side lead.
    assert GT.trick_winner([[card("AS")], [card("4H")]], o) == 1


def test_A2_equal_cards_tie_and_the_earlier_play_wins():
    o = order_for(LEVEL_3, H, True)
    assert GT.trick_winner([[card("3S")], [card("3C")], [card("3D")], [card("2S")]], o) == 0
    assert GT.trick_winner([[card("2S")], [card("2C")], [card("3D")], [card("2D")]], o) == 2


def test_A2_identical_means_same_rank_and_suit_equal_cards_are_not_a_pair():
    o = order_for(LEVEL_3, H, True)
    assert o.power[card("3S")] == o.power[card("3C")]
    assert card("3S") != card("3C")
    hand = counts(parse_many("3S 3C 3S"))
    assert GT.lead_error(parse_many("3S 3C"), hand) is not None
    assert GT.lead_error(parse_many("3S 3S"), hand) is None
    assert GT.lead_error([BJ, BJ], counts([BJ, BJ])) is None
    assert GT.lead_error([BJ, LJ], counts([BJ, LJ])) is not None
    # A "pair" of equal-but-not-identical cards never forms the shape, so it never wins.
    plays = [parse_many("4H 4H"), parse_many("3S 3C"), parse_many("5H 6H"), parse_many("7S 8S")]
    assert GT.trick_winner(plays, o) == 0


def test_A2_no_trump_suit_yet_level_cards_and_2s_are_all_equal():
    o = order_for(LEVEL_3, -1, True)
    assert len({o.power[card("3" + s)] for s in SUITS}) == 1
    assert len({o.power[card("2" + s)] for s in SUITS}) == 1
    assert o.power[card("3S")] > o.power[card("2S")]


def test_A2_regional_option_without_permanent_twos_makes_2_a_side_card():
    o = order_for(LEVEL_3, H, False)
    assert o.cls[card("2S")] == S
    assert o.class_cards[S][0] == card("2S")  # the lowest spade
    assert o.cls[card("2H")] == TRUMP  # a trump-suit card, the lowest of them
    assert o.power[card("2H")] < o.power[card("4H")]
    assert o.power[card("3S")] > o.power[card("AH")]


def test_A2_gunzi_match_order_uses_the_ruleset_twos_option():
    # The order a match uses follows the permanent_twos option.
    for twos in (True, False):
        m = Match(preset("gunzi", permanent_twos=twos), random.Random(1), levels=(1, 1), dealer=0)
        assert m.order.permanent_twos is twos
        assert m.order.is_trump(card("2S")) is twos


# --------------------------------------------------------------------------- rule sets

I_OPTIONS = {
    # [I-n]: (option, docs/rules.md default, another valid value or None)
    1: ("attackers_pass_ten", False, True),
    2: ("declare_asks", "every-draw", "end-only"),
    3: ("bj_suit_fallback", "kitty-turn", "redeal"),
    4: ("flip_all_jokers", "redeal", "turn-more"),
    5: ("first_hand_tribute", False, True),
    6: ("return_fill", "non-point-first", "any"),
    7: ("dry_pot", "no-trump-suit", "no-trump"),
    8: ("keep_deal", "same-player", "partner"),
    9: ("three_bj_dealer_wins", True, False),
    10: ("blood_tens", "ceil", "floor"),
    11: ("low_score_kitty_blood", "if-held", "always"),
    12: ("joker_declarations", True, False),
    16: ("score_levels_before_cap", True, False),
    17: ("takeover_dealer", "next-seat", None),
    18: ("joker_bury_order", "after-dealer", "before-dealer"),
    19: ("round_end_score", "with-kitty", "tricks-only"),
}


def test_presets_exist_and_are_valid_rulesets():
    assert set(PRESETS) >= {"gunzi", "classic-1", "classic-2", "classic-3"}
    g = preset("gunzi")
    assert g.is_gunzi and g.name == "gunzi" and g.decks == 3
    assert g.kitty_multiplier == "two"
    for n, mult in (("classic-1", "doubling"), ("classic-2", "doubling"), ("classic-3", "linear")):
        r = preset(n)
        assert not r.is_gunzi
        assert r.permanent_twos is False
        assert r.kitty_multiplier == mult
        assert r.name == n


@pytest.mark.parametrize("n", sorted(I_OPTIONS))
def test_I_every_interpretation_is_a_named_option_with_the_rules_md_default(n):
    option, default, other = I_OPTIONS[n]
    assert option in OPTIONS
    assert f"[I-{n}]" in OPTIONS[option].clause
    assert getattr(preset("gunzi"), option) == default
    assert getattr(Ruleset(), option) == default
    assert default in OPTIONS[option].values
    if other is not None:
        assert other in OPTIONS[option].values
        assert getattr(preset("gunzi", **{option: other}), option) == other


def test_I_options_of_every_game_cover_I1_to_I19():
    """Each of docs/rules.md [I-1]..[I-31] is the clause of some option (cards, 步步为营,
    ladder): the seed readings are [I-1]..[I-22], issue 16 adds [I-23]..[I-31]."""
    from gunzi.ladder.titles import OPTIONS as L_OPTIONS
    from gunzi.quoridor.rules import OPTIONS as Q_OPTIONS

    clauses = " ".join(
        o.clause for o in (*OPTIONS.values(), *Q_OPTIONS.values(), *L_OPTIONS.values())
    )
    marked = {int(n) for n in re.findall(r"\[I-(\d+)\]", clauses)}
    assert marked == set(range(1, 32))
    # 13: ladder, 14 and 15: 步步为营; 20..31: classic 升级 (tests/test_classic_variants.py)
    assert set(I_OPTIONS) == marked - {13, 14, 15} - set(range(20, 32))


def test_I12_classic_presets_exclude_joker_declarations():
    for n in ("classic-1", "classic-2", "classic-3"):
        assert preset(n).joker_declarations is False


def test_I_quoridor_interpretations_are_named_options():
    from gunzi.quoridor.rules import OPTIONS as Q_OPTIONS

    clauses = " ".join(o.clause for o in Q_OPTIONS.values())
    assert "[I-14]" in clauses and "[I-15]" in clauses
    assert Q_OPTIONS["board_size"].values[0] == 9
    assert Q_OPTIONS["jumps"].values[0] is False


def test_I13_title_table_interpretation_is_a_named_option():
    from gunzi.ladder.titles import OPTIONS as L_OPTIONS
    from gunzi.ladder.titles import LadderRules, title_for, titles
    from gunzi.quoridor.rules import OPTIONS as Q_OPTIONS

    clauses = " ".join(
        o.clause for o in (*OPTIONS.values(), *Q_OPTIONS.values(), *L_OPTIONS.values())
    )
    assert "[I-13]" in clauses
    assert titles()[-1] == ("诺贝尔", 28800)
    assert [t for _, t in titles()][:5] == [0, 50, 200, 450, 800]
    assert len(titles()) == 25
    assert title_for(28799) == "院士" and title_for(28800) == "诺贝尔"
    assert title_for(-40) == "幼小班" and title_for(1249) == "一年级"
    assert titles(LadderRules(nobel_threshold=30000))[-1] == ("诺贝尔", 30000)


@pytest.mark.parametrize(
    ("option", "values", "default"),
    [
        ("permanent_twos", (True, False), True),
        ("follow", ("dead", "live"), "dead"),
        ("tribute_rule", ("one", "two"), "one"),
        ("keep_deal", ("same-player", "partner"), "same-player"),
    ],
)
def test_regional_options_exist_with_defaults(option, values, default):
    assert set(OPTIONS[option].values) == set(values)
    assert getattr(preset("gunzi"), option) == default
    for v in values:
        assert getattr(preset("gunzi", **{option: v}), option) == v
        assert getattr(make("t", **{option: v}), option) == v


def test_unknown_option_is_rejected_listing_the_valid_ones():
    for build in (lambda: make(colour="red"), lambda: preset("gunzi", colour="red")):
        with pytest.raises(InvalidRulesError) as err:
            build()
        text = str(err.value)
        assert "colour" in text
        for option in ("follow", "dry_pot", "declare_asks", "joker_bury_order"):
            assert option in text


@pytest.mark.parametrize(
    ("option", "bad"),
    [("follow", "zombie"), ("dry_pot", "wet"), ("tribute_rule", "three"), ("keep_deal", "dealer"),
     ("declare_asks", "never"), ("permanent_twos", "yes"), ("permanent_twos", 1),
     ("rounds", 7), ("rounds", True), ("decks", 4)],
)
def test_unknown_option_value_is_rejected_listing_the_valid_values(option, bad):
    with pytest.raises(InvalidRulesError) as err:
        preset("gunzi", **{option: bad})
    text = str(err.value)
    assert option in text
    assert repr(bad) in text
    for v in OPTIONS[option].values:
        assert repr(v) in text


def test_unknown_preset_is_rejected_listing_the_presets():
    with pytest.raises(InvalidRulesError) as err:
        preset("gunzi-4")
    for n in ("gunzi", "classic-1", "classic-2", "classic-3"):
        assert n in str(err.value)


def test_command_line_overrides_are_validated():
    r = with_overrides(preset("gunzi"), ["follow=live", "dry_pot=no-trump", "permanent_twos=false"])
    assert (r.follow, r.dry_pot, r.permanent_twos) == ("live", "no-trump", False)
    with pytest.raises(InvalidRulesError) as err:
        with_overrides(preset("gunzi"), ["follow=zombie"])
    assert "dead" in str(err.value) and "live" in str(err.value)
    with pytest.raises(InvalidRulesError) as err:
        with_overrides(preset("gunzi"), ["colour=red"])
    assert "follow" in str(err.value)
    with pytest.raises(InvalidRulesError):
        with_overrides(preset("gunzi"), ["follow"])


def test_inconsistent_game_options_are_rejected():
    with pytest.raises(InvalidRulesError):
        preset("gunzi", decks=2)
    with pytest.raises(InvalidRulesError):
        preset("gunzi", kitty_multiplier="linear")
    with pytest.raises(InvalidRulesError):
        preset("classic-2", permanent_twos=True)
    with pytest.raises(InvalidRulesError):
        preset("classic-2", kitty_multiplier="two")
    with pytest.raises(InvalidRulesError):
        preset("classic-1", follow="live")


def test_ruleset_is_frozen_and_a_value():
    r = preset("gunzi")
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.follow = "live"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.hand_size = 10  # type: ignore[misc]
    assert r.follow == "dead" and r.hand_size == 39
    assert preset("gunzi") == r and hash(preset("gunzi")) == hash(r)
    changed = r.replace(follow="live")
    assert changed.follow == "live" and r.follow == "dead"
    assert changed != r
    assert r.options()["follow"] == "dead"
    r.options()["follow"] = "live"  # a copy: the rule set is unchanged
    assert r.follow == "dead"


def test_classic_refuses_options_of_part_a_clauses_it_does_not_have() -> None:
    from gunzi.engine.rules import GUNZI_ONLY, OPTIONS

    gunzi = preset("gunzi")
    for key in GUNZI_ONLY:
        assert getattr(gunzi, key) == OPTIONS[key].values[0]  # the default is listed first
        other = OPTIONS[key].values[1]
        assert getattr(preset("gunzi", **{key: other}), key) == other
        for classic in ("classic-1", "classic-2", "classic-3"):
            with pytest.raises(InvalidRulesError, match=f"{key}: 打滚子 rules"):
                preset(classic, **{key: other})
    # Options classic does use stay free.
    assert preset("classic-2", keep_deal="partner").keep_deal == "partner"
    assert preset("classic-2", declare_asks="end-only").declare_asks == "end-only"


@pytest.mark.parametrize(("name", "options"), [
    ("gunzi", {}), ("gunzi", {"follow": "live"}), ("classic-1", {}), ("classic-3", {}),
])
def test_a_ruleset_pickles_by_its_constructor(name: str, options: dict[str, object]) -> None:
    """Spawned workers (arena, simulate) receive rule sets by pickle; the compiled build
    cannot set a frozen field after construction, so a rule set pickles as its fields."""
    import pickle

    rules = preset(name, **options)
    again = pickle.loads(pickle.dumps(rules))
    assert again == rules and again.hand_size == rules.hand_size
    assert type(rules).__reduce__(rules)[0].__name__ == "_rebuild"
