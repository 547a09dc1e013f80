"""``gunzi train``: a Deep Monte-Carlo self-play run (:mod:`gunzi.env.dmc`).

PyTorch is imported only when the command runs, so the rest of ``gunzi`` works without the
``[learn]`` extra.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any

import typer

from gunzi.cli_options import CardRulesOpt, OptionOpt
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


def train(
    out: Annotated[Path, typer.Option("--out", help="Run folder: checkpoint.pt, loss.jsonl")],
    rules: CardRulesOpt = "classic-1",
    hands: Annotated[int, typer.Option(min=1, help="Total hands of the run")] = 1000,
    seed: Annotated[int, typer.Option(help="Seed of the deals and of exploration")] = 0,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the run in --out")] = False,
    batch: Annotated[int, typer.Option(min=1, help="Samples per update")] = 1024,
    epsilon: Annotated[float, typer.Option(min=0.0, max=1.0, help="Exploration rate")] = 0.01,
    checkpoint_every: Annotated[int, typer.Option(min=1, help="Hands between checkpoints")
                                ] = 100,
    hidden: Annotated[int, typer.Option(min=1, help="Width of the net's hidden layers "
                                        "(a new run only; a resumed run keeps its own)")] = 256,
    option: OptionOpt = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON")] = False,
) -> None:
    """Train an action-conditioned value net by self-play (DouZero-style Deep Monte-Carlo)."""
    dmc = _dmc("train")
    changes = CATALOG.parse_overrides(option or [])
    preset(rules, **changes)  # refuse a bad preset or option before any work
    config = dmc.TrainConfig(preset=rules, hands=hands, seed=seed, epsilon=epsilon,
                             batch=batch, checkpoint_every=checkpoint_every, hidden=hidden,
                             options=changes)

    def work() -> dict[str, Any]:
        with Reporter("train", hands, "hands", quiet=json_out) as bar:
            summary: dict[str, Any] = dmc.train(
                config, out, resume=resume, progress=lambda done, text: bar.update(done, text))
        return summary

    _report("train", work, json_out,
            "{hands_done} hands, {updates} updates this run, last loss {last_loss:.4f}; "
            "{checkpoint}")


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


def _report(command: str, work: Callable[[], dict[str, Any]], json_out: bool,
            line: str) -> None:
    """Run ``work``; print its summary as JSON or as ``line``; exit 2 on a missing file
    or a checkpoint of other versions."""
    try:
        summary = work()
    except (FileNotFoundError, ValueError) as exc:
        typer.echo(f"gunzi {command}: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(json.dumps(summary) if json_out else line.format(**summary))


def register(app: typer.Typer) -> None:
    app.command(name="train")(train)
    app.command(name="export-policy")(export_policy)
