"""The actors of ``gunzi train``: they play hands and hand back what the learner trains on.

An actor plays whole hands at all four seats, either with the learner's current weights
(greedy on Q(s, a), ε-random; evaluated with numpy by the ``learned`` bot's
:class:`~gunzi.bots.learned.Policy`, so actors need no PyTorch) or, for the imitation warm
start, with a teacher bot (``rule``) whose actions are followed token by token, each
decision replaced by random tokens with probability ε. Each hand is a :class:`Job`: its
deal and its exploration draws come from (run seed, hand number) only, and within a round
every job sees the same weights, so what a round returns does not depend on how many
actors played it nor where. Three ways to run them, same results:

* :class:`InProcess`: in the learner's process (``--actors 1``);
* :class:`LocalPool`: ``K`` local processes (``--actors K``, the default);
* :class:`RayPool`: ``K`` Ray actors on a cluster (``--ray ADDRESS``; ``--ray local``
  starts Ray inside this machine), Ray doing the scheduling and the transport.
"""

from __future__ import annotations

import importlib.util
import multiprocessing
import os
import random
import socket
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gunzi.bots.base import Bot, observe
from gunzi.bots.learned import Policy, single_thread_blas
from gunzi.bots.registry import make_bot
from gunzi.env import card_actions as CA
from gunzi.env.cards import CardEnv

Arrays = Mapping[str, np.ndarray]


def hand_seed(seed: int, hand: int) -> int:
    """The deal of hand ``hand`` of a run seeded ``seed`` (the same on every actor)."""
    return random.Random(f"dmc:{seed}:{hand}").getrandbits(63)


@dataclass(frozen=True)
class Job:
    """One hand to play: its number in the run, the run's seed, exploration, teacher."""

    hand: int
    seed: int
    epsilon: float
    teacher: str | None = None  # a bot name: imitation; None: the learner's weights


@dataclass
class Trajectory:
    """One played hand: per step the observation, the token taken and the seat; the seats'
    final rewards; per step the legal tokens if the token taken was the teacher's (an
    imitation target), else an empty array."""

    hand: int
    obs: np.ndarray  # (steps, OBS_SIZE) float32
    tokens: np.ndarray  # (steps,) int64
    seats: np.ndarray  # (steps,) int64
    rewards: np.ndarray  # (4,) float32
    expert: list[np.ndarray] = field(default_factory=list)
    actor: str = ""  # host:pid of the process that played it


@dataclass(frozen=True)
class Game:
    """What every actor plays: the preset, its rule options, mid-round deals or not."""

    preset: str
    options: Mapping[str, Any]
    mid_round: bool


class Actor:
    """Plays jobs in one process (an environment and teachers reused across hands)."""

    def __init__(self, game: Game) -> None:
        self.env = CardEnv(game.preset, mid_round=game.mid_round, **dict(game.options))
        single_thread_blas()  # small products: BLAS threads only wait (bots.learned)
        self.teachers: dict[str, Bot] = {}

    def play(self, jobs: Sequence[Job], arrays: Arrays | None) -> list[Trajectory]:
        policy = None if arrays is None else Policy.from_arrays(arrays)
        return [self._hand(job, policy) for job in jobs]

    def _hand(self, job: Job, policy: Policy | None) -> Trajectory:
        env = self.env
        rng = random.Random(f"dmc-explore:{job.seed}:{job.hand}")
        teacher = None
        if job.teacher is not None:
            teacher = self.teachers.get(job.teacher) or make_bot(job.teacher)
            self.teachers[job.teacher] = teacher
            teacher.new_hand()
        env.reset(seed=hand_seed(job.seed, job.hand))
        obs_rows: list[np.ndarray] = []
        tokens: list[int] = []
        seats: list[int] = []
        expert: list[np.ndarray] = []
        rewards = np.zeros(4, dtype=np.float32)
        plan: list[int] = []  # the teacher's remaining tokens of this decision
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            seat = env.possible_agents.index(agent)
            if term or trunc:
                rewards[seat] = reward
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            follow = False
            if teacher is not None:
                if not env.builder.built:  # a new decision: ask the teacher, maybe explore
                    action = teacher.choose(observe(env.match, seat), rng)
                    plan = ([] if rng.random() < job.epsilon
                            else list(CA.tokens(action, env.grouped)))
                follow = bool(plan) and plan[0] in legal
                token = plan.pop(0) if follow else int(rng.choice(legal))
                if not follow:
                    plan = []
            elif policy is None or rng.random() < job.epsilon:
                token = int(rng.choice(legal))
            else:
                token = int(legal[int(np.argmax(policy.values(obs["observation"], legal)))])
            obs_rows.append(obs["observation"])
            tokens.append(token)
            seats.append(seat)
            expert.append(legal.astype(np.int16) if follow else _NONE)
            env.step(token)
        return Trajectory(job.hand, np.stack(obs_rows), np.asarray(tokens, dtype=np.int64),
                          np.asarray(seats, dtype=np.int64), rewards,
                          expert if teacher is not None else [], ACTOR_ID)


_NONE = np.zeros(0, dtype=np.int16)
ACTOR_ID = f"{socket.gethostname()}:{os.getpid()}"


def chunks(jobs: Sequence[Job], k: int) -> list[list[Job]]:
    """``jobs`` in ``k`` interleaved parts (every part gets deals of all kinds)."""
    return [list(jobs[i::k]) for i in range(k) if jobs[i::k]]


def _by_hand(parts: Iterator[list[Trajectory]] | list[list[Trajectory]]) -> list[Trajectory]:
    return sorted((t for part in parts for t in part), key=lambda t: t.hand)


class InProcess:
    """The jobs played one after the other in this process."""

    def __init__(self, game: Game) -> None:
        self.actor = Actor(game)

    def play(self, jobs: Sequence[Job], arrays: Arrays | None) -> list[Trajectory]:
        return self.actor.play(jobs, arrays)

    def close(self) -> None:
        pass


_WORKER: Actor | None = None


def _init_worker(game: Game) -> None:
    global _WORKER
    _WORKER = Actor(game)


def _work(task: tuple[list[Job], Arrays | None]) -> list[Trajectory]:
    assert _WORKER is not None
    return _WORKER.play(*task)


class LocalPool:
    """``k`` local processes (spawned: they import no PyTorch and share nothing), each its
    own one-process pool, so part ``i`` of a round is always played by process ``i``: with
    one shared pool, a process that finished starting first could take every part while
    another was still importing (seen in CI: one process played all the hands)."""

    def __init__(self, game: Game, k: int) -> None:
        self.k = k
        context = multiprocessing.get_context("spawn")
        self.pools = [context.Pool(1, initializer=_init_worker, initargs=(game,))
                      for _ in range(k)]

    def play(self, jobs: Sequence[Job], arrays: Arrays | None) -> list[Trajectory]:
        pending = [pool.apply_async(_work, ((part, arrays),))
                   for pool, part in zip(self.pools, chunks(jobs, self.k), strict=False)]
        return _by_hand([p.get() for p in pending])

    def close(self) -> None:
        for pool in self.pools:
            pool.close()
        for pool in self.pools:
            pool.join()


class RayPool:
    """``k`` Ray actors, each an :class:`Actor`; the round's weights go to the object store
    once and every actor reads them from there.

    ``address``: ``local`` starts Ray in this process's machine (``ray.init()``, as tests
    do); anything else is a running cluster's address (``auto``, ``ray://host:10001``)."""

    def __init__(self, game: Game, k: int, address: str) -> None:
        check_ray(address)
        import ray

        self.ray = ray
        self.started = not ray.is_initialized()
        if self.started:
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            try:
                if address == "local":
                    ray.init(num_cpus=k, **kwargs)
                else:
                    ray.init(address=address, **kwargs)
            except ConnectionError as exc:  # no cluster there (Ray's message says why)
                raise RuntimeError(f"--ray {address}: {' '.join(str(exc).split())}") from None
        remote: Any = ray.remote(num_cpus=1)(Actor)
        self.k = k
        self.actors: list[Any] = [remote.remote(game) for _ in range(k)]

    def play(self, jobs: Sequence[Job], arrays: Arrays | None) -> list[Trajectory]:
        ref = self.ray.put(arrays)
        parts = [a.play.remote(part, ref)
                 for a, part in zip(self.actors, chunks(jobs, self.k), strict=False)]
        return _by_hand(self.ray.get(parts))

    def close(self) -> None:
        for a in self.actors:
            self.ray.kill(a)
        if self.started:
            self.ray.shutdown()


def check_ray(address: str) -> None:
    """RuntimeError, one line saying what to install, when ``--ray address`` cannot run
    here: Ray is missing, or ``ray://`` (Ray Client) lacks the ``ray[client]`` extra
    (grpcio; ``pip install -e '.[learn]'`` brings both)."""
    if importlib.util.find_spec("ray") is None:
        raise RuntimeError("--ray needs Ray: pip install -e '.[learn]' (or pip install "
                           "'ray[client]')")
    if address.startswith("ray://") and importlib.util.find_spec("grpc") is None:
        raise RuntimeError(f"--ray {address} connects with Ray Client, which needs "
                           "pip install 'ray[client]' (pip install -e '.[learn]' has it)")


Actors = InProcess | LocalPool | RayPool


def start(game: Game, k: int, ray_address: str | None) -> Actors:
    """The actors a run asked for (see the module docstring)."""
    if ray_address is not None:
        return RayPool(game, k, ray_address)
    return InProcess(game) if k == 1 else LocalPool(game, k)
