"""Research environments (docs/research.md): PettingZoo AEC environments for the card games
and 步步为营, a Gymnasium single-seat wrapper, and the OpenSpiel adapter.

A service-level package: it drives the engines through their public game protocol and
builds every observation from a seat's information state only. Its libraries (PettingZoo,
Gymnasium, OpenSpiel) are the optional extra ``gunzi[env]``.
"""
