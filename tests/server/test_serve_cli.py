"""`gunzi serve` that cannot start says why in one line on stderr and exits non-zero, with
no traceback (docs/deploy.md): Redis or PostgreSQL unreachable (exit 3: systemd starts it
again), a setting that cannot work (exit 2: it does not)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gunzi.server.command import CONFIG_ERROR, UNREACHABLE

from .util import free_port

pytestmark = pytest.mark.timeout(120)


def _serve(tmp: Path, *args: str, env: dict[str, str] | None = None
           ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gunzi.server", "serve", "--port", str(free_port()),
         "--data-dir", str(tmp), *args],
        capture_output=True, text=True, timeout=90, env=env)


def _one_line(got: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in got.stderr, got.stderr
    lines = got.stderr.strip().splitlines()
    assert len(lines) == 1, got.stderr
    assert lines[0].startswith("gunzi serve: ")
    return lines[0]


def test_unreachable_redis(tmp_path: Path) -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    got = _serve(tmp_path, "--database", "postgresql+psycopg://gunzi@127.0.0.1:5432/gunzi",
                 "--redis", url)
    line = _one_line(got)
    assert got.returncode == UNREACHABLE
    assert f"Redis at {url} is unreachable" in line and "drop --redis" in line


def test_unreachable_database(tmp_path: Path) -> None:
    got = _serve(tmp_path, "--database",
                 f"postgresql+psycopg://gunzi:secret@127.0.0.1:{free_port()}/gunzi")
    line = _one_line(got)
    assert got.returncode == UNREACHABLE
    assert "cannot connect to the database at postgresql+psycopg://gunzi:***@" in line
    assert "secret" not in line


def test_redis_needs_postgresql(tmp_path: Path) -> None:
    got = _serve(tmp_path, "--redis", "redis://127.0.0.1:6379/0")
    line = _one_line(got)
    assert got.returncode == CONFIG_ERROR
    assert "needs a shared database" in line
