"""P3 on the wire, 200+ hands: `.ci/run` runs it by naming this file.

    .venv/bin/pytest tests/server/test_leak_200.py -q -s

It is left out of ``pytest tests/server`` (about five minutes on two cores);
tests/server/test_leak.py is the short version in the default run.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from . import leakrun
from .util import ServerProc

SEED = int(os.environ.get("GUNZI_LEAK_SEED", "200"))
SPECS = [("gunzi", 32)] * 4 + [("classic-1", 12)] * 3 + [("classic-2", 15)] * 2 + [
    ("classic-3", 20)]


@pytest.mark.slow
@pytest.mark.ci_long
def test_200_hands_no_hidden_card_reaches_any_client(tmp_path: Path) -> None:
    with ServerProc(tmp_path / "srv") as server:
        out = asyncio.run(leakrun.run(server, SPECS, SEED, budget=1500))
    print(f"seed {SEED}: " + leakrun.summary(out))
    assert out.report.leaks == [], out.report.leaks[:20]
    assert out.report.wrong == [], out.report.wrong[:20]
    assert out.gaps == [], out.gaps[:10]
    assert out.refused == 0, out.refusals[:10]
    assert out.hands >= 200
