"""``gunzi train``: a Deep Monte-Carlo self-play run (:mod:`gunzi.env.dmc`).

PyTorch is imported only when the command runs, so the rest of ``gunzi`` works without the
``[learn]`` extra.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from gunzi.cli_options import CardRulesOpt, OptionOpt
from gunzi.engine.rules import CATALOG, preset
from gunzi.progress import Reporter


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
    try:
        from gunzi.env import dmc
    except ImportError as exc:
        typer.echo(f"gunzi train needs PyTorch ({exc.name} is missing): "
                   "pip install -e '.[learn]'", err=True)
        raise typer.Exit(2) from None
    changes = CATALOG.parse_overrides(option or [])
    preset(rules, **changes)  # refuse a bad preset or option before any work
    config = dmc.TrainConfig(preset=rules, hands=hands, seed=seed, epsilon=epsilon,
                             batch=batch, checkpoint_every=checkpoint_every, hidden=hidden,
                             options=changes)
    try:
        with Reporter("train", hands, "hands", quiet=json_out) as bar:
            summary = dmc.train(config, out, resume=resume,
                                progress=lambda done, text: bar.update(done, text))
    except (FileNotFoundError, ValueError) as exc:  # no checkpoint, or one of other versions
        typer.echo(f"gunzi train: {exc}", err=True)
        raise typer.Exit(2) from None
    if json_out:
        typer.echo(json.dumps(summary))
    else:
        typer.echo(f"{summary['hands_done']} hands, {summary['updates']} updates this run, "
                   f"last loss {summary['last_loss']:.4f}; {summary['checkpoint']}")


def register(app: typer.Typer) -> None:
    app.command(name="train")(train)
