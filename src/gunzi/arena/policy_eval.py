"""Duplicate evaluation of a weights file for the ``learned`` bot, as ``gunzi train`` runs it
every ``--eval-every`` hands: the same pairs the arena plays, learned as A, the chosen bot as
B, net levels per hand of A with their CI95.

It lives with the arena so the training code (``gunzi.env``, a sibling layer) needs no
import of it: the command line hands :func:`evaluator` to the trainer.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from gunzi.arena.bank import Bank, generated_bank, load_bank
from gunzi.arena.runner import ArenaConfig, BotSpec, parse_bot, run_pairs
from gunzi.arena.stats import mean_ci95
from gunzi.engine.rules import Ruleset


def evaluator(rules: Ruleset, against: str, deals: int, *, bank: Path | None = None,
              offset: int = 0, seed: int = 0, workers: int = 1
              ) -> Callable[[Path], dict[str, Any]]:
    """A function scoring a weights file: ``learned:weights=FILE`` against ``against`` on
    ``deals`` pairs of ``bank`` from ``offset`` (deals generated from ``seed`` without a
    bank). Checks the bank and the opponent at once, before any training."""
    deal_bank: Bank = load_bank(bank) if bank is not None else generated_bank(
        rules, offset + deals, seed)
    deal_bank.check_rules(rules)
    deal_bank.take(deals, offset)  # too few deals fail now
    opponent = parse_bot(against, "B")
    opponent.make(2.0)

    def evaluate(weights: Path) -> dict[str, Any]:
        learned = BotSpec("A", f"learned:weights={weights}", "learned",
                          (("weights", str(weights)),))
        run = run_pairs(ArenaConfig(rules=rules, bots=(learned, opponent), bank=deal_bank,
                                    deals=deals, offset=offset, seed=seed, workers=workers))
        stats = mean_ci95([p.net for p in run.pairs])  # A's net levels per hand, per pair
        return {"against": against, "bank": deal_bank.id, "offset": offset,
                "pairs": stats["n"], "net": stats["mean"], "ci95": stats["ci95"],
                "eval_seconds": round(run.seconds, 3)}

    return evaluate
