"""The ``learned`` bot: a trained net run on numpy (no PyTorch at play time).

It takes either kind of exported net:

* an **advantage net** (:mod:`gunzi.bots.advantage_net`, ``gunzi train-advantage``; the
  shipped :data:`WEIGHTS`): the rule bot makes every decision, and at a 打滚子 card play
  with a choice the net scores every legal play (the seat's observation and
  :mod:`gunzi.bots.play_features`); the play of highest score replaces the rule bot's
  when it beats that play's score by more than the net's threshold. All pending
  decisions' candidates go through one product in :meth:`LearnedBot.decide_many`.
* a **token net** (Deep Monte-Carlo, ``gunzi train`` and ``gunzi export-policy``;
  :data:`DMC_WEIGHTS`): :class:`Policy` computes the same Q(s, a) as
  :class:`gunzi.env.dmc.QNet` with three matrix products (the state part of the first
  layer once per observation, one row per candidate token, the body over all candidates
  at once), and the bot builds its action token by token like the environments do
  (:mod:`gunzi.bots.card_tokens`): listed actions through their token sequences, bury and
  return card by card from ``decision.options``, a classic follow from
  ``decision.listing``, a classic lead by picking held cards of one class in id order,
  greedy on Q at each step.

:class:`LearnedBot` sees only its :class:`~gunzi.bots.base.Decision`: the observation is
encoded from ``decision.view`` (:func:`gunzi.bots.card_obs.encode`, as in training).
:meth:`LearnedBot.action_values` scores listed actions (the search bot's prior).
docs/bots.md says how the shipped nets were trained and how strong they are.
"""

from __future__ import annotations

import json
import random
from collections.abc import Generator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gunzi.bots import card_obs, play_features
from gunzi.bots import card_tokens as T
from gunzi.bots.advantage_net import KIND as ADVANTAGE
from gunzi.bots.advantage_net import AdvantagePolicy, kind_of
from gunzi.bots.base import Bot, Decision
from gunzi.bots.rule import RuleBot
from gunzi.engine import actions as A
from gunzi.engine import cards as C
from gunzi.engine.actions import Action, Kind
from gunzi.engine.errors import GunziError
from gunzi.engine.order import order_for
from gunzi.engine.rules import Ruleset, preset
from gunzi.engine.variant import variant_of

# The shipped net: an advantage net over the rule bot's 打滚子 card plays (docs/bots.md).
WEIGHTS = Path(__file__).parent / "weights" / "learned-gunzi.npz"
# The token net of gunzi train (DMC, imitation warm start), -0.60 against rule: kept for
# learned:weights=..., the environments' tests and comparison.
DMC_WEIGHTS = Path(__file__).parent / "weights" / "learned-gunzi-dmc.npz"
# The arrays of an exported net, named as the PyTorch layers of QNet they come from.
ARRAYS = ("state.weight", "state.bias", "action.weight", "body.1.weight", "body.1.bias",
          "body.3.weight", "body.3.bias")


def save(path: Path, arrays: Mapping[str, np.ndarray], *, half: bool = False,
         **meta: Any) -> None:
    """Write a net's :data:`ARRAYS` (float32, or float16 when ``half``) with the versions
    it was trained on and any metadata (hands trained, preset, ``options``: the rule
    options over the preset's defaults, a dict stored as JSON) to ``path``."""
    dtype = np.float16 if half else np.float32
    out: dict[str, Any] = {name: np.asarray(arrays[name], dtype=dtype) for name in ARRAYS}
    info = {"obs_version": card_obs.OBS_VERSION,
            "action_space_version": T.ACTION_SPACE_VERSION,
            "hidden": int(out["state.bias"].shape[0]), **meta}
    if isinstance(info.get("options"), dict):
        info["options"] = json.dumps(info["options"], sort_keys=True)
    out.update({f"meta.{k}": np.asarray(v) for k, v in info.items()})
    with Path(path).open("wb") as f:  # np.savez would add ".npz" to another suffix
        np.savez_compressed(f, **out)


def trained_options(meta: Mapping[str, Any]) -> dict[str, Any]:
    """The rule options of a net's metadata (``meta.options``: JSON written by
    :func:`save` and :func:`gunzi.bots.advantage_net.save`; none recorded: the preset's
    defaults)."""
    options: dict[str, Any] = json.loads(str(meta.get("options", "{}")))
    return options


class Policy:
    """An exported Q(s, a) token net (``gunzi train`` / ``gunzi export-policy``) evaluated
    with numpy (float32); by default the shipped one, :data:`DMC_WEIGHTS`. The shipped
    ``learned`` bot's net is an advantage net: :func:`policy` loads either kind."""

    def __init__(self, path: Path | str = DMC_WEIGHTS) -> None:
        with np.load(Path(path)) as data:
            meta = {k[5:]: data[k].item() for k in data.files if k.startswith("meta.")}
            if meta.get("kind") == ADVANTAGE:
                raise ValueError(f"{path} is an advantage net (gunzi train-advantage), not a "
                                 "token net: load it with gunzi.bots.learned.policy(path) "
                                 "or AdvantagePolicy(path); Policy reads the token nets of "
                                 "gunzi export-policy, such as learned.DMC_WEIGHTS")
            missing = [name for name in ARRAYS if name not in data.files]
            if missing:
                raise ValueError(f"{path} is not a token net of gunzi export-policy "
                                 f"(no {', '.join(missing)})")
            w = {name: data[name] for name in ARRAYS}
        versions = (meta.get("obs_version"), meta.get("action_space_version"))
        if versions != (card_obs.OBS_VERSION, T.ACTION_SPACE_VERSION):
            raise ValueError(f"{path} was trained on observation v{versions[0]} and actions "
                             f"v{versions[1]}; this code has v{card_obs.OBS_VERSION} and "
                             f"v{T.ACTION_SPACE_VERSION}")
        self._load(w, meta)

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> Policy:
        """A policy straight from a net's :data:`ARRAYS` (training's actors act with the
        learner's current weights this way, without a file)."""
        self = cls.__new__(cls)
        self._load(arrays, {"obs_version": card_obs.OBS_VERSION,
                            "action_space_version": T.ACTION_SPACE_VERSION,
                            "hidden": int(arrays["state.bias"].shape[0])})
        return self

    def _load(self, arrays: Mapping[str, np.ndarray], meta: dict[str, Any]) -> None:
        self.meta = meta
        w = {name: np.asarray(arrays[name], dtype=np.float32) for name in ARRAYS}
        self.hidden = int(self.meta["hidden"])
        self._ws = np.ascontiguousarray(w["state.weight"].T)  # (OBS_SIZE, hidden)
        self._bs = w["state.bias"]
        self._emb = w["action.weight"]  # (NUM_ACTIONS, hidden)
        self._w1 = np.ascontiguousarray(w["body.1.weight"].T)
        self._b1 = w["body.1.bias"]
        self._w2 = w["body.3.weight"][0]
        self._b2 = float(w["body.3.bias"][0])

    def _body(self, pre: np.ndarray) -> np.ndarray:
        h = np.maximum(pre, 0.0) @ self._w1 + self._b1
        out: np.ndarray = np.maximum(h, 0.0) @ self._w2 + self._b2
        return out

    def q(self, obs: np.ndarray, tokens: np.ndarray) -> np.ndarray:
        """Values of a batch: ``obs`` (B, OBS_SIZE), ``tokens`` (B,) → (B,), as QNet.forward.
        Rows may come from different decisions (many tables scored at once)."""
        return self._body(obs @ self._ws + self._bs + self._emb[tokens])

    def values(self, obs: np.ndarray, tokens: Sequence[int] | np.ndarray) -> np.ndarray:
        """Values of the candidate ``tokens`` of one observation (its state part once)."""
        state = obs @ self._ws + self._bs
        return self._body(state[None, :] + self._emb[np.asarray(tokens, dtype=np.intp)])

    def shared(self, obs: np.ndarray, owner: np.ndarray, tokens: np.ndarray) -> np.ndarray:
        """Values of candidates that share observations: ``obs`` (P, OBS_SIZE) once each,
        candidate ``i`` is token ``tokens[i]`` of observation ``owner[i]`` → (B,). One call
        scores the steps of many decisions (:meth:`LearnedBot.decide_many`)."""
        state = obs @ self._ws + self._bs
        return self._body(state[owner] + self._emb[tokens])


_POLICIES: dict[str, Policy | AdvantagePolicy] = {}


def single_thread_blas() -> None:
    """Keep numpy's BLAS on one thread in this process. Its products here are small (one
    observation, a few dozen candidates): a multi-threaded BLAS gains nothing on them and,
    on a loaded machine, waits for its threads to be scheduled. Measured on this project's
    shared 2-core VM, 20 deal pairs against rule: p95 per decision 4.4 ms with OpenBLAS's
    default threads, 0.45 ms with one; the whole run 3x faster."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")


def blas_threads() -> int | None:
    """The threads numpy's BLAS runs on now in this process (the most of its BLAS
    libraries, by threadpoolctl), or None when threadpoolctl finds no BLAS."""
    from threadpoolctl import threadpool_info

    counts = [int(p["num_threads"]) for p in threadpool_info() if p.get("user_api") == "blas"]
    return max(counts) if counts else None


def policy(path: Path | str = WEIGHTS) -> Policy | AdvantagePolicy:
    """The net of ``path`` (a token net of ``gunzi train``, or an advantage net of
    ``gunzi train-advantage``), loaded once per process (tables share it)."""
    key = str(Path(path).resolve())
    if key not in _POLICIES:
        if not _POLICIES:
            single_thread_blas()
        _POLICIES[key] = (AdvantagePolicy(path) if kind_of(path) == ADVANTAGE
                          else Policy(path))
    return _POLICIES[key]


# What a decision's builder asks for: the candidate tokens of the next step and the
# tokens built so far; it is sent the token chosen and returns the finished action.
Ask = tuple[Sequence[int], Sequence[int]]
Builder = Generator[Ask, int, Action]
Pick = Generator[Ask, int, int]


class LearnedBot(Bot):
    """Greedy on the exported net; see the module docstring."""

    name = "learned"

    def __init__(self, weights: str | Path = WEIGHTS, threshold: float | None = None) -> None:
        """``threshold``: with an advantage net, the predicted advantage a play needs to
        replace the rule bot's (default: the one saved with the net)."""
        self.policy = policy(weights)
        self.threshold = threshold
        # An advantage net corrects the rule bot's 打滚子 card plays; the rule bot makes
        # every other decision.
        self.rule = RuleBot() if isinstance(self.policy, AdvantagePolicy) else None
        self.fallbacks = 0  # decisions where the built action was not legal (should be 0)

    @property
    def trained_on(self) -> str:
        """The preset the weights were trained on (``gunzi``: 打滚子)."""
        return str(self.policy.meta.get("preset", "gunzi"))

    @property
    def trained_options(self) -> dict[str, Any]:
        """The rule options the weights were trained with, over the preset's defaults
        (``meta.options``, JSON); a file without the record (the shipped ones) was trained
        on the preset's defaults."""
        return trained_options(self.policy.meta)

    def covers(self, rules: Ruleset) -> bool:
        """Were the weights trained on these rules (the preset and its options)? Elsewhere
        the bot still plays legally (the observation and the tokens are the same for every
        card game), but its values were never fitted there: tables and the terminal say
        so."""
        try:
            trained = preset(self.trained_on, **self.trained_options)
        except GunziError:  # a preset or option this code no longer has
            return False
        return rules == trained

    def choose(self, decision: Decision, rng: random.Random) -> Action:
        return self.settle(decision, self.decide(decision), rng)

    def choose_many(self, decisions: Sequence[Decision], rng: random.Random) -> list[Action]:
        """:meth:`choose` for many decisions (seats, tables) at once: the same actions, with
        each step's candidates of all of them scored in one matrix product."""
        return [self.settle(d, a, rng)
                for d, a in zip(decisions, self.decide_many(decisions), strict=True)]

    def settle(self, decision: Decision, action: Action, rng: random.Random) -> Action:
        """``action`` if the engine accepts it, else a random legal one (counted)."""
        if decision.actions is None and decision.check(action) is not None:
            self.fallbacks += 1  # a built action the engine refuses: play a legal one
            return decision.sample(rng)
        return action

    def _obs(self, d: Decision, built: Sequence[int]) -> np.ndarray:
        return card_obs.encode(d.view, d.rules, [t for t in built if t < T.GROUP0],
                               T.TAKE in built)

    def decide(self, d: Decision) -> Action:
        """The action for ``d``, built token by token (not yet checked)."""
        if isinstance(self.policy, AdvantagePolicy):
            return self._corrected([d], self.policy)[0]
        steps = self._build(d)
        try:
            ask = next(steps)
            while True:
                candidates, built = ask
                values = self.policy.values(self._obs(d, built), candidates)
                ask = steps.send(candidates[int(np.argmax(values))])
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]

    def decide_many(self, decisions: Sequence[Decision]) -> list[Action]:
        """:meth:`decide` for each decision; the builders advance in lockstep and each round
        scores every pending step in one :meth:`Policy.shared` call."""
        if isinstance(self.policy, AdvantagePolicy):
            return self._corrected(decisions, self.policy)
        out: list[Action | None] = [None] * len(decisions)
        builders = [self._build(d) for d in decisions]
        pending: dict[int, Ask] = {}
        for i, steps in enumerate(builders):
            self._advance(i, steps, None, pending, out)
        while pending:
            order = list(pending)
            obs = np.stack([self._obs(decisions[i], pending[i][1]) for i in order])
            owner = np.concatenate([np.full(len(pending[i][0]), k, dtype=np.intp)
                                    for k, i in enumerate(order)])
            tokens = np.concatenate([np.asarray(pending[i][0], dtype=np.intp) for i in order])
            values = self.policy.shared(obs, owner, tokens)
            at = 0
            for i in order:
                candidates = pending.pop(i)[0]
                best = candidates[int(np.argmax(values[at:at + len(candidates)]))]
                at += len(candidates)
                self._advance(i, builders[i], best, pending, out)
        return [a for a in out if a is not None]

    @staticmethod
    def _advance(i: int, steps: Builder, token: int | None, pending: dict[int, Ask],
                 out: list[Action | None]) -> None:
        try:
            pending[i] = next(steps) if token is None else steps.send(token)
        except StopIteration as done:
            out[i] = done.value

    def _corrected(self, decisions: Sequence[Decision], net: AdvantagePolicy
                   ) -> list[Action]:
        """The rule bot's actions, each 打滚子 card play with more than one legal play
        replaced by the other candidate of highest score when that beats the rule play's
        score by more than the net's threshold; every such decision's candidates scored in
        one call."""
        assert self.rule is not None
        limit = net.threshold if self.threshold is None else self.threshold
        out = [self.rule.decide(d) for d in decisions]
        asks: list[tuple[int, list[Action]]] = []
        obs: list[np.ndarray] = []
        feats: list[np.ndarray] = []
        cards = int(net.meta.get("max_cards", 10**6))
        for i, d in enumerate(decisions):
            if not self._corrects(d) or sum(d.hand) > cards:
                continue  # the net was trained only on seats holding at most ``cards``
            assert d.actions is not None
            first = out[i] if out[i] in d.actions else d.actions[0]
            cands = [first] + [a for a in d.actions if a != first]
            asks.append((i, cands))
            obs.append(card_obs.encode(d.view, d.rules))
            feats.append(play_features.features(d.view, d.rules, d.hand,
                                                [a.cards for a in cands], 0))
        if not asks:
            return out
        owner = np.concatenate([np.full(len(c), k, dtype=np.intp)
                                for k, (_, c) in enumerate(asks)])
        values = net.shared(np.stack(obs), owner, np.concatenate(feats))
        at = 0
        for i, cands in asks:
            v = values[at:at + len(cands)]
            at += len(cands)
            # the runner-up to the rule play (a choice net's threshold may be negative: a
            # runner-up within that log-odds of it)
            best = 1 + int(np.argmax(v[1:]))
            out[i] = cands[best] if v[best] - v[0] > limit else cands[0]
        return out

    @staticmethod
    def _corrects(d: Decision) -> bool:
        return (d.kind is Kind.PLAY and d.actions is not None and len(d.actions) > 1
                and variant_of(d.rules).same_card_leads)

    def action_values(self, d: Decision, actions: Sequence[Action]) -> np.ndarray:
        """Q of each listed action of ``d``: the value of its last token after the ones
        before it, all in one call (the search bot's prior ranks its candidates by it).
        With an advantage net: each action's predicted advantage over the rule bot's."""
        if isinstance(self.policy, AdvantagePolicy):
            assert self.rule is not None
            rule = self.rule.decide(d)
            index = actions.index(rule) if rule in actions else -1
            return self.policy.values(card_obs.encode(d.view, d.rules), play_features.features(
                d.view, d.rules, d.hand, [a.cards for a in actions], index))
        grouped = variant_of(d.rules).same_card_leads
        seqs = [T.tokens(a, grouped) for a in actions]
        prefixes: dict[tuple[int, ...], int] = {}
        owner = np.array([prefixes.setdefault(s[:-1], len(prefixes)) for s in seqs],
                         dtype=np.intp)
        obs = np.stack([self._obs(d, p) for p in prefixes])
        return self.policy.shared(obs, owner, np.array([s[-1] for s in seqs], dtype=np.intp))

    def _build(self, d: Decision) -> Builder:
        """Build ``d``'s action; yields only the steps with more than one candidate."""
        actions = d.actions if d.actions is not None else (
            d.listing() if d.listing is not None else None)
        if actions is not None:
            return (yield from self._from_list(d, actions))
        if d.options is not None:  # bury, return: d.count cards of the seat's own
            chosen: list[int] = []
            while len(chosen) < d.count:
                chosen.append((yield from _pick(d.options(chosen), chosen)))
            return (A.bury if d.kind is Kind.BURY else A.return_)(d.seat, chosen)
        if d.kind is Kind.PLAY:
            return (yield from self._lead(d))
        raise ValueError(f"the learned bot has no answer for a {d.kind.value} decision")

    def _from_list(self, d: Decision, actions: Sequence[Action]) -> Builder:
        grouped = variant_of(d.rules).same_card_leads
        table = {T.tokens(a, grouped): a for a in actions}
        built: list[int] = []
        while True:
            built.append((yield from _pick(T.next_of(table, tuple(built)), built)))
            done = table.get(tuple(built))
            if done is not None:
                return done

    def _lead(self, d: Decision) -> Builder:
        """A classic lead: held cards of one class, picked in id order, then DONE."""
        view = d.view
        trump = view["trump"]
        cls = order_for(C.RANKS.index(view["level"]), -1 if trump is None else
                        C.SUITS.index(trump), d.rules.permanent_twos).cls
        built: list[int] = []
        while True:
            token = yield from _pick(T.lead_tokens(d.hand, cls, tuple(built)), built)
            if token == T.DONE:
                return A.play(d.seat, built)
            built.append(token)


def _pick(candidates: Sequence[int], built: Sequence[int]) -> Pick:
    """The chosen token: the only candidate, or what the driver sends for the step."""
    if len(candidates) == 1:
        return candidates[0]
    token: int = yield (candidates, list(built))
    return token
