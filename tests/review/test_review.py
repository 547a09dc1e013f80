"""Post-hand reviews: stable for a seed, well formed, and call-outs name real tricks."""

from __future__ import annotations

import json

import pytest

from gunzi.engine import cards as C
from gunzi.engine.errors import RecordError
from gunzi.review.review import Budget, review
from gunzi.review.timeline import timeline

from .test_timeline import seeded_record

SMALL = Budget(rollouts=12, early=6, min_loss=0.3)  # a few deals per play: fast, still stable


@pytest.fixture(scope="module")
def record() -> str:
    return seeded_record("classic-1", 21, hands=1)


def test_review_is_stable_and_well_formed(record: str) -> None:
    first = review(record, 1, 2, budget=SMALL, seed=5, lang="en")
    again = review(record, 1, 2, budget=SMALL, seed=5, lang="en")
    assert json.dumps(first, sort_keys=True) == json.dumps(again, sort_keys=True)
    hand = timeline(record)["hands"][0]
    plays = [d for d in first["decisions"] if d["kind"] == "play"]
    mine = [(t["n"], p["cards"]) for t in hand["tricks"] for p in t["plays"] if p["seat"] == 2]
    # One entry per card play of the seat, in trick order, naming what it played.
    assert [d["trick"] for d in plays] == [n for n, _ in mine]
    for d, (_, cards) in zip(plays, mine, strict=True):
        if "attempted" not in d:
            assert d["chosen"] == cards
        if d["rated"]:
            values = [o["value"] for o in d["options"]]
            assert values == sorted(values, reverse=True)
            assert d["best"] == d["options"][0]["cards"]
            assert d["chosen"] in [o["cards"] for o in d["options"]]
            assert d["loss"] == pytest.approx(max(0.0, d["best_value"] - d["value"]), abs=2e-3)
            assert d["text"].startswith(f"trick {d['trick']}: played ")
    assert any(d["rated"] for d in plays)
    other = review(record, 1, 2, budget=SMALL, seed=6, lang="en")
    assert [d["trick"] for d in other["decisions"]] == [d["trick"] for d in first["decisions"]]


def test_callouts_name_real_tricks(record: str) -> None:
    out = review(record, 1, 1, budget=SMALL, seed=1, lang="en")
    hand = timeline(record)["hands"][0]
    tricks = {t["n"]: t for t in hand["tricks"]}
    expected = []
    for t in hand["tricks"]:
        mine = next(p for p in t["plays"] if p["seat"] == 1)
        pts = C.points_of(C.parse_many(mine["cards"]))
        if pts and t["winner"] % 2 != 1:
            expected.append((t["n"], pts))
    gave = [(c["trick"], c["points"]) for c in out["callouts"] if c["kind"] == "gave_points"]
    assert gave == expected
    for c in out["callouts"]:
        if c["kind"] == "gave_points":
            assert tricks[c["trick"]]["winner"] % 2 == 0  # the opponents won it
            assert c["text"].startswith(f"trick {c['trick']}: gave {c['points']} points")
        if c["kind"] == "better_play":
            assert c["loss"] >= SMALL.min_loss and c["best"] != c["cards"]
    end = hand["end"]
    assert any(c["kind"] == "kou" for c in out["callouts"]) == end["kou"]


def test_chinese_words_and_bad_input(record: str) -> None:
    zh = review(record, 1, 0, budget=SMALL, seed=5, lang="zh")
    en = review(record, 1, 0, budget=SMALL, seed=5, lang="en")
    assert zh["lang"] == "zh"
    assert [d.get("loss") for d in zh["decisions"]] == [d.get("loss") for d in en["decisions"]]
    assert all(d["text"].startswith("第 ") for d in zh["decisions"] if d["kind"] == "play")
    with pytest.raises(RecordError, match="no finished hand 2"):
        review(record, 2, 0, budget=SMALL)
    with pytest.raises(RecordError, match="seat must be"):
        review(record, 1, 4, budget=SMALL)
