"""docs/rules.md and docs/rules.zh.md: the project's rules text names every rule option with
its default, and both languages carry the same clauses and option blocks.

The options and defaults are read from the code's catalogues; the document is read as
markdown by the page renderer (gunzi.server.rules_page), whose blocks are what the hall
marks, so an option the document forgets could never be highlighted for a table.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from gunzi import rulebook
from gunzi.engine import rules as card_rules
from gunzi.ladder.titles import OPTIONS as LADDER_OPTIONS
from gunzi.ladder.titles import LadderRules
from gunzi.quoridor import rules as board_rules
from gunzi.server.rules_page import render_body, value_text

CATALOGUES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    # option -> its Option, and the first preset's default (the one the text states first)
    **{k: (o, card_rules.preset("gunzi").options()[k]) for k, o in card_rules.OPTIONS.items()},
    **{k: (o, board_rules.preset("quoridor-2").options()[k])
       for k, o in board_rules.OPTIONS.items()},
    **{k: (o, getattr(LadderRules(), k)) for k, o in LADDER_OPTIONS.items()},
}
BLOCK = re.compile(r'<div class="rule-option[^"]*" id="([^"]+)"(?: data-option="([a-z_]+)")?>'
                   r"(.*?)</div>", re.S)


def blocks(lang: str) -> dict[str, tuple[str | None, str]]:
    """id -> (option, the block's HTML) for every option block of the rendered document."""
    return {m.group(1): (m.group(2), m.group(3)) for m in BLOCK.finditer(render_body(lang))}


@pytest.mark.parametrize("lang", rulebook.LANGS)
def test_every_option_has_one_block_with_its_interpretation_and_default(lang: str) -> None:
    found = blocks(lang)
    by_option = {opt: (block_id, html) for block_id, (opt, html) in found.items() if opt}
    assert set(by_option) == set(CATALOGUES)
    for name, (option, default) in CATALOGUES.items():
        block_id, html = by_option[name]
        interp = re.search(r"\[(I-\d+)\]", option.clause)
        assert block_id == (interp.group(1) if interp else f"opt-{name}"), name
        assert f"<code>{value_text(default)}</code>" in html, (name, default)


def test_both_languages_have_the_same_anchors() -> None:
    ids = [re.findall(r' id="([^"]+)"', render_body(lang)) for lang in rulebook.LANGS]
    assert ids[0] == ids[1]
    for clause in (*(f"A{n}" for n in range(1, 13)), "A4.1", "A4.2", "B", "B-variants", "C", "D"):
        assert clause in ids[0], clause


def test_every_interpretation_of_the_code_is_in_the_document() -> None:
    """[I-1]..[I-31]: every interpretation is an option and has its block."""
    ids = set(blocks("en"))
    assert {f"I-{n}" for n in range(1, 32)} <= ids
    coded = {m for o, _ in CATALOGUES.values() for m in re.findall(r"I-\d+", o.clause)}
    assert coded == {f"I-{n}" for n in range(1, 32)}


def test_b_variants_hold_the_classic_house_rules() -> None:
    """The house rules of issue 16, [I-23]..[I-30], are defined in the B-variants section,
    which points to the longer text with examples."""
    for lang in rulebook.LANGS:
        text = rulebook.text(lang)
        section = text.split("### B-variants: house rules", 1)[1].split("\n## ", 1)[0]
        assert "rules-classic-variants.md" in section
        found = {int(n) for n in re.findall(r"\*\*\[I-(\d+)\]", section)}
        assert found == set(range(23, 31))


def test_citations_point_at_the_projects_own_document() -> None:
    """Code, tests and scripts cite docs/rules.md, never the RULES.md outside the checkout."""
    root = rulebook.REPO_DOCS.parent
    outside = re.compile(r"(?<![\w/])RULES\.md")
    cited = [str(p.relative_to(root)) for d in ("src", "tests", "scripts")
             for p in sorted((root / d).rglob("*")) if p.suffix in (".py", ".js", ".md")
             and p.name != "test_rules_doc.py"
             and outside.search(p.read_text(encoding="utf-8"))]
    assert cited == []
