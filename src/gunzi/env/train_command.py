"""``gunzi train``: a Deep Monte-Carlo self-play run (:mod:`gunzi.env.dmc`).

PyTorch is imported only when the command runs, so the rest of ``gunzi`` works without the
``[learn]`` extra.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any

import typer

from gunzi.bots.registry import names
from gunzi.cli_options import CardRulesOpt, OptionOpt
from gunzi.engine.errors import GunziError
from gunzi.engine.rules import CATALOG, preset
from gunzi.progress import Reporter


def _dmc(command: str) -> ModuleType:
    try:
        from gunzi.env import dmc
    except ImportError as exc:
        typer.echo(f"gunzi {command} needs PyTorch ({exc.name} is missing): "
                   "pip install -e '.[learn]'", err=True)
        raise typer.Exit(2) from None
    return dmc


# The duplicate evaluation lives with the arena (a sibling layer): the command line passes
# its factory in (gunzi.cli: register(app, evaluator=gunzi.arena.policy_eval.evaluator)).
EvaluatorFactory = Callable[..., Callable[[Path], dict[str, Any]]]
_EVALUATOR: list[EvaluatorFactory] = []


def default_actors() -> int:
    """Local actor processes by default: one per core but one (the learner's), at least 1."""
    return max(1, min(4, (os.cpu_count() or 1) - 1))


def train(
    out: Annotated[Path, typer.Option("--out", help="Run folder: checkpoint.pt, loss.jsonl, "
                                      "eval.jsonl")],
    rules: CardRulesOpt = "classic-1",
    hands: Annotated[int, typer.Option(min=1, help="Total hands of the run")] = 1000,
    seed: Annotated[int, typer.Option(help="Seed of the deals and of exploration")] = 0,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the run in --out")] = False,
    batch: Annotated[int, typer.Option(min=1, help="Samples per update")] = 1024,
    epsilon: Annotated[float, typer.Option(min=0.0, max=1.0, help="Exploration rate")] = 0.01,
    lr: Annotated[float, typer.Option(min=0.0, help="Learning rate (RMSprop)")] = 1e-4,
    checkpoint_every: Annotated[int, typer.Option(min=1, help="Hands between checkpoints")
                                ] = 100,
    hidden: Annotated[int, typer.Option(min=1, help="Width of the net's hidden layers "
                                        "(a new run only; a resumed run keeps its own)")] = 256,
    actors: Annotated[int | None, typer.Option(min=1, help="Self-play actors: local "
                                               "processes (1: in this process), or Ray actors "
                                               "with --ray [default: cores - 1]")] = None,
    ray: Annotated[str | None, typer.Option("--ray", help="Run the actors on Ray: a cluster "
                                            "address (auto, ray://HOST:10001) or 'local' "
                                            "(Ray started on this machine)")] = None,
    reuse: Annotated[int, typer.Option(min=1, help="Updates each sample takes part in")] = 1,
    round_hands: Annotated[int, typer.Option(min=1, help="Hands per round (all actors use "
                                             "the round's weights)")] = 16,
    first_hands: Annotated[bool, typer.Option("--first-hands", help="Train on a match's "
                                              "first hands, not mid-round deals like the "
                                              "arena's")] = False,
    imitate: Annotated[str | None, typer.Option(help="Warm start: imitate this bot (e.g. "
                                                "rule) for --imitate-hands hands")] = None,
    imitate_hands: Annotated[int, typer.Option(min=0, help="Hands of the imitation warm "
                                               "start")] = 0,
    imitate_epsilon: Annotated[float, typer.Option(min=0.0, max=1.0, help="Share of the "
                                                   "teacher's decisions played at random "
                                                   "instead")] = 0.1,
    eval_every: Annotated[int, typer.Option(min=0, help="Hands between duplicate "
                                            "evaluations (0: none)")] = 0,
    eval_deals: Annotated[int, typer.Option(min=1, help="Deal pairs per evaluation")] = 100,
    eval_against: Annotated[str, typer.Option(help="The evaluation's opponent bot")] = "rule",
    eval_bank: Annotated[Path | None, typer.Option(help="Deal bank of the evaluation "
                                                   "(default: deals generated from --seed)")
                         ] = None,
    eval_offset: Annotated[int, typer.Option(min=0, help="First bank deal of the "
                                             "evaluation")] = 0,
    option: OptionOpt = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON")] = False,
) -> None:
    """Train an action-conditioned value net by self-play (DouZero-style Deep Monte-Carlo)."""
    dmc = _dmc("train")
    changes = CATALOG.parse_overrides(option or [])
    ruleset = preset(rules, **changes)  # refuse a bad preset or option before any work
    if imitate is not None and imitate not in names():
        typer.echo(f"gunzi train: no bot {imitate!r} to imitate; bots: {', '.join(names())}",
                   err=True)
        raise typer.Exit(2)
    config = dmc.TrainConfig(preset=rules, hands=hands, seed=seed, epsilon=epsilon, lr=lr,
                             batch=batch, checkpoint_every=checkpoint_every, hidden=hidden,
                             options=changes, mid_round=not first_hands,
                             round_hands=round_hands, reuse=reuse, imitate=imitate,
                             imitate_hands=imitate_hands if imitate else 0,
                             imitate_epsilon=imitate_epsilon, eval_every=eval_every)
    evaluate = None
    if eval_every:
        try:
            evaluate = _EVALUATOR[0](ruleset, eval_against, eval_deals, bank=eval_bank,
                                     offset=eval_offset, seed=seed)
        except GunziError as exc:
            typer.echo(f"gunzi train: --eval-*: {exc}", err=True)
            raise typer.Exit(2) from None

    def work() -> dict[str, Any]:
        with Reporter("train", hands, "hands", quiet=json_out) as bar:
            summary: dict[str, Any] = dmc.train(
                config, out, resume=resume, actors=actors or default_actors(), ray=ray,
                evaluate=evaluate, progress=lambda done, text: bar.update(done, text))
        return summary

    _report("train", work, json_out,
            "{hands_done} hands, {updates} updates this run, last loss {last_loss:.4f}, "
            "{seconds:.0f} s; {checkpoint}")


def export_policy(
    checkpoint: Annotated[Path, typer.Argument(help="A checkpoint.pt of gunzi train")],
    file: Annotated[Path, typer.Argument(help="The weights file to write (.npz)")],
    half: Annotated[bool, typer.Option("--half", help="Store float16 (half the size)")
                    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON")] = False,
) -> None:
    """Export a trained net for the learned bot: numpy weights, no PyTorch to play."""
    dmc = _dmc("export-policy")
    _report("export-policy", lambda: dmc.export(checkpoint, file, half=half), json_out,
            "{file}: {bytes} bytes, hidden {hidden}, {dtype}, {hands} hands of {preset}")


def plot_training(
    run: Annotated[Path, typer.Argument(help="A run folder of gunzi train")],
    file: Annotated[Path, typer.Argument(help="The image to write (.png, .svg, .pdf)")],
    title: Annotated[str | None, typer.Option(help="Title of the figure")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON")] = False,
) -> None:
    """Plot a run's learning curve: loss and duplicate evaluations against hands trained."""
    from gunzi.env.train_plot import plot

    _report("plot-training", lambda: plot(run, file, title=title), json_out,
            "{file}: {updates} updates, {evaluations} evaluations, {hands} hands")


def _report(command: str, work: Callable[[], dict[str, Any]], json_out: bool,
            line: str) -> None:
    """Run ``work``; print its summary as JSON or as ``line``; exit 2 on a missing file
    or a checkpoint of other versions."""
    try:
        summary = work()
    except (FileNotFoundError, ValueError, RuntimeError) as exc:
        typer.echo(f"gunzi {command}: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(json.dumps(summary) if json_out else line.format(**summary))


def register(app: typer.Typer, evaluator: EvaluatorFactory) -> None:
    """Add ``train`` and ``export-policy``; ``evaluator`` makes the duplicate evaluation
    (:func:`gunzi.arena.policy_eval.evaluator`)."""
    _EVALUATOR[:] = [evaluator]
    app.command(name="train")(train)
    app.command(name="export-policy")(export_policy)
    app.command(name="plot-training")(plot_training)
