"""Fixtures for the browser tests: a real hall (subprocess) and Debian's Chromium.

The tests are skipped when /usr/bin/chromium or Python Playwright is missing (install the
browser with ``apt-get install chromium``; never ``playwright install``).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

CHROMIUM = Path(os.environ.get("GUNZI_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("GUNZI_WEB_ARTIFACTS", ROOT / "test-artifacts" / "web"))

DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 800}}
PHONE: dict[str, Any] = {
    "viewport": {"width": 375, "height": 740}, "is_mobile": True, "has_touch": True,
    "device_scale_factor": 2,
}


def missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Python playwright is not installed"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_hall(data: Path, port: int, hand_pause: float = 120, bot_delay: float = 0.02,
               away_after: float | None = None) -> subprocess.Popen[bytes]:
    """``python -m gunzi.server serve`` on ``port`` with its store in ``data``; waits for
    /healthz. Fast bots, no turn clock, a long pause after each hand (the summary stays);
    ``away_after``: the grace of a player who left (the hall's default if None)."""
    env = {**os.environ, "GUNZI_ARGON2_PROFILE": "cheapest", "GUNZI_SQLITE_SYNCHRONOUS": "NORMAL"}
    # The hall runs from this checkout's source, whatever is installed: the process starts in
    # the data directory, where a relative PYTHONPATH=src would silently fall back to the
    # installed copy (another checkout's pages under test).
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "src"), os.environ.get("PYTHONPATH", "")) if p)
    cmd = [
        sys.executable, "-m", "gunzi.server", "serve", "--port", str(port),
        "--data-dir", str(data), "--bot-delay", str(bot_delay), "--hand-pause", str(hand_pause),
        "--clock", "0", "--log-level", "warning",
    ]
    if away_after is not None:
        cmd += ["--away-after", str(away_after)]
    with (data / "server.log").open("ab") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=str(data),
                                env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 40
    while True:
        if proc.poll() is not None:
            raise RuntimeError("the hall exited: " + (data / "server.log").read_text()[-2000:])
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            stop_hall(proc)
            raise RuntimeError("the hall did not answer /healthz")
        time.sleep(0.2)


def stop_hall(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="session")
def hall(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real server on a free port for the session; yields its base URL."""
    data = tmp_path_factory.mktemp("web-hall")
    port = free_port()
    proc = start_hall(data, port)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_hall(proc)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def new_page(browser: Any) -> Iterator[Callable[..., Any]]:
    """new_page(DESKTOP | PHONE) -> page; page errors fail the test at the end."""
    contexts: list[Any] = []
    errors: list[str] = []

    def make(device: dict[str, Any] = DESKTOP, lang: str | None = None) -> Any:
        ctx = browser.new_context(**device)
        if lang:
            ctx.add_init_script(f"localStorage.setItem('gunzi.lang', '{lang}')")
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(15000)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        # The hall's Content-Security-Policy must not block anything the pages do.
        page.on("console", lambda msg: errors.append(msg.text)
                if "Content Security Policy" in msg.text else None)
        return page

    yield make
    for ctx in contexts:
        ctx.close()
    assert not errors, f"errors in the page: {errors}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A browser test that fails is run once more before it counts as failed: a real
    browser, a real server and animations on a shared 2-core machine miss a wait now and
    then (a real defect fails both runs)."""
    here = Path(__file__).resolve().parent
    for item in items:
        if Path(item.path).resolve().parent == here:
            item.add_marker(pytest.mark.flaky(reruns=1))
