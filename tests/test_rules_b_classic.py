"""docs/rules.md Part B (classic 升级, 1–3 decks) and Part C game points, at the match level.

Trick mechanics of classic play have their own unit tests (test_classic_tricks.py);
here whole deals run through :class:`Match`: sizes, levels, trumps, declaring,
the first-hand dealer, the kitty, the level table, kitty multipliers, failed
throws and the end of a game. Hand results are compared with an independent
reading of the rules written in this file.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from gunzi.engine import actions as A
from gunzi.engine import scoring
from gunzi.engine.actions import Action, Kind
from gunzi.engine.cards import BJ, LJ, NUM_TYPES, POINTS, counts, deck, parse_many
from gunzi.engine.errors import IllegalActionError
from gunzi.engine.events import thaw
from gunzi.engine.match import Match, Phase
from gunzi.engine.order import TRUMP, order_for
from gunzi.engine.rules import Ruleset, preset
from gunzi.engine.stacking import stacked_deck
from helpers import passer

S, H, C, D = 0, 1, 2, 3
PRESETS = ["classic-1", "classic-2", "classic-3"]
SIZES = {"classic-1": (1, 12, 6, 100), "classic-2": (2, 25, 8, 200), "classic-3": (3, 39, 6, 300)}
L2, L5, LA = 0, 3, 12  # level rank indices: 2, 5, A
Policy = Callable[[Match, int], Action]


def cs(text: str) -> list[int]:
    return parse_many(text)


def pts(cards: list[int]) -> int:
    return sum(POINTS[c] for c in cards)


def full_hands(
    rules: Ruleset, want: dict[int, str], kitty: str,
    avoid: dict[int, Callable[[int], bool]] | None = None, seed: int = 4,
) -> list[list[int]]:
    """Every seat's whole hand: its wanted cards, then filler it does not ``avoid``."""
    pool = counts(deck(rules.decks))
    for text in [*want.values(), kitty]:
        for c in cs(text):
            pool[c] -= 1
            assert pool[c] >= 0, text
    rest = [c for c in range(NUM_TYPES) for _ in range(pool[c])]
    random.Random(seed).shuffle(rest)
    avoid = avoid or {}
    hands = {s: cs(want.get(s, "")) for s in range(4)}
    for s in sorted(range(4), key=lambda x: x not in avoid):
        bad = avoid.get(s, lambda c: False)
        keep = []
        for c in rest:
            if len(hands[s]) < rules.hand_size and not bad(c):
                hands[s].append(c)
            else:
                keep.append(c)
        rest = keep
        assert len(hands[s]) == rules.hand_size, f"cannot fill seat {s}"
    return [hands[s] for s in range(4)]


def policy_of(bury: list[int] | None = None, declare: dict[int, str] | None = None,
              seed: int = 0) -> Policy:
    """Declare the planned cards when first able (else pass), bury ``bury`` (else at random),
    play at random."""
    rng = random.Random(seed)
    plan = {s: cs(t) for s, t in (declare or {}).items()}

    def policy(m: Match, seat: int) -> Action:
        if m.phase is Phase.DRAW:
            want = plan.get(seat)
            if want is not None:
                act = A.declare(seat, want)
                if act in m.legal_actions(seat):
                    del plan[seat]
                    return act
            return A.pass_(seat)
        if m.phase is Phase.BURY and bury is not None:
            return A.bury(seat, bury)
        return m.legal_actions(seat).sample(rng)

    return policy


def later_hand(rules: Ruleset, want: dict[int, str], kitty: str, *, level: int = L5,
               dealer: int = 0, avoid: dict[int, Callable[[int], bool]] | None = None,
               levels: tuple[int, int] | None = None) -> Match:
    """A later hand dealt from ``dealer`` at ``level``, stopped at the start of play; the
    dealer buries back the kitty it took, so every hand is as stacked."""
    m = Match(rules, random.Random(0), auto_deal=False, levels=levels or (level, level),
              dealer=dealer)
    hands = full_hands(rules, want, kitty, avoid)
    m.apply(A.deal(1, stacked_deck(rules, dealer, hands, cs(kitty))))
    pol = policy_of(bury=cs(kitty))
    while m.phase is not Phase.PLAY:
        m.apply(pol(m, m.to_act))
    for s in range(4):
        assert m.hands[s] == counts(hands[s])
    return m


def first_hand(rules: Ruleset, draws: dict[int, str], kitty: str | None = None,
               first_seat: int = 0, seed: int = 2) -> Match:
    m = Match(rules, random.Random(0), auto_deal=False)
    hands: list[list[int] | None] = [cs(draws[s]) if s in draws else None for s in range(4)]
    deck_ = stacked_deck(rules, first_seat, hands, cs(kitty) if kitty else None,
                         random.Random(seed))
    m.apply(A.deal(seed, deck_, first_seat))
    return m


# ============================================================================================
# Sizes, starting level, trumps


class TestSizes:
    @pytest.mark.parametrize("name", PRESETS)
    def test_B_hand_and_kitty_sizes(self, name: str) -> None:
        decks, hand, kitty, total = SIZES[name]
        rules = preset(name)
        assert (rules.decks, rules.hand_size, rules.kitty_size, rules.total_points) == (
            decks, hand, kitty, total)
        assert pts(deck(decks)) == total
        m = Match(rules, random.Random(1), auto_deal=False)
        m.apply(A.deal(11))
        while m.phase is Phase.DRAW:
            m.apply(passer(m, m.to_act))
        assert m.phase is Phase.BURY
        dealer = m.dealer
        assert dealer is not None and m.to_act == dealer
        for s in range(4):
            assert m.hand_size(s) == hand + (kitty if s == dealer else 0)
        assert m.kitty == []
        # the dealer buries exactly the kitty size
        held = [c for c in range(NUM_TYPES) for _ in range(m.hands[dealer][c])]
        for wrong in (kitty - 1, kitty + 1):
            with pytest.raises(IllegalActionError):
                m.apply(A.bury(dealer, held[:wrong]))
        m.apply(A.bury(dealer, held[:kitty]))
        assert len(m.kitty) == kitty and sorted(m.kitty) == sorted(held[:kitty])
        assert m.phase is Phase.PLAY and m.to_act == dealer  # the dealer leads
        assert all(m.hand_size(s) == hand for s in range(4))

    @pytest.mark.parametrize("name", PRESETS)
    def test_B_teams_start_at_level_2(self, name: str) -> None:
        m = Match(preset(name), random.Random(1))
        assert m.levels == [L2, L2] and m.level == L2 and m.first
        assert preset(name).last_level == LA

    @pytest.mark.parametrize("name", PRESETS)
    def test_B_no_tribute_in_classic(self, name: str) -> None:
        m = Match(preset(name), random.Random(1), auto_deal=False, levels=(L5, L5), dealer=0,
                  blood=5)
        m.apply(A.deal(3))
        while m.phase is Phase.DRAW:
            m.apply(passer(m, m.to_act))
        assert m.phase is Phase.BURY and m.tribute_cards == ()


class TestDefaults:
    @pytest.mark.parametrize(("name", "mode"), [("classic-1", "doubling"),
                                                ("classic-2", "doubling"),
                                                ("classic-3", "linear")])
    def test_B_kitty_multiplier_defaults(self, name: str, mode: str) -> None:
        assert preset(name).kitty_multiplier == mode

    @pytest.mark.parametrize("name", PRESETS)
    def test_B_I12_jokers_excluded_by_default(self, name: str) -> None:
        assert preset(name).joker_declarations is False
        assert preset(name).permanent_twos is False

    @pytest.mark.parametrize("dealer", [0, 1])
    def test_B_hand_played_at_dealer_teams_level(self, dealer: int) -> None:
        m = Match(preset("classic-2"), random.Random(0), auto_deal=False, levels=(L5, 9),
                  dealer=dealer)
        m.apply(A.deal(3))
        assert m.level == (L5, 9)[dealer]


class TestTrumps:
    def test_B_level_cards_and_jokers_are_trumps_2_is_ordinary(self) -> None:
        rules = preset("classic-1")
        m = later_hand(rules, {}, "3H 4H 6H 7H 8H 9H")
        assert m.trump == H and m.level == L5
        for text in ("BJ", "LJ", "5S", "5C", "5D", "5H", "2H", "AH", "3H"):
            assert m.order.cls[cs(text)[0]] == TRUMP, text
        for text, suit in (("2S", S), ("2C", C), ("2D", D), ("AS", S), ("3D", D)):
            assert m.order.cls[cs(text)[0]] == suit, text
        # 2 is the lowest card of its suit
        assert m.order.power[cs("2S")[0]] < m.order.power[cs("3S")[0]]

    def test_B_two_is_trump_when_it_is_the_level(self) -> None:
        rules = preset("classic-1")
        m = later_hand(rules, {}, "3H 4H 6H 7H 8H 9H", level=L2)
        for text in ("2S", "2C", "2D", "2H"):
            assert m.order.cls[cs(text)[0]] == TRUMP
        assert m.order.cls[cs("5S")[0]] == S

    def test_B_two_follows_its_side_suit_at_the_table(self) -> None:
        rules = preset("classic-1")
        spade = lambda c: c < 52 and c // 13 == S  # noqa: E731
        m = later_hand(rules, {0: "AS", 1: "2S"}, "3H 4H 6H 7H 8H 9H", avoid={1: spade})
        m.apply(A.play(0, cs("AS")))
        other = next(c for c in range(NUM_TYPES) if m.hands[1][c] and c != cs("2S")[0])
        with pytest.raises(IllegalActionError):
            m.apply(A.play(1, [other]))
        m.apply(A.play(1, cs("2S")))

    def test_B_off_suit_level_card_follows_trumps_at_the_table(self) -> None:
        rules = preset("classic-1")
        trump = lambda c: order_for(L5, H, False).cls[c] == TRUMP  # noqa: E731
        m = later_hand(rules, {0: "AH", 1: "5C"}, "3H 4H 6H 7H 8H 9H", avoid={1: trump})
        m.apply(A.play(0, cs("AH")))
        other = next(c for c in range(NUM_TYPES) if m.hands[1][c] and c != cs("5C")[0])
        with pytest.raises(IllegalActionError):
            m.apply(A.play(1, [other]))
        m.apply(A.play(1, cs("5C")))

    @pytest.mark.parametrize("name", PRESETS)
    def test_B_nobody_declares_later_hand_random_kitty_card(self, name: str) -> None:
        rules = preset(name)
        kitty = " ".join(["3H", "4H", "6H", "7H", "8H", "9H", "10H", "JH"][: rules.kitty_size])
        m = later_hand(rules, {}, kitty)
        assert m.trump == H and m.dealer == 0


# ============================================================================================
# Declaring


def asked_declarations(m: Match, plan: dict[int, str] | None = None,
                       tries_jokers: dict[int, tuple[str, int]] | None = None) -> list[Action]:
    """Run the draw; record every declaration offered; declare the plan when able."""
    offered: list[Action] = []
    plan = dict(plan or {})
    tries = dict(tries_jokers or {})
    while m.phase is Phase.DRAW:
        seat = m.to_act
        legal = [a for a in m.legal_actions(seat) if a.kind is Kind.DECLARE]
        offered += legal
        if seat in tries:
            text, suit = tries.pop(seat)
            with pytest.raises(IllegalActionError) as info:
                m.apply(A.declare(seat, cs(text), suit))
            assert "A4.2" in info.value.rule
        if seat in plan:
            act = A.declare(seat, cs(plan[seat]))
            if act in legal:
                del plan[seat]
                m.apply(act)
                continue
        m.apply(A.pass_(seat))
    return offered


class TestDeclaring:
    @pytest.mark.parametrize("name", PRESETS)
    def test_B_first_declarer_is_dealer(self, name: str) -> None:
        m = first_hand(preset(name), {1: "2H"})
        asked_declarations(m, {1: "2H"})
        assert m.dealer == 1 and m.trump == H

    def test_B_first_declarer_stays_dealer_when_overturned(self) -> None:
        rules = preset("classic-2")
        m = first_hand(rules, {0: "2S", 1: "7C 2H 2H"})
        asked_declarations(m, {0: "2S", 1: "2H 2H"})
        assert m.decl is not None and m.decl[0] == 1
        assert m.trump == H  # the overturn sets the suit
        assert m.dealer == 0  # the first declarer deals
        assert m.to_act == 0 and m.phase is Phase.BURY

    def test_B_overturn_needs_a_stronger_declaration(self) -> None:
        rules = preset("classic-2")
        m = first_hand(rules, {0: "2S 2S", 1: "2H 2H"})
        offered = asked_declarations(m, {0: "2S 2S"})
        # after 2S 2S stands, a pair of 2H is not stronger: never offered to seat 1
        late = [a for a in offered if a.seat == 1 and a.cards == tuple(cs("2H 2H"))]
        assert not late
        assert m.dealer == 0 and m.trump == S

    @pytest.mark.parametrize("name", PRESETS)
    def test_B_I12_declare_with_level_cards_only(self, name: str) -> None:
        rules = preset(name)
        m = first_hand(rules, {0: "LJ BJ 2D" if rules.decks < 3 else "BJ BJ BJ 2D",
                               2: "7S"})
        offered = asked_declarations(
            m, tries_jokers={0: ("BJ BJ BJ", H)} if rules.decks == 3 else None)
        assert offered
        for a in offered:
            assert all(c < LJ and c % 13 == L2 for c in a.cards), a

    def test_B_I12_jokers_never_declare_even_three_big_jokers(self) -> None:
        rules = preset("classic-3")
        assert rules.joker_declarations is False
        m = first_hand(rules, {1: "BJ BJ BJ LJ LJ LJ"})
        offered = asked_declarations(m)
        assert not [a for a in offered if a.seat == 1 and a.cards[0] >= LJ]

    def test_B_I12_option_joker_declarations_allowed(self) -> None:
        rules = preset("classic-3", joker_declarations=True)
        m = first_hand(rules, {1: "BJ BJ BJ"})
        offered: list[Action] = []
        while m.phase is Phase.DRAW:
            seat = m.to_act
            legal = [a for a in m.legal_actions(seat) if a.kind is Kind.DECLARE]
            offered += legal
            act = A.declare(1, cs("BJ BJ BJ"), D)
            if seat == 1 and act in legal and m.decl is None:
                m.apply(act)
            else:
                m.apply(A.pass_(seat))
        assert any(a.seat == 1 and a.cards == (BJ, BJ, BJ) for a in offered)
        assert m.decl is not None and m.decl[0] == 1 and m.decl[1] == (BJ, BJ, BJ)
        assert m.trump == D and m.dealer == 1

    def test_B_nobody_declares_first_hand_kitty_turn_lowest_card(self) -> None:
        # 2 is the level in a first hand; 3 is the lowest card. 3D and 3S tie: first turned.
        rules = preset("classic-1")
        m = first_hand(rules, {}, kitty="AS 3D 4C 3S 9H 9C", first_seat=0)
        asked_declarations(m)
        assert m.decl is None
        assert m.dealer == 1 and m.trump == D
        assert m.kitty_public == cs("AS 3D 4C 3S")

    def test_B_kitty_turn_level_card_is_not_low(self) -> None:
        rules = preset("classic-2")
        m = first_hand(rules, {}, kitty="2C KS QH AD 9H 9C 8D 8S", first_seat=1)
        asked_declarations(m)
        # turned by seats 1, 2, 3, 0: 2C is a level card; QH (seat 3) is the lowest
        assert m.dealer == 3 and m.trump == H

    def test_B_kitty_turn_joker_is_high(self) -> None:
        rules = preset("classic-3")
        m = first_hand(rules, {}, kitty="BJ LJ AD 2S 9H 9C", first_seat=2)
        asked_declarations(m)
        assert m.dealer == 0 and m.trump == D  # AD turned by seat 0 (2 is the level)


# ============================================================================================
# Level table (scoring.classic_outcome)


TABLE = {
    1: [(0, False, 3), (5, False, 2), (15, False, 2), (20, False, 1), (35, False, 1),
        (40, True, 0), (55, True, 0), (60, True, 1), (75, True, 1), (80, True, 2),
        (95, True, 2), (100, True, 3)],
    2: [(0, False, 3), (5, False, 2), (35, False, 2), (40, False, 1), (75, False, 1),
        (80, True, 0), (115, True, 0), (120, True, 1), (155, True, 1), (160, True, 2),
        (195, True, 2), (200, True, 3), (240, True, 4)],
    3: [(0, False, 3), (5, False, 2), (55, False, 2), (60, False, 1), (115, False, 1),
        (120, True, 0), (175, True, 0), (180, True, 1), (235, True, 1), (240, True, 2),
        (295, True, 2), (300, True, 3), (360, True, 4)],
}


def spec_table(score: int, decks: int) -> tuple[bool, int]:
    u = 20 * decks
    if score == 0:
        return False, 3
    if score < u:
        return False, 2
    if score < 2 * u:
        return False, 1
    if score < 3 * u:
        return True, 0
    return True, 1 + (score - 3 * u) // u


class TestLevelTable:
    @pytest.mark.parametrize("decks", [1, 2, 3])
    def test_B_level_table_rows(self, decks: int) -> None:
        for score, take, levels in TABLE[decks]:
            assert scoring.classic_outcome(score, decks) == (take, levels), (decks, score)

    @pytest.mark.parametrize("decks", [1, 2, 3])
    def test_B_level_table_every_score(self, decks: int) -> None:
        for score in range(0, 100 * decks * 3, 5):
            assert scoring.classic_outcome(score, decks) == spec_table(score, decks)


# ============================================================================================
# An independent reading of Part B hand results


def multiplier(play: list[int], mode: str) -> int | None:
    """Kitty multiplier of the last trick's winning play; None where Part B is silent."""
    groups = Counter(Counter(play).values())
    pairs, triples = groups.get(2, 0), groups.get(3, 0)
    if mode == "doubling":
        return None if triples else 2 ** (1 + pairs)
    if pairs and triples:
        return None
    if triples:
        return 6 * triples
    if pairs:
        return 4 * pairs
    return 2


def spec_classic(rules: Ruleset, info: dict[str, Any]) -> dict[str, Any]:
    dealer = info["dealer"]
    dteam, ateam = dealer % 2, 1 - dealer % 2
    won = [0, 0]
    for tr in info["tricks"]:
        won[tr["winner"] % 2] += pts([c for p in tr["plays"] for c in p])
    last = info["tricks"][-1]
    kou = last["winner"] % 2 == ateam
    win_play = last["plays"][(last["winner"] - last["leader"]) % 4]
    mult = multiplier(win_play, rules.kitty_multiplier) if kou else 0
    out: dict[str, Any] = {"kou": kou, "trick_points": won[ateam],
                           "kitty_points": pts(info["kitty"])}
    if mult is None:
        return out
    score = won[ateam] + pts(info["kitty"]) * mult
    take, lv = spec_table(score, rules.decks)
    levels = list(info["levels"])
    team = ateam if take else dteam
    over = False
    if lv:
        if team == dteam and levels[dteam] == LA:
            over = True
            levels[dteam] = LA + 1
        else:
            levels[team] = min(levels[team] + lv, LA)
    if over:
        nxt = None
    elif take:
        nxt = (dealer + 1) % 4
    else:
        nxt = dealer if rules.keep_deal == "same-player" else (dealer + 2) % 4
    out.update({"kitty_multiplier": mult, "score": score, "attackers_take": take,
                "levels_awarded": lv, "levels_after": levels, "next_dealer": nxt,
                "round_winner": dteam if over else None,
                "failed_throws": info["failed"]})
    return out


def run_hand(m: Match, policy: Policy, seed: int, deck_: list[int] | None = None
             ) -> tuple[dict[str, Any], dict[str, Any]]:
    m.apply(A.deal(seed, deck_))
    while m.phase is not Phase.PLAY:
        m.apply(policy(m, m.to_act))
    assert m.dealer is not None
    assert m.level == m.levels[m.dealer % 2]  # the dealer team's level is the level card
    assert m.to_act == m.dealer  # the dealer leads the first trick
    info: dict[str, Any] = {"dealer": m.dealer, "levels": list(m.levels)}
    n = len(m.results)
    while len(m.results) == n:
        m.apply(policy(m, m.to_act))
    failed = [0, 0, 0, 0]
    for e in m.events:
        if e.hand == m.hand_no and e.type == "play" and "attempted" in e.public:
            failed[thaw(e.public)["seat"]] += 1
    info.update(tricks=list(m.tricks), kitty=list(m.kitty), failed=failed)
    return info, m.results[-1]


def check(m: Match, info: dict[str, Any], r: dict[str, Any]) -> dict[str, Any]:
    want = spec_classic(m.rules, info)
    got = {k: r[k] for k in want}
    assert got == want
    assert r["levels_before"] == info["levels"]
    if "round_winner" in want and want["round_winner"] is None:
        assert m.levels == want["levels_after"] and m.dealer == want["next_dealer"]
    return want


def rand_pol(seed: int) -> Policy:
    rng = random.Random(seed)
    return lambda m, seat: m.legal_actions(seat).sample(rng)


@pytest.mark.parametrize("name", PRESETS)
def test_B_whole_games_agree_with_the_rules(name: str) -> None:
    """Random games from level 2: every hand agrees with the independent reading (level
    table, kitty multiplier, next dealer, failed throws); the game ends when the dealer team
    at A wins a hand, and its game points follow Part C."""
    rules = preset(name)
    games = 0
    for seed in range(3):
        m = Match(rules, random.Random(seed), auto_deal=False)
        gained = [0, 0]
        failed = [0, 0, 0, 0]
        r: dict[str, Any] = {}
        for h in range(150):
            info, r = run_hand(m, rand_pol(seed * 1000 + h), seed * 1000 + h)
            want = check(m, info, r)
            failed = [a + b for a, b in zip(failed, r["failed_throws"], strict=True)]
            before, after = r["levels_before"], r["levels_after"]
            for t in (0, 1):
                gained[t] += after[t] - before[t]
            if r["round_winner"] is not None:
                assert want.get("round_winner", r["round_winner"]) == r["round_winner"]
                break
            assert "game_points" not in r
        if not m.is_over:
            continue
        games += 1
        w = r["round_winner"]
        assert r["round_end"] == "passed-A"
        assert r["levels_before"][w] == LA and r["dealer"] % 2 == w
        final = r["levels_after"]
        assert final[w] == LA + 1
        assert gained[w] == LA + 1 - L2
        expected = [
            gained[s % 2] + 2 * (final[s % 2] - final[1 - s % 2]) - failed[s] for s in range(4)
        ]
        assert r["game_points"] == expected
        assert m.levels == [L2, L2] and m.first
    assert games >= 1


# ============================================================================================
# Sweeps: one attacker holds the strongest trumps, so the attackers take every trick and
# the last trick's winning play has a chosen shape.


def sweep_deck(rules: Ruleset, level: int, dealer_extra: str) -> tuple[list[int], list[int]]:
    """Later hand dealt from seat 0 at ``level``, hearts trump. Seat 1 holds the strongest
    trumps, seat 3 the next ones and side cards, the dealer team side cards only (plus
    ``dealer_extra`` for the dealer)."""
    order = order_for(level, H, False)
    pool = counts(deck(rules.decks))
    hearts = sorted((c for c in range(13, 26) if order.cls[c] == TRUMP and c % 13 != level
                     and not POINTS[c]), key=lambda c: order.power[c])
    kitty: list[int] = []
    for c in hearts:
        kitty += [c] * min(rules.decks, rules.kitty_size - len(kitty))
    extra = cs(dealer_extra)
    for c in kitty + extra:
        pool[c] -= 1
    trumps = sorted((c for c in range(NUM_TYPES) for _ in range(pool[c])
                     if order.cls[c] == TRUMP), key=lambda c: -order.power[c])
    side = [c for c in range(NUM_TYPES) for _ in range(pool[c]) if order.cls[c] != TRUMP]
    random.Random(3).shuffle(side)
    n = rules.hand_size
    hands = {0: extra, 1: trumps[:n], 2: [], 3: trumps[n:]}
    for s in (0, 2, 3):
        while len(hands[s]) < n:
            hands[s].append(side.pop())
    return stacked_deck(rules, 0, [hands[s] for s in range(4)], kitty), kitty


def sweep_pol(bury: list[int], first_lead: str, final: int) -> Policy:
    """The dealer opens with ``first_lead``; seat 1 ruffs with identical cards, then leads its
    biggest identical groups, strongest first, and its last ``final`` cards all at once."""
    rng = random.Random(0)

    def policy(m: Match, seat: int) -> Action:
        if m.phase is Phase.DRAW:
            return A.pass_(seat)
        if m.phase is Phase.BURY:
            return A.bury(seat, bury)
        hand = m.hands[seat]
        held = [c for c in range(NUM_TYPES) if hand[c]]

        def key(c: int) -> tuple[int, int]:
            return (m.order.cls[c] == TRUMP, m.order.power[c])

        if not m.trick:
            if not m.tricks:
                return A.play(seat, cs(first_lead))
            if m.hand_size(seat) == final:
                return A.play(seat, [c for c in held for _ in range(hand[c])])
            best = max(held, key=lambda c: (hand[c], *key(c)))
            return A.play(seat, [best] * hand[best])
        if seat == 1 and len(m.tricks) == 0:
            k = len(m.trick[0][1])
            exact = [c for c in held if hand[c] == k]
            best = min(exact or [c for c in held if hand[c] >= k], key=key)
            return A.play(seat, [best] * k)
        return m.legal_actions(seat).sample(rng)

    return policy


@pytest.mark.parametrize(
    ("name", "options", "first_lead", "final", "mult"),
    [
        ("classic-1", {}, "9D", 1, 2),
        ("classic-2", {}, "9D", 2, 4),  # doubling (default for 2 decks): one pair x4
        ("classic-2", {}, "9D", 4, 8),  # two pairs x8
        ("classic-2", {}, "9D", 6, 16),  # three pairs x16
        ("classic-2", {"kitty_multiplier": "linear"}, "9D", 6, 12),  # linear: 4k
        ("classic-3", {}, "9D 9D 9D", 3, 6),  # linear (default for 3 decks): triple x6
        ("classic-3", {}, "9D 9D 9D", 6, 12),  # two triples x12
        ("classic-3", {}, "9D", 2, 4),  # a pair x4
        ("classic-3", {}, "9D 9D", 1, 2),  # a single x2
    ],
)
def test_B_kitty_multiplier_end_to_end(
    name: str, options: dict[str, Any], first_lead: str, final: int, mult: int
) -> None:
    rules = preset(name, **options)
    extra = {1: "9D 10D KD", 2: "9D 9D 10D KD", 3: "9D 9D 9D 10D KD"}[rules.decks]
    deck_, kitty = sweep_deck(rules, L5, extra)
    bury = cs("10D KD") + kitty[: rules.kitty_size - 2]
    m = Match(rules, random.Random(0), auto_deal=False, levels=(L5, L5), dealer=0)
    info, r = run_hand(m, sweep_pol(bury, first_lead, final), 5, deck_)
    assert {tr["winner"] for tr in info["tricks"]} == {1}, "not a sweep"
    last = info["tricks"][-1]
    assert len(last["plays"][0]) == final
    check(m, info, r)
    assert r["kou"] and r["kitty_points"] == 20
    assert r["kitty_multiplier"] == mult
    assert r["score"] == r["trick_points"] + 20 * mult
    assert r["attackers_take"] and r["next_dealer"] == 1


# ============================================================================================
# Failed throws


def no_spades(c: int) -> bool:
    return c < 52 and c // 13 == S and c % 13 != L5


class TestFailedThrow:
    KITTY1 = "3H 4H 6H 7H 8H 9H"

    def test_B_failed_throw_plays_failing_part(self) -> None:
        rules = preset("classic-1")
        m = later_hand(rules, {0: "AS QS", 1: "KS"}, self.KITTY1,
                       avoid={0: no_spades, 2: no_spades, 3: no_spades})
        m.apply(A.play(0, cs("AS QS")))
        assert m.trick == [(0, tuple(cs("QS")))]
        assert m.hands[0][cs("AS")[0]] == 1 and m.hands[0][cs("QS")[0]] == 0
        assert m.failed_throws == [1, 0, 0, 0]
        ev = next(e for e in reversed(m.events) if e.type == "play")
        assert sorted(thaw(ev.public)["attempted"]) == ["AS", "QS"]
        assert thaw(ev.public)["cards"] == ["QS"]
        m.apply(A.play(1, cs("KS")))  # the follow is to a single
        assert m.to_act == 2

    def test_B_failed_throw_smallest_failing_part(self) -> None:
        rules = preset("classic-1")
        m = later_hand(rules, {0: "QS JS", 3: "KS"}, self.KITTY1,
                       avoid={0: no_spades, 1: no_spades, 2: no_spades})
        m.apply(A.play(0, cs("QS JS")))
        assert m.trick == [(0, tuple(cs("JS")))]
        assert m.failed_throws == [1, 0, 0, 0]

    def test_B_failed_throw_pair_part_two_decks(self) -> None:
        rules = preset("classic-2")
        kitty = "3H 3H 4H 4H 6H 6H 7H 7H"
        m = later_hand(rules, {0: "AS AS QS QS", 1: "KS KS"}, kitty,
                       avoid={0: no_spades, 2: no_spades, 3: no_spades})
        m.apply(A.play(0, cs("AS AS QS QS")))
        assert m.trick == [(0, tuple(cs("QS QS")))]
        assert m.failed_throws == [1, 0, 0, 0]

    def test_B_failed_throw_partner_holding_counts_partner_not_charged(self) -> None:
        rules = preset("classic-2")
        kitty = "3H 3H 4H 4H 6H 6H 7H 7H"
        m = later_hand(rules, {0: "QS QS JS", 2: "KS KS"}, kitty,
                       avoid={0: no_spades, 1: no_spades, 3: no_spades})
        m.apply(A.play(0, cs("QS QS JS")))
        assert m.trick == [(0, tuple(cs("JS")))]  # single JS: the smallest failing part
        assert m.failed_throws == [1, 0, 0, 0]

    def test_B_throw_that_stands_is_played_whole(self) -> None:
        rules = preset("classic-1")
        m = later_hand(rules, {0: "AS KS"}, self.KITTY1)
        m.apply(A.play(0, cs("AS KS")))
        assert sorted(m.trick[0][1]) == sorted(cs("AS KS"))
        assert m.failed_throws == [0, 0, 0, 0]

    def test_B_failed_throw_counted_in_hand_result(self) -> None:
        rules = preset("classic-1")
        m = later_hand(rules, {2: "AS QS", 1: "KS"}, self.KITTY1,
                       avoid={0: no_spades, 2: no_spades, 3: no_spades}, dealer=2)
        m.apply(A.play(2, cs("AS QS")))
        rng = random.Random(1)
        n = len(m.results)
        while len(m.results) == n:  # no more throws: leads are single cards
            seat = m.to_act
            if m.trick:
                m.apply(m.legal_actions(seat).sample(rng))
            else:
                m.apply(A.play(seat, [next(c for c in range(NUM_TYPES) if m.hands[seat][c])]))
        assert m.results[-1]["failed_throws"] == [0, 0, 1, 0]
        assert m.failed_throws == [0, 0, 1, 0]


# ============================================================================================
# End of the game (Part B) and game points (Part C)


def game_over_at_a(rules: Ruleset, seat0_draws: str = "", lead: str = "",
                   tries: int = 200) -> tuple[Match, dict[str, Any]]:
    """Seeded random hands with team 0 dealing at A against team 1 at 5 until team 0 keeps
    the deal (the game ends); the dealer may open with a (failing) throw."""
    for seed in range(tries):
        m = Match(rules, random.Random(seed), auto_deal=False, levels=(LA, L5), dealer=0)
        hands: list[list[int] | None] = [cs(seat0_draws) if seat0_draws else None,
                                         cs("QS") if lead else None, None, None]
        deck_ = stacked_deck(rules, 0, hands, None, random.Random(seed))
        m.apply(A.deal(seed, deck_))
        rng = random.Random(seed)
        while m.phase is not Phase.PLAY:
            m.apply(A.pass_(m.to_act) if m.phase is Phase.DRAW
                    else m.legal_actions(m.to_act).sample(rng))
        if lead:
            if any(m.kitty.count(c) for c in cs(lead)) or not all(
                    m.hands[0][c] for c in cs(lead)):
                continue  # the dealer buried a card of the planned throw
            m.apply(A.play(0, cs(lead)))
        n = len(m.results)
        while len(m.results) == n:
            m.apply(m.legal_actions(m.to_act).sample(rng))
        r = m.results[-1]
        if r["round_winner"] is not None:
            return m, r
        assert r["attackers_take"] or r["levels_awarded"] == 0
    raise AssertionError("the dealer team at A never won a hand")


class TestGameEnd:
    @pytest.mark.parametrize("name", PRESETS)
    def test_B_game_ends_when_dealer_team_at_A_wins_a_hand(self, name: str) -> None:
        m, r = game_over_at_a(preset(name))
        assert not r["attackers_take"] and r["levels_awarded"] >= 1
        assert r["round_end"] == "passed-A" and r["round_winner"] == 0
        assert r["next_dealer"] is None
        assert m.is_over and m.round_winners == [0]
        ev = next(e for e in reversed(m.events) if e.type == "hand_end")
        assert "game_points" in ev.public
        throws = m.results[-1]["failed_throws"]
        # Part C: +1 per level gained (passing A), +2 per level of difference (A+1 vs 5)
        diff = (LA + 1) - L5
        expected = [1 + 2 * diff - throws[0], -2 * diff - throws[1],
                    1 + 2 * diff - throws[2], -2 * diff - throws[3]]
        assert r["game_points"] == expected

    def test_C_failed_throw_costs_only_the_thrower_a_game_point(self) -> None:
        rules = preset("classic-1")
        _m, r = game_over_at_a(rules, seat0_draws="KS JS", lead="KS JS", tries=400)
        throws = r["failed_throws"]
        assert throws[0] >= 1
        diff = (LA + 1) - L5
        assert r["game_points"][0] == 1 + 2 * diff - throws[0]
        assert r["game_points"][2] == 1 + 2 * diff - throws[2]
        assert r["game_points"][0] - r["game_points"][2] == throws[2] - throws[0]

    def test_B_attackers_at_A_do_not_end_the_game(self) -> None:
        rules = preset("classic-1", rounds=1)
        for seed in range(200):
            m = Match(rules, random.Random(seed), auto_deal=False, levels=(L5, LA), dealer=0)
            info, r = run_hand(m, rand_pol(seed), seed)
            check(m, info, r)
            if r["attackers_take"] and r["levels_awarded"] >= 1:
                assert r["round_winner"] is None and not m.is_over
                assert m.levels == [L5, LA] and m.dealer == 1
                return
        raise AssertionError("no hand where the attackers at A take the deal")

    @pytest.mark.parametrize("name", PRESETS)
    def test_B_I17_next_dealer(self, name: str) -> None:
        rules = preset(name)
        seen = set()
        for seed in range(60):
            m = Match(rules, random.Random(seed), auto_deal=False, levels=(L5, L5), dealer=3)
            info, r = run_hand(m, rand_pol(seed), seed)
            check(m, info, r)
            nd = r["next_dealer"]
            assert nd == (0 if r["attackers_take"] else 3)
            seen.add(r["attackers_take"])
            if seen == {True, False}:
                return
        raise AssertionError(seen)
