"""What a match's state is made of, apart from the code that moves it.

The phases, the decisions each phase expects and the clause that says whose turn it
is, the teams, and the list of a :class:`~gunzi.engine.match.Match`'s attributes. Kept
out of ``match.py`` so that the modules reading a match (views, seat positions) need
not import the state machine itself.
"""

from __future__ import annotations

from enum import StrEnum

from gunzi.engine.actions import Kind


class Phase(StrEnum):
    DEAL = "deal"  # waiting for a Deal action (auto_deal off)
    DRAW = "draw"  # drawing; a seat is being asked whether to declare
    TRIBUTE = "tribute"
    RETURN = "return"
    BURY = "bury"
    BURY_JOKERS = "bury_jokers"
    PLAY = "play"
    OVER = "over"


PHASE_KIND = {
    Phase.DEAL: (Kind.DEAL,),
    Phase.DRAW: (Kind.DECLARE, Kind.PASS),
    Phase.TRIBUTE: (Kind.TRIBUTE,),
    Phase.RETURN: (Kind.RETURN,),
    Phase.BURY: (Kind.BURY,),
    Phase.BURY_JOKERS: (Kind.BURY_JOKERS, Kind.PASS),
    Phase.PLAY: (Kind.PLAY,),
    Phase.OVER: (),
}

# The clause that says whose turn it is, for out-of-turn errors (classic play: Part B).
PHASE_RULE = {
    Phase.DEAL: "A4", Phase.DRAW: "A4", Phase.TRIBUTE: "A5", Phase.RETURN: "A5",
    Phase.BURY: "A6.3", Phase.BURY_JOKERS: "A6.4", Phase.PLAY: "A7", Phase.OVER: "A10",
}


def team_of(seat: int) -> int:
    return seat % 2


# Every attribute of a Match; `clone` copies these (a test keeps the list complete). Written
# out because a compiled (mypyc) Match has no __dict__ to copy.
STATE_FIELDS = (
    "asks", "auto_deal", "bj_pending", "blood_next", "can", "current", "deal_no", "dealer",
    "deck", "decl", "declared", "declarer_is_dealer", "dry_pot", "events", "failed_throws",
    "first", "first_seat", "gained", "hand_failed_throws", "hand_no", "hands",
    "joker_queue", "kitty", "pickup_jokers", "kitty_known_by", "kitty_public", "kitty_shown",
    "last_trick_winner", "nothing_to_exchange", "last_winning_play", "lead_shape", "leader",
    "level", "levels", "live",
    "next_drawer", "order", "payee", "payer", "phase", "points", "pos", "results", "round_no",
    "round_winners", "rules", "scores", "seed", "tribute_cards", "tribute_kind", "tribute_n",
    "trick", "trick_no", "tricks", "trump", "variant", "window", "follows_memo",
)
