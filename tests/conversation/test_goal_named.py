"""A request that names a goal of config.json without --goal (README "A study plan to a goal"):
asked about once on a terminal before the first call (Enter: a run for the goal, as --goal);
elsewhere, and in a dry run, one line naming --goal, and the run goes on without it."""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
from pathlib import Path

import pytest
import terminal
from conftest import env_with, read_summary, run_dirs, run_planner
from goal_home import KEY, setup_home, system_text
from stub_server import Reply, StubServer, text_reply


def hint(day: _dt.date) -> str:
    return (f"This looks like your goal JLPT N2 ({day.isoformat()}); planner -r TEXT --goal "
            "'JLPT N2' plans for it (this run goes on without it).")


def test_with_no_terminal_one_line_names_goal_and_the_run_goes_on(server: StubServer,
                                                                  home: Path) -> None:
    day = setup_home(home, server.url)
    server.add(Reply(body=text_reply("Which weekdays suit you?")))
    result = run_planner("-r", "plan my jlpt n2 weeks", env=env_with(DEEPSEEK_API_KEY=KEY))
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("This looks like") == 1 and hint(day) in result.stderr
    (request,) = server.chat_requests()
    assert "Goal: " not in system_text(request.body)
    assert read_summary(run_dirs(home)[0]).get("goal") is None


def test_a_dry_run_names_the_goal_its_date_names_in_one_line(home: Path) -> None:
    day = setup_home(home)
    result = run_planner("--dry-run", "-r", f"my exam is on {day.isoformat()}",
                         env=env_with(DEEPSEEK_API_KEY=KEY))
    assert result.returncode == 0, result.stderr
    assert hint(day) in result.stderr
    assert "Goal: " not in system_text(json.loads(result.stdout))
    # --goal, --until or a request naming no goal: nothing is said.
    for given in (["-r", f"plan {day.isoformat()}", "--goal", "JLPT N2"],
                  ["-r", "plan JLPT N2", "--until", day.isoformat()],
                  ["-r", "plan my exam"], ["-r", "the spring one, Last spring"],
                  ["-r", "plan XJLPT N2 and JLPT N22"], ["-r", f"{day.isoformat()}0"]):
        quiet = run_planner("--dry-run", *given, env=env_with(DEEPSEEK_API_KEY=KEY))
        assert quiet.returncode == 0 and "This looks like" not in quiet.stderr, given


def test_two_goals_named_are_one_line_and_no_goal(home: Path) -> None:
    day = setup_home(home)
    result = run_planner("--dry-run", "-r", "JLPT N2 first, then JLPT N1",
                         env=env_with(DEEPSEEK_API_KEY=KEY))
    assert result.returncode == 0, result.stderr
    assert (f"This looks like your goals JLPT N2 ({day.isoformat()}), JLPT N1 (2099-07-01); "
            "planner -r TEXT --goal NAME plans for one (this run goes on without a goal)."
            in result.stderr)
    assert "Goal: " not in system_text(json.loads(result.stdout))


@pytest.mark.slow
@pytest.mark.terminal
@pytest.mark.parametrize(("typed", "goal"), [("", "JLPT N2"), ("y", "JLPT N2"), ("n", None)])
def test_on_a_terminal_it_is_asked_once_before_the_first_call(
        server: StubServer, home: Path, typed: str, goal: str | None) -> None:
    day = setup_home(home, server.url)
    server.add(Reply(body=text_reply("Which weekdays suit you?")))
    child, seen = terminal.spawn("-r", "plan JLPT N2", env={**os.environ,
                                                            "DEEPSEEK_API_KEY": KEY},
                                 columns=200)
    question = f"This looks like your goal JLPT N2 ({day.isoformat()}): plan for it? [Y/n] "
    terminal.ready(child, question, edited=False)
    assert server.requests == [] and run_dirs(home) == []  # asked before anything is sent
    child.sendline(typed)
    terminal.answer(child, "Your answer (Enter to finish): ", "")
    assert terminal.finish(child) == 0
    screen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", seen.text())
    assert screen.count("This looks like") == 1, screen
    (request,) = server.chat_requests()
    assert ("Goal: JLPT N2, on " in system_text(request.body)) == (goal is not None)
    summary = read_summary(run_dirs(home)[0])
    assert summary.get("goal") == goal
    if goal is not None:
        assert summary["until"] == (day - _dt.timedelta(days=1)).isoformat()


def test_a_chinese_name_inside_chinese_words_is_named_and_said_in_chinese(home: Path) -> None:
    day = setup_home(home)
    config = json.loads((home / "config.json").read_text(encoding="utf-8"))
    config["goals"][0]["name"] = "日语考试"
    (home / "config.json").write_text(json.dumps(config), encoding="utf-8")
    result = run_planner("--dry-run", "-r", "帮我安排日语考试的复习",
                         env={**os.environ, "DEEPSEEK_API_KEY": KEY, "LANGUAGE": "zh_CN"})
    assert result.returncode == 0, result.stderr
    assert (f"这看起来是你的目标 日语考试（{day.isoformat()}）；planner -r TEXT --goal '日语考试' "
            "可以为它做计划（这次运行不带目标继续）。") in result.stderr
