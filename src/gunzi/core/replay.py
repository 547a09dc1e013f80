"""Records on request: a core game's plays replayed through the reference engine.

The core keeps no events; when a caller wants the hand's record (or just proof that
every play was legal) the logged plays are applied to the engine match the core
started from, with validation on, so events, views and records come from the one
place that builds them and the hidden-card guarantees are the engine's.
"""

from __future__ import annotations

from gunzi.core.classic_play import ClassicPlay
from gunzi.core.gunzi_play import GunziPlay
from gunzi.engine.actions import play
from gunzi.engine.match import Match


def replay_into(match: Match, game: GunziPlay | ClassicPlay) -> None:
    """Apply ``game.log`` (a core game begun at ``match``'s current play position, with
    ``game.log = []`` before its first play) to ``match``; raises the engine's error at
    the first play the engine refuses. A classic game logs a throw as attempted, so the
    engine fails it (or lets it stand) itself."""
    if game.log is None:
        raise ValueError("the core game kept no log: set game.log = [] before playing")
    for seat, cards in game.log:
        match.apply(play(seat, cards))
