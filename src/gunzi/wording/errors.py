"""The engine's error texts re-worded for the player, in Chinese or English.

The engine words its errors for developers and records, in English with record
notation: ``seat 0 follows with AC KD: must follow diamonds with 2 card(s): holds
6D 8D 9D KD AD [A7]``. On the screen a player reads them in the chosen language,
with cards as shown in the hand (``A♣``, ``大王``) and seats by name. Each known form
is matched here; ``tests/tui/test_messages.py`` provokes the forms a player can
reach, so a changed engine wording fails a test instead of showing English on the
Chinese screen. An unknown form still shows something readable: in Chinese a
generic sentence with the rule clause, in English the engine's text with pretty
cards.
"""

from __future__ import annotations

import re

from gunzi.wording.names import SEATS, cards_plain

CARD = r"(?:10|[2-9JQKAT])[SHCD]|BJ|LJ"
CARDS = rf"(?:{CARD})(?: (?:{CARD}))*"
SEAT = r"seat \d"

CLASSES = {
    "zh": {"spades": "黑桃", "hearts": "红桃", "clubs": "梅花", "diamonds": "方块",
           "trumps": "主牌"},
    "en": {"spades": "spades", "hearts": "hearts", "clubs": "clubs", "diamonds": "diamonds",
           "trumps": "trumps"},
}
KINDS = {
    "zh": {"declare": "亮主", "pass": "不要", "tribute": "进贡", "return": "还牌", "bury": "扣底",
           "bury_jokers": "扣王", "play": "出牌", "deal": "发牌"},
    "en": {"declare": "declare", "pass": "pass", "tribute": "give the tribute",
           "return": "return cards", "bury": "bury", "bury_jokers": "bury jokers",
           "play": "play", "deal": "deal"},
}
SHAPES = {
    "zh": {"a longer tractor": "更长的拖拉机", "a tractor": "拖拉机", "a triple": "三条",
           "a pair": "对子", "tractors": "共{n}张的拖拉机", "triples": "{n}个三条",
           "pairs": "{n}个对子"},
    "en": {"a longer tractor": "a longer tractor", "a tractor": "a tractor",
           "a triple": "a triple", "a pair": "a pair", "tractors": "tractors of {n} cards",
           "triples": "{n} triples", "pairs": "{n} pairs"},
}
VERBS = {
    "zh": {"leads": "首出", "follows with": "跟牌", "tributes": "进贡", "returns": "还牌",
           "buries": "扣", "declares with": "亮", "takes": "换回", "taking": "换回"},
    "en": {"leads": "Lead", "follows with": "Follow with", "tributes": "Tribute",
           "returns": "Return", "buries": "Bury", "declares with": "Declare",
           "takes": "Take back", "taking": "taking back"},
}
# Chinese texts use full-width punctuation (，：；（）), as Chinese card rooms print them.
NO_CARDS = {"zh": "（未选牌）", "en": "nothing"}
GENERIC = {"zh": "这样不符合规则", "en": "not allowed by the rules"}

# (reason code, pattern, Chinese, English). The code names the form for machines (the web
# page's refusal, docs/protocol.md); several patterns may share one. Named groups ending in
# ``_c`` are cards, ``_s`` seats; ``cls`` a suit class, ``kinds`` action kinds, ``shape`` a
# classic combination. A part in ⟨…⟩ is left out when a group it names did not match.
Entry = tuple[str, str, str, str]

REASONS: list[Entry] = [
    # Playing.
    ("lead_size", rf"a lead is 1, 2 or 3 identical cards, not (?P<n>\d+) \((?P<x_c>{CARDS})\)",
     "首出只能是 1、2 或 3 张相同的牌，不能是 {n} 张",
     "a lead is 1, 2 or 3 identical cards, not {n}"),
    ("lead_identical",
     rf"a lead must be identical cards \(single, pair or triple\); (?P<x_c>{CARDS}) is not; "
     r"no runs, tractors or throws in 打滚子",
     "首出必须是相同的牌（单张、棒子或滚子）；打滚子不能出连牌、拖拉机或甩牌",
     "a lead must be identical cards (a single, a pair or a triple); Gunzi has no runs, "
     "tractors or throws"),
    ("not_held", rf"does not hold (?P<m_c>{CARDS})(?: \(holds only (?P<o_c>{CARDS})\))?",
     "你手里没有 {m_c}⟨（只有 {o_c}）⟩", "you do not hold {m_c}⟨ (you hold only {o_c})⟩"),
    ("follow_count", rf"must play (?P<n>\d+) card\(s\) to follow (?P<l_c>{CARDS}), not (?P<k>\d+)",
     "跟 {l_c} 要出 {n} 张，不是 {k} 张", "you must play {n} card(s) to follow {l_c}, not {k}"),
    ("follow_suit_n",
     rf"must follow (?P<cls>\w+) with (?P<n>\d+) card\(s\): holds (?P<h_c>{CARDS})",
     "必须跟 {n} 张{cls}：你有 {h_c}", "you must follow {cls} with {n} card(s): you hold {h_c}"),
    ("follow_pair", r"a pair was led and the seat holds a pair of (?P<cls>\w+): must play a pair",
     "出的是棒子，你有{cls}的对：必须出对（死棒）",
     "a pair was led and you hold a pair of {cls}: you must play a pair"),
    ("follow_triple",
     r"a triple was led and the seat holds a triple of (?P<cls>\w+): must play a triple",
     "出的是滚子，你有{cls}的滚子：必须出滚子",
     "a triple was led and you hold a triple of {cls}: you must play a triple"),
    ("follow_pair_plus_one", r"a triple was led and the seat holds a pair of (?P<cls>\w+): "
     r"must play a pair plus one card",
     "出的是滚子，你有{cls}的对：必须出一对加一张",
     "a triple was led and you hold a pair of {cls}: you must play a pair and one card"),
    ("lead_empty",
     r"a lead needs at least one card", "至少要出一张牌", "you must play at least one card"),
    ("not_held_copies", rf"plays (?P<n>\d+) × (?P<x_c>{CARD}) but holds only (?P<k>\d+)",
     "出了 {n} 张 {x_c}，但你只有 {k} 张", "{n} × {x_c} played but you hold only {k}"),
    ("lead_one_class", r"a lead must be all of one suit class, not (?P<parts>.+)",
     "首出必须是同一门的牌，不能混出 {parts}",
     "a lead must be all of one suit class, not {parts}"),
    ("follow_count", r"must play (?P<n>\d+) cards? to follow, not (?P<k>\d+)",
     "要出 {n} 张，不是 {k} 张", "you must play {n} card(s) to follow, not {k}"),
    ("follow_all_of_suit", rf"must play every card of (?P<cls>\w+) held: (?P<h_c>{CARDS})",
     "必须出完手里所有的{cls}：{h_c}", "you must play every card of {cls} you hold: {h_c}"),
    ("follow_suit", rf"must follow (?P<cls>\w+): holds (?P<h_c>{CARDS})",
     "必须跟{cls}：你有 {h_c}", "you must follow {cls}: you hold {h_c}"),
    ("follow_shape",
     r"must play (?P<shape>a longer tractor|a tractor|tractors of \d+ cards|a triple|"
     rf"\d+ triples|a pair|\d+ pairs) of (?P<cls>\w+): holds (?P<h_c>{CARDS})"
     r"(?: \(plays (?P<k>\d+)\))?",
     "必须出{cls}的{shape}：你有 {h_c}⟨（你只出了 {k} 个）⟩",
     "you must play {shape} of {cls}: you hold {h_c}⟨ (you played {k})⟩"),
    # Declaring.
    ("declare_identical",
     r"a declaration shows 1, 2 or 3 identical cards", "亮主只能亮 1、2 或 3 张相同的牌",
     "a declaration shows 1, 2 or 3 identical cards"),
    # Tribute and return.
    ("tribute_count", r"must give (?P<n>\d+) tribute card\(s\), not (?P<k>\d+)",
     "要进贡 {n} 张，不是 {k} 张", "you must give {n} tribute card(s), not {k}"),
    ("tribute_biggest",
     rf"must give its (?P<n>\d+) biggest non-point cards, including (?P<f_c>{CARDS})",
     "要进贡最大的 {n} 张非分牌，其中必须有 {f_c}",
     "you must give your {n} biggest non-point cards, including {f_c}"),
    ("tribute_biggest",
     rf"must give its (?P<n>\d+) biggest non-point cards: (?P<x_c>{CARD}) is not one of them "
     rf"\(choose (?P<k>\d+) of (?P<t_c>{CARDS})(?: after(?: (?P<f_c>{CARDS}))?)?\)",
     "要进贡最大的 {n} 张非分牌：{x_c} 不在其中（⟨{f_c} 之外，⟩从 {t_c} 中选 {k} 张）",
     "you must give your {n} biggest non-point cards: {x_c} is not one of them (⟨{f_c}, "
     "then ⟩choose {k} of {t_c})"),
    ("return_count", r"must return (?P<n>\d+) card\(s\), not (?P<k>\d+)",
     "要还 {n} 张，不是 {k} 张", "you must return {n} card(s), not {k}"),
    ("return_kind",
     r"the return must be (?P<n>\d+) side cards that are not point cards \((?P<a>\d+) such "
     r"card\(s\) here(?:, then (?P<b>\d+) other non-point card\(s\))?(?:, then (?P<any>\d+) "
     r"of any card\(s\))?\)",
     "还牌要 {n} 张不是分牌的副牌（这次要还 {a} 张这样的牌⟨，再还 {b} 张其他非分牌⟩⟨，再还 {any} "
     "张任意牌⟩）",
     "the return must be {n} side cards that are not point cards (here: {a} such card(s) "
     "required⟨, then {b} other non-point card(s)⟩⟨, then {any} card(s) of any kind⟩)"),
    # Burying, burying jokers.
    ("bury_count", r"must bury (?P<n>\d+) cards, not (?P<k>\d+)",
     "要扣 {n} 张底牌，不是 {k} 张", "you must bury {n} cards, not {k}"),
    ("big_joker_first", r"a LJ while keeping (?P<n>\d+) BJ; a big joker must be buried first "
     r"\(有大王必须先扣大王\)",
     "手里还留着 {n} 张大王，不能扣小王：有大王必须先扣大王",
     "you keep {n} big joker(s): a big joker must be buried before a little one"),
    ("big_joker_first", r"a LJ while keeping a BJ; a big joker must be buried first",
     "有大王必须先扣大王", "a big joker must be buried before a little one"),
    ("pickup_too_few",
     r"the kitty holds only (?P<k>\d+) card\(s\) that are neither point cards nor jokers to "
     r"take back",
     "底牌里只有 {k} 张可以换回的牌（不是分牌也不是王）",
     "the kitty holds only {k} card(s) that are neither point cards nor jokers to take back"),
    ("pickup_count", r"must take back as many kitty cards as jokers \((?P<n>\d+)\), not (?P<k>\d+)",
     "扣几张王就要换回几张底牌（{n} 张），不是 {k} 张",
     "you must take back as many kitty cards as jokers ({n}), not {k}"),
    ("pickup_lowest",
     rf"a joker burier takes back the kitty's lowest cards that are neither point cards nor "
     rf"jokers \((?P<l_c>{CARDS}); same rank, any suit\)",
     "扣王要换回底牌里最小的非分非王牌（{l_c}；同点数可任选花色）",
     "a joker burier takes back the kitty's lowest cards that are neither point cards nor "
     "jokers ({l_c}; same rank, any suit)"),
]

MESSAGES: list[Entry] = [
    # Out of turn (the app mostly prevents these itself).
    ("match_over", r"the match is over; .+ is not possible", "比赛已经结束", "the match is over"),
    ("not_asked_to_declare", rf"(?:.+: )?{SEAT} is not being asked to declare", "现在没有问你亮主",
     "you are not being asked to declare now"),
    ("not_asked_to_declare",
     rf".+: during the draw a seat acts only when asked whether to declare \(then: [\w ]+\); "
     rf"{SEAT} is not being asked now",
     "发牌时只有被问到是否亮主才能行动：现在没有问你",
     "during the draw you act only when asked whether to declare: you are not being asked"),
    ("wrong_decision",
     r".+: the [\w ]+ phase expects (?P<kinds>[\w ]+?) from (?P<who_s>seat \d|the dealer "
     r"machine)",
     "现在不能这样做：该{who_s}{kinds}", "not now: {who_s} must {kinds}"),
    ("not_your_turn",
     r".+: not this seat's turn; waiting for (?P<who_s>seat \d|the dealer machine)",
     "还没轮到你（等待{who_s}）", "not your turn (waiting for {who_s})"),
    # Held cards, for any decision.
    ("not_held",
     rf"{SEAT} (?:declares|declares with|tributes|returns|buries) (?P<x_c>{CARDS}) but does "
     rf"not hold (?P<m_c>{CARDS})(?: \(holds only (?P<o_c>{CARDS})\))?",
     "你手里没有 {m_c}⟨（只有 {o_c}）⟩", "you do not hold {m_c}⟨ (you hold only {o_c})⟩"),
    # Declaring.
    ("declare_size", r"a declaration shows 1 to 3 cards", "亮主要亮 1 到 3 张牌",
     "a declaration shows 1 to 3 cards"),
    ("big_joker_grabbed", rf"{SEAT}: the big joker was already grabbed; it cannot be overturned",
     "大王已经被抢亮，不能反主", "the big joker was already grabbed: it cannot be overturned"),
    ("grab_big_joker", rf"{SEAT}: the first hand is declared by showing one BJ \(抢亮大王\)",
     "第一局只能亮一张大王（抢亮大王）", "in a first hand you declare by showing one big joker"),
    ("no_joker_declarations",
     rf"{SEAT}: these rules do not allow joker declarations", "这套规则不能亮王",
     "these rules do not allow joker declarations"),
    ("joker_declaration_kind", rf"{SEAT}: jokers declare only as three LJ or three BJ",
     "王只能三张一起亮（三张小王或三张大王）",
     "jokers declare only as three little or three big jokers"),
    ("joker_declaration_suit",
     rf"{SEAT}: a three-joker declaration must name a suit \(S, H, C or D\)",
     "三张王亮主要叫一个花色（按 d 选择）", "a three-joker declaration must name a suit "
     "(press d to choose)"),
    ("not_level_card",
     rf"{SEAT}: (?P<x_c>{CARDS}) is not a level card; this hand is played at (?P<rank>\w+)",
     "{x_c} 不是级牌：这一局打{rank}", "{x_c} is not a level card: this hand is played at {rank}"),
    ("level_card_suit",
     rf"{SEAT}: a level-card declaration names its own suit", "亮级牌只能叫它自己的花色",
     "a level-card declaration names its own suit"),
    ("declaration_too_weak",
     rf"{SEAT}: (?P<x_c>{CARDS}) is not stronger than the standing declaration "
     rf"(?P<y_c>{CARDS}) by (?P<by_s>seat \d)",
     "{x_c} 不比{by_s}亮的 {y_c} 大", "{x_c} does not beat the standing declaration {y_c} "
     "({by_s})"),
    ("bad_declaration", rf"{SEAT}: (?P<x_c>{CARDS}) is not a valid declaration", "{x_c} 不能亮主",
     "{x_c} is not a valid declaration"),
    # Burying jokers.
    ("bury_only_jokers",
     rf"{SEAT} may bury only jokers, not (?P<x_c>{CARDS})", "只能扣王，不能扣 {x_c}",
     "only jokers can be buried now, not {x_c}"),
    ("choose_pickup",
     rf"{SEAT} announced (?P<x_c>{CARDS}) and must now choose which kitty cards to take "
     r"back for them",
     "已经宣布扣 {x_c}：请选择换回哪几张底牌（d 换方案）",
     "you announced {x_c}: now choose the kitty cards to take back (d cycles)"),
    ("choose_pickup", rf"{SEAT} announced jokers and must choose its pick-up",
     "已经宣布扣王：请选择换回哪几张底牌（d 换方案）",
     "you announced jokers: choose the kitty cards to take back (d cycles)"),
    ("kitty_hidden", rf"{SEAT} names kitty cards to take back, but the kitty is hidden: the lowest "
     r"exchangeable cards are taken for it",
     "底牌没亮，不能指定换回哪几张：会自动换回最小的可换牌",
     "the kitty is hidden: you cannot name the cards to take back, the lowest are taken"),
    # Playing.
    ("play_empty",
     rf"{SEAT} must play at least one card", "至少要出一张牌", "you must play at least one card"),
]

# 步步为营 (the board game's engine, gunzi.quoridor.game); the terminal calls walls 木块.
SQ = r"[a-z]\d{1,2}"
WALL = rf"{SQ}[hv]"
MESSAGES += [
    ("wall_crosses", rf"wall (?P<w>{WALL}) crosses wall (?P<o>{WALL}) at its middle",
     "木块 {w} 与木块 {o} 在中点十字交叉：两块木块不能交叉",
     "wall {w} would cross wall {o} at its middle: walls may not cross"),
    ("wall_overlaps", rf"wall (?P<w>{WALL}) overlaps wall (?P<o>{WALL})",
     "木块 {w} 与木块 {o} 重叠：两块木块不能占同一段槽",
     "wall {w} overlaps wall {o}: two walls may not share a groove"),
    ("wall_cuts_path", rf"wall (?P<w>{WALL}) cuts every path of seat (?P<pawn>\d) to its goal",
     "木块 {w} 会堵死 {pawn} 号棋子去终点的所有路：每个棋子都必须留一条路",
     "wall {w} would cut every path of pawn {pawn} to its goal: every pawn must keep a path"),
    ("wall_off_board", rf"wall (?P<w>\S+) is off the board \(anchors run a1\.\.(?P<last>{SQ})\)",
     "木块 {w} 超出棋盘（锚点从 a1 到 {last}）",
     "wall {w} is off the board (anchors run a1..{last})"),
    ("no_walls_left", r"seat \d has no walls left", "你的木块已经用完了", "you have no walls left"),
    ("move_stays",
     r"a move must leave the square", "走棋必须离开原来的格子", "a move must leave the square"),
    ("square_occupied",
     rf"(?P<to>{SQ}) is occupied by seat (?P<pawn>\d)", "{to} 上已经有 {pawn} 号棋子",
     "{to} is taken by pawn {pawn}"),
    ("wall_blocks_move", rf"a wall blocks the way to (?P<to>{SQ})", "木块挡住了去 {to} 的路",
     "a wall blocks the way to {to}"),
    ("move_not_step",
     rf"(?P<to>{SQ}) is not one square up, down, left or right \(no jumps in these rules\)",
     "{to} 不是上下左右相邻的一格（这套规则不能跳）",
     "{to} is not one square up, down, left or right (no jumps in these rules)"),
    ("move_not_step_or_jump",
     rf"(?P<to>{SQ}) is neither a step nor a legal jump over an adjacent pawn",
     "{to} 既不是一步，也不是越过相邻棋子的合法跳跃",
     "{to} is neither a step nor a legal jump over an adjacent pawn"),
    ("off_board", r"square \(\d+, \d+\) is off the (?P<n>\d+)×\d+ board", "超出 {n}×{n} 的棋盘",
     "off the {n}×{n} board"),
    ("pass_not_allowed", r"passing is allowed only with no legal move and no legal wall",
     "只有无路可走、也无木块可放时才能让过",
     "you may pass only with no legal move and no legal wall"),
    ("not_your_turn", r"it is seat (?P<pawn>\d)'s turn, not seat \d's", "现在轮到 {pawn} 号",
     "it is pawn {pawn}'s turn"),
    ("game_over", r"the game is over", "对局已经结束", "the game is over"),
]

# "seat 0 buries 4S 5S: must bury 6 cards, not 2": what was tried, then why not.
FRAME = re.compile(
    rf"{SEAT} (?P<verb>leads|follows with|tributes|returns|buries|declares with|takes) "
    rf"(?P<cards>{CARDS}|no cards)(?: taking (?P<take>{CARDS}|no cards))?: (?P<reason>.+)")
RULE = re.compile(r"(?P<text>.*?)(?: \[(?P<rule>[^\[\]]*)\])?", re.S)
OPTIONAL = re.compile(r"⟨([^⟨⟩]*)⟩")
FIELD = re.compile(r"\{(\w+)\}")

Table = list[tuple[str, re.Pattern[str], str, str]]
_REASONS: Table = [(code, re.compile(p), zh, en) for code, p, zh, en in REASONS]
_MESSAGES: Table = [(code, re.compile(p), zh, en) for code, p, zh, en in MESSAGES]
# Groups naming cards of the seat's own hand that satisfy the rule (to point them out).
SATISFYING = ("h_c", "f_c", "t_c")


def _seat(text: str, lang: str) -> str:
    if text == "the dealer machine":
        return "发牌" if lang == "zh" else "the dealer"
    seat = int(text.split()[-1])
    # Inside an English sentence the player is "you", not "You".
    return "you" if lang == "en" and seat == 0 else SEATS[lang][seat]


def _cards(text: str, lang: str) -> str:
    return cards_plain(text.split(), lang)


def _value(name: str, value: str, lang: str) -> str:
    """A matched group in the player's words."""
    if name.endswith("_c"):
        return _cards(value, lang)
    if name.endswith("_s"):
        return _seat(value, lang)
    if name == "cls":
        return CLASSES[lang].get(value, value)
    if name == "kinds":
        joiner = "或" if lang == "zh" else " or "
        return joiner.join(KINDS[lang].get(k, k) for k in value.split(" or "))
    if name == "shape":
        words = value.split()
        if words[0].isdigit():
            return SHAPES[lang][words[1]].format(n=words[0])
        if words[0] == "tractors":
            return SHAPES[lang]["tractors"].format(n=words[2])
        return SHAPES[lang].get(value, value)
    if name == "parts":
        sep = "、" if lang == "zh" else ", "
        return sep.join(
            f"{CLASSES[lang].get(m['cls'], m['cls'])} {_cards(m['cards'], lang)}"
            for m in re.finditer(rf"(?P<cls>\w+) \((?P<cards>{CARDS})\)", value)
        )
    return value


def _fill(template: str, groups: dict[str, str | None], lang: str) -> str:
    def optional(m: re.Match[str]) -> str:
        names = FIELD.findall(m.group(1))
        return m.group(1) if all(groups.get(n) for n in names) else ""

    template = OPTIONAL.sub(optional, template)
    values = {k: _value(k, v, lang) for k, v in groups.items() if v is not None}
    return FIELD.sub(lambda m: values.get(m.group(1), ""), template)


def _find(table: Table, text: str) -> tuple[str, str, str, dict[str, str | None]] | None:
    """(code, Chinese template, English template, groups) of the form ``text`` has."""
    for code, pattern, zh, en in table:
        m = pattern.fullmatch(text)
        if m is not None:
            return code, zh, en, m.groupdict()
    return None


def _match(table: Table, text: str, lang: str) -> str | None:
    found = _find(table, text)
    if found is None:
        return None
    _, zh, en, groups = found
    return _fill(zh if lang == "zh" else en, groups, lang)


def _split(text: str) -> tuple[str, str | None]:
    """(the message, its rule clause) of an engine error."""
    parts = RULE.fullmatch(text)
    assert parts is not None  # the pattern matches any text
    return parts["text"], parts["rule"]


def known(text: str) -> bool:
    """Whether ``text`` (an engine error) has a wording here (tests)."""
    return _reword(_split(text)[0], "zh", brief=False) is not None


def _tried(cards: str, lang: str) -> str:
    return NO_CARDS[lang] if cards == "no cards" else _cards(cards, lang)


def _reword(text: str, lang: str, *, brief: bool) -> str | None:
    """``text`` in ``lang``, or None if its form is unknown; ``brief``: only the reason."""
    frame = FRAME.fullmatch(text)
    if frame is not None:
        reason = _match(_REASONS, frame["reason"], lang)
        if reason is None or brief:
            return reason
        tried = f"{VERBS[lang][frame['verb']]} {_tried(frame['cards'], lang)}"
        if frame["take"] is not None:
            tried += f" {VERBS[lang]['taking']} {_tried(frame['take'], lang)}"
        return tried + ("：" if lang == "zh" else ": ") + reason
    return _match(_MESSAGES, text, lang)


def _pretty(text: str, lang: str) -> str:
    """An unknown English text with shown cards and seat names."""
    text = re.sub(rf"\b(?:{CARD})\b", lambda m: cards_plain([m.group(0)], lang), text)
    return re.sub(r"\bseat (\d)\b", lambda m: SEATS[lang][int(m.group(1))], text)


def engine_error(text: str, lang: str, *, brief: bool = False) -> str:
    """The engine's error ``text`` as the player reads it in ``lang``; ``brief`` leaves out
    the cards that were tried (when they are not the player's own choice)."""
    body, rule = _split(text)
    said = _reword(body, lang, brief=brief)
    if said is None:
        said = GENERIC["zh"] if lang == "zh" else _pretty(body, lang)
    return f"{said} [{rule}]" if rule else said



def reason(text: str) -> tuple[str, list[str]]:
    """The reason code of an engine error and the cards of the seat's hand it names as
    satisfying the rule (``("follow_suit_n", ["4D", "4D", "5D"])``); ``("rule", [])``
    for a form not known here."""
    body = _split(text)[0]
    frame = FRAME.fullmatch(body)
    found = _find(_REASONS, frame["reason"]) if frame else _find(_MESSAGES, body)
    if found is None:
        return "rule", []
    code, _, _, groups = found
    return code, [c for g in SATISFYING for c in (groups.get(g) or "").split()]
