"""The ``search`` bot: determinized Monte Carlo (PIMC) over the hidden cards.

For a 打滚子 play decision it

1. reads what its seat knows (:func:`gunzi.bots.determinize.knowledge`: played cards,
   shown voids and shapes, a known kitty, declarations, the tribute it gave, the
   return it made);
2. picks candidate plays: every legal play when there are few, else the rule bot's
   play, the plays the fast kernel policy chooses on a few sampled deals, and a spread
   of own-hand plays (lowest and highest of each suit class and shape, cheapest and
   strongest winning plays, discards with and without points);
3. repeatedly samples a deal of the unseen cards consistent with that knowledge and
   plays every candidate out to the end of the hand, all candidates on the same deals:
   with ``policy="core"`` (the default) the rule bot's card play plays the rollouts on
   the play core (:mod:`gunzi.core.gunzi_rule`: the same plays as
   :func:`~gunzi.bots.rule_play.rule_play`, card memory updated per play, compiled by
   ``make fast``), every seat seeing only what it would see; ``policy="rule"`` is the
   previous way, slower by ten times compiled: the rule bot itself, its card memory
   rebuilt at every move (:mod:`gunzi.bots.rollout_rule`), for ``rule_tricks`` tricks
   and then the fast kernel finishes (:mod:`gunzi.bots.rollout`, numba-compiled when
   numba is installed), or to the end once the seat holds ``endgame`` cards or fewer;
   with ``policy="kernel"`` the kernel plays everything;
4. scores each end with the A8 table: net levels for its team (kitty jokers included)
   plus a small weight on the attackers' score margin. With rule rollouts this is
   rollout-based policy improvement over the rule bot: its play stands unless another
   candidate's mean advantage over the same deals exceeds ``confidence`` standard
   errors (candidates that cannot catch up are dropped early). With kernel rollouts
   the best mean wins.

The budget is a number of rollouts per decision (``rollouts``) and optionally a wall
clock limit (``time_limit`` seconds), whichever ends first; at least one deal is always
sampled. All randomness comes from the generator passed to :meth:`SearchBot.choose`, so
with a rollout budget (no time limit) the same decision and generator state give the
same action, whatever the other seats really hold.

Every other decision (declaring, tribute, return, bury, joker burying, classic play) goes
to the rule bot when :mod:`gunzi.bots.rule` is available, else to simple heuristics.
"""

from __future__ import annotations

import contextlib
import math
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from gunzi.bots import rollout_rule
from gunzi.bots.base import Bot, Decision
from gunzi.bots.determinize import RETURNED, Knowledge, knowledge, sample, world
from gunzi.bots.rollout import (
    TR,
    Backend,
    Compact,
    Outcome,
    Tables,
    backend,
    k_best,
    k_dump,
    k_key,
    tables_for,
)
from gunzi.engine import actions as A
from gunzi.engine import cards as C
from gunzi.engine.actions import Action, Kind
from gunzi.engine.cards import BJ, LJ, NUM_TYPES, POINTS, Card
from gunzi.engine.match import Match
from gunzi.engine.order import order_for
from gunzi.engine.variant import variant_of

try:  # the rule bot is optional: the search bot works without it
    from gunzi.bots.rule import RuleBot as _RuleBot
except ImportError:  # pragma: no cover - depends on what is installed
    _RuleBot = None  # type: ignore[assignment,misc]


@dataclass(frozen=True)
class Rating:
    """One candidate play as :meth:`SearchBot.rate` sees it: the mean value for the seat's
    team (net levels plus ``point_weight`` times the score margin), the mean attackers'
    score, over ``n`` sampled deals."""

    action: Action
    mean: float
    score: float
    n: int


class SearchBot(Bot):
    """PIMC over sampled deals with fast rollouts; see the module docstring."""

    name = "search"
    thinks = True

    def __init__(
        self,
        *,
        rollouts: int = 150,
        time_limit: float | None = 0.8,
        max_candidates: int = 6,
        policy: str = "auto",
        rule_tricks: int | None = 4,
        endgame: int = 12,
        search_cards: int | None = None,
        min_deals: int = 6,
        confidence: float = 1.0,
        point_weight: float = 0.25,
        votes: int = 6,
        backend_name: str = "auto",
        use_rule_bot: bool = True,
        classic: bool = True,
        prior: str | None = None,
        top: int | None = None,
        prior_weights: str | None = None,
        gate: float | None = None,
    ) -> None:
        """``rollouts``: rollouts per decision (all candidates together); ``time_limit``:
        seconds per decision (None: no limit); ``policy``: who plays the rollouts,
        ``core`` (the rule bot's card play on the play core, to the end of the hand),
        ``rule`` (the rule bot for ``rule_tricks`` tricks, then the kernel, to the end of
        the hand once the seat holds at most ``endgame`` cards), ``kernel``, or ``auto``
        (core when the rule bot is available, else kernel). The default 150 ``core``
        rollouts make exactly the decisions of 150 ``rule`` rollouts (the search of
        before issue 13) at a tenth of the CPU: 24 ms at the median, 49 ms at p95 on the
        compiled core, against 0.41 s and 0.96 s. More rollouts did not play better: 400
        against the old search scored -0.018 net levels per hand, CI95 [-0.064, +0.028],
        over 308 deal pairs (docs/performance.md). Plays are searched
        only once the seat holds at most ``search_cards`` cards (default: 12 with core or
        rule rollouts, where the gain is in the endgame and the kitty capture; every play
        with kernel rollouts); earlier plays are the rule bot's. With a rule bot, its play
        is the default: another candidate is played only if its mean advantage over the
        same deals exceeds ``confidence`` standard errors; candidates that cannot catch up
        are dropped after ``min_deals`` deals. ``backend_name`` picks the kernel's
        backend (``auto``: numba if installed and the kernel plays the rollouts, else
        plain Python; resolved on first use).
        ``prior="learned"``: the learned bot's Q values choose a 打滚子 play's candidates
        (:meth:`prior_candidates`): the rule bot's play and the ``top`` best-valued plays
        (default ``max_candidates - 1``); ``prior_weights``: the net of that learned bot (an
        ``.npz`` as ``learned:weights=``; default the shipped one); ``gate``: another play is
        a candidate only when its prior value beats the rule play's by more than ``gate``
        (for the shipped choice net, log-odds that the search would pick it), so a decision
        the net is sure of is played at once, unsearched (docs/bots.md: the learned bot's
        proposals checked by a few rollouts)."""
        if rollouts < 1:
            raise ValueError("rollouts must be at least 1")
        if policy not in ("auto", "core", "rule", "kernel"):
            raise ValueError("policy must be 'auto', 'core', 'rule' or 'kernel'")
        self.rollouts = rollouts
        self.time_limit = time_limit
        self.max_candidates = max(1, max_candidates)
        self.rule_tricks = rule_tricks
        self.endgame = endgame
        self.min_deals = max(1, min_deals)
        self.confidence = confidence
        self.point_weight = point_weight
        self.votes = votes
        self.backend_name = backend_name
        self.classic = classic
        self._backend: Backend | None = None
        self.rule: Bot | None = None
        if use_rule_bot and _RuleBot is not None:
            try:
                self.rule = _RuleBot()
            except Exception:  # pragma: no cover - a broken rule bot must not stop us
                self.rule = None
        if policy == "auto":
            policy = "core" if self.rule is not None else "kernel"
        if policy == "rule" and not rollout_rule.available():
            raise ValueError("policy 'rule' needs gunzi.bots.rule")
        self.policy = policy
        if search_cards is None:
            search_cards = 12 if policy in ("core", "rule") else 99
        self.search_cards = search_cards
        self.prior = _prior(prior, top, prior_weights)
        if gate is not None and self.prior is None:
            raise ValueError("gate needs a prior, e.g. search:prior=learned:top=1:gate=-1")
        self.gate = gate
        self.top = self.max_candidates - 1 if top is None else top
        self.memory: list[tuple[int, tuple[Card, ...], int]] = []
        self.stats: dict[str, Any] = {}  # figures of the last searched decision
        self.errors = 0  # searches that failed (the default play was made instead)

    @property
    def backend(self) -> Backend:
        if self._backend is None:
            name = self.backend_name
            if name == "auto" and self.policy in ("core", "rule"):
                name = "python"  # the kernel does little here: spare the numba start-up
            self._backend = backend(name)
        return self._backend

    def new_hand(self) -> None:
        self.memory = []
        if self.rule is not None:
            self.rule.new_hand()

    # ------------------------------------------------------------------ choose
    def choose(self, decision: Decision, rng: random.Random) -> Action:
        self.stats = {}
        if decision.kind is Kind.PLAY and sum(decision.hand) <= self.search_cards:
            try:
                listed = variant_of(decision.rules).same_card_leads  # plays listed eagerly
                if listed and decision.actions and len(decision.actions) > 1:
                    return self.search(decision, rng)
                if not listed and self.classic and self.policy in ("core", "rule"):
                    return self.search_classic(decision, rng)
            except Exception as exc:  # a bug must not stop a table: play the default
                self.errors += 1
                self.stats = {"error": f"{type(exc).__name__}: {exc}"}
        action = self._delegate(decision, rng)
        if decision.kind is Kind.RETURN:
            payer = decision.view["tribute"]["from"]
            if payer is not None and payer >= 0:
                self.memory.append((payer, action.cards, RETURNED))
        return action

    def _delegate(self, decision: Decision, rng: random.Random) -> Action:
        if self.rule is not None:
            try:
                action = self.rule.choose(decision, rng)
                if decision.check(action) is None:
                    return action
            except Exception:  # pragma: no cover - fall back to our own heuristics
                pass
        return fallback_action(decision, rng)

    # ------------------------------------------------------------------ search
    def search(self, decision: Decision, rng: random.Random) -> Action:
        cands, _, best = self.estimates(decision, rng)
        return cands[best]

    def estimates(self, decision: Decision, rng: random.Random
                  ) -> tuple[list[Action], list[list[float]], int]:
        """A 打滚子 play decision's candidates (the rule bot's first, with a rule policy),
        each one's rollout values on the sampled deals (fewer for a candidate dropped
        early), and the index of the one :meth:`choose` plays. Sets ``stats``."""
        start = time.perf_counter()
        cands, position, finish = self._gunzi_setup(decision, rng)
        if len(cands) == 1:
            self.stats = {"candidates": 1, "rollouts": 0, "deals": 0,
                          "seconds": time.perf_counter() - start}
            return cands, [[]], 0

        def run(pos: Compact, i: int) -> float:
            return finish(pos, cands[i])[0]

        keep_first = self.policy in ("core", "rule")
        best, values, deals, done = self._race(len(cands), position, run, rng, start,
                                               keep_first)
        self.stats = {
            "candidates": len(cands), "rollouts": done, "deals": deals, "policy": self.policy,
            "seconds": time.perf_counter() - start, "chosen": best,
            "values": {" ".join(C.names(a.cards)): round(sum(v) / len(v), 4)
                       for a, v in zip(cands, values, strict=True) if v},
        }
        return cands, values, best

    def _gunzi_setup(self, decision: Decision, rng: random.Random) -> tuple[
            list[Action], Callable[[random.Random], Compact],
            Callable[[Compact, Action], tuple[float, int]]]:
        """A 打滚子 play's candidates, a sampler of consistent deals, and a play-out of one
        candidate on one deal giving (value for the seat's team, attackers' score)."""
        assert decision.actions is not None
        seat = decision.seat
        view = decision.view
        rules = decision.rules
        know = knowledge(decision, self.memory)
        tables = tables_for(know.order.level, know.order.trump, rules.permanent_twos)
        trick = [C.parse_many(p["cards"]) for p in view["trick"]["plays"]]
        tricks = view["tricks"]
        dealer = view["dealer"]
        leader = view["trick"]["leader"]
        points = view["points"]
        last = tricks[-1]["winner"] if tricks else -1
        dry_pot = view["kitty"]["dry_pot"]
        live = rules.follow == "live"
        history = [
            [((t["leader"] + i) % 4, tuple(C.parse_many(p))) for i, p in enumerate(t["plays"])]
            for t in tricks
        ]

        def position(rng: random.Random) -> Compact:
            deal = sample(know, rng)
            return Compact(tables, deal.hands, deal.kitty, dealer, leader, trick, points, last,
                           dry_pot=dry_pot, live=live)

        cands = self.candidates(decision, know, tables, position, rng)
        team = seat % 2
        use_rule = self.policy == "rule"
        rule_tricks = None if sum(decision.hand) <= self.endgame else self.rule_tricks
        cur = [((leader + i) % 4, tuple(p)) for i, p in enumerate(trick)]
        base = None
        if self.policy == "core":
            base = rollout_rule.core_memory(history, cur, dealer, tables.cls, live)

        def finish(pos: Compact, action: Action) -> tuple[float, int]:
            if base is not None:
                public = dry_pot or BJ in pos.kitty or LJ in pos.kitty
                out = rollout_rule.core_rollout(pos, action.cards, base, public)
                return self.value(out, team, dealer), out.score
            p = pos.copy()
            done = p.play(action.cards) is not None
            if use_rule:
                public = dry_pot or BJ in pos.kitty or LJ in pos.kitty
                # A play that completes the trick puts that trick in the card memory.
                seen = [*history, [*cur, (seat, action.cards)]] if done else history
                out = rollout_rule.rule_rollout(p, seen, rules, know.order, public,
                                                rule_tricks, self.backend)
            else:
                out, _ = p.play_out(self.backend)
            return self.value(out, team, dealer), out.score

        return cands, position, finish

    # ----------------------------------------------------------- classic 升级
    def search_classic(self, decision: Decision, rng: random.Random) -> Action:
        """Classic endgames: sampled deals become engine positions (``play_position``) and
        the rule bot plays them out; the engine judges throws, tractors and scoring."""
        start = time.perf_counter()
        default = self._delegate(decision, rng)
        cands, position, finish = self._classic_setup(decision, rng, default)
        if len(cands) == 1:
            self.stats = {"candidates": 1, "rollouts": 0, "deals": 0,
                          "seconds": time.perf_counter() - start}
            return cands[0]

        def run(m: Match, i: int) -> float:
            return finish(m, cands[i])[0]

        best, values, deals, done = self._race(len(cands), position, run, rng, start, True)
        self.stats = {
            "candidates": len(cands), "rollouts": done, "deals": deals, "policy": "rule",
            "seconds": time.perf_counter() - start, "chosen": best,
            "values": {" ".join(C.names(a.cards)): round(sum(v) / len(v), 4)
                       for a, v in zip(cands, values, strict=True) if v},
        }
        return cands[best]

    def _classic_setup(self, decision: Decision, rng: random.Random, default: Action
                       ) -> tuple[list[Action], Callable[[random.Random], Match],
                                  Callable[[Match, Action], tuple[float, int]]]:
        """A classic play's candidates (``default`` first), a sampler of consistent engine
        positions, and a rule-bot play-out giving (value for the team, attackers' score)."""
        seat = decision.seat
        rules = decision.rules
        know = knowledge(decision, self.memory)

        def position(rng: random.Random) -> Match:
            return world(decision, know, sample(know, rng))

        first = position(rng)
        legal = list(islice(first.legal_actions(seat), 400))
        cands = classic_candidates(default, legal, know.order, self.max_candidates)
        team = seat % 2
        unit = 20 * rules.decks

        def finish(m: Match, action: Action) -> tuple[float, int]:
            twin = m.clone()
            twin.apply(action)
            r = rollout_rule.engine_rollout(twin)
            att = int(r["attackers"])
            lv = int(r["levels_awarded"])
            up = att if r["attackers_take"] else 1 - att
            net = (lv if up == team else -lv) if lv > 0 else 0
            margin = (int(r["score"]) - 2 * unit) / (2 * unit)
            return net + self.point_weight * (margin if team == att else -margin), int(r["score"])

        return cands, position, finish

    # ------------------------------------------------------------------ review
    def rate(self, decision: Decision, rng: random.Random,
             extra: Sequence[Action] = ()) -> list[Rating]:
        """Rate every candidate play of a play decision (and the legal ``extra`` plays) on
        the same sampled deals, for reviews: the ``rollouts`` budget is split evenly, with
        no early drops and no clock, so the figures depend only on ``rng``. Does not
        change how :meth:`choose` plays. Empty for a decision that is not a card play."""
        if decision.kind is not Kind.PLAY:
            return []
        setup: tuple[list[Action], Callable[[random.Random], Any],
                     Callable[[Any, Action], tuple[float, int]]]
        if variant_of(decision.rules).same_card_leads:
            if not decision.actions:
                return []
            setup = self._gunzi_setup(decision, rng)
        else:
            setup = self._classic_setup(decision, rng, self._delegate(decision, rng))
        cands, position, finish = setup
        for action in extra:
            if action not in cands and decision.check(action) is None:
                cands.append(action)
        if len(cands) == 1:
            return [Rating(cands[0], 0.0, 0.0, 0)]
        sums = [[0.0, 0.0] for _ in cands]
        deals = max(1, self.rollouts // len(cands))
        for _ in range(deals):
            state = position(rng)
            for i, action in enumerate(cands):
                value, score = finish(state, action)
                sums[i][0] += value
                sums[i][1] += score
        return [Rating(a, v / deals, s / deals, deals) for a, (v, s) in zip(cands, sums,
                                                                           strict=True)]

    def _race(self, n: int, deal: Callable[[random.Random], Any],
              run: Callable[[Any, int], float], rng: random.Random, start: float,
              keep_first: bool) -> tuple[int, list[list[float]], int, int]:
        """Roll out ``n`` candidates on the same sampled deals until the budget is spent.

        Returns (chosen index, values per candidate, deals, rollouts). With
        ``keep_first`` candidate 0 is the default: another one is chosen only if its mean
        advantage over the same deals exceeds ``confidence`` standard errors, and
        candidates that cannot catch up are dropped after ``min_deals`` deals; otherwise
        the best mean wins."""
        deadline = None if self.time_limit is None else start + self.time_limit
        values: list[list[float]] = [[] for _ in range(n)]
        active = list(range(n))
        deals = 0
        done = 0
        while deals == 0 or (
            done + len(active) <= self.rollouts
            and (deadline is None or time.perf_counter() < deadline)
            and len(active) > 1
        ):
            state = deal(rng)
            for i in active:
                values[i].append(run(state, i))
            done += len(active)
            deals += 1
            if keep_first and deals >= self.min_deals:
                active = [i for i in active if i == 0 or _upper(values[i], values[0]) > 1e-9]
        best = 0
        if keep_first:
            if deals >= self.min_deals:
                edge = 0.0
                for i in active[1:]:
                    mean, se = _paired(values[i], values[0])
                    if mean > self.confidence * se and mean > edge:
                        best, edge = i, mean
        else:
            means = [sum(v) / len(v) for v in values]
            best = max(range(n), key=lambda i: (means[i], -i))
        return best, values, deals, done

    def value(self, out: Outcome, team: int, dealer: int) -> float:
        """A hand's end for ``team``: net levels plus a little of the score margin."""
        margin = (out.score - 120) / 100
        attackers = 1 - dealer % 2
        return out.net_levels(team) + self.point_weight * (
            margin if team == attackers else -margin)

    # -------------------------------------------------------------- candidates
    def candidates(self, decision: Decision, know: Knowledge, tables: Tables,
                   position: Any, rng: random.Random) -> list[Action]:
        """The plays worth searching (all of them when there are few), the rule bot's
        play first when there is a rule bot."""
        assert decision.actions is not None
        if self.prior is not None:
            return self.prior_candidates(decision, rng)
        actions = list(decision.actions)
        legal = {a.cards: a for a in actions}
        ordered: list[tuple[Card, ...]] = []
        if self.rule is not None:
            with contextlib.suppress(Exception):  # the rule bot's choice is only a hint
                ordered.append(self.rule.choose(decision, rng).cards)
        if len(actions) <= self.max_candidates:
            ordered += [a.cards for a in actions]
        else:
            votes: Counter[tuple[Card, ...]] = Counter()
            pos = None
            for _ in range(self.votes):
                pos = position(rng)
                votes[pos.policy_play(self.backend)] += 1
            ordered += [p for p, _ in votes.most_common()]
            if pos is None:
                pos = position(rng)
            ordered += own_hand_plays(pos, decision.seat, tables)
        out: list[Action] = []
        seen: set[tuple[Card, ...]] = set()
        for p in ordered:
            if p in legal and p not in seen:
                seen.add(p)
                out.append(legal[p])
                if len(out) >= self.max_candidates:
                    break
        return out or actions[:1]

    def prior_candidates(self, decision: Decision, rng: random.Random) -> list[Action]:
        """With a prior: the rule bot's play (the default the race keeps unless beaten),
        then the ``top`` legal plays of highest Q, best first (ties: listed order); with a
        ``gate``, only plays whose Q beats the rule play's by more than it. The net is
        deterministic, so a rollout budget still gives reproducible decisions."""
        assert decision.actions is not None and self.prior is not None
        actions = list(decision.actions)
        values = self.prior.action_values(decision, actions)
        ranked = sorted(range(len(actions)), key=lambda i: (-float(values[i]), i))
        out: list[Action] = []
        if self.rule is not None:
            with contextlib.suppress(Exception):  # the rule bot's choice is only a hint
                default = self.rule.choose(decision, rng)
                if default in actions:
                    out.append(default)
        limit = self.top + len(out)
        floor = -math.inf
        if self.gate is not None and out:
            floor = float(values[actions.index(out[0])]) + self.gate
        for i in ranked:
            if len(out) >= limit or float(values[i]) <= floor:
                break
            if actions[i] not in out:
                out.append(actions[i])
        return out


def _prior(name: str | None, top: int | None, weights: str | None = None) -> Any:
    """The bot whose values order the candidates (``learned``, with the net of ``weights``
    if given), or None."""
    if name is None:
        if top is not None or weights is not None:
            raise ValueError("top and prior_weights need a prior, e.g. "
                             "search:prior=learned:top=3:prior_weights=g.npz")
        return None
    if name != "learned":
        raise ValueError(f"prior must be 'learned', not {name!r}")
    if top is not None and top < 1:
        raise ValueError("top must be at least 1")
    from gunzi.bots.learned import LearnedBot  # numpy only when a prior is asked for

    return LearnedBot() if weights is None else LearnedBot(weights)


def classic_candidates(default: Action, legal: Sequence[Action], order: Any, k: int
                       ) -> list[Action]:
    """The default play first, then a spread of the legal ones: cheapest, dearest, most and
    fewest points, then evenly over the plays ordered by cost."""
    def cost(a: Action) -> int:
        return sum(order.power[c] + (40 if order.cls[c] == TR else 0) for c in a.cards)

    def pts(a: Action) -> int:
        return sum(POINTS[c] for c in a.cards)

    out = [default]
    if not legal:
        return out
    ranked = sorted(legal, key=lambda a: (cost(a), a.cards))
    picks = [ranked[0], ranked[-1], max(ranked, key=pts), min(ranked, key=pts)]
    step = max(1, len(ranked) // max(1, k))
    picks += ranked[::step]
    for a in picks:
        if a not in out:
            out.append(a)
            if len(out) >= k:
                break
    return out


def _paired(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error of the paired differences a - b (over the deals b has)."""
    n = min(len(a), len(b))
    if n == 0:
        return 0.0, 0.0
    d = [a[i] - b[i] for i in range(n)]
    mean = sum(d) / n
    if n < 2:
        return mean, 0.0
    var = sum((x - mean) ** 2 for x in d) / (n - 1)
    return mean, (var / n) ** 0.5


def _upper(a: Sequence[float], b: Sequence[float]) -> float:
    """An optimistic bound on a's advantage over b: mean + 2 standard errors."""
    mean, se = _paired(a, b)
    return mean + 2.0 * se


def own_hand_plays(pos: Compact, seat: int, t: Tables) -> list[tuple[Card, ...]]:
    """A spread of plays judged from the own hand and the trick only (sorted tuples)."""
    hand = pos.hand(seat)
    cls, power = t.cls, t.power
    out: list[tuple[Card, ...]] = []
    if pos.tl == 0:
        for k in (0, 1, 2, 3, TR):
            mine = [c for c in t.order.class_cards[k] if hand[c]]
            if not mine:
                continue
            low = min(mine, key=lambda c: k_key(c, cls, power, t.points, 0))
            out.append((mine[-1],))  # strongest single
            out.append((low,))
            for n in (3, 2):
                shaped = [c for c in mine if hand[c] >= n]
                if shaped:
                    out.append((shaped[-1],) * n)
                    out.append((shaped[0],) * n)
        return out
    n = pos.tn
    led = cls[pos.trick[0]]
    _, bc, bp = k_best(pos.trick, pos.tl, pos.tn, cls, power)
    held = sum(hand[c] for c in t.order.class_cards[led])
    beat = []
    bk = led if held >= n and bc == led else TR if held == 0 and led != TR else -1
    if bk >= 0:
        beat = [c for c in t.order.class_cards[bk]
                if hand[c] >= n and not (bc == bk and power[c] <= bp)]
    if beat:
        out.append((beat[0],) * n)
        out.append((beat[-1],) * n)
    for feed in (0, 1):
        buf = [-1, -1, -1]
        k_dump(pos.hands, pos.ncls, cls, power, t.points, t.members, t.mlen, seat, led, n,
               int(pos.live), feed, -1, buf)
        out.append(tuple(sorted(buf[:n])))
    return out


# ------------------------------------------------------------ fallback heuristics


def fallback_action(d: Decision, rng: random.Random) -> Action:
    """Plain heuristics for every decision, used when the rule bot is not available."""
    seat = d.seat
    view = d.view
    hand = list(d.hand)
    if d.kind is Kind.PLAY and d.actions:
        return min(d.actions, key=lambda a: (sum(POINTS[c] for c in a.cards), a.cards))
    if d.kind is Kind.DECLARE and d.actions:
        declares = [a for a in d.actions if a.kind is Kind.DECLARE]
        if not declares:
            return d.actions[0]
        if view["first_hand"] and variant_of(d.rules).grabs_big_joker:
            return declares[0]

        def suit_len(a: Action) -> int:
            s = a.suit if a.suit >= 0 else a.cards[0] // 13
            return sum(hand[s * 13 + r] for r in range(13))

        best = max(declares, key=lambda a: (suit_len(a), len(a.cards)))
        drawn = sum(hand)
        if suit_len(best) * 4 >= max(drawn, 1) + 2 or best.cards[0] >= LJ:
            return best
        return A.pass_(seat)
    if d.kind is Kind.BURY_JOKERS:
        return A.pass_(seat)
    if d.kind in (Kind.BURY, Kind.RETURN):
        order = _order(d)
        chosen: list[Card] = []
        for _ in range(d.count):
            opts = _options(d, chosen)
            left = [hand[c] - chosen.count(c) for c in range(NUM_TYPES)]

            def key(c: Card, left: list[int] = left) -> tuple[int, int, int, int]:
                trump = order.cls[c] == TR
                suit = 99 if trump else sum(left[x] for x in order.class_cards[order.cls[c]])
                return (c >= LJ, POINTS[c] > 0, trump, suit * 100 + order.power[c])

            chosen.append(min(opts, key=key))
        action = A.bury(seat, chosen) if d.kind is Kind.BURY else A.return_(seat, chosen)
        return action if d.check(action) is None else d.sample(rng)
    if d.actions:
        return d.actions[0]
    return d.sample(rng)


def _order(d: Decision) -> Any:
    view = d.view
    level = C.RANKS.index(view["level"])
    trump = C.SUITS.index(view["trump"]) if view["trump"] else -1
    return order_for(level, trump, d.rules.permanent_twos)


def _options(d: Decision, chosen: Sequence[Card]) -> list[Card]:
    """Cards that keep a bury / return completable, judged with ``decision.check``."""
    hand = d.hand
    opts = []
    for c in range(NUM_TYPES):
        if hand[c] <= chosen.count(c):
            continue
        opts.append(c)
    # Prefer cards whose completion is legal: try the cheapest completion check.
    good = [c for c in opts if _completable(d, [*chosen, c])]
    return good or opts


def _completable(d: Decision, chosen: list[Card]) -> bool:
    if len(chosen) < d.count:
        if d.kind is Kind.BURY and LJ in chosen:
            kept_bj = d.hand[BJ] - chosen.count(BJ)
            return kept_bj <= d.count - len(chosen)
        return True
    make = A.bury if d.kind is Kind.BURY else A.return_
    return d.check(make(d.seat, chosen)) is None


__all__ = ["Rating", "SearchBot", "fallback_action", "own_hand_plays"]
