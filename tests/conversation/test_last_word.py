"""The program has the last word: after the model's closing words, the program's own line about
what became of the plan is the run's last line on stdout, whatever the model wrote."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_dirs
from live_model import (
    REQUEST,
    explanation,
    plain,
    plan_files,
    proposal,
    run_cli,
    spawn_cli,
    write_config,
)
from stub_server import Reply, StubServer, text_reply
from terminal import finish

pytestmark = pytest.mark.slow  # real planner processes

ENGLISH = {"LANGUAGE": "en"}
CHINESE = {"LANGUAGE": "zh_CN"}
NOTHING = {"en": "Nothing was saved.", "zh": "什么也没有保存。"}
NO_PLAN = {"en": "No plan was proposed; nothing was saved.", "zh": "没有提议计划；什么也没有保存。"}
SAVED = {"en": "Saved: {path}", "zh": "已保存：{path}"}
SAVE_PROMPT = {"en": "Type SAVE to save this plan; anything else cancels: ",
               "zh": "输入 SAVE 保存这个计划，输入其他内容则取消："}


def last_line(text: str) -> str:
    return [line.strip() for line in plain(text).splitlines() if line.strip()][-1]


@pytest.mark.parametrize(("language", "claim"), [("en", "Your plan is saved."), ("zh", "已保存")])
def test_a_cancel_ends_on_nothing_saved_whatever_the_model_says(
        server: StubServer, home: Path, language: str, claim: str) -> None:
    server.add(proposal(), explanation(claim))  # no terminal: the proposal is cancelled
    write_config(home, server.url, max_calls=6, max_repairs=1)
    result = run_cli("--request", REQUEST, env_extra=ENGLISH if language == "en" else CHINESE)
    assert result.returncode == 0, result.stderr
    assert claim in result.stdout
    assert result.stdout.index(claim) < result.stdout.rindex(NOTHING[language])
    assert last_line(result.stdout) == NOTHING[language]
    assert plan_files(home) == []


@pytest.mark.parametrize("language", ["en", "zh"])
def test_an_answer_without_a_plan_ends_on_the_truth(server: StubServer, home: Path,
                                                    language: str) -> None:
    server.add(Reply(body=text_reply("Done, I saved it for you.")))
    write_config(home, server.url, max_calls=6, max_repairs=1)
    result = run_cli("--request", REQUEST, env_extra=ENGLISH if language == "en" else CHINESE)
    assert result.returncode == 0, result.stderr
    assert last_line(result.stdout) == NO_PLAN[language]
    assert plan_files(home) == []


@pytest.mark.terminal
@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_save_ends_on_saved_whatever_the_model_says(server: StubServer, home: Path,
                                                      language: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    server.add(proposal(), explanation("Nothing was saved, sorry. 什么也没有保存。"))
    write_config(home, server.url, max_calls=6, max_repairs=1)
    monkeypatch.setenv("LANGUAGE", "en" if language == "en" else "zh_CN")
    child, seen = spawn_cli("--request", REQUEST)
    child.expect_exact(SAVE_PROMPT[language])
    child.sendline("SAVE")
    assert finish(child) == 0
    (folder,) = run_dirs(home)
    relative = f"plans/{folder.name}.json"
    assert plan_files(home) == [home / relative]
    lines = [line.strip() for line in plain("".join(seen)).splitlines() if line.strip()]
    # On a terminal stderr's lines about the run (its cost, its records) come after stdout's.
    end = next(n for n, line in enumerate(lines) if line.startswith(("Records: ", "记录：")))
    assert lines[end - 2] == SAVED[language].format(path=relative), lines
