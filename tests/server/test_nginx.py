"""Three hall processes behind nginx with the shipped ``deploy/nginx.conf`` (its ports
replaced), as docs/deploy.md runs them, with a browser's ``Origin`` on every request:
guests and a table made through the proxy (the seats' REST calls redirected to the
owner), and every seat's socket handshake through it (``moved`` followed with ``?node=``)
until the table plays. The app compares the ``Origin`` with the ``Host`` it is given, so
this fails if the proxy passes a Host without the port (``$host``: 403 ``cross_site``).
Skipped when nginx is not installed (``apt-get install nginx``).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from gunzi.server.loadtest import post_as

from .cluster import nginx_hall
from .util import Player, make_table

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.timeout(300)]


async def _scenario(base: str) -> None:
    ws_base = base.replace("http://", "ws://")
    async with httpx.AsyncClient(base_url=base, timeout=30, headers={"Origin": base}) as http:
        r = await http.post("/api/auth/guest")
        assert r.status_code == 200, r.text
        http.cookies.clear()
        tid, cookies = await make_table(http, "gunzi")
        players = [Player(ws_base, tid, c, origin=base) for c in cookies]
        for p in players:
            for _ in range(3):  # a first socket at a process not playing the table: moved
                try:
                    await p.connect(None)
                except ConnectionClosed:
                    pass  # closed before our hello was sent
                else:
                    assert p.task is not None
                    deadline = time.monotonic() + 20
                    while p.seat is None and not p.task.done():
                        assert time.monotonic() < deadline, "no welcome through nginx"
                        await asyncio.sleep(0.05)
                if p.seat is not None:
                    break
                ws = p.ws
                assert ws is not None and ws.close_code == 4010, ws  # not 403: Origin passed
                p.node = ws.close_reason
                assert p.node
            assert p.seat is not None, "no socket through nginx"
        r = await post_as(http, f"/api/tables/{tid}/start", cookies[0])
        assert r.status_code == 200, r.text
        deadline = time.monotonic() + 60
        while max(p.seq for p in players) < 20:
            assert time.monotonic() < deadline, "the table does not play through nginx"
            await asyncio.sleep(0.1)
        for p in players:
            await p.disconnect()
            assert p.gaps == []
        assert any(a["ok"] for p in players for a in p.acks.values()), "no play acknowledged"


def test_three_processes_behind_nginx(tmp_path: Path) -> None:
    with nginx_hall(tmp_path) as (base, _procs):
        asyncio.run(_scenario(base))
