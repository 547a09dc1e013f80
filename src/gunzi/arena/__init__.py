"""The duplicate arena: two bots play the same deals from both sides (see docs/arena.md).

* :mod:`gunzi.arena.bank` — deal banks: versioned JSON Lines files of seeded deals.
* :mod:`gunzi.arena.runner` — duplicate play of deal pairs, in one or several processes.
* :mod:`gunzi.arena.report` — the JSON report (net levels per hand, CI, hold rates, ...).
* :mod:`gunzi.arena.stats` — mean / 95% CI, percentiles and the SPRT.
* :mod:`gunzi.arena.external` — bots in another process, over a JSON-lines protocol.
* :mod:`gunzi.arena.command` — ``register(app)`` adds ``gunzi arena`` and ``gunzi bank``.
"""

from gunzi.arena.bank import Bank, Deal, generate_deals, load_bank, make_bank
from gunzi.arena.runner import ArenaConfig, BotSpec, parse_bots, run_arena

__all__ = [
    "ArenaConfig",
    "Bank",
    "BotSpec",
    "Deal",
    "generate_deals",
    "load_bank",
    "make_bank",
    "parse_bots",
    "run_arena",
]
