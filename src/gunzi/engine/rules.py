"""Rule sets as data: frozen, validated, with named presets.

Every interpretation marked [I-n] in docs/rules.md is an option here with the
default docs/rules.md states, and so are the regional variants of 打滚子. A table,
a record header and a simulation all carry a :class:`Ruleset`, so two games
with equal rule sets are played by the same rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from gunzi.engine.errors import InvalidRulesError
from gunzi.engine.options import Catalog, Option

GUNZI = "gunzi"
CLASSIC = "classic"


def _variant(name: str, values: tuple[Any, ...], clause: str, doc: str) -> Option:
    """A classic 升级 variant option (issue 16): records state it from format version 2."""
    return Option(name, values, clause, doc, since=2)


OPTIONS: dict[str, Option] = {
    o.name: o
    for o in (
        Option("game", (GUNZI, CLASSIC), "A/B", "打滚子 (Part A) or classic 升级 (Part B)."),
        Option("decks", (1, 2, 3), "A1/B", "Number of decks; 打滚子 always uses 3."),
        Option("permanent_twos", (True, False), "A2",
               "2s are permanent trumps (常主); regional 打滚子 option."),
        Option("follow", ("dead", "live"), "A7",
               "死棒 'dead': pair/triple shapes must be followed; 活棒 'live': suit class only."),
        Option("tribute_rule", ("one", "two"), "A11", "Blood table: rule one or rule two."),
        Option("keep_deal", ("same-player", "partner"), "A9 [I-8]",
               "Who deals when the dealer team keeps the deal."),
        Option("attackers_pass_ten", (False, True), "A3 [I-1]",
               "Attackers at 10 who win 上台 pass 10 at once (True) or take the deal at 10."),
        Option("declare_asks", ("every-draw", "end-only"), "A4 [I-2]",
               "Ask seats to declare after every drawn card, or only in the final window."),
        Option("bj_suit_fallback", ("kitty-turn", "redeal"), "A4.1 [I-3]",
               "A BJ declarer drew no suited card after declaring: first suited kitty card, "
               "or a new deal."),
        Option("flip_all_jokers", ("redeal", "turn-more"), "A4.1 [I-4]",
               "All four turned kitty cards are jokers: deal again, or keep turning kitty cards."),
        Option("first_hand_tribute", (False, True), "A5 [I-5]",
               "Whether the first hand of a round has a tribute."),
        Option("return_fill", ("non-point-first", "any"), "A5 [I-6]",
               "Returning with too few non-point side cards: other non-point cards first, "
               "or any cards."),
        Option("dry_pot", ("no-trump-suit", "no-trump"), "A6.2 [I-7]",
               "干锅 when the shown kitty is all trumps, or has no card of the trump suit "
               "('no-trump-suit'), or has no trump at all ('no-trump')."),
        Option("three_bj_dealer_wins", (True, False), "A10 [I-9]",
               "Three BJ in the kitty with 保底 and score < 120 end the round for the "
               "dealer team."),
        Option("blood_tens", ("ceil", "floor"), "A11 [I-10]",
               "'Every 10 points' counts whole or part tens (ceil) or whole tens only (floor)."),
        Option("low_score_kitty_blood", ("if-held", "always"), "A11 [I-11]",
               "Rule one, s < 80: kitty-joker blood is added only when the dealer team 保底, "
               "or always."),
        Option("joker_declarations", (True, False), "A4.2 [I-12]",
               "Three LJ / three BJ may declare (打滚子); classic 升级 excludes them."),
        Option("score_levels_before_cap", (True, False), "A12 [I-16]",
               "Per-hand scores count the levels A8 awards before the cap at 10."),
        Option("takeover_dealer", ("next-seat",), "A9 [I-17]",
               "Attackers take the deal: the old dealer's 下家 deals; classic follows A9, "
               "whose keep rule is keep_deal. One value: named so every record states it."),
        Option("joker_bury_order", ("after-dealer", "before-dealer"), "A6.4 [I-18]",
               "Others bury jokers starting from the dealer's 下家, or from its 上家 backwards."),
        Option("round_end_score", ("with-kitty", "tricks-only"), "A10 [I-19]",
               "The 300-point round end counts the doubled kitty, or trick points only."),
        Option("kitty_multiplier", ("doubling", "linear", "two", "unit-size", "power"),
               "A8/B [I-31]",
               "Kitty capture multiplier: classic 'doubling'/'linear', or ×2 × the cards of "
               "the winning play's largest unit ('unit-size'), or 2 ** those cards ('power'); "
               "打滚子 always ×2 ('two')."),
        _variant("trump_structure", ("same", "cover", "cover-triples"), "B [I-20]",
                 "A trump play beats a side-suit combination when its units equal the lead's "
                 "('same'), or when it can be arranged to cover every unit of the lead "
                 "('cover'; 'cover-triples': a triple may also cover a pair)."),
        _variant("throw_compare", ("highest-unit", "every-unit", "highest-card"), "B [I-21]",
                 "Several trumped throws: the one whose strongest unit is highest, the one each "
                 "of whose units beats the other's, or the one with the highest single card."),
        _variant("throw_reading", ("longest-first",), "B [I-22]",
                 "A throw is read into parts: longest triple tractors, triples, longest pair "
                 "tractors, pairs, then singles. One value: named so every record states it."),
        _variant("tractor_min_length", (2, 3), "B [I-23]",
                 "Fewest pairs (or triples) that make a tractor."),
        _variant("triple_tractors", (True, False), "B [I-24]",
                 "Consecutive triples form tractors (3 decks); False: they stay separate triples."),
        _variant("break_longer_tractor", (True, False), "B [I-25]",
                 "A follower must take a shorter tractor out of a longer one it holds; False: a "
                 "tractor longer than the lead's obliges nothing beyond its pairs."),
        _variant("short_tractor_follow", ("tractor", "pairs"), "B [I-26]",
                 "A follower without a tractor as long as the lead's must play a shorter one "
                 "('tractor'), or only as many pairs as it can, from any ranks ('pairs')."),
        _variant("draw_protection", ("none", "longer-tuples", "no-format"), "B [I-27]",
                 "Trick draw policy: a held triple must be split to follow pairs ('none'), a "
                 "longer tuple is never drawn to follow a shorter one ('longer-tuples'), or no "
                 "shape is owed, only the led suit class ('no-format')."),
        _variant("throw_penalty", ("ladder", "none", "points-5", "points-10", "points-20",
                                   "points-30", "points-40"), "B [I-28]",
                 "A failed throw costs the thrower 1 ladder point, nothing, or that many card "
                 "points to its team's opponents ('points-N')."),
        _variant("must_defend", ("A", "none", "5-10-K-A", "5-10-K"), "B [I-29]",
                 "Levels a gain stops on and that a team leaves only by winning as the dealer "
                 "team ('none': a gain past A ends the game at once)."),
        _variant("no_declaration", ("kitty-card", "no-trump"), "B [I-30]",
                 "Nobody declares: a kitty card names the trump suit, or the hand is played "
                 "with no trump suit (无主: jokers and level cards are the trumps)."),
        Option("rounds", (1, 2, 3, 4, 5, 6, 8, 10), "A3",
               "Rounds in a match (打滚子; a classic game is one round, 2 to passing A)."),
        Option("duplicate", (0, 1, 2, 3, 4, 6, 8, 12, 16, 24), "复式 (issue 5)",
               "0: an ordinary match. N: a duplicate (复式) match of N boards; each deal is "
               "played twice, the second time one seat on, so each team holds the cards "
               "and role the other team had; every hand starts at the first level with "
               "no tribute.",
               # Added late in format version 1: version-1 records made before it (three of
               # tests/golden) leave it out and were played by its default, an ordinary
               # match; a duplicate match's record states it, and its boards show it.
               since=2),
    )
}


@dataclass(frozen=True)
class Ruleset:
    """A complete, validated set of rules. Build one with :func:`preset` or :func:`make`."""

    name: str = "gunzi"
    game: str = GUNZI
    decks: int = 3
    permanent_twos: bool = True
    follow: str = "dead"
    tribute_rule: str = "one"
    keep_deal: str = "same-player"
    attackers_pass_ten: bool = False
    declare_asks: str = "every-draw"
    bj_suit_fallback: str = "kitty-turn"
    flip_all_jokers: str = "redeal"
    first_hand_tribute: bool = False
    return_fill: str = "non-point-first"
    dry_pot: str = "no-trump-suit"
    three_bj_dealer_wins: bool = True
    blood_tens: str = "ceil"
    low_score_kitty_blood: str = "if-held"
    joker_declarations: bool = True
    score_levels_before_cap: bool = True
    takeover_dealer: str = "next-seat"
    joker_bury_order: str = "after-dealer"
    round_end_score: str = "with-kitty"
    kitty_multiplier: str = "two"
    trump_structure: str = "same"
    throw_compare: str = "highest-unit"
    throw_reading: str = "longest-first"
    tractor_min_length: int = 2
    triple_tractors: bool = True
    break_longer_tractor: bool = True
    short_tractor_follow: str = "tractor"
    draw_protection: str = "none"
    throw_penalty: str = "ladder"
    must_defend: str = "A"
    no_declaration: str = "kitty-card"
    rounds: int = 1
    duplicate: int = 0
    # Derived from game and decks; not options.
    hand_size: int = field(default=39, init=False)
    kitty_size: int = field(default=6, init=False)
    total_points: int = field(default=300, init=False)
    first_level: int = field(default=1, init=False)
    last_level: int = field(default=8, init=False)

    def __post_init__(self) -> None:
        for key, opt in OPTIONS.items():
            opt.check(getattr(self, key))
        if self.game == GUNZI:
            if self.decks != 3:
                raise InvalidRulesError("打滚子 is played with 3 decks (decks=3)")
            if self.kitty_multiplier != "two":
                raise InvalidRulesError("打滚子 doubles the kitty once: kitty_multiplier='two'")
            changed = [k for k in CLASSIC_ONLY if getattr(self, k) != OPTIONS[k].values[0]]
            if changed:
                raise InvalidRulesError(
                    f"{', '.join(changed)}: classic 升级 rules (Part B: tractors, throws, "
                    "trumping, level stops, 无主) that 打滚子 does not have; leave them at "
                    f"their defaults ({_defaults(changed)})")
            sizes = (39, 6, 300, 1, 8)  # levels 3..10 as rank indices 1..8
        else:
            if self.kitty_multiplier == "two":
                raise InvalidRulesError(
                    "kitty_multiplier 'two' is 打滚子's; classic 升级 uses 'doubling', "
                    "'linear', 'unit-size' or 'power'")
            if self.permanent_twos:
                raise InvalidRulesError("classic 升级 has no permanent 2s (permanent_twos=False)")
            if self.follow != "dead":
                raise InvalidRulesError("classic 升级 follows shapes; 'live' is a 打滚子 option")
            changed = [k for k in GUNZI_ONLY if getattr(self, k) != OPTIONS[k].values[0]]
            if changed:
                raise InvalidRulesError(
                    f"{', '.join(changed)}: 打滚子 rules (Part A: the first-hand big-joker "
                    "grab, tribute, 干锅, joker burying, blood and round ends) that classic "
                    f"升级 does not have; leave them at their defaults ({_defaults(changed)})")
            _check_classic_variants(self)
            sizes = {1: (12, 6, 100, 0, 12), 2: (25, 8, 200, 0, 12), 3: (39, 6, 300, 0, 12)}[
                self.decks
            ]
        for attr, value in zip(
            ("hand_size", "kitty_size", "total_points", "first_level", "last_level"),
            sizes,
            strict=True,
        ):
            object.__setattr__(self, attr, value)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its constructor's fields and rebuilt by the constructor (the sizes
        recomputed). The default pickling sets the fields one by one, which a frozen class
        compiled by mypyc (``make fast``) refuses: spawned arena workers then died at
        start, over and over, and the arena waited for them forever."""
        return (_rebuild, (tuple((f.name, getattr(self, f.name)) for f in fields(self)
                                 if f.init),))

    @property
    def is_gunzi(self) -> bool:
        return self.game == GUNZI

    @property
    def throw_penalty_points(self) -> int:
        """[I-28] card points a failed throw gives the thrower's opponents (0: none)."""
        kind, _, n = self.throw_penalty.partition("-")
        return int(n) if kind == "points" else 0

    def options(self) -> dict[str, Any]:
        """The options as plain data (for record headers and the web)."""
        return {key: getattr(self, key) for key in OPTIONS}

    def replace(self, **changes: Any) -> Ruleset:
        """A copy with some options changed (validated like any rule set)."""
        return make(self.name, **{**self.options(), **changes})


# Options of Part A clauses that Part B lacks: a classic rule set keeps their defaults, so
# `-o tribute_rule=two` on classic-2 is refused instead of silently changing nothing.
GUNZI_ONLY = (
    "tribute_rule", "attackers_pass_ten", "bj_suit_fallback", "first_hand_tribute",
    "return_fill", "dry_pot", "three_bj_dealer_wins", "blood_tens", "low_score_kitty_blood",
    "score_levels_before_cap", "joker_bury_order", "round_end_score",
)


# Options of Part B that Part A lacks (打滚子 has no tractors, throws or level stops).
CLASSIC_ONLY = (
    "trump_structure", "throw_compare", "tractor_min_length", "triple_tractors",
    "break_longer_tractor", "short_tractor_follow", "draw_protection", "throw_penalty",
    "must_defend", "no_declaration",
)


def _defaults(keys: list[str]) -> str:
    """``key=value`` of each option's default: the one value a refused option may keep."""
    return ", ".join(f"{k}={OPTIONS[k].values[0]!r}" for k in keys)


def _check_classic_variants(rules: Ruleset) -> None:
    """Refuse classic variants that would change nothing, so no table names a dead option;
    each message names the option and the values this number of decks can play."""
    decks = rules.decks
    if decks == 1:
        protected = ("break_longer_tractor", "short_tractor_follow", "tractor_min_length",
                     "trump_structure", "draw_protection")
        changed = [k for k in protected if getattr(rules, k) != OPTIONS[k].values[0]]
        if changed:
            raise InvalidRulesError(
                f"{', '.join(changed)}: one deck has no pairs, so no tractors or shapes to vary; "
                f"with 1 deck only {_defaults(changed)}")
    if decks < 3:
        if not rules.triple_tractors:
            raise InvalidRulesError("triple_tractors: triples exist only with 3 decks; with "
                                    f"{decks} it stays {_defaults(['triple_tractors'])}")
        if rules.trump_structure == "cover-triples":
            raise InvalidRulesError("trump_structure 'cover-triples': triples exist only "
                                    f"with 3 decks; with {decks} use 'same' or 'cover'")
        if rules.draw_protection == "longer-tuples":
            raise InvalidRulesError("draw_protection 'longer-tuples': with fewer than 3 decks "
                                    "no tuple is longer than a pair; use 'none' or "
                                    "'no-format'")


def _classic(decks: int) -> dict[str, Any]:
    return {
        "game": CLASSIC,
        "decks": decks,
        "permanent_twos": False,
        "joker_declarations": False,
        "kitty_multiplier": "linear" if decks == 3 else "doubling",
    }


PRESETS: dict[str, dict[str, Any]] = {
    "gunzi": {},
    "classic-1": _classic(1),
    "classic-2": _classic(2),
    "classic-3": _classic(3),
}


CATALOG: Catalog[Ruleset] = Catalog(Ruleset, OPTIONS, PRESETS)
make = CATALOG.make
preset = CATALOG.preset
from_options = CATALOG.from_options
parse_option_value = CATALOG.parse_option_value


def _rebuild(items: tuple[tuple[str, Any], ...]) -> Ruleset:
    """A pickled :class:`Ruleset` (:meth:`Ruleset.__reduce__`)."""
    return Ruleset(**dict(items))


def with_overrides(rules: Ruleset, pairs: list[str]) -> Ruleset:
    """Apply ``key=value`` overrides from a command line."""
    changes = CATALOG.parse_overrides(pairs)
    return rules.replace(**changes) if changes else rules


__all__ = [
    "CLASSIC",
    "GUNZI",
    "OPTIONS",
    "PRESETS",
    "Option",
    "Ruleset",
    "from_options",
    "make",
    "preset",
    "with_overrides",
]
