"""Training data for the ``learned`` bot's advantage net: rule-bot play, every candidate
play valued by a rollout on the true deal.

One hand: a mid-round 打滚子 deal (as the arena's banks have, :class:`~gunzi.env.cards.CardEnv`)
played by the rule bot at all four seats. At every card play with more than one legal
play, each candidate (all legal plays, or the rule bot's and ``cap - 1`` others drawn at
random when there are more) is played on the *true* deal and the hand finished by the rule
bot's card play on the play core (:func:`gunzi.bots.rollout_rule.core_rollout`, every seat
seeing only what it would see). The rule play is deterministic, so each candidate's value
is exact for that deal: Q_rule(deal, play). The label is its difference to the rule bot's
own choice, so what differs between the candidates is all that remains (no noise from how
the rest of the hand would have gone), and a net that regresses the seat's observation on
it learns the mean over the deals the seat cannot tell apart: one step of policy
improvement over the rule bot (docs/bots.md). The value is the search bot's: net levels
for the seat's team plus ``0.25`` of the attackers' score margin per 100.

To visit positions off the rule bot's path, each labelled decision plays a candidate drawn
at random instead of the rule bot's play with probability ``explore``. Never the best
candidate on the true deal: a play chosen with the hidden cards in view would let the
played cards tell the later observations about those cards, and a net trained on such
hands learns from that what it cannot know against real players (a first run did: it
gained on its held-out hands and lost 0.43 levels a hand against ``rule``).

What is stored per labelled decision: the seat's observation (``card_obs.encode`` of its
view, as the bot sees it), and per candidate its :mod:`gunzi.bots.play_features` row and
label. A hand's rows depend only on (seed, hand number).
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from gunzi.bots import card_obs, play_features
from gunzi.bots.base import Decision, observe
from gunzi.bots.determinize import knowledge, sample
from gunzi.bots.rollout import Compact, Outcome, compact_of, tables_for
from gunzi.bots.rollout_rule import core_memory, core_rollout
from gunzi.bots.rule import RuleBot
from gunzi.bots.search import SearchBot
from gunzi.engine import cards as C
from gunzi.engine.actions import Kind
from gunzi.engine.match import Match
from gunzi.env.cards import CardEnv

POINT_WEIGHT = 0.25  # the search bot's weight on the attackers' score margin
# Decisions labelled: a seat holding at most this many cards. As for the search bot (which
# searches from 12), the late decisions are where the seat knows enough for a play's mean
# advantage to show through the deals it cannot tell apart, and their rollouts are short.
MAX_CARDS = 15


@dataclass
class Labelled:
    """The labelled decisions of some hands: ``owner[i]`` is candidate i's decision."""

    obs: np.ndarray  # (D, OBS_SIZE) float16
    feats: np.ndarray  # (R, play_features.SIZE) float16
    labels: np.ndarray  # (R,) float32
    points: np.ndarray  # (R,) float32: the label's score-margin part alone (margin / 100)
    owner: np.ndarray  # (R,) int32
    hands: int
    chosen: np.ndarray  # (R,) int8: 1 at the teacher's choice (or the best label) per decision

    @staticmethod
    def join(parts: list[Labelled]) -> Labelled:
        base = np.cumsum([0] + [len(p.obs) for p in parts[:-1]])
        return Labelled(np.concatenate([p.obs for p in parts]),
                        np.concatenate([p.feats for p in parts]),
                        np.concatenate([p.labels for p in parts]),
                        np.concatenate([p.points for p in parts]),
                        np.concatenate([p.owner + b for p, b in zip(parts, base, strict=True)
                                        ]).astype(np.int32),
                        sum(p.hands for p in parts),
                        np.concatenate([p.chosen for p in parts]))

    def save(self, path: str) -> None:
        np.savez_compressed(path, obs=self.obs, feats=self.feats, labels=self.labels,
                            points=self.points, chosen=self.chosen,
                            owner=self.owner, hands=np.asarray(self.hands),
                            obs_version=np.asarray(card_obs.OBS_VERSION),
                            features_version=np.asarray(play_features.FEATURES_VERSION))

    @staticmethod
    def load(path: str) -> Labelled:
        with np.load(path) as z:
            if (int(z["obs_version"]), int(z["features_version"])) != (
                    card_obs.OBS_VERSION, play_features.FEATURES_VERSION):
                raise ValueError(f"{path}: made for other observation or feature versions")
            return Labelled(z["obs"], z["feats"], z["labels"], z["points"], z["owner"],
                            int(z["hands"]), z["chosen"])


def value(out: Outcome, team: int, dealer: int) -> tuple[float, float]:
    """The search bot's value of a hand's end for ``team``, and its margin part alone (the
    attackers' score above 120, per 100, signed for ``team``)."""
    margin = (out.score - 120) / 100
    signed = margin if team == 1 - dealer % 2 else -margin
    return out.net_levels(team) + POINT_WEIGHT * signed, signed


def hand_seed(seed: int, hand: int) -> int:
    return random.Random(f"advantage:{seed}:{hand}").getrandbits(63)


def label_hand(seed: int, hand: int, *, cap: int = 12, explore: float = 0.1,
               max_cards: int = MAX_CARDS, deals: int = 1, rule: RuleBot | None = None,
               teacher: SearchBot | None = None) -> Labelled:
    """The labelled decisions of hand ``hand`` of a run seeded ``seed``; ``deals``: each
    label averaged over the true deal and ``deals - 1`` sampled ones (less noise, more
    rollouts). With a search bot as ``teacher``, the labels are its own estimates instead
    (:meth:`~gunzi.bots.search.SearchBot.estimates`: its candidates, each one's mean
    advantage over the rule bot's play on the deals both were played on), other legal
    plays up to ``cap`` join unvalued (label NaN, never chosen), and the hand follows its
    choices: a teacher of what the seat can know, so the played cards tell the later
    observations nothing a real player's would not."""
    rule = rule or RuleBot()
    rule.new_hand()
    if teacher is not None:
        teacher.new_hand()
    env = CardEnv("gunzi", mid_round=True)
    env.reset(seed=hand_seed(seed, hand))
    match = env.match
    rng = random.Random(f"advantage-play:{seed}:{hand}")
    obs_rows: list[np.ndarray] = []
    feat_rows: list[np.ndarray] = []
    labels: list[float] = []
    points: list[float] = []
    chosen: list[int] = []
    owner: list[int] = []
    done = len(match.results)
    while len(match.results) == done and not match.is_over:
        seat = match.to_act
        assert seat is not None
        d = observe(match, seat)
        action = rule.choose(d, rng)
        if (d.kind is Kind.PLAY and d.actions is not None and len(d.actions) > 1
                and sum(d.hand) <= max_cards):
            if teacher is not None:
                cands, runs, best = teacher.estimates(d, rng)
                if len(cands) < 2 or cands[0] != action:
                    match.apply(action)
                    continue
                values = [(_paired_mean(r, runs[0]), 0.0) for r in runs]
                # The bot scores every legal play, the search only its candidates: the
                # others (up to ``cap``) join unvalued (NaN) and never chosen, so the net
                # learns that the search passed them over.
                rest = [a for a in d.actions if a not in cands]
                extra = rng.sample(rest, min(len(rest), max(0, cap - len(cands))))
                cands = [*cands, *extra]
                values += [(float("nan"), float("nan"))] * len(extra)
                action = cands[best]
            else:
                cands = [action] + [a for a in d.actions if a != action]
                if len(cands) > cap:
                    cands = [action, *rng.sample(cands[1:], cap - 1)]
                values = _values(match, d, [a.cards for a in cands], deals, rng)
            obs_rows.append(card_obs.encode(d.view, d.rules).astype(np.float16))
            feat_rows.append(play_features.features(
                d.view, d.rules, d.hand, [a.cards for a in cands], 0).astype(np.float16))
            labels.extend(v - values[0][0] for v, _ in values)
            points.extend(m - values[0][1] for _, m in values)
            pick = best if teacher is not None else max(range(len(values)),
                                                        key=lambda i: (values[i][0], -i))
            chosen.extend(int(i == pick) for i in range(len(values)))
            owner.extend([len(obs_rows) - 1] * len(cands))
            if rng.random() < explore:
                action = rng.choice(cands)
        match.apply(action)
    if not obs_rows:
        return Labelled(np.zeros((0, card_obs.OBS_SIZE), np.float16),
                        np.zeros((0, play_features.SIZE), np.float16),
                        np.zeros(0, np.float32), np.zeros(0, np.float32),
                        np.zeros(0, np.int32), 1, np.zeros(0, np.int8))
    return Labelled(np.stack(obs_rows), np.concatenate(feat_rows),
                    np.asarray(labels, dtype=np.float32), np.asarray(points, dtype=np.float32),
                    np.asarray(owner, dtype=np.int32), 1, np.asarray(chosen, dtype=np.int8))


def _paired_mean(a: list[float], b: list[float]) -> float:
    """Mean of ``a - b`` over the deals both were played on."""
    n = min(len(a), len(b))
    return sum(x - y for x, y in zip(a[:n], b[:n], strict=True)) / n if n else 0.0


def _values(m: Match, d: Decision, plays: list[tuple[int, ...]], deals: int = 1,
            rng: random.Random | None = None) -> list[tuple[float, float]]:
    """Each play's value (and its margin part) for the seat to act, the rule bot finishing:
    on the true deal, and averaged with ``deals - 1`` more deals sampled from what the seat knows
    (:func:`gunzi.bots.determinize.sample`, as the search bot samples them)."""
    view = d.view
    pos = compact_of(m)
    tables = tables_for(m.level, m.trump, m.rules.permanent_twos)
    leader = view["trick"]["leader"]
    trick = [C.parse_many(p["cards"]) for p in view["trick"]["plays"]]
    tricks = view["tricks"]
    history = [[((t["leader"] + i) % 4, tuple(C.parse_many(p)))
                for i, p in enumerate(t["plays"])] for t in tricks]
    cur = [((leader + i) % 4, tuple(p)) for i, p in enumerate(trick)]
    dealer = view["dealer"]
    live = m.rules.follow == "live"
    dry_pot = view["kitty"]["dry_pot"]
    base = core_memory(history, cur, dealer, tables.cls, live)
    positions = [pos]
    if deals > 1:
        assert rng is not None
        know = knowledge(d)
        last = tricks[-1]["winner"] if tricks else -1
        for _ in range(deals - 1):
            deal = sample(know, rng)
            positions.append(Compact(tables, deal.hands, deal.kitty, dealer, leader, trick,
                                     view["points"], last, dry_pot=dry_pot, live=live))
    team = view["seat"] % 2
    totals = [[0.0, 0.0] for _ in plays]
    for p in positions:
        public = dry_pot or C.BJ in p.kitty or C.LJ in p.kitty
        for i, cards in enumerate(plays):
            v, margin = value(core_rollout(p, cards, base, public), team, dealer)
            totals[i][0] += v
            totals[i][1] += margin
    n = len(positions)
    return [(v / n, margin / n) for v, margin in totals]


SHARD = 50  # hands per file


def _shard(task: tuple[str, int, int, int, int, float, int, int, int]) -> str:
    out, seed, first, size, cap, explore, max_cards, deals, search = task
    path = f"{out}/shard-{first:07d}.npz"
    rule = RuleBot()
    teacher = SearchBot(rollouts=search, time_limit=None) if search else None
    part = f"{path}.part.npz"  # renamed when whole: a stopped run leaves no half shard
    Labelled.join([label_hand(seed, h, cap=cap, explore=explore, max_cards=max_cards,
                               deals=deals, rule=rule, teacher=teacher)
                   for h in range(first, first + size)]).save(part)
    os.replace(part, path)
    return path


def label_run(out: str, hands: int, seed: int, *, workers: int = 1, cap: int = 12,
              explore: float = 0.1, max_cards: int = MAX_CARDS, deals: int = 1,
              search: int = 0, shard: int = SHARD,
              progress: Callable[[int], None] | None = None) -> list[str]:
    """Label ``hands`` hands (rounded up to ``shard``) into ``out/shard-*.npz``; shards
    already there are kept (a stopped run resumes), so the files depend only on the seed
    (and ``shard``). ``search``: label with a search bot of that many rollouts a decision
    (no clock, so reproducible) as the teacher, instead of the true-deal rollouts."""
    import multiprocessing
    from pathlib import Path

    Path(out).mkdir(parents=True, exist_ok=True)
    tasks = [(out, seed, first, shard, cap, explore, max_cards, deals, search)
             for first in range(0, hands, shard)
             if not Path(f"{out}/shard-{first:07d}.npz").exists()]
    kept = (hands + shard - 1) // shard - len(tasks)

    def report(results: Iterable[str]) -> None:
        for i, _ in enumerate(results, 1):
            if progress is not None:
                progress(kept + i)

    if workers == 1:
        report(map(_shard, tasks))
    else:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            report(pool.imap_unordered(_shard, tasks))
    return sorted(str(p) for p in Path(out).glob("shard-*.npz"))
