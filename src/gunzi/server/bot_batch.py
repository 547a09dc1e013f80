"""Bot moves that fall due together, decided together: the ``learned`` bot's batch path.

A table's bot move that a batching bot makes (one with ``decide_many``: the learned bot)
queues its Decision here and waits. The first one queued in a turn of the event loop
schedules the flush with ``call_soon``, which runs after every task that was already
ready in that turn: so the bot moves of all the tables whose timers fired together (and,
under load, all that piled up while the loop was busy) are scored in one matrix product
per step (:meth:`gunzi.bots.learned.LearnedBot.decide_many`; docs/bots.md has the gain).
A table waits for nothing more than its own turn of the loop, and one table's failing
decision does not spoil the others' (the batch is retried one by one, and the failing
table plays a random legal action as it would without batching).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, TypeGuard, TypeVar

from gunzi.bots.base import Decision
from gunzi.engine.actions import Action

T = TypeVar("T")


class Batching(Protocol):
    """A bot that decides many Decisions at once (bots sharing a ``policy`` are batched
    together) and checks each answer for its seat (``settle``)."""

    policy: Any

    def decide_many(self, decisions: Sequence[Decision]) -> list[Action]: ...

    def settle(self, decision: Decision, action: Action, rng: random.Random) -> Action: ...


def batching(bot: object) -> TypeGuard[Batching]:
    """Does ``bot`` decide in batches (the learned bot)?"""
    return callable(getattr(bot, "decide_many", None)) and hasattr(bot, "policy")


class BotBatch:
    """The decisions queued in this turn of the event loop; ``sizes`` observes each
    batch's size (a Prometheus histogram, or None). Also the hall's threads for bots that
    think (rollouts, :meth:`think`): its own small pool, so bot moves never queue the
    password hashing and reviews of the loop's default pool, and since rollouts hold the
    GIL, more threads than cores would only contend with the loop."""

    THREADS = 2

    def __init__(self, sizes: Any = None) -> None:
        self._queue: list[tuple[Batching, Decision, random.Random,
                                asyncio.Future[Action]]] = []
        self._sizes = sizes
        self._threads = ThreadPoolExecutor(self.THREADS, thread_name_prefix="gunzi-bot")

    async def think(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in one of the bot threads."""
        return await asyncio.get_running_loop().run_in_executor(self._threads, fn, *args)

    def close(self) -> None:
        """Stop the bot threads (a decision in progress finishes on its own)."""
        self._threads.shutdown(wait=False, cancel_futures=True)

    async def choose(self, bot: Batching, decision: Decision, rng: random.Random) -> Action:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[Action] = loop.create_future()
        if not self._queue:
            loop.call_soon(self._flush)
        self._queue.append((bot, decision, rng, done))
        return await done

    def _flush(self) -> None:
        queue, self._queue = self._queue, []
        groups: dict[int, list[int]] = {}
        for i, (bot, *_) in enumerate(queue):
            groups.setdefault(id(bot.policy), []).append(i)
        for members in groups.values():
            items = [queue[i] for i in members]
            if self._sizes is not None:
                self._sizes.observe(len(items))
            actions: Sequence[Action | None]
            try:
                actions = items[0][0].decide_many([d for _, d, _, _ in items])
            except Exception:  # decide them one by one: only the failing one fails
                actions = [None] * len(items)
            for (bot, d, rng, fut), action in zip(items, actions, strict=True):
                if fut.done():  # its table's task was cancelled
                    continue
                try:
                    chosen = bot.decide_many([d])[0] if action is None else action
                    fut.set_result(bot.settle(d, chosen, rng))
                except Exception as exc:
                    fut.set_exception(exc)
