"""What a session covers, readable at 80 columns, in English and Chinese: `plans` and `week`
show each note ID whole in its column, `reviews` cuts a review ID only after a start `done
--undo` takes, the SAVE screen hangs a session's notes under the first, a week's budget counts
the days with study hours, a revision names the sessions that changed, `show` lists a study
plan session by session, the last rejection's lines come under a heading of their own, and no
name is broken at a hyphen.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
from pathlib import Path

import pytest
from conftest import run_planner, today
from live_model import KEY, KEY_ENV, write_config
from plan_files import day, session, study_plan, write_plan
from screens import columns
from stub_server import Reply, StubServer, text_reply, tool_call_reply

from planner.notes.catalog import Note
from planner.plans.changes import plan_changes
from planner.ui.change_words import change_words
from planner.ui.wrapping import Hanging, pack

LANGUAGES = [pytest.param("en", id="English"), pytest.param("zh_CN", id="Chinese")]
IDS = ("N3/文法/01-て形", "N3/文法/02-ば形", "N3/読解/長文-03", "N3/語彙/動詞-04", "N3/聴解/05")
LONG = "N3/文法/06-敬語と丁寧語の使い分け"
NOTES = [Note(note, f"标题 {number}", "本文") for number, note in enumerate((*IDS, LONG))]
RUN = "20261206T101010Z-abcd12"
MONDAY = today() + _dt.timedelta(days=7 - today().weekday())


def at_80(language: str, *args: str, home: Path | None = None):
    prefix = ("--home", str(home)) if home is not None else ()
    return run_planner(*prefix, *args, env={**os.environ, "COLUMNS": "80",
                                            "LANGUAGE": language, KEY_ENV: KEY})


def shown_whole(note: str, lines: list[str]) -> bool:
    """The ID whole on a line, or broken only after a `/` onto the next line (a column
    narrower than the ID)."""
    if any(note in line for line in lines):
        return True
    head, _slash, tail = note.rpartition("/")
    return any(line.rstrip().endswith(head + "/") and lines[number + 1].strip().startswith(tail)
               for number, line in enumerate(lines[:-1]))


def saved_study_plan(home: Path) -> None:
    write_plan(home, RUN, study_plan(
        session(day(1), 45, IDS[:3], "19:00"), session(day(2), 30, IDS[2:], "20:00"),
        title="文法与读解冲刺"), notes=NOTES[:len(IDS)])


@pytest.mark.parametrize("language", LANGUAGES)
def test_plans_shows_every_note_id_whole(home: Path, language: str) -> None:
    saved_study_plan(home)
    result = at_80(language, "plans")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert all(columns(line) <= 80 for line in lines), result.stdout
    for note in IDS:
        assert any(note in line for line in lines), (note, result.stdout)
    assert not re.search(r"N3/\S*…", result.stdout), result.stdout  # not `N3/文法/01  …`
    # --json as ever.
    rows = json.loads(at_80(language, "plans", "--json").stdout)
    assert [row["note_ids"] for row in rows] == [list(IDS[:3]), list(IDS[2:])]


@pytest.mark.parametrize("language", LANGUAGES)
def test_week_shows_each_sessions_note_ids_in_its_column(home: Path, language: str) -> None:
    saved_study_plan(home)
    result = at_80(language, "week")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert all(columns(line) <= 80 for line in lines), result.stdout
    # Each day is a column 10 cells wide, read one by one (today's is the first).
    width = (80 - 6) // 7
    cells = [_cut_cells(line, width) for line in lines[3:]]
    for number, notes in ((1, IDS[:3]), (2, IDS[2:])):
        column = [cell[number] for cell in cells if len(cell) > number]
        for note in notes:
            assert shown_whole(note, column), (note, column)
        assert not any("N3" in cell and "…" in cell for cell in column), column
    # week --json keeps its keys: no note IDs in a session.
    data = json.loads(at_80(language, "week", "--json").stdout)
    sessions = [session for each in data["days"] for session in each["sessions"]]
    assert sessions and all(set(session) == {"run_id", "title", "start", "minutes", "done"}
                            for session in sessions)


def _cut_cells(line: str, width: int) -> list[str]:
    """One screen line of `week` cut into its seven columns, counted in terminal cells."""
    cells, cell, used = [], "", 0
    for char in line:
        size = columns(char)
        if used + size > width + 1 and len(cells) < 6:
            cells.append(cell)
            cell, used = "", 0
        cell += char
        used += size
    cells.append(cell)
    return cells


def review_line(review_id: str, note: str) -> str:
    return json.dumps({"version": 1, "kind": "review", "review_id": review_id, "note_id": note,
                       "run_id": f"{RUN}#1", "reviewed_at": "2026-12-06T20:21:26Z",
                       "rating": "good", "minutes": 30}, ensure_ascii=False)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_review_id_cut_on_screen_is_a_start_done_undo_takes(home: Path,
                                                             language: str) -> None:
    # Two IDs that differ only after 24 characters, beside a long note ID.
    wanted, other = "20261206T202126127741Z-98a000", "20261206T202126127741Z-98196c"
    (home / "reviews.jsonl").write_text("".join(
        review_line(review_id, note) + "\n" for review_id, note in
        ((other, LONG), (wanted, IDS[4]), ("20261206T202126127999Z-000001", IDS[2]))),
        encoding="utf-8")
    result = at_80(language, "reviews")
    assert result.returncode == 0, result.stderr
    assert all(columns(line) <= 80 for line in result.stdout.splitlines()), result.stdout
    [row] = [line for line in result.stdout.splitlines() if IDS[4] in line]
    shown = row.split()[-1]
    assert wanted.startswith(shown.removesuffix("…")) and len(shown.removesuffix("…")) > 24, row
    # What the screen shows, `…` and all, is taken back: that review and no other.
    undone = at_80(language, "done", "--undo", shown, "--json")
    assert undone.returncode == 0, undone.stderr
    assert json.loads(undone.stdout)["review_id"] == wanted
    log = (home / "reviews.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(log) == 4 and wanted in log[-1] and other not in log[-1]


def study_session(offset: int, start: str | None, minutes: int, notes: tuple[str, ...]) -> dict:
    data: dict = {"date": (MONDAY + _dt.timedelta(days=offset)).isoformat(), "minutes": minutes,
                  "note_ids": list(notes)}
    if start is not None:
        data["start"] = start
    return data


GOOD = {"title": "JLPT N3 冲刺", "sessions": [
    study_session(0, "19:00", 45, IDS[:3]), study_session(1, "19:00", 30, IDS[3:]),
    study_session(2, "19:30", 60, (LONG, IDS[0], IDS[2])), study_session(7, "19:00", 40, IDS[:2])]}


def notes_home(home: Path, url: str, **config: object) -> None:
    for note in (*IDS, LONG):
        path = home / "notes" / f"{note}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\ntitle: {note[-4:]}\n---\n本文\n", encoding="utf-8")
    write_config(home, url, notes_dir="notes", daily_minutes=90,
                 study_hours={"daily": ["19:00-22:00"], "fri": []}, **config)


def panel(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("│")]


@pytest.mark.parametrize(("language", "budget"), [("en", "of 540 min"),
                                                  ("zh_CN", "/ 540 分钟")])
def test_the_save_screen_hangs_the_notes_and_counts_days_with_study_hours(
        server: StubServer, home: Path, language: str, budget: str) -> None:
    server.add(Reply(body=tool_call_reply(GOOD, name="save_study_plan")),
               Reply(body=text_reply("好的。")))
    notes_home(home, server.url, max_calls=3)
    result = at_80(language, "-r", "plan my exam")
    lines = panel(result.stdout)
    assert lines and all(columns(line) <= 80 for line in result.stdout.splitlines())
    # Friday has no study hours: 6 days of 90 minutes, not 7.
    assert sum(budget in line for line in lines) == 2, lines
    assert "630" not in result.stdout
    for note in (*IDS, LONG):  # every ID whole on one line
        assert any(note in line for line in lines), (note, lines)
    # Session 1's notes: the second line starts under the first note.
    [first] = [number for number, line in enumerate(lines) if IDS[0] + "," in line
               or IDS[0] + "、" in line][:1]
    assert columns(lines[first][:lines[first].index(IDS[0])]) == \
        columns(lines[first + 1][:lines[first + 1].index("N3/")]), lines[first:first + 2]
    assert not lines[first + 1].strip("│ ").startswith(("N3/文法/01", "1.")), lines


@pytest.mark.parametrize(("language", "heading"), [
    ("en", "The model's proposal was rejected again"), ("zh_CN", "模型的提议再次被拒绝")])
def test_the_last_rejection_has_a_heading_of_its_own(server: StubServer, home: Path,
                                                      language: str, heading: str) -> None:
    first = json.loads(json.dumps(GOOD))
    first["sessions"][1]["start"] = "23:00"
    second = json.loads(json.dumps(GOOD))
    second["sessions"][2]["start"] = "06:00"
    server.add(Reply(body=tool_call_reply(first, name="save_study_plan")),
               Reply(body=tool_call_reply(second, name="save_study_plan", call_id="call_0002")))
    notes_home(home, server.url, max_calls=3, max_repairs=1)
    result = at_80(language, "-r", "plan my exam")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    [again] = [number for number, line in enumerate(lines) if line.startswith(heading)]
    # Under it, indented, the session that failed the second time; the first's are above it.
    assert re.match(r"  (session 3|第 3 次)", lines[again + 1]), lines
    assert not any(re.match(r"\s*(session 3|第 3 次)", line) for line in lines[:again]), lines


def test_a_revision_names_only_the_sessions_that_changed() -> None:
    sessions = tuple(session(day(offset), 30, ("N1",), "19:00") for offset in range(1, 6))
    before = study_plan(*sessions)
    after = study_plan(sessions[0], sessions[1]._replace(minutes=45),
                       sessions[2]._replace(date=_dt.date.fromisoformat(day(7))), sessions[3],
                       sessions[4],
                       session(day(9), 20, ("N2", "N3"), "20:00"))
    words = [change_words(change) for change in plan_changes(before, after)]
    assert words == ["Note N2 added", "Note N3 added", "Session 2: 30 → 45 min",
                     f"Session 3: {day(3)} 19:00 → {day(7)} 19:00",
                     f"Session 6 added: {day(9)} 20:00, 20 min, N2, N3"]
    removed = plan_changes(after, before)
    assert change_words(removed[-1]) == f"Session 6 removed: {day(9)} 20:00, 20 min, N2, N3"


@pytest.mark.parametrize(("language", "first"), [
    ("en", "1. {date} 19:00, 45 min: N3/文法/01-て形,"),
    ("zh_CN", "1. {date} 19:00，45 分钟：N3/文法/01-て形、")])
def test_show_lists_a_study_plan_session_by_session(server: StubServer, home: Path,
                                                    language: str, first: str) -> None:
    server.add(Reply(body=tool_call_reply(GOOD, name="save_study_plan")),
               Reply(body=text_reply("好的。")))
    notes_home(home, server.url, max_calls=3)
    at_80(language, "-r", "plan my exam")
    result = at_80(language, "show", "last")
    assert result.returncode == 0, result.stderr
    cells = [line.strip("│ ") for line in result.stdout.splitlines()]
    for number in range(1, 5):
        assert sum(bool(re.search(rf"(^|\s){number}\. {MONDAY.year}-", cell))
                   for cell in cells) == 2, (number, cells)  # the Proposal row and its step
    date = MONDAY.isoformat()
    assert any(first.format(date=date) in cell for cell in cells), cells


def test_packed_ids_stay_whole_and_hang_under_the_first() -> None:
    assert pack(list(IDS[:3]), ", ", 34) == [f"{IDS[0]}, {IDS[1]},", IDS[2]]
    assert pack(["N3/語彙/動詞-04"], ", ", 9) == ["N3/語彙/", "動詞-04"]
    session = Hanging("1. Mon 2026-12-07 19:00  45 min  ", IDS[:3], ", ")
    lines = session.lines(67)
    assert lines[1] == " " * 33 + IDS[2] and lines[0].endswith(f"{IDS[0]}, {IDS[1]},")
    # An ID wider than the room beside the head: all of them below it, none broken.
    wide = Hanging("3. Wed 2026-12-09 19:30  60 min  ", (LONG, IDS[0]), ", ")
    assert wide.lines(60) == ["3. Wed 2026-12-09 19:30  60 min", f"   {LONG}, {IDS[0]}"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_name_is_broken_at_a_hyphen(home: Path, language: str) -> None:
    long_home = home / "a-rather-long-folder-name-for-the-test" / \
        "another-rather-long-folder-for-planner-home-x"
    long_home.mkdir(parents=True)
    where = at_80(language, "where", home=long_home).stdout.splitlines()
    assert any(line.rstrip().endswith("a-rather-long-folder-name-for-the-test/")
               for line in where), where
    assert any(line.strip().startswith("another-rather-long-folder-for-planner-home-x")
               for line in where), where
    for command in ("plans", "drop", "week", "done"):
        shown = at_80(language, command, "--help").stdout
        assert not re.search(r"[A-Za-z]-\n", shown), (command, shown)
        assert "demo-plans/" in shown or command in ("week", "done")


def test_the_chinese_help_names_no_text_metavar(home: Path) -> None:
    shown = at_80("zh_CN", "--help").stdout
    assert "TEXT" not in shown, shown
    assert "-r, --request 文本" in shown and "-r 文本" in shown
    assert "-r, --request TEXT" in at_80("en", "--help").stdout
