"""Property tests of the match engine: conservation, legality, rejection, termination, secrecy.

Games are random but reproducible: hypothesis draws the seeds, and every decision is
``legal_actions(seat).sample(rng)`` with ``rng = random.Random(seed)``. The rule sets cover
打滚子 (with option variants) and classic 升级 with 1, 2 and 3 decks; some matches start
mid-round (levels, dealer and blood given) so that tribute and level-card declaring are
exercised in the first hand played.
"""

from __future__ import annotations

import dataclasses
import random
import signal
from collections import Counter
from collections.abc import Iterator
from itertools import islice
from typing import Any

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from gunzi.engine import actions as A
from gunzi.engine import cards as C
from gunzi.engine.actions import CHANCE, Action, Kind
from gunzi.engine.cards import BJ, LJ, NUM_TYPES
from gunzi.engine.errors import (
    GunziError,
    IllegalActionError,
    MalformedActionError,
    OutOfTurnError,
)
from gunzi.engine.match import PHASE_KIND, STATE_FIELDS, Match, Phase
from gunzi.engine.rules import Ruleset, preset
from gunzi.engine.view import stream, view

RULESETS: dict[str, Ruleset] = {
    "gunzi": preset("gunzi"),
    "gunzi-live": preset("gunzi", follow="live"),
    "gunzi-end-only": preset("gunzi", declare_asks="end-only"),
    "gunzi-variants": preset(
        "gunzi",
        tribute_rule="two",
        joker_bury_order="before-dealer",
        dry_pot="no-trump",
        return_fill="any",
        first_hand_tribute=True,
        flip_all_jokers="turn-more",
        bj_suit_fallback="redeal",
        keep_deal="partner",
        attackers_pass_ten=True,
    ),
    "classic-1": preset("classic-1"),
    "classic-2": preset("classic-2"),
    "classic-3": preset("classic-3"),
}
GUNZI_KEYS = ["gunzi", "gunzi-live", "gunzi-end-only", "gunzi-variants"]
MAIN_KEYS = ["gunzi", "gunzi-live", "gunzi-end-only", "gunzi-variants", "classic-2"]
ERRORS = (MalformedActionError, OutOfTurnError, IllegalActionError)
# Keep hypothesis quiet about slow generation: each example is a whole hand.
SLOW = [HealthCheck.too_slow, HealthCheck.filter_too_much]

seeds = st.integers(min_value=0, max_value=2**64 - 1)


# ----------------------------------------------------------------------------- helpers
def fingerprint(m: Match) -> tuple[Any, ...]:
    """A deep snapshot of the match state: every attribute but the generators, plus their state.

    ``repr`` is taken at once (events hold read-only mapping proxies, which cannot be
    deep-copied), so later mutations of nested lists show up as a difference. The event
    log is append-only (frozen events), so its length and its last events stand for it:
    repr-ing hundreds of events at every rejected action would dominate the run time.
    """
    names = set(STATE_FIELDS) | set(getattr(m, "__dict__", {}))
    # Not the action last sampled: a memo that legal_actions(...).sample sets, which only
    # spares verifying that very action (MatchState.sampled).
    state = [(k, getattr(m, k)) for k in sorted(names - {"rng", "hand_rng", "events",
                                                          "sampled"})]
    events = (len(m.events), id(m.events), repr(m.events[-2:]))
    return repr(state), events, m.rng.getstate(), m.hand_rng.getstate()


def start_state(rules: Ruleset, data: random.Random, later: bool) -> dict[str, Any]:
    """Match() keyword arguments: a fresh round, or a later hand of a round."""
    if not later:
        return {}
    lo, hi = rules.first_level, rules.last_level
    return {
        "levels": (data.randint(lo, hi), data.randint(lo, hi)),
        "dealer": data.randrange(4),
        "blood": data.randint(0, 12) if rules.is_gunzi else 0,
    }


def new_match(key: str, seed: int, later: bool = False, auto_deal: bool = True) -> Match:
    rules = RULESETS[key]
    data = random.Random(seed ^ 0x5EED)
    return Match(rules, random.Random(seed), auto_deal=auto_deal,
                 **start_state(rules, data, later))


def full_decks(rules: Ruleset) -> Counter[int]:
    return Counter(C.deck(rules.decks))


def cards_in_play(m: Match) -> Counter[int]:
    """Hands + kitty + completed tricks + current trick + undrawn deck cards."""
    total: Counter[int] = Counter()
    for hand in m.hands:
        for c, k in enumerate(hand):
            if k:
                total[c] += k
    total.update(m.kitty)
    for t in m.tricks:
        for p in t["plays"]:
            total.update(p)
    for _, p in m.trick:
        total.update(p)
    if m.phase is Phase.DRAW:
        total.update(m.deck[m.pos : 4 * m.rules.hand_size])
    return total


def check_conservation(m: Match) -> None:
    if m.phase in (Phase.DEAL, Phase.OVER):
        return  # between hands: nothing is dealt
    assert all(k >= 0 for hand in m.hands for k in hand)
    assert cards_in_play(m) == full_decks(m.rules), f"cards not conserved in {m.phase}"


def check_hand_end(m: Match, result: dict[str, Any]) -> None:
    """Trick points of both teams + kitty points == the deck's total, and the score adds up."""
    hand = result["hand"]
    tricks = [e for e in m.events if e.hand == hand and e.type == "trick"]
    by_team = [0, 0]
    for e in tricks:
        by_team[e.public["winner"] % 2] += e.public["points"]
    assert by_team[0] + by_team[1] + result["kitty_points"] == m.rules.total_points
    assert result["trick_points"] == by_team[result["attackers"]]
    assert result["kitty_points"] == C.points_of(C.parse_many(result["kitty"]))
    assert len(result["kitty"]) == m.rules.kitty_size
    if m.rules.is_gunzi:
        assert result["score"] == result["trick_points"] + (
            2 * result["kitty_points"] if result["kou"] else 0)
    else:
        assert result["score"] == (
            result["trick_points"] + result["kitty_points"] * result["kitty_multiplier"])


def drive(
    m: Match,
    rng: random.Random,
    *,
    hands: int,
    limit: int = 20000,
    on_step: Any = None,
) -> int:
    """Play random legal actions until ``hands`` more results exist or the match is over."""
    target = len(m.results) + hands
    steps = 0
    while not m.is_over and len(m.results) < target:
        assert steps < limit, "the match did not finish within the decision bound"
        seat = m.to_act
        assert seat is not None
        if on_step is not None:
            on_step(m, seat)
        done = len(m.results)
        m.apply(m.legal_actions(seat).sample(rng))
        steps += 1
        if len(m.results) > done:
            check_hand_end(m, m.results[-1])
    return steps


def held_cards(m: Match, seat: int) -> list[int]:
    return C.expand(m.hands[seat])


def candidates(m: Match, seat: int, rng: random.Random) -> Iterator[Action]:
    """Random actions of the pending kind from the right seat: some legal, most not."""
    legal = m.legal_actions(seat)
    kind = legal.kind
    hand = held_cards(m, seat)
    for _ in range(6):
        from_hand = rng.random() < 0.7 and hand
        if kind is Kind.PLAY:
            if m.trick:
                k = len(m.trick[0][1])
                if rng.random() < 0.2:
                    k = rng.randint(1, 4)
            else:
                k = rng.randint(1, 3 if m.rules.is_gunzi else 6)
        elif kind is Kind.BURY:
            k = m.rules.kitty_size
        elif kind in (Kind.TRIBUTE, Kind.RETURN):
            k = m.tribute_n
        elif kind is Kind.DECLARE or kind is Kind.BURY_JOKERS:
            k = rng.randint(1, 3)
        else:
            return
        if kind is Kind.DECLARE:
            card = rng.choice(hand) if from_hand else rng.randrange(NUM_TYPES)
            yield Action(kind, seat, (card,) * k, suit=rng.choice((-1, -1, 0, 1, 2, 3)))
            continue
        if kind is Kind.BURY_JOKERS:
            pool = [c for c in hand if c >= LJ] if from_hand else [LJ, BJ, BJ, LJ, 3]
            jokers = rng.sample(pool, min(k, len(pool))) or [BJ]
            take: tuple[int, ...] = ()
            if m.kitty_shown and rng.random() < 0.5:
                elig = m.pickup_eligible()
                take = tuple(rng.sample(elig, min(len(jokers), len(elig))))
            yield Action(kind, seat, tuple(jokers), take=take)
            continue
        if from_hand and k <= len(hand):
            cards = rng.sample(hand, k)
            if kind is Kind.PLAY and m.rules.is_gunzi and rng.random() < 0.5:
                cards = [cards[0]] * k
        else:
            cards = [rng.randrange(NUM_TYPES) for _ in range(k)]
        yield Action(kind, seat, tuple(cards))


def wrong_kind(phase: Phase, seat: int) -> Action:
    """An action of a kind the current phase does not accept."""
    kind = next(k for k in (Kind.PLAY, Kind.BURY) if k not in PHASE_KIND[phase])
    return Action(kind, seat, (0,))


def expect_rejected(m: Match, action: Any, error: type[GunziError],
                    before: tuple[Any, ...] | None = None) -> None:
    """``action`` raises ``error`` from verify and apply, and the state is unchanged."""
    if before is None:
        before = fingerprint(m)
    with pytest.raises(error):
        m.verify(action)
    with pytest.raises(error):
        m.apply(action)
    if isinstance(action, Action):
        assert not m.can_apply(action)
        assert action not in m.legal_actions(m.to_act if m.to_act is not None else 0)
    assert fingerprint(m) == before, f"rejected {action} changed the state"


def bad_actions(m: Match, seat: int, rng: random.Random) -> Iterator[tuple[Any, type[GunziError]]]:
    """Actions that must be rejected, with the error type the engine must raise."""
    legal = m.legal_actions(seat)
    good = legal.sample(rng)
    # Another seat, same decision.
    for other in range(4):
        if other != seat:
            yield dataclasses.replace(good, seat=other), OutOfTurnError
    yield dataclasses.replace(good, seat=7), MalformedActionError  # no such seat
    # A decision of another phase.
    yield wrong_kind(m.phase, seat), OutOfTurnError
    yield A.deal(123), OutOfTurnError
    # Not an action at all.
    yield None, MalformedActionError
    yield {"type": "play", "seat": seat, "cards": ["AS"]}, MalformedActionError
    yield good.to_dict(), MalformedActionError
    hand = m.hands[seat]
    missing = [c for c in range(NUM_TYPES) if hand[c] == 0]
    if good.kind in (Kind.PLAY, Kind.BURY, Kind.TRIBUTE, Kind.RETURN) and good.cards:
        # A card the seat does not hold, in place of one of a legal choice.
        if missing:
            cards = list(good.cards)
            cards[rng.randrange(len(cards))] = rng.choice(missing)
            yield dataclasses.replace(good, cards=tuple(cards)), IllegalActionError
        # One copy more than held.
        c = rng.choice(good.cards)
        yield dataclasses.replace(good, cards=(c,) * (hand[c] + 1)), IllegalActionError
        # Wrong count: one card more or one fewer (a shorter or longer lead may be legal).
        if good.kind is not Kind.PLAY or m.trick:
            yield dataclasses.replace(good, cards=good.cards[1:]), IllegalActionError
        spare = [c for c in held_cards(m, seat)]
        for c in good.cards:
            spare.remove(c)
        if spare and (good.kind is not Kind.PLAY or m.rules.is_gunzi or m.trick):
            more = (*good.cards, rng.choice(spare))
            if not (good.kind is Kind.PLAY and not m.trick and m.rules.is_gunzi
                    and len(set(more)) == 1 and len(more) <= 3):
                yield dataclasses.replace(good, cards=more), IllegalActionError
        if good.kind is Kind.PLAY:
            yield dataclasses.replace(good, cards=()), IllegalActionError
    if m.phase is Phase.DRAW:
        if missing:
            yield A.declare(seat, [rng.choice(missing)]), IllegalActionError
        yield A.declare(seat, []), MalformedActionError
    if m.phase is Phase.BURY_JOKERS and missing and BJ in missing:
        yield A.bury_jokers(seat, [BJ], []), IllegalActionError


def check_decision(m: Match, seat: int, rng: random.Random, n_lazy: int = 8,
                   bad: bool = True) -> None:
    """Every listed legal action verifies and applies (on a clone); bad ones are rejected."""
    before = fingerprint(m)
    legal = m.legal_actions(seat)
    assert legal, f"seat {seat} must act but has no legal action"
    if legal.enumerable:
        listed: list[Action] = list(legal)
    elif legal.kind is Kind.RETURN:
        # Returns are a product of multiset choices, too many to list at every decision:
        # build a few with the selection (test_first_return_action_comes_quickly checks
        # that iterating them starts at once).
        listed = [legal.selection().sample(rng) for _ in range(n_lazy)]
    else:
        listed = list(islice(iter(legal), n_lazy))
    listed.append(legal.sample(rng))
    if legal.enumerable:
        assert len(legal) == len(listed) - 1
        assert len(set(listed[:-1])) == len(listed) - 1, "duplicate legal actions"
    for action in listed:
        assert action.seat == seat
        m.verify(action)
        assert action in legal
        twin = m.clone()
        ev = twin.apply(action)
        assert ev.v == len(m.events) + 1
        check_conservation(twin)
    assert fingerprint(m) == before, "verify/clone+apply changed the original match"
    # Random candidate actions: accepted exactly when listed (for listed decisions).
    listed_set = set(listed)
    for cand in candidates(m, seat, rng):
        try:
            m.verify(cand)
            ok = True
        except IllegalActionError:
            ok = False
        except MalformedActionError:
            ok = False
            assert cand.kind is Kind.DECLARE
        if legal.enumerable:
            auto_take = cand.kind is Kind.BURY_JOKERS and not cand.take
            if not (ok and auto_take):
                assert ok == (cand in listed_set), f"{cand}: verify says {ok}"
        if ok:
            m.clone().apply(cand)
    assert fingerprint(m) == before
    if bad:
        for action, error in bad_actions(m, seat, rng):
            expect_rejected(m, action, error, before)


# ------------------------------------------------------------------------ conservation
@settings(max_examples=60, deadline=None, suppress_health_check=SLOW)
@given(seed=seeds, key=st.sampled_from(list(RULESETS)), later=st.booleans(),
       auto=st.booleans())
def test_cards_conserved_and_points_add_up(seed: int, key: str, later: bool, auto: bool) -> None:
    m = new_match(key, seed, later, auto_deal=auto)
    rng = random.Random(seed)

    def step(match: Match, seat: int) -> None:
        check_conservation(match)

    drive(m, rng, hands=3, on_step=step)  # checks every hand end (check_hand_end)
    check_conservation(m)
    assert len(m.results) >= 1
    for r in m.results:
        assert 0 <= r["trick_points"] <= m.rules.total_points


# ----------------------------------------------------------------------- legal actions
@settings(max_examples=24, deadline=None, suppress_health_check=SLOW)
@given(seed=seeds, key=st.sampled_from(MAIN_KEYS), later=st.booleans())
def test_legal_actions_apply_and_bad_actions_change_nothing(
    seed: int, key: str, later: bool
) -> None:
    m = new_match(key, seed, later, auto_deal=False)
    rng = random.Random(seed)
    checker = random.Random(seed + 1)
    kinds: set[str] = set()
    while not m.results:
        seat = m.to_act
        assert seat is not None
        if seat != CHANCE:
            kinds.add(m.legal_actions(seat).kind.value)  # type: ignore[union-attr]
            # Bad actions at every decision but a sample of plays (they dominate the time).
            bad = m.phase is not Phase.PLAY or checker.random() < 0.3
            check_decision(m, seat, checker, bad=bad)
        m.apply(m.legal_actions(seat).sample(rng))
        check_conservation(m)
    assert "play" in kinds


def test_bad_deals_change_nothing() -> None:
    m = Match(preset("gunzi"), random.Random(1), auto_deal=False)
    assert m.to_act == CHANCE and m.phase is Phase.DEAL
    expect_rejected(m, A.deal(-1), MalformedActionError)
    expect_rejected(m, Action(Kind.DEAL, CHANCE), MalformedActionError)
    expect_rejected(m, A.deal(2**256), MalformedActionError)
    expect_rejected(m, A.deal(5, deck=C.deck(2)), IllegalActionError)
    short = C.deck(3)
    short[0] = short[1]
    expect_rejected(m, A.deal(5, deck=short), IllegalActionError)
    expect_rejected(m, A.play(0, [1]), OutOfTurnError)
    expect_rejected(m, A.pass_(0), OutOfTurnError)
    later = Match(preset("gunzi"), random.Random(1), auto_deal=False, levels=(2, 3), dealer=1)
    expect_rejected(later, A.deal(5, first_seat=2), IllegalActionError)
    m.apply(A.deal(5))
    assert m.phase is not Phase.DEAL


@pytest.mark.parametrize("payload", [
    {"type": "fly", "seat": 0},
    {"type": "play", "seat": 4, "cards": ["AS"]},
    {"type": "play", "seat": True, "cards": ["AS"]},
    {"type": "play", "seat": 0, "cards": ["ZZ"]},
    {"type": "play", "seat": 0, "cards": 5},
    {"type": "play", "seat": 0, "cards": "AS"},
    {"type": "bury_jokers", "seat": 0, "cards": ["BJ"], "take": "3C"},
    {"type": "play", "seat": 0, "cards": [5]},
    {"type": "play", "seat": 0, "cards": ["AS"] * 65},
    {"type": "declare", "seat": 0, "cards": ["3S"], "suit": "X"},
    {"type": "deal", "seed": "1"},
    {"type": "deal", "seed": 1, "deck": "AS"},
    {"type": "deal", "seed": 1, "first_seat": 9},
    ["play"],
])
def test_malformed_wire_actions(payload: Any) -> None:
    with pytest.raises(MalformedActionError):
        A.from_dict(payload)


def _at_phase(key: str, phase: Phase, seed: int = 3, **start: Any) -> Match:
    for s in range(seed, seed + 200):
        m = Match(RULESETS[key], random.Random(s), **start)
        rng = random.Random(s)
        while not m.is_over and m.phase is not phase and not m.results:
            m.apply(m.legal_actions(m.to_act).sample(rng))  # type: ignore[arg-type]
        if m.phase is phase and not m.results:
            return m
    raise AssertionError(f"no seed reaches {phase}")


BAD_IDS = [99, 54, -1, -54]
PHASES = [
    ("gunzi", Phase.PLAY, {}),
    ("gunzi", Phase.BURY, {}),
    ("gunzi", Phase.TRIBUTE, {"levels": (2, 2), "dealer": 0, "blood": 3}),
    ("gunzi", Phase.RETURN, {"levels": (2, 2), "dealer": 0, "blood": 3}),
    ("classic-2", Phase.PLAY, {}),
    ("classic-2", Phase.BURY, {}),
]


@pytest.mark.parametrize(("key", "phase", "start"), PHASES,
                         ids=[f"{k}-{p.value}" for k, p, _ in PHASES])
def test_card_ids_out_of_range_are_rejected(key: str, phase: Phase, start: dict[str, Any]) -> None:
    m = _at_phase(key, phase, **start)
    seat = m.to_act
    assert seat is not None
    good = m.legal_actions(seat).sample(random.Random(0))
    failures = []
    for bad_id in BAD_IDS:
        bad = dataclasses.replace(good, cards=(*good.cards[1:], bad_id))
        before = fingerprint(m)
        try:
            m.verify(bad)
            failures.append(f"{bad_id}: accepted")
        except GunziError:
            pass
        except Exception as exc:
            failures.append(f"{bad_id}: {type(exc).__name__}")
        assert fingerprint(m) == before
    assert not failures, failures


def test_first_return_action_comes_quickly() -> None:
    m = Match(preset("gunzi"), random.Random(1), levels=(3, 3), dealer=0, blood=8)
    rng = random.Random(1)
    while m.phase is not Phase.RETURN:
        m.apply(m.legal_actions(m.to_act).sample(rng))  # type: ignore[arg-type]
    seat = m.to_act
    assert seat == 0 and m.tribute_n == 8
    assert m.can_apply(m.legal_actions(seat).selection().sample(random.Random(0)))

    def timeout(*_: Any) -> None:
        raise TimeoutError("no return action after 3 s")

    old = signal.signal(signal.SIGALRM, timeout)
    signal.setitimer(signal.ITIMER_REAL, 3.0)
    try:
        first = next(iter(m.legal_actions(seat)))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert m.can_apply(first)


# ------------------------------------------------------------------------- termination
@settings(max_examples=12, deadline=None, suppress_health_check=SLOW)
@given(seed=seeds, key=st.sampled_from(["gunzi", "gunzi-variants"]))
def test_gunzi_match_of_one_round_finishes(seed: int, key: str) -> None:
    rules = RULESETS[key]
    assert rules.rounds == 1
    m = Match(rules, random.Random(seed))
    steps = drive(m, random.Random(seed + 1), hands=10**6, limit=60000)
    assert m.is_over and m.to_act is None
    assert steps < 60000
    assert len(m.round_winners) == 1
    last = m.results[-1]
    assert last["round_winner"] == m.round_winners[0]
    assert last["round_end"] is not None
    assert m.events[-1].type == "match_end"
    assert sum(m.scores) == 0  # A12 scores are zero-sum per hand


@settings(max_examples=15, deadline=None, suppress_health_check=SLOW)
@given(seed=seeds, key=st.sampled_from(["classic-1", "classic-2", "classic-3"]))
def test_classic_game_finishes_by_passing_a(seed: int, key: str) -> None:
    rules = RULESETS[key]
    m = Match(rules, random.Random(seed))
    steps = drive(m, random.Random(seed + 1), hands=10**6, limit=60000)
    assert m.is_over and steps < 60000
    last = m.results[-1]
    assert last["round_end"] == "passed-A"
    winner = last["round_winner"]
    assert last["levels_after"][winner] == 13
    assert last["levels_before"][winner] == rules.last_level
    assert all(r["round_end"] is None for r in m.results[:-1])
    assert len(last["game_points"]) == 4


# ------------------------------------------------------------------------------ secrecy
SECRET_CARD_EVENTS = {"draw", "take_kitty", "bury", "tribute", "return"}


def running_hand(m: Match) -> int:
    """The hand whose secrets are still hidden (0 when none is running)."""
    return 0 if m.phase in (Phase.DEAL, Phase.OVER) else m.hand_no


def check_secrets(m: Match, seat: int | None) -> None:
    """``seat`` (or a spectator) sees no secret card of another seat in a running hand."""
    live = running_hand(m)
    events = stream(m, seat)
    assert [d["seq"] for d in events] == list(range(1, len(events) + 1))
    for d in events:
        # Entries of finished hands are revealed in full; only the running hand is checked.
        if d.get("hand") != live:
            continue
        kind = d["type"]
        assert "seed" not in d and "deck" not in d, d
        if kind == "pass" and "n" in d:  # a draw-phase pass is private
            assert d["seat"] == seat, d
        if kind not in SECRET_CARD_EVENTS:
            continue
        owners = {d["seat"]}
        if kind in ("tribute", "return"):
            owners.add(d["to"])
        if seat not in owners:
            assert "card" not in d and "cards" not in d, f"seat {seat} sees {d}"
        else:
            assert ("card" in d) or ("cards" in d), d
    v = view(m, seat)
    if seat is None:
        assert v["hand"] is None
        assert "cards" not in v["tribute"]
    else:
        order = m.order
        assert v["hand"] == C.names(sorted(held_cards(m, seat), key=order.sort_key))
        if seat not in (m.payer, m.payee):
            assert "cards" not in v["tribute"]
    if v["kitty"]["cards"] is not None:
        assert m.kitty_shown or (seat is not None and seat in m.kitty_known_by)
    if m.phase is Phase.DRAW and m.to_act != seat:
        assert v["to_act"] is None
    # No other seat's hand in the view, whatever the key.
    others = [C.names(sorted(held_cards(m, s), key=m.order.sort_key))
              for s in range(4) if s != seat and any(m.hands[s])]
    flat = repr(v)
    for hand in others:
        if len(hand) >= 5:
            assert repr(hand) not in flat


@settings(max_examples=30, deadline=None, suppress_health_check=SLOW)
@given(seed=seeds, key=st.sampled_from(list(RULESETS)), later=st.booleans())
def test_streams_and_views_hide_other_seats_cards(seed: int, key: str, later: bool) -> None:
    m = new_match(key, seed, later)
    rng = random.Random(seed)
    probe = random.Random(seed + 7)
    points = 0

    def step(match: Match, seat: int) -> None:
        nonlocal points
        if match.phase is not Phase.PLAY or probe.random() < 0.08:
            points += 1
            for viewer in (None, 0, 1, 2, 3):
                check_secrets(match, viewer)

    drive(m, rng, hands=2, on_step=step)
    assert points > 0
    # After the hands: the finished hands are shown in full.
    finished = sum(1 for d in stream(m, None) if d["type"] == "hand_end")
    assert finished >= 1
    revealed = [d for d in stream(m, 1) if d["type"] == "draw" and "card" in d]
    assert len(revealed) >= finished * 4 * m.rules.hand_size


@pytest.mark.parametrize("key", ["gunzi", "classic-2"])
def test_stream_entries_only_gain_fields_when_the_hand_is_revealed(key: str) -> None:
    m = Match(RULESETS[key], random.Random(4))
    rng = random.Random(4)
    while not (m.phase is Phase.PLAY and m.trick_no > 3):
        m.apply(m.legal_actions(m.to_act).sample(rng))  # type: ignore[arg-type]
    during = {seat: stream(m, seat) for seat in (None, 0, 1, 2, 3)}
    drive(m, rng, hands=1)
    for seat, entries in during.items():
        after = {d["seq"]: d for d in stream(m, seat)}
        for d in entries:
            later = after[d["seq"]]
            lost = {k: v for k, v in d.items() if later.get(k, object()) != v}
            assert not lost, f"seat {seat}, seq {d['seq']}: {lost} gone from {later}"


# -------------------------------------------------------------------- noninterference
class Reject(Exception):
    """The two deals cannot be driven through the same public decisions."""


def other_policy(m: Match, seat: int) -> Action:
    """Others: never declare, pass joker burying, bury the kitty back, forced tribute."""
    legal = m.legal_actions(seat)
    kind = legal.kind
    if kind in (Kind.DECLARE, Kind.BURY_JOKERS):
        return A.pass_(seat)
    if kind is Kind.TRIBUTE:
        return sorted(legal, key=lambda a: a.cards)[0]
    if kind is Kind.RETURN:
        return legal.selection().sample(random.Random(0))
    if kind is Kind.BURY:
        action = A.bury(seat, m.deck[4 * m.rules.hand_size :])
        if not m.can_apply(action):
            raise Reject
        return action
    raise AssertionError(f"unexpected {kind}")


def public(v: dict[str, Any]) -> dict[str, Any]:
    """A view without what a failed throw shows of its stopper's hand: the table sees the
    cards that beat the throw (Rule L), so that part does depend on another seat's cards."""
    throw = v.get("failed_throw")
    if throw is None:
        return v
    return {**v, "failed_throw": {k: x for k, x in throw.items() if k not in ("blocker", "beats")}}


def snapshot(m: Match, seat: int) -> tuple[Any, ...]:
    legal = m.legal_actions(seat)
    acts = sorted(legal if legal.enumerable else islice(iter(legal), 40),
                  key=lambda a: (a.kind.value, a.cards, a.take, a.suit))
    return public(view(m, seat)), stream(m, seat), public(view(m, None)), stream(m, None), acts


def run_to_play(m: Match, s: int, rng_s: random.Random) -> list[tuple[Any, ...]]:
    """Drive until play begins; return seat s's snapshots at each of its decisions."""
    seen = []
    for _ in range(5000):
        if m.phase is Phase.PLAY:
            return seen
        seat = m.to_act
        assert seat is not None and seat != CHANCE
        if seat == s:
            seen.append(snapshot(m, s))
            m.apply(m.legal_actions(s).sample(rng_s))
        else:
            m.apply(other_policy(m, seat))
    raise AssertionError("play never began")


def shared_choices(m1: Match, m2: Match, seat: int) -> list[Action]:
    legal = m1.legal_actions(seat)
    pool = list(legal) if legal.enumerable else list(islice(iter(legal), 300))
    return sorted({a for a in pool if m2.can_apply(a)}, key=lambda a: a.cards)


NI_MODES = ["first", "later", "blood"]


@settings(max_examples=150, deadline=None, suppress_health_check=SLOW)
@given(seed=seeds, key=st.sampled_from(["gunzi", "gunzi-end-only", "gunzi-live", "classic-2",
                                        "classic-1"]),
       mode=st.sampled_from(NI_MODES), s=st.integers(0, 3), swaps=st.integers(1, 8))
def test_views_do_not_depend_on_other_seats_cards(
    seed: int, key: str, mode: str, s: int, swaps: int
) -> None:
    rules = RULESETS[key]
    if mode == "blood" and not rules.is_gunzi:
        mode = "later"
    rng = random.Random(seed)
    start: dict[str, Any] = {}
    first_seat: int | None = None
    if mode == "first":
        first_seat = rng.randrange(4)
        begin = first_seat
    else:
        lv = rng.randint(rules.first_level, rules.last_level)
        dealer = rng.randrange(4)
        if mode == "blood":
            # s neither gives nor receives the tribute: s is the dealer's 下家 or partner.
            dealer = (s - rng.choice((1, 2))) % 4
        start = {"levels": (lv, rng.randint(rules.first_level, rules.last_level)),
                 "dealer": dealer, "blood": rng.randint(1, 6) if mode == "blood" else 0}
        begin = dealer
    deck = C.deck(rules.decks)
    rng.shuffle(deck)
    size = rules.hand_size
    where = {seat: [i for i in range(4 * size) if (begin + i) % 4 == seat] for seat in range(4)}
    a, b = rng.sample([x for x in range(4) if x != s], 2)
    deck2 = list(deck)
    for _ in range(swaps):
        i, j = rng.choice(where[a]), rng.choice(where[b])
        if mode == "blood" and BJ in (deck2[i], deck2[j]):
            continue  # three BJ with the giver reverses the tribute, publicly
        deck2[i], deck2[j] = deck2[j], deck2[i]
    if deck2 == deck:
        reject()
    assert deck2[4 * size :] == deck[4 * size :]
    assert [deck[i] for i in where[s]] == [deck2[i] for i in where[s]]
    hand_seed = rng.getrandbits(256)
    matches = []
    for d in (deck, deck2):
        m = Match(rules, random.Random(0), auto_deal=False, **start)
        m.apply(A.deal(hand_seed, d, first_seat))
        matches.append(m)
    m1, m2 = matches
    try:
        seen1 = run_to_play(m1, s, random.Random(seed + 1))
        seen2 = run_to_play(m2, s, random.Random(seed + 1))
    except Reject:
        reject()
    assert len(seen1) == len(seen2)
    for x, y in zip(seen1, seen2, strict=True):
        assert x == y
    pick = random.Random(seed + 2)
    while m1.to_act != s:
        seat = m1.to_act
        assert seat is not None and m2.to_act == seat
        shared = shared_choices(m1, m2, seat)
        if not shared:
            reject()
        action = shared[pick.randrange(len(shared))]
        m1.apply(action)
        m2.apply(action)
    assert m2.to_act == s and m1.phase is Phase.PLAY and m2.phase is Phase.PLAY
    assert public(view(m1, s)) == public(view(m2, s))
    assert stream(m1, s) == stream(m2, s)
    assert public(view(m1, None)) == public(view(m2, None))
    assert stream(m1, None) == stream(m2, None)
    assert snapshot(m1, s) == snapshot(m2, s)
    # The two deals really differ for the other seats (their cards, or at least the order in
    # which they drew them: several swaps may give back the same multisets).
    secret = [[(e.public["seat"], dict(e.secret or {})) for e in m.events if e.type == "draw"]
              for m in (m1, m2)]
    assert secret[0] != secret[1]
