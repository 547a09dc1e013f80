"""Deal banks: round trip, prefix stability, versioning, integrity, and the committed banks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gunzi.arena.bank import (
    FORMAT,
    Bank,
    BankError,
    Deal,
    check_deck,
    deck_digest,
    generate_deals,
    generated_bank,
    load_bank,
    make_bank,
    start_hand,
)
from gunzi.engine.rules import preset

BANKS = Path(__file__).resolve().parents[2] / "banks"


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_round_trip(tmp_path: Path) -> None:
    rules = preset("gunzi")
    path = tmp_path / "b.jsonl"
    made = make_bank(rules, 12, 7, path)
    assert made.id == "gunzi-v1-12" and made.version == 1
    loaded = load_bank(path, check_decks=True)
    assert loaded.deals == made.deals
    assert loaded.rules == rules and loaded.seed == 7 and loaded.id == made.id
    head = json.loads(_lines(path)[0])
    assert head["type"] == "gunzi-deal-bank" and head["format"] == FORMAT
    assert head["deals"] == 12 and head["rules"] == "gunzi" and head["seed"] == 7
    assert len(_lines(path)) == 13
    for i, deal in enumerate(loaded.deals):
        assert deal.index == i and 0 <= deal.dealer <= 3
        assert rules.first_level <= deal.level <= rules.last_level
        assert deal.seed < 2**53 and deal.deck is not None and len(deal.deck) == 16


def test_same_seed_same_deals_and_prefix() -> None:
    rules = preset("classic-2")
    long = generate_deals(rules, 30, 5)
    assert generate_deals(rules, 10, 5) == long[:10]
    assert generate_deals(rules, 10, 6) != long[:10]
    # Runs without --bank use the same generator (without deck digests).
    gen = generated_bank(rules, 30, 5)
    assert [(d.seed, d.dealer, d.level) for d in gen.deals] == [
        (d.seed, d.dealer, d.level) for d in long]
    assert {d.level for d in long} <= set(range(0, 13))


def test_custom_id_and_version(tmp_path: Path) -> None:
    made = make_bank(preset("classic-2"), 3, 1, tmp_path / "c.jsonl", bank_id="mine", version=2)
    loaded = load_bank(tmp_path / "c.jsonl")
    assert (loaded.id, loaded.version) == ("mine", 2) == (made.id, made.version)


def test_never_overwrites(tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    make_bank(preset("gunzi"), 2, 1, path)
    before = path.read_text()
    with pytest.raises(BankError, match="never regenerated"):
        make_bank(preset("gunzi"), 2, 2, path)
    assert path.read_text() == before


def _rewrite(path: Path, lines: list[str]) -> None:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_newer_format_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    make_bank(preset("gunzi"), 2, 1, path)
    lines = _lines(path)
    head = json.loads(lines[0])
    head["format"] = FORMAT + 1
    _rewrite(path, [json.dumps(head), *lines[1:]])
    with pytest.raises(BankError, match="newer"):
        load_bank(path)


def test_edited_deal_is_caught(tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    make_bank(preset("gunzi"), 3, 1, path)
    lines = _lines(path)
    deal = json.loads(lines[2])
    deal["dealer"] = (deal["dealer"] + 1) % 4
    _rewrite(path, [lines[0], lines[1], json.dumps(deal), lines[3]])
    with pytest.raises(BankError, match="digest"):
        load_bank(path)


def test_missing_deal_and_bad_files(tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    make_bank(preset("gunzi"), 3, 1, path)
    lines = _lines(path)
    _rewrite(path, lines[:-1])
    with pytest.raises(BankError, match="3 deals"):
        load_bank(path)
    _rewrite(path, ['{"type": "something else"}'])
    with pytest.raises(BankError, match="header"):
        load_bank(path)
    _rewrite(path, [lines[0], lines[2]])
    with pytest.raises(BankError, match="index"):
        load_bank(path)
    with pytest.raises(BankError, match="cannot read"):
        load_bank(tmp_path / "missing.jsonl")


def test_deck_digest_detects_a_different_derivation() -> None:
    rules = preset("gunzi")
    deal = generate_deals(rules, 1, 3)[0]
    match = start_hand(rules, deal)
    assert deck_digest(match) == deal.deck
    check_deck(rules, deal, match)
    wrong = Deal(deal.index, deal.seed, deal.dealer, deal.level, "0" * 16)
    with pytest.raises(BankError, match="different deck"):
        check_deck(rules, wrong, match)


def test_rules_must_match() -> None:
    bank = generated_bank(preset("gunzi"), 2, 1)
    bank.check_rules(preset("gunzi"))
    with pytest.raises(BankError, match="follow"):
        bank.check_rules(preset("gunzi", follow="live"))
    with pytest.raises(BankError, match="classic-2"):
        bank.check_rules(preset("classic-2"))


def test_take() -> None:
    bank = generated_bank(preset("gunzi"), 5, 1)
    assert [d.index for d in bank.take(2, 3)] == [3, 4]
    with pytest.raises(BankError, match="has 5 deals"):
        bank.take(3, 3)


@pytest.mark.parametrize(("name", "rules", "n"), [
    ("gunzi-v1-2000.jsonl", "gunzi", 2000),
    ("classic-2-v1-1000.jsonl", "classic-2", 1000),
])
def test_committed_banks(name: str, rules: str, n: int) -> None:
    bank: Bank = load_bank(BANKS / name)
    assert bank.rules == preset(rules) and len(bank.deals) == n
    assert bank.id == name.removesuffix(".jsonl") and bank.version == 1
    # The engine still derives the decks recorded when the bank was made (first 200 here).
    for deal in bank.deals[:200]:
        check_deck(bank.rules, deal, start_hand(bank.rules, deal))
    # The committed banks are what make_bank gives for the documented seed.
    assert list(bank.deals[:50]) == generate_deals(bank.rules, 50, bank.seed)
