"""Hostile inputs found by the attack run (issue 14): every bad upload or frame gets a
clear 4xx, a 1007/1008 close or an error frame, and nothing else happens; pings,
sockets and room-code lookups are limited; the page carries a strict CSP; hosts can be
allow-listed; lists in the protocol are lists."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import WebSocketDenialResponse
from starlette.websockets import WebSocketDisconnect

from gunzi.server.app import create_app
from gunzi.server.jsonsafe import depth

from .util import cookie_guest, hall_settings, recv

DEEP = "[" * 4000 + "]" * 4000
HUGE_INT = "1" * 100_000

# JSON-ish text: valid values of odd shapes, deep nesting, huge numbers, broken text.
_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                  st.text(max_size=8))
_values = st.recursive(_leaf, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(st.text(max_size=4), inner, max_size=4), max_leaves=12)
_texts = st.one_of(
    _values.map(json.dumps),
    st.builds(lambda n: "[" * n + "]" * n, st.integers(30, 6000)),
    st.builds(lambda n: '{"a":' * n + "1" + "}" * n, st.integers(30, 3000)),
    st.builds(lambda n: "9" * n, st.integers(4000, 7000)),
    st.text(alphabet='[]{}",:0123456789aet \\', max_size=60),
)


def _closed_or_frames(ws: Any) -> int | None:
    """The close code if the server closes the socket, else None (it answered)."""
    try:
        msg = ws.receive()
    except WebSocketDisconnect as exc:
        return exc.code
    if msg["type"] == "websocket.close":
        code: int = msg["code"]
        return code
    ws.last = json.loads(msg["text"])
    return None


def _table(client: TestClient) -> tuple[str, dict[str, str]]:
    alice = cookie_guest(client)
    return client.post("/api/tables", json={}, headers=alice).json()["id"], alice


# ---------------------------------------------------------------- record uploads


def test_depth_counts_brackets_outside_strings() -> None:
    assert depth("1") == 0 and depth("[]") == 1 and depth('[{"a": [2]}, []]') == 3
    assert depth(json.dumps(["[[[", {"}": "\\"}])) == 2


@pytest.mark.parametrize("body", [DEEP, "[" * 4000, HUGE_INT, '{"v":' + HUGE_INT + "}",
                                  "[1, 2", '{"type": "header"}\n' + DEEP])
def test_bad_uploads_are_400(client: TestClient, body: str) -> None:
    r = client.post("/api/timeline", content=body)
    assert r.status_code == 400, r.text
    assert r.json()["detail"]["code"] == "bad_record"


def test_body_sizes_are_capped_declared_or_streamed(
        make_client: Callable[..., TestClient]) -> None:
    client = make_client(record_max_bytes=1000, http_max_body=300)
    alice = cookie_guest(client)

    def chunks(n: int) -> Iterator[bytes]:  # no Content-Length: sent chunked
        for _ in range(n):
            yield b" " * 100

    for path, limit, headers in (("/api/timeline", 1000, {}), ("/api/tables", 300, alice)):
        body = '{"name": "' + "x" * limit + '"}'
        for content in (body, chunks(limit // 100 + 1)):
            r = client.post(path, content=content, headers=headers)
            assert r.status_code == 413, r.text
            assert r.json()["detail"] == {
                "code": "body_too_large",
                "message": f"the request body is larger than {limit:,} bytes"}
    assert client.get("/api/tables").json()["tables"] == []  # nothing was made
    r = client.post("/api/tables", json={"name": "x" * 60}, headers=alice)
    assert r.status_code == 201  # under the cap: as before


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(_texts, min_size=1, max_size=3))
def test_fuzzed_uploads_never_500(fuzz_client: TestClient, lines: list[str]) -> None:
    r = fuzz_client.post("/api/timeline", content="\n".join(lines))
    assert r.status_code in (400, 413), r.text


GOLDEN = Path(__file__).parents[1] / "golden" / "classic1-seed14.jsonl"


@st.composite
def _mutated_records(draw: st.DrawFn) -> str:
    """A real record's first lines with one field of one line replaced by an odd value
    (or removed): what the replay's validation, not the JSON decoder, must refuse."""
    lines = [json.loads(x) for x in GOLDEN.read_text(encoding="utf-8").splitlines()[:40]]
    i = draw(st.integers(0, len(lines) - 1))
    key = draw(st.sampled_from(sorted(lines[i])))
    if draw(st.booleans()):
        lines[i][key] = draw(_values)
    else:
        del lines[i][key]
    return "\n".join(json.dumps(x) for x in lines[: draw(st.integers(i + 1, len(lines)))])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_mutated_records())
def test_fuzzed_records_are_refused_as_400(fuzz_client: TestClient, text: str) -> None:
    r = fuzz_client.post("/api/timeline", content=text)
    assert r.status_code in (200, 400), r.text
    if r.status_code == 400:
        assert r.json()["detail"]["code"] == "bad_record"


@pytest.fixture(scope="module")
def fuzz_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """One app for all of a fuzz test's examples, with a started table (alice in seat 0)."""
    app = create_app(hall_settings(tmp_path_factory.mktemp("fuzz") / "data",
                                   record_uploads_per_minute=100_000))
    with TestClient(app) as client:
        alice = cookie_guest(client)
        r = client.post("/api/quickplay", json={"preset": "classic-1"}, headers=alice)
        client.fuzz_table = (r.json()["id"], alice)  # type: ignore[attr-defined]
        yield client


# ---------------------------------------------------------------- socket frames


@pytest.mark.parametrize("text", [DEEP, "[" * 4000, "9" * 5000, '{"t": "hello", "last_seq": '
                                  + "9" * 5000 + "}", '{"t":' * 1600])
def test_bad_frames_close_1007(client: TestClient, text: str) -> None:
    tid, alice = _table(client)
    with client.websocket_connect(f"/ws/tables/{tid}", headers=alice) as ws:
        ws.send_text(text)
        assert _closed_or_frames(ws) == 1007


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(text=_texts, wrap=st.sampled_from(["raw", "act", "action", "hello"]))
def test_fuzzed_frames_never_1011(fuzz_client: TestClient, text: str, wrap: str) -> None:
    client = fuzz_client
    tid, alice = client.fuzz_table  # type: ignore[attr-defined]
    frame = {
        "raw": text,
        "act": '{"t": "act", "id": "f1", "action": ' + text + "}",
        "action": '{"t": "act", "id": "f1", "action": {"type": "play", "cards": ' + text + "}}",
        "hello": '{"t": "hello", "last_seq": ' + text + "}",
    }[wrap]
    if len(frame.encode()) > 8192:
        frame = frame[:8000]
    with client.websocket_connect(f"/ws/tables/{tid}", headers=alice) as ws:
        ws.send_json({"t": "hello"})
        recv(ws, "welcome")
        ws.send_text(frame)
        ws.send_json({"t": "ping"})
        code = _outcome(ws)
        assert code in (None, 1007, 1009), (code, frame[:80])


def _outcome(ws: Any) -> int | None:
    """After a frame and a ping: the close code, or None once the pong shows that the
    socket answered the frame (error, ack, ...) and went on serving."""
    for _ in range(50):
        code = _closed_or_frames(ws)
        if code is not None:
            return code
        if ws.last == {"t": "pong"}:
            return None
    raise AssertionError("neither closed nor answered")


def test_pings_are_limited_per_socket(make_client: Callable[..., TestClient]) -> None:
    client = make_client(ws_pings=10, ws_rate_window=20.0)
    tid, alice = _table(client)
    with client.websocket_connect(f"/ws/tables/{tid}", headers=alice) as ws:
        for _ in range(10):
            ws.send_json({"t": "ping"})
            assert ws.receive_json() == {"t": "pong"}
        ws.send_json({"t": "ping"})
        assert _closed_or_frames(ws) == 1008


def _denied(client: TestClient, url: str, **kw: Any) -> int:
    """The HTTP status a refused handshake answers."""
    with pytest.raises(WebSocketDenialResponse) as exc, client.websocket_connect(url, **kw):
        pass
    status: int = exc.value.status_code
    return status


def test_sockets_are_capped_per_user_and_per_address(
        make_client: Callable[..., TestClient]) -> None:
    client = make_client(ws_per_user=3, ws_per_ip=5)
    tid, alice = _table(client)
    url = f"/ws/tables/{tid}"
    with contextlib.ExitStack() as open_:
        for _ in range(3):
            open_.enter_context(client.websocket_connect(url, headers=alice))
        assert _denied(client, url, headers=alice) == 429  # alice's fourth
        bob = cookie_guest(client)
        open_.enter_context(client.websocket_connect(url, headers=bob))
        open_.enter_context(client.websocket_connect(url))  # anonymous: the address counts
        assert _denied(client, url, headers=bob) == 429  # bob has 1, the address 5
        other = TestClient(client.app, client=("198.51.100.9", 1))
        with other.websocket_connect(url, headers=bob) as ws:  # another address: fine
            ws.send_json({"t": "ping"})
            assert ws.receive_json() == {"t": "pong"}
    # All closed: the counts went back down.
    with client.websocket_connect(url, headers=alice) as ws:
        ws.send_json({"t": "ping"})
        assert ws.receive_json() == {"t": "pong"}
    limits = client.app.state.limits  # type: ignore[attr-defined]
    assert not limits.by_user and not limits.by_ip


def test_room_code_lookups_are_throttled_per_address(
        make_client: Callable[..., TestClient]) -> None:
    client = make_client(code_lookups_per_minute=5)
    for i in range(4):
        assert client.get(f"/api/tables/code/ZZZZZZ{i:02d}").status_code == 404
    assert _denied(client, "/ws/tables/ZZZZ") == 404  # the fifth, over the socket
    r = client.get("/api/tables/code/ZZZZZZ99")
    assert r.status_code == 429 and r.json()["detail"]["code"] == "too_many_lookups"
    assert _denied(client, "/ws/tables/ZZZZ") == 429
    other = TestClient(client.app, client=("198.51.100.9", 1))
    assert other.get("/api/tables/code/ZZZZZZ99").status_code == 404


# ---------------------------------------------------------------- headers, hosts


def test_pages_carry_a_strict_csp_and_the_usual_headers(client: TestClient) -> None:
    for path in ("/", "/table.html", "/api/me"):
        r = client.get(path)
        csp = r.headers["content-security-policy"]
        directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
        assert directives["script-src"] == "'self'" and directives["style-src"] == "'self'"
        assert directives["frame-ancestors"] == "'none'"
        assert directives["object-src"] == "'none'" and "unsafe" not in csp
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "same-origin"
        assert r.headers["x-frame-options"] == "DENY"
    # Swagger UI (CDN + an inline start-up script) gets its own policy, still unframeable.
    docs = client.get("/api/docs").headers["content-security-policy"]
    assert "https://cdn.jsdelivr.net" in docs and "frame-ancestors 'none'" in docs


def test_static_pages_have_no_inline_scripts_or_styles() -> None:
    import re
    from pathlib import Path

    import gunzi.server

    static = Path(gunzi.server.__file__).parent / "static"
    pages = sorted(static.glob("*.html"))
    assert pages
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), page.name
        assert not re.search(r"<style|\sstyle=|\son[a-z]+=", html, re.I), page.name


def test_allowed_hosts(make_client: Callable[..., TestClient]) -> None:
    client = make_client(allowed_hosts=("hall.example", "*.hall.example"))
    assert client.get("/api/rules").status_code == 400  # Host: testserver
    for host in ("hall.example", "eu.hall.example"):
        ok = TestClient(client.app, base_url=f"http://{host}")
        assert ok.get("/api/rules").status_code == 200
    # The health probes answer whatever the Host (a proxy's check names the process, or
    # sends none at all, as HAProxy's httpchk does).
    assert [client.get(p).status_code for p in ("/healthz", "/readyz")] == [200, 200]
    assert client.get("/healthz", headers={"Host": ""}).status_code == 200
    evil = TestClient(client.app, base_url="http://evil.example")
    assert _denied(evil, "/ws/tables/x") == 400


def test_allowed_hosts_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from gunzi.server.settings import from_env

    monkeypatch.setenv("GUNZI_ALLOWED_HOSTS", "hall.example, *.hall.example")
    assert from_env().allowed_hosts == ("hall.example", "*.hall.example")
    assert from_env(allowed_hosts=("a.example",)).allowed_hosts == ("a.example",)


# ---------------------------------------------------------------- lists are lists


@pytest.mark.parametrize(("action", "field"), [
    ({"type": "play", "cards": "AS"}, "'cards'"),
    ({"type": "tribute", "cards": "AS AS"}, "'cards'"),
    ({"type": "bury_jokers", "cards": ["BJ"], "take": "3C"}, "'take'"),
    ({"type": "declare", "cards": ["2H"], "suit": ["S"]}, "'suit'"),
])
def test_a_string_where_the_protocol_takes_a_list_is_refused(
        client: TestClient, action: dict[str, Any], field: str) -> None:
    alice = cookie_guest(client)
    tid = client.post("/api/quickplay", json={"preset": "classic-1"}, headers=alice).json()["id"]
    with client.websocket_connect(f"/ws/tables/{tid}", headers=alice) as ws:
        ws.send_json({"t": "hello"})
        recv(ws, ("events", "snapshot"))
        ws.send_json({"t": "act", "id": "s1", "action": action})
        ack = recv(ws, "ack")
        assert ack["ok"] is False and ack["error"]["code"] == "malformed"
        assert field in ack["error"]["message"]


@pytest.mark.parametrize(("body", "field"), [
    ({"options": "follow=live"}, "options"), ({"clock": "30"}, "clock"),
    ({"public": "yes"}, "public"), ({"seat": "1"}, "seat"), ({"preset": ["gunzi"]}, "preset"),
])
def test_rest_bodies_take_their_json_types_only(client: TestClient, body: dict[str, Any],
                                                field: str) -> None:
    alice = cookie_guest(client)
    r = client.post("/api/tables", json=body, headers=alice)
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", field]
    assert client.get("/api/tables").json()["tables"] == []  # nothing was made


def test_socket_fields_take_their_json_types_only(client: TestClient) -> None:
    tid, alice = _table(client)
    with client.websocket_connect(f"/ws/tables/{tid}", headers=alice) as ws:
        ws.send_json({"t": "hello", "last_seq": "0"})
        err = recv(ws, "error")
        assert err["code"] == "bad_message" and err["message"].startswith("hello.last_seq:")
        ws.send_json({"t": "hello", "views": "yes"})
        assert recv(ws, "error")["message"].startswith("hello.views:")
