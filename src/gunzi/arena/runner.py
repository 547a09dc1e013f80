"""Duplicate play of the cards: every deal twice, the two bots swapping seats, in one or K
processes (the pair itself is played by :mod:`gunzi.arena.duplicate`, the one arena loop
of every game).

Hand 0 of a pair seats bot A at 0+2 and bot B at 1+3; hand 1 seats B at 0+2 and
A at 1+3. Both start from the same :class:`~gunzi.arena.bank.Deal` (deck order
from the hand seed, dealer seat, level, no tribute). Bots are told
``new_hand()`` before every hand. Every random choice a bot may make draws from
a generator seeded by (run seed, deal index, hand, seat), so results do not
depend on the number of worker processes nor on the order pairs finish in.
"""

from __future__ import annotations

import json
import multiprocessing
import random
import sys
import time
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gunzi.arena.bank import Bank, Deal, check_deck, start_hand
from gunzi.arena.duplicate import Decide, Duplicate, play_sides
from gunzi.arena.external import (
    CRASH,
    FAULT_KINDS,
    ILLEGAL,
    BotFault,
    BotStartError,
    ExternalBot,
)
from gunzi.arena.stats import CONTINUE, Sprt
from gunzi.bots.base import Bot, Decision, RandomBot, observe
from gunzi.bots.registry import BOTS, make_bot, make_with, parse_spec
from gunzi.engine.actions import Action
from gunzi.engine.errors import GunziError
from gunzi.engine.match import Match
from gunzi.engine.rules import Ruleset

LABELS = ("A", "B")
MAX_LOGGED = 20  # fault messages per bot and process; later ones are only counted


def _rng(key: str) -> random.Random:
    return random.Random(key)  # noqa: S311 - seeded, reproducible play on purpose


# ---------------------------------------------------------------- bot specs
@dataclass(frozen=True)
class BotSpec:
    """One contestant: a registered bot (``name[:key=value...]``) or ``cmd:COMMAND``."""

    label: str
    text: str
    name: str
    params: tuple[tuple[str, Any], ...] = ()
    command: str | None = None

    def make(self, time_limit: float) -> Bot:
        if self.command is not None:
            return ExternalBot(self.command, time_limit)
        return make_with(self.name, self.params, self.text)


def parse_bot(text: str, label: str) -> BotSpec:
    text = text.strip()
    if text.startswith("cmd:"):
        command = text[4:].strip()
        if not command:
            raise GunziError("'cmd:' needs a command, e.g. cmd:python mybot.py")
        return BotSpec(label, text, "cmd", (), command)
    name, params = parse_spec(text)
    return BotSpec(label, text, name, params)


def parse_bots(text: str) -> tuple[BotSpec, BotSpec]:
    """``A,B``: two bots. A ``cmd:`` command may contain commas: after a command, a new bot
    starts only at a part beginning with ``cmd:`` or a registered bot name."""
    specs: list[str] = []
    for part in text.split(","):
        head = part.strip().split(":")[0]
        starts = part.strip().startswith("cmd:") or head in BOTS
        if specs and specs[-1].strip().startswith("cmd:") and not starts:
            specs[-1] += "," + part
        else:
            specs.append(part)
    if len(specs) != 2:
        raise GunziError(f"--bots needs exactly two bots A,B (got {len(specs)}: {text!r})")
    return parse_bot(specs[0], "A"), parse_bot(specs[1], "B")


# ---------------------------------------------------------------- config
@dataclass(frozen=True)
class ArenaConfig:
    rules: Ruleset
    bots: tuple[BotSpec, BotSpec]
    bank: Bank
    deals: int
    offset: int = 0
    seed: int = 0
    workers: int = 1
    time_limit: float = 2.0
    sprt: bool = False
    sprt_min_pairs: int = 20
    fallback: str = "rule"


# ---------------------------------------------------------------- results
@dataclass(frozen=True)
class HandOutcome:
    """One hand of a pair, from A's point of view."""

    a_team: int  # 0: A at seats 0+2, 1: A at seats 1+3
    dealer: int
    attackers: int  # attacking team
    attackers_take: bool
    levels_awarded: int
    score: int  # attackers' score
    kou: bool
    net: int  # levels gained by A's team minus levels gained by B's team
    round_end: str | None

    @property
    def a_deals(self) -> bool:
        return self.dealer % 2 == self.a_team


def net_levels(result: dict[str, Any], a_team: int) -> int:
    """A's net levels in one hand: the upgrading team's levels, signed from A's side."""
    levels = int(result["levels_awarded"])
    if levels <= 0:
        return 0
    attackers = int(result["attackers"])
    upgrading = attackers if result["attackers_take"] else 1 - attackers
    return levels if upgrading == a_team else -levels


def outcome(result: dict[str, Any], a_team: int) -> HandOutcome:
    return HandOutcome(
        a_team=a_team,
        dealer=int(result["dealer"]),
        attackers=int(result["attackers"]),
        attackers_take=bool(result["attackers_take"]),
        levels_awarded=int(result["levels_awarded"]),
        score=int(result["score"]),
        kou=bool(result["kou"]),
        net=net_levels(result, a_team),
        round_end=result.get("round_end"),
    )


def _faults() -> dict[str, int]:
    return dict.fromkeys(FAULT_KINDS, 0)


@dataclass
class PairResult:
    """Both hands of one deal, with per-bot decision counts, faults and latencies."""

    position: int  # index in this run
    deal: Deal
    hands: tuple[HandOutcome, ...] = ()  # hand 0 (A at 0+2), hand 1 (A at 1+3)
    decisions: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LABELS, 0))
    faults: dict[str, dict[str, int]] = field(
        default_factory=lambda: {label: _faults() for label in LABELS})
    fallbacks: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LABELS, 0))
    latency: dict[str, array[float]] = field(
        default_factory=lambda: {label: array("d") for label in LABELS})
    seconds: float = 0.0

    @property
    def net(self) -> float:
        """A's net levels per hand over the pair."""
        return (self.hands[0].net + self.hands[1].net) / 2

    def record(self) -> dict[str, Any]:
        """One line of the per-pair output (``--pairs FILE``)."""
        return {
            "deal": self.deal.index, "seed": self.deal.seed, "dealer": self.deal.dealer,
            "level": self.deal.level, "net": self.net,
            "hands": [
                {"a_seats": [h.a_team, h.a_team + 2], "attackers": h.attackers,
                 "score": h.score, "kou": h.kou, "take": h.attackers_take,
                 "levels": h.levels_awarded, "net": h.net, "round_end": h.round_end}
                for h in self.hands
            ],
            "faults": {k: sum(v.values()) for k, v in self.faults.items()},
        }


# ---------------------------------------------------------------- players (one set per process)
class Players:
    """The bots of one process: two instances of each contestant (one per partner seat)
    and a fallback bot per seat slot."""

    def __init__(self, config: ArenaConfig) -> None:
        self.config = config
        self.bots: dict[str, list[Bot]] = {
            spec.label: [spec.make(config.time_limit) for _ in range(2)] for spec in config.bots
        }
        self.fallback_name, self.fallbacks = _fallbacks(config.fallback)
        self.logged = dict.fromkeys(LABELS, 0)

    def close(self) -> None:
        for bots in self.bots.values():
            for bot in bots:
                if isinstance(bot, ExternalBot):
                    bot.close()

    def log(self, label: str, text: str) -> None:
        self.logged[label] += 1
        if self.logged[label] <= MAX_LOGGED:
            sys.stderr.write(f"arena: {text}\n")
            if self.logged[label] == MAX_LOGGED:
                sys.stderr.write(f"arena: further faults of bot {label} in this process are "
                                 "counted, not logged\n")
            sys.stderr.flush()


def _fallbacks(preferred: str) -> tuple[str, list[Bot]]:
    """Four fallback bots (one per seat); the rule bot if it can be made, else random."""
    for name in (preferred, "random"):
        try:
            return name, [make_bot(name) for _ in range(4)]
        except Exception:  # the rule bot may not exist yet, or be broken
            continue
    return "random", [RandomBot() for _ in range(4)]


def _fallback_action(players: Players, seat: int, decision: Decision,
                     rng: random.Random) -> Action:
    try:
        action = players.fallbacks[seat].choose(decision, rng)
        if isinstance(action, Action) and decision.check(action) is None:
            return action
    except Exception:  # a broken fallback still leaves a random legal move
        pass
    return decision.sample(rng)


def play_pair(players: Players, position: int, deal: Deal) -> PairResult:
    """Both hands of ``deal`` (:func:`~gunzi.arena.duplicate.play_sides`: hand 0 seats A
    at 0+2, hand 1 at 1+3), each played until its hand ends."""
    config = players.config
    rules = config.rules
    started = time.perf_counter()
    pair = PairResult(position, deal)

    def start() -> Match:
        match = start_hand(rules, deal)
        check_deck(rules, deal, match)
        return match

    def deciders(hand: int, seat_label: list[str]) -> Decide[Match]:
        seat_bot = [players.bots[seat_label[s]][s // 2] for s in range(4)]
        rngs = [_rng(f"arena:{config.seed}:{deal.index}:{hand}:{s}") for s in range(4)]
        fb_rngs = [_rng(f"fallback:{config.seed}:{deal.index}:{hand}:{s}") for s in range(4)]
        for s in range(4):
            bot = seat_bot[s]
            if isinstance(bot, ExternalBot):
                bot.seat = s
            bot.new_hand()
            players.fallbacks[s].new_hand()

        def decide(match: Match, seat: int) -> Action:
            label = seat_label[seat]
            decision = observe(match, seat)
            fault: tuple[str, str] | None = None
            t0 = time.perf_counter()
            try:
                action: Any = seat_bot[seat].choose(decision, rngs[seat])
            except BotStartError:
                raise
            except BotFault as exc:
                fault = (exc.kind, str(exc))
            except Exception as exc:
                fault = (CRASH, f"{type(exc).__name__}: {exc}")
            elapsed = time.perf_counter() - t0
            pair.latency[label].append(elapsed)
            pair.decisions[label] += 1
            if fault is None:
                if not isinstance(action, Action):
                    fault = (ILLEGAL, f"returned {type(action).__name__}, not an Action")
                else:
                    reason = decision.check(action)
                    if reason is not None:
                        fault = (ILLEGAL, f"illegal action {action}: {reason}")
            if fault is None:
                assert isinstance(action, Action)
                return action
            kind, text = fault
            pair.faults[label][kind] += 1
            pair.fallbacks[label] += 1
            spec = config.bots[LABELS.index(label)]
            seating = "A at 0+2" if hand == 0 else "A at 1+3"
            players.log(label, f"bot {label} ({spec.text}) seat {seat}, deal {deal.index} "
                               f"({seating}), {decision.kind.value}: {kind}: {text}; "
                               f"playing the fallback ({players.fallback_name})")
            return _fallback_action(players, seat, decision, fb_rngs[seat])

        return decide

    played = play_sides(Duplicate(4, start, _hand_ended), deciders)
    pair.hands = tuple(outcome(match.results[0], a_team)
                       for a_team, (_, match) in enumerate(played))
    pair.seconds = time.perf_counter() - started
    return pair


def _hand_ended(match: Match) -> bool:
    return bool(match.results)


# ---------------------------------------------------------------- worker processes
_PLAYERS: Players | None = None
_INIT_ERROR: Exception | None = None


def _init_worker(config: ArenaConfig, bots: dict[str, str]) -> None:
    # An initializer that raises makes a Pool restart its workers forever: keep the error
    # and raise it from the first task instead.
    global _PLAYERS, _INIT_ERROR
    BOTS.update(bots)  # the parent's registered bots (a spawned worker imports less)
    try:
        _PLAYERS = Players(config)
    except Exception as exc:
        _INIT_ERROR = exc
        return
    from multiprocessing import util

    util.Finalize(None, _close_worker, exitpriority=10)


def _close_worker() -> None:
    global _PLAYERS
    if _PLAYERS is not None:
        _PLAYERS.close()
        _PLAYERS = None


def _play_task(task: tuple[int, Deal]) -> PairResult:
    if _INIT_ERROR is not None:
        raise _INIT_ERROR
    assert _PLAYERS is not None
    return play_pair(_PLAYERS, *task)


def _pairs_in_process(config: ArenaConfig, tasks: Sequence[tuple[int, Deal]]
                      ) -> Iterator[PairResult]:
    players = Players(config)
    try:
        for position, deal in tasks:
            yield play_pair(players, position, deal)
    finally:
        players.close()


def _pairs_in_pool(config: ArenaConfig, tasks: Sequence[tuple[int, Deal]]
                   ) -> Iterator[PairResult]:
    ctx = multiprocessing.get_context("spawn")
    pool = ctx.Pool(config.workers, initializer=_init_worker,
                    initargs=(config, dict(BOTS)))
    finished = False
    try:
        yield from pool.imap(_play_task, tasks, chunksize=1)
        finished = True
    finally:
        if finished:
            pool.close()
        else:
            pool.terminate()  # early stop (SPRT) or an error
        pool.join()


# ---------------------------------------------------------------- the run
@dataclass
class Progress:
    done: int
    total: int
    net: float
    half_width: float | None
    seconds: float
    sprt: str | None


@dataclass
class RunResult:
    config: ArenaConfig
    pairs: list[PairResult]
    seconds: float
    sprt: Sprt | None
    fallback_bot: str


def fallback_name(preferred: str) -> str:
    return _fallbacks(preferred)[0]


def run_pairs(config: ArenaConfig, progress: Callable[[Progress], None] | None = None,
              pairs_path: Path | None = None) -> RunResult:
    """Play the configured deal pairs (stopping early on an SPRT decision)."""
    if config.workers < 1:
        raise GunziError("--workers must be at least 1")
    if config.time_limit <= 0:
        raise GunziError("--time-limit must be positive")
    config.bank.check_rules(config.rules)
    for spec in config.bots:  # unknown names and bad parameters fail here, not in a worker
        if spec.command is None:
            spec.make(config.time_limit)
    deals = config.bank.take(config.deals, config.offset)
    tasks = list(enumerate(deals))
    sprt = Sprt(min_pairs=config.sprt_min_pairs) if config.sprt else None
    results: list[PairResult] = []
    started = time.perf_counter()
    source = (_pairs_in_process if config.workers == 1 else _pairs_in_pool)(config, tasks)
    total = sum_net = sum_sq = 0.0
    out = pairs_path.open("w", encoding="utf-8") if pairs_path is not None else None
    try:
        for pair in source:
            results.append(pair)
            if out is not None:
                out.write(json.dumps(pair.record()) + "\n")
            total += 1
            sum_net += pair.net
            sum_sq += pair.net * pair.net
            if sprt is not None:
                sprt.update(pair.net)
            if progress is not None:
                mean = sum_net / total
                half = None
                if total > 1:
                    var = max(sum_sq - total * mean * mean, 0.0) / (total - 1)
                    half = 1.96 * (var / total) ** 0.5
                progress(Progress(int(total), len(tasks), mean, half,
                                  time.perf_counter() - started,
                                  None if sprt is None else sprt.decision))
            if sprt is not None and sprt.decision != CONTINUE:
                break
    finally:
        close = getattr(source, "close", None)
        if close is not None:
            close()
        if out is not None:
            out.close()
    return RunResult(config, results, time.perf_counter() - started, sprt,
                     fallback_name(config.fallback))


def run_arena(config: ArenaConfig, progress: Callable[[Progress], None] | None = None,
              pairs_path: Path | None = None) -> dict[str, Any]:
    """Play and return the JSON report (see :func:`gunzi.arena.report.build_report`)."""
    from gunzi.arena.report import build_report

    return build_report(run_pairs(config, progress, pairs_path))
