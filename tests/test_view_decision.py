"""The view describes each seat's decision (kind, count, options), so no client re-derives
the rules: the declarations a seat may make all through the draw, the number of cards a
tribute, return or bury takes, and nothing for a seat that is not to act."""

from __future__ import annotations

import random

import pytest

from gunzi.engine import cards as C
from gunzi.engine.match import Match, Phase
from gunzi.engine.rules import preset
from gunzi.engine.view import view


@pytest.mark.parametrize("name", ["gunzi", "classic-2"])
def test_the_view_describes_the_decision(name: str) -> None:
    seen: set[str] = set()
    for seed in range(4):
        m = Match(preset(name), random.Random(seed))
        rng = random.Random(seed)
        while not m.is_over and len(m.results) < 2:
            to = m.to_act
            assert to is not None
            for seat in (0, 1, 2, 3):
                d = view(m, seat)["decision"]
                if m.phase is Phase.DRAW:
                    want = [{"cards": C.names(a.cards),
                             **({"suit": C.SUITS[a.suit]} if a.suit >= 0 else {})}
                            for a in m.declarations(seat)]
                    assert d == {"kind": "declare", "count": None, "options": want}
                    seen.add("declare" if want else "draw")
                elif seat != to:
                    assert d is None
                else:
                    kinds = {Phase.BURY: "bury", Phase.TRIBUTE: "tribute",
                             Phase.RETURN: "return", Phase.PLAY: "play",
                             Phase.BURY_JOKERS: "bury_jokers"}
                    count = {Phase.BURY: m.rules.kitty_size, Phase.TRIBUTE: m.tribute_n,
                             Phase.RETURN: m.tribute_n}.get(m.phase)
                    assert d == {"kind": kinds[m.phase], "count": count, "options": None}
                    seen.add(d["kind"])
            assert view(m, None)["decision"] is None
            m.apply(m.legal_actions(to).sample(rng))
    assert {"declare", "bury", "play"} <= seen, seen
