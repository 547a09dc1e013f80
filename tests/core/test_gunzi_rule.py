"""The rule bot's card play on the play core: the same plays as ``rule_play``, always legal,
and card memory kept per play equal to the one ``rule_core.Odds`` rebuilds."""

from __future__ import annotations

import dataclasses
import random

import pytest

from gunzi.bots.rule_core import Odds, Params, table_from_match
from gunzi.bots.rule_play import rule_play
from gunzi.core import gunzi_rule as GR
from gunzi.core.gunzi_play import random_deal, start
from gunzi.engine.actions import play
from gunzi.engine.cards import NUM_TYPES
from gunzi.engine.match import Match
from gunzi.engine.rules import preset

from .positions import to_play

VARIANTS = [
    {"follow": "dead"},
    {"follow": "live"},
    {"follow": "dead", "permanent_twos": False},
    {"follow": "live", "permanent_twos": False},
]


def test_weights_are_the_rule_bots() -> None:
    names = {f.name: getattr(GR, f.name.upper()) for f in dataclasses.fields(Params)}
    assert names == dataclasses.asdict(Params())


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: "-".join(map(str, v.values())))
def test_same_plays_as_the_rule_bot(variant: dict[str, object]) -> None:
    """At every play decision of seeded hands (played mostly by the rule bot, sometimes at
    random, to reach varied positions) the core's play is the rule bot's play, it is legal
    for the engine, and the memory kept play by play is the one rebuilt from the tricks."""
    rules = preset("gunzi").replace(**variant)
    decisions = 0
    for seed in range(3):
        rng = random.Random(seed)
        match = Match(rules, random.Random(seed * 31 + 7))
        for _ in range(2):
            if not to_play(match, rng):
                break
            kitty = [0] * NUM_TYPES
            for c in match.kitty:
                kitty[c] += 1
            assert match.dealer is not None
            mem = GR.Memory(kitty, match.dealer, match.kitty_shown)
            game = start(match.hands, match.order, match.leader, match.live)
            hands = len(match.results)
            while len(match.results) == hands:
                seat = match.to_act
                assert seat == game.turn
                table = table_from_match(match, seat)
                odds = Odds(table)
                assert mem.played == odds.played
                assert [[bool(mem.void[s * 5 + k]) for k in range(5)] for s in range(4)] \
                    == odds.void
                assert [[bool(mem.nopair[s * 5 + k]) for k in range(5)] for s in range(4)] \
                    == odds.nopair
                got = GR.choose(game, mem)
                assert got == rule_play(table)
                legal = {tuple(sorted(a.cards)) for a in match.legal_actions(seat)}
                assert got in legal
                decisions += 1
                cards = got if rng.random() < 0.7 else rng.choice(sorted(legal))
                mem.note_play(game, cards)
                game.play(cards)
                match.apply(play(seat, cards))
            result = match.results[-1]
            assert game.is_over
            assert result["trick_points"] == game.points[result["attackers"]]
    assert decisions >= 300


def test_play_out_is_legal_at_every_step() -> None:
    """Random deals (random level, trump, leader; 死棒 and 活棒) played to the end: every play
    is one the core lists as legal, and the hand ends with all 300 points taken."""
    for i in range(40):
        rng = random.Random(i)
        game = random_deal(rng, permanent_twos=i % 2 == 0)
        game.live = i % 4 >= 2
        kitty = [0] * NUM_TYPES
        for c in range(NUM_TYPES):
            kitty[c] = 3 - sum(game.h[s * NUM_TYPES + c] for s in range(4))
        mem = GR.Memory(kitty, rng.randrange(4), i % 3 == 0)
        kitty_points = sum(kitty[c] * p for c, p in enumerate(GR._PTS))
        while not game.is_over:
            cards = GR.choose(game, mem)
            assert cards in {tuple(sorted(p)) for p in game.legal()}
            mem.note_play(game, cards)
            game.play(cards)
        assert sum(game.points) + kitty_points == 300
