"""The card games as OpenSpiel Python games, so OpenSpiel's own algorithms run on them.

Importing this module registers ``python_gunzi`` (打滚子) and ``python_gunzi_classic_1``,
``_2``, ``_3`` (classic 升级): ``pyspiel.load_game("python_gunzi")``. A game is one hand.

* Chance: the deck is drawn one card per chance node (outcome = face id 0–53, weighted by
  the copies left), then one node picks the first seat to draw (4 outcomes). The engine then
  deals that exact deck (``deal(seed=0, deck=…)``), so the draw order that declaring
  depends on is chance's. A redeal or a random kitty draw inside the hand comes from the
  engine's seeded generator (seed 0): deterministic, not a chance node.
* Players act with the environments' token ids (:mod:`gunzi.bots.card_tokens`, 223 ids):
  a decision of several cards is several OpenSpiel actions by the same player. Legal ids
  come from the acting seat's own position, as in the PettingZoo environment.
* Information state string (perfect recall): the seat's own event stream
  (:func:`gunzi.engine.view.stream`, the one place that decides what a seat sees) plus its
  own choice being built. Observation string: its current view. Both tensors are
  :func:`gunzi.bots.card_obs.encode` of the view (a summary, not perfect recall).
* Returns: net levels of the hand (打滚子 A12 hand scores; classic net team levels), zero-sum.
* :func:`resample` deals the cards a seat cannot see anew among the other seats (hand sizes
  kept, shown voids respected when possible), for ISMCTS's ``set_resampler``.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pyspiel

from gunzi.bots import card_obs
from gunzi.engine import cards as C
from gunzi.engine import rules as card_rules
from gunzi.engine.actions import deal
from gunzi.engine.match import Match
from gunzi.engine.variant import variant_of
from gunzi.engine.view import knows_kitty, seat_position, stream
from gunzi.env import card_actions as CA
from gunzi.env.cards import MAX_HAND_LEVELS, net_levels
from gunzi.env.openspiel_types import game_type, register

PRESETS = {"python_gunzi": "gunzi", "python_gunzi_classic_1": "classic-1",
           "python_gunzi_classic_2": "classic-2", "python_gunzi_classic_3": "classic-3"}
MAX_UTILITY = MAX_HAND_LEVELS


TYPES = {name: game_type(name, f"Gunzi {preset} (one hand)", 4, hidden=True)
         for name, preset in PRESETS.items()}


class GunziGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel ships no type information
    """One hand of a card preset."""

    short_name = "python_gunzi"

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        short_name = self.short_name
        self.rules = card_rules.preset(PRESETS[short_name])
        cards = len(C.deck(self.rules.decks))
        info = pyspiel.GameInfo(
            num_distinct_actions=CA.NUM_ACTIONS,
            max_chance_outcomes=C.NUM_TYPES,
            num_players=4,
            min_utility=-MAX_UTILITY,
            max_utility=MAX_UTILITY,
            utility_sum=0.0,
            # Chance: every card and the first seat; each card leaves a hand in at most two
            # tokens per card (+DONE), and drawing asks each seat at most once per card.
            max_game_length=cards + 1 + 4 * cards + 8 * cards,
        )
        super().__init__(TYPES[short_name], info, params or {})

    def new_initial_state(self) -> GunziState:
        return GunziState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        perfect = iig_obs_type is None or iig_obs_type.perfect_recall
        return Observer(perfect_recall=bool(perfect))


class _Hand:
    """A state's data. OpenSpiel clones a Python state by deep-copying its attributes; this
    copies through ``Match.clone`` and replays the tokens being built, sharing the rules."""

    def __init__(self, rules: card_rules.Ruleset) -> None:
        self.rules = rules
        self.left = C.counts(C.deck(rules.decks))
        self.deck: list[int] = []
        self.match: Match | None = None
        self.builder: CA.Builder | None = None

    def next_builder(self) -> None:
        m = self.match
        assert m is not None
        if m.results:
            self.builder = None
            return
        seat = m.to_act
        assert seat is not None and seat >= 0
        own = seat_position(m, seat)
        self.builder = CA.Builder(own, own.legal_actions(seat),
                                  variant_of(self.rules).same_card_leads)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Hand:
        new = _Hand.__new__(_Hand)
        new.rules = self.rules
        new.left = list(self.left)
        new.deck = list(self.deck)
        new.match = None if self.match is None else self.match.clone()
        new.builder = None
        if self.builder is not None:
            new.rebuild(self.builder.built)
        return new

    def rebuild(self, built: list[int]) -> None:
        """A fresh builder for the seat to act, with ``built`` replayed as far as it is
        still legal (all of it, unless a resample changed the acting seat's own hand)."""
        self.next_builder()
        assert self.builder is not None
        for t in built:
            if t not in self.builder.next_tokens():
                break
            self.builder.push(t)


class GunziState(pyspiel.State):  # type: ignore[misc]
    """A hand being dealt by chance, then played through the token ids."""

    def __init__(self, game: GunziGame) -> None:
        super().__init__(game)
        self.h = _Hand(game.rules)

    @property
    def rules(self) -> card_rules.Ruleset:
        return self.h.rules

    @property
    def left(self) -> list[int]:
        return self.h.left

    @property
    def match(self) -> Match | None:
        return self.h.match

    @property
    def builder(self) -> CA.Builder | None:
        return self.h.builder

    # ---- OpenSpiel
    def current_player(self) -> int:
        if self.match is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.builder is None:
            return int(pyspiel.PlayerId.TERMINAL)
        return self.builder.legal.seat

    def _legal_actions(self, player: int) -> list[int]:
        assert self.builder is not None and player == self.builder.legal.seat
        return self.builder.next_tokens()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = sum(self.left)
        if left:
            return [(c, k / left) for c, k in enumerate(self.left) if k]
        return [(s, 0.25) for s in range(4)]

    def _apply_action(self, action: int) -> None:
        if self.match is None:
            h = self.h
            if sum(h.left):
                h.left[action] -= 1
                h.deck.append(action)
                return
            h.match = Match(self.rules, random.Random(0), auto_deal=False)
            h.match.apply(deal(0, h.deck, first_seat=action))
            h.next_builder()
            return
        assert self.builder is not None
        done = self.builder.push(action)
        if done is not None:
            self.match.apply(done)
            self.h.next_builder()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {C.name(action)}" if sum(self.left) else f"first seat {action}"
        return CA.token_name(action)

    def is_terminal(self) -> bool:
        return self.match is not None and self.builder is None

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * 4
        assert self.match is not None
        return [net_levels(self.match.results[0], s) for s in range(4)]

    def building(self, player: int) -> list[int]:
        """The tokens ``player`` has chosen so far in its decision (empty if not acting)."""
        b = self.builder
        return list(b.built) if b is not None and b.legal.seat == player else []

    def resample_from_infostate(self, player: int, sampler: Any) -> GunziState:
        return resample(self, player, random.Random(int(sampler() * 2**31)))

    def __str__(self) -> str:
        if self.match is None:
            return f"dealing: {len(self.h.deck)} cards drawn"
        return json.dumps(self.match.information_state(None), ensure_ascii=False)


class Observer:
    """OpenSpiel's PyObserver: the observation vector, or the seat's stream as a string."""

    def __init__(self, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(card_obs.OBS_SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: GunziState, player: int) -> None:
        self.tensor.fill(0)
        if state.match is not None:
            built = state.building(player)
            self.tensor[:] = card_obs.encode(
                state.match.information_state(player), state.rules,
                [t for t in built if t < CA.GROUP0], CA.TAKE in built)

    def string_from(self, state: GunziState, player: int) -> str:
        if state.match is None:
            return f"p{player} dealing"
        seen: Any = (stream(state.match, player) if self.perfect_recall
                     else state.match.information_state(player))
        return json.dumps([player, seen, state.building(player)], ensure_ascii=False,
                          sort_keys=True)


def game_name(rules: card_rules.Ruleset) -> str:
    """The registered game of a ruleset's game and decks."""
    name = variant_of(rules).name
    return "python_gunzi" if name == card_rules.GUNZI else f"python_gunzi_{name}_{rules.decks}"


def state_of(game: GunziGame, match: Match) -> GunziState:
    """A state of ``game`` at a dealt position (for a bot that searches from a guess); the
    match's own rules (options included) govern it."""
    state: GunziState = game.new_initial_state()
    h = state.h
    h.rules = match.rules
    h.left = [0] * C.NUM_TYPES
    h.match = match
    h.next_builder()
    return state


def resample(state: GunziState, player: int, rng: random.Random) -> GunziState:
    """A state ``player`` cannot tell from ``state``: the cards it cannot see (other hands,
    the kitty unless it knows it) dealt anew, sizes kept, each seat's shown voids respected
    when a random deal in a few tries finds a way. For ISMCTS's ``set_resampler``."""
    new: GunziState = state.clone()
    m = new.match
    if m is None:
        return new
    KITTY = 4  # the kitty as a fifth place, with no void
    places = [s for s in range(4) if s != player]
    room = {s: sum(m.hands[s]) for s in places}
    hidden = [c for s in places for c in C.expand(m.hands[s])]
    if not knows_kitty(m, player):
        places.append(KITTY)
        room[KITTY] = len(m.kitty)
        hidden += list(m.kitty)
    voids = _voids(state, player)
    cls = m.order.cls
    best: dict[int, list[int]] = {}
    for _ in range(20):
        rng.shuffle(hidden)
        got: dict[int, list[int]] = {p: [] for p in places}
        stranded = []
        for c in hidden:
            fits = [p for p in places if len(got[p]) < room[p] and cls[c] not in voids[p]]
            if fits:
                got[rng.choice(fits)].append(c)
            else:
                stranded.append(c)
        for c in stranded:  # no void-respecting place left: anywhere with room
            next(got[p] for p in places if len(got[p]) < room[p]).append(c)
        best = got
        if not stranded:
            break
    for p, cards in best.items():
        if p == KITTY:
            m.kitty = cards
        else:
            m.hands[p] = C.counts(cards)
    new.h.rebuild(state.building(state.current_player()))
    return new


def _voids(state: GunziState, player: int) -> dict[int, set[int]]:
    """The classes each seat has shown void in, read from ``player``'s observation."""
    assert state.match is not None
    obs = card_obs.encode(state.match.information_state(player), state.rules)
    at = card_obs.OFFSETS["voids"]
    out: dict[int, set[int]] = {4: set()}
    for s in range(4):
        rel = (s - player) % 4
        out[s] = {k for k in range(5) if obs[at + 5 * rel + k]}
    return out


GAMES = register(GunziGame, TYPES)
