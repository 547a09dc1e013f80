"""Timelines rebuilt from records: every trick, winner and score equals the record's."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from gunzi.engine import cards as C
from gunzi.engine import records
from gunzi.engine.errors import RecordError
from gunzi.engine.match import Match
from gunzi.engine.rules import preset
from gunzi.review.timeline import MAX_RECORD_BYTES, hand_of, timeline


def seeded_record(rules: str, seed: int, hands: int = 2) -> str:
    """A record of ``hands`` finished hands of random legal play (the next hand is dealt)."""
    m = Match(preset(rules), random.Random(seed))
    rng = random.Random(seed + 1)
    while len(m.results) < hands:
        seat = m.to_act
        assert seat is not None
        m.apply(m.legal_actions(seat).sample(rng))
    return records.dumps(records.header(m, seed=seed), records.finished_events(m))


@pytest.mark.parametrize(("rules", "seed"), [("gunzi", 3), ("classic-2", 4), ("classic-1", 5)])
def test_timeline_reproduces_the_record(rules: str, seed: int) -> None:
    text = seeded_record(rules, seed)
    lines = [json.loads(x) for x in text.splitlines()]
    tl = timeline(text)
    assert tl["game"] == preset(rules).game and len(tl["hands"]) == 2
    for hand in tl["hands"]:
        no = hand["hand"]
        first = next(i for i, e in enumerate(lines) if e["type"] == "deal" and e["hand"] == no)
        end = next(i for i, e in enumerate(lines[first:], first) if e["type"] == "hand_end")
        events = lines[first:end + 1]
        plays = [e for e in events if e["type"] == "play"]
        tricks = [e for e in events if e["type"] == "trick"]
        assert [(t["n"], t["winner"], t["points"]) for t in hand["tricks"]] == [
            (t["trick"], t["winner"], t["points"]) for t in tricks]
        assert [(p["seat"], p["cards"]) for t in hand["tricks"] for p in t["plays"]] == [
            (p["seat"], p["cards"]) for p in plays]
        for t in hand["tricks"]:
            assert len(t["plays"]) == 4 and t["leader"] == t["plays"][0]["seat"]
        # The hands at play start are exactly what each seat plays; the kitty is what stays.
        for seat in range(4):
            mine = [c for t in hand["tricks"] for p in t["plays"] if p["seat"] == seat
                    for c in p["cards"]]
            assert Counter(mine) == Counter(hand["start"][seat])
        result = lines[end]
        assert hand["end"]["score"] == result["score"]
        assert hand["end"]["levels_after"] == result["levels_after"]
        assert sorted(hand["kitty"]) == sorted(result["kitty"])
        attackers = result["attackers"]
        assert hand["tricks"][-1]["running"][attackers] == result["trick_points"]
        # Dealt hands plus the kitty as dealt make the whole pack.
        dealt = [c for d in hand["dealt"] for c in d] + hand["kitty_dealt"]
        assert Counter(dealt) == Counter(C.names(C.deck(preset(rules).decks)))
    assert hand_of(tl, 2)["hand"] == 2


def test_a_failed_throw_names_who_stops_it_with_cards_they_still_hold() -> None:
    """The replay's banner: the stopper is another seat and holds the beating cards at the
    lead (its hand at play start less what it played before), as many as the forced part."""
    tl = timeline(seeded_record("classic-2", 4, hands=3))
    seen = 0
    for hand in tl["hands"]:
        for k, t in enumerate(hand["tricks"]):
            lead = t["plays"][0]
            if "attempted" not in lead:
                continue
            seen += 1
            stopper = lead["blocker"]
            assert stopper != lead["seat"]
            before = Counter(c for u in hand["tricks"][:k] for p in u["plays"]
                             if p["seat"] == stopper for c in p["cards"])
            left = Counter(hand["start"][stopper]) - before
            assert not Counter(lead["beats"]) - left, (lead, left)
            assert len(lead["beats"]) == len(lead["cards"])
    assert seen  # random play throws often; these seeds do fail some


def test_final_scores_equal_the_replay() -> None:
    text = seeded_record("gunzi", 8, hands=3)
    lines = [json.loads(x) for x in text.splitlines()]
    replayed = records.replay(lines)
    tl = timeline(text)
    assert [h["end"]["hand_scores"] for h in tl["hands"]] == [
        r["hand_scores"] for r in replayed.hands]
    total = [sum(h["end"]["hand_scores"][s] for h in tl["hands"]) for s in range(4)]
    assert total == replayed.match.scores


def test_bad_records_are_rejected_clearly() -> None:
    text = seeded_record("classic-1", 6, hands=1)
    lines = text.splitlines()
    i = next(k for k, x in enumerate(lines)
             if json.loads(x)["type"] == "play" and "attempted" not in json.loads(x))
    ev = json.loads(lines[i])
    other = "AS" if ev["cards"][0] != "AS" else "KS"
    ev["cards"] = [other] * len(ev["cards"])
    lines[i] = json.dumps(ev)
    with pytest.raises(RecordError, match=rf"event {i}: illegal play"):
        timeline("\n".join(lines))
    with pytest.raises(RecordError, match="line 2 is not JSON"):
        timeline(lines[0] + "\n{oops\n")
    with pytest.raises(RecordError, match="header"):
        timeline('{"type": "play"}\n')
    with pytest.raises(RecordError, match="middle of hand"):
        timeline("\n".join(text.splitlines()[:i + 1]))
    with pytest.raises(RecordError, match="larger than 2 MB"):
        timeline(" " * (MAX_RECORD_BYTES + 1))
    with pytest.raises(RecordError, match="no finished hand 5"):
        hand_of(timeline(text), 5)
