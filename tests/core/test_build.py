"""Which build of the play core runs: build/core when it was compiled from these sources,
else the source (gunzi/core/__init__.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gunzi import core

PROBE = ("import json; from gunzi.core import batch, gunzi_play, gunzi_rule;"
         "print(json.dumps({'files': [gunzi_play.__file__, gunzi_rule.__file__, "
         "batch.__file__], 'outcomes': repr(batch.simulate(40, 3, records=True))}))")


def probe(**env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items()
            if k not in ("GUNZI_CORE", "GUNZI_CORE_BUILD", "PYTHONPATH")}
    return subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          env={**base, **env}, check=False)


def test_digest_follows_every_source_byte(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = tmp_path / "core", tmp_path / "engine"
    a.mkdir()
    b.mkdir()
    (a / "x.py").write_text("X = 1\n")
    (b / "y.py").write_text("Y = 2\n")
    monkeypatch.setattr(core, "SOURCES", (a, b))
    first = core.source_digest()
    assert core.source_digest() == first
    (b / "y.py").write_text("Y = 3\n")  # an engine constant the compiled core may have baked in
    second = core.source_digest()
    assert second != first
    (a / "z.py").write_text("")  # a new module counts too
    assert core.source_digest() not in (first, second)


def test_a_build_counts_only_for_the_sources_it_was_made_from(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(core, "BUILD", tmp_path)
    assert core.compiled_build() is None  # no build
    (tmp_path / core.DIGEST_FILE).write_text("0" * 64 + "\n")
    assert core.compiled_build() is None  # built from other sources
    (tmp_path / core.DIGEST_FILE).write_text(core.source_digest() + "\n")
    assert core.compiled_build() == tmp_path


def test_pure_and_stale_builds_run_the_source(tmp_path: Path) -> None:
    (tmp_path / core.DIGEST_FILE).write_text("0" * 64 + "\n")
    for env in ({"GUNZI_CORE": "pure"}, {"GUNZI_CORE_BUILD": str(tmp_path)}):
        done = probe(**env)
        assert done.returncode == 0, done.stderr
        files = json.loads(done.stdout)["files"]
        assert all(f.endswith(".py") and "/src/gunzi/core/" in f for f in files), files


def test_a_required_build_that_is_missing_refuses_to_start(tmp_path: Path) -> None:
    done = probe(GUNZI_CORE="compiled", GUNZI_CORE_BUILD=str(tmp_path))
    assert done.returncode != 0
    assert "GUNZI_CORE=compiled" in done.stderr and "make setup" in done.stderr
    done = probe(GUNZI_CORE="fastest")
    assert done.returncode != 0 and "auto, pure or compiled" in done.stderr


@pytest.mark.skipif(core.compiled_build() is None,
                    reason="build/core is not built from these sources (make setup builds it)")
def test_the_current_build_runs_by_default_and_plays_like_the_source() -> None:
    auto, pure = probe(), probe(GUNZI_CORE="pure")
    assert auto.returncode == 0 and pure.returncode == 0, auto.stderr + pure.stderr
    a, p = json.loads(auto.stdout), json.loads(pure.stdout)
    play, rule, batch = a["files"]
    assert play.endswith(".so") and rule.endswith(".so")
    assert Path(play).parent == core.BUILD / "gunzi" / "core"
    assert batch.endswith("batch.py")  # batch stays Python (its outcomes are pickled)
    assert a["outcomes"] == p["outcomes"]
