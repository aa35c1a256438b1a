"""What the person wrote comes back short: a config value, path, URL or key echoed in an error is
cut to 120 characters with …, so a 900,000-character URL in the config is one line under 400
columns, never a traceback, and nothing is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_planner, snapshot

from planner.base.inert import SHOWN_CHARS, short, short_values

HUGE = "a" * 900_000
slow = pytest.mark.slow  # a planner process per case


def one_line(result, code: int = 2, columns: int = 400) -> str:
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr[:2000]
    assert result.returncode == code, lines[0][:400]
    assert len(lines[0]) < columns, len(lines[0])
    return lines[0]


def configured(home: Path, values: dict) -> dict:
    (home / "config.json").write_text(json.dumps(values), encoding="utf-8")
    return snapshot(home)


@slow
@pytest.mark.parametrize("values", [
    {"base_url": "https://example.com/" + HUGE},
    {"base_url": "https://example.com:" + HUGE},  # the port, echoed in the reason
    {"busy_calendars": [{"caldav": "https://dav.example.com/" + HUGE}]},
], ids=["base_url", "port", "caldav"])
def test_a_huge_url_in_the_config_is_one_short_line(home: Path, values: dict) -> None:
    before = configured(home, values)
    line = one_line(run_planner("week"))
    assert line.startswith("Error: config.json: key '"), line
    assert "is not a valid URL" in line
    assert snapshot(home) == before


@slow
def test_a_huge_url_is_refused_before_a_request_is_built(home: Path) -> None:
    # Before: httpx's own "URL too long" as a traceback.
    before = configured(home, {"base_url": "http://127.0.0.1:9/" + HUGE, "api_key_env": None})
    line = one_line(run_planner("--request", "Review N1 tomorrow"))
    assert line == ("Error: config.json: key 'base_url' is not a valid URL (longer "
                    "than 8,192 characters)")
    assert snapshot(home) == before


@slow
@pytest.mark.parametrize("values, key", [
    ({HUGE: 1}, "a"),
    ({"goals": [{"name": "x", HUGE: 1}]}, "goals[1].a"),
], ids=["top", "nested"])
def test_an_unknown_key_of_any_length_is_echoed_short(home: Path, values: dict,
                                                      key: str) -> None:
    before = configured(home, values)
    # The line also lists every known key (about 300 columns of the program's own text).
    line = one_line(run_planner("week"), columns=500)
    echoed = line.split("unknown key '", 1)[1].split("' (known: ", 1)[0]
    assert len(echoed) <= SHOWN_CHARS and "…" in echoed and echoed.startswith(key), echoed
    assert snapshot(home) == before


@slow
@pytest.mark.parametrize("key, value", [
    ("notes_dir", HUGE),
    ("notes_dir", "x/" * 3000),
    ("notes_dir", "$" + HUGE),
    ("busy_calendars", [{"ics": "b" * 300 + ".ics"}]),
], ids=["notes_dir", "deep", "variable", "ics"])
def test_a_path_too_long_for_any_file_system_is_one_line(home: Path, key: str,
                                                         value: object) -> None:
    # Before: an OSError (File name too long) as a traceback, or the path echoed whole.
    before = configured(home, {key: value})
    line = one_line(run_planner("notes"))
    assert "is too long for a path (at most 4,096 characters, 255 bytes between two /)" in line
    assert snapshot(home) == before


@slow
def test_a_config_path_of_any_length_is_echoed_short(home: Path) -> None:
    before = snapshot(home)
    path = "dd/" * 1000 + "config.json"
    line = one_line(run_planner("--config", path, "week"))
    assert line.startswith("Error: dd/dd/") and line.endswith("config.json: no such config file")
    assert len(line) < len("Error: ") + SHOWN_CHARS + len(": no such config file") + 1
    assert snapshot(home) == before


@slow
def test_a_huge_caldav_url_on_the_command_line_is_echoed_short(home: Path) -> None:
    from plan_files import save_review as save

    save(home, "20261201T090000000000Z-echo01", 2)
    before = snapshot(home)
    url = "http://127.0.0.1:9/" + "c" * 100_000  # the discard port: nothing listens there
    result = run_planner("sync", "--caldav", url, "--user", "alice",
                         env={**__import__("os").environ, "PLANNER_CALDAV_PASSWORD": "pw-here"})
    line = one_line(result, code=1)
    assert line.startswith("Error: cannot reach the CalDAV server at http://127.0.0.1:9/ccc")
    assert line.endswith("; nothing was changed there"), line
    assert snapshot(home) == before


def test_short_keeps_both_ends_and_short_values_only_long_runs() -> None:
    assert short("abc") == "abc"
    cut = short("https://host.example/" + "p" * 500 + "/end.ics")
    assert len(cut) == SHOWN_CHARS and cut.startswith("https://host.example/pp")
    assert cut.endswith("pp/end.ics") and cut.count("…") == 1
    line = f"Error: key '{'k' * 1000}' is wrong"
    assert short_values(line) == f"Error: key {short(repr('k' * 1000))} is wrong"
    # A value cut already, in its quotes, is not cut again.
    assert short_values(f"key '{short('k' * 1000)}'") == f"key '{short('k' * 1000)}'"
    # Words, and Chinese text (which has no spaces), are the program's: left whole.
    words = "word " * 100
    assert short_values(words) == words
    chinese = "错误：" + "配置文件不能读取，" * 30
    assert short_values(chinese) == chinese
