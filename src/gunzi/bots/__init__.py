"""Bots: players that see only their seat's view (see :mod:`gunzi.bots.base`)."""
