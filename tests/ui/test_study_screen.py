"""The SAVE screen of a study plan in a real terminal of 80 columns, in Chinese and English:
weeks, starts chosen by planner, the rejection's lines, every line measured; then one SAVE."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

import pexpect
import pytest
from live_model import write_config
from screens import CHINESE, ENGLISH, KEYED, columns, problems, screen_lines
from stub_server import Reply, StubServer, text_reply, tool_call_reply
from study_week import MONDAY
from terminal import spawn

pytestmark = [pytest.mark.slow, pytest.mark.terminal]



def session(offset: int, start: str | None = None, minutes: int = 40,
            notes: tuple[str, ...] = ("N1",)) -> dict:
    data: dict = {"date": (MONDAY + _dt.timedelta(days=offset)).isoformat(),
                  "minutes": minutes, "note_ids": list(notes)}
    if start is not None:
        data["start"] = start
    return data


PLAN = {"title": "JLPT N2 冲刺", "sessions": [
    session(0, "19:00"), session(1, notes=("N2", "N3")), session(2, "19:30"),
    session(5, "09:00", 60, ("N1", "N2", "N3")), session(7), session(8, "20:00"),
    session(12, "10:00", notes=("N3",)), session(14, "19:00"), session(15), session(16, "21:00"),
    session(19, "09:30", notes=("N2",)), session(21)]}


@pytest.mark.parametrize(("language", "words"), [
    (CHINESE, ("建议的学习计划，共 12 次", "分钟 / 420 分钟", "周一", "* 开始时间由 planner 选定",
               "第 2 次（", "已保存到 plans/")),
    (ENGLISH, ("Proposed study plan of 12 sessions", "min of 420 min", "Mon",
               "* start chosen by planner", "session 2 (", "Saved to plans/")),
])
def test_the_study_plan_screen_fits_80_columns(server: StubServer, home: Path,
                                               language: dict, words: tuple[str, ...]) -> None:
    wrong = dict(PLAN, sessions=[*PLAN["sessions"]])
    wrong["sessions"][1] = session(1, "23:00", notes=("N2", "N3"))
    server.add(Reply(body=tool_call_reply(wrong, name="save_study_plan")),
               Reply(body=tool_call_reply(PLAN, name="save_study_plan", call_id="call_0002")),
               Reply(body=text_reply("好的。")))
    write_config(home, server.url, max_calls=4, max_repairs=1, daily_minutes=60,
                 study_hours={"daily": ["19:00-22:00"], "sat": ["09:00-12:00"],
                              "sun": ["09:00-12:00"]})
    child, seen = spawn("-r", "plan my exam", home=home, **language, **KEYED)
    child.expect(r"SAVE[^\n]*[：:] ?$")
    child.sendline("SAVE")
    child.expect(pexpect.EOF)
    child.close()
    shown = "".join(seen)
    assert child.exitstatus == 0, shown
    flat = " ".join(shown.split())
    for word in words:
        assert " ".join(word.split()) in flat, word
    assert all(columns(line) <= 80 for line in screen_lines(shown))
    if language is CHINESE:
        assert problems(shown) == []
    (path,) = (home / "plans").iterdir()
    saved = json.loads(path.read_text())
    assert saved["version"] == 4 and len(saved["plan"]["sessions"]) == 12
