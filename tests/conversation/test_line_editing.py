"""Line editing at the answer, feedback and rating prompts, and words kept whole (README "Going on
with a conversation").

Real key sequences go into a real pseudo-terminal: arrows, Home/End, Backspace over Chinese
characters, Up for this run's earlier answers, a bracketed paste. What counts is what the local
stub server received: exactly the line the person saw. A line still holding an escape sequence is
refused at the prompt and never sent. At 80 columns, report lines wrap between words.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PLANNER, ROOT, read_summary, run_dirs
from live_model import (
    CLI_TIMEOUT,
    KEY,
    KEY_ENV,
    explanation,
    one_line,
    plain,
    proposal,
    write_config,
)
from plan_files import day, plan, review_plan
from plan_files import write_plan as save
from pty_conversation import (
    ANSWER_PROMPT,
    FEEDBACK_PROMPT,
    SAVE_PROMPT,
    bodies,
    question,
    start,
    tool_content,
)
from review_log import RATING_PROMPT, log_lines
from rich.cells import cell_len
from stub_server import StubServer
from terminal import (
    BACKSPACE,
    DOWN,
    END,
    ENTER,
    HOME,
    LEFT,
    PASTE,
    PASTED,
    RIGHT,
    UP,
    finish,
    spawn,
)

# every case is a run in a pseudo-terminal
pytestmark = [pytest.mark.slow, pytest.mark.terminal]

KEYED = {KEY_ENV: KEY}
CONTROL_LINE = ("That line holds a control character or an escape sequence ({shown}); it was "
                "not used. Type it again, or press Enter.")


def user_words(server: StubServer) -> list[str]:
    """The person's messages the model received, in order (the request first)."""
    return [message["content"] for message in bodies(server)[-1]["messages"]
            if message["role"] == "user"]


# --- editing keys -------------------------------------------------------------------------------


def test_arrows_home_and_end_edit_the_answer(server: StubServer, home: Path) -> None:
    child, _ = start(server, home, question(), explanation())
    child.expect_exact(ANSWER_PROMPT)
    child.send("minutes" + HOME + "30 " + END + " on Friday" + LEFT * 6 + "next " + RIGHT * 6
               + " morning" + ENTER)
    child.expect_exact("The program saved")  # a question too: Enter finishes
    child.expect_exact(ANSWER_PROMPT)
    child.send(ENTER)
    assert finish(child) == 0
    assert user_words(server)[1:] == ["30 minutes on next Friday morning"]
    (folder,) = run_dirs(home)
    steps = read_summary(folder)["steps"]
    assert [step.get("text") for step in steps if step["kind"] == "answer"] == [
        "30 minutes on next Friday morning"]


@pytest.mark.parametrize("locale", ["C", "C.UTF-8"])
def test_backspace_over_chinese_at_80_columns(locale: str, home: Path) -> None:
    # 50 wide characters before the words: the line wraps at 80 columns while it is edited.
    long = "请" * 50
    with StubServer() as server:
        server.add(question(), explanation())
        write_config(home, server.url, max_calls=6, max_repairs=1)
        child, _ = spawn("--request", "复习 N1", columns=80, **KEYED, LANG=locale, LC_ALL=locale)
        child.expect_exact(ANSWER_PROMPT)
        child.send(long + "复习三十分钟" + LEFT * 2 + BACKSPACE * 2 + "四十五" + HOME + "好" + END
                   + "。" + ENTER)
        child.expect_exact("The program saved")
        child.expect_exact(ANSWER_PROMPT)
        child.send(ENTER)
        assert finish(child) == 0
        assert user_words(server)[1:] == ["好" + long + "复习四十五分钟。"]


def test_up_and_down_recall_this_runs_answers(server: StubServer, home: Path) -> None:
    child, _ = start(server, home, question(), question("Which time?"), question("Anything else?"),
                     question("Sure?"), explanation())
    child.expect_exact(ANSWER_PROMPT)
    child.send("On Friday" + ENTER)
    child.expect_exact("Which time?")
    child.expect_exact(ANSWER_PROMPT)
    child.send(UP + " at 9" + ENTER)
    child.expect_exact("Anything else?")
    child.expect_exact(ANSWER_PROMPT)
    # Up twice is the first answer; Down once more is the second; Down again the empty line.
    child.send(UP + UP + DOWN + DOWN + "No, thanks" + ENTER)
    child.expect_exact("Sure?")
    child.expect_exact(ANSWER_PROMPT)
    child.send(UP + UP + UP + ENTER)
    child.expect_exact("The program saved")
    child.expect_exact(ANSWER_PROMPT)
    child.send(ENTER)
    assert finish(child) == 0
    assert user_words(server)[1:] == ["On Friday", "On Friday at 9", "No, thanks", "On Friday"]


def test_a_pasted_block_is_one_line_as_shown(server: StubServer, home: Path) -> None:
    child, seen = start(server, home, question(), explanation())
    child.expect_exact(ANSWER_PROMPT)
    child.send("Notes: " + PASTE + "N1 first,\r\nN2 after\nthat" + PASTED + ENTER)
    child.expect_exact("The program saved")
    child.expect_exact(ANSWER_PROMPT)
    child.send(ENTER)
    assert finish(child) == 0
    assert user_words(server)[1:] == ["Notes: N1 first, N2 after that"]
    assert "Notes: N1 first, N2 after that" in plain("".join(seen))


def test_the_feedback_prompt_edits_too(server: StubServer, home: Path) -> None:
    child, _ = start(server, home, proposal(), explanation("Nothing was saved."))
    child.expect_exact(SAVE_PROMPT)
    child.sendline("no")
    child.expect_exact(FEEDBACK_PROMPT)
    child.send("Use N3" + HOME + "Please: " + END + BACKSPACE + "2" + ENTER)
    child.expect_exact("Nothing was saved.")  # the model's words: a question, Enter finishes
    child.expect_exact(ANSWER_PROMPT)
    child.send(ENTER)
    assert finish(child) == 0
    received = bodies(server)
    assert tool_content(received[1]) == {"status": "cancelled", "feedback": "Please: Use N2"}


# --- what is refused ----------------------------------------------------------------------------


def test_a_line_with_an_escape_sequence_is_refused_and_never_sent(
    server: StubServer, home: Path
) -> None:
    child, seen = start(server, home, question(), explanation())
    child.expect_exact(ANSWER_PROMPT)
    # Pasted, the escape sequence stays in the line instead of moving the cursor.
    child.send(PASTE + "30分钟\x1b[D" + PASTED + ENTER)
    child.expect_exact(CONTROL_LINE.format(shown="30分钟\\x1b[D"))
    child.expect_exact(ANSWER_PROMPT)
    child.send("30分钟" + ENTER)
    child.expect_exact("The program saved")
    child.expect_exact(ANSWER_PROMPT)
    child.send(ENTER)
    assert finish(child) == 0
    received = bodies(server)
    assert user_words(server)[1:] == ["30分钟"]
    assert all("\x1b" not in json.dumps(body, ensure_ascii=False) for body in received)
    assert "\\x1b" not in json.dumps(received, ensure_ascii=False)
    (folder,) = run_dirs(home)
    assert all(b"\x1b" not in path.read_bytes() and b"\\u001b" not in path.read_bytes()
               for path in folder.iterdir())


def test_a_line_refused_three_times_finishes_without_sending(
    server: StubServer, home: Path
) -> None:
    child, seen = start(server, home, question(), explanation())
    for _ in range(3):
        child.expect_exact(ANSWER_PROMPT)
        child.send(PASTE + "a\tb" + PASTED + ENTER)
        child.expect_exact(CONTROL_LINE.format(shown="a\\tb"))
    assert finish(child) == 0
    received = bodies(server)
    assert len(received) == 1  # nothing more was sent: an empty answer ends the run
    (folder,) = run_dirs(home)
    assert read_summary(folder)["status"] == "no_tool"


def test_a_line_is_bounded_where_the_person_sees_it_end(server: StubServer, home: Path) -> None:
    child, _ = start(server, home, question(), explanation())
    child.expect_exact(ANSWER_PROMPT)
    child.send(PASTE + "x" * 5000 + PASTED + ENTER)  # more than a line holds (4,000)
    child.expect_exact("That is 4,000 characters; at most 2,000 can be sent.")
    child.expect_exact(ANSWER_PROMPT)
    child.send(ENTER)
    assert finish(child) == 0
    assert len(bodies(server)) == 1


def test_a_dumb_terminal_reads_a_plain_line_and_refuses_an_arrow_keys_bytes(
    server: StubServer, home: Path
) -> None:
    # TERM=dumb: no cursor moves, so no editor; an arrow key typed there is bytes in the line.
    server.add(question(), explanation())
    write_config(home, server.url, max_calls=6, max_repairs=1)
    child, seen = spawn("--request", "复习 N1", columns=200, **KEYED, TERM="dumb")
    child.expect_exact(ANSWER_PROMPT)
    child.send("30分钟" + LEFT + ENTER)
    child.expect_exact("Type it again, or press Enter.")
    assert CONTROL_LINE.format(shown="30分钟\\x1b[D") in one_line("".join(seen))
    child.expect_exact(ANSWER_PROMPT)
    child.send("30分钟" + ENTER)
    child.expect_exact("The program saved")
    child.expect_exact(ANSWER_PROMPT)
    child.send(ENTER)
    assert finish(child) == 0
    assert user_words(server)[1:] == ["30分钟"]
    assert "\x1b[?2004h" not in "".join(seen)  # the editor never drew
    assert all("\x1b" not in json.dumps(body, ensure_ascii=False) for body in bodies(server))


# --- the rating prompt --------------------------------------------------------------------------


def test_the_rating_prompt_edits_and_drops_what_was_typed_ahead(home: Path) -> None:
    saved = save(home, "20261130T100000000000Z-aaaaaa", plan(0))
    child, _ = spawn("done", columns=200, **KEYED)
    child.send("again\r")  # typed before the question is on the screen: never read
    child.expect_exact(RATING_PROMPT)
    child.send("hadr" + BACKSPACE * 2 + "rd" + ENTER)
    assert finish(child) == 0
    assert [(line["rating"], line["run_id"]) for line in log_lines(home)] == [
        ("hard", saved.stem), ("hard", saved.stem)]


# --- the editor is loaded only for a prompt ----------------------------------------------------


@pytest.mark.parametrize("args", [["--help"], ["--dry-run"], ["runs"], ["costs"], ["--demo"]])
def test_the_line_editor_loads_only_when_a_prompt_is_shown(home: Path, args: list[str]) -> None:
    # --demo with no terminal: nobody is asked, so nothing is edited either.
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "planner", *args],
                          capture_output=True, text=True, cwd=home, timeout=CLI_TIMEOUT,
                          stdin=subprocess.DEVNULL, start_new_session=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    loaded = {line.split("|")[-1].strip() for line in done.stderr.splitlines()
              if line.startswith("import time:")}
    assert "planner.cli.app" in loaded  # the check sees planner's own imports
    assert not {name for name in loaded
                if name.startswith("prompt_toolkit") or name == "planner.ui.editor"}


def test_a_prompt_loads_the_editor(server: StubServer, home: Path) -> None:
    # The other side of the test above: the probe sees the editor when a prompt is shown.
    server.add(question(), explanation())
    write_config(home, server.url, max_calls=6, max_repairs=1)
    code = ("import sys, runpy; sys.argv = ['planner', '--request', 'x']\n"
            "try:\n    runpy.run_module('planner', run_name='__main__')\n"
            "finally:\n    print('EDITOR', 'prompt_toolkit' in sys.modules)")
    child, _ = spawn("-c", code, program=sys.executable, columns=None, **KEYED,
                     PYTHONPATH=str(ROOT))
    child.expect_exact(ANSWER_PROMPT)
    child.send(ENTER)
    child.expect_exact("EDITOR True")
    finish(child)


# --- whole words at 80 columns ----------------------------------------------------------------


def assert_words_whole(screen: str, sentence: str, columns: int = 80) -> None:
    """The sentence is on the screen wrapped between its words only, no line past `columns`."""
    lines = [line.rstrip() for line in plain(screen).splitlines()]
    words = sentence.split()
    start = next(i for i, line in enumerate(lines) if line.startswith(" ".join(words[:2])))
    shown: list[str] = []
    for line in lines[start:]:
        assert cell_len(line) <= columns, line
        shown += line.split()
        if len(shown) >= len(words):
            break
    assert shown == words  # a word cut in two ("reviewe", "d") would differ here
    assert sum(1 for line in lines[start:] if line) > 1 or cell_len(sentence) <= columns


TITLE = "复习 Retrieval augmented generation: chunking and vector search"  # 80 at most


def test_done_and_undo_wrap_between_words_at_80_columns(home: Path) -> None:
    run_id = "20261130T100000000000Z-bbbbbb"
    save(home, run_id, review_plan(TITLE, ("N1", "N2"), day(0), 20))
    child, seen = spawn("done", "--rating", "good", columns=80, **KEYED)
    assert finish(child) == 0
    assert_words_whole("".join(seen),
                       f"Recorded good for plans/{run_id}.json: {TITLE}, reviewed today.")
    review = log_lines(home)[0]
    child, seen = spawn("done", "--undo", review["review_id"], columns=80, **KEYED)
    assert finish(child) == 0
    lines = plain("".join(seen)).splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("Undone"))
    assert all(cell_len(line) <= 80 for line in lines)
    words = " ".join(lines[first:first + 3]).split()
    assert words[:5] == ["Undone:", "review", review["review_id"], "of", "N1"]
    tail = "no longer counts; the log keeps it, marked undone.".split()
    assert words[words.index("longer") - 1:][:len(tail)] == tail
    assert lines[first + 1].strip()  # it did wrap: the tail check above spans the break


QUERY = "words that match nothing in the sample notes of this learner at all"


def test_info_lines_wrap_between_words_and_stay_whole_in_a_pipe(home: Path) -> None:
    child, seen = spawn("notes", QUERY, columns=80, **KEYED)
    assert finish(child) == 0
    sentence = f"No notes in the built-in samples match {QUERY!r}."
    assert_words_whole("".join(seen), sentence)
    piped = subprocess.run([PLANNER, "notes", QUERY], capture_output=True, text=True, cwd=home,
                           timeout=CLI_TIMEOUT, env={**os.environ, "COLUMNS": "80"})
    assert piped.stdout == sentence + "\n"
