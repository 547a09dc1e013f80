"""``gunzi label-advantage`` and ``gunzi train-advantage``: the ``learned`` bot's advantage
net, from labelled rule-bot hands (:mod:`gunzi.env.advantage_data`) to the ``.npz`` the bot
loads (:mod:`gunzi.env.advantage_train`). PyTorch is imported only by the second.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from gunzi.progress import Reporter


def label_advantage(
    out: Annotated[Path, typer.Option("--out", help="Folder of the shards (shard-*.npz); "
                                      "shards already there are kept: a stopped run resumes")],
    hands: Annotated[int, typer.Option(min=1, help="Hands to label (rounded up to 50)")
                     ] = 1000,
    seed: Annotated[int, typer.Option(help="Seed of the deals and of exploration")] = 0,
    workers: Annotated[int, typer.Option(min=1, help="Local processes")] = 1,
    cap: Annotated[int, typer.Option(min=2, help="Candidates valued per decision at most")
                   ] = 12,
    explore: Annotated[float, typer.Option(min=0.0, max=1.0, help="Share of labelled "
                                           "decisions played by a random candidate")] = 0.1,
    deals: Annotated[int, typer.Option(min=1, help="Deals each label is averaged over: the "
                                       "true one and DEALS - 1 sampled from what the seat "
                                       "knows; more lean towards what PIMC "
                                       "believes, docs/research.md")] = 1,
    max_cards: Annotated[int, typer.Option(min=1, help="Label decisions of a seat holding at "
                                           "most this many cards")] = 15,
    search: Annotated[int, typer.Option(min=0, help="Label with a search bot of SEARCH "
                                        "rollouts a decision (no clock) as the teacher: its "
                                        "choices and estimates, for --objective choice; 0: "
                                        "true-deal rollouts")] = 0,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON")] = False,
) -> None:
    """Play rule-bot hands of 打滚子 and value every candidate card play on the true deal
    (or, with --search, by a search bot's estimates, the hand following its choices)."""
    from gunzi.env.advantage_data import SHARD, label_run

    shards = (hands + SHARD - 1) // SHARD
    try:
        with Reporter("label-advantage", shards, "shards", quiet=json_out) as bar:
            paths = label_run(str(out), hands, seed, workers=workers, cap=cap,
                              explore=explore, deals=deals, max_cards=max_cards,
                              search=search,
                              progress=lambda done: bar.update(done, ""))
    except OSError as exc:  # --out not writable, disk full
        typer.echo(f"gunzi label-advantage: {exc}", err=True)
        raise typer.Exit(2) from None
    summary = {"out": str(out), "shards": len(paths), "hands": len(paths) * SHARD}
    typer.echo(json.dumps(summary) if json_out else
               f"{out}: {summary['shards']} shards, {summary['hands']} hands")


def train_advantage(
    file: Annotated[Path, typer.Argument(help="The weights file to write (.npz)")],
    data: Annotated[list[Path], typer.Argument(help="Folders of gunzi label-advantage")],
    epochs: Annotated[int, typer.Option(min=1, help="Passes over the data")] = 2,
    hidden: Annotated[int, typer.Option(min=1, help="Width of the hidden layers")] = 256,
    batch: Annotated[int, typer.Option(min=1, help="Candidates per update")] = 2048,
    lr: Annotated[float, typer.Option(min=0.0, help="Learning rate (AdamW, cosine decay)")
                  ] = 5e-4,
    weight_decay: Annotated[float, typer.Option(min=0.0, help="AdamW weight decay")] = 1e-2,
    points: Annotated[float, typer.Option(help="Weight of the extra score-margin part in the "
                                          "target")] = 0.0,
    objective: Annotated[str, typer.Option(help="value: regress the labels; choice: fit "
                                           "the teacher's choice (search-teacher labels)")
                         ] = "value",
    seed: Annotated[int, typer.Option(help="Seed of the initial weights and the order")] = 0,
    holdout: Annotated[int, typer.Option(min=2, help="Every N-th shard is held out")] = 20,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON")] = False,
) -> None:
    """Fit the advantage net on labelled hands and export it for the learned bot."""
    try:
        from gunzi.env import advantage_train
    except ImportError as exc:
        typer.echo(f"gunzi train-advantage needs PyTorch ({exc.name} is missing): "
                   "pip install -e '.[learn]'", err=True)
        raise typer.Exit(2) from None
    try:
        summary: dict[str, Any] = advantage_train.train(
            data, file, epochs=epochs, hidden=hidden, batch=batch, lr=lr,
            weight_decay=weight_decay, points=points, objective=objective, seed=seed,
            holdout=holdout, log=(lambda _: None) if json_out else typer.echo)
    except (FileNotFoundError, ValueError) as exc:
        typer.echo(f"gunzi train-advantage: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(json.dumps(summary) if json_out else
               f"{file}: {summary['hands']} hands, epoch {summary['epoch']}, threshold "
               f"{summary['threshold']}, held-out gain "
               f"{summary['heldout_gain_per_decision']:.4f} per decision")


def set_threshold(
    file: Annotated[Path, typer.Argument(help="An advantage net (.npz)")],
    out: Annotated[Path, typer.Argument(help="Where to write the copy")],
    threshold: Annotated[float, typer.Option(help="The score margin over the rule play a "
                                             "play needs (a choice net's may be negative)")],
    source: Annotated[str, typer.Option(help="How it was chosen (kept in the file)")
                      ] = "set by hand",
) -> None:
    """Copy an advantage net with another threshold, e.g. one chosen by arena runs on
    validation deals (docs/bots.md); the weights are unchanged."""
    from gunzi.bots.advantage_net import with_threshold

    try:
        with_threshold(file, out, threshold, source)
    except (OSError, ValueError, KeyError) as exc:
        typer.echo(f"gunzi set-threshold: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"{out}: threshold {threshold}")


def average_nets(
    out: Annotated[Path, typer.Argument(help="Where to write the averaged net (.npz)")],
    nets: Annotated[list[Path], typer.Argument(help="Two or more advantage nets")],
    threshold: Annotated[float | None, typer.Option(help="Its threshold (default: the "
                                                    "members' mean; choose it by arena)")
                         ] = None,
    source: Annotated[str, typer.Option(help="How the threshold was chosen (kept in the "
                                           "file)")] = "",
) -> None:
    """Write one advantage net that scores every play with the mean of the nets' scores
    (an ensemble of nets trained on different hands), loadable wherever one net is."""
    from gunzi.bots.advantage_net import average

    try:
        average(nets, out, threshold=threshold, source=source)
    except (OSError, ValueError, KeyError) as exc:
        typer.echo(f"gunzi average-nets: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"{out}: the mean of {len(nets)} nets")


def register(app: typer.Typer) -> None:
    app.command(name="label-advantage")(label_advantage)
    app.command(name="train-advantage")(train_advantage)
    app.command(name="set-threshold")(set_threshold)
    app.command(name="average-nets")(average_nets)
