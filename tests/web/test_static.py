"""Static checks of the web pages (no browser): every label has both languages, every
file a page loads exists, and every module imports only names its neighbour exports."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.routing import APIRoute

from gunzi.server.rules_page import router as rules_router

STATIC = Path(__file__).resolve().parents[2] / "src" / "gunzi" / "server" / "static"
JS = sorted((STATIC / "js").glob("*.js"))
PAGES = sorted(STATIC.glob("*.html"))
# Pages the server renders rather than serves from static/ (the rules page).
SERVER_PAGES = {route.path for route in rules_router.routes if isinstance(route, APIRoute)}
# Keys built at run time from a prefix: t("status_" + status) and the like.
DYNAMIC = {
    "status_": ["open", "playing", "finished", "abandoned"],
    "conn_": ["connecting", "closed", "gone"],
    "phase_": ["draw", "tribute", "return", "bury", "bury_jokers", "play", "deal", "over"],
    "preset_": ["gunzi", "classic-1", "classic-2", "classic-3"],
    "compass_": ["0", "1", "2", "3"],
    "rel_": ["0", "1", "2", "3"],
    "suit_": ["S", "H", "C", "D"],
    "bot_": ["rule", "search", "random"],
    "why_": ["passed-10", "passed-A", "attackers-scored-0", "attackers-scored-300",
             "three-bj-in-kitty"],
}


def _dict_keys(name: str) -> set[str]:
    text = (STATIC / "js" / "i18n.js").read_text(encoding="utf-8")
    body = re.search(rf"const {name} = \{{(.*?)\n\}};", text, re.S)
    assert body, name
    return set(re.findall(r'^\s+"?([\w-]+)"?:', body.group(1), re.M))


def _used_keys() -> set[str]:
    keys: set[str] = set()
    for path in JS:
        text = path.read_text(encoding="utf-8")
        keys |= set(re.findall(r'\bt\("([\w-]+)"', text))
        for a, b in re.findall(r'\bt\([^()"]*\?\s*"([\w-]+)"\s*:\s*"([\w-]+)"', text):
            keys |= {a, b}
    for page in PAGES:
        keys |= set(re.findall(r'data-i18n(?:-\w+)?="([\w-]+)"', page.read_text(encoding="utf-8")))
    for prefix, rest in DYNAMIC.items():
        keys.discard(prefix)
        keys |= {prefix + r for r in rest}
    return keys


def test_every_label_in_both_languages() -> None:
    zh, en = _dict_keys("zh"), _dict_keys("en")
    assert zh == en, f"only zh: {sorted(zh - en)}; only en: {sorted(en - zh)}"
    missing = _used_keys() - zh
    assert not missing, f"labels without a translation: {sorted(missing)}"


def test_pages_load_existing_files() -> None:
    for page in PAGES:
        for ref in re.findall(r'(?:src|href)="(/[^"]+)"', page.read_text(encoding="utf-8")):
            if ref in SERVER_PAGES:
                continue
            assert (STATIC / ref.lstrip("/")).is_file(), f"{page.name} loads {ref}"
        for ident in re.findall(r'id="([\w-]+)"', page.read_text(encoding="utf-8")):
            assert ident  # ids are well formed


def test_module_imports_resolve() -> None:
    exports: dict[str, set[str]] = {}
    for path in JS:
        text = path.read_text(encoding="utf-8")
        names = set(re.findall(r"^export (?:async )?(?:function|const|class|let) (\w+)", text,
                               re.M))
        exports[path.name] = names
    for path in JS:
        text = path.read_text(encoding="utf-8")
        for names, module in re.findall(r'import \{([^}]*)\} from "\./([\w.]+)"', text):
            assert module in exports, f"{path.name} imports ./{module}"
            for name in (n.strip() for n in names.split(",")):
                if name:
                    assert name in exports[module], f"{path.name}: {name} not in {module}"
        for module in re.findall(r'import \* as \w+ from "\./([\w.]+)"', text):
            assert module in exports, f"{path.name} imports ./{module}"
