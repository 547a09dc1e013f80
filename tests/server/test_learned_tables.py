"""The learned bot at hall tables: offered by the lobby, seated and played through whole
hands (打滚子, and classic, where its 打滚子 weights are said to be untrained), its moves
batched across tables."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import threading
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gunzi.bots.base import Decision, observe
from gunzi.bots.checked import CheckedBot
from gunzi.bots.learned import DMC_WEIGHTS, WEIGHTS, LearnedBot
from gunzi.engine import records
from gunzi.engine.actions import Kind
from gunzi.engine.match import Match
from gunzi.engine.rules import preset
from gunzi.server.bot_batch import BotBatch, batching

from .util import cookie_guest, play_out


def test_rules_offer_the_learned_bot_and_say_where_it_was_trained(client: TestClient) -> None:
    rules = client.get("/api/rules").json()
    assert "learned" in rules["bots"] and "search" not in rules["bots"]
    untrained = rules["bots_untrained"]
    assert untrained["gunzi"] == {}
    assert untrained["classic-2"] == {"learned": "gunzi", "checked": "gunzi"}


def test_tables_whose_rule_options_the_net_was_not_trained_on_say_so() -> None:
    """The shipped net was trained on default 打滚子: a 活棒 打滚子 table is not its game."""
    from gunzi.server.table_games import untrained_bots

    assert untrained_bots(preset("gunzi")) == {}
    both = {"learned": "gunzi", "checked": "gunzi"}  # checked: the same net proposes
    assert untrained_bots(preset("gunzi", follow="live")) == both
    assert untrained_bots(preset("classic-1")) == both


@pytest.mark.parametrize(("preset_name", "untrained"), [
    ("gunzi", {}), ("classic-1", {"learned": "gunzi", "checked": "gunzi"})])
def test_a_table_of_learned_bots_plays_a_whole_hand(client: TestClient, preset_name: str,
                                                    untrained: dict[str, str]) -> None:
    alice = cookie_guest(client)
    r = client.post("/api/quickplay", json={"preset": preset_name, "bot": "learned",
                                           "max_hands": 1}, headers=alice)
    assert r.status_code == 201, r.text
    t = r.json()
    assert [s["bot"] for s in t["seats"][1:]] == ["learned"] * 3
    assert t["bots_untrained"] == untrained and "learned" in t["bots"]
    play_out(client, t["id"], alice)
    lines = [json.loads(x) for x in client.get(f"/api/tables/{t['id']}/record").text.splitlines()]
    assert len(records.replay(lines).hands) == 1  # every action re-validated by the engine
    info = client.get(f"/api/tables/{t['id']}").json()
    assert info["status"] == "finished" and info["hands_played"] == 1
    text = client.get("/metrics").text
    batches = [x for x in text.splitlines() if x.startswith("gunzi_bot_batch_size_sum")]
    assert batches and float(batches[0].split()[-1]) > 0  # the bot moves went through it


def test_a_table_of_checked_bots_plays_a_whole_hand_off_the_event_loop(
        make_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch) -> None:
    """The checked bot thinks (rollouts) in the hall's bot threads, not on its loop: its
    moves at the bots' seats and, with checked as the hall's bot, the hints of seat 0."""
    seen: list[tuple[int, str]] = []
    choose = CheckedBot.choose

    def spy(self: CheckedBot, decision: Decision, rng: random.Random) -> Any:
        seen.append((decision.seat, threading.current_thread().name))
        return choose(self, decision, rng)

    monkeypatch.setattr(CheckedBot, "choose", spy)
    client = make_client(bot="checked")
    alice = cookie_guest(client)
    r = client.post("/api/quickplay", json={"preset": "gunzi", "bot": "checked",
                                           "max_hands": 1}, headers=alice)
    assert r.status_code == 201, r.text
    t = r.json()
    assert [s["bot"] for s in t["seats"][1:]] == ["checked"] * 3 and "checked" in t["bots"]
    play_out(client, t["id"], alice)  # seat 0 plays the hints
    lines = [json.loads(x) for x in client.get(f"/api/tables/{t['id']}/record").text.splitlines()]
    assert len(records.replay(lines).hands) == 1
    assert client.get(f"/api/tables/{t['id']}").json()["status"] == "finished"
    assert {seat for seat, _ in seen} == {0, 1, 2, 3}
    names = {name for _, name in seen}
    assert all(n.startswith("gunzi-bot") for n in names), names


def test_an_owner_seats_learned_bots_by_hand(client: TestClient) -> None:
    alice = cookie_guest(client)
    tid = client.post("/api/tables", json={"preset": "gunzi", "seat": 0},
                      headers=alice).json()["id"]
    for seat in (1, 2, 3):
        r = client.put(f"/api/tables/{tid}/seats/{seat}/bot", json={"bot": "learned"},
                       headers=alice)
        assert r.status_code == 200 and r.json()["seats"][seat]["bot"] == "learned"
    r = client.put(f"/api/tables/{tid}/seats/1/bot", json={"bot": "search"}, headers=alice)
    assert r.status_code == 400  # search is not seated at hall tables (docs/bots.md)


def _decisions(n: int) -> list[Decision]:
    out = []
    for seed in range(n):
        m = Match(preset("gunzi"), random.Random(seed))
        seat = m.to_act
        assert seat is not None
        out.append(observe(m, seat))
    return out


@pytest.mark.parametrize("weights", [WEIGHTS, DMC_WEIGHTS], ids=["advantage", "dmc"])
def test_decisions_due_together_are_one_batch_and_a_failure_stays_alone(weights: Any) -> None:
    sizes: list[int] = []

    class Sizes:
        def observe(self, n: float) -> None:
            sizes.append(int(n))

    decisions = _decisions(6)
    bots = [LearnedBot(weights) for _ in decisions]
    assert all(batching(b) for b in bots) and not batching(object())

    async def run(bots: list[LearnedBot]) -> list[Any]:
        batch = BotBatch(Sizes())
        return await asyncio.gather(*(batch.choose(b, d, random.Random(0))
                                      for b, d in zip(bots, decisions, strict=True)),
                                    return_exceptions=True)

    got = asyncio.run(run(bots))
    assert sizes == [6]  # one flush, one group (the bots share the policy)
    assert got == [b.decide(d) for b, d in zip(bots, decisions, strict=True)]
    # A decision the bot cannot answer (no listed actions, no builder) fails alone.
    bad = dataclasses.replace(decisions[2], actions=None, options=None, listing=None,
                              kind=Kind.DECLARE)
    decisions[2] = bad
    got = asyncio.run(run(bots))
    assert isinstance(got[2], Exception) and sizes == [6, 6]
    for i in (0, 1, 3, 4, 5):
        assert got[i] == bots[i].decide(decisions[i])
