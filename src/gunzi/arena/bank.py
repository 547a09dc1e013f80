"""Deal banks: versioned JSON Lines files of seeded deals for duplicate play.

Line 1 is the header (bank id, version, file format, rules preset and options,
creation seed, number of deals, a SHA-256 digest of the deals); each further
line is one deal: its index ``i``, the hand ``seed`` (the engine derives the
deck order from it: ``gunzi.engine.actions.deal(seed)``), the ``dealer`` seat
and the ``level`` both teams play at (a rank index, as in the engine), plus
``deck``, a short digest of the deck order the engine derived when the bank was
made, so a later engine that derives other decks is caught instead of silently
playing other deals. docs/arena.md describes the format.

A bank is made once and never regenerated: later evaluations must play exactly
the same deals. To change anything, make a new bank with a new id or version.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gunzi.engine import actions as A
from gunzi.engine.errors import GunziError
from gunzi.engine.match import Match
from gunzi.engine.rules import Ruleset, from_options

KIND = "gunzi-deal-bank"
FORMAT = 1  # version of the file layout this code reads and writes
SEED_BITS = 53  # hand seeds stay exact in every JSON reader (IEEE doubles)
GENERATOR = (
    "random.Random(seed); per deal: seed = getrandbits(53), dealer = randrange(4), "
    "level = randint(first_level, last_level)"
)
NOTE = (
    "Never regenerate or edit this bank: evaluations are compared on exactly these deals. "
    "Make a new bank (new id or version) instead."
)


class BankError(GunziError):
    """A deal bank that cannot be read, does not match its digest, or does not fit the rules."""


def _rng(seed: int | str) -> random.Random:
    return random.Random(seed)  # noqa: S311 - reproducible deals on purpose


@dataclass(frozen=True)
class Deal:
    """One deal: the hand seed, the dealer seat and the level both teams play at."""

    index: int
    seed: int
    dealer: int
    level: int
    deck: str | None = None  # digest of the engine's deck order for this seed (None: unchecked)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"i": self.index, "seed": self.seed, "dealer": self.dealer,
                               "level": self.level}
        if self.deck is not None:
            out["deck"] = self.deck
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "deal") -> Deal:
        if not isinstance(data, Mapping):
            raise BankError(f"{where}: a deal must be a JSON object")
        values: dict[str, int] = {}
        for key in ("i", "seed", "dealer", "level"):
            value = data.get(key)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise BankError(f"{where}: {key!r} must be a non-negative integer, not {value!r}")
            values[key] = value
        if values["dealer"] > 3:
            raise BankError(f"{where}: 'dealer' must be a seat 0..3, not {values['dealer']}")
        deck = data.get("deck")
        if deck is not None and not isinstance(deck, str):
            raise BankError(f"{where}: 'deck' must be a digest string, not {deck!r}")
        return cls(values["i"], values["seed"], values["dealer"], values["level"], deck)


def start_hand(rules: Ruleset, deal: Deal) -> Match:
    """A match at the start of ``deal``: mid-round, both teams at the deal's level, no tribute."""
    match = Match(rules, _rng(deal.seed), auto_deal=False, levels=(deal.level, deal.level),
                  dealer=deal.dealer, blood=0)
    match.apply(A.deal(deal.seed))
    return match


def deck_digest(match: Match) -> str:
    """16 hex digits of SHA-256 over the hand's first deck order (card texts, space separated)."""
    for event in match.events:
        if event.type == "deal" and event.secret is not None:
            text = " ".join(event.secret["deck"])
            return hashlib.sha256(text.encode()).hexdigest()[:16]
    raise BankError("the match has no deal yet")


def check_deck(rules: Ruleset, deal: Deal, match: Match) -> None:
    """Raise if the engine no longer derives the deck the bank recorded for this deal."""
    if deal.deck is not None and deck_digest(match) != deal.deck:
        raise BankError(
            f"deal {deal.index} (seed {deal.seed}): the engine now derives a different deck "
            f"than when the bank was made (digest {deck_digest(match)} != {deal.deck}); the "
            f"deck derivation changed, so results are not comparable. Make a new bank."
        )


def generate_deals(rules: Ruleset, n: int, seed: int, *, digests: bool = True) -> list[Deal]:
    """The first ``n`` deals generated from ``seed`` (a prefix of any longer run, same seed)."""
    if n < 0:
        raise BankError("the number of deals cannot be negative")
    master = _rng(seed)
    deals = []
    for i in range(n):
        hand_seed = master.getrandbits(SEED_BITS)
        dealer = master.randrange(4)
        level = master.randint(rules.first_level, rules.last_level)
        deal = Deal(i, hand_seed, dealer, level)
        if digests:
            deal = Deal(i, hand_seed, dealer, level, deck_digest(start_hand(rules, deal)))
        deals.append(deal)
    return deals


def _canonical(deal: Deal) -> str:
    return json.dumps(deal.to_dict(), separators=(",", ":"), sort_keys=True)


def digest(deals: Iterable[Deal]) -> str:
    """SHA-256 over the deals' canonical JSON lines (so reformatting a file does not matter)."""
    h = hashlib.sha256()
    for deal in deals:
        h.update(_canonical(deal).encode())
        h.update(b"\n")
    return h.hexdigest()


@dataclass(frozen=True)
class Bank:
    """A loaded (or freshly made) deal bank."""

    id: str
    version: int
    rules: Ruleset
    seed: int
    deals: tuple[Deal, ...]
    path: Path | None = None
    header: Mapping[str, Any] = field(default_factory=dict)

    def take(self, n: int, offset: int = 0) -> list[Deal]:
        """Deals ``offset .. offset+n-1``; an error if the bank is too small."""
        if offset < 0 or n < 0:
            raise BankError("deal offset and count cannot be negative")
        if offset + n > len(self.deals):
            raise BankError(
                f"bank {self.id} has {len(self.deals)} deals; {n} deals from offset {offset} "
                f"need {offset + n}"
            )
        return list(self.deals[offset : offset + n])

    def check_rules(self, rules: Ruleset) -> None:
        if rules != self.rules:
            mine = self.rules.options()
            theirs = rules.options()
            diff = [k for k in mine if mine[k] != theirs.get(k)]
            what = f"options differ: {', '.join(diff)}" if diff else (
                f"preset {self.rules.name!r} != {rules.name!r}")
            raise BankError(f"bank {self.id} was made for rules {self.rules.name!r}; "
                            f"this run uses {rules.name!r} ({what})")

    def info(self) -> dict[str, Any]:
        return {"id": self.id, "version": self.version, "rules": self.rules.name,
                "seed": self.seed, "deals": len(self.deals),
                "path": None if self.path is None else str(self.path),
                "digest": self.header.get("digest")}


def default_id(rules: Ruleset, n: int, version: int = 1) -> str:
    return f"{rules.name}-v{version}-{n}"


def bank_header(bank_id: str, version: int, rules: Ruleset, seed: int,
                deals: Sequence[Deal]) -> dict[str, Any]:
    return {
        "type": KIND,
        "format": FORMAT,
        "id": bank_id,
        "version": version,
        "rules": rules.name,
        "options": rules.options(),
        "seed": seed,
        "deals": len(deals),
        "levels": [rules.first_level, rules.last_level],
        "generator": GENERATOR,
        "digest": digest(deals),
        "note": NOTE,
    }


def write_bank(path: Path, header: Mapping[str, Any], deals: Sequence[Deal]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        fh.write(json.dumps(header, ensure_ascii=False) + "\n")
        for deal in deals:
            fh.write(json.dumps(deal.to_dict(), separators=(", ", ": ")) + "\n")


def make_bank(rules: Ruleset, n: int, seed: int, path: Path | str, *, bank_id: str | None = None,
              version: int = 1, overwrite: bool = False) -> Bank:
    """Generate ``n`` deals from ``seed`` and write them to ``path`` (never over a bank)."""
    path = Path(path)
    if path.exists() and not overwrite:
        raise BankError(f"{path} exists; banks are never regenerated (make a new id or version)")
    if n < 1:
        raise BankError("a bank needs at least one deal")
    if version < 1:
        raise BankError("a bank version is a positive integer")
    deals = generate_deals(rules, n, seed)
    bank_id = bank_id or default_id(rules, n, version)
    header = bank_header(bank_id, version, rules, seed, deals)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_bank(path, header, deals)
    return Bank(bank_id, version, rules, seed, tuple(deals), path, header)


def _read_header(line: str, path: Path) -> dict[str, Any]:
    try:
        header = json.loads(line)
    except json.JSONDecodeError as exc:
        raise BankError(f"{path}: line 1 is not JSON ({exc.msg})") from None
    if not isinstance(header, dict) or header.get("type") != KIND:
        raise BankError(f"{path}: line 1 is not a deal-bank header (type {KIND!r})")
    fmt = header.get("format")
    if not isinstance(fmt, int) or fmt < 1:
        raise BankError(f"{path}: header 'format' must be a positive integer, not {fmt!r}")
    if fmt > FORMAT:
        raise BankError(f"{path}: bank format {fmt} is newer than this gunzi reads ({FORMAT}); "
                        "update gunzi")
    for key, kind in (("id", str), ("version", int), ("rules", str), ("options", dict),
                      ("seed", int), ("deals", int), ("digest", str)):
        if not isinstance(header.get(key), kind):
            raise BankError(f"{path}: header {key!r} missing or not a {kind.__name__}")
    return header


def load_bank(path: Path | str, *, check_decks: bool = False) -> Bank:
    """Read and verify a bank: header, deal count, indices, digest (and decks if asked)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BankError(f"cannot read bank {path}: {exc.strerror}") from None
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        raise BankError(f"{path}: empty file, not a deal bank")
    header = _read_header(lines[0], path)
    try:
        rules = from_options({**header["options"], "name": header["rules"]})
    except GunziError as exc:
        raise BankError(f"{path}: header rules cannot be rebuilt: {exc}") from None
    deals: list[Deal] = []
    for n, line in enumerate(lines[1:], start=2):
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BankError(f"{path}: line {n} is not JSON ({exc.msg})") from None
        deal = Deal.from_dict(data, f"{path}: line {n}")
        if deal.index != len(deals):
            raise BankError(f"{path}: line {n} has deal index {deal.index}, expected {len(deals)}")
        if not rules.first_level <= deal.level <= rules.last_level:
            raise BankError(f"{path}: line {n}: level {deal.level} is outside "
                            f"{rules.first_level}..{rules.last_level} for {rules.name}")
        deals.append(deal)
    if len(deals) != header["deals"]:
        raise BankError(f"{path}: header says {header['deals']} deals, the file has {len(deals)}")
    if digest(deals) != header["digest"]:
        raise BankError(f"{path}: the deals do not match the header digest; the bank was edited "
                        "or damaged (banks are never edited)")
    if check_decks:
        for deal in deals:
            check_deck(rules, deal, start_hand(rules, deal))
    return Bank(header["id"], header["version"], rules, header["seed"], tuple(deals), path, header)


def generated_bank(rules: Ruleset, n: int, seed: int) -> Bank:
    """An in-memory bank for runs without ``--bank``: the same generator as :func:`make_bank`.

    Its id is ``generated:<rules>:seed=<seed>``; the first ``n`` deals equal those of a bank
    made with the same rules and seed.
    """
    deals = generate_deals(rules, n, seed, digests=False)
    bank_id = f"generated:{rules.name}:seed={seed}"
    return Bank(bank_id, 0, rules, seed, tuple(deals), None,
                bank_header(bank_id, 0, rules, seed, deals))
