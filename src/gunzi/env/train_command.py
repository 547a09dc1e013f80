"""``gunzi train``: a Deep Monte-Carlo self-play run (:mod:`gunzi.env.dmc`).

PyTorch is imported only when the command runs, so the rest of ``gunzi`` works without the
``[learn]`` extra.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any

import typer

from gunzi import presets
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
    ctx: typer.Context,
    out: Annotated[Path, typer.Option("--out", help="Run folder: checkpoint.pt, loss.jsonl, "
                                      "eval.jsonl")],
    rules: CardRulesOpt = "classic-1",
    hands: Annotated[int, typer.Option(min=1, help="Total hands of the run")] = 1000,
    seed: Annotated[int, typer.Option(help="Seed of the deals and of exploration")] = 0,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the run in --out with "
                                         "its own settings (only --hands, "
                                         "--checkpoint-every and --eval-* may change)")
                      ] = False,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Start a new run in an --out "
                                            "that holds one, deleting its checkpoint and "
                                            "logs")] = False,
    batch: Annotated[int, typer.Option(min=1, help="Samples per update")] = 1024,
    epsilon: Annotated[float, typer.Option(min=0.0, max=1.0, help="Exploration rate")] = 0.01,
    lr: Annotated[float, typer.Option(min=0.0, help="Learning rate (RMSprop)")] = 1e-4,
    checkpoint_every: Annotated[int, typer.Option(min=1, help="Hands between checkpoints")
                                ] = 100,
    hidden: Annotated[int, typer.Option(min=1, help="Width of the net's hidden layers")
                      ] = 256,
    actors: Annotated[int | None, typer.Option(min=1, help="Self-play actors: local "
                                               "processes (1: in this process), or Ray actors "
                                               "with --ray [default: cores - 1]")] = None,
    ray: Annotated[str | None, typer.Option("--ray", help="Run the actors on Ray: a cluster "
                                            "address (auto, ray://HOST:10001: Ray Client, "
                                            "pip install 'ray[client]') or 'local' (Ray "
                                            "started on this machine)")] = None,
    reuse: Annotated[int, typer.Option(min=1, help="Updates each sample takes part in")] = 1,
    round_hands: Annotated[int, typer.Option(min=1, help="Hands per round (all actors use "
                                             "the round's weights)")] = 16,
    first_hands: Annotated[bool, typer.Option("--first-hands", help="Train on a match's "
                                              "first hands, not mid-round deals like the "
                                              "arena's")] = False,
    imitate: Annotated[str | None, typer.Option(help="Warm start: imitate this bot (e.g. "
                                                "rule) for --imitate-hands hands (give "
                                                "both: neither has a default)")] = None,
    imitate_hands: Annotated[int, typer.Option(min=0, help="Hands of the imitation warm "
                                               "start; a new run with --imitate must give "
                                               "it (no default: 0 would imitate nothing)")
                             ] = 0,
    imitate_epsilon: Annotated[float, typer.Option(min=0.0, max=1.0, help="Share of the "
                                                   "teacher's decisions played at random "
                                                   "instead")] = 0.1,
    eval_every: Annotated[int, typer.Option(min=0, help="Duplicate evaluations at the first "
                                            "round end at or past every multiple of this "
                                            "many hands, and at the end (0: none)")] = 0,
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
    try:  # a bad preset or option is refused before any work, as simulate and arena do
        changes = CATALOG.parse_overrides(option or [])
        if not resume:  # a resumed run's rules are its own (given ones are compared below)
            _check_rules(rules, changes)
    except GunziError as exc:
        typer.echo(f"gunzi train: {exc}", err=True)
        raise typer.Exit(2) from None
    if imitate is not None and imitate not in names():
        typer.echo(f"gunzi train: no bot {imitate!r} to imitate; bots: {', '.join(names())}",
                   err=True)
        raise typer.Exit(2)
    if not resume and (imitate is None) != (imitate_hands == 0):  # (a resumed run's own)
        typer.echo("gunzi train: " + (
            f"--imitate {imitate} needs --imitate-hands N (the hands of the warm start, at "
            "least 1): without it nothing is imitated" if imitate is not None else
            f"--imitate-hands {imitate_hands} needs --imitate BOT (the teacher, e.g. rule)"),
            err=True)
        raise typer.Exit(2)
    # The command line as the run's configuration: field → (value, the option that sets it).
    asked: dict[str, tuple[Any, str]] = {
        "preset": (rules, "rules"), "hands": (hands, "hands"), "seed": (seed, "seed"),
        "epsilon": (epsilon, "epsilon"), "lr": (lr, "lr"), "batch": (batch, "batch"),
        "checkpoint_every": (checkpoint_every, "checkpoint_every"),
        "hidden": (hidden, "hidden"), "options": (changes, "option"),
        "mid_round": (not first_hands, "first_hands"),
        "round_hands": (round_hands, "round_hands"), "reuse": (reuse, "reuse"),
        "imitate": (imitate, "imitate"),
        "imitate_hands": (imitate_hands, "imitate_hands"),
        "imitate_epsilon": (imitate_epsilon, "imitate_epsilon"),
        "eval_every": (eval_every, "eval_every"), "eval_deals": (eval_deals, "eval_deals"),
        "eval_against": (eval_against, "eval_against"),
        "eval_bank": (None if eval_bank is None else str(eval_bank), "eval_bank"),
        "eval_offset": (eval_offset, "eval_offset")}
    try:
        if ray is not None:  # a missing package is said before the folder is touched
            dmc.Actors.check_ray(ray)
        dmc.check_folder(out, resume=resume, overwrite=overwrite)  # deletes nothing yet
        done = 0  # hands the run has done
        if resume:  # the run's own settings, and those given that may change
            saved, done = dmc.saved_run(out)
            config = _resumed(dmc, saved, ctx, asked)
            dmc.check_more(done, config.hands)  # the checkpoint is left as it is
        else:
            config = dmc.TrainConfig(**{k: v for k, (v, _) in asked.items()})
    except (FileNotFoundError, FileExistsError, ValueError, RuntimeError) as exc:
        typer.echo(f"gunzi train: {exc}", err=True)
        raise typer.Exit(2) from None
    evaluate = None
    if config.eval_every:
        try:
            evaluate = _EVALUATOR[0](
                preset(config.preset, **config.options), config.eval_against,
                config.eval_deals, bank=None if config.eval_bank is None else
                Path(config.eval_bank), offset=config.eval_offset, seed=config.seed)
        except GunziError as exc:
            typer.echo(f"gunzi train: --eval-*: {exc}", err=True)
            raise typer.Exit(2) from None

    def work() -> dict[str, Any]:
        with Reporter("train", config.hands, "hands", quiet=json_out, start=done) as bar:
            summary: dict[str, Any] = dmc.train(
                config, out, resume=resume, overwrite=overwrite,
                actors=actors or default_actors(), ray=ray,
                evaluate=evaluate, progress=lambda done, text: bar.update(done, text))
        return summary

    _report("train", work, json_out,
            "{hands_done} hands, {updates} updates this run, last loss {last_loss:.4f}, "
            "{seconds:.0f} s; {checkpoint}")


def _check_rules(rules: str, changes: dict[str, Any]) -> None:
    """GunziError unless ``rules`` with ``changes`` is a card game's ruleset (the net plays
    cards: a 步步为营 preset is named as such)."""
    if presets.is_board(rules):
        raise GunziError(f"--rules {rules} is a 步步为营 preset; gunzi train learns the card "
                         f"games: {presets.listing(presets.CARDS)}")
    preset(rules, **changes)


def _resumed(dmc: ModuleType, saved: Any, ctx: typer.Context,
             asked: dict[str, tuple[Any, str]]) -> Any:
    """The saved configuration with the options given on the command line that may change
    on resume; ValueError naming the first given option that differs from the run's and
    may not change."""
    given = {k: v for k, (v, param) in asked.items()  # (typer's own click: by name)
             if getattr(ctx.get_parameter_source(param), "name", "DEFAULT") != "DEFAULT"}
    if not given.get("imitate", saved.imitate) and "imitate_hands" in given:
        given["imitate_hands"] = 0  # as a new run: no teacher, no imitation hands
    bad = dmc.conflicts(saved, given)
    if bad:
        k = bad[0]
        flag = "--" + asked[k][1].replace("_", "-")
        raise ValueError(f"{flag} {_shown(k, given[k])} differs from the run's "
                         f"{_shown(k, getattr(saved, k))}: a resumed run keeps its settings "
                         "(only --hands, --checkpoint-every and --eval-* may change)")
    return replace(saved, **given)


def _shown(field: str, value: Any) -> str:
    """A configuration value as the command line says it."""
    if field == "options":
        return ",".join(f"{k}={v}" for k, v in value.items()) or "none"
    if field == "mid_round":
        return "mid-round deals" if value else "first hands"
    return repr(value)


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
    except (FileNotFoundError, FileExistsError, ValueError, RuntimeError) as exc:
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
