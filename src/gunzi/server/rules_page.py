"""``GET /rules``: the rules document (docs/rules.md, rules.zh.md) as a page of the hall.

The page is rendered from the document with markdown-it-py, never written by hand. Clause
headings get their clause as id (``#A6``, ``#A4.1``), and every paragraph that opens with an
option (``**[I-7] `dry_pot`**`` or ``**Option `follow`**``) becomes a block with id ``I-7``
(or ``opt-follow``). Given a table (``?table=ID``) or a rule set (``?preset=classic-2&o=
follow=live``), each such block shows that rule set's value, and the blocks whose value
differs from the preset's default are marked, with a summary linking to them at the top.
The document is parsed once per language; a request only renders.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from html import escape
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from markdown_it import MarkdownIt
from markdown_it.token import Token

from gunzi import rulebook
from gunzi.engine import rules as card_rules
from gunzi.engine.errors import InvalidRulesError
from gunzi.engine.options import Catalog
from gunzi.quoridor import rules as board_rules

router = APIRouter()

MAX_OVERRIDES = 40
HEADING = re.compile(r"^(?:Part )?(B-variants|[A-D]\d*(?:\.\d+)?)\b")
DOC_LINKS = {"rules.md": "/rules?lang=en", "rules.zh.md": "/rules?lang=zh"}
OPTION_BLOCK = re.compile(r"^\*\*(?:\[(I-\d+)\]\s*)?(?:(?:Option|选项)\s+)?(?:`([a-z_]+)`)?\*\*")

TEXTS = {
    "en": {
        "title": "Rules", "lobby": "Lobby", "table": "Back to the table", "other": "中文",
        "other_label": "这一页的中文版", "value": "This table: {value}",
        "value_rules": "This rule set: {value}", "default": "preset {preset}: {value}",
        "changed": "{who} plays preset {preset} with these options changed (marked below):",
        "unchanged": "{who} plays preset {preset} with its default options.",
        "table_who": "Table {id}", "rules_who": "This rule set",
        "no_table": "No table {id}.", "bad_rules": "These rules cannot be shown: {error}",
        "too_many": "At most {n} options (o=...) at once.",
        "part": "Its game's rules: {link}.",
    },
    "zh": {
        "title": "规则", "lobby": "大厅", "table": "回到牌桌", "other": "English",
        "other_label": "This page in English", "value": "本桌：{value}",
        "value_rules": "这套规则：{value}", "default": "预设 {preset}：{value}",
        "changed": "{who}用预设 {preset}，改了下面这些选项（下文已标出）：",
        "unchanged": "{who}用预设 {preset}，选项都是默认值。",
        "table_who": "牌桌 {id} ", "rules_who": "这套规则",
        "no_table": "没有牌桌 {id}。", "bad_rules": "无法显示这套规则：{error}",
        "too_many": "一次最多 {n} 个选项（o=...）。",
        "part": "这个游戏的规则：{link}。",
    },
}


def _mark(tokens: list[Token]) -> list[Token]:
    """Give clause headings and option paragraphs their ids (once per language)."""
    for i, tok in enumerate(tokens[:-1]):
        content = tokens[i + 1].content if tokens[i + 1].type == "inline" else ""
        if tok.type == "heading_open" and (m := HEADING.match(content)):
            tok.attrSet("id", m.group(1))  # "Part B" is clause B
        elif tok.type == "paragraph_open" and tok.level == 0 and (
                m := OPTION_BLOCK.match(content)) and (m.group(1) or m.group(2)):
            tok.meta = {"option": m.group(2)}  # None: an [I-n] that is no option yet
            tok.attrSet("id", m.group(1) or f"opt-{m.group(2)}")
        for child in tok.children or ():
            if child.type == "link_open" and str(child.attrGet("href")) in DOC_LINKS:
                child.attrSet("href", DOC_LINKS[str(child.attrGet("href"))])
    return tokens


@cache
def _document(lang: str) -> tuple[MarkdownIt, list[Token]]:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")  # no raw HTML passes
    md.add_render_rule("paragraph_open", _open_block)
    md.add_render_rule("paragraph_close", _close_block)
    return md, _mark(md.parse(rulebook.text(lang)))


def value_text(value: Any) -> str:
    """An option value as `-o` accepts it and the document writes it (``true``, ``live``)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class Marks:
    """A rule set to show on the page: its values and its preset's."""

    who: str
    preset: str
    values: dict[str, Any]
    defaults: dict[str, Any]
    texts: dict[str, str]
    is_table: bool

    @property
    def changed(self) -> list[str]:
        return [k for k, v in self.values.items() if k in self.defaults and v != self.defaults[k]]


def _open_block(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    tok = tokens[idx]
    if not tok.meta:
        return str(self.renderToken(tokens, idx, options, env))
    marks: Marks | None = env.get("marks")
    option = tok.meta["option"]
    classes = ["rule-option"]
    if marks is not None and option in marks.changed:
        classes.append("active")
    data = f' data-option="{escape(option)}"' if option else ""
    block_id = escape(str(tok.attrGet("id") or ""))
    return f'<div class="{" ".join(classes)}" id="{block_id}"{data}>\n<p>'


def _close_block(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    opening = _opening(tokens, idx)
    if opening is None or not opening.meta:
        return str(self.renderToken(tokens, idx, options, env))
    marks: Marks | None = env.get("marks")
    option = opening.meta["option"]
    note = ""
    if marks is not None and option in marks.values:
        t = marks.texts
        value = t["value" if marks.is_table else "value_rules"].format(
            value=f"<code>{escape(value_text(marks.values[option]))}</code>")
        default = t["default"].format(
            preset=escape(marks.preset),
            value=f"<code>{escape(value_text(marks.defaults.get(option)))}</code>")
        note = f'\n<p class="table-value"><b>{value}</b> · {default}</p>'
    return f"</p>{note}\n</div>\n"


def _opening(tokens: list[Token], idx: int) -> Token | None:
    """The paragraph_open of the paragraph_close at ``idx``."""
    for j in range(idx - 1, -1, -1):
        if tokens[j].type == "paragraph_open":
            return tokens[j]
    return None


def render_body(lang: str, marks: Marks | None = None) -> str:
    """The document as HTML, with ``marks`` (a rule set) shown on its option blocks."""
    md, tokens = _document(lang)
    return str(md.renderer.render(tokens, md.options, {"marks": marks}))


def _part(marks: Marks) -> str:
    """The Part of the document whose game the rule set plays."""
    if "players" in marks.values:
        return "D"
    return "A" if marks.values.get("game") == card_rules.GUNZI else "B"


def _summary(lang: str, marks: Marks) -> str:
    t = marks.texts
    who, preset = escape(marks.who), escape(marks.preset)
    part = _part(marks)
    game = t["part"].format(link=f'<a href="#{part}">Part {part}</a>')
    if not marks.changed:
        return (f'<div class="rules-summary"><p>{t["unchanged"].format(who=who, preset=preset)}'
                f" {game}</p></div>")
    _, tokens = _document(lang)
    anchors = {tok.meta["option"]: tok.attrGet("id") for tok in tokens
               if tok.type == "paragraph_open" and tok.meta and tok.meta["option"]}
    items = "".join(
        f'<li><a href="#{escape(str(anchors.get(k, "")))}"><code>{escape(k)}='
        f'{escape(value_text(marks.values[k]))}</code></a></li>' for k in marks.changed)
    return (f'<div class="rules-summary"><p>{t["changed"].format(who=who, preset=preset)}</p>'
            f"<ul>{items}</ul><p>{game}</p></div>")


def _catalog_for(preset: str) -> Catalog[Any]:
    return board_rules.CATALOG if preset in board_rules.PRESETS else card_rules.CATALOG


def marks_for_rules(preset: str, overrides: list[str], texts: dict[str, str]) -> Marks:
    """A preset with ``option=value`` overrides; InvalidRulesError if any is not valid."""
    catalog = _catalog_for(preset)
    rules = catalog.preset(preset, **catalog.parse_overrides(overrides))
    return Marks(texts["rules_who"], preset, rules.options(),
                 catalog.preset(preset).options(), texts, is_table=False)


def marks_for_table(info: dict[str, Any], texts: dict[str, str]) -> Marks:
    """A table's rule set (its ``info()``), against the preset it was created from."""
    values = {k: v for k, v in info["rules"].items() if k != "name"}
    preset = str(info.get("preset") or info["rules"]["name"])
    catalog = _catalog_for(preset)
    defaults = catalog.preset(preset).options() if preset in catalog.presets else {}
    return Marks(texts["table_who"].format(id=info["id"]), preset, values, defaults, texts,
                 is_table=True)


async def _table_info(request: Request, table_id: str) -> dict[str, Any] | None:
    for attr in ("hall", "board_hall"):
        hall = getattr(request.app.state, attr)
        table = hall.get(table_id) or await hall.cold(table_id)
        if table is not None:
            info: dict[str, Any] = table.info()
            return info
    return None


def page(lang: str, body: str, *, back: str | None, switch: str) -> str:
    t = TEXTS[lang]
    back_link = f'<a class="button small" href="{escape(back)}">{t["table"]}</a> ' if back else ""
    other = "zh" if lang == "en" else "en"
    return f"""<!doctype html>
<html lang="{"zh-CN" if lang == "zh" else "en"}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{t["title"]} · Gunzi 滚子</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/css/hall.css">
<link rel="stylesheet" href="/css/rules.css">
</head>
<body class="rules-page">
<header class="topbar">
  <nav class="tools"><a class="button small" href="/" id="link-lobby">{t["lobby"]}</a>
  {back_link}<a class="button small lang" id="link-lang" href="{escape(switch)}"
  hreflang="{other}" lang="{other}" title="{t["other_label"]}">{t["other"]}</a></nav>
</header>
<main class="rules-doc">
{body}
</main>
</body>
</html>
"""


@router.get("/rules", response_class=HTMLResponse)
async def rules_page(
    request: Request,
    lang: Annotated[str, Query(pattern="^(en|zh)$")] = "zh",
    table: Annotated[str | None, Query(min_length=1, max_length=24)] = None,
    preset: Annotated[str | None, Query(min_length=1, max_length=32)] = None,
    o: Annotated[list[str] | None, Query()] = None,
) -> HTMLResponse:
    """The rules in ``lang``; with ``table`` (or ``preset`` and ``o=option=value``) that rule
    set's values are shown and the options it changes are marked."""
    t = TEXTS[lang]
    params = {k: v for k, v in (("table", table), ("preset", preset)) if v}
    query = [*params.items(), *(("o", x) for x in o or [])]
    switch = "/rules?" + urlencode([("lang", "en" if lang == "zh" else "zh"), *query])
    marks: Marks | None = None
    back: str | None = None
    status, error = 200, ""
    try:
        if table is not None:
            info = await _table_info(request, table)
            if info is None:
                status, error = 404, t["no_table"].format(id=table)
            else:
                marks = marks_for_table(info, t)
                back = f"/board.html?t={table}" if info.get("game") == "quoridor" \
                    else f"/table.html?t={table}"
        elif preset is not None or o:
            if len(o or []) > MAX_OVERRIDES:
                raise InvalidRulesError(t["too_many"].format(n=MAX_OVERRIDES))
            if any(len(x) > 64 for x in o or []):
                raise InvalidRulesError("an option=value override is longer than 64 characters")
            marks = marks_for_rules(preset or "gunzi", o or [], t)
    except InvalidRulesError as exc:
        status, error = 400, t["bad_rules"].format(error=exc)
    head = f'<p class="rules-error" role="alert">{escape(error)}</p>' if error else ""
    if marks is not None:
        head += _summary(lang, marks)
    body = head + render_body(lang, marks)
    return HTMLResponse(page(lang, body, back=back, switch=switch), status_code=status)
