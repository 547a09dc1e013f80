"""play_position: a Match built at a play position finishes the hand exactly like the original."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gunzi.engine import match as match_module
from gunzi.engine.actions import Action, play
from gunzi.engine.cards import NUM_TYPES, POINTS, parse, parse_many
from gunzi.engine.errors import IllegalActionError
from gunzi.engine.match import Match, Phase
from gunzi.engine.position import play_position, position_of
from gunzi.engine.rules import preset


def _to_play(rules_name: str, seed: int, tricks: int, extra: int) -> Match:
    """A real match (random players) stopped in the play phase after some plays."""
    rng = random.Random(seed)
    m = Match(preset(rules_name), random.Random(seed), levels=(2, 2) if "classic" in
              rules_name else None)
    while m.phase is not Phase.PLAY:
        seat = m.to_act
        assert seat is not None
        m.apply(m.legal_actions(seat).sample(rng))
    for _ in range(tricks * 4 + extra):
        seat = m.to_act
        assert seat is not None
        m.apply(m.legal_actions(seat).sample(rng))
        if m.phase is not Phase.PLAY or m.hand_no != 1:
            break
    return m


def _finish(m: Match, seed: int) -> tuple[dict[str, object], list[Action]]:
    """Play the hand out with a policy that depends only on the position and a fixed seed."""
    hand = m.hand_no
    done = len(m.results)
    moves: list[Action] = []
    step = 0
    while len(m.results) == done:
        seat = m.to_act
        assert seat is not None and m.phase is Phase.PLAY and m.hand_no == hand
        action = m.legal_actions(seat).sample(random.Random(seed * 1000 + step))
        moves.append(action)
        m.apply(action)
        step += 1
    return m.results[-1], moves


def _explicit(m: Match) -> Match:
    assert m.dealer is not None
    return play_position(
        m.rules, dealer=m.dealer, levels=m.levels, trump=m.trump, hands=m.hands,
        kitty=m.kitty, leader=m.leader, trick=m.trick, tricks_done=m.tricks, points=m.points,
        dry_pot=m.dry_pot, tribute_kind=m.tribute_kind, payer=m.payer, payee=m.payee,
        tribute_cards=m.tribute_cards, hand_no=m.hand_no, round_no=m.round_no,
        scores=m.scores, decl=m.decl, hand_failed_throws=m.hand_failed_throws,
        failed_throws=m.failed_throws, gained=m.gained,
    )


def _conserved(m: Match) -> bool:
    total = [0] * NUM_TYPES
    for h in m.hands:
        for c in range(NUM_TYPES):
            total[c] += h[c]
    for c in m.kitty:
        total[c] += 1
    for t in m.tricks:
        for p in t["plays"]:
            for c in p:
                total[c] += 1
    for _, p in m.trick:
        for c in p:
            total[c] += 1
    return all(k == m.rules.decks for k in total)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    tricks=st.integers(0, 38),
    extra=st.integers(0, 3),
    rules_name=st.sampled_from(["gunzi", "gunzi", "classic-2"]),
)
def test_rebuilt_position_plays_out_like_the_original(
    seed: int, tricks: int, extra: int, rules_name: str
) -> None:
    m = _to_play(rules_name, seed, tricks, extra)
    if m.phase is not Phase.PLAY or m.hand_no != 1:
        return  # the hand ended before the cut
    a = position_of(m)
    b = _explicit(m)
    assert _conserved(a) and _conserved(b)
    assert a.to_act == m.to_act == b.to_act
    want, moves = _finish(m, seed)
    got_a, moves_a = _finish(a, seed)
    got_b, moves_b = _finish(b, seed)
    assert moves == moves_a == moves_b
    assert got_a == want
    assert got_b == want
    assert a.levels == b.levels
    assert a.phase in (Phase.DEAL, Phase.OVER)  # waits for a deal instead of dealing one


def test_every_match_attribute_is_set() -> None:
    m = _to_play("gunzi", 3, 5, 1)
    p = position_of(m)
    for name in getattr(match_module, "STATE_FIELDS", ()):
        assert hasattr(p, name), name
    for name in vars(m):
        assert hasattr(p, name), name


def test_hidden_cards_can_be_replaced() -> None:
    """Swapping cards between two other seats gives a different, still valid position."""
    m = _to_play("gunzi", 11, 3, 0)
    hands = [list(h) for h in m.hands]
    a = next(c for c in range(NUM_TYPES) if hands[1][c] and not hands[3][c])
    b = next(c for c in range(NUM_TYPES) if hands[3][c] and not hands[1][c])
    hands[1][a] -= 1
    hands[3][a] += 1
    hands[3][b] -= 1
    hands[1][b] += 1
    p = position_of(m, hands=hands)
    assert p.hands[1][b] == m.hands[1][b] + 1
    result, _ = _finish(p, 1)
    assert result["score"] >= 0


def test_inconsistent_positions_are_rejected() -> None:
    m = _to_play("gunzi", 5, 4, 2)
    hands = [list(h) for h in m.hands]
    card = next(c for c in range(NUM_TYPES) if hands[0][c])
    hands[0][card] -= 1
    with pytest.raises(IllegalActionError, match="appears"):
        position_of(m, hands=hands)
    hands[1][card] += 1
    with pytest.raises(IllegalActionError, match="hand sizes"):
        position_of(m, hands=hands)
    assert m.dealer is not None
    with pytest.raises(IllegalActionError, match="points"):
        play_position(m.rules, dealer=m.dealer, levels=m.levels, trump=m.trump, hands=m.hands,
                      kitty=m.kitty, leader=m.leader, trick=m.trick, tricks_done=m.tricks,
                      points=[m.points[0] + 5, m.points[1]])


def test_seats_levels_trump_and_the_trick_chain_are_checked() -> None:
    """Out-of-range seats, levels, trump suit or card numbers, and tricks not led by the
    previous winner, are refused even for a partial position; check=False skips them."""
    m = _to_play("gunzi", 5, 4, 2)
    assert m.dealer is not None and len(m.tricks) >= 2
    base = {"dealer": m.dealer, "levels": m.levels, "trump": m.trump, "hands": m.hands,
            "kitty": m.kitty, "leader": m.leader, "trick": m.trick,
            "tricks_done": m.tricks, "points": m.points}
    assert play_position(m.rules, **base).to_act == m.to_act  # type: ignore[arg-type]
    other = (m.tricks[-1]["winner"] + 1) % 4
    relinked = [dict(t) for t in m.tricks]
    relinked[1]["leader"] = (relinked[0]["winner"] + 1) % 4
    bad_kitty = [*m.kitty[:-1], NUM_TYPES]
    for change, message in (
        ({"dealer": 4}, "dealer is seat 4"),
        ({"leader": -1}, "leader is seat -1"),
        ({"levels": (2, 14)}, "team levels"),
        ({"level": 13}, "hand's level"),
        ({"trump": 4}, "trump suit 4"),
        ({"hands": m.hands[:3]}, "3 hands"),
        ({"kitty": bad_kitty}, "not a card"),
        ({"tricks_done": relinked}, "trick 2 must be led by seat"),
        ({"leader": other, "trick": []}, "led by seat"),
    ):
        for partial in (False, True):
            with pytest.raises(IllegalActionError, match=message):
                play_position(m.rules, **{**base, **change},  # type: ignore[arg-type]
                              partial=partial)
    play_position(m.rules, **{**base, "leader": other, "trick": []},  # type: ignore[arg-type]
                  check=False)


def test_a_partial_position_skips_only_the_card_count() -> None:
    """A few cards for a puzzle: accepted as partial, refused otherwise; a partial position
    must still have its seats in turn and hand sizes that fit the trick."""
    rules = preset("gunzi")
    hands = [[0] * NUM_TYPES for _ in range(4)]
    for s, name in enumerate(("AS", "KS", "QS", "JS")):
        hands[s][parse(name)] = 1
    kw = {"dealer": 0, "levels": (1, 1), "trump": 1, "kitty": parse_many("4S 5S"),
          "leader": 0}
    with pytest.raises(IllegalActionError, match="appears"):
        play_position(rules, hands=hands, **kw)  # type: ignore[arg-type]
    pos = play_position(rules, hands=hands, partial=True, **kw)  # type: ignore[arg-type]
    assert pos.to_act == 0 and pos.phase is Phase.PLAY
    for s in range(4):
        pos.apply(play(s, [next(c for c in range(NUM_TYPES) if pos.hands[s][c])]))
    # AS takes the trick for the dealer's team with the KS's 10 points; no kitty capture.
    assert pos.points == [10, 0] and pos.results[-1]["score"] == 0
    with pytest.raises(IllegalActionError, match="must be seat 0"):
        play_position(rules, hands=hands, partial=True, trick=[(2, (parse("QS"),))],
                      **kw)  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError, match="hand sizes"):
        play_position(rules, hands=[*hands[:3], [0] * NUM_TYPES], partial=True,
                      **kw)  # type: ignore[arg-type]


def _last_trick(seat1: str, kitty: str) -> dict[str, object]:
    """Dealer 0 leads 4S in the last trick; every other card went to tricks the dealer won."""
    rules = preset("gunzi")
    last = {0: "4S", 1: seat1, 2: "AS", 3: "6S"}
    held = [parse(last[s]) for s in range(4)]
    buried = parse_many(kitty)
    rest = [c for c in range(NUM_TYPES) for _ in range(3)]
    for c in [*held, *buried]:
        rest.remove(c)
    tricks = []
    pts = [0, 0]
    while rest:
        plays = [[rest.pop()] for _ in range(4)]
        p = sum(POINTS[x[0]] for x in plays)
        tricks.append({"leader": 0, "plays": plays, "winner": 0, "points": p})
        pts[0] += p
    hands = [[0] * NUM_TYPES for _ in range(4)]
    for s in range(4):
        hands[s][held[s]] = 1
    pos = play_position(rules, dealer=0, levels=(1, 1), trump=1, hands=hands, kitty=buried,
                        leader=0, tricks_done=tricks, points=pts, kitty_shown=True)
    for s in range(4):
        pos.apply(play(s, [held[s]]))
    assert pos.phase in (Phase.DEAL, Phase.OVER)
    return pos.results[-1]


def test_last_trick_kitty_capture_and_kitty_jokers_are_scored_by_the_engine() -> None:
    won = _last_trick("BJ", "KS KS 10D 5C 4D 4D")  # seat 1 trumps the last trick: 抠底
    assert won["kou"] is True
    assert won["score"] == 2 * 35
    assert won["levels_awarded"] == 0 and won["attackers_take"] is False
    held = _last_trick("8D", "BJ LJ 10D 5C 4D 4D")  # dealer keeps the last trick: 保底
    assert held["kou"] is False
    assert held["score"] == 0
    assert held["levels_awarded"] == 1 + 2 + 1  # upgrade plus kitty jokers
    assert held["levels_after"] == [5, 1]
