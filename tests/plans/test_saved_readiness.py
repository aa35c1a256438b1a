"""Plan files version 5 (README "Plans you can use"): a study plan saved for a goal records the
readiness it was saved with, `{"ready", "of", "best"}`; read back, the record is checked as
untrusted like every other field, and versions 1 to 4 read as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_planner, today
from plan_files import day, plan, plan_bytes, series, session, study_plan, write_plan, write_raw

from planner.plans import store
from planner.plans.files import SavedReadiness

RUN = "20261130T100000000000Z-ready1"
EXAM = study_plan(session(day(1), 20, ("N1",), "19:00"),
                  session(day(2), 30, ("N2", "N3"), "19:00"), title="Exam")


def test_a_study_plan_for_a_goal_is_version_5_with_its_readiness(home: Path) -> None:
    path = write_plan(home, RUN, EXAM, goal="Exam", readiness=SavedReadiness(2, 3, 3))
    data = json.loads(path.read_bytes())
    assert list(data) == ["version", "simulated", "run_id", "created_at", "goal", "readiness",
                          "plan", "notes"]
    assert (data["version"], data["readiness"]) == (5, {"ready": 2, "of": 3, "best": 3})
    # Not known: written null.
    unknown = json.loads(plan_bytes(RUN, EXAM, goal="Exam", readiness=SavedReadiness(0, 3)))
    assert unknown["readiness"] == {"ready": 0, "of": 3, "best": None}
    rows = store.list_plans(home, False, True, today())
    assert [(row.session, row.readiness) for row in rows] == [
        (1, SavedReadiness(2, 3, 3)), (2, SavedReadiness(2, 3, 3))]
    listed = run_planner("plans", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [row["problem"] for row in json.loads(listed.stdout)] == [None, None]


def test_without_a_readiness_the_files_are_written_as_before(home: Path) -> None:
    study = json.loads(plan_bytes(RUN, EXAM, goal="Exam"))
    assert study["version"] == 4 and "readiness" not in study
    # A plan or a series has no readiness to record: the value is not written.
    single = json.loads(plan_bytes(RUN, plan(1), readiness=SavedReadiness(1, 2)))
    several = json.loads(plan_bytes(RUN, series(1, 3), readiness=SavedReadiness(1, 2)))
    assert (single["version"], several["version"]) == (2, 3)
    assert "readiness" not in single and "readiness" not in several


def _v5(**readiness: object) -> dict:
    data = json.loads(plan_bytes(RUN, EXAM, goal="Exam", readiness=SavedReadiness(2, 3, 3)))
    data["readiness"] = readiness if readiness else None
    return data


BAD = [
    (_v5(), "readiness: must be an object"),
    (_v5(ready=1, of=3), "readiness: has no 'best'"),
    (_v5(ready=1, of=3, best=None, extra=1), 'readiness: has an unknown key "extra"'),
    (_v5(ready=4, of=3, best=None), "readiness.ready: must be an integer from 0 to readiness.of"),
    (_v5(ready=-1, of=3, best=None),
     "readiness.ready: must be an integer from 0 to readiness.of"),
    (_v5(ready=True, of=3, best=None),
     "readiness.ready: must be an integer from 0 to readiness.of"),
    (_v5(ready=1.0, of=3, best=None),
     "readiness.ready: must be an integer from 0 to readiness.of"),
    (_v5(ready="1", of=3, best=None),
     "readiness.ready: must be an integer from 0 to readiness.of"),
    (_v5(ready=1, of=501, best=None), "readiness.of: must be an integer from 0 to 500"),
    (_v5(ready=1, of=None, best=None), "readiness.of: must be an integer from 0 to 500"),
    (_v5(ready=1, of=3, best=4),
     "readiness.best: must be null or an integer from 0 to readiness.of"),
    (_v5(ready=1, of=3, best=False),
     "readiness.best: must be null or an integer from 0 to readiness.of"),
    (_v5(ready=1, of=3, best=10**400),
     "readiness.best: must be null or an integer from 0 to readiness.of"),
]


def test_a_bad_readiness_is_a_file_problem_named_by_its_field(home: Path) -> None:
    for number, (data, _problem) in enumerate(BAD):
        write_raw(home, f"20261130T1{number:05d}00000000Z-bad.json",
                  json.dumps({**data, "run_id": f"20261130T1{number:05d}00000000Z-bad"}).encode())
    listed = run_planner("plans", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    assert [row["problem"] for row in rows] == [problem for _data, problem in BAD]
    assert all(row["run_id"] is None for row in rows)


@pytest.mark.parametrize("version", [4, 5])
def test_a_version_4_file_with_a_readiness_or_a_version_5_without_is_refused(
        home: Path, version: int) -> None:
    data = json.loads(plan_bytes(RUN, EXAM, goal="Exam", readiness=SavedReadiness(2, 3)))
    if version == 4:
        data["version"] = 4
        problem = 'a plan file: has an unknown key "readiness"'
    else:
        del data["readiness"]
        problem = "a plan file: has no 'readiness'"
    write_raw(home, f"{RUN}.json", data)
    (row,) = store.list_plans(home, False, True, today())
    assert row.problem == problem


def test_versions_1_to_4_read_as_before(home: Path) -> None:
    write_raw(home, "20261130T090000000000Z-v1.json",
              {"plan": {"title": "T", "note_ids": ["N1"], "date": day(1), "minutes": 20},
               "simulated": False})
    write_plan(home, "20261130T100000000000Z-v2", plan(1))
    write_plan(home, "20261130T110000000000Z-v3", series(1, 3))
    write_plan(home, "20261130T120000000000Z-v4", EXAM, goal=None)
    rows = store.list_plans(home, False, True, today())
    assert all(row.problem is None and row.readiness is None for row in rows)
    assert len(rows) == 1 + 1 + 2 + 2
