"""The command line end to end: modes, options, exit codes, config and notes errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import all_files, read_summary, run_dirs, run_planner, today

from planner.base.config import Config
from planner.conversation.protocol import (
    DEFAULT_REQUEST,
    build_request,
    first_messages,
    registry_for,
)
from planner.notes.catalog import SAMPLE_NOTES


def test_version_and_help() -> None:
    assert run_planner("--version").stdout.strip() == "planner 0.1.0"
    result = run_planner("--help")
    assert result.returncode == 0
    for word in ("--demo", "--dry-run", "--request", "--config", "--home", "runs", "costs"):
        assert word in result.stdout


def test_plain_planner_shows_the_help(home: Path) -> None:
    result = run_planner()
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout == run_planner("--help").stdout
    assert all_files(home) == []


def test_options_without_a_mode_are_a_usage_error(home: Path) -> None:
    result = run_planner("--home", ".")
    assert result.returncode == 2
    assert "choose a mode: --demo, --dry-run (-n) or --request TEXT (-r)" in result.stderr
    assert result.stdout == "" and all_files(home) == []


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--demo", "--request", "x"], "fixed scripted replies"),
        (["--demo", "--dry-run"], "choose one of"),
        (["--request", "  "], "needs some text"),
    ],
)
def test_conflicting_options_are_refused(home: Path, args: list[str], words: str) -> None:
    result = run_planner(*args)
    assert result.returncode == 2
    assert words in result.stderr and "Traceback" not in result.stderr
    assert all_files(home) == []


def test_dry_run_prints_the_live_request_and_writes_nothing(home: Path) -> None:
    result = run_planner("--dry-run")
    assert result.returncode == 0
    body = json.loads(result.stdout)
    from planner.cli.run import timetable_for

    timetable = timetable_for(Config(), home, "live", today())
    expected = build_request(
        Config(), first_messages(DEFAULT_REQUEST, SAMPLE_NOTES, today(), None, timetable),
        registry_for(SAMPLE_NOTES, today(), None, timetable), "auto",
    )
    assert body == expected
    assert "Nothing was sent" in result.stderr
    assert all_files(home) == []


def test_dry_run_uses_the_given_request_and_config(home: Path) -> None:
    (home / "config.json").write_text(json.dumps({"model": "other-model", "extra_body": {}}))
    result = run_planner("--dry-run", "--request", "明天复习N3十分钟")
    body = json.loads(result.stdout)
    assert body["model"] == "other-model" and "thinking" not in body
    assert body["messages"][-1] == {"role": "user", "content": "明天复习N3十分钟"}
    assert sorted(p.name for p in all_files(home)) == ["config.json"]


def test_demo_without_terminal_cancels_and_records_everything(home: Path) -> None:
    result = run_planner("--demo")
    assert result.returncode == 0, result.stderr
    assert "simulated" in result.stderr.lower() and "Simulated model explanation" in result.stdout
    assert "No terminal to confirm on" in result.stdout
    assert "Cancelled: nothing saved." in result.stdout
    assert result.stdout.index("Cancelled") < result.stdout.index("Simulated model explanation")
    (folder,) = run_dirs(home)
    assert len(list(folder.iterdir())) == 5
    summary = read_summary(folder)
    assert summary["mode"] == "demo" and summary["simulated"] is True
    assert summary["base_url"] is None and summary["status"] == "complete"
    assert summary["tool_result"] == {"status": "cancelled"}
    assert not (home / "demo-plans").exists() and not (home / "plans").exists()


def test_home_option_puts_everything_there(home: Path, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    assert run_planner("--home", str(other), "--demo").returncode == 0
    assert len(run_dirs(other)) == 1 and run_dirs(home) == []


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"modle": "x"}, "unknown key 'modle'"),
        ({"timeout_seconds": "60"}, "'timeout_seconds' must be a number"),
        ({"timeout_seconds": 0}, "'timeout_seconds' must be a number greater than 0"),
        ({"max_tokens": 10.5}, "'max_tokens' must be a whole number from 1 to 1,000,000"),
        ({"max_tokens": True}, "'max_tokens' must be a whole number from 1 to 1,000,000"),
        ({"base_url": "api.deepseek.com"}, "'base_url' must start with http"),
        ({"base_url": "http://"}, "'base_url' is not a valid URL"),
        ({"base_url": "http://host:80a"}, "'base_url' is not a valid URL"),
        ({"extra_body": None}, "'extra_body' must be an object"),
        ({"prices": {"per_million_tokens": {"output": -1}}}, "prices.per_million_tokens.output"),
        ({"prices": {"currency": 5}}, "'prices.currency' must be a non-empty string"),
        ([], "must be a JSON object"),
    ],
)
def test_bad_config_names_the_key(home: Path, config: object, words: str) -> None:
    (home / "config.json").write_text(json.dumps(config))
    result = run_planner("--demo")
    assert result.returncode == 2
    assert words in result.stderr and "Traceback" not in result.stderr
    assert run_dirs(home) == []


def test_config_that_is_not_json_or_missing(home: Path) -> None:
    (home / "config.json").write_text("{model: x}")
    result = run_planner("--dry-run")
    assert result.returncode == 2 and "not valid JSON" in result.stderr
    result = run_planner("--config", "nope.json", "--dry-run")
    assert result.returncode == 2 and "no such config file" in result.stderr


def test_example_config_equals_the_defaults() -> None:
    from conftest import ROOT

    from planner.base.config import parse_config

    data = json.loads((ROOT / "config.example.json").read_text())
    assert parse_config(data) == Config()


def test_notes_json_replaces_the_samples(home: Path) -> None:
    notes = [{"id": "A7", "title": "向量数据库", "text": "索引与召回"}]
    (home / "notes.json").write_text(json.dumps(notes, ensure_ascii=False))
    body = json.loads(run_planner("--dry-run").stdout)
    system = body["messages"][0]["content"]
    assert "A7: 向量数据库" in system and "N1" not in system
    assert body["tools"][0]["function"]["parameters"]["properties"]["note_ids"]["items"][
        "enum"] == ["A7"]


@pytest.mark.parametrize(
    "content",
    ["not json", "[]", '[{"id": "N1"}]', '[{"id": "N1", "title": "t", "text": ""}]',
     '[{"id": "N1", "title": "a", "text": "b"}, {"id": "N1", "title": "c", "text": "d"}]'],
)
def test_bad_notes_json_is_a_usage_error(home: Path, content: str) -> None:
    # The demo always uses the built-in samples (README "Your notes"); the other modes read
    # notes.json.
    (home / "notes.json").write_text(content)
    result = run_planner("--dry-run")
    assert result.returncode == 2 and "notes.json" in result.stderr
    assert run_dirs(home) == []
