"""Trust, part three (README "A screen you can trust"): lookups bounded per reply, over-long
numbers in config.

The typed-ahead SAVE is tested in a real terminal in test_typed_ahead.py; run IDs and text in
calendar exports in test_export.py.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import icalendar
import pytest
from calendar_plans import BERLIN, day, save
from conftest import env_with, run_planner
from plan_files import write_raw as write
from scripted_conversation import EXPLAINED, NEVER, calls, converse, peek, propose, say, with_peek
from terminal import spawn

from planner.base.config import ConfigError, load_config
from planner.base.storage import to_json
from planner.conversation import protocol
from planner.conversation.tools import Registry, Tool
from planner.notes.catalog import SAMPLE_NOTES


def test_ten_lookups_in_one_reply_all_run(home: Path) -> None:
    log: list = []
    lookups = [peek(f"N{n}", f"look_{n}") for n in range(10)]
    run = converse(home, [calls(*lookups), propose(), say(EXPLAINED)], ["SAVE\n"],
                   registry=with_peek(log))
    assert len(log) == 10 and run.kinds()[:10] == ["lookup"] * 10
    assert run.outcome.status == "complete"


@pytest.mark.parametrize("count", [11, 500])
def test_more_than_ten_lookups_in_one_reply_is_rejected_with_the_limit_named(
        home: Path, count: int) -> None:
    log: list = []
    lookups = [peek(f"N{n}", f"look_{n}") for n in range(count)]
    run = converse(home, [calls(*lookups), propose(), say(EXPLAINED)], ["SAVE\n"],
                   registry=with_peek(log))
    assert log == []  # not one of them ran
    problem = f"at most 10 lookup calls in one reply, got {count}"
    answers = run.requests[1]["messages"][3:]
    assert [json.loads(m["content"]) for m in answers] == [
        {"status": "rejected", "error": problem}] * count
    assert [event.error for event in run.events("Rejected")] == [problem]
    assert run.kinds() == ["rejected"] * count + ["proposal", "decision", "explanation"]
    assert run.outcome.status == "complete"


def test_500_lookups_every_reply_stop_the_run_with_bounded_requests(home: Path) -> None:
    log: list = []
    flood = calls(*[peek("N1", f"look_{n}") for n in range(500)])
    run = converse(home, [flood, flood, NEVER], [], registry=with_peek(log))
    assert log == [] and len(run.requests) == 2
    assert (run.outcome.status, run.outcome.exit_code) == ("stopped", 1)
    assert "at most 10 lookup calls in one reply, got 500" in run.outcome.error


def test_results_of_one_turn_add_up_to_at_most_16_kib(home: Path) -> None:
    big = Tool("big", {"type": "function", "function": {"name": "big", "parameters": {}}},
               check=lambda arguments: arguments,
               run=lambda arguments: {"text": "x" * 3000})
    registry = Registry([protocol.save_tool([note.id for note in SAMPLE_NOTES]), big])
    reply = calls(*[{"id": f"b{n}", "type": "function",
                     "function": {"name": "big", "arguments": "{}"}} for n in range(10)])
    run = converse(home, [reply, propose(), say(EXPLAINED)], ["SAVE\n"], registry=registry)
    answers = [json.loads(m["content"]) for m in run.requests[1]["messages"][3:]]
    full = [answer for answer in answers if "text" in answer]
    refused = [answer for answer in answers if "error" in answer]
    assert len(full) == 5 and len(refused) == 5  # 5 x 3,012 bytes fit in 16,384; a 6th not
    assert answers[:5] == full  # the first ones asked for are the ones answered
    assert refused[0]["error"].startswith(
        "the results of one reply's lookups may add up to at most 16384 bytes")
    assert sum(len(to_json(answer)) for answer in answers) <= 16384 + 10 * 200


@pytest.mark.parametrize(("key", "rule"), [
    ("max_calls", "must be a whole number from 2 to 20"),
    ("timeout_seconds", "must be a number greater than 0 and at most 600"),
    ("max_tokens", "must be a whole number from 1 to 1,000,000"),
])
@pytest.mark.parametrize("sign", ["", "-"])
def test_a_number_too_long_to_read_is_named_with_its_range(
        tmp_path: Path, key: str, rule: str, sign: str) -> None:
    path = tmp_path / "config.json"
    path.write_text(f'{{"{key}": {sign}{"9" * 5000}}}')
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert message == f"{path}: key '{key}' {rule}"
    assert "4300" not in message and "int_max_str_digits" not in message


# --- calendar exports: run IDs checked, no control or bidi character written or shown --------

ESCAPES = "\x1b[2J\x1b[H"
GOOD_RUN = "20261130T100000000000Z-abc123"
CONTROLS = re.compile("[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f"
                      "\u2028-\u202e\u2060-\u2069\ufeff]")


def hostile_plans(home: Path) -> None:
    """A good plan whose note title holds an RTL override, and a version-1 file named with
    escape sequences (its name would be the run ID, and so the calendar UID)."""
    save(home, GOOD_RUN, 2, note_ids=("N1",))
    path = home / "plans" / f"{GOOD_RUN}.json"
    data = json.loads(path.read_text())
    data["notes"][0]["title"] = "abc\u202edcba"
    path.write_text(json.dumps(data))
    write(home, f"{ESCAPES}20261001T000000000000Z-0b0b0b.json", {
        "simulated": False,
        "plan": {"title": "Old format", "note_ids": ["N3"], "date": day(3), "minutes": 25}})


def test_a_plan_file_named_with_escapes_is_left_out_of_exports(home: Path) -> None:
    hostile_plans(home)
    done = run_planner("export", "--ics", "--output", "out.ics", cwd=home,
                       env=env_with(TZ=BERLIN), text=False, new_session=False)
    assert done.returncode == 0, done.stderr
    data = (home / "out.ics").read_bytes()
    assert b"\x1b" not in data and "\u202e".encode() not in data
    assert not CONTROLS.search(data.decode().replace("\r\n", ""))
    [event] = icalendar.Calendar.from_ical(data).events
    assert event["UID"] == f"{GOOD_RUN}@planner"
    assert "N1  abc\\u202edcba" in event["DESCRIPTION"]
    stderr = done.stderr.decode()
    assert "\x1b" not in stderr
    assert ("Skipped plans/\\x1b[2J\\x1b[H20261001T000000000000Z-0b0b0b.json: its name is not "
            "a run ID") in stderr
    listing = run_planner("plans", "--json", cwd=home, env=env_with(TZ=BERLIN), text=False,
                          new_session=False)
    rows = json.loads(listing.stdout)
    assert [row["problem"] is None for row in rows] == [True, False]
    assert b"\x1b" not in listing.stdout


@pytest.mark.terminal
def test_an_export_printed_to_a_terminal_is_inert(home: Path) -> None:
    hostile_plans(home)
    child, _ = spawn("export", "--ics", home=home, columns=200, timeout=60)
    shown = re.sub(r"\x1b\[[0-9;]*m", "", child.read())  # the program's own dim notice
    child.close()
    assert child.exitstatus == 0, shown
    assert "BEGIN:VCALENDAR" in shown and f"UID:{GOOD_RUN}@planner" in shown
    assert "\x1b" not in shown and "\u202e" not in shown
    # Long lines are folded, and iCalendar text writes a backslash twice.
    assert "abc\\\\u202edcba" in shown.replace("\r\n ", "")


@pytest.mark.terminal
def test_bytes_written_to_a_terminal_are_made_inert_and_to_a_pipe_exact() -> None:
    script = ("import sys; from planner import ui; "
              "ui.write_bytes(b'BEGIN:X\\x1b[2J\\r\\nT:\\xe2\\x80\\xae\\r\\n')")
    child, _ = spawn("-c", script, program=sys.executable, columns=None, timeout=60)
    shown = child.read()
    child.close()
    assert child.exitstatus == 0, shown
    assert "\x1b" not in shown and "\u202e" not in shown
    assert "BEGIN:X\\x1b[2J" in shown and "T:\\u202e" in shown
    piped = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert piped.stdout == b"BEGIN:X\x1b[2J\r\nT:\xe2\x80\xae\r\n"
