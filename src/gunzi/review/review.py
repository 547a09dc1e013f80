"""Post-hand review: how one seat's decisions in a finished hand compare with the search bot's.

For every decision of the seat, the match is rebuilt just before it from the validated
record (:func:`gunzi.review.timeline.walk`), the seat's :class:`~gunzi.bots.base.Decision`
is built from its own view only (:func:`gunzi.bots.base.observe`), and for card plays
:meth:`gunzi.bots.search.SearchBot.rate` rolls every candidate out on the same sampled
deals. Each decision gets its own generator, seeded from the review's seed and the event's
number, and there is no clock: the same record and seed give the same review.

Figures are the search bot's value for the seat's team: net levels (A8, kitty jokers
included) plus ``point_weight`` (0.25) times the score margin in units of 100 points.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from gunzi.bots.base import observe
from gunzi.bots.determinize import RETURNED
from gunzi.bots.search import Rating, SearchBot
from gunzi.engine import cards as C
from gunzi.engine.actions import Kind
from gunzi.engine.errors import RecordError
from gunzi.review import wording
from gunzi.review.timeline import build, hand_of, load, walk

REPORTED = (Kind.DECLARE, Kind.TRIBUTE, Kind.RETURN, Kind.BURY, Kind.BURY_JOKERS)


@dataclass(frozen=True)
class Budget:
    """Rollouts per rated play (all candidates together); plays made while the seat
    still holds more than ``early_cards`` cards get ``early`` rollouts (the rollouts are
    longest and the choice matters least then)."""

    rollouts: int = 200
    early: int = 80
    early_cards: int = 24
    min_loss: float = 0.3  # a play this much worse (in levels) than the best is called out

    def for_cards(self, held: int) -> int:
        return self.early if held > self.early_cards else self.rollouts


def _names(cards: Any) -> list[str]:
    return C.names(cards)


def review(text: str, hand: int, seat: int, *, budget: Budget | None = None, seed: int = 0,
           lang: str = "en") -> dict[str, Any]:
    """Review ``seat``'s decisions in finished hand ``hand`` of a record (RecordError if
    the record is bad or has no such hand)."""
    if not 0 <= seat <= 3:
        raise RecordError(f"seat must be 0, 1, 2 or 3, not {seat}")
    budget = budget or Budget()
    lines = load(text)
    tl = build(lines)
    info = hand_of(tl, hand)
    words = wording.Words(lang)
    bot = SearchBot(rollouts=budget.rollouts, time_limit=None, policy="core")
    decisions: list[dict[str, Any]] = []
    for match, action, ev in walk(lines):
        if match.hand_no != hand or action is None or action.seat != seat:
            continue
        if action.kind is Kind.RETURN:
            payer = match.payer
            bot.memory.append((payer, action.cards, RETURNED))
        if action.kind in REPORTED:
            decisions.append({"v": ev["v"], "kind": action.kind.value,
                              "chosen": _names(action.cards), "rated": False})
            continue
        if action.kind is not Kind.PLAY:
            continue
        decision = observe(match, seat)
        bot.rollouts = budget.for_cards(sum(decision.hand))
        rng = random.Random(seed * 1_000_003 + ev["v"])  # noqa: S311 (a game, not crypto)
        # A failed classic throw is rated as what the seat tried to play (its decision).
        ratings = bot.rate(decision, rng, extra=(action,))
        decisions.append(_play_entry(ev, action.cards, ratings, len(match.trick)))
    callouts = _callouts(info, seat, decisions, budget, words)
    for d in decisions:
        d["text"] = words.decision(d)
    total = sum(d["loss"] for d in decisions if d["rated"])
    return {
        "hand": hand,
        "seat": seat,
        "team": seat % 2,
        "game": tl["game"],
        "attackers": info["attackers"],
        "dealer": info["dealer"],
        "lang": words.lang,
        "seed": seed,
        "budget": {"rollouts": budget.rollouts, "early": budget.early,
                   "early_cards": budget.early_cards, "min_loss": budget.min_loss},
        "decisions": decisions,
        "callouts": callouts,
        "total_loss": round(total, 3),
        "end": info["end"],
    }


def _play_entry(ev: dict[str, Any], cards: tuple[int, ...], ratings: list[Rating],
                position: int) -> dict[str, Any]:
    entry: dict[str, Any] = {"v": ev["v"], "kind": "play", "trick": ev["trick"],
                             "position": position, "chosen": _names(cards), "rated": False}
    if "attempted" in ev:
        entry["attempted"] = ev["attempted"]
    rated = [r for r in ratings if r.n > 0]
    if not rated:
        entry["forced"] = len(ratings) == 1
        return entry
    options = sorted(rated, key=lambda r: -r.mean)
    mine = next((r for r in rated if r.action.cards == cards), None)
    best = options[0]
    entry.update(
        rated=True,
        deals=best.n,
        options=[{"cards": _names(r.action.cards), "value": round(r.mean, 3),
                  "score": round(r.score, 1)} for r in options],
        best=_names(best.action.cards),
        value=None if mine is None else round(mine.mean, 3),
        best_value=round(best.mean, 3),
        loss=0.0 if mine is None else round(max(0.0, best.mean - mine.mean), 3),
    )
    return entry


def _callouts(info: dict[str, Any], seat: int, decisions: list[dict[str, Any]],
              budget: Budget, words: wording.Words) -> list[dict[str, Any]]:
    """Where points or levels were lost, in trick order, then the hand's end."""
    team = seat % 2
    out: list[dict[str, Any]] = []
    plays = {d["trick"]: d for d in decisions if d["kind"] == "play"}
    for trick in info["tricks"]:
        mine = next((p for p in trick["plays"] if p["seat"] == seat), None)
        if mine is None:
            continue
        given = C.points_of(C.parse_many(mine["cards"]))
        if given and trick["winner"] % 2 != team:
            out.append({"trick": trick["n"], "kind": "gave_points", "points": given,
                        "cards": mine["cards"], "winner": trick["winner"],
                        "text": words.gave(trick["n"], given, mine["cards"])})
        d = plays.get(trick["n"])
        if d and d["rated"] and d["loss"] >= budget.min_loss:
            out.append({"trick": trick["n"], "kind": "better_play", "loss": d["loss"],
                        "cards": d["chosen"], "best": d["best"],
                        "text": words.better(trick["n"], d["chosen"], d["best"], d["loss"])})
    end = info["end"]
    attackers = info["attackers"]
    if end.get("kou"):
        mult = end.get("kitty_multiplier", 2)
        out.append({"trick": info["tricks"][-1]["n"], "kind": "kou",
                    "ours": team == attackers, "multiplier": mult,
                    "kitty_points": end["kitty_points"],
                    "text": words.kou(team == attackers, mult, end["kitty_points"])})
    before, after = end["levels_before"], end["levels_after"]
    for t in (team, 1 - team):
        if after[t] != before[t]:
            out.append({"trick": None, "kind": "levels", "team": t, "ours": t == team,
                        "levels": after[t] - before[t],
                        "text": words.levels(t == team, before[t], after[t])})
    return out
