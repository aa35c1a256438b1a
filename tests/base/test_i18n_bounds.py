"""README "A screen you can trust", "Translation is bounded": matching a line against the catalog
takes time linear in
the line; any line (a server's message of a hundred `: ` parts included) is shown within 50 ms,
else in English.

A server's 400 message of many `a b: ` parts once made the Chinese screen spin at full CPU after
the run ended: two joiner templates (`{field}: {rule}`, `{path}: {problem}`) matched each part and
each re-translated the rest, 2^n times.
"""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import pytest
from conftest import run_dirs, run_planner
from stub_server import Reply, StubServer, error_body

from planner.base import i18n

REJECTED = ("Error: 400: the server rejected the request ({server}); check model and extra_body "
            "in config")
NORMAL = REJECTED.format(server="Model Not Exist")
REJECTED_ZH = "错误：400：服务器不接受这个请求（{server}）；请检查配置里的 model 和 extra_body"
NORMAL_ZH = REJECTED_ZH.format(server="Model Not Exist")
# seconds: README "A screen you can trust"'s 50 ms, with room for a loaded two-core machine
BOUND = 0.5


@pytest.fixture
def chinese():
    i18n.install("zh")
    i18n.shown("warm: up")  # the catalog's templates are built once, not counted against a line
    try:
        yield
    finally:
        i18n.install("en")


def timed_shown(line: str) -> tuple[str, float]:
    started = time.perf_counter()
    shown = i18n.shown(line)
    took = time.perf_counter() - started
    print(f"\n{len(line)} characters shown in {took * 1000:.1f} ms: {line[:60]}…")
    return shown, took


@pytest.mark.timeout(30)
@pytest.mark.parametrize("parts", [24, 100])
def test_a_line_of_many_colon_parts_is_shown_at_once(chinese, parts: int) -> None:
    server_line = "the server refused the request (HTTP 400): " + "a b: " * parts
    shown, took = timed_shown(server_line)
    assert took < BOUND
    assert shown == server_line  # no template of the program's: shown as it came

    # The same words as a server's message inside a program line: the line is translated and
    # the server's words stay as they were.
    message = "a b: " * parts
    shown, took = timed_shown(REJECTED.format(server=message))
    assert took < BOUND
    assert shown == REJECTED_ZH.format(server=message)
    # A normal line translates as before.
    assert i18n.shown(NORMAL) == NORMAL_ZH
    assert i18n.shown("Error: in 1,000 days") == "错误：1,000 天后"


@pytest.mark.timeout(30)
def test_a_line_over_its_budget_is_shown_in_english(chinese, monkeypatch) -> None:
    monkeypatch.setattr(i18n, "BUDGET_SECONDS", 0.0)
    assert i18n.shown(NORMAL) == NORMAL
    assert i18n.shown("Tuesday") == "星期二"  # a catalog line needs no matching at all
    monkeypatch.setattr(i18n, "BUDGET_SECONDS", 0.05)
    assert i18n.shown(NORMAL) == NORMAL_ZH


@pytest.mark.not_under_faketime("libfaketime moves the CPU-time clock the budget reads")
@pytest.mark.timeout(30)
def test_templates_match_as_their_patterns_do(chinese) -> None:
    """The matcher finds the values template_pattern()'s regular expression finds, for every
    template of the catalog, in lines built to be ambiguous (its own pieces as values)."""
    choose = random.Random(28)
    templates = i18n._all_templates()
    assert len(templates) > 100
    tried = matched = 0
    for template in templates:
        pattern = i18n.template_pattern(template.source)
        assert pattern is not None
        order = i18n.PLACEHOLDER.findall(template.source)
        words = [piece for piece in template.pieces if piece] + ["a", " ", ": ", "(", ")", "x y"]
        for _ in range(20):
            values: dict[str, str] = {}
            line = template.pieces[0]
            for name, piece in zip(order, template.pieces[1:], strict=True):
                if name not in values or choose.random() < 0.2:
                    values[name] = "".join(choose.choices(words, k=choose.randint(0, 3)))
                line += values[name] + piece
            expected = pattern[0].fullmatch(line)
            found = template.match(line, i18n._Work()) if template.may_match(line) else None
            assert found == (None if expected is None else expected.groupdict()), \
                (template.source, line)
            tried += 1
            matched += found is not None
    assert matched > tried // 2


@pytest.mark.timeout(30)
def test_a_live_run_in_chinese_ends_promptly_after_a_400_of_many_parts(home: Path) -> None:
    message = "a b: " * 24
    with StubServer([Reply(400, error_body(message))]) as server:
        (home / "config.json").write_text(json.dumps({
            "model": "stub-model", "base_url": server.url, "timeout_seconds": 5,
            "max_calls": 2, "max_repairs": 0, "language": "zh",
        }), encoding="utf-8")
        env = {**os.environ, "LANGUAGE": "zh", "COLUMNS": "80",
               "DEEPSEEK_API_KEY": "sk-SENTINEL-0123456789abcdef"}
        started = time.perf_counter()
        result = run_planner("--request", "Review N1 and N2 tomorrow for 20 minutes", env=env,
                             timeout=25)
        took = time.perf_counter() - started
    print(f"\nthe live run ended in {took:.2f} s")
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert took < 10
    # The error line (wrapped at 80 columns) names the status, in Chinese, with the server's words.
    said = " ".join(result.stderr.split())
    assert "错误：400：服务器不接受这个请求" in said, result.stderr
    assert " ".join(message.split()) in said, result.stderr
    assert len(run_dirs(home)) == 1
