"""README "中文界面": a program line is said from its own template and values, so the time to
say it is the time to format it, whatever a value holds (a server's message of a hundred `: `
parts included), and nothing else on the screen is mistaken for a program line.

A server's 400 message of many `a b: ` parts once made the Chinese screen spin at full CPU after
the run ended, when lines were recognised by matching them against the catalog's templates.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from conftest import run_dirs, run_planner
from stub_server import Reply, StubServer, error_body

from planner.base import i18n

REJECTED_ZH = "400：服务器不接受这个请求（{server}）；请检查配置里的 model 和 extra_body"
BOUND = 0.5  # seconds, with room for a loaded two-core machine; it takes microseconds


@pytest.fixture
def chinese():
    i18n.install("zh")
    try:
        yield
    finally:
        i18n.install("en")


def rejected(server: str) -> i18n.Message:
    return i18n.t("{status}: the server rejected the request ({server}); check model and "
                  "extra_body in config", status=400, server=server)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("parts", [24, 100, 10_000])
def test_a_line_of_many_colon_parts_is_shown_at_once(chinese, parts: int) -> None:
    server_line = "the server refused the request (HTTP 400): " + "a b: " * parts
    started = time.perf_counter()
    assert i18n.shown(server_line) == server_line  # not a program line: shown as it came
    # The same words as a server's message inside a program line: the line is translated and
    # the server's words stay as they were.
    message = "a b: " * parts
    assert i18n.shown(rejected(message)) == REJECTED_ZH.format(server=message)
    assert time.perf_counter() - started < BOUND


def test_a_servers_words_that_read_like_a_program_line_stay_its_words(chinese) -> None:
    # Even a whole catalog template, sent by a server, is data inside the program's line.
    words = "400: the server rejected the request (x); check model and extra_body in config"
    assert i18n.shown(words) == words
    assert i18n.shown(rejected(words)) == REJECTED_ZH.format(server=words)


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
