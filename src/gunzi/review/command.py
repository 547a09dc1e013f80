"""``gunzi review``: a post-hand review of one seat from a record; :func:`register` adds it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from gunzi.engine.errors import GunziError
from gunzi.review.review import Budget, review
from gunzi.review.timeline import MAX_RECORD_BYTES


def review_command(
    record: Annotated[Path, typer.Argument(help="A record (.jsonl) from a table or simulate")],
    hand: Annotated[int, typer.Option("--hand", help="Finished hand number (1-based)")] = 1,
    seat: Annotated[int, typer.Option("--seat", min=0, max=3, help="Seat to review, 0-3")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
    lang: Annotated[str, typer.Option("--lang", help="zh or en")] = "zh",
    rollouts: Annotated[int, typer.Option("--rollouts", min=1,
                                          help="Rollouts per rated play (late plays)")] = 200,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the rollouts")] = 0,
) -> None:
    """Rate one seat's card plays in a finished hand and say where points were lost.

    The search bot rates each play and says where points or levels were lost (early plays
    get 40% of --rollouts)."""
    if lang not in ("zh", "en"):
        print("--lang must be zh or en", file=sys.stderr)
        raise typer.Exit(2)
    try:
        if record.stat().st_size > MAX_RECORD_BYTES:
            raise GunziError(f"{record} is larger than {MAX_RECORD_BYTES // 1_000_000} MB")
        text = record.read_text(encoding="utf-8")
        budget = Budget(rollouts=rollouts, early=max(1, rollouts * 2 // 5))
        out = review(text, hand, seat, budget=budget, seed=seed, lang=lang)
    except OSError as exc:  # as gunzi replay: a file that cannot be read is a usage error
        print(f"cannot read {record}: {exc.strerror or exc}", file=sys.stderr)
        raise typer.Exit(2) from None
    except UnicodeDecodeError:
        print(f"cannot read {record}: not UTF-8 text", file=sys.stderr)
        raise typer.Exit(2) from None
    except GunziError as exc:
        print(f"{record}: {exc}", file=sys.stderr)
        raise typer.Exit(1) from None
    if as_json:
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return
    head = f"hand {hand}, seat {seat}" if lang == "en" else f"第 {hand} 局，{seat} 号位"
    print(head)
    for d in out["decisions"]:
        print("  " + d["text"])
    print()
    for c in out["callouts"]:
        print("* " + c["text"])


def register(app: typer.Typer) -> None:
    """Add ``review`` to ``app``."""
    app.command(name="review")(review_command)
