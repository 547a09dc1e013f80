"""Engine errors as the player reads them: every form a player can provoke has a Chinese
and an English wording, with cards as shown in the hand and no record notation."""

from __future__ import annotations

import random
import re

from gunzi.engine import actions as A
from gunzi.engine import cards as C
from gunzi.engine.actions import Action, Kind
from gunzi.engine.match import Match
from gunzi.engine.rules import preset
from gunzi.tui.session import Session, stacked_first_deck
from gunzi.wording.errors import MESSAGES, REASONS, engine_error, known

RULE_REF = re.compile(r" \[[^\[\]]*\]$")


def _candidates(m: Match, rng: random.Random) -> list[Action]:
    """Wrong answers seat 0 could give to its decision: random cards from its hand (some of
    them not held), wrong counts, jokers, passes and other kinds of action."""
    hand = C.expand(m.hands[0])
    out: list[Action] = [A.pass_(0), A.play(0, ()), A.bury(0, hand[:1])]
    for _ in range(40):
        k = rng.choice([1, 2, 3, 4, m.tribute_n or 2, m.rules.kitty_size, rng.randint(1, 8)])
        cards = rng.sample(hand, min(k, len(hand)))
        if rng.random() < 0.2:
            cards[0] = rng.randrange(C.NUM_TYPES)  # likely not held
        kind = rng.choice([Kind.DECLARE, Kind.TRIBUTE, Kind.RETURN, Kind.BURY, Kind.PLAY,
                           Kind.BURY_JOKERS])
        if kind is Kind.DECLARE:
            jokers = [rng.choice([C.LJ, C.BJ])] * rng.randint(1, 3)
            out.append(A.declare(0, rng.choice([cards, jokers]), rng.choice([-1, 0, 2])))
        elif kind is Kind.BURY_JOKERS:
            jokers = rng.choice([[C.LJ], [C.LJ, C.BJ], [C.BJ, C.BJ], cards])
            take = tuple(rng.sample(m.kitty, min(len(m.kitty), len(jokers)))) \
                if rng.random() < 0.5 and m.kitty else ()
            out.append(A.bury_jokers(0, jokers, take))
        else:
            maker = {Kind.TRIBUTE: A.tribute, Kind.RETURN: A.return_, Kind.BURY: A.bury,
                     Kind.PLAY: A.play}[kind]
            out.append(maker(0, cards))
    return out


def _errors(rules: str, seed: int, hands: int = 1, first: str | None = None,
            **match: object) -> set[str]:
    """The engine's texts for wrong answers at every decision of seat 0 over a few hands
    (``first``: cards seat 0 draws first in hand 1, the first drawer being the dealer)."""
    ruleset = preset(rules)
    m = Match(ruleset, auto_deal=False, **match)  # type: ignore[arg-type]
    starter = 0 if m.dealer is None else m.dealer
    deck = None if first is None else stacked_first_deck(
        ruleset, starter, [first if s == 0 else None for s in range(4)])
    session = Session(bots=["random"] * 3, seed=seed, match=m, first_deck=deck,
                      first_seat=0 if first is not None and m.dealer is None else None)
    rng = random.Random(seed)
    seen: set[str] = set()
    while len(m.results) < hands and not session.is_over:
        session.run_bots()
        if session.summary is not None:
            session.acknowledge()
            continue
        for action in _candidates(m, rng):
            err = session.check(action)
            if err is not None:
                seen.add(err)
        assert session.human(m.legal_actions(0).sample(rng)) is None
    return seen


def _player_text(err: str, lang: str) -> str:
    return RULE_REF.sub("", engine_error(err, lang))


def test_every_provoked_error_has_a_wording() -> None:
    errors = (
        _errors("gunzi", 3, first="BJ 3H")  # grabbing the big joker in a first hand
        | _errors("gunzi", 4, levels=(1, 1), dealer=0, blood=3)  # return
        | _errors("gunzi", 5, levels=(1, 1), dealer=1, blood=2, first="LJ LJ LJ 3S 3S")
        | _errors("gunzi", 8, levels=(1, 1), dealer=1, first="BJ BJ LJ")  # bury jokers
        | _errors("classic-2", 6, hands=3) | _errors("classic-3", 7, hands=2)
    )
    unknown = sorted(e for e in errors if not known(e))
    assert not unknown, unknown
    for err in errors:
        zh = _player_text(err, "zh")
        en = _player_text(err, "en")
        # No English words or record notation in Chinese, no seat numbers in either.
        assert not re.search(r"[A-Za-z]{2,}", zh), (err, zh)
        assert "seat" not in en and not re.search(r"\b(?:10|[2-9JQKA])[SHCD]\b", en), (err, en)


def test_wordings() -> None:
    err = ("seat 0 follows with AC KD: must follow diamonds with 2 card(s): holds 6D 8D 9D "
           "KD AD [A7]")
    assert engine_error(err, "zh") == "跟牌 A♣ K♦：必须跟 2 张方块：你有 6♦ 8♦ 9♦ K♦ A♦ [A7]"
    assert engine_error(err, "en") == ("Follow with A♣ K♦: you must follow diamonds with 2 "
                                       "card(s): you hold 6♦ 8♦ 9♦ K♦ A♦ [A7]")
    tie = ("seat 0 tributes 3S AS: must give its 2 biggest non-point cards: 3S is not one of "
           "them (choose 1 of 9S 9H after AS) [A5]")
    assert engine_error(tie, "zh") == \
        "进贡 3♠ A♠：要进贡最大的 2 张非分牌：3♠ 不在其中（A♠ 之外，从 9♠ 9♥ 中选 1 张） [A5]"
    # brief: only the reason (the app fills a selection up to explain a refused card).
    assert engine_error(tie, "en", brief=True) == ("you must give your 2 biggest non-point "
                                                   "cards: 3♠ is not one of them (A♠, then "
                                                   "choose 1 of 9♠ 9♥) [A5]")
    mixed = "seat 0 leads 2C AD: a lead must be all of one suit class, not diamonds (AD), " \
            "trumps (2C) [B]"
    assert engine_error(mixed, "zh") == \
        "首出 2♣ A♦：首出必须是同一门的牌，不能混出 方块 A♦、主牌 2♣ [B]"
    ret = ("seat 0 returns 5S 3H: the return must be 2 side cards that are not point cards (1 "
           "such card(s) here, then 1 other non-point card(s)) [A5/I-6]")
    # "(1 such card(s) here)" is how many the return needs, not how many the hand holds.
    assert engine_error(ret, "zh") == ("还牌 5♠ 3♥：还牌要 2 张不是分牌的副牌（这次要还 1 张这样的"
                                       "牌，再还 1 张其他非分牌） [A5/I-6]")
    assert engine_error(ret, "en") == ("Return 5♠ 3♥: the return must be 2 side cards that are "
                                       "not point cards (here: 1 such card(s) required, then 1 "
                                       "other non-point card(s)) [A5/I-6]")
    assert engine_error("seat 0 buries no cards: must bury 6 cards, not 0 [A6.3]", "en") == \
        "Bury nothing: you must bury 6 cards, not 0 [A6.3]"
    pairs = ("seat 0 follows with 3S 4S 5S 6S: must play 2 pairs of spades: holds 3S 3S 4S 4S "
             "(plays 1) [B]")
    assert engine_error(pairs, "zh") == ("跟牌 3♠ 4♠ 5♠ 6♠：必须出黑桃的2个对子：你有 3♠ 3♠ 4♠ 4♠"
                                         "（你只出了 1 个） [B]")
    weak = ("seat 0: 4H is not stronger than the standing declaration 4S 4S by seat 3 [A4.2]")
    assert engine_error(weak, "zh") == "4♥ 不比上家亮的 4♠ 4♠ 大 [A4.2]"
    assert engine_error(weak, "en") == \
        "4♥ does not beat the standing declaration 4♠ 4♠ (West) [A4.2]"
    # A form unknown here: a Chinese sentence with the clause, or the English made readable.
    assert engine_error("seat 2 does something new with AS [A9]", "zh") == "这样不符合规则 [A9]"
    assert engine_error("seat 2 does something new with AS [A9]", "en") == \
        "North does something new with A♠ [A9]"


def test_chinese_wordings_use_full_width_punctuation() -> None:
    """Chinese card rooms print ，：；（）; an ASCII comma or colon reads as a typo there."""
    for _, _, zh, _ in REASONS + MESSAGES:
        assert not re.search(r"[,:;()]", zh), zh


def test_terminal_chinese_texts_use_full_width_punctuation() -> None:
    """The terminal's own Chinese labels and help follow the same house style; a lone "?"
    is the help key's name, so it stays ASCII where it names the key."""
    from gunzi.tui.board_app import TEXTS
    from gunzi.tui.i18n import HELP, TEXT

    texts = [*TEXT["zh"].values(), *TEXTS["zh"].values(), *(line for _, line in HELP["zh"])]
    assert len(texts) > 100
    for zh in texts:
        assert not re.search(r"[,:;()!]", zh), zh
        assert not re.search(r"\?(?! )", zh.replace(" ? ", "")), zh


def test_partly_held_cards_say_what_the_hand_holds() -> None:
    text = "seat 0 leads 3S 3S 3S: does not hold 3S 3S 3S (holds only 3S) [A7]"
    assert engine_error(text, "zh") == "首出 3♠ 3♠ 3♠：你手里没有 3♠ 3♠ 3♠（只有 3♠） [A7]"
    assert engine_error(text, "en") == \
        "Lead 3♠ 3♠ 3♠: you do not hold 3♠ 3♠ 3♠ (you hold only 3♠) [A7]"
    assert engine_error("seat 0 leads AS AS: does not hold AS AS [A7]", "en") == \
        "Lead A♠ A♠: you do not hold A♠ A♠ [A7]"


def _board_error(moves: list[tuple[int, str]], seat: int, text: str) -> str:
    from gunzi.engine.errors import GunziError
    from gunzi.quoridor.game import QuoridorGame
    from gunzi.quoridor.rules import preset as board_preset

    g = QuoridorGame(board_preset("quoridor-2"))
    for s, t in moves:
        g.apply_text(s, t)
    try:
        g.apply_text(seat, text)
    except GunziError as exc:
        return str(exc)
    raise AssertionError(f"{text} was accepted")


def test_board_wall_errors_name_the_wall_in_the_way() -> None:
    crossing = _board_error([(0, "e8h")], 1, "e8v")
    assert crossing == "wall e8v crosses wall e8h at its middle [D walls]"
    assert engine_error(crossing, "zh") == \
        "木块 e8v 与木块 e8h 在中点十字交叉：两块木块不能交叉 [D walls]"
    assert engine_error(crossing, "en") == \
        "wall e8v would cross wall e8h at its middle: walls may not cross [D walls]"
    overlap = _board_error([(0, "e8h")], 1, "f8h")
    assert "与木块 e8h 重叠" in engine_error(overlap, "zh")
    assert "overlaps wall e8h" in engine_error(overlap, "en")


def test_every_board_error_a_player_meets_has_both_wordings() -> None:
    # Pawns start at e1 (seat 0) and e9 (seat 1).
    cases = [
        ([(0, "e8h")], 1, "e8v"), ([(0, "e8h")], 1, "d8h"), ([], 0, "i1h"), ([], 0, "e1"),
        ([], 0, "e3"), ([], 1, "e8"), ([(0, "e1h"), (1, "e8")], 0, "e2"),
        ([(0, "d1v"), (1, "a8h"), (0, "e1v")], 1, "e2h"),  # boxes seat 0 in e1-e2
    ]
    for moves, seat, text in cases:
        err = _board_error(moves, seat, text)
        assert known(err), err
        zh = engine_error(err, "zh")
        assert not re.search(r"[a-zA-Z]{3,}", RULE_REF.sub("", zh)), zh  # no English words
        assert engine_error(err, "en") != "", err
