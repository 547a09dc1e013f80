"""Terminal play: a Textual app where a human plays seat 0 against three bots.

:mod:`gunzi.tui.session` holds the game logic (match, bots, hints, the card
counter, saving and resuming) without any UI; :mod:`gunzi.tui.app` is the
Textual app; :mod:`gunzi.tui.command` adds ``gunzi play`` to a Typer app.
"""
