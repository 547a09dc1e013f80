"""Labels in Chinese (default) and English, and the text forms of cards, seats and events."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.style import Style
from rich.text import Text

from gunzi.engine import cards as C
from gunzi.wording.names import SEATS, card_label, cards_plain

LANGS = ("zh", "en")

TEXT: dict[str, dict[str, str]] = {
    "zh": {
        "game.gunzi": "打滚子",
        "game.classic": "升级",
        "round": "第{n}轮",
        "hand": "第{n}局",
        "levels": "级别 我方 {us} · 对方 {them}",
        "level": "打{r}",
        "trump": "主 {s}",
        "trump.none": "主 未定",
        "trump.no": "无主",
        "dealer": "庄 {seat}",
        "dealer.none": "庄 未定",
        "declared": "亮主 {seat} {cards}",
        "points": "得分 我方 {us} · 对方 {them}",
        "scores": "积分 {s}",
        "kitty": "底牌 {n}张",
        "kitty.hidden": "（未亮）",
        "kitty.dry": "干锅",
        "tribute": "进贡 {n}张 {giver}→{to}",
        "tribute.reversed": "（反贡）",
        "cards": "{n}张",
        "cards.short": "{n}张",
        "dealer.mark": " 庄",
        "colon": "：",
        "over": "比赛结束",
        "over.hands": "共{n}局",
        "over.final": "最终级别 我方 {us} · 对方 {them}",
        "result.won": "{team}胜（{why}）",
        "trick.no": "第{n}墩",
        "trick.leader": "{seat}领出",
        "trick.winning": "{seat}最大",
        "trick.prev": "上墩 {seat}赢 {p}分",
        "trick.prev.cards": "上墩 ",
        "trick.none": "—",
        "counter.title": "记牌器（外面还有几张）",
        "log.title": "记录",
        "hand.trumps": "主",
        "waiting": "等待 {seat}…",
        "prompt.declare": "亮主？d 选亮法 · Enter 亮 · p 不亮（不选牌 Enter 也是不亮） · "
                          "P 本副牌不再问",
        "prompt.declare.opt": "亮主？当前选择：{opt} · Enter 亮 · d 换 · p 不亮",
        "prompt.tribute": "进贡：给庄家你最大的 {n} 张非分牌 · 选牌（d 换方案）后 Enter",
        "prompt.return": "还牌：选 {n} 张还给 {seat}（已选 {k}） · Enter 确认",
        "prompt.bury": "扣底：选 {n} 张埋进底牌（已选 {k}） · Enter 确认",
        "prompt.bury_jokers": "扣王？选王后 Enter（d 换方案） · p 不扣（不选牌 Enter 也是不扣）",
        "prompt.bury_jokers.opt": "扣王：{opt} · Enter 确认 · d 换 · p 不扣",
        "prompt.lead": "轮到你出牌（首出）：选牌后 Enter · h 提示",
        "prompt.follow": "轮到你跟牌：出 {n} 张 · 选牌后 Enter · h 提示",
        "prompt.over": "比赛结束{result} · q 退出",
        "prompt.summary": "本局结束 · Enter 继续",
        "opt.pass": "不亮",
        "opt.pass.bury_jokers": "不扣王",
        "opt.bury": "扣底 {cards}",
        "opt.return": "还 {cards}",
        "opt.play": "出 {cards}",
        "opt.declare": "亮 {cards}",
        "opt.declare.suit": "亮 {cards} 叫 {suit}",
        "opt.bury_jokers": "扣 {cards}",
        "opt.bury_jokers.take": "扣 {cards} 换回 {take}",
        "opt.tribute": "给 {cards}",
        "status.ready": "按 ? 看帮助",
        "status.unknown_key": "无效按键 {k} · 按 ? 看按键",
        "status.not_turn": "还没轮到你（等待 {seat}）",
        "status.no_decision": "现在没有要你做的决定",
        "status.illegal": "不合法：{err}",
        "status.cannot_add": "不能选 {card}：{err}",
        "status.no_cycle": "这一步没有可选方案，请选牌",
        "status.hint": "提示：{what}（Enter 确认）",
        "status.hint.pass": "提示：不{what}（按 p）",
        "status.done": "{what}",
        "status.saved": "已保存到 {path}",
        "status.save_failed": "保存失败：{err}",
        "status.lang": "语言：中文",
        "status.counter.on": "记牌器：开",
        "status.counter.off": "记牌器：关",
        "status.autopass": "本副牌不再问亮主",
        "status.autopass.no": "现在不是发牌亮主阶段",
        "status.need_suit": "三张王亮主要叫花色：按 d 选择",
        "status.cleared": "已清除选择",
        "status.played": "你出了 {cards}",
        "status.failed_throw": "{seat}甩牌失败：{cards} 甩不出，改出 {played}",
        "status.no_pass": "这一步不能不要：请{verb}",
        "status.no_jokers": "你没有王：自动不扣王",
        # A draw that never asked the human: say why, or it looks as if they were skipped.
        "status.no_declare.first": "这一局没有可亮的主：首局要亮一张大王，你没有",
        "status.no_declare.grabbed": "这一局没有可亮的主：大王已被{seat}抢亮，首局不能反",
        "status.no_declare.level": "这一局没有可亮的主（需要级牌 {r}{jokers}）",
        "status.no_declare.overturn": "这一局没有可亮的主：反{seat}的 {cards} "
                                      "需要更多张同花色的级牌 {r}{jokers}",
        "status.no_declare.jokers": " 或三张王",
        "status.quit_unsaved": "保存失败：{err} · 再按一次 q 不保存退出",
        "status.bot_fallback": "{name} 机器人不可用，改用 random",
        "status.bot_untrained": "{name} 机器人只在{game}上训练过：出牌合法，但在这套规则下较弱",
        "bot.untrained": "{name}，只练过{game}",
        "status.bot_error": "{seat} 的机器人出错（{err}），改为随机合法动作",
        "status.resumed": "已从 {path} 继续（第{n}局）",
        "verb.declare": "亮主",
        "verb.bury_jokers": "扣王",
        "verb.tribute": "进贡",
        "verb.return": "还牌",
        "verb.bury": "扣底",
        "verb.play": "出牌",
        "keys": "←→ 移动 · 空格 选牌 · Enter 出/确认 · p 不要 · d 亮主/换方案 · h 提示 · "
                "c 记牌器 · l English · ? 帮助 · q 保存退出",
        "help.title": "按键",
        "help.close": "按 Esc / ? / Enter 关闭",
        "summary.title": "第{n}局结束",
        "summary.over": "比赛结束",
        "summary.dealer": "庄家 {seat}（打{r}，主 {s}）",
        "summary.score": "抓分方（{team}）得分 {score}（牌面 {tp}{kitty}） · {kou}",
        "summary.kitty_pts": " + 底牌 {kp}×{mult}",
        "summary.kou": "抠底",
        "summary.bao": "保底",
        "summary.kitty": "底牌 {cards}",
        "summary.kitty_sealed": "底牌在本副牌第二次打完后公开（复式）",
        "summary.dry": "干锅：底牌不能换，王不加级",
        "summary.last_trick": "最后一墩（{seat}赢）：",
        "summary.levels": "级别 我方 {b0}→{a0} · 对方 {b1}→{a1}",
        "summary.take": "抓分方上台",
        "summary.keep": "庄家守住",
        "summary.next": "下一局庄家 {seat}",
        "summary.tribute_next": "下一局进贡 {n} 张",
        "summary.hand_scores": "本局积分 {s}",
        "summary.scores": "累计积分 {s}",
        "summary.round_end": "本轮结束：{team} 胜（{why}）",
        "summary.failed": "甩牌失败 {s}",
        "summary.game_points": "比赛积分 {s}",
        "summary.saved": "记录已保存：{path}",
        "summary.continue": "Enter 继续 · q 保存退出 · l English",
        "summary.quit": "q 退出 · l English",
        "summary.unknown_key": "无效按键 {k} · Enter 继续 · q 保存退出 · l 切换语言",
        "team.us": "我方",
        "team.them": "对方",
        "team.us.obj": "我方",
        "team.them.obj": "对方",
        "why.passed-10": "打过10",
        "why.passed-A": "打过A",
        "why.attackers-scored-0": "抓分方0分",
        "why.attackers-scored-300": "抓分方满300分",
        "why.three-bj-in-kitty": "底牌三个大王",
        "ev.deal": "第{hand}局发牌{re}",
        "ev.redeal": "重新发牌（{reason}）",
        "ev.declare": "{seat} 亮 {cards}",
        "ev.declare.suit": "{seat} 亮 {cards} 叫 {suit}",
        "ev.trump": "主：{suit}",
        "ev.no_trump": "无主：只有王和级牌是主",
        "ev.kitty_flip": "翻底：{cards} → 庄家 {seat}",
        "ev.tribute": "{seat} 进贡 {n}张给 {to}{cards}",
        "ev.return": "{seat} 还 {n}张给 {to}{cards}",
        "ev.tribute_cancelled": "{seat} 的对家有三个大王：不进贡",
        "ev.kitty_shown": "亮底：{cards}",
        "ev.dry_pot": "干锅！",
        "ev.take_kitty": "{seat} 拿底牌 {cards}",
        "ev.take_kitty.n": "{seat} 拿底牌（{n}张）",
        "ev.bury": "{seat} 扣底 {cards}",
        "ev.bury.n": "{seat} 扣底 {n}张",
        "ev.bury_jokers": "{seat} 扣王 {cards}，换回 {take}",
        "ev.pass_jokers": "{seat} 不扣王",
        "ev.play_begins": "开始出牌，{seat}先出",
        "ev.failed_throw": "{seat} 甩牌失败：{cards} → 出 {played}",
        "ev.trick": "第{n}墩 {seat}赢 {p}分",
        "ev.hand_end": "第{hand}局结束：抓分 {score}",
        "ev.match_end": "比赛结束",
    },
    "en": {
        "game.gunzi": "Gunzi",
        "game.classic": "Shengji",
        "round": "Round {n}",
        "hand": "Hand {n}",
        "levels": "Levels us {us} · them {them}",
        "level": "Playing {r}",
        "trump": "Trump {s}",
        "trump.none": "Trump unknown",
        "trump.no": "No trump (无主)",
        "dealer": "Dealer {seat}",
        "dealer.none": "Dealer unknown",
        "declared": "Declared {seat} {cards}",
        "points": "Points us {us} · them {them}",
        "scores": "Scores {s}",
        "kitty": "Kitty {n} cards",
        "kitty.hidden": "(hidden)",
        "kitty.dry": "dry pot",
        "tribute": "Tribute {n} {giver}→{to}",
        "tribute.reversed": "(reversed)",
        "cards": "{n} cards",
        "cards.1": "1 card",
        "cards.short": "{n}",
        "dealer.mark": " D",
        "colon": ": ",
        "over": "Match over",
        "over.hands": "{n} hands",
        "over.hands.1": "1 hand",
        "over.final": "Final levels us {us} · them {them}",
        "result.won": "{team} won ({why})",
        "trick.no": "Trick {n}",
        "trick.leader": "{seat} led",
        "trick.winning": "{seat} winning",
        "trick.prev": "Last trick: {seat}, {p} pts",
        "trick.prev.cards": "last ",
        "trick.none": "—",
        "counter.title": "Card counter (copies still out)",
        "log.title": "Log",
        "hand.trumps": "Tr",
        "waiting": "Waiting for {seat}…",
        "prompt.declare": "Declare? d: choose · Enter: declare · p: pass (Enter with nothing "
                          "selected passes too) · P: stop asking this deal",
        "prompt.declare.opt": "Declare? Chosen: {opt} · Enter: declare · d: next · p: pass",
        "prompt.tribute": "Tribute: give the dealer your {n} biggest non-point cards · select "
                          "(d cycles choices), Enter",
        "prompt.return": "Return: choose {n} cards for {seat} ({k} chosen) · Enter to give",
        "prompt.bury": "Bury: choose {n} cards for the kitty ({k} chosen) · Enter to bury",
        "prompt.bury_jokers": "Bury jokers? Select jokers, Enter (d cycles choices) · p: pass "
                              "(Enter with nothing selected passes too)",
        "prompt.bury_jokers.opt": "Bury jokers: {opt} · Enter: confirm · d: next · p: pass",
        "prompt.lead": "Your lead: select cards, Enter to play · h: hint",
        "prompt.follow": "Your turn: follow with {n} card(s), Enter to play · h: hint",
        "prompt.over": "The match is over{result} · q to quit",
        "prompt.summary": "Hand over · Enter to continue",
        "opt.pass": "no declaration",
        "opt.pass.bury_jokers": "no joker buried",
        "opt.bury": "bury {cards}",
        "opt.return": "return {cards}",
        "opt.play": "play {cards}",
        "opt.declare": "declare {cards}",
        "opt.declare.suit": "declare {cards} naming {suit}",
        "opt.bury_jokers": "bury {cards}",
        "opt.bury_jokers.take": "bury {cards}, take back {take}",
        "opt.tribute": "give {cards}",
        "status.ready": "Press ? for help",
        "status.unknown_key": "Unknown key {k} · press ? for the key map",
        "status.not_turn": "Not your turn (waiting for {seat})",
        "status.no_decision": "You have no decision to make now",
        "status.illegal": "Illegal: {err}",
        "status.cannot_add": "Cannot select {card}: {err}",
        "status.no_cycle": "Nothing to cycle here: select cards",
        "status.hint": "Hint: {what} (Enter to confirm)",
        "status.hint.pass": "Hint: do not {what} (press p)",
        "status.done": "{what}",
        "status.saved": "Saved to {path}",
        "status.save_failed": "Saving failed: {err}",
        "status.lang": "Language: English",
        "status.counter.on": "Card counter on",
        "status.counter.off": "Card counter off",
        "status.autopass": "No more declaring asks this deal",
        "status.autopass.no": "Not dealing now: nothing to stop",
        "status.need_suit": "Three jokers must name a suit: press d to choose",
        "status.cleared": "Selection cleared",
        "status.played": "You played {cards}",
        "status.failed_throw": "Failed throw by {seat}: {cards} could not all be thrown; "
                               "{played} was played",
        "status.no_pass": "You cannot pass here: you must {verb}",
        "status.no_jokers": "You hold no joker: no joker buried",
        "status.no_declare.first": "No declaration open to you this deal: the first hand "
                                   "is declared with a big joker, and you had none",
        "status.no_declare.grabbed": "No declaration open to you this deal: {seat} grabbed "
                                     "the big joker (a first hand cannot be overturned)",
        "status.no_declare.level": "No declaration open to you this deal (it needs a level "
                                   "card {r}{jokers})",
        "status.no_declare.overturn": "No declaration open to you this deal: overturning "
                                      "{seat}'s {cards} needs more level cards {r} of one "
                                      "suit{jokers}",
        "status.no_declare.jokers": " or three jokers",
        "status.quit_unsaved": "Saving failed: {err} · press q again to quit without saving",
        "status.bot_fallback": "bot {name} is not available; using random",
        "status.bot_untrained": "bot {name} was trained on {game} only: it plays legally, "
                                "but weakly under these rules",
        "bot.untrained": "{name}, {game}-trained",
        "status.bot_error": "the bot of {seat} failed ({err}); it played a random legal action",
        "status.resumed": "Resumed from {path} (hand {n})",
        "verb.declare": "declare",
        "verb.bury_jokers": "bury jokers",
        "verb.tribute": "give the tribute",
        "verb.return": "return cards",
        "verb.bury": "bury cards",
        "verb.play": "play cards",
        "keys": "←→ move · space select · Enter play · p pass · d declare/cycle · h hint · "
                "c counter · l 中文 · ? help · q quit",
        "help.title": "Keys",
        "help.close": "Esc / ? / Enter to close",
        "summary.title": "Hand {n} is over",
        "summary.over": "The match is over",
        "summary.dealer": "Dealer {seat} (playing {r}, trump {s})",
        "summary.score": "Attackers ({team}) scored {score} (tricks {tp}{kitty}) · {kou}",
        "summary.kitty_pts": " + kitty {kp}×{mult}",
        "summary.kou": "the attackers won the last trick: kitty captured",
        "summary.bao": "the dealer team won the last trick: kitty kept",
        "summary.kitty": "Kitty {cards}",
        "summary.kitty_sealed": "Kitty shown once the board's second play is over (duplicate)",
        "summary.dry": "Dry pot: no kitty exchange, jokers give no levels",
        "summary.last_trick": "Last trick (won by {seat}):",
        "summary.levels": "Levels us {b0}→{a0} · them {b1}→{a1}",
        "summary.take": "The attackers take the deal",
        "summary.keep": "The dealer team keeps the deal",
        "summary.next": "Next dealer {seat}",
        "summary.tribute_next": "Tribute next hand: {n} card(s)",
        "summary.hand_scores": "Hand scores {s}",
        "summary.scores": "Total scores {s}",
        "summary.round_end": "Round over: {team} win ({why})",
        "summary.failed": "Failed throws {s}",
        "summary.game_points": "Game points {s}",
        "summary.saved": "Record saved: {path}",
        "summary.continue": "Enter to continue · q to save and quit · l 中文",
        "summary.quit": "q to quit · l 中文",
        "summary.unknown_key": "Unknown key {k} · Enter to continue · q to save and quit · "
                               "l to switch language",
        "team.us": "we",
        "team.them": "they",
        "team.us.obj": "us",
        "team.them.obj": "them",
        "why.passed-10": "passed 10",
        "why.passed-A": "passed A",
        "why.attackers-scored-0": "the attackers scored 0",
        "why.attackers-scored-300": "the attackers scored 300",
        "why.three-bj-in-kitty": "three big jokers in the kitty",
        "ev.deal": "Hand {hand} dealt{re}",
        "ev.redeal": "Dealt again ({reason})",
        "ev.declare": "Declared by {seat}: {cards}",
        "ev.declare.suit": "Declared by {seat}: {cards} naming {suit}",
        "ev.trump": "Trump: {suit}",
        "ev.no_trump": "No trump (无主): only jokers and level cards are trumps",
        "ev.kitty_flip": "Kitty turned: {cards} → dealer {seat}",
        "ev.tribute": "Tribute ({n} cards) {seat} → {to}{cards}",
        "ev.tribute.1": "Tribute (1 card) {seat} → {to}{cards}",
        "ev.return": "Return ({n} cards) {seat} → {to}{cards}",
        "ev.return.1": "Return (1 card) {seat} → {to}{cards}",
        "ev.tribute_cancelled": "{seat}'s partner holds three BJ: no tribute",
        "ev.kitty_shown": "Kitty shown: {cards}",
        "ev.dry_pot": "Dry pot!",
        "ev.take_kitty": "Kitty taken by {seat}: {cards}",
        "ev.take_kitty.n": "Kitty taken by {seat} ({n} cards)",
        "ev.bury": "Buried by {seat}: {cards}",
        "ev.bury.n": "{n} cards buried by {seat}",
        "ev.bury_jokers": "Jokers buried by {seat}: {cards}, took back {take}",
        "ev.pass_jokers": "No joker buried by {seat}",
        "ev.play_begins": "Play begins, lead: {seat}",
        "ev.failed_throw": "Failed throw by {seat}: {cards} → plays {played}",
        "ev.trick": "Trick {n} won by {seat}: {p} pts",
        "ev.hand_end": "Hand {hand} over: attackers {score}",
        "ev.match_end": "Match over",
    },
}

SUIT_NAMES = {"zh": C.SUIT_CHINESE, "en": ("spades", "hearts", "clubs", "diamonds")}
# A four-colour deck, in explicit RGB: Textual turns named ANSI colours into its theme's,
# and its default theme gives red and magenta the same pink, so ♥ and ♦ looked alike.
SUIT_STYLES = ("bold #e4e4e4", "bold #ff5f5f", "bold #5fd75f", "bold #5fafff")
JOKER_STYLES = {C.BJ: "bold #ffd700", C.LJ: "bold #d787ff"}

HELP = {
    "zh": [
        ("← →", "在手牌上移动光标（↑ ↓ 换一行，Home/End 到头/尾）"),
        ("空格", "选中/取消光标处的牌（鼠标点击也可以）"),
        ("Enter", "出牌 / 确认（亮主、进贡、还牌、扣底、扣王）；小结时继续"),
        ("p", "不要：不亮主 / 不扣王"),
        ("P", "本副牌不再询问亮主"),
        ("d", "亮主：轮换可亮的方式；扣王、进贡：轮换方案"),
        ("h", "提示：机器人建议的选择（已选好，Enter 确认）"),
        ("Esc", "清除选择"),
        ("c", "开关记牌器（每种牌外面还有几张）"),
        ("l", "切换语言 中文/English"),
        ("s", "保存"),
        ("?", "帮助"),
        ("q", "保存并退出"),
    ],
    "en": [
        ("← →", "move the cursor over the hand (↑ ↓ row, Home/End first/last)"),
        ("space", "select / unselect the card under the cursor (or click it)"),
        ("Enter", "play / submit (declare, tribute, return, bury, jokers); continue a summary"),
        ("p", "pass: no declaration / no joker burying"),
        ("P", "stop the declaring asks for the rest of this deal"),
        ("d", "declaring: cycle the possible declarations; jokers, tribute: cycle choices"),
        ("h", "hint: the bot's suggestion, selected for you (Enter to confirm)"),
        ("Esc", "clear the selection"),
        ("c", "toggle the card counter (copies of each card still out)"),
        ("l", "switch language 中文/English"),
        ("s", "save now"),
        ("?", "this help"),
        ("q", "save and quit"),
    ],
}


def t(lang: str, key: str, **kw: Any) -> str:
    """The label ``key`` in ``lang``; with ``n=1``, its singular form ``key.1`` if there is one."""
    table = TEXT.get(lang, TEXT["zh"])
    text = (table.get(f"{key}.1") if kw.get("n") == 1 else None) or table.get(key) \
        or TEXT["en"].get(key) or key
    return text.format(**kw) if kw else text


def seat_values(lang: str, values: Sequence[int], *, signed: bool = True) -> str:
    """Per-seat numbers (scores, failed throws) as "我方 -3 · 对方 +3" when partners are
    equal, else seat by seat."""
    def num(v: int) -> str:
        return f"{v:+d}" if signed and v else str(v)

    if values[0] == values[2] and values[1] == values[3]:
        return (f"{t(lang, 'team.us.obj')} {num(values[0])} · "
                f"{t(lang, 'team.them.obj')} {num(values[1])}")
    return " · ".join(f"{seat_name(lang, s)} {num(v)}" for s, v in enumerate(values))


def seat_name(lang: str, seat: int | None) -> str:
    if seat is None or not 0 <= seat <= 3:
        return "—"
    return SEATS.get(lang, SEATS["zh"])[seat]


def suit_symbol(suit: int | str | None) -> str:
    if suit is None or suit == -1:
        return "?"
    index = C.SUITS.index(suit) if isinstance(suit, str) else suit
    return C.SUIT_SYMBOLS[index]


def card_style(card: int) -> str:
    if card >= C.LJ:
        return JOKER_STYLES[card]
    return SUIT_STYLES[card // 13]


def cards_text(cards: Sequence[int | str], lang: str) -> Text:
    """Coloured card list (ids or record text)."""
    out = Text()
    for i, card in enumerate(cards):
        c = C.parse(card) if isinstance(card, str) else card
        if i:
            out.append(" ")
        out.append(card_label(c, lang), style=Style.parse(card_style(c)))
    return out


def event_text(ev: Mapping[str, Any], lang: str) -> Text | None:
    """One log line for an event of the seat's stream, or None for events not logged."""
    kind = ev.get("type")

    def seat(key: str = "seat") -> str:
        value = ev.get(key)
        return seat_name(lang, value if isinstance(value, int) else None)

    def cards(key: str = "cards") -> str:
        value = ev.get(key)
        return cards_plain(value, lang) if value else ""

    if kind == "deal":
        return Text(t(lang, "ev.deal", hand=ev.get("hand"),
                      re="" if ev.get("deal_no", 1) == 1 else f" ({ev.get('deal_no')})"),
                    style="bold")
    if kind == "redeal":
        return Text(t(lang, "ev.redeal", reason=ev.get("reason")))
    if kind == "declare":
        key = "ev.declare.suit" if ev.get("suit") and ev["cards"][0] in ("BJ", "LJ") \
            else "ev.declare"
        return Text(t(lang, key, seat=seat(), cards=cards(), suit=suit_symbol(ev.get("suit"))))
    if kind == "trump":
        if ev.get("suit") is None:  # 无主 [I-30] says so; a suitless joker turn says nothing
            return Text(t(lang, "ev.no_trump"), style="bold") if ev.get("how") == "no-trump" \
                else None
        return Text(t(lang, "ev.trump", suit=suit_symbol(ev["suit"])), style="bold")
    if kind == "kitty_flip":
        return Text(t(lang, "ev.kitty_flip", cards=cards(), seat=seat("dealer")))
    if kind in ("tribute", "return"):
        given = cards()  # hidden from seats that neither give nor receive
        return Text(t(lang, f"ev.{kind}", seat=seat(), to=seat("to"), n=ev.get("n"),
                      cards=f"{t(lang, 'colon')}{given}" if given else ""))
    if kind == "tribute_cancelled":
        return Text(t(lang, "ev.tribute_cancelled", seat=seat("giver")))
    if kind == "kitty_shown":
        return Text(t(lang, "ev.kitty_shown", cards=cards()))
    if kind == "dry_pot":
        return Text(t(lang, "ev.dry_pot"), style="bold")
    if kind in ("take_kitty", "bury"):
        if cards():
            return Text(t(lang, f"ev.{kind}", seat=seat(), cards=cards()))
        return Text(t(lang, f"ev.{kind}.n", seat=seat(), n=ev.get("n")))
    if kind == "bury_jokers":
        return Text(t(lang, "ev.bury_jokers", seat=seat(), cards=cards(), take=cards("take")))
    if kind == "pass" and "n" not in ev:
        return Text(t(lang, "ev.pass_jokers", seat=seat()), style="dim")
    if kind == "play" and "attempted" in ev:
        return Text(t(lang, "ev.failed_throw", seat=seat(), cards=cards("attempted"),
                      played=cards()), style="bold red")
    if kind == "play_begins":
        return Text(t(lang, "ev.play_begins", seat=seat("leader")))
    if kind == "trick":
        return Text(t(lang, "ev.trick", n=ev.get("trick"), seat=seat("winner"),
                      p=ev.get("points")), style="dim" if not ev.get("points") else "")
    if kind == "hand_end":
        return Text(t(lang, "ev.hand_end", hand=ev.get("hand"), score=ev.get("score")),
                    style="bold")
    if kind == "match_end":
        return Text(t(lang, "ev.match_end"), style="bold")
    return None
