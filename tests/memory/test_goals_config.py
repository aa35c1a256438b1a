"""Goals in config.json: every rule checked like the rest of the config, and the selectors
(note ID, folder:, tag:) resolved against a notes folder."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

import pytest

from planner.base.config import Config, ConfigError, parse_config
from planner.base.goals import Goal, find_goal
from planner.notes.catalog import ListCatalog, Note, load_catalog
from planner.notes.selectors import MAX_GOAL_NOTES, GoalTooLarge, resolve


def goal(**fields: object) -> dict:
    return {"name": "JLPT N2", "date": "2027-01-08", "notes": ["N1"], **fields}


def refused(goals: object) -> str:
    with pytest.raises(ConfigError) as caught:
        parse_config({"goals": goals})
    return str(caught.value)


def test_no_goals_by_default_and_a_goal_read_as_written() -> None:
    assert Config().goals == () and parse_config({"goals": []}).goals == ()
    config = parse_config({"desired_retention": 0.85, "goals": [
        goal(), goal(name="Trip", date="2027-03-01", notes=["tag:travel"], retention=0.7)]})
    assert config.goals == (
        Goal("JLPT N2", _dt.date(2027, 1, 8), ("N1",), 0.85),  # desired_retention by default
        Goal("Trip", _dt.date(2027, 3, 1), ("tag:travel",), 0.7))


@pytest.mark.parametrize(("goals", "words"), [
    ({}, "key 'goals' must be a list of at most 20 goals"),
    ([goal(name=f"G{n}") for n in range(21)], "at most 20 goals"),
    (["JLPT"], "key 'goals[1]' must be an object"),
    ([goal(when="x")], "unknown key 'goals[1].when'"),
    ([{"name": "A", "date": "2027-01-08"}], "key 'goals[1].notes' is required"),
    ([goal(name="")], "key 'goals[1].name' must be a name of 1 to 40"),
    ([goal(name="x" * 41)], "key 'goals[1].name' must be a name of 1 to 40"),
    ([goal(name="a\x1bb")], "key 'goals[1].name' must be a name of 1 to 40"),
    ([goal(), goal(name="jlpt n2")], "key 'goals[2].name' repeats the name of goals[1]"),
    ([goal(date="2027-02-30")], "key 'goals[1].date' must be a real date"),
    ([goal(date="2027-1-08")], "key 'goals[1].date' must be a real date"),
    ([goal(date=20270108)], "key 'goals[1].date' must be a real date"),
    ([goal(notes=[])], "key 'goals[1].notes' must be a list of 1 to 50 selectors"),
    ([goal(notes=[f"N{n}" for n in range(51)])], "list of 1 to 50 selectors"),
    ([goal(notes="N1")], "list of 1 to 50 selectors"),
    ([goal(notes=[1])], "list of 1 to 50 selectors"),
    ([goal(notes=["tag:"])], "holds \"tag:\", which names no folder or tag"),
    ([goal(notes=["folder:/"])], "names no folder or tag"),
    ([goal(retention=0.69)], "key 'goals[1].retention' must be a number from 0.70 to 0.99"),
    ([goal(retention=True)], "key 'goals[1].retention' must be a number from 0.70 to 0.99"),
    ([goal(retention=float("inf"))], "key 'goals[1].retention' must be a number"),
])
def test_a_bad_goal_is_one_line_naming_its_key(goals: object, words: str) -> None:
    message = refused(goals)
    assert message.startswith("config.json: ") and words in message, message


def test_a_bad_goal_in_the_file_is_exit_2_naming_the_key(home: Path) -> None:
    from conftest import run_planner

    (home / "config.json").write_text(json.dumps({"goals": [goal(date="2027-13-01")]}),
                                      encoding="utf-8")
    result = run_planner("goals")
    assert result.returncode == 2 and result.stdout == ""
    assert "key 'goals[1].date' must be a real date" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_goal_is_found_by_a_unique_start_of_its_name_ignoring_case() -> None:
    goals = parse_config({"goals": [goal(), goal(name="JLPT N1"), goal(name="Trip")]}).goals
    assert [each.name for each in find_goal(goals, "jlpt")] == ["JLPT N2", "JLPT N1"]
    assert [each.name for each in find_goal(goals, "jlpt n1")] == ["JLPT N1"]
    assert [each.name for each in find_goal(goals, "TR")] == ["Trip"]
    assert find_goal(goals, "exam") == []


def write(folder: Path, path: str, text: str) -> None:
    target = folder / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def test_selectors_resolve_ids_folders_at_any_depth_and_tags(home: Path) -> None:
    notes = home / "notes"
    write(notes, "vocab/a.md", "---\ntags: [JLPT/N2, words]\n---\nfirst")
    write(notes, "vocab/deep/b.md", "plain")
    write(notes, "grammar/c.md", "a line with #jlpt inline")
    write(notes, "grammar/d.md", "#jlpt-old and #jlpts are other tags; so is a#jlpt")
    write(notes, "e.md", "---\nid: E1\n---\nnested inline #Jlpt/n1 tag")
    write(notes, "f.md", "日本語 #日语 笔记")
    catalog = load_catalog(home, None)
    scope = resolve(catalog, ["tag:jlpt", "folder:vocab/", "E1", "tag:日语", "folder:none/",
                              "nothing", "tag:words"])
    # Each selector's notes in the notes' order (by path), the union in selector order.
    assert scope.note_ids == ("E1", "grammar/c", "vocab/a", "vocab/deep/b", "f")
    assert scope.unmatched == ("folder:none/", "nothing")
    assert scope.warnings("JLPT N2") == ['goal JLPT N2: "folder:none/" matches no note',
                                         'goal JLPT N2: "nothing" matches no note']
    assert resolve(catalog, ["tag:JLPT/N2"]).note_ids == ("vocab/a",)


def test_a_goal_of_more_than_500_notes_is_a_config_error() -> None:
    many = ListCatalog([Note(f"N{n}", f"Note {n}", "#exam") for n in range(MAX_GOAL_NOTES + 1)],
                       "notes.json")
    assert len(resolve(many, [f"N{n}" for n in range(MAX_GOAL_NOTES)]).note_ids) == 500
    with pytest.raises(GoalTooLarge) as caught:
        resolve(many, ["tag:exam"], "Exam")
    assert caught.value.exit_code == 2
    assert "goal Exam: its notes selectors name 501 notes; a goal holds at most 500" \
        in str(caught.value)
