"""GET /rules: the rules document as a page, with a table's or a rule set's options marked;
bad input is a clear 400/404 page in the asked language and never a 500."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from .util import cookie_guest

ACTIVE = re.compile(r'<div class="rule-option active" id="([^"]+)" data-option="([a-z_]+)">')


def test_plain_page_in_both_languages_marks_nothing(client: TestClient) -> None:
    en = client.get("/rules?lang=en")
    zh = client.get("/rules")  # the hall's default language
    assert en.status_code == zh.status_code == 200
    assert "<h1>Rules of the games</h1>" in en.text and '<html lang="en">' in en.text
    assert "<h1>游戏规则</h1>" in zh.text and '<html lang="zh-CN">' in zh.text
    assert not ACTIVE.search(en.text) and "table-value" not in en.text
    assert '<a href="/rules?lang=zh">rules.zh.md</a>' in en.text  # its link, made a page's


def test_table_with_a_changed_option(client: TestClient) -> None:
    owner = cookie_guest(client)
    r = client.post("/api/tables", json={"preset": "classic-2",
                                         "options": {"keep_deal": "partner"}}, headers=owner)
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    page = client.get(f"/rules?lang=en&table={tid}").text
    assert ACTIVE.findall(page) == [("I-8", "keep_deal")]
    assert f"Table {tid} plays preset classic-2" in page
    # classic-2's own defaults are not "changes": joker_declarations is false there.
    block = page.split('id="I-12"', 1)[1].split("</div>", 1)[0]
    assert "This table: <code>false</code>" in block and "preset classic-2: <code>false" in block
    assert f'href="/table.html?t={tid}"' in page
    assert '<a href="#B">Part B</a>' in page  # classic 升级
    zh = client.get(f"/rules?lang=zh&table={tid}").text
    assert ACTIVE.findall(zh) == [("I-8", "keep_deal")]
    assert "本桌：<code>partner</code>" in zh


def test_rule_set_from_the_query(client: TestClient) -> None:
    page = client.get("/rules", params=[("lang", "en"), ("preset", "quoridor-2"),
                                        ("o", "jumps=true"), ("o", "board_size=7")]).text
    assert sorted(ACTIVE.findall(page)) == [("I-14", "board_size"), ("I-15", "jumps")]
    assert "This rule set: <code>true</code>" in page
    assert '<a href="#D">Part D</a>' in page
    plain = client.get("/rules?lang=zh&preset=gunzi").text
    assert "这套规则用预设 gunzi，选项都是默认值。" in plain and '<a href="#A">Part A</a>' in plain


def test_bad_input_is_a_clear_refusal(client: TestClient) -> None:
    r = client.get("/rules?lang=en&preset=gunzi&o=follow=sideways")
    assert r.status_code == 400 and "follow" in r.text and "dead" in r.text
    r = client.get("/rules?lang=zh&preset=classic-1&o=tribute_rule=two")
    assert r.status_code == 400 and "无法显示这套规则" in r.text and "tribute_rule" in r.text
    r = client.get("/rules?lang=en&preset=poker")
    assert r.status_code == 400 and "poker" in r.text
    r = client.get("/rules?lang=zh&table=NOSUCH")
    assert r.status_code == 404 and "没有牌桌 NOSUCH" in r.text
    too_many = [("o", "follow=live")] * 41
    r = client.get("/rules", params=[("lang", "en"), ("preset", "gunzi"), *too_many])
    assert r.status_code == 400 and "At most 40" in r.text
    assert client.get("/rules?lang=fr").status_code == 422
    assert client.get("/rules?table=" + "x" * 25).status_code == 422
    r = client.get("/rules?lang=en&o=" + "follow=" + "x" * 80)
    assert r.status_code == 400 and "64" in r.text
