"""The fixed action space of the card games: every action as a short sequence of tokens.

It lives with the bots so the ``learned`` bot (:mod:`gunzi.bots.learned`) maps its listed
actions to the tokens its net was trained on; the environments' card-by-card builder is
:class:`gunzi.env.card_actions.Builder`.

Every engine action is written as a short sequence of *tokens* from one fixed set of
:data:`NUM_ACTIONS` ids, so one ``Discrete`` space (and one mask) serves every card game
and every decision kind (docs/research.md has the table):

====================  =========================================================
ids                   token
====================  =========================================================
0 … 53                PICK face f: add one card of face f to the choice being built
54 … 215              GROUP: 打滚子 play of k = 1, 2, 3 identical cards of face f,
                      id ``54 + 3f + k - 1`` (one step: the whole play)
216 … 219             SUIT s (S, H, C, D) named by a three-joker declaration
220                   TAKE: the cards picked after it are the kitty cards taken back
                      (joker burying, A6.3)
221                   DONE: the choice built so far is the action
222                   PASS (declaring, joker burying)
====================  =========================================================

An action's tokens are its cards in id order (PICK), then SUIT, then TAKE and the taken
cards, then DONE; a PASS is ``[PASS]`` and a 打滚子 play of identical cards ``[GROUP]``
(classic plays, tractors and throws included, are always built by PICKs). The mask of a
step is the set of next tokens of the legal actions that extend what is built so far, so a
completed sequence is always a legal action and every legal action can be built.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gunzi.engine.actions import Action, Kind
from gunzi.engine.cards import NUM_TYPES

GROUP0 = NUM_TYPES  # 54
SUIT0 = GROUP0 + 3 * NUM_TYPES  # 216
TAKE = SUIT0 + 4  # 220
DONE = TAKE + 1  # 221
PASS = DONE + 1  # 222
NUM_ACTIONS = PASS + 1  # 223
# Bump when the table above changes: a saved policy names the version it was trained on.
ACTION_SPACE_VERSION = 1

Tokens = tuple[int, ...]


def tokens(action: Action, grouped: bool) -> Tokens:
    """The token sequence of ``action``; ``grouped`` plays of identical cards are one GROUP."""
    if action.kind is Kind.PASS:
        return (PASS,)
    cards = action.cards
    if grouped and action.kind is Kind.PLAY and len(cards) <= 3 and len(set(cards)) == 1:
        return (GROUP0 + 3 * cards[0] + len(cards) - 1,)
    out = list(cards)
    if action.suit >= 0:
        out.append(SUIT0 + action.suit)
    if action.kind is Kind.BURY_JOKERS and action.take:
        out.append(TAKE)
        out.extend(action.take)
    out.append(DONE)
    return tuple(out)


def token_name(token: int) -> str:
    """A readable name, for logs and OpenSpiel's action strings."""
    from gunzi.engine.cards import SUITS, name

    if token < GROUP0:
        return f"pick {name(token)}"
    if token < SUIT0:
        face, k = divmod(token - GROUP0, 3)
        return "play " + " ".join([name(face)] * (k + 1))
    if token < TAKE:
        return f"suit {SUITS[token - SUIT0]}"
    return {TAKE: "take", DONE: "done", PASS: "pass"}[token]


def next_of(table: Iterable[Tokens], prefix: Tokens) -> list[int]:
    """The tokens that extend ``prefix`` towards some sequence of ``table`` (sorted)."""
    n = len(prefix)
    return sorted({seq[n] for seq in table if seq[:n] == prefix and len(seq) > n})


def lead_tokens(hand: Sequence[int], cls: Sequence[int], prefix: Tokens) -> list[int]:
    """The next tokens of a classic lead (any held cards of one class, B5: too many to
    list with three decks): a held card of the first card's class, picked in id order so a
    choice has one path, or DONE once there is a card."""
    used = [0] * NUM_TYPES
    for c in prefix:
        used[c] += 1
    low = prefix[-1] if prefix else 0
    out = [c for c in range(low, NUM_TYPES)
           if hand[c] > used[c] and (not prefix or cls[c] == cls[prefix[0]])]
    if prefix:
        out.append(DONE)
    return out
