"""The project's rules document (docs/rules.md, docs/rules.zh.md), wherever gunzi is installed.

A wheel carries the two files as package data (``gunzi/docs/``, hatch force-include); a
source checkout or an editable install reads them from the repository's ``docs/``.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

LANGS = ("en", "zh")
FILES = {"en": "rules.md", "zh": "rules.zh.md"}
REPO_DOCS = Path(__file__).resolve().parents[2] / "docs"


def location(lang: str = "en") -> Traversable:
    """The installed copy of the rules document in ``lang`` ('en' or 'zh')."""
    name = FILES[lang]
    packaged = resources.files("gunzi") / "docs" / name
    return packaged if packaged.is_file() else REPO_DOCS / name


def text(lang: str = "en") -> str:
    return location(lang).read_text(encoding="utf-8")
