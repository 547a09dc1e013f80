"""The hand end: score the finished hand, then deal the next one or end the match.

The scoring itself (levels, round end, blood, A12 scores or Part C game points, the
next dealer) is the rules object's, ``m.variant.score_hand``; this phase records its
result as the ``hand_end`` event and decides what comes next.
"""

from __future__ import annotations

from gunzi.engine.machine import Machine, Step
from gunzi.engine.state import RESULT_SECRETS, Phase, public_result


class HandEnd(Step):
    """Not a decision: entered when the last trick is in; no action belongs to it."""

    def begin(self, m: Machine) -> None:
        result = m.variant.score_hand(m)
        if m.rules.duplicate:
            result["board"] = (m.hand_no + 1) // 2
            result["play"] = 2 - m.hand_no % 2
            over = m.hand_no >= 2 * m.rules.duplicate
        else:
            over = m.round_no > m.rules.rounds
        m.results.append(result)
        m.emit("hand_end", public_result(result),
               {k: result[k] for k in RESULT_SECRETS if k in result})
        if over:
            m.phase = Phase.OVER
            m.current = None
            m.emit("match_end", {"scores": list(m.scores), "rounds": m.round_winners})
            return
        m.begin(Phase.DEAL)
