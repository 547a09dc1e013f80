"""Deep Monte-Carlo self-play in the style of DouZero, on PyTorch CPU (the ``[learn]`` extra).

One action-conditioned value net Q(s, a) for every seat: the seat's observation
(:mod:`gunzi.bots.card_obs`, 750 floats) and one token id of the fixed action space
(:mod:`gunzi.bots.card_tokens`). The state part of the first layer is a Linear over the
observation, the action part an embedding of the token (the same as a Linear over a one-hot,
computed once per candidate), then 256 → 256 → 1. At each step all legal tokens are scored
in one batch and the best is played (ε-greedy). Targets are the seat's final reward of the
hand (net levels), copied to every step of that seat, undiscounted; loss MSE, RMSprop
(lr 1e-4, alpha 0.99, eps 1e-5), gradient clip 40, as DouZero. One process: the machine of
this project has two cores (docs/research.md says how to scale it out).

Checkpoints (``checkpoint.pt`` in the run folder) hold the net, the optimizer, the hands
done, the configuration, the random generators and the observation and action-space
versions, so ``resume`` continues the same run; ``loss.jsonl`` logs every update.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from gunzi.bots import card_obs
from gunzi.env import card_actions as CA
from gunzi.env.cards import CardEnv

CHECKPOINT = "checkpoint.pt"
LOSS_LOG = "loss.jsonl"


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
        out: torch.Tensor = self.body(self.state(obs) + self.action(tokens)).squeeze(-1)
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


def _hand_seed(seed: int, hand: int) -> int:
    return random.Random(f"dmc:{seed}:{hand}").getrandbits(63)


def play_hand(net: QNet, env: CardEnv, seed: int, epsilon: float, rng: random.Random
              ) -> tuple[list[tuple[np.ndarray, int, int]], list[float]]:
    """Self-play one hand: per step (observation, token, seat), and the seats' rewards."""
    env.reset(seed=seed)
    steps: list[tuple[np.ndarray, int, int]] = []
    rewards = [0.0] * len(env.possible_agents)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            rewards[env.possible_agents.index(agent)] = float(reward)
            env.step(None)
            continue
        legal = [int(t) for t in np.flatnonzero(obs["action_mask"])]
        token = rng.choice(legal) if rng.random() < epsilon else net.best(
            obs["observation"], legal)
        steps.append((obs["observation"], token, env.possible_agents.index(agent)))
        env.step(token)
    return steps, rewards


def _save(path: Path, net: QNet, opt: torch.optim.Optimizer, config: TrainConfig, done: int,
          rng: random.Random) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save({
        "model": net.state_dict(), "optimizer": opt.state_dict(), "hands_done": done,
        "config": asdict(config), "rng": rng.getstate(), "torch_rng": torch.get_rng_state(),
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


def train(config: TrainConfig, out: Path, *, resume: bool = False,
          progress: Callable[[int, str], None] | None = None) -> dict[str, Any]:
    """Run (or resume) a DMC run in ``out``; returns a summary of what this call did."""
    torch.set_num_threads(1)
    out.mkdir(parents=True, exist_ok=True)
    ckpt = out / CHECKPOINT
    rng = random.Random(config.seed)
    torch.manual_seed(config.seed)
    net = QNet(config.hidden)
    opt = torch.optim.RMSprop(net.parameters(), lr=config.lr, alpha=0.99, eps=1e-5)
    done = 0
    if resume:
        if not ckpt.exists():
            raise FileNotFoundError(f"nothing to resume: {ckpt} does not exist")
        net, data = load(ckpt)
        config = replace(config, hidden=data["config"]["hidden"])  # the net keeps its width
        opt = torch.optim.RMSprop(net.parameters(), lr=config.lr, alpha=0.99, eps=1e-5)
        opt.load_state_dict(data["optimizer"])
        done = data["hands_done"]
        rng.setstate(data["rng"])
        torch.set_rng_state(data["torch_rng"])
    env = CardEnv(config.preset, **config.options)
    obs_buf: list[np.ndarray] = []
    tok_buf: list[int] = []
    tgt_buf: list[float] = []
    updates = 0
    last_loss = float("nan")
    start = done
    with (out / LOSS_LOG).open("a", encoding="utf-8") as log:
        while done < config.hands:
            steps, rewards = play_hand(net, env, _hand_seed(config.seed, done), config.epsilon,
                                       rng)
            for obs, token, seat in steps:
                obs_buf.append(obs)
                tok_buf.append(token)
                tgt_buf.append(rewards[seat])
            done += 1
            while len(tgt_buf) >= config.batch:
                x = torch.from_numpy(np.stack(obs_buf[:config.batch]))
                t = torch.tensor(tok_buf[:config.batch], dtype=torch.long)
                y = torch.tensor(tgt_buf[:config.batch], dtype=torch.float32)
                del obs_buf[:config.batch], tok_buf[:config.batch], tgt_buf[:config.batch]
                loss = nn.functional.mse_loss(net(x, t), y)
                opt.zero_grad()
                loss.backward()  # type: ignore[no-untyped-call, unused-ignore]
                nn.utils.clip_grad_norm_(net.parameters(), 40.0)
                opt.step()
                updates += 1
                last_loss = float(loss.detach())
                log.write(json.dumps({"hand": done, "update": updates, "loss": last_loss,
                                      "samples": config.batch}) + "\n")
                log.flush()
            if done % config.checkpoint_every == 0 or done == config.hands:
                _save(ckpt, net, opt, config, done, rng)
            if progress is not None:
                progress(done, f"loss {last_loss:.4f}")
    if start == done:
        _save(ckpt, net, opt, config, done, rng)
    return {"hands_done": done, "hands_this_run": done - start, "updates": updates,
            "last_loss": last_loss, "checkpoint": str(ckpt)}


def export(checkpoint: Path, out: Path, *, half: bool = False) -> dict[str, Any]:
    """Write the net of ``checkpoint`` as the ``learned`` bot's weights file (numpy .npz,
    :func:`gunzi.bots.learned.save`); returns what was written."""
    from gunzi.bots import learned

    net, data = load(checkpoint)
    arrays = {k: v.detach().numpy() for k, v in net.state_dict().items()}
    meta = {"hands": data["hands_done"], "preset": data["config"]["preset"]}
    learned.save(out, arrays, half=half, **meta)
    return {"file": str(out), "bytes": out.stat().st_size, "hidden": net.state.out_features,
            "dtype": "float16" if half else "float32", **meta}
