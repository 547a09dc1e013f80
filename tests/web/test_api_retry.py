"""The page's REST helper (static/js/api.js) asks again after a 503 with Retry-After (a
table between two servers of the hall: docs/deploy.md), and only then."""

from __future__ import annotations

import itertools
import time
from typing import Any

CALL = "async (path) => (await import('/js/api.js')).api(path)"


def _answer_503_first(page: Any, path: str, times: int, retry_after: str | None) -> list[float]:
    """Answer the first ``times`` requests for ``path`` with 503 (with ``retry_after`` as
    its Retry-After, if any), pass the rest on; the times every request was seen."""
    seen: list[float] = []

    def handle(route: Any) -> None:
        seen.append(time.monotonic())
        if len(seen) <= times:
            headers = {"Content-Type": "application/json"}
            if retry_after is not None:
                headers["Retry-After"] = retry_after
            route.fulfill(status=503, headers=headers, body='{"detail": {"code": "moving",'
                          ' "message": "the table is moving to another server; retry"}}')
        else:
            route.continue_()

    page.route(f"**{path}", handle)
    return seen


def test_a_503_with_retry_after_is_asked_again_after_the_pause(hall: str,
                                                               new_page: Any) -> None:
    page = new_page()
    page.goto(hall + "/")
    page.wait_for_load_state("networkidle")
    seen = _answer_503_first(page, "/healthz", 2, "1")
    got = page.evaluate(CALL, "/healthz")
    assert got["ok"] and got["status"] == 200, got
    assert len(seen) == 3
    assert all(b - a >= 0.9 for a, b in itertools.pairwise(seen)), seen  # the pauses kept


def test_a_503_without_retry_after_or_past_the_retries_is_the_callers(hall: str,
                                                                      new_page: Any) -> None:
    page = new_page()
    page.goto(hall + "/")
    page.wait_for_load_state("networkidle")
    seen = _answer_503_first(page, "/healthz", 1, None)
    got = page.evaluate(CALL, "/healthz")
    assert (got["ok"], got["status"], len(seen)) == (False, 503, 1)
    page.unroute("**/healthz")
    seen = _answer_503_first(page, "/healthz", 99, "1")
    got = page.evaluate(CALL, "/healthz")
    assert (got["ok"], got["status"], len(seen)) == (False, 503, 5), got  # 1 + 4 retries
    assert "moving" in got["error"]
