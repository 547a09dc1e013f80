"""Research environments (docs/research.md): PettingZoo AEC environments for the card games
and 步步为营, a Gymnasium single-seat wrapper, and the OpenSpiel adapter.

A service-level package: it drives the engines through their public game protocol and
builds every observation from a seat's information state only. Its libraries (PettingZoo,
Gymnasium, OpenSpiel) are the optional extra ``gunzi[env]``.
"""

from gunzi.bots.registry import register as _register_bot

# OpenSpiel's bots as contestants (``openspiel:ismcts``), for every reader of bot specs that
# imports this package: the command line (its train commands live here), the single-seat
# environment, the arena's workers (they get the parent's registry). The bot's module (and
# OpenSpiel, the [env] extra) is loaded only when a spec names it.
_register_bot("openspiel", "gunzi.env.openspiel_bot:OpenSpielBot")
