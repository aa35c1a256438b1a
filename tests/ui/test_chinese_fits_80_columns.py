"""README "中文界面"'s "done when": a new user's walkthrough, in Chinese, at 80 columns.

The demo, a live conversation (a question, a lookup, a rejected proposal, a series saved), `done`
with its rating prompt, the reports, the exports and the common mistakes, each a real `planner`
in a pseudo-terminal of 80 columns. Every line the terminal shows is measured (wide characters
count two); none may start with closing punctuation, and none may hold an English sentence (a
server's or the model's own words, in quotes, are data and may).
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

import pexpect
import pytest
from conftest import today
from live_model import write_config
from screens import CHINESE, KEYED, problems
from stub_server import Reply, StubServer, error_body, text_reply, tool_call, tool_call_reply
from terminal import spawn

pytestmark = [pytest.mark.slow, pytest.mark.terminal]


def walk(home: Path, args: list[str], answers: tuple[tuple[str, str], ...] = ()) -> tuple[int, str]:
    """One command in an 80-column terminal in Chinese: its exit code and what it showed."""
    child, seen = spawn(*args, home=home, **CHINESE, **KEYED)
    for expected, answer in answers:
        child.expect(expected)
        child.sendline(answer)
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus, "".join(seen)


def test_the_chinese_walkthrough_fits_80_columns_and_speaks_chinese(server: StubServer,
                                                                    home: Path) -> None:
    start = today()
    dates = [(start + _dt.timedelta(days=days)).isoformat() for days in (2, 5, 9)]
    series = {"title": "RAG 间隔复习", "note_ids": ["N1", "N3"], "dates": dates, "minutes": 20}
    slots = {"from": start.isoformat(), "days": 7, "minutes": 20}
    explanation = ("系列计划已经保存：在" + dates[0] + "、" + dates[1] + "和" + dates[2] +
                   "各复习二十分钟。每次先回顾 RAG 的基本流程，再看引用与校验，最后用几道"
                   "自测题检验自己是否真的掌握了，这样效果最好。")
    server.add(Reply(body=text_reply("你想复习哪些笔记？每次大概有多少时间，一共想复习几次？")),
               Reply(body=tool_call_reply(calls=[tool_call(slots, name="free_slots")])),
               Reply(body=tool_call_reply({**series, "minutes": "20"},
                                          name="save_review_series")),
               Reply(body=tool_call_reply(series, name="save_review_series")),
               Reply(body=text_reply(explanation)),
               Reply(429, error_body("Rate limit reached for requests", "rate_limit_error")))
    write_config(home, server.url, max_calls=6, max_repairs=1, language="zh")
    save_prompt = r"SAVE[^\n]*：$"
    steps: list[tuple[list[str], tuple, int]] = [
        (["--demo"], ((save_prompt, "SAVE"),), 0),
        (["-r", "帮我安排 RAG 笔记的间隔复习"],
         (("（直接回车结束）", "N1 和 N3，每次二十分钟，三次"), (save_prompt, "ＳＡＶＥ"),
          ("半角大写 SAVE", "SAVE")), 0),
        (["-C", "-r", "再加一次"], (), 1),  # the 429: named, with planner --continue
        # The series: the newest run that saved a plan (the failed one after it saved none).
        (["done", "-1"], (("轻松", "记得"),), 0),
        (["done", "-1", "--date", "2020-01-01"], (), 2),
        (["due"], (), 0), (["plans"], (), 0), (["plans", "--demo"], (), 0),
        (["week"], (), 0), (["reviews"], (), 0), (["show", "-2"], (), 0), (["runs"], (), 0),
        (["costs"], (), 0), (["export", "--vdir", "vd"], (), 0), (["forecast", "--days", "7"],
                                                                   (), 0),
        (["where"], (), 0), (["notes"], (), 0), (["fit"], (), 0),
        (["run"], (), 2), (["show", "zzz"], (), 2), (["--until", "2020-01-01", "-r", "x"], (), 2),
    ]
    seen = {}
    for args, answers, code in steps:
        exit_code, shown = walk(home, args, answers)
        seen[" ".join(args)] = shown
        assert exit_code == code, (args, shown)
        assert problems(shown) == [], (args, problems(shown))
    # The screens said what happened, in Chinese.
    assert "已保存到 plans/" in seen["-r 帮我安排 RAG 笔记的间隔复习"]
    assert "为模型查询：free_slots" in seen["-r 帮我安排 RAG 笔记的间隔复习"]
    assert "planner --continue" in seen["-C -r 再加一次"]
    assert "“Rate limit reached for requests”" in " ".join(seen["-C -r 再加一次"].split())
    assert "你是不是想输入 'runs'" in seen["run"]
    assert "（第 1 次）的复习" in seen["done -1"]
    reviews = [json.loads(line) for line in
               (home / "reviews.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {review["rating"] for review in reviews} == {"good"}  # the English word recorded
    assert len(list((home / "vd").glob("*.ics"))) == 3
