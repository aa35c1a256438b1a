"""Replanning replaces (README "A study plan to a goal"): `planner plan --goal --replan` plans the
goal again from today; one SAVE writes the new plan and drops every session of the goal still
ahead (drop lines naming the new run); a drop whose new plan never came to exist (a crash
between the two writes) does not count; cancelling or nothing ahead changes nothing."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

import pexpect
import pytest
from conftest import run_planner, snapshot, today
from plan_files import session, study_plan, write_plan
from terminal import spawn

from planner.memory import log as review_log
from planner.notes.catalog import Note

RUN = "20261201T080000000000Z-aaaaaa"
NOTES = [f"N{number}" for number in range(1, 10)]
EXAM = today() + _dt.timedelta(days=28)


def setup_home(home: Path) -> None:
    folder = home / "notes"
    folder.mkdir()
    for note in NOTES:
        (folder / f"{note}.md").write_text(f"---\nid: {note}\ntags: [exam]\n---\n# {note}\nb\n",
                                           encoding="utf-8")
    (home / "config.json").write_text(json.dumps({
        "daily_minutes": 60, "study_hours": {"daily": ["18:00-21:00"]},
        "goals": [{"name": "Exam", "date": EXAM.isoformat(), "notes": ["tag:exam"]}]}),
        encoding="utf-8")
    day = today()
    # A plan saved a week ago: three evenings missed, two sessions still ahead.
    sessions = [session((day + _dt.timedelta(days=offset)).isoformat(), 30, ("N1", "N2"),
                        "18:00") for offset in (-5, -3, -1, 2, 9)]
    write_plan(home, RUN, study_plan(*sessions), goal="Exam",
               notes=[Note(note, note, "") for note in ("N1", "N2")])


def plans_json(home: Path) -> list[dict]:
    result = run_planner("plans", "--json", "--all")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_nothing_ahead_is_exit_2_and_nothing_changes(home: Path) -> None:
    setup_home(home)
    review_log.append(home, [review_log.Drop(f"{RUN}#4", _dt.datetime.now(_dt.UTC)),
                             review_log.Drop(f"{RUN}#5", _dt.datetime.now(_dt.UTC))])
    before = snapshot(home / "plans"), (home / "reviews.jsonl").read_bytes()
    result = run_planner("plan", "--goal", "exam", "--replan")
    assert result.returncode == 2
    assert "--replan: no session of Exam is still ahead to replace" in result.stderr
    assert (snapshot(home / "plans"), (home / "reviews.jsonl").read_bytes()) == before


def test_replan_json_names_what_it_replaces_and_writes_nothing(home: Path) -> None:
    setup_home(home)
    before = snapshot(home / "plans")
    result = run_planner("plan", "--goal", "exam", "--replan", "--json")
    assert result.returncode == 0, result.stderr
    plan = json.loads(result.stdout)
    assert plan["replaces"] == [f"{RUN}#4", f"{RUN}#5"]
    assert plan["ready"] == 9 and plan["of"] == 9
    assert snapshot(home / "plans") == before
    assert not (home / "reviews.jsonl").exists()


@pytest.mark.terminal
def test_one_save_writes_the_new_plan_and_drops_what_it_replaces(home: Path) -> None:
    setup_home(home)
    child, seen = spawn("plan", "--goal", "exam", "--replan", home=home)
    child.expect("Type SAVE")
    screen = " ".join(seen.text().split())
    assert "Replanning Exam: 2 saved sessions still ahead are replaced." in screen
    assert "removed: " in screen or "moved from " in screen or "kept: " in screen
    assert f"Ready on {EXAM.isoformat()}: " in screen and "9 with the new plan" in screen
    child.sendline("SAVE")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, seen.text()
    new = [path for path in (home / "plans").iterdir() if path.stem != RUN]
    assert len(new) == 1
    new_run = new[0].stem
    lines = [json.loads(line) for line in (home / "reviews.jsonl").read_text().splitlines()]
    assert [(line["kind"], line["run_id"], line["replaced_by"]) for line in lines] == [
        ("drop", f"{RUN}#4", new_run), ("drop", f"{RUN}#5", new_run)]
    rows = plans_json(home)
    old = {row["session"]: row for row in rows if row["run_id"] == RUN}
    assert old[4]["dropped"] and old[5]["dropped"]
    assert not old[1]["dropped"]  # a past session is not replaced
    assert sum(1 for row in rows if row["run_id"] == new_run) == len(
        json.loads(new[0].read_text())["plan"]["sessions"])
    # Asked again, nothing of the goal is left to replace but the new plan's own sessions.
    again = json.loads(run_planner("plan", "--goal", "exam", "--replan", "--json").stdout)
    assert all(ref.startswith(new_run) for ref in again["replaces"])


def test_drops_whose_new_plan_never_came_do_not_count(home: Path) -> None:
    """A crash after the drop lines and before the plan file: neither is there in effect."""
    setup_home(home)
    ghost = "20261206T080000000000Z-bbbbbb"
    review_log.append(home, [review_log.Drop(f"{RUN}#4", _dt.datetime.now(_dt.UTC), ghost),
                             review_log.Drop(f"{RUN}#5", _dt.datetime.now(_dt.UTC), ghost)])
    rows = {row["session"]: row for row in plans_json(home) if row["run_id"] == RUN}
    assert not rows[4]["dropped"] and not rows[5]["dropped"]
    # The replan still finds both sessions ahead.
    again = json.loads(run_planner("plan", "--goal", "exam", "--replan", "--json").stdout)
    assert again["replaces"] == [f"{RUN}#4", f"{RUN}#5"]
    # Once that plan exists, the drops stand.
    write_plan(home, ghost, study_plan(session((today() + _dt.timedelta(days=3)).isoformat(),
                                               15, ("N3",), "18:00")), goal="Exam",
               notes=[Note("N3", "N3", "")])
    rows = {row["session"]: row for row in plans_json(home) if row["run_id"] == RUN}
    assert rows[4]["dropped"] and rows[5]["dropped"]


@pytest.mark.terminal
def test_a_cancelled_replan_changes_nothing(home: Path) -> None:
    setup_home(home)
    before = snapshot(home / "plans")
    child, _seen = spawn("plan", "--goal", "exam", "--replan", home=home)
    child.expect("Type SAVE")
    child.sendline("no")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert snapshot(home / "plans") == before
    assert not (home / "reviews.jsonl").exists()


def model_home(home: Path, url: str) -> None:
    setup_home(home)
    config = json.loads((home / "config.json").read_text())
    config.update({"model": "stub-model", "base_url": url, "timeout_seconds": 5,
                   "max_calls": 3})
    (home / "config.json").write_text(json.dumps(config), encoding="utf-8")


def test_replan_needs_a_goal(home: Path) -> None:
    setup_home(home)
    result = run_planner("--dry-run", "-r", "again", "--replan")
    assert result.returncode == 2
    assert "--replan needs --goal NAME" in result.stderr


@pytest.mark.terminal
def test_a_model_replan_replaces_the_sessions_ahead_in_one_save(server, home: Path) -> None:
    from stub_server import Reply, text_reply, tool_call_reply

    model_home(home, server.url)
    day = today()
    # The new plan takes the very evening a replaced session holds: only the replaced ones
    # are left out of its checks.
    sessions = [{"date": (day + _dt.timedelta(days=offset)).isoformat(), "start": "18:00",
                 "minutes": 30, "note_ids": ["N1", "N2"]} for offset in (2, 5)]
    server.add(Reply(body=tool_call_reply({"title": "Exam again", "sessions": sessions},
                                          name="save_study_plan")),
               Reply(body=text_reply("Replanned.")))
    child, seen = spawn("-r", "replan my exam", "--goal", "exam", "--replan", home=home,
                        env={**__import__("os").environ, "DEEPSEEK_API_KEY": "sk-replan-0123456"})
    child.expect("Type SAVE")
    screen = " ".join(seen.text().split())
    assert "Replaces" in screen and "kept: " in screen and "moved from " in screen
    assert "already saved" not in screen and "already holds" not in screen
    child.sendline("SAVE")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, seen.text()
    first = server.chat_requests()[0].body["messages"][0]["content"]
    assert ("Replanning: 3 saved sessions of this goal were missed; the 2 still ahead are "
            "replaced by the study plan you propose") in first
    (new,) = [path for path in (home / "plans").iterdir() if path.stem != RUN]
    lines = [json.loads(line) for line in (home / "reviews.jsonl").read_text().splitlines()]
    assert [(line["run_id"], line["replaced_by"]) for line in lines] == [
        (f"{RUN}#4", new.stem), (f"{RUN}#5", new.stem)]
    rows = {row["session"]: row for row in plans_json(home) if row["run_id"] == RUN}
    assert rows[4]["dropped"] and rows[5]["dropped"] and not rows[3]["dropped"]


@pytest.mark.terminal
@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.0, 0.02, 0.05, 0.1, 0.3])
def test_a_kill_during_the_replan_save_leaves_both_or_neither(home: Path, delay: float) -> None:
    """SIGKILL at some moment after SAVE: the new plan and every drop, or neither in effect."""
    import os
    import signal
    import time

    setup_home(home)
    child, _seen = spawn("plan", "--goal", "exam", "--replan", home=home)
    child.expect("Type SAVE")
    child.sendline("SAVE")
    time.sleep(delay)
    os.kill(child.pid, signal.SIGKILL)
    child.expect(pexpect.EOF)
    child.close()
    new = [path for path in (home / "plans").iterdir() if path.stem != RUN]
    rows = {row["session"]: row for row in plans_json(home) if row["run_id"] == RUN}
    if new:
        assert rows[4]["dropped"] and rows[5]["dropped"]
    else:
        assert not rows[4]["dropped"] and not rows[5]["dropped"]
    assert not [path for path in (home / "plans").iterdir() if path.name.startswith(".")]
