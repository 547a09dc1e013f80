"""The table page in Chromium through HAProxy in front of three hall processes
(docs/deploy.md), on a desktop and on a phone-sized touch screen.

A guest's quick play table (three bots) is played by one process. The page is opened
again while that process is drained from the proxy's rotation (HAProxy's runtime API), so
its first socket lands on a process that does not play the table: it is told ``moved``
(close 4010) and follows ``?node=`` to the owner, the table's REST call gets its 307 there,
and the page plays there. Then the owner dies: ``kill -9`` with one of the page's plays
unanswered (the owner frozen by SIGSTOP while the page plays), or SIGTERM (a graceful
hand-over). By itself the page reaches the process that took the table over and plays on:
new events arrive on a socket opened after the death, the page's plays, the unanswered
one included (sent again, same id), are acknowledged there, the hand still shows the
player's cards, and no disconnection notice, error toast or refusal is left on screen.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Error as PlaywrightError

from server.cluster import Cluster, proxied_hall

from .conftest import DESKTOP, PHONE, missing
from .test_web import decide, goto, guest_quick_play

REASON = missing()
pytestmark = [pytest.mark.skipif(REASON is not None, reason=f"browser tests: {REASON}"),
              pytest.mark.timeout(240)]

TTL = 3.0  # a killed owner's lease expires soon
ENV = {"GUNZI_LEASE_TTL": str(TTL), "GUNZI_LEASE_MARGIN": "1.0", "GUNZI_LEASE_SCAN": "0.5"}
WAIT = 60.0  # seconds for anything to happen on the loaded 2-core machine


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    with proxied_hall(tmp_path_factory.mktemp("proxy-web"), env=ENV,
                      args=("--bot-delay", "0.02")) as c:
        yield c


@dataclass
class Sock:
    """One WebSocket the page opened, and the frames it received."""

    url: str
    frames: list[dict[str, Any]] = field(default_factory=list)
    sent: list[dict[str, Any]] = field(default_factory=list)

    @property
    def node(self) -> str | None:
        return parse_qs(urlsplit(self.url).query).get("node", [None])[0]

    def acked(self) -> set[str]:
        """The ids of the page's plays this socket acknowledged."""
        return {f["id"] for f in self.frames if f["t"] == "ack" and f["ok"]}

    def acts(self) -> set[str]:
        """The ids of the plays the page sent on this socket."""
        return {f["id"] for f in self.sent if f["t"] == "act"}

    def top(self) -> int:
        """The highest event number this socket brought (0: none)."""
        return max((f["seq"] for f in self.frames
                    if f["t"] in ("events", "snapshot") and f.get("events")), default=0)


def record_sockets(page: Any) -> list[Sock]:
    """Every socket the page opens from now on, in order, with its frames."""
    socks: list[Sock] = []

    def opened(ws: Any) -> None:
        sock = Sock(ws.url)
        socks.append(sock)
        ws.on("framereceived", lambda payload: sock.frames.append(json.loads(payload)))
        ws.on("framesent", lambda payload: sock.sent.append(json.loads(payload)))

    page.on("websocket", opened)
    return socks


def until(page: Any, cond: Callable[[], Any], what: str, *, touch: bool | None = None,
          timeout: float = WAIT) -> Any:
    """Poll ``cond`` (Playwright's events are delivered meanwhile) until it is true; with
    ``touch`` not None, the page takes each decision it is asked meanwhile (the hint, then
    the highlighted button)."""
    deadline = time.monotonic() + timeout
    while not (got := cond()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        if touch is None or not decide(page, touch):
            page.wait_for_timeout(100)
    return got


def freeze_mid_play(page: Any, touch: bool, sock: Sock, pid: int) -> set[str]:
    """Freeze the process ``pid`` (SIGSTOP) and have the page play on ``sock`` meanwhile;
    the ids of the page's plays left unanswered."""
    press = page.tap if touch else page.click
    deadline = time.monotonic() + WAIT
    while True:
        assert time.monotonic() < deadline, "the page was never asked a decision"
        until(page, lambda: page.locator("#btn-hint:not([disabled])").count(),
              "a decision of the page's")
        try:
            press("#btn-hint", timeout=4000)
            page.wait_for_selector("#buttons button.suggested:not([disabled])", timeout=4000)
        except PlaywrightError:  # the decision went away (an auto-pass): the next one
            continue
        known = sock.acts()
        os.kill(pid, signal.SIGSTOP)
        try:
            press("#buttons button.suggested", timeout=4000)
        except PlaywrightError:
            os.kill(pid, signal.SIGCONT)
            continue
        sent = until(page, lambda known=known: sock.acts() - known, "the page's play sent")
        unanswered = set(sent - sock.acked())
        assert unanswered, "a frozen process answered"
        return unanswered


def settled(page: Any) -> None:
    """The player's hand is shown, the page is connected and no error is left on screen
    (an error toast fades after 5 s)."""
    page.wait_for_selector("#hand .card", timeout=WAIT * 1000)
    page.wait_for_function(
        "() => document.getElementById('conn').textContent === ''"
        " && !document.querySelector('#toast.show.error')"
        " && document.getElementById('refusal').hidden", timeout=WAIT * 1000)


@pytest.mark.parametrize(("device", "death"), [("desktop", "kill"), ("phone", "term")])
def test_page_follows_its_table_across_processes(cluster: Cluster, new_page: Any,
                                                 artifacts: Path, device: str,
                                                 death: str) -> None:
    cluster.revive()  # the process the previous case stopped
    touch = device == "phone"
    page = new_page(PHONE if touch else DESKTOP)
    page.set_default_timeout(30000)
    socks = record_sockets(page)
    redirects: list[str] = []
    page.on("response", lambda r: redirects.append(r.url) if r.status == 307 else None)
    tid = guest_quick_play(page, cluster.base, touch)
    owner = until(page, lambda: cluster.owner(tid), "the table's lease")

    # The page again, its owner out of the proxy's rotation: its first socket and REST
    # call reach a process that does not play the table and are sent on with ?node=.
    cluster.rotation(owner, "drain")
    try:
        first = len(socks)
        goto(page, f"{cluster.base}/table.html?t={tid}")
        until(page, lambda: any(s.node == owner and s.top() for s in socks[first:]),
              f"the page's socket at {owner}")
    finally:
        cluster.rotation(owner, "ready")
    assert socks[first].node is None
    assert socks[first].frames == [{"t": "moved", "node": owner}], socks[first].frames[:3]
    assert any(f"/api/tables/{tid}" in u and "node=" not in u for u in redirects), redirects
    at = len(socks) - 1
    until(page, lambda: len(set().union(*(s.acked() for s in socks[at:]))) >= 2,
          f"two of the page's plays acknowledged at {owner}", touch=touch)
    settled(page)

    # The owner dies; the page finds the table's new owner by itself and plays on there.
    # kill -9 with one of the page's plays unanswered: the owner is frozen (SIGSTOP) while
    # the page plays, then killed, so the play never reaches it; the page sends it again.
    proc = cluster.procs[owner]
    assert proc.proc is not None
    inflight = freeze_mid_play(page, touch, socks[-1], proc.proc.pid) if death == "kill" \
        else set()
    seq = max(s.top() for s in socks)
    after = len(socks)
    t0 = time.monotonic()
    if death == "kill":
        proc.kill()
    else:
        proc.stop()

    def resumed() -> bool:  # new events, and the page's plays (the unanswered one) acked
        new = socks[after:]
        acked = set().union(*(s.acked() for s in new))
        return any(s.top() > seq for s in new) and bool(acked) and inflight <= acked

    until(page, resumed, "the page to play on at the new owner", touch=touch)
    resume_s = time.monotonic() - t0
    new_owner = cluster.owner(tid)
    assert new_owner not in (None, owner)
    assert all(s.node in (None, new_owner) for s in socks[after:] if s.top() > seq)
    settled(page)
    page.screenshot(path=str(artifacts / f"proxy-{device}-{death}.png"))
    print(f"{device}: {death} of {owner}; the page played on at {new_owner} "
          f"{resume_s:.1f} s later, over {len(socks) - after} sockets (lease ttl {TTL} s)")
