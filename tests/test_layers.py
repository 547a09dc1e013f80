"""The layer contract (pyproject.toml, checked by `lint-imports` in `make lint`) names every
top-level package and module of gunzi, so a new one cannot sit outside the layers, and each
in exactly one layer (docs/architecture.md, Layers)."""

from __future__ import annotations

import pkgutil
import tomllib
from pathlib import Path

import gunzi

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_every_top_level_module_is_in_one_layer() -> None:
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"]
    layers = next(c for c in config["contracts"] if c["name"].startswith("Layers:"))["layers"]
    named = [m.strip() for layer in layers for m in layer.split("|")]
    modules = {f"gunzi.{m.name}" for m in pkgutil.iter_modules(gunzi.__path__)}
    assert sorted(named) == sorted(modules)  # each once, none missing
    assert named[0] == "gunzi.cli" and named[-1] == "gunzi.engine"
