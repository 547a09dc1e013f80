"""``gunzi arena`` for 步步为营: bot A against bot B, every opening played with sides swapped.

Played by the one arena loop of every game (:mod:`gunzi.arena.duplicate`). Quoridor has
no deal, and the built-in bots are nearly deterministic, so the same start would give
the same game again and again. Each *pair* therefore starts from its own
seeded opening: ``opening`` random pawn steps (no walls) from the initial position. The
pair plays that opening twice, A on the even seats then on the odd seats (with 2 players:
A first, then B first), so neither bot profits from the side or the opening.

A game scores 1 for A's win, 0 for B's win and ½ for a draw (turn limit). The unit of
observation is the pair (mean of its two scores); the win rate and its 95% interval are
computed over pair means (:mod:`gunzi.arena.stats`). Latency is the wall time of every
``choose`` call, per bot.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from gunzi.arena.duplicate import Decide, Duplicate, play_game, play_sides
from gunzi.arena.runner import parse_bots
from gunzi.arena.stats import mean_ci95, percentile
from gunzi.bots.registry import call_with
from gunzi.engine.errors import GunziError
from gunzi.quoridor.bots import BOTS, Bot, RandomBot, make_bot
from gunzi.quoridor.game import Action, QuoridorGame, WallEvent, format_action
from gunzi.quoridor.rules import QuoridorRules

OPENING_PLIES = 4


def _rng(key: str) -> random.Random:
    return random.Random(key)  # noqa: S311 - seeded, reproducible play on purpose


def _bot(text: str, name: str, params: tuple[tuple[str, Any], ...]) -> Bot:
    """The 步步为营 bot of a spec, its parameters checked as the card bots' are
    (:func:`gunzi.bots.registry.call_with`): a bad one is a GunziError naming the spec."""
    if name not in BOTS:
        make_bot(name)  # the error lists the valid names
    return call_with(BOTS[name], name, params, text)


def opening(rules: QuoridorRules, plies: int, rng: random.Random) -> list[str]:
    """``plies`` random pawn steps from the start (the pair's shared opening), as text."""
    game = QuoridorGame(rules)
    stepper = RandomBot(wall_share=0.0)
    out: list[str] = []
    for _ in range(plies):
        seat = game.to_act
        if seat is None:
            break
        action = stepper.choose(game, seat, rng)
        game.apply(action)
        out.append(format_action(action))
    return out


def _start(rules: QuoridorRules, start: list[str]) -> QuoridorGame:
    """A game with the opening ``start`` played."""
    game = QuoridorGame(rules)
    for text in start:
        seat = game.to_act
        assert seat is not None
        game.apply_text(seat, text)
    return game


def _timed(bots: list[Bot], labels: list[str], rng: random.Random,
           times: dict[str, list[float]]) -> Decide[QuoridorGame]:
    """The decider of one side: ``bots[seat]`` chooses, every choice timed per label."""
    def decide(game: QuoridorGame, seat: int) -> Action:
        t0 = time.perf_counter()
        action = bots[seat].choose(game, seat, rng)
        times[labels[seat]].append(time.perf_counter() - t0)
        return action

    return decide


def play_one(
    rules: QuoridorRules,
    bots: list[Bot],
    labels: list[str],
    start: list[str],
    rng: random.Random,
    times: dict[str, list[float]],
) -> QuoridorGame:
    """Play ``start`` then let ``bots[seat]`` decide to the end; time every decision."""
    return play_game(_start(rules, start), _timed(bots, labels, rng, times))


def run_board_arena(
    rules: QuoridorRules,
    bots_text: str,
    pairs: int,
    seed: int,
    plies: int = OPENING_PLIES,
    pairs_out: Path | None = None,
    progress: Callable[[int, int, float], None] | None = None,
) -> dict[str, Any]:
    """Play ``pairs`` openings twice each (sides swapped); return the JSON report."""
    if pairs < 1:
        raise GunziError("--deals (game pairs) must be at least 1")
    spec_a, spec_b = parse_bots(bots_text)
    for spec in (spec_a, spec_b):
        if spec.command is not None:
            raise GunziError("external (cmd:) bots are not supported for 步步为营 yet")
    bot_a = _bot(spec_a.text, spec_a.name, spec_a.params)
    bot_b = _bot(spec_b.text, spec_b.name, spec_b.params)
    times: dict[str, list[float]] = {"A": [], "B": []}
    pair_scores: list[float] = []
    wins = {"A": 0, "B": 0}
    draws = 0
    turns = 0
    walls = 0
    first_wins = 0
    t0 = time.perf_counter()
    out = pairs_out.open("w", encoding="utf-8") if pairs_out is not None else None
    try:
        for k in range(pairs):
            start = opening(rules, plies, _rng(f"quoridor-opening:{seed}:{k}"))
            scores = []
            games = []

            def deciders(side: int, labels: list[str], k: int = k) -> Decide[QuoridorGame]:
                seat_bots = [bot_a if lab == "A" else bot_b for lab in labels]
                return _timed(seat_bots, labels, _rng(f"quoridor-arena:{seed}:{k}:{side}"),
                              times)

            pair = Duplicate(rules.players, partial(_start, rules, start))
            for labels, game in play_sides(pair, deciders):
                turns += game.turns
                walls += sum(isinstance(e, WallEvent) for e in game.events)
                if game.winner is None:
                    draws += 1
                    scores.append(0.5)
                else:
                    won = labels[game.winner]
                    wins[won] += 1
                    scores.append(1.0 if won == "A" else 0.0)
                    first_wins += game.winner == 0
                games.append({"a_seats": [s for s, lab in enumerate(labels) if lab == "A"],
                              "winner": game.winner, "turns": game.turns})
            pair_scores.append(sum(scores) / 2)
            if out is not None:
                out.write(json.dumps({"pair": k, "opening": start, "games": games}) + "\n")
            if progress is not None:
                progress(k + 1, pairs, sum(pair_scores) / len(pair_scores))
    finally:
        if out is not None:
            out.close()
    seconds = time.perf_counter() - t0
    n_games = 2 * pairs
    rate = mean_ci95(pair_scores)

    def latency(label: str) -> dict[str, Any]:
        ms = [t * 1000 for t in times[label]]
        p50, p95 = percentile(ms, 50), percentile(ms, 95)
        return {"decisions": len(ms),
                "p50": None if p50 is None else round(p50, 2),
                "p95": None if p95 is None else round(p95, 2),
                "max": round(max(ms), 2) if ms else None}

    return {
        "game": "quoridor",
        "rules": rules.name,
        "options": rules.options(),
        "bots": {"A": spec_a.text, "B": spec_b.text},
        "pairs": pairs,
        "games": n_games,
        "seed": seed,
        "opening_plies": plies,
        "wins": wins,
        "draws": draws,
        "win_rate_a": rate["mean"],
        "win_rate_a_ci95": rate["ci95"],
        "seat0_win_rate": first_wins / n_games,
        "mean_turns": turns / n_games,
        "walls_placed_mean": walls / n_games,
        "latency_ms": {"A": latency("A"), "B": latency("B")},
        "seconds": round(seconds, 2),
        "workers": 1,
    }


__all__ = ["OPENING_PLIES", "opening", "play_one", "run_board_arena"]
