"""P3 on the wire: no frame tells a client a card it may not know (short run, default suite).

The 200-hand run is tests/server/test_leak_200.py (``pytest tests/server/test_leak_200.py``).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from . import leakrun
from .util import ServerProc

SEED = int(os.environ.get("GUNZI_LEAK_SEED", "20261201"))


@pytest.mark.slow
def test_no_hidden_card_reaches_any_client(tmp_path: Path) -> None:
    specs = [("gunzi", 4), ("gunzi", 4), ("classic-1", 10), ("classic-2", 4)]
    with ServerProc(tmp_path / "srv") as server:
        out = asyncio.run(leakrun.run(server, specs, SEED, budget=400))
    print(f"seed {SEED}: " + leakrun.summary(out))
    assert out.report.leaks == [], out.report.leaks[:20]
    assert out.report.wrong == [], out.report.wrong[:20]
    assert out.gaps == [], out.gaps[:10]
    assert out.refused == 0, out.refusals[:10]
    assert out.hands >= sum(h for _, h in specs)
    assert out.report.events > 1000 and out.report.views > 100


@pytest.mark.slow
def test_duplicate_first_play_stays_sealed_on_the_wire(tmp_path: Path) -> None:
    """A 复式 table through the server: during the second play no frame, resync or snapshot
    shows the first play's draws, taken or buried cards or final kitty (leakcheck seals
    the first play until the board is done); afterwards the record is complete."""
    specs = [("classic-1", 2, {"duplicate": 1}), ("gunzi", 4, {"duplicate": 2})]
    with ServerProc(tmp_path / "srv") as server:
        out = asyncio.run(leakrun.run(server, specs, SEED, budget=400, reconnect_rate=0.3))
    print(f"seed {SEED}: " + leakrun.summary(out))
    assert out.report.leaks == [], out.report.leaks[:20]
    assert out.report.wrong == [], out.report.wrong[:20]
    assert out.gaps == [], out.gaps[:10]
    assert out.hands >= 6 and out.report.events > 500
