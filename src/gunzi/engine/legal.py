"""Legal actions as a view object, and card-by-card builders for large choices.

``match.legal_actions(seat)`` is cheap to create. Small decisions (declaring,
tribute, joker burying, 打滚子 plays) are listed eagerly; large ones (burying
6 of 45 cards, returning tribute, classic throws) are generated lazily, and
:class:`Selection` builds them card by card, offering at each step only the
cards that can still complete a legal choice. ``sample`` draws a legal action
without listing everything, which is what random players and rollouts need.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from functools import lru_cache

from gunzi.engine.actions import Action, Kind, deal
from gunzi.engine.cards import BJ, LJ, NUM_TYPES, Card, multiset_combinations
from gunzi.engine.machine import Machine
from gunzi.engine.state import MatchState


class Selection:
    """Card-by-card builder for "choose k cards" decisions (bury, return tribute)."""

    def __init__(self, match: MatchState, seat: int, kind: Kind) -> None:
        self.match = match
        self.seat = seat
        self.kind = kind
        self.hand = match.hands[seat]
        if kind is Kind.BURY:
            self.count = match.rules.kitty_size
        else:
            self.count = match.tribute_n
            side, other, cap1, cap2, cap3 = match.return_caps(seat)
            self._tiers = (side, other)
            self._caps = (cap1, cap2, cap3)

    def _tier(self, card: Card) -> int:
        side, other = self._tiers
        return 0 if card in side else 1 if card in other else 2

    def completable(self, chosen: Sequence[Card]) -> bool:
        """Whether ``chosen`` (held, at most ``count`` cards) extends to a legal choice."""
        if len(chosen) > self.count:
            return False
        used = [0] * NUM_TYPES
        for c in chosen:
            used[c] += 1
            if used[c] > self.hand[c]:
                return False
        if self.kind is Kind.BURY:
            if self.match.variant.big_joker_first and used[LJ]:
                return self.hand[BJ] - used[BJ] <= self.count - len(chosen)
            return True
        per = [0, 0, 0]
        for c in chosen:
            per[self._tier(c)] += 1
        return all(per[i] <= self._caps[i] for i in range(3))

    def options(self, chosen: Sequence[Card]) -> list[Card]:
        """Cards that may be added to ``chosen`` with a legal completion still possible.

        Same answer as trying ``completable(chosen + [c])`` for every card, with the
        counts of ``chosen`` taken once: random players and rollouts call this for
        every card they bury.
        """
        if len(chosen) >= self.count or not self.completable(chosen):
            return []
        hand = self.hand
        used = [0] * NUM_TYPES
        for c in chosen:
            used[c] += 1
        free = [c for c in range(NUM_TYPES) if hand[c] > used[c]]
        room = self.count - len(chosen) - 1  # places left after adding one card
        if self.kind is Kind.BURY:
            if not self.match.variant.big_joker_first:
                return free
            # A6.3: a buried LJ needs every remaining BJ to fit in the kitty as well.
            bj_left = hand[BJ] - used[BJ]
            if used[LJ]:
                return [c for c in free if bj_left - (c == BJ) <= room]
            return [c for c in free if c != LJ or bj_left <= room]
        per = [0, 0, 0]
        for c in chosen:
            per[self._tier(c)] += 1
        caps = self._caps
        return [c for c in free if per[self._tier(c)] < caps[self._tier(c)]]

    def action(self, chosen: Sequence[Card]) -> Action:
        return Action(self.kind, self.seat, tuple(sorted(chosen)))

    def sample(self, rng: random.Random) -> Action:
        chosen: list[Card] = []
        while len(chosen) < self.count:
            chosen.append(rng.choice(self.options(chosen)))
        return self.action(chosen)

    def __iter__(self) -> Iterator[Action]:
        """Every legal choice, lazily, built so that each one yielded is legal."""
        hand = self.hand
        if self.kind is Kind.BURY:
            avail = [(c, hand[c]) for c in range(NUM_TYPES) if hand[c]]
            for combo in multiset_combinations(avail, self.count):
                if self.completable(combo):
                    yield self.action(combo)
            return
        # Return: exactly cap1 cards from the side tier, cap2 from the other non-point
        # tier, cap3 from the rest ([I-6]); a product of three small choices.
        side, other = self._tiers
        pools = (
            [(c, hand[c]) for c in sorted(side)],
            [(c, hand[c]) for c in sorted(other)],
            [(c, hand[c]) for c in range(NUM_TYPES) if hand[c] and c not in side | other],
        )
        for a in multiset_combinations(pools[0], self._caps[0]):
            for b in multiset_combinations(pools[1], self._caps[1]):
                for rest in multiset_combinations(pools[2], self._caps[2]):
                    yield self.action(a + b + rest)


@lru_cache(maxsize=1 << 16)
def play_action(seat: int, cards: tuple[Card, ...]) -> Action:
    """The (immutable) play action of ``seat`` with ``cards``, built once per pair.

    Random players and rollouts ask for the same few thousand plays over and over;
    building a frozen record costs more than the rest of choosing one.
    """
    return Action(Kind.PLAY, seat, cards)


_DECISION = {
    "deal": Kind.DEAL, "draw": Kind.DECLARE, "tribute": Kind.TRIBUTE, "return": Kind.RETURN,
    "bury": Kind.BURY, "bury_jokers": Kind.BURY_JOKERS, "play": Kind.PLAY,
}


class LegalActions:
    """The legal actions of one seat now: iterate, test membership, sample, or build."""

    __slots__ = ("_list", "_plays", "at", "kind", "match", "seat")  # one per decision: light

    def __init__(self, match: Machine, seat: int) -> None:
        self.match = match
        self.seat = seat
        self.at = match.events.length  # the position listed (its event count)
        self.kind: Kind | None = None
        self._list: list[Action] | None = None
        self._plays: list[tuple[Card, ...]] | None = None  # 打滚子 plays, wrapped on demand
        if match.current != seat:  # None once the match is over
            self._list = []
            return
        self.kind = _DECISION[match.phase]  # a StrEnum: keyed by its text
        if self.kind is Kind.PLAY:
            plays = match.variant.listed_plays(match, seat)
            if plays is not None:
                self._plays = plays
                self._list = []
        else:  # the phase lists small decisions; large ones are built lazily
            self._list = match.STEPS[match.phase].listed(match, seat)

    @property
    def enumerable(self) -> bool:
        """True when the actions are listed eagerly (``len`` works)."""
        return self._list is not None

    def __bool__(self) -> bool:
        return self.kind is not None

    def __len__(self) -> int:
        if self._list is None:
            raise TypeError(f"{self.kind} choices are not listed eagerly; iterate or sample")
        return len(self._plays) if self._plays is not None else len(self._list)

    def _listed(self) -> list[Action]:
        if self._plays is not None and not self._list:
            self._list = [play_action(self.seat, p) for p in self._plays]
        assert self._list is not None
        return self._list

    def __iter__(self) -> Iterator[Action]:
        if self._list is not None:
            return iter(self._listed())
        if self.kind in (Kind.BURY, Kind.RETURN):
            return iter(self.selection())
        if self.kind is Kind.PLAY:
            return self._lazy_plays()
        raise TypeError("deals are chance actions: any seed is legal")

    def __contains__(self, action: object) -> bool:
        return (
            isinstance(action, Action)
            and action.seat == self.seat
            and self.match.can_apply(action)
        )

    def selection(self) -> Selection:
        if self.kind not in (Kind.BURY, Kind.RETURN):
            raise TypeError(f"{self.kind} is not a choose-k-cards decision")
        return Selection(self.match, self.seat, self.kind)

    def sample(self, rng: random.Random) -> Action:
        """A random legal action (uniform over listed actions; a random build otherwise).

        The action is remembered (``MatchState.sampled``), so that applying it at the
        position it was drawn for verifies it by a lookup: it was drawn from the legal
        ones, or built legal card by card (a deal's seed is not: a duplicate board's
        second play must repeat its first's)."""
        if self._plays is not None:
            action = play_action(self.seat, rng.choice(self._plays))
        elif self._list is not None:
            if not self._list:
                raise IndexError(f"seat {self.seat} has no decision to make now")
            action = rng.choice(self._list)
        else:
            action = self._built(rng)
            if self.kind is Kind.DEAL:
                return action
        self.match.sampled = (self.at, action)
        return action

    def _built(self, rng: random.Random) -> Action:
        """A random legal action of a decision that is not listed eagerly."""
        if self.kind in (Kind.BURY, Kind.RETURN):
            return self.selection().sample(rng)
        if self.kind is Kind.DEAL:
            return deal(rng.getrandbits(256))
        return Action(Kind.PLAY, self.seat, self.match.variant.random_play(self.match, self.seat,
                                                                           rng))

    def _lazy_plays(self) -> Iterator[Action]:
        for cards in self.match.variant.plays(self.match, self.seat):
            yield Action(Kind.PLAY, self.seat, cards)
