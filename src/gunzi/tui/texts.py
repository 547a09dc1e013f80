"""Texts of the terminal game built from the match: decisions, hand summaries, the result."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from gunzi.engine import cards as C
from gunzi.engine.actions import Action, Kind
from gunzi.engine.state import Variant
from gunzi.tui.i18n import (
    cards_text,
    seat_name,
    seat_values,
    suit_symbol,
    t,
)
from gunzi.tui.session import Session
from gunzi.wording.names import cards_plain


def level_text(index: int, variant: Variant) -> str:
    if index >= 13:
        return variant.past_last_level
    return C.RANKS[index]


def describe(action: Action, lang: str, during: Kind | None = None) -> str:
    """Short text of a decision, for prompts and the status line (``during``: the decision
    a pass answers, declaring unless told)."""
    cards = cards_plain(action.cards, lang)
    if action.kind is Kind.PASS:
        return t(lang, "opt.pass.bury_jokers" if during is Kind.BURY_JOKERS else "opt.pass")
    if action.kind is Kind.DECLARE:
        if action.suit >= 0:
            return t(lang, "opt.declare.suit", cards=cards, suit=suit_symbol(action.suit))
        return t(lang, "opt.declare", cards=cards)
    if action.kind is Kind.BURY_JOKERS:
        if action.take:
            return t(lang, "opt.bury_jokers.take", cards=cards,
                     take=cards_plain(action.take, lang))
        return t(lang, "opt.bury_jokers", cards=cards)
    if action.kind is Kind.TRIBUTE:
        return t(lang, "opt.tribute", cards=cards)
    return t(lang, f"opt.{action.kind.value}", cards=cards)


def match_result(session: Session, lang: str) -> str:
    """Who won the match's last round, and why ("" before any round ended)."""
    for result in reversed(session.match.results):
        if result.get("round_winner") is not None:
            team = t(lang, "team.us" if result["round_winner"] == 0 else "team.them")
            return t(lang, "result.won", team=team, why=t(lang, f"why.{result.get('round_end')}"))
    return ""


def summary_lines(result: dict[str, Any], session: Session, lang: str) -> list[Text]:
    variant = session.match.variant
    out: list[Text] = [Text(t(lang, "summary.title", n=result["hand"]), style="bold")]
    out.append(Text(t(lang, "summary.dealer", seat=seat_name(lang, result["dealer"]),
                      r=level_text(result["level"], variant),
                      # a played hand without a suit was 无主 ([I-30])
                      s=suit_symbol(result["trump"]) if result["trump"] is not None
                      else t(lang, "trump.no"))))
    kou = result["kou"]
    mult = result.get("kitty_multiplier", 2 if kou else 0) if kou else 0
    sealed = "kitty" not in result  # a duplicate board's first play (engine view)
    kitty = t(lang, "summary.kitty_pts", kp=result["kitty_points"], mult=mult) \
        if kou and not sealed else ""
    attackers = t(lang, "team.them.obj" if result["dealer"] % 2 == 0 else "team.us.obj")
    out.append(Text(t(lang, "summary.score", score=result["score"], tp=result["trick_points"],
                      kitty=kitty, kou=t(lang, "summary.kou" if kou else "summary.bao"),
                      team=attackers),
                    style="bold yellow"))
    if sealed:
        out.append(Text(t(lang, "summary.kitty_sealed")))
    else:
        line = Text(t(lang, "summary.kitty", cards=""))
        line.append_text(cards_text(result["kitty"], lang))
        out.append(line)
    tricks = session.match.tricks
    if tricks and tricks[-1].get("plays"):
        last = tricks[-1]
        line = Text(t(lang, "summary.last_trick", seat=seat_name(lang, last["winner"])))
        for i, play in enumerate(last["plays"]):
            line.append(f" {seat_name(lang, (last['leader'] + i) % 4)} ")
            line.append_text(cards_text(play, lang))
        out.append(line)
    if result.get("dry_pot"):
        out.append(Text(t(lang, "summary.dry")))
    before, after = result["levels_before"], result["levels_after"]
    out.append(Text(t(lang, "summary.levels",
                      b0=level_text(before[0], variant), a0=level_text(after[0], variant),
                      b1=level_text(before[1], variant), a1=level_text(after[1], variant)),
                    style="bold"))
    out.append(Text(t(lang, "summary.take" if result["attackers_take"] else "summary.keep")))
    if result.get("round_winner") is not None:
        team = t(lang, "team.us" if result["round_winner"] == 0 else "team.them")
        why = t(lang, f"why.{result.get('round_end')}")
        out.append(Text(t(lang, "summary.round_end", team=team, why=why), style="bold green"))
    elif result.get("next_dealer") is not None:
        out.append(Text(t(lang, "summary.next", seat=seat_name(lang, result["next_dealer"]))))
    if result.get("blood_next"):
        out.append(Text(t(lang, "summary.tribute_next", n=result["blood_next"])))
    if "hand_scores" in result:
        out.append(Text(t(lang, "summary.hand_scores", s=seat_values(lang, result["hand_scores"]))))
        out.append(Text(t(lang, "summary.scores", s=seat_values(lang, session.match.scores))))
    if any(result.get("failed_throws") or []):
        out.append(Text(t(lang, "summary.failed",
                          s=seat_values(lang, result["failed_throws"], signed=False))))
    if "game_points" in result:
        out.append(Text(t(lang, "summary.game_points", s=seat_values(lang, result["game_points"]))))
    if session.is_over:
        out.append(Text(t(lang, "summary.over") + " · " + match_result(session, lang),
                        style="bold red"))
        if session.record_path is not None and session.record_path.exists():
            out.append(Text(t(lang, "summary.saved", path=session.record_path)))
        out.append(Text(t(lang, "summary.quit"), style="dim"))
    else:
        out.append(Text(t(lang, "summary.continue"), style="dim"))
    return out
