"""Deep Monte-Carlo self-play in the style of DouZero, on PyTorch CPU (the ``[learn]`` extra).

One action-conditioned value net Q(s, a) for every seat: the seat's observation
(:mod:`gunzi.bots.card_obs`, 750 floats) and one token id of the fixed action space
(:mod:`gunzi.bots.card_tokens`). The state part of the first layer is a Linear over the
observation, the action part an embedding of the token (the same as a Linear over a one-hot,
computed once per candidate), then 256 → 256 → 1. Actors (:mod:`gunzi.env.dmc_actors`:
in this process, local processes or Ray) play each round's hands with the round's weights,
greedy on Q (ε-greedy), or follow a teacher bot during an imitation warm start. Targets
are the seat's final reward of the hand (net levels), copied to every step of that seat,
undiscounted; loss MSE (plus, on the teacher's steps, the cross-entropy of its token
under a softmax of Q over the legal tokens), RMSprop (lr 1e-4, alpha 0.99, eps 1e-5),
gradient clip 40, as DouZero. docs/research.md describes the options.

Checkpoints (``checkpoint.pt`` in the run folder) hold the net, the optimizer, the hands
done, the configuration, the training seconds and the observation and action-space
versions, so ``resume`` continues the same run with the same settings (only those of
:data:`RESUMABLE` may change); ``loss.jsonl`` logs every update and ``eval.jsonl`` every
duplicate evaluation. A new run refuses a folder that holds another run's files
(:data:`RUN_FILES`) unless told to ``overwrite`` them.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from gunzi.bots import card_obs
from gunzi.env import card_actions as CA
from gunzi.env import dmc_actors as Actors

CHECKPOINT = "checkpoint.pt"
LOSS_LOG = "loss.jsonl"
EVAL_LOG = "eval.jsonl"
EVALS = "evals"  # the evaluated weights, one .npz per evaluation
RUN_FILES = (CHECKPOINT, LOSS_LOG, EVAL_LOG, EVALS)  # what a run writes in its folder


class QNet(nn.Module):  # type: ignore[misc, unused-ignore]  # Any without torch
    """Q(s, a) for a batch of one state and its candidate tokens."""

    def __init__(self, hidden: int = 256) -> None:
        super().__init__()
        self.state = nn.Linear(card_obs.OBS_SIZE, hidden)
        self.action = nn.Embedding(CA.NUM_ACTIONS, hidden)
        self.body = nn.Sequential(nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                  nn.Linear(hidden, 1))

    def forward(self, obs: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
        """``obs``: (B, OBS_SIZE), ``tokens``: (B,) → (B,) values."""
        return self.head(self.state(obs), tokens)

    def head(self, state: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
        """Values from the state part of the first layer (computed once per observation)."""
        out: torch.Tensor = self.body(state + self.action(tokens)).squeeze(-1)
        return out

    def best(self, obs: np.ndarray, legal: list[int]) -> int:
        """The legal token of highest value (the state part computed once)."""
        with torch.no_grad():
            s = self.state(torch.from_numpy(obs)).unsqueeze(0)
            t = torch.tensor(legal, dtype=torch.long)
            q = self.body(s + self.action(t)).squeeze(-1)
        return legal[int(torch.argmax(q))]


@dataclass
class TrainConfig:
    preset: str = "classic-1"
    hands: int = 1000  # total hands of the run (a resumed run goes on to this many)
    seed: int = 0
    epsilon: float = 0.01
    lr: float = 1e-4
    batch: int = 1024  # samples per update (each sample used once)
    checkpoint_every: int = 100  # hands
    hidden: int = 256
    options: dict[str, Any] = field(default_factory=dict)
    mid_round: bool = True  # deals as the arena's (a random dealer and level), not first hands
    round_hands: int = 16  # hands per round: every actor acts with the weights of its round
    imitate: str | None = None  # a teacher bot for the first imitate_hands hands
    imitate_hands: int = 0
    imitate_epsilon: float = 0.1  # the share of the teacher's decisions replaced by random
    imitate_weight: float = 1.0  # weight of the imitation (cross-entropy) term of the loss
    eval_every: int = 0  # hands between duplicate evaluations (0: none)
    reuse: int = 1  # updates each sample takes part in (each time in another random order)
    # The duplicate evaluation's settings (gunzi.arena.policy_eval), kept so that a resumed
    # run goes on measuring the same way; they change nothing of the training.
    eval_deals: int = 100
    eval_against: str = "rule"
    eval_bank: str | None = None
    eval_offset: int = 0


# What a resumed run may change: the total to reach, the checkpoint and evaluation
# cadence and the evaluation itself (none of them changes what is trained). Everything
# else (rules, seed, net, optimizer, exploration, rounds, imitation) is the run's own: a
# resumed run with another value would not be the run it continues.
RESUMABLE = frozenset({"hands", "checkpoint_every", "eval_every", "eval_deals",
                       "eval_against", "eval_bank", "eval_offset"})


def saved_run(out: Path) -> tuple[TrainConfig, int]:
    """The configuration of the run in ``out`` and the hands it has done (its
    checkpoint's); a checkpoint of an older version lacks the newer fields, which take
    their defaults."""
    check_folder(out, resume=True)
    data = torch.load(out / CHECKPOINT, weights_only=False)
    return _config_of(data), int(data["hands_done"])


def check_more(done: int, hands: int) -> None:
    """ValueError unless a resumed run that has done ``done`` hands is asked to go on to a
    total ``hands`` above it (a smaller total would train nothing, yet rewrite the run's
    configuration)."""
    if hands <= done:
        raise ValueError(f"already at {done} hands; give --hands above {done} to train more")


def _config_of(data: dict[str, Any]) -> TrainConfig:
    known = {f.name for f in fields(TrainConfig)}
    return TrainConfig(**{k: v for k, v in data["config"].items() if k in known})


def conflicts(saved: TrainConfig, given: dict[str, Any]) -> list[str]:
    """The fields of ``given`` (field → value) that differ from the run's ``saved``
    configuration and may not change on resume (not in :data:`RESUMABLE`)."""
    return [k for k, v in given.items() if k not in RESUMABLE and getattr(saved, k) != v]


def check_folder(out: Path, *, resume: bool, overwrite: bool = False) -> list[str]:
    """Whether a run may start in ``out``: a resume needs a checkpoint; a new run refuses
    another run's files unless ``overwrite``. Returns those files (to delete before a new
    run); raises FileNotFoundError, FileExistsError or ValueError with the reason."""
    if resume:
        if overwrite:
            raise ValueError("--resume continues the run in the folder, --overwrite deletes "
                             "it: give one of them")
        if not (out / CHECKPOINT).exists():
            raise FileNotFoundError(f"nothing to resume: {out / CHECKPOINT} does not exist")
        return []
    found = [name for name in RUN_FILES if (out / name).exists()]
    if found and not overwrite:
        raise FileExistsError(f"{out} already holds a run ({', '.join(found)}): --resume "
                              "continues it, --overwrite deletes it and starts anew")
    return found


# Softmax temperature of the imitation term, in net levels: the teacher's token is pushed
# above the other legal tokens by a margin of about this much, small next to the spread of
# a hand's rewards, so the values stay in net levels for the Monte-Carlo part.
IMITATION_TEMPERATURE = 0.1

Evaluate = Callable[[Path], dict[str, Any]]


def arrays_of(net: QNet) -> dict[str, np.ndarray]:
    """The net's weights as the ``learned`` bot's numpy arrays (copies)."""
    return {k: v.detach().numpy().copy() for k, v in net.state_dict().items()}


def _save(path: Path, net: QNet, opt: torch.optim.Optimizer, config: TrainConfig, done: int,
          seconds: float) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save({
        "model": net.state_dict(), "optimizer": opt.state_dict(), "hands_done": done,
        "config": asdict(config), "torch_rng": torch.get_rng_state(), "seconds": seconds,
        "obs_version": card_obs.OBS_VERSION, "action_space_version": CA.ACTION_SPACE_VERSION,
    }, tmp)
    tmp.replace(path)  # a crash mid-save leaves the previous checkpoint whole


def load(path: Path) -> tuple[QNet, dict[str, Any]]:
    """A saved net and its checkpoint; refuses one made for another observation layout or
    action space."""
    data = torch.load(path, weights_only=False)
    if (data["obs_version"], data["action_space_version"]) != (card_obs.OBS_VERSION,
                                                               CA.ACTION_SPACE_VERSION):
        raise ValueError(f"{path} was trained on observation v{data['obs_version']} and "
                         f"actions v{data['action_space_version']}; this code has "
                         f"v{card_obs.OBS_VERSION} and v{CA.ACTION_SPACE_VERSION}")
    net = QNet(data["config"]["hidden"])
    net.load_state_dict(data["model"])
    return net, data


class Buffer:
    """Samples waiting for an update: observation, token, target, imitation legal set."""

    def __init__(self) -> None:
        self.obs: list[np.ndarray] = []
        self.tokens: list[int] = []
        self.targets: list[float] = []
        self.expert: list[np.ndarray | None] = []

    def add_round(self, played: list[Actors.Trajectory], rng: np.random.Generator) -> None:
        """Add a round's samples in a seeded random order, so that an update mixes the
        steps of several hands rather than the consecutive, strongly correlated steps of
        one or two."""
        obs = [row for t in played for row in t.obs]
        tokens = [x for t in played for x in t.tokens.tolist()]
        targets = [x for t in played for x in t.rewards[t.seats].tolist()]
        expert: list[np.ndarray | None] = [
            x for t in played for x in (t.expert if t.expert else [None] * len(t.tokens))]
        for i in rng.permutation(len(tokens)).tolist():
            self.obs.append(obs[i])
            self.tokens.append(tokens[i])
            self.targets.append(targets[i])
            self.expert.append(expert[i])

    def __len__(self) -> int:
        return len(self.targets)

    def take(self, n: int) -> tuple[list[np.ndarray], list[int], list[float],
                                     list[np.ndarray | None]]:
        out = (self.obs[:n], self.tokens[:n], self.targets[:n], self.expert[:n])
        del self.obs[:n], self.tokens[:n], self.targets[:n], self.expert[:n]
        return out


def _imitation_loss(net: QNet, state: torch.Tensor, q: torch.Tensor,
                    expert: list[np.ndarray | None]) -> torch.Tensor | None:
    """Cross-entropy of the teacher's token under a softmax of Q over the legal tokens, on
    the samples where the teacher's token was taken (``state``: the batch's state parts,
    ``q``: the values of the tokens taken)."""
    rows: list[int] = []
    sets: list[np.ndarray] = []
    for i, legal in enumerate(expert):
        if legal is not None and len(legal):
            rows.append(i)
            sets.append(legal)
    if not rows:
        return None
    seg = torch.from_numpy(np.repeat(np.arange(len(rows)), [len(s) for s in sets]))
    cand = torch.from_numpy(np.concatenate(sets).astype(np.int64))
    idx = torch.tensor(rows, dtype=torch.long)
    logits = net.head(state[idx][seg], cand) / IMITATION_TEMPERATURE
    top = torch.zeros(len(rows)).scatter_reduce(0, seg, logits, "amax", include_self=False)
    lse = top + torch.zeros(len(rows)).index_add(0, seg, torch.exp(logits - top[seg])).log()
    chosen = q[idx] / IMITATION_TEMPERATURE
    loss: torch.Tensor = (lse - chosen).mean()
    return loss


def train(config: TrainConfig, out: Path, *, resume: bool = False, overwrite: bool = False,
          actors: int = 1, ray: str | None = None, evaluate: Evaluate | None = None,
          progress: Callable[[int, str], None] | None = None) -> dict[str, Any]:
    """Run (or resume) a DMC run in ``out`` with ``actors`` actors (local processes, or Ray
    actors at ``ray``); ``evaluate`` scores a weights file every ``config.eval_every``
    hands (eval.jsonl). A resumed run keeps its checkpoint's configuration: ``config``
    may differ from it only in :data:`RESUMABLE` fields (else ValueError). A new run
    refuses a folder with another run's files unless ``overwrite`` deletes them
    (:func:`check_folder`), and a resumed run must be asked for more hands than it has
    done (:func:`check_more`). Returns a summary of what this call did."""
    torch.set_num_threads(1)
    doomed = check_folder(out, resume=resume, overwrite=overwrite)
    ckpt = out / CHECKPOINT
    torch.manual_seed(config.seed)
    net = QNet(config.hidden)
    opt = torch.optim.RMSprop(net.parameters(), lr=config.lr, alpha=0.99, eps=1e-5)
    done = 0
    seconds_before = 0.0
    if resume:
        net, data = load(ckpt)
        check_more(data["hands_done"], config.hands)  # before anything is written
        saved = _config_of(data)
        bad = conflicts(saved, asdict(config))
        if bad:
            raise ValueError(f"{ckpt}: a resumed run keeps its settings; "
                             + ", ".join(f"{k} {getattr(config, k)!r} is not the run's "
                                         f"{getattr(saved, k)!r}" for k in bad))
        config = replace(saved, **{k: getattr(config, k) for k in RESUMABLE})
        opt = torch.optim.RMSprop(net.parameters(), lr=config.lr, alpha=0.99, eps=1e-5)
        opt.load_state_dict(data["optimizer"])
        done = data["hands_done"]
        seconds_before = data.get("seconds", 0.0)
        torch.set_rng_state(data["torch_rng"])
    game = Actors.Game(config.preset, config.options, config.mid_round)
    # The actors first: a Ray cluster that cannot be reached leaves --out as it was.
    pool = Actors.start(game, actors, ray)
    try:
        for name in doomed:
            if (out / name).is_dir():
                shutil.rmtree(out / name)
            else:
                (out / name).unlink()
        out.mkdir(parents=True, exist_ok=True)
    except BaseException:
        pool.close()
        raise
    buf = Buffer()
    by_actor: dict[str, int] = {}  # hands played this call, per actor process (host:pid)
    updates = 0
    last_loss = float("nan")
    last_eval = ""
    start = done
    began = time.perf_counter()

    def seconds() -> float:
        return round(seconds_before + time.perf_counter() - began, 3)

    try:
        with (out / LOSS_LOG).open("a", encoding="utf-8") as log:
            while done < config.hands:
                n = min(config.round_hands, config.hands - done)
                jobs = [Actors.Job(h, config.seed, config.epsilon) if h >= config.imitate_hands
                        or config.imitate is None else
                        Actors.Job(h, config.seed, config.imitate_epsilon, config.imitate)
                        for h in range(done, done + n)]
                self_play = any(j.teacher is None for j in jobs)
                played = pool.play(jobs, arrays_of(net) if self_play else None)
                for traj in played:
                    by_actor[traj.actor] = by_actor.get(traj.actor, 0) + 1
                for k in range(config.reuse):
                    buf.add_round(played, np.random.default_rng([config.seed, done, k]))
                before, done = done, done + n
                while len(buf) >= config.batch:
                    obs, tok, tgt, expert = buf.take(config.batch)
                    x = torch.from_numpy(np.stack(obs))
                    t = torch.tensor(tok, dtype=torch.long)
                    y = torch.tensor(tgt, dtype=torch.float32)
                    state = net.state(x)
                    q = net.head(state, t)
                    mse = nn.functional.mse_loss(q, y)
                    bc = _imitation_loss(net, state, q, expert)
                    loss = mse if bc is None else mse + config.imitate_weight * bc
                    opt.zero_grad()
                    loss.backward()  # type: ignore[no-untyped-call, unused-ignore]
                    nn.utils.clip_grad_norm_(net.parameters(), 40.0)
                    opt.step()
                    updates += 1
                    last_loss = float(mse.detach())
                    line = {"hand": done, "update": updates, "loss": last_loss,
                            "samples": config.batch, "seconds": seconds()}
                    if bc is not None:
                        line["imitation"] = float(bc.detach())
                    log.write(json.dumps(line) + "\n")
                    log.flush()
                if _crossed(before, done, config.checkpoint_every) or done == config.hands:
                    _save(ckpt, net, opt, config, done, seconds())
                if evaluate is not None and config.eval_every and (
                        _crossed(before, done, config.eval_every) or done == config.hands):
                    last_eval = _evaluate(evaluate, net, out, done, seconds(), config)
                if progress is not None:
                    progress(done, f"loss {last_loss:.4f}{last_eval}")
    finally:
        pool.close()
    if start == done:
        _save(ckpt, net, opt, config, done, seconds())
    return {"hands_done": done, "hands_this_run": done - start, "updates": updates,
            "last_loss": last_loss, "seconds": seconds(), "checkpoint": str(ckpt),
            "actors": by_actor}


def _crossed(before: int, after: int, every: int) -> bool:
    return every > 0 and after // every > before // every


def _evaluate(evaluate: Evaluate, net: QNet, out: Path, done: int, seconds: float,
              config: TrainConfig) -> str:
    """Export the net as the learned bot's weights (evals/hands-N.npz), score it, log it."""
    from gunzi.bots import learned

    folder = out / EVALS
    folder.mkdir(exist_ok=True)
    weights = folder / f"hands-{done:09d}.npz"
    learned.save(weights, arrays_of(net), hands=done, preset=config.preset,
                 options=config.options)
    result = evaluate(weights)
    with (out / EVAL_LOG).open("a", encoding="utf-8") as log:
        log.write(json.dumps({"hand": done, "seconds": seconds, "weights": str(weights),
                              **result}) + "\n")
    return f", eval {result['net']:+.3f}"


def export(checkpoint: Path, out: Path, *, half: bool = False) -> dict[str, Any]:
    """Write the net of ``checkpoint`` as the ``learned`` bot's weights file (numpy .npz,
    :func:`gunzi.bots.learned.save`); returns what was written."""
    from gunzi.bots import learned

    net, data = load(checkpoint)
    arrays = {k: v.detach().numpy() for k, v in net.state_dict().items()}
    meta = {"hands": data["hands_done"], "preset": data["config"]["preset"],
            "options": data["config"].get("options", {})}
    learned.save(out, arrays, half=half, **meta)
    return {"file": str(out), "bytes": out.stat().st_size, "hidden": net.state.out_features,
            "dtype": "float16" if half else "float32", **meta}
