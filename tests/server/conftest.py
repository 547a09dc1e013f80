"""Fixtures for the hall's tests: in-process apps (TestClient) and real servers (subprocess)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

warnings.filterwarnings("ignore", message=".*httpx.*")

from fastapi.testclient import TestClient  # noqa: E402

from gunzi.server.app import create_app  # noqa: E402

from .util import hall_settings  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: takes more than a few seconds (real servers)")
    config.addinivalue_line("markers", "postgres: needs the PostgreSQL test server")
    config.addinivalue_line("markers", "ci_long: runs only when its file is named explicitly")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip ``ci_long`` tests unless their file is on the command line."""
    named = {Path(str(a).split("::")[0]).resolve() for a in config.args}
    skip = pytest.mark.skip(reason="long CI run: name its file to run it")
    for item in items:
        if item.get_closest_marker("ci_long") and Path(item.path).resolve() not in named:
            item.add_marker(skip)


@pytest.fixture
def make_client(tmp_path: Path) -> Iterator[Callable[..., TestClient]]:
    """Build TestClients (apps started) on one data directory; all closed at the end."""
    made: list[TestClient] = []

    def make(**changes: Any) -> TestClient:
        client = TestClient(create_app(hall_settings(tmp_path / "data", **changes)))
        client.__enter__()
        made.append(client)
        return client

    yield make
    for client in reversed(made):
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client: Callable[..., TestClient]) -> TestClient:
    return make_client()
