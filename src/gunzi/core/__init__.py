"""The play core: the play phase on flat counts, for batch simulation and rollouts.

The reference engine (gunzi.engine) stays the readable spec; this package plays the
same rules with no actions, events or views in its inner loop, and is compiled by
mypyc (``make fast``) from the same source. ``tests/core`` checks it move for move
against the engine.
"""
