"""The engine's modules import one another without a cycle, type-only and lazy imports too,
and only the rules objects tell the games apart."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "src" / "gunzi" / "engine"


def _graph() -> dict[str, set[str]]:
    names = {p.stem for p in ENGINE.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in ENGINE.glob("*.py"):
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                if node.module == "gunzi.engine":
                    deps |= {a.name for a in node.names}
                elif node.module.startswith("gunzi.engine."):
                    deps.add(node.module.split(".")[2])
            elif isinstance(node, ast.Import):
                deps |= {a.name.split(".")[2] for a in node.names
                         if a.name.startswith("gunzi.engine.")}
        graph[path.stem] = deps & names
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                return [*path, dep]
            if not state.get(dep):
                found = visit(dep, [*path, dep])
                if found:
                    return found
        state[node] = 2
        return None

    for node in sorted(graph):
        if not state.get(node):
            found = visit(node, [node])
            if found:
                return found
    return None


PHASES = {"draw", "tribute", "kitty", "jokers", "play", "hand_end"}


def test_the_engine_has_no_import_cycle() -> None:
    graph = _graph()
    assert graph["match"] >= PHASES | {"machine", "legal", "state", "variant", "view"}
    assert _cycle(graph) is None


def test_the_phases_hand_on_through_the_machine_not_to_one_another() -> None:
    """Each phase module knows the machine (``m.begin(Phase.X)``), never another phase."""
    graph = _graph()
    for phase in sorted(PHASES):
        assert "machine" in graph[phase], phase
        assert not graph[phase] & (PHASES | {"match"}), phase


def test_the_cycle_finder_finds_one() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


GAME = r"""(?:GUNZI|CLASSIC|["'](?:gunzi|classic)\b)"""
GAME_BRANCH = re.compile(
    r"\bis_gunzi\b|\brules\.game\s*[!=]="  # the ruleset's game
    rf"|\.(?:name|game)\s*[!=]=\s*{GAME}"  # a rules object's or ruleset's name against a game
    rf"|{GAME}\s*[!=]=\s*[\w.]*\.(?:name|game)\b"  # the same, written the other way round
)
RULES_OBJECTS = {ENGINE / "variant.py", ENGINE / "rules.py"}


def test_only_the_rules_objects_branch_on_the_game() -> None:
    """打滚子 vs classic is decided in variant.py (and defined in rules.py), nowhere else in
    src: bots, TUI, CLI, ladder, env and server ask the rules object instead."""
    paths = sorted(ENGINE.parent.rglob("*.py"))
    assert len(paths) > 50 and set(paths) >= RULES_OBJECTS  # the whole package is scanned
    for path in paths:
        if path not in RULES_OBJECTS:
            text = path.read_text(encoding="utf-8")
            assert GAME_BRANCH.search(text) is None, path.relative_to(ENGINE.parent)


def test_the_game_branch_pattern_finds_both_spellings() -> None:
    assert GAME_BRANCH.search("if m.rules.is_gunzi:")
    assert GAME_BRANCH.search("x = self.rules.game == GUNZI")
    assert GAME_BRANCH.search("gunzi = variant_of(t.rules).name == GUNZI")
    assert GAME_BRANCH.search('if s.rules.name != "gunzi":')
    assert GAME_BRANCH.search("if CLASSIC == self.variant.name:")
    assert GAME_BRANCH.search("if m.variant.name == 'classic':")
    assert GAME_BRANCH.search("if variant.hand_scores:") is None
    assert GAME_BRANCH.search('label = t(lang, f"game.{variant.name}")') is None
