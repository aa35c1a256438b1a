"""README "中文界面" end to end: planner speaks Chinese when asked, and nothing machine-read
changes.

Runs the installed planner under `LANGUAGE=zh_CN` (and config `"language": "zh"`), side by side
with English: the help of every command, the JSON outputs, the demo in a terminal.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pexpect
import pytest
import terminal
from conftest import env_with, run_planner
from screens import ANSI, columns
from terminal import Seen, screen_lines

# each case runs planner many times
pytestmark = pytest.mark.slow

ENGLISH = {"LANGUAGE": "en"}
CHINESE = {"LANGUAGE": "zh_CN"}
COMMANDS = ["", "runs", "show", "costs", "plans", "export", "sync", "notes", "done", "reviews",
            "drop", "due", "key", "key set", "key forget", "key status"]
# Three English words in a row is an English sentence; command lines and names are not.
_SENTENCE = re.compile(r"(?<![\w/.\-'])[A-Za-z]{2,}(?: [A-Za-z]{2,}){2,}(?![\w/.\-'])")
_COMMAND_LINE = re.compile(r"planner(?: [\w:@./\-\[\]'\"]+)*")


def english_sentences(text: str) -> list[str]:
    """The English phrases of three words or more in `text`, commands written out left aside."""
    return _SENTENCE.findall(_COMMAND_LINE.sub("", text))


def test_sentence_detector_finds_english_and_leaves_commands():
    assert english_sentences("Type SAVE to save this plan") == ["Type SAVE to save this plan"]
    assert english_sentences("示例：planner key set openai") == []
    assert english_sentences("错误：没有这个选项：--bogus") == []


@pytest.mark.parametrize("command", COMMANDS, ids=[c or "planner" for c in COMMANDS])
def test_help_is_chinese_and_fits_80_columns(home: Path, command: str) -> None:
    result = run_planner(*command.split(), "--help", cwd=home, env=env_with(**CHINESE))
    assert result.returncode == 0, result.stderr
    assert english_sentences(result.stdout) == []
    assert [line for line in result.stdout.splitlines() if columns(line) > 80] == []
    assert "用法：" in result.stdout and "选项" in result.stdout
    english = run_planner(*command.split(), "--help", cwd=home, env=env_with(**ENGLISH))
    assert "Usage: " in english.stdout and "用法" not in english.stdout


def test_config_language_decides_over_the_environment(home: Path) -> None:
    (home / "config.json").write_text(json.dumps({"language": "zh"}))
    assert "用法：" in run_planner("--help", cwd=home, env=env_with(**ENGLISH)).stdout
    (home / "config.json").write_text(json.dumps({"language": "en"}))
    assert "Usage: " in run_planner("--help", cwd=home, env=env_with(**CHINESE)).stdout
    (home / "config.json").write_text(json.dumps({"language": "fr"}))
    result = run_planner("runs", cwd=home, env=env_with(**CHINESE))
    assert result.returncode == 2
    assert result.stderr.startswith("错误：") and "language" in result.stderr


@pytest.mark.parametrize(("args", "line"), [
    (["--bogus"], "错误：没有这个选项：--bogus"),
    (["drop"], "错误：缺少参数 'RUN'。"),
    (["notes", "--limit", "-1"], "错误：'--limit' / '-L' 的值无效：-1 不在范围 x>=0 内。"),
    (["notes", "--limit", "x"], "错误：'--limit' / '-L' 的值无效：'x' 不是有效的整数。"),
    (["runs", "extra"], "错误：多余的参数（extra）"),
    (["nosuch"], "错误：没有这个命令 'nosuch'。"),
])
def test_usage_errors_are_chinese(home: Path, args: list[str], line: str) -> None:
    result = run_planner(*args, cwd=home, env=env_with(**CHINESE))
    assert result.returncode == 2
    assert line in result.stderr.splitlines()
    assert english_sentences(result.stderr) == []
    assert not (home / "tool-records").exists()


SAVE_PROMPT = r"SAVE[^\n]*[:：] ?"  # the SAVE prompt in either language


def demo_saved(home: Path, language: dict[str, str]) -> str:
    """Run the demo in a terminal at 80 columns and type SAVE; the screen it showed."""
    return save_and_end(*terminal.spawn("--demo", home=home, **language))


def save_and_end(child: pexpect.spawn, screen: Seen) -> str:
    """Type SAVE at the SAVE prompt, wait for planner to end with exit 0; the screen."""
    child.expect(SAVE_PROMPT)
    child.sendline("SAVE")
    status = terminal.finish(child)
    text = ANSI.sub("", screen.text())
    assert status == 0, text
    return text


JSON_COMMANDS = [("runs", "--json"), ("show", "last", "--json"), ("costs", "--json"),
                 ("plans", "--demo", "--json"), ("plans", "--all", "--json"),
                 ("notes", "--json"), ("due", "--json"), ("reviews", "--json")]


@pytest.mark.terminal
def test_json_outputs_are_byte_identical_in_both_languages(home: Path) -> None:
    demo_saved(home, CHINESE)
    assert list((home / "demo-plans").iterdir())
    for command in JSON_COMMANDS:
        english = run_planner(*command, cwd=home, env=env_with(**ENGLISH))
        chinese = run_planner(*command, cwd=home, env=env_with(**CHINESE))
        assert (english.returncode, english.stdout) == (chinese.returncode, chinese.stdout), \
            command
        assert english.stdout.strip(), command


# --- In a terminal at 80 columns ---------------------------------------------------------------


@pytest.mark.terminal
def test_demo_in_chinese_at_80_columns(home: Path) -> None:
    screen = demo_saved(home, CHINESE)
    assert english_sentences(screen) == [], screen
    assert [line for line in screen_lines(screen) if columns(line) > 80] == []
    assert "SAVE" in screen and "（星期" in screen
    assert len(list((home / "demo-plans").iterdir())) == 1


@pytest.mark.terminal
def test_demo_in_english_is_as_it_was(home: Path) -> None:
    screen = demo_saved(home, ENGLISH)
    assert "Type SAVE to save this plan; anything else cancels: " in screen
    assert "Proposed plan (simulated model)" in screen
    # The demo's scripted model writes Chinese; the program's own lines stay English.
    assert "提议的计划" not in screen and "输入 SAVE" not in screen


@pytest.mark.parametrize("language", ["zh", "en"])
@pytest.mark.terminal
def test_live_conversation_at_80_columns(server, home: Path, language: str) -> None:
    from live_model import GOOD_PLAN, KEY, KEY_ENV, explanation, proposal, write_config
    from stub_server import Reply, text_reply

    chinese = language == "zh"
    server.add(Reply(body=text_reply("哪天复习？" if chinese else "Which day?")), proposal(),
               explanation("计划已保存。" if chinese else "The plan is saved."))
    write_config(home, server.url, max_calls=6, max_repairs=1)
    child, shown = terminal.spawn("-r", "复习 RAG 笔记", home=home,
                                  **(CHINESE if chinese else ENGLISH), **{KEY_ENV: KEY})
    child.expect("你的回答（直接回车结束）：" if chinese else "Your answer \\(Enter to finish\\): ")
    child.sendline(GOOD_PLAN["date"])
    screen = save_and_end(child, shown)
    assert [line for line in screen_lines(screen) if columns(line) > 80] == []
    system = server.chat_requests()[0].body["messages"][0]["content"]
    if chinese:
        assert english_sentences(screen) == [], screen
        assert "模型在提问（还没有保存任何东西）：" in screen and "已保存到 plans/" in screen
        assert "Chinese" in system  # the model is told the person's language
    else:
        assert "The model asks (nothing is saved yet):" in screen and "Saved to plans/" in screen
        assert "Chinese" not in system
    assert len(list((home / "plans").iterdir())) == 1


TABLES = [("runs",), ("show",), ("costs",), ("plans", "--demo", "--all"), ("notes",),
          ("due",), ("reviews",), ("where",)]


@pytest.mark.terminal
def test_every_table_in_chinese_fits_80_columns(home: Path) -> None:
    demo_saved(home, CHINESE)
    for command in TABLES:
        result = run_planner(*command, cwd=home, env=env_with(**CHINESE, COLUMNS="80"))
        output = result.stdout + result.stderr
        assert english_sentences(output) == [], (command, output)
        assert [line for line in output.splitlines() if columns(line) > 80] == [], command
