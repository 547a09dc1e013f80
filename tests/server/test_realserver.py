"""The real server (uvicorn in a subprocess): handshake Origin check, frame and rate limits,
metrics, and a short load-benchmark smoke run."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from gunzi.server import loadtest

from .util import ServerProc, async_guest


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProc]:
    data: Path = tmp_path_factory.mktemp("real")
    with ServerProc(data, env={"GUNZI_WS_RATE_MESSAGES": "30"}) as srv:
        yield srv


async def _table(server: ServerProc) -> tuple[str, str]:
    async with httpx.AsyncClient(base_url=server.url) as http:
        cookie = await async_guest(http)
        r = await http.post("/api/tables", json={"preset": "classic-1"},
                            headers={"Cookie": cookie})
        r.raise_for_status()
        return r.json()["id"], cookie


@pytest.mark.slow
def test_handshake_origin_frame_size_and_flood(server: ServerProc) -> None:
    async def go() -> None:
        tid, cookie = await _table(server)
        url = f"{server.ws_url}/ws/tables/{tid}"
        with pytest.raises(InvalidStatus) as exc:
            async with connect(url, origin="http://evil.example",  # type: ignore[arg-type]
                               additional_headers={"Cookie": cookie}):
                pass
        assert exc.value.response.status_code == 403
        own = f"http://127.0.0.1:{server.port}"
        async with connect(url, origin=own,  # type: ignore[arg-type]
                           additional_headers={"Cookie": cookie}) as ws:
            await ws.send(json.dumps({"t": "hello"}))
            assert json.loads(await ws.recv())["t"] == "welcome"
            await ws.send("x" * 9000)
            with pytest.raises(ConnectionClosed) as closed:
                for _ in range(10):
                    await ws.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        async with connect(url, additional_headers={"Cookie": cookie}) as ws:
            await ws.send(json.dumps({"t": "hello"}))
            for _ in range(200):  # pings are free
                await ws.send('{"t":"ping"}')
            for _ in range(50):
                await ws.send('{"t":"hint"}')
            with pytest.raises(ConnectionClosed) as closed:
                for _ in range(1000):
                    await ws.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        async with httpx.AsyncClient(base_url=server.url) as http:
            assert (await http.get("/healthz")).json()["ok"]
            metrics = (await http.get("/metrics")).text
            assert 'gunzi_ws_closed_total{code="1008"}' in metrics
            assert 'gunzi_ws_closed_total{code="403"}' in metrics

    asyncio.run(go())


@pytest.mark.slow
def test_loadtest_smoke(tmp_path: Path) -> None:
    with ServerProc(tmp_path, env={"GUNZI_WS_RATE_MESSAGES": "300"}) as srv:
        # A brisk rate: at a slow one the measured seconds can fall wholly inside the
        # draw and burying, where no card is played and there is no latency to report.
        result = asyncio.run(loadtest.run(srv.url, tables=2, rate=20, duration=3,
                                          preset="classic-1", warmup=1))
    assert result["errors"] == 0, result["error_samples"]
    assert result["actions_acked"] > 20
    assert result["plays_measured"] > 0
    assert result["latency_ms"]["p50"] > 0


def test_loadtest_refuses_remote_hosts() -> None:
    with pytest.raises(SystemExit):
        asyncio.run(loadtest.run("http://example.com", 1, 1, 1, "gunzi"))
