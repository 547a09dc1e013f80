"""The match: a whole match of 打滚子 or classic 升级, hand after hand, behind one façade.

The engine performs every step that needs no decision (drawing cards, turning kitty
cards, collecting tricks, scoring) and stops when a seat must decide. ``to_act`` says
who; ``legal_actions(seat)`` what they may do; ``apply`` does it, pokerkit-style:
``verify`` raises a typed error and changes nothing, then the action mutates the state
and returns its immutable :class:`Event`.

Each phase of a hand is one object owning its verify and apply
(:mod:`gunzi.engine.machine` describes them); :class:`Match` maps the phases to them
(``STEPS``) and keeps the public API. What the games rule differently is the rules
object ``variant`` (:mod:`gunzi.engine.variant`).

Randomness comes only from injected generators: the match's ``rng`` makes one
seed per hand (unless the caller deals, see ``auto_deal``), and each hand's
own ``random.Random(seed)`` shuffles and draws random kitty cards. The seed's
SHA-256 is public at the deal; the seed and deck order are revealed after the
hand, so anyone can check the deal was fixed before play.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

from gunzi.engine.actions import CHANCE as CHANCE
from gunzi.engine.draw import Deal, Draw
from gunzi.engine.draw import commitment as commitment
from gunzi.engine.errors import IllegalActionError
from gunzi.engine.event_log import EventLog
from gunzi.engine.hand_end import HandEnd
from gunzi.engine.jokers import JokerBurying
from gunzi.engine.kitty import Kitty
from gunzi.engine.legal import LegalActions
from gunzi.engine.machine import Machine, Step
from gunzi.engine.play import Play
from gunzi.engine.rules import Ruleset, preset
from gunzi.engine.state import PHASE_KIND as PHASE_KIND
from gunzi.engine.state import PHASE_RULE as PHASE_RULE
from gunzi.engine.state import STATE_FIELDS as STATE_FIELDS
from gunzi.engine.state import MatchState as MatchState
from gunzi.engine.state import Phase as Phase
from gunzi.engine.state import team_of as team_of
from gunzi.engine.tribute import Tribute
from gunzi.engine.variant import variant_of
from gunzi.engine.view import view

_TRIBUTE = Tribute()  # one object for the tribute and its return


def _copy_rng(rng: random.Random) -> random.Random:
    """A generator in ``rng``'s state, independent of it. Seeded with 0 before taking the
    state: seeding from the OS (``random.Random()``) would cost twice as much, for a state
    thrown away at once."""
    new = random.Random(0)
    new.setstate(rng.getstate())
    return new


class Match(Machine):
    """A match of 打滚子 or classic 升级 between four seats (0+2 against 1+3)."""

    # Each phase's object (the tribute and its return are one; the hand end is entered
    # after the last trick and has no decision).
    STEPS: ClassVar[Mapping[Phase, Step]] = {
        Phase.DEAL: Deal(),
        Phase.DRAW: Draw(),
        Phase.TRIBUTE: _TRIBUTE,
        Phase.RETURN: _TRIBUTE,
        Phase.BURY: Kitty(),
        Phase.BURY_JOKERS: JokerBurying(),
        Phase.PLAY: Play(),
    }
    HAND_END: ClassVar[Step] = HandEnd()

    def __new__(cls, *args: Any, **kwargs: Any) -> Match:
        """A blank match, as Python makes one. Written out for the mypyc build, where a
        class without ``__new__`` runs ``__init__`` (with no arguments: a whole default
        match) in it too, and ``clone`` and :func:`gunzi.engine.view.position_from` start
        from ``Match.__new__`` (docs/performance.md)."""
        return super().__new__(cls)

    def __init__(
        self,
        rules: Ruleset | None = None,
        rng: random.Random | None = None,
        *,
        auto_deal: bool = True,
        levels: tuple[int, int] | None = None,
        dealer: int | None = None,
        blood: int = 0,
    ) -> None:
        """Start a match.

        ``levels`` (rank indices) and ``dealer`` let a match start mid-round, as
        duplicate play needs: with a dealer the first hand is a later hand of a
        round (level-card declaring, tribute of ``blood`` cards). ``auto_deal``
        off makes the match wait for a :func:`~gunzi.engine.actions.deal` action
        before every hand, so a server can supply secret seeds.
        """
        self.rules = rules or preset("gunzi")
        self.variant = variant_of(self.rules)  # what this game rules differently
        self.live = self.rules.follow == "live"  # 活棒
        self.rng = rng if rng is not None else random.Random(0)
        self.auto_deal = auto_deal
        start = self.rules.first_level
        self.levels = list(levels) if levels is not None else [start, start]
        if dealer is None and self.levels[0] != self.levels[1]:
            raise IllegalActionError(
                "the first hand of a round is played with both teams at the same level",
                self.variant.clause("A3"),
            )
        self.events = EventLog()
        self.hand_no = 0
        self.round_no = 1
        self.first = dealer is None
        self.dealer = dealer
        self.blood_next = blood
        self.scores = [0, 0, 0, 0]  # cumulative A12 scores (打滚子)
        self.failed_throws = [0, 0, 0, 0]
        self.gained = [0, 0]  # levels gained this round/game (classic ladder)
        self.results = []
        self.round_winners = []
        self.phase = Phase.DEAL
        self.current = CHANCE
        self.hand_rng = random.Random(0)
        self.reset_hand()
        self.begin(Phase.DEAL)  # deals at once with auto_deal; else waits for a deal action

    def clone(self) -> Match:
        """An independent copy (for search and what-if analysis)."""
        new = Match.__new__(Match)
        for name in STATE_FIELDS:
            value = getattr(self, name)
            if type(value) is list:  # one level deeper for the hands' count lists
                value = [list(v) if type(v) is list else v for v in value]
            setattr(new, name, value)
        new.events = self.events.copy()  # shares the packed hands
        new.follows_memo = None
        new.sampled = None
        new.rng = _copy_rng(self.rng)
        new.hand_rng = _copy_rng(self.hand_rng)
        return new

    # ------------------------------------------ the game protocol (engine/game.py)
    # apply, verify and can_apply are Machine's: the checks every decision shares, then
    # the phase object's own.
    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def returns(self) -> list[float]:
        """Per seat: the A12 scores so far (打滚子), or the Part C game points of the
        games finished so far (classic: less the failed-throw penalties)."""
        return self.variant.returns(self)

    def information_state(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may know now: :func:`gunzi.engine.view.view`."""
        return view(self, seat)

    @property
    def to_act(self) -> int | None:
        """The seat that must decide now, CHANCE (-1) for a pending deal, None when over."""
        return self.current

    def legal_actions(self, seat: int) -> LegalActions:
        """Every legal action of ``seat`` now (a view: iterate, test membership, sample)."""
        return LegalActions(self, seat)
