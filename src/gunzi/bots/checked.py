"""The ``checked`` bot: the learned net proposes, a few rollouts decide.

At a 打滚子 card play with a choice, while the seat holds at most 12 cards, the learned
net (:class:`gunzi.bots.learned.LearnedBot`, the shipped choice net) names the play it
rates best after the rule bot's, and the search bot's race (:class:`SearchBot`: sampled
deals consistent with what the seat has seen, each played out on the play core) decides
between the two with ``rollouts`` play-outs; the rule bot's play stays unless the other
beats it on the same deals. Every other decision is the rule bot's, as for ``learned``
(so at classic tables, where the net proposes nothing, it plays as ``rule``).

Why a bot of its own: the net alone gains +0.05 net levels per hand over ``rule`` (it
learns *which* play to try far better than *whether* to leave the rule play), the search
alone needs 150 rollouts over six candidates; the net's single proposal checked by 25
rollouts gains +0.13 (+0.1275 on the measurement deals, +0.146 on the validation deals
that chose it) at a quarter of the search's CPU (docs/bots.md has the figures and the
commands; 20 and 30 rollouts scored within the noise of 25, which keeps the p95 near
10 ms of CPU). It needs no PyTorch (numpy and the compiled play core), sees only its
seat's :class:`~gunzi.bots.base.Decision`, and is reproducible: no clock by default.
"""

from __future__ import annotations

from gunzi.bots.learned import LearnedBot
from gunzi.bots.search import SearchBot
from gunzi.engine.rules import Ruleset


class CheckedBot(SearchBot):
    """The learned net's proposal raced against the rule bot's play; see the module
    docstring."""

    name = "checked"

    def __init__(self, *, rollouts: int = 25, gate: float | None = None,
                 weights: str | None = None, time_limit: float | None = None) -> None:
        """``rollouts``: play-outs per checked decision (both candidates together);
        ``gate``: check only proposals the net rates within ``gate`` of the rule play
        (default: every proposal; a gate saves time and costs strength, docs/bots.md);
        ``weights``: another advantage net (an ``.npz``); ``time_limit``: seconds per
        decision (default none: the same deal and seed give the same play)."""
        # classic=False: the net proposes only 打滚子 plays, and the classic search (rule-bot
        # rollouts of tractors and throws) would cost 200 ms at p95, so at classic tables
        # every decision is the rule bot's, as the learned bot's are there.
        super().__init__(rollouts=rollouts, time_limit=time_limit, prior="learned", top=1,
                         gate=gate, prior_weights=weights, classic=False)

    @property
    def net(self) -> LearnedBot:
        """The proposing net's bot (the search's prior)."""
        assert isinstance(self.prior, LearnedBot)
        return self.prior

    @property
    def trained_on(self) -> str:
        """The preset the proposing net was trained on (tables say where it was not)."""
        return self.net.trained_on

    def covers(self, rules: Ruleset) -> bool:
        """Were the proposing net's weights trained on these rules?"""
        return self.net.covers(rules)
