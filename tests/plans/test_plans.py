"""Saved plans: the version-2 file, strict reading (v1 too), listing, warnings, dates, CLI."""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path

import pytest
from conftest import run_planner, today
from plan_files import CREATED, NOTES, day, review_plan
from plan_files import save_review as save
from plan_files import write_raw as write
from typer.testing import CliRunner

from planner.cli.app import app
from planner.plans import files as plans
from planner.plans import store
from planner.ui.dates import WEEKDAYS, describe_date, parse_day


def v2(**changes: object) -> dict:
    """A valid version-2 plan object, with some keys changed (None removes a key)."""
    data = {"version": 2, "simulated": False, "run_id": "r1", "created_at": CREATED,
            "plan": {"title": "T", "note_ids": ["N1"], "date": day(3), "minutes": 20},
            "notes": [{"id": "N1", "title": "RAG"}]}
    for key, value in changes.items():
        if key.startswith("plan_"):
            target, key = data["plan"], key[5:]
        else:
            target = data
        if value is None:
            target.pop(key)
        else:
            target[key] = value
    return data


def run_of(row: plans.ListedPlan) -> str | None:
    """A row's run ID; None for a file that cannot be used (it has none)."""
    return row.run_id if isinstance(row, plans.PlanRow) else None


def listing(home: Path, include_past: bool = True, demo: bool = False) -> list[plans.PlanRow]:
    return store.list_plans(home, demo, include_past, today())


def problems(home: Path) -> dict[str, str]:
    return {row.file: row.problem for row in listing(home) if row.problem}


# --- the version-2 file ---------------------------------------------------------------------


def test_plan_file_content_is_indented_utf8_json_with_the_spec_keys(home: Path) -> None:
    plan = review_plan("RAG基础复习", ("N2", "N1"), "2026-12-08", 20)
    data = plans.plan_file_content(plan, simulated=True, run_id="20261130T1-ab",
                                   created_at=CREATED, notes=[NOTES["N2"], NOTES["N1"]])
    assert data.endswith(b"}\n") and b"\n  \"version\": 2," in data
    assert "RAG基础复习".encode() in data  # UTF-8, not \u escapes
    assert json.loads(data) == {
        "version": 2, "simulated": True, "run_id": "20261130T1-ab", "created_at": CREATED,
        "plan": {"title": "RAG基础复习", "note_ids": ["N2", "N1"], "date": "2026-12-08",
                 "minutes": 20},
        "notes": [{"id": "N2", "title": "切分与向量检索"}, {"id": "N1", "title": "RAG 的基本流程"}],
    }
    assert list(json.loads(data)) == ["version", "simulated", "run_id", "created_at", "plan",
                                      "notes"]


def test_a_written_plan_reads_back_as_a_row_with_the_json_keys(home: Path) -> None:
    save(home, "20261130T100000000000Z-aaaaaa", 8, simulated=False)
    [row] = listing(home)
    assert list(row.to_json()) == list(plans.ROW_KEYS)
    assert row.to_json() == {
        "file": "plans/20261130T100000000000Z-aaaaaa.json",
        "run_id": "20261130T100000000000Z-aaaaaa", "date": day(8), "minutes": 20,
        "title": "RAG基础复习", "note_ids": ["N1", "N2"],
        "notes": [{"id": "N1", "title": "RAG 的基本流程"}, {"id": "N2", "title": "切分与向量检索"}],
        "simulated": False, "session": None, "done": False, "dropped": False, "problem": None,
        "start": None,
    }


def test_version_1_files_stay_readable(home: Path) -> None:
    write(home, "20261001T000000000000Z-0a0b0c.json", {
        "simulated": True,
        "plan": {"title": "RAG基础复习", "note_ids": ["N1", "N2"], "date": day(2), "minutes": 20}})
    [row] = listing(home)
    assert row.problem is None
    assert row.run_id == "20261001T000000000000Z-0a0b0c"  # the file's name: v1 has no run_id
    assert row.notes == (plans.SavedNote("N1", None), plans.SavedNote("N2", None))
    assert row.to_json()["notes"] == [{"id": "N1", "title": None}, {"id": "N2", "title": None}]
    assert row.simulated is True and row.minutes == 20


# --- order ----------------------------------------------------------------------------------


def test_upcoming_first_from_today_then_past_newest_first_then_problems(home: Path) -> None:
    save(home, "r-a", 8)
    save(home, "r-b", -3)
    save(home, "r-c", 0)
    save(home, "r-d", -40)
    write(home, "a-broken.json", b"{")
    save(home, "r-e", 1)
    rows = listing(home)
    assert [run_of(row) for row in rows] == ["r-c", "r-e", "r-a", "r-b", "r-d", None]
    assert rows[-1].file == "plans/a-broken.json"
    upcoming = listing(home, include_past=False)
    assert [run_of(row) for row in upcoming] == ["r-c", "r-e", "r-a", None]


def test_demo_plans_are_read_from_demo_plans(home: Path) -> None:
    save(home, "live-1", 2)
    save(home, "demo-1", 2, folder="demo-plans", simulated=True)
    assert [row.file for row in listing(home, demo=True)] == ["demo-plans/demo-1.json"]
    assert [row.file for row in listing(home)] == ["plans/live-1.json"]


def test_dot_files_and_other_names_are_not_plans(home: Path) -> None:
    save(home, "r1", 1)
    write(home, ".gitkeep", b"")
    write(home, ".r1.json.swp", b"x")
    write(home, "notes.txt", b"x")
    assert [row.file for row in listing(home)] == ["plans/r1.json"]


def test_no_plans_folder_is_an_empty_list(home: Path) -> None:
    assert listing(home) == []


# --- hostile and damaged files --------------------------------------------------------------


def test_a_link_to_a_plan_outside_the_home_is_listed_never_read(home: Path, tmp_path: Path
                                                                 ) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps(v2(run_id="outside")))
    (home / "plans").mkdir()
    (home / "plans" / "linked.json").symlink_to(outside)
    (home / "plans" / "dangling.json").symlink_to(tmp_path / "nothing-here.json")
    rows = listing(home)
    assert all(run_of(row) is None for row in rows)  # the outside plan was never read
    assert problems(home) == {
        "plans/dangling.json": "is a symbolic link, which is not followed here",
        "plans/linked.json": "is a symbolic link, which is not followed here",
    }


def test_a_plans_folder_that_is_a_link_is_refused(home: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "r1.json").write_text(json.dumps(v2()))
    (home / "plans").symlink_to(elsewhere)
    with pytest.raises(plans.PlansError, match="symbolic link, which is not followed"):
        listing(home)
    assert store.confirmation_warnings(home, "live", review_plan("T", ("N1",), day(3), 5),
                                       today()) == []


def test_a_fifo_a_folder_and_a_huge_file_are_listed_with_their_problem(home: Path) -> None:
    folder = home / "plans"
    folder.mkdir()
    os.mkfifo(folder / "fifo.json")
    (folder / "folder.json").mkdir()
    with open(folder / "huge.json", "wb") as huge:
        huge.truncate(plans.MAX_PLAN_BYTES + 1)
    write(home, "exactly-limit.json", b" " * plans.MAX_PLAN_BYTES)
    assert problems(home) == {
        "plans/exactly-limit.json": "is empty",
        "plans/fifo.json": "is not a regular file (a FIFO)",
        "plans/folder.json": "is not a regular file (a folder)",
        "plans/huge.json": "is larger than 1 MiB",
    }


@pytest.mark.parametrize(("content", "problem"), [
    (b"", "is empty"),
    (b"{\"simulated\": false", "is not valid JSON (Expecting ',' delimiter: column 20)"),
    (b"\xff\xfe{}", "is not UTF-8 text"),
    (b"[" * 65 + b"]" * 65, "is JSON nested deeper than 64 levels"),
    (b"[" * 100_000, "is JSON nested deeper than 64 levels"),
    (b"[]", "is not a JSON object"),
    (b"{\"simulated\": NaN, \"plan\": {}}", "contains NaN, which is not a JSON number"),
    (b"{\"simulated\": false, \"simulated\": true, \"plan\": {}}",
     'repeats the key "simulated"'),
    (json.dumps(v2(version=6)).encode(),
     "is a version-6 plan file; this planner reads versions 1 to 5"),
    # Version 5 is a study plan with its readiness: a single plan in it is refused too.
    (json.dumps(v2(version=5)).encode(), "a plan file: has no 'goal'"),
    # Version 4 is a study plan: a single plan in it is refused, never guessed at.
    (json.dumps(v2(version=4)).encode(), "a plan file: has no 'goal'"),
    (json.dumps({**v2(version=4), "goal": None}).encode(), "plan: has no 'sessions'"),
    # Version 3 is a series: a single plan's `date` in it is refused, never read as a series.
    (json.dumps(v2(version=3)).encode(), "plan: has no 'dates'"),
    (json.dumps(v2(version=True)).encode(),
     "version: must be 2, 3, 4 or 5 (or absent, for version 1)"),
    (json.dumps(v2(version="2")).encode(),
     "version: must be 2, 3, 4 or 5 (or absent, for version 1)"),
    (json.dumps(v2(notes=None)).encode(), "a plan file: has no 'notes'"),
    (json.dumps(v2(approved=True)).encode(), "a plan file: has an unknown key \"approved\""),
    (json.dumps(v2(run_id="../../etc")).encode(),
     "run_id: must be letters, digits, '.', '_' or '-' (at most 100)"),
    (json.dumps(v2(created_at="yesterday")).encode(), "created_at: must be an ISO 8601 time"),
    (json.dumps(v2(simulated="no")).encode(), "simulated: must be true or false"),
    (json.dumps(v2(plan=[])).encode(), "plan: must be an object"),
    (json.dumps(v2(plan_path="/etc/passwd")).encode(), "plan: has an unknown key \"path\""),
    (json.dumps(v2(plan_minutes=None)).encode(), "plan: has no 'minutes'"),
    (json.dumps(v2(plan_title="")).encode(), "plan.title: must be 1 to 80 characters"),
    (json.dumps(v2(plan_title="x" * 81)).encode(), "plan.title: must be 1 to 80 characters"),
    (json.dumps(v2(plan_title="a\x1b[2Jb")).encode(),
     "plan.title: contains a control or format character"),
    (json.dumps(v2(plan_title="a\u202eb")).encode(),
     "plan.title: contains a control or format character"),
    (json.dumps(v2(plan_title=" padded")).encode(), "plan.title: has spaces at its ends"),
    (json.dumps(v2(plan_title=7)).encode(), "plan.title: must be a string"),
    (json.dumps(v2(plan_note_ids=[])).encode(),
     "plan.note_ids: must be a list of 1 to 3 note IDs"),
    (json.dumps(v2(plan_note_ids="N1")).encode(),
     "plan.note_ids: must be a list of 1 to 3 note IDs"),
    (json.dumps(v2(plan_note_ids=["N1", "N1"], notes=[{"id": "N1", "title": "a"}] * 2)).encode(),
     "plan.note_ids: repeats a note ID"),
    (json.dumps(v2(plan_note_ids=[1])).encode(),
     "plan.note_ids: must hold non-empty printable strings"),
    (json.dumps(v2(plan_date="2026-02-30")).encode(),
     "plan.date: 2026-02-30 is not a real calendar date"),
    (json.dumps(v2(plan_date="2026-1-05")).encode(), "plan.date: must be written YYYY-MM-DD"),
    (json.dumps(v2(plan_minutes=20.0)).encode(),
     "plan.minutes: must be an integer from 1 to 120"),
    (json.dumps(v2(plan_minutes=True)).encode(),
     "plan.minutes: must be an integer from 1 to 120"),
    (json.dumps(v2(plan_minutes=121)).encode(),
     "plan.minutes: must be an integer from 1 to 120"),
    (b'{"version": 2, "simulated": false, "run_id": "r", "created_at": "2026-11-30", '
     b'"plan": {"title": "T", "note_ids": ["N1"], "date": "2026-12-01", "minutes": 1'
     # Past Python's 4,300-digit limit: named like any other out-of-range number (README "A screen
     # you can trust").
     + b"0" * 5000 + b'}, "notes": []}', "plan.minutes: must be an integer from 1 to 120"),
    (json.dumps(v2(notes=[{"id": "N2", "title": "x"}])).encode(),
     "notes: must be the plan's notes, in the order of plan.note_ids"),
    (json.dumps(v2(notes=[{"id": "N1"}])).encode(), "notes item: has no 'title'"),
    (json.dumps(v2(notes=[{"id": "N1", "title": None}])).encode(),
     "notes: each title must be a string of at most 1,000 characters"),
    (json.dumps({"plan": {}}).encode(), "a version-1 plan file: has no 'simulated'"),
])
def test_damaged_files_are_listed_with_the_rule_they_break(home: Path, content: bytes,
                                                            problem: str) -> None:
    save(home, "good", 1)
    write(home, "bad.json", content)
    rows = listing(home)
    assert [row.file for row in rows] == ["plans/good.json", "plans/bad.json"]
    assert rows[1].to_json() == {**dict.fromkeys(plans.ROW_KEYS), "file": "plans/bad.json",
                                 "problem": problem}


def test_full_width_spaces_inside_a_title_are_fine(home: Path) -> None:
    write(home, "r1.json", v2(plan_title="RAG\u3000基础"))
    assert listing(home)[0].title == "RAG\u3000基础"


def test_a_copied_plan_file_keeps_its_run_id_and_is_named_as_a_copy(home: Path) -> None:
    original = save(home, "20261130T100000000000Z-aaaaaa", 4)
    (home / "plans" / "zz copy.json").write_bytes(original.read_bytes())
    rows = listing(home)
    assert [row.problem for row in rows] == [
        None, "has the same run_id as plans/20261130T100000000000Z-aaaaaa.json (a copy?)"]


def test_a_file_name_that_is_not_utf8_is_listed_printably(home: Path) -> None:
    (home / "plans").mkdir()
    name = os.fsencode(home / "plans") + b"/bad-\xff.json"
    with open(name, "wb") as file:
        file.write(json.dumps(v2()).encode())
    [row] = listing(home)
    assert row.file == "plans/bad-\\xff.json"
    assert row.problem == "its name is not valid UTF-8"
    json.dumps(row, ensure_ascii=False).encode("utf-8")  # printable as UTF-8 JSON


def test_a_file_that_cannot_be_opened_is_listed(home: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every file whatever its mode")
    path = save(home, "r1", 1)
    path.chmod(0)
    assert problems(home) == {"plans/r1.json": "cannot be read (Permission denied)"}


# --- dates ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("date", "expected"), [
    ("2026-12-08", "2026-12-08 (Tuesday, in 8 days)"),
    ("2026-11-30", "2026-11-30 (Monday, today)"),
    ("2026-12-01", "2026-12-01 (Tuesday, tomorrow)"),
    ("2026-11-29", "2026-11-29 (Sunday, yesterday)"),
    ("2026-11-27", "2026-11-27 (Friday, 3 days ago)"),
    ("2029-11-30", "2029-11-30 (Friday, in 1,096 days)"),
])
def test_describe_date(date: str, expected: str) -> None:
    assert describe_date(_dt.date.fromisoformat(date), _dt.date(2026, 11, 30)) == expected


def test_text_that_is_not_a_date_names_no_day() -> None:
    # describe_date takes a date: text that names none never reaches it.
    assert parse_day("not a date") is None


# --- warnings before SAVE -------------------------------------------------------------------


def warnings(home: Path, offset: int = 5, note_ids=("N2", "N1"), mode: str = "live"
             ) -> list[str]:
    return store.confirmation_warnings(home, mode, review_plan("New", note_ids, day(offset), 30),
                                       today())


def test_no_warning_when_nothing_is_saved_on_that_day(home: Path) -> None:
    assert warnings(home) == []
    save(home, "other-day", 6)
    assert warnings(home) == []


def test_the_same_review_is_named_and_the_day_is_counted(home: Path) -> None:
    save(home, "r-same", 5, minutes=20, note_ids=("N1", "N2"))  # same set, other order
    save(home, "r-other", 5, minutes=45, note_ids=("N3",))
    assert warnings(home) == [
        "the same review (same date, same notes) is already saved in plans/r-same.json",
        "that day already holds 65 minutes in 2 plans",
    ]


def test_a_subset_of_notes_is_not_the_same_review(home: Path) -> None:
    save(home, "r1", 5, minutes=20, note_ids=("N1",))
    assert warnings(home) == ["that day already holds 20 minutes in 1 plan"]


def test_several_duplicates_are_one_line(home: Path) -> None:
    for name in ("r1", "r2", "r3"):
        save(home, name, 5, minutes=10)
    assert warnings(home, note_ids=("N1", "N2")) == [
        "the same review (same date, same notes) is already saved in plans/r1.json and 2 more",
        "that day already holds 30 minutes in 3 plans",
    ]


def test_warnings_look_only_at_the_same_mode(home: Path) -> None:
    save(home, "demo-1", 5, folder="demo-plans")
    assert warnings(home) == []
    assert warnings(home, mode="demo")[0].endswith("already saved in demo-plans/demo-1.json")
    assert warnings(home, mode="nonsense") == []


def test_bad_files_are_left_out_of_warnings_without_a_sound(home: Path, tmp_path: Path) -> None:
    (home / "plans").mkdir()
    os.mkfifo(home / "plans" / "fifo.json")
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps(v2(plan_date=day(5))))
    (home / "plans" / "link.json").symlink_to(outside)
    write(home, "broken.json", b"{")
    save(home, "r1", 5, minutes=15, note_ids=("N3",))
    assert warnings(home) == ["that day already holds 15 minutes in 1 plan"]


def test_warnings_examine_a_bounded_number_of_files(home: Path, monkeypatch) -> None:
    monkeypatch.setattr(store, "MAX_WARNING_FILES", 3)
    for index in range(5):
        save(home, f"r{index}", 5, minutes=10, note_ids=("N3",))
    assert warnings(home) == [
        "only the newest 3 of 5 files in plans/ were checked for plans on this date",
        "that day already holds 30 minutes in 3 plans",
    ]


# --- planner plans --------------------------------------------------------------------------

runner = CliRunner()


def cli(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_plans_json_lists_upcoming_and_problems_exit_0(home: Path) -> None:
    save(home, "r-past", -2)
    save(home, "r-next", 3)
    write(home, "broken.json", b"{")
    result = cli("plans", "--json")
    assert result.exit_code == 0
    rows = json.loads(result.stdout)
    assert [(row["run_id"], row["problem"]) for row in rows] == [
        ("r-next", None),
        (None, "is not valid JSON (Expecting property name enclosed in double quotes: "
               "column 2)")]
    rows = json.loads(cli("plans", "--json", "--all").stdout)
    assert [row["run_id"] for row in rows] == ["r-next", "r-past", None]


def test_plans_table_shows_weekday_and_distance(home: Path) -> None:
    save(home, "r-today", 0, title="Today's review")
    save(home, "r-past", -3, title="Old review")
    save(home, "r-soon", 8, title="Later review")
    write(home, "broken.json", b"{")
    result = cli("plans")
    assert result.exit_code == 0
    weekday = WEEKDAYS[(today() + _dt.timedelta(days=8)).weekday()][:3]
    assert f"{day(8)} {weekday}  in 8 days" in result.stdout
    assert "today" in result.stdout and "Old review" not in result.stdout
    assert "1 past plan(s) not shown: planner plans --all lists them." in result.stdout
    assert "Cannot use plans/broken.json: is not valid JSON" in result.stdout
    assert result.stdout.index("Today's review") < result.stdout.index("Later review")
    full = cli("plans", "--all").stdout
    assert "3 days ago" in full and full.index("Later review") < full.index("Old review")
    assert "plans/r-soon.json" in full  # COLUMNS=120: the File column is there


def test_plans_table_fits_80_columns(home: Path, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    title = "向量检索与切分：从原理到实践的一次很长很长的复习"
    save(home, "20261130T100000000000Z-aaaaaa", 8, title=title)
    result = cli("plans")
    assert result.exit_code == 0
    assert max(len(line) for line in result.stdout.splitlines()) <= 80
    assert "in 8 days" in result.stdout and "向量检索" in result.stdout
    assert "File names: planner plans --json" in result.stdout


def test_plans_table_is_inert(home: Path) -> None:
    write(home, "\x1b]0;pwned\x07.json", b"{")
    write(home, "r1.json", v2(notes=[{"id": "N1", "title": "\x1b[2J"}]))
    result = cli("plans")
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "Cannot use plans/\\x1b]0;pwned\\x07.json: is not valid JSON" in result.stdout


def test_plans_with_no_plans_says_so(home: Path) -> None:
    result = cli("plans")
    assert (result.exit_code, result.stdout) == (0, "No plans to show in plans/.\n")
    assert cli("plans", "--json").stdout == "[]\n"
    save(home, "r-past", -1)
    assert cli("plans").stdout == ("No upcoming plans in plans/; 1 past plan(s): planner plans "
                                   "--all lists them.\n")
    assert cli("plans", "--demo").stdout == "No plans to show in demo-plans/.\n"


@pytest.mark.slow
def test_no_plans_but_demo_plans_says_demo_shows_them(home: Path) -> None:
    save(home, "d1", 1, folder="demo-plans", simulated=True)
    save(home, "d2", -1, folder="demo-plans", simulated=True)
    hint = "plans/ has no plans, but demo-plans/ has 2 from planner --demo: "
    listed = run_planner("plans")
    # One line for one fact (README "中文界面"): the hint alone says plans/ has none.
    assert (listed.returncode, listed.stdout) == (0, "")
    assert listed.stderr == hint + "planner plans --demo lists them.\n"
    assert run_planner("plans", "--json").stdout == "[]\n"
    before = sorted(home.rglob("*"))
    exported = run_planner("export", "--ics")
    assert (exported.returncode, exported.stdout) == (0, "")
    assert exported.stderr.splitlines() == [
        "No upcoming plans in plans/ to export (--all exports past ones too); nothing was "
        "written.", hint + "add --demo to export them."]
    assert sorted(home.rglob("*")) == before
    # Not said with --demo itself, nor once plans/ has a plan of its own.
    assert run_planner("plans", "--demo").stderr == ""
    save(home, "r1", -1)
    assert run_planner("plans").stderr == ""
    assert "demo-plans" not in run_planner("export", "--ics").stderr


def test_plans_demo_and_home_options(home: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    save(other, "d1", 1, folder="demo-plans", simulated=True)
    rows = json.loads(cli("plans", "--demo", "--json", "--home", str(other)).stdout)
    assert [(row["file"], row["simulated"]) for row in rows] == [("demo-plans/d1.json", True)]
    assert json.loads(cli("--home", str(other), "plans", "--demo", "--json").stdout) == rows


def test_plans_home_that_does_not_exist_is_a_usage_error(home: Path) -> None:
    result = cli("plans", "--home", "no-such-folder")
    assert result.exit_code == 2
    assert "--home no-such-folder: no such folder" in result.stderr


def test_plans_folder_link_is_one_line_exit_1(home: Path, tmp_path: Path) -> None:
    (home / "plans").symlink_to(tmp_path)
    result = cli("plans")
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1
    assert "plans is a symbolic link, which is not followed; make it a real folder" in \
        result.stderr


def test_hostile_plans_folder_through_the_real_command_in_bounded_time(
        home: Path, tmp_path: Path) -> None:
    """FIFO, links out of the home, a huge and a deep file: listed at once, no traceback."""
    folder = home / "plans"
    folder.mkdir()
    os.mkfifo(folder / "a-fifo.json")
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps(v2(run_id="secret", plan_title="SECRET")))
    (folder / "b-link.json").symlink_to(secret)
    (folder / "c-passwd.json").symlink_to("/etc/passwd")
    with open(folder / "d-huge.json", "wb") as huge:
        huge.truncate(1 << 30)  # sparse: 1 GiB that costs no disk
    (folder / "e-deep.json").write_bytes(b"[" * 500_000)
    save(home, "f-good", 2)
    for args in (["plans", "--json"], ["plans", "--all"], ["export", "--ics"]):
        done = run_planner(*args, text=False, new_session=False, timeout=30)
        assert done.returncode == 0, done.stderr
        assert b"Traceback" not in done.stderr and b"SECRET" not in done.stdout
        assert b"root:" not in done.stdout
    rows = json.loads(run_planner("plans", "--json", stdin=None, text=False, new_session=False,
                                  timeout=30).stdout)
    assert [(row["file"], row["problem"]) for row in rows] == [
        ("plans/f-good.json", None),
        ("plans/a-fifo.json", "is not a regular file (a FIFO)"),
        ("plans/b-link.json", "is a symbolic link, which is not followed here"),
        ("plans/c-passwd.json", "is a symbolic link, which is not followed here"),
        ("plans/d-huge.json", "is larger than 1 MiB"),
        ("plans/e-deep.json", "is JSON nested deeper than 64 levels"),
    ]


def test_plans_help_has_an_example() -> None:
    result = cli("plans", "--help")
    assert result.exit_code == 0 and "Example: planner plans --all" in result.stdout
