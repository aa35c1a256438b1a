"""README "Records": `planner show` says a run's recorded program lines in the language of the
day, from the templates messages.json keeps beside summary.json; a messages.json that is missing,
damaged or says other words leaves the recorded English."""

from __future__ import annotations

import json
import os
from pathlib import Path

from conftest import run_dirs, run_planner
from live_model import KEY, KEY_ENV, write_config
from stub_server import Reply, StubServer, tool_call_reply

BAD = {"title": "RAG", "note_ids": ["N1"], "date": "2026-12-20", "minutes": "20"}
RULE_EN = 'minutes: must be an integer, got a string "20"'
RULE_ZH = 'minutes：必须是整数，收到的是字符串 "20"'


def show(home: Path, language: str) -> str:
    env = {**os.environ, "LANGUAGE": language, "COLUMNS": "200", KEY_ENV: KEY}
    result = run_planner("--home", str(home), "show", env=env)
    assert result.returncode == 0, result.stderr
    return " ".join(result.stdout.split())


def test_a_rejection_is_shown_in_the_language_of_the_day(home: Path) -> None:
    with StubServer([Reply(body=tool_call_reply(BAD))]) as server:
        write_config(home, server.url)
        result = run_planner("--home", str(home), "-r", "review N1",
                             env={**os.environ, KEY_ENV: KEY})
    assert result.returncode == 1, result.stderr
    (folder,) = run_dirs(home)
    kept = json.loads((folder / "messages.json").read_text(encoding="utf-8"))
    assert kept[RULE_EN]["template"] == "{field}: {rule}"
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    assert [step["error"] for step in summary["steps"] if step["kind"] == "rejected"] == [RULE_EN]

    assert RULE_ZH in show(home, "zh_CN")
    assert RULE_EN in show(home, "en")

    # Words that are not the recorded ones, or no messages.json: the recorded English.
    other = {text: {"template": "{field}: {rule}", "values": {"field": "date", "rule": "x"}}
             for text in kept}
    (folder / "messages.json").write_text(json.dumps(other), encoding="utf-8")
    said = show(home, "zh_CN")
    assert RULE_EN in said and RULE_ZH not in said
    (folder / "messages.json").write_text("{not json", encoding="utf-8")
    assert RULE_EN in show(home, "zh_CN")
    (folder / "messages.json").unlink()
    assert RULE_EN in show(home, "zh_CN")
