"""planner init: the questions on a real terminal (80 columns, English and Chinese), each answer
checked by the config's own loader and asked again when refused, khal's and vdirsyncer's
calendars offered by name, an Obsidian vault recognised, the key kept in the OS keyring (the
tests' file backend), config.json written only after SAVE: new, or the old one kept as .bak.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from conftest import ROOT, run_planner, snapshot
from screens import problems, screen_lines
from terminal import answer, expect_words, finish, spawn

from planner.base import config as config_module
from planner.cli.init import write_config_file
from planner.cli.init_answers import Refused, goal_date_answer, hours_answer
from planner.cli.init_calendars import found_calendars

SECRET = "sk-init-SECRET-0123456789abcdef"
SAVE_PROMPT = "anything else cancels: "
ZH_SAVE_PROMPT = "输入其他内容则取消："
GOALS = "goals" in config_module.KEYS  # the goals key, when this config has it


@pytest.fixture
def machine(tmp_path: Path, home: Path) -> dict[str, Path]:
    """A person's computer: khal configured with two calendars (one a real vdir of events),
    vdirsyncer with a filesystem storage, an Obsidian vault and a calendar file."""
    user = Path(os.environ["HOME"])
    classes = user / ".calendars" / "classes"
    classes.mkdir(parents=True)
    (classes / "lecture.ics").write_text(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\n"
        "UID:lecture-1\r\nDTSTAMP:20261201T000000Z\r\nDTSTART:20261207T090000Z\r\n"
        "DTEND:20261207T103000Z\r\nSUMMARY:Lecture\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
    (user / ".calendars" / "work").mkdir()
    (user / ".config" / "khal").mkdir(parents=True)
    (user / ".config" / "khal" / "config").write_text(
        "[calendars]\n\n  [[classes]]\n    path = ~/.calendars/classes/\n    color = dark cyan\n"
        "\n  [[work]]\n    path = ~/.calendars/work\n    readonly = True\n\n[locale]\n"
        "timeformat = %H:%M\n")
    synced = user / ".local" / "share" / "vdirsyncer" / "fastmail"
    (synced / "personal").mkdir(parents=True)
    (user / ".config" / "vdirsyncer").mkdir(parents=True)
    (user / ".config" / "vdirsyncer" / "config").write_text(
        '[general]\nstatus_path = "~/.vdirsyncer/status/"\n\n[storage fastmail_local]\n'
        'type = "filesystem"\npath = "~/.local/share/vdirsyncer/fastmail/"\nfileext = ".ics"\n')
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / "N1.md").write_text("# Keigo\n", encoding="utf-8")
    exam = tmp_path / "exams.ics"
    exam.write_text("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n")
    return {"classes": classes, "work": user / ".calendars" / "work",
            "personal": synced / "personal", "vault": vault, "exam": exam, "home": home}


def start(home: Path, store: Path, language: str = "en"):
    """planner init in an 80-column pseudo-terminal; the child and what it showed."""
    return spawn("init", home=home, env=environment(store, language))


def screen_of(seen: list[str]) -> str:
    """What the terminal shows, line by line."""
    return "\n".join(screen_lines("".join(seen)))


def environment(store: Path, language: str) -> dict[str, str]:
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring_backends.FileKeyring",
           "PLANNER_TEST_KEYRING": str(store), "PYTHONPATH": str(ROOT / "tests"),
           "LANGUAGE": language, "COLUMNS": "80", "TERM": "xterm"}
    env.pop("XDG_CONFIG_HOME", None)  # khal and vdirsyncer are found under HOME/.config
    return env


def stored(store: Path) -> dict[str, str]:
    entries = json.loads(store.read_text(encoding="utf-8")) if store.exists() else {}
    return {key.split("\n", 1)[1]: value for key, value in entries.items()}


# --- no terminal ------------------------------------------------------------------------------


def test_without_a_terminal_it_is_one_line_and_nothing_is_written(home: Path) -> None:
    before = snapshot(home)
    result = run_planner("init", cwd=home)
    assert result.returncode == 2
    assert result.stderr == ("Error: planner init asks its questions on a terminal; run it in "
                             "one (nothing was written)\n")
    assert result.stdout == ""
    assert snapshot(home) == before


# --- on a terminal ----------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.terminal
def test_english_every_question_checked_old_config_kept_key_in_the_keyring(
        machine: dict[str, Path], tmp_path: Path) -> None:
    home = machine["home"]
    old = b'{"language": "en", "max_tokens": 2000}\n'
    (home / "config.json").write_bytes(old)
    store = tmp_path / "keyring.json"
    init, seen = start(home, store)
    answer(init, "Language: auto (the system's), en or zh [en] ", "")
    answer(init, "Provider (none: give the server's base_url yourself) [deepseek] ", "opneai")
    expect_words(init, "Not used: config.json: key 'provider' must be one of deepseek, openai")
    answer(init, "[deepseek] ", "openai")
    answer(init, "Model [gpt-6-luna] ", "")
    # The reply's length is asked with the model; the value already in config.json is offered.
    answer(init, "Longest reply in tokens (max_tokens) [2000] ", "4k")
    expect_words(init, "key 'max_tokens' must be")
    answer(init, "Longest reply in tokens (max_tokens) [2000] ", "")
    answer(init, "Key [OPENAI_API_KEY] ", "keyring")
    answer(init, "Key for openai (input hidden): ", SECRET, edited=False)
    answer(init, "Notes folder [none] ", str(tmp_path / "no-such-vault"))
    # A long temporary path is cut in the line (what you wrote comes back short); its end stays.
    expect_words(init, "no-such-vault is not a folder")
    answer(init, "Notes folder [none] ", str(machine["vault"]))
    init.expect_exact("An Obsidian vault")
    answer(init, "Study hours [daily 19:00-22:00] ", "19:00-25:00")
    expect_words(init, "key 'study_hours' \"daily\" holds '19:00-25:00'")
    answer(init, "Study hours [daily 19:00-22:00] ", "mon 18:00-20:00; daily 19:00-21:30")
    answer(init, "no limit) [none] ", "700")
    expect_words(init, "key 'daily_minutes' must be a whole number from 5 to 600")
    answer(init, "no limit) [none] ", "90")
    init.expect_exact("Calendars found on this computer:")
    answer(init, "Busy calendars [none] ", f"1 {machine['exam']}")
    # Per calendar: are its all-day events busy (the standard's default) or free?
    expect_words(init, "All-day events in ~/.calendars/classes: busy")
    answer(init, "All-day events [busy] ", "maybe")
    expect_words(init, "Not used: answer busy or free")
    answer(init, "All-day events [busy] ", "free")
    answer(init, "All-day events [busy] ", "")
    goal = None
    if GOALS:
        goal = {"name": "JLPT N2", "date": "2027-07-04", "notes": ["N1", "tag:jlpt"],
                "retention": 0.9}
        answer(init, "Goal name ", "JLPT N2")
        answer(init, "Goal date (YYYY-MM-DD) ", "2027-07-04")
        answer(init, "separated by spaces ", "N1 tag:jlpt")
    answer(init, SAVE_PROMPT, "SAVE", edited=False)
    assert finish(init) == 0
    screen = " ".join(screen_of(seen).split())
    assert ("Calendars found on this computer: 1. classes (khal: ~/.calendars/classes) "
            "2. work (khal: ~/.calendars/work) 3. fastmail_local/personal (vdirsyncer: "
            "~/.local/share/vdirsyncer/fastmail/personal)") in screen
    expected = {"language": "en", "max_tokens": 2000, "provider": "openai",
                "notes_dir": str(machine["vault"]),
                "study_hours": {"mon": ["18:00-20:00"], "daily": ["19:00-21:30"]},
                "daily_minutes": 90,
                "busy_calendars": [{"vdir": "~/.calendars/classes", "all_day": "free"},
                                   {"ics": str(machine["exam"])}]}
    if goal is not None:
        expected["goals"] = [goal]
    assert json.loads((home / "config.json").read_text(encoding="utf-8")) == expected
    (backup,) = home.glob("config.json.bak-*")
    assert backup.read_bytes() == old  # the old file kept whole, beside the new one
    assert sorted(path.name for path in home.iterdir()) == ["config.json", backup.name]
    assert f"Written: config.json (the old one is kept as {backup.name})" in screen
    assert stored(store) == {"openai": SECRET}
    assert SECRET not in "".join(seen)
    assert all(SECRET.encode() not in path.read_bytes() for path in home.iterdir())
    # What was written is a config every command loads.
    where = run_planner("where", cwd=home)
    assert where.returncode == 0, where.stderr


@pytest.mark.slow
@pytest.mark.terminal
def test_chinese_at_80_columns_a_new_file_and_a_near_miss_at_save(machine: dict[str, Path],
                                                                  tmp_path: Path) -> None:
    home = machine["home"]
    store = tmp_path / "keyring.json"
    init, seen = start(home, store, "zh_CN")
    answer(init, "语言：auto（跟随系统）、en 或 zh [auto] ", "zh")
    answer(init, "服务商（none：自己填写服务器的 base_url） [deepseek] ", "ollama")
    answer(init, "[qwen3:8b] ", "")
    answer(init, "（max_tokens） [4096] ", "")
    init.expect_exact("不需要密钥")
    answer(init, "笔记文件夹 [none] ", "")
    answer(init, "学习时间 [daily 19:00-22:00] ", "")
    answer(init, "不限） [none] ", "")
    answer(init, "忙碌日历 [none] ", "3")
    answer(init, "全天日程 [busy] ", "忙")
    if GOALS:
        answer(init, "目标名称 ", "")
    answer(init, ZH_SAVE_PROMPT, "保存", edited=False)
    # A near miss is named and asked once more (the prompt wraps at 80 columns).
    expect_words(init, "你输入的是“保存”；只有大写 SAVE 才会保存。")
    init.expect(r"\s*".join(re.escape(char) for char in ZH_SAVE_PROMPT))
    init.sendline("SAVE")
    assert finish(init) == 0
    assert json.loads((home / "config.json").read_text(encoding="utf-8")) == {
        "language": "zh", "provider": "ollama",
        "busy_calendars": [{"vdir": "~/.local/share/vdirsyncer/fastmail/personal"}]}
    assert sorted(path.name for path in home.iterdir()) == ["config.json"]
    assert not store.exists()  # a local server: no key asked, none stored
    screen = screen_of(seen)
    assert "已写入：" in screen and "服务商：deepseek、openai、" in screen
    # No line wider than 80 columns, none starting with closing punctuation, no English left.
    assert problems("".join(seen)) == []


@pytest.mark.slow
@pytest.mark.terminal
def test_ctrl_c_at_a_question_writes_nothing(machine: dict[str, Path], tmp_path: Path) -> None:
    home = machine["home"]
    (home / "config.json").write_text('{"language": "en"}\n', encoding="utf-8")
    store = tmp_path / "keyring.json"
    before = snapshot(home)
    init, seen = start(home, store)
    answer(init, "Language: auto (the system's), en or zh [en] ", "")
    answer(init, "Provider (none: give the server's base_url yourself) [deepseek] ", "openai")
    answer(init, "Model [gpt-6-luna] ", "")
    answer(init, "Longest reply in tokens (max_tokens) [4096] ", "")
    answer(init, "Key [OPENAI_API_KEY] ", "keyring")
    answer(init, "Key for openai (input hidden): ", SECRET, edited=False)
    init.expect_exact("Notes folder [none] ")
    init.sendintr()
    assert finish(init) == 130
    assert "Error: interrupted; nothing was written" in screen_of(seen)
    assert snapshot(home) == before
    assert not store.exists()  # the key typed before Ctrl+C was never stored


# --- the parts, without a terminal --------------------------------------------------------------


def test_khal_and_vdirsyncer_calendars_are_found_by_name(machine: dict[str, Path]) -> None:
    found = found_calendars()
    assert [(calendar.name, calendar.source, calendar.path) for calendar in found] == [
        ("classes", "khal", machine["classes"]), ("work", "khal", machine["work"]),
        ("fastmail_local/personal", "vdirsyncer", machine["personal"])]


def test_khal_discover_and_a_missing_folder(home: Path) -> None:
    user = Path(os.environ["HOME"])
    for name in ("a", "b"):
        (user / "cals" / name).mkdir(parents=True)
    (user / ".config" / "khal").mkdir(parents=True)
    (user / ".config" / "khal" / "config").write_text(
        "[calendars]\n[[all]]\npath = ~/cals/*\ntype = discover\n"
        "[[gone]]\npath = ~/not-there\n")
    assert [calendar.name for calendar in found_calendars()] == ["a", "b"]


def test_study_hours_answers() -> None:
    assert hours_answer("19:00-22:00") == {"daily": ["19:00-22:00"]}
    assert hours_answer("mon 18:00-20:00, 21:00-22:00; daily 07:00-08:00") == {
        "mon": ["18:00-20:00", "21:00-22:00"], "daily": ["07:00-08:00"]}
    # Words that are not a day go to the config's check as they are, so its line names them.
    assert hours_answer("someday 19:00-20:00") == {"someday": ["19:00-20:00"]}
    # A day with none (or 无) has no study hours: an empty list.
    assert hours_answer("daily 19:00-22:00; fri none; Sat 无") == {
        "daily": ["19:00-22:00"], "fri": [], "sat": []}


def test_goal_date_answers() -> None:
    assert goal_date_answer("2099-01-17") == "2099-01-17" and goal_date_answer("") == ""
    for typed, words in (("2027-1-17", "not a real date written YYYY-MM-DD"),
                         ("2027-02-30", "not a real date"), ("２０９９-01-17", "not a real date"),
                         ("2020-01-17", "is not after today")):
        with pytest.raises(Refused, match=words):
            goal_date_answer(typed)


@pytest.mark.slow
@pytest.mark.terminal
def test_chinese_refusals_a_day_with_none_and_the_goal_date_asked_again(
        home: Path, tmp_path: Path) -> None:
    init, seen = start(home, tmp_path / "keyring.json", "zh_CN")
    answer(init, "[auto] ", "zh")
    answer(init, "[deepseek] ", "ollama")
    answer(init, "[qwen3:8b] ", "")
    answer(init, "（max_tokens） [4096] ", "")
    answer(init, "笔记文件夹 [none] ", "")
    init.expect_exact("fri none")  # the question says how to give a day no study hours
    answer(init, "学习时间 [daily 19:00-22:00] ", "daily 19:00-22:00; fri 19")
    # The config loader's reason, in Chinese.
    expect_words(init, "未采用：config.json：键 'study_hours' \"fri\" 里有 '19'；")
    answer(init, "学习时间 [daily 19:00-22:00] ", "daily 19:00-22:00; fri none")
    answer(init, "不限） [none] ", "")
    answer(init, "忙碌日历 [none] ", "")
    if GOALS:
        answer(init, "目标名称 ", "JLPT N3")
        answer(init, "目标日期（YYYY-MM-DD） ", "2027-1-17")
        # Refused at its own question, and asked again there.
        expect_words(init, "未采用：2027-1-17 不是写成 YYYY-MM-DD 的真实日期，例如 2027-01-17")
        answer(init, "目标日期（YYYY-MM-DD） ", "2027-01-17")
        answer(init, "用空格分开 ", "N1")
    answer(init, ZH_SAVE_PROMPT, "SAVE", edited=False)
    assert finish(init) == 0
    written = json.loads((home / "config.json").read_text(encoding="utf-8"))
    assert written["study_hours"] == {"daily": ["19:00-22:00"], "fri": []}
    if GOALS:
        assert written["goals"] == [{"name": "JLPT N3", "date": "2027-01-17", "notes": ["N1"],
                                     "retention": 0.9}]
    assert problems("".join(seen)) == []


def test_an_existing_config_is_kept_and_the_new_one_moved_in(home: Path) -> None:
    target = home / "config.json"
    target.write_text('{"language": "en"}', encoding="utf-8")
    inode = target.stat().st_ino
    backup = write_config_file(target, {"language": "zh"})
    assert backup is not None and backup.read_text(encoding="utf-8") == '{"language": "en"}'
    assert backup.stat().st_ino == inode  # the old file itself, never edited in place
    assert json.loads(target.read_text(encoding="utf-8")) == {"language": "zh"}
    assert sorted(path.name for path in home.iterdir()) == ["config.json", backup.name]


def test_an_answer_removes_a_key_or_writes_null_and_old_nulls_stay(home: Path) -> None:
    from planner.base.config import ConfigError
    from planner.cli.init import REMOVE, Questions

    questions = Questions(None, home / "config.json",  # type: ignore[arg-type]
                          {"base_url": "http://localhost:9/v1", "api_key_env": None,
                           "daily_minutes": 60})
    questions.check(daily_minutes=REMOVE, model="local")
    assert questions.data == {"base_url": "http://localhost:9/v1", "api_key_env": None,
                              "model": "local"}  # the null kept: a server that needs no key
    # The config's own refusal: the question asks again (Screen.retried).
    with pytest.raises(ConfigError, match="key 'daily_minutes' must be a whole number"):
        questions.check(daily_minutes=4)
    assert "daily_minutes" not in questions.data  # a refused answer changes nothing
