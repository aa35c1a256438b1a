"""A screen you can trust (README "A screen you can trust"), end to end in a real pseudo-terminal.

Every case runs the installed `planner` in a pty (pexpect) and records every byte the terminal
received. Hostile text (escape sequences of every kind, 8-bit C1 controls, bidi overrides, Rich
markup, layout tricks) goes in through one output path: the model's question or explanation, a
proposal's title or tool call, a server's error, notes.json, a near miss typed at SAVE, or
records read back by runs/show/costs. What must hold, on the exact bytes:

- after removing the program's own SGR colour sequences (and the waiting line's own
  carriage-return + erase-line and cursor show/hide), no ESC, no C1 (U+0080-U+009F), no BEL,
  no bidi or other invisible format character and no bare carriage return is left;
- the hostile text is there, in its visible escaped form (`\\x1b]52;...`), markup literally;
- no line of the screen starts (after a panel's `│ `) like a program row it did not write:
  `Date`, `Minutes`, `Title`, and at the left edge `Saved to`.

Colour is forced on (FORCE_COLOR, TERM=xterm-256color) or off (NO_COLOR) where it matters.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from pathlib import Path

import pexpect
import pytest
import terminal
from conftest import PLANNER, plan_body, read_summary, run_dirs
from live_model import FUTURE, GOOD_PLAN, KEY, KEY_ENV, wait_for, write_config
from plan_files import review_plan, write_plan, write_raw
from rich.cells import cell_len
from run_records import call, deepseek_usage, summary, write_run
from stub_server import Reply, StubServer, error_body, text_reply, tool_call, tool_call_reply

from planner.ui.conversation import (
    ANSWER_PROMPT,
    ASKS_LINE,
    FEEDBACK_PROMPT,
    NO_PLAN_LINE,
    SAVE_PROMPT,
)

# every case runs planner in a pseudo-terminal
pytestmark = [pytest.mark.slow, pytest.mark.terminal]

SECONDS = 30  # far above any run here; reached only by a hang
SLOW = 30.0  # a reply delay no test waits for: the server wakes it at teardown

# Each hostile string and what the screen must show instead (Python-style escapes, README "A screen
# you can trust").
HOSTILE = {
    "cursor up, erase line, green fake result": (
        "\x1b[1A\x1b[2K\x1b[1;32mSaved to plans/x.json\x1b[0m",
        "\\x1b[1A\\x1b[2K\\x1b[1;32mSaved to plans/x.json\\x1b[0m"),
    "clipboard write (OSC 52)": ("\x1b]52;c;SGVsbG8=\x07", "\\x1b]52;c;SGVsbG8=\\x07"),
    "hyperlink (OSC 8)": ("\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\",
                          "\\x1b]8;;http://evil.example/\\x1b\\click\\x1b]8;;\\x1b\\"),
    "window title (OSC 0)": ("\x1b]0;PWNED\x07", "\\x1b]0;PWNED\\x07"),
    "DCS": ("\x1bP1$qm\x1b\\", "\\x1bP1$qm\\x1b\\"),
    "8-bit CSI": ("\x9b2J\x9b1A", "\\x9b2J\\x9b1A"),
    "C1 next line": ("one\x85two", "one\\x85two"),
    "right-to-left override": ("\u202eevil.exe", "\\u202eevil.exe"),
    "bell and backspace": ("ding\x07\x08\x08", "ding\\x07\\x08\\x08"),
    "the waiting line's own erase": ("\r\x1b[1A\x1b[2Kgone", "\\r\\x1b[1A\\x1b[2Kgone"),
    "Rich markup": ("[bold green]Saved[/] [link=http://evil.example]x[/link]",
                    "[bold green]Saved[/] [link=http://evil.example]x[/link]"),
}
RAW = [raw for raw, _ in HOSTILE.values()]
SHOWN = [shown for _, shown in HOSTILE.values()]
# Where whitespace is folded before anything is shown (notes.json titles, a server's message),
# U+0085 and CR are spaces by then: removed, which is inert too.
FOLDED = [" ".join(shown.replace("\\x85", " ").replace("\\r", " ").split()) for shown in SHOWN]
BLOCK = "\n".join(RAW)  # multi-line model text: one hostile string per line
LINE = " | ".join(RAW)  # one-line places: errors, cells, titles

# Rich's own colour and style sequences: the only escape sequences the program writes.
SGR = re.compile(rb"\x1b\[[0-9;]*m")
# The waiting line's own (README "Looking back", a Rich status): back to the start of its line,
# erase it and
# the lines above it takes; hide and show the cursor. A hostile copy of these would still be
# caught: its escaped form would be missing from the screen.
OWN = re.compile(rb"\r(?:\x1b\[2K|\x1b\[1A\x1b\[2K)+|\x1b\[\?25[lh]")
# The line editor's own drawing at an edited prompt (README "Going on with a conversation"), from
# turning bracketed paste on to
# turning it off: cursor moves, erases and modes. Only these sequences are dropped there; the
# prompt's words and the typed text stay, checked like the rest.
EDITOR = re.compile(rb"(?:\x1b\[\?12l)?(?:\x1b\[\?25h)?\x1b\[\?2004h.*?\x1b\[\?2004l", re.S)
EDITOR_OWN = re.compile(rb"\x1b\[(?:\?(?:12|25|2004|1|7)[hl]|[0-9]*[ABCDJKm])|\r(?=\r\n)")
BOX = re.compile(r"[\s\u2500-\u257f]")
COLOURS = [pytest.param(True, id="colour"), pytest.param(False, id="NO_COLOR")]




# --- running planner in a pseudo-terminal -------------------------------------------------------


class Terminal:
    """planner in a pty; every byte the terminal received is kept in `raw`."""

    def __init__(self, home: Path, args: list[str], colour: bool, *, width: int = 100,
                 program: str = PLANNER, extra_env: dict | None = None) -> None:
        env = {name: value for name, value in os.environ.items()
               if name not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES")}
        env.update({"TERM": "xterm-256color", KEY_ENV: KEY, **(extra_env or {})})
        env["FORCE_COLOR" if colour else "NO_COLOR"] = "1"
        # No COLUMNS: Rich measures the pseudo-terminal itself, as it would a real one.
        self.child, self.seen = terminal.spawn(*args, home=home, env=env, program=program,
                                               encoding=None, timeout=SECONDS, columns=width,
                                               measure=True)

    @property
    def raw(self) -> bytes:
        return b"".join(self.seen)

    def wait_for(self, prompt: str) -> None:
        self.child.expect_exact(prompt.encode())

    def answer(self, line: str) -> None:
        self.child.sendline(line.encode())

    def cancel_without_changes(self) -> int:
        """At the SAVE prompt: cancel, ask for no changes, and wait for the end."""
        self.answer("no")
        self.wait_for(FEEDBACK_PROMPT)
        self.answer("")
        return self.finish()

    def finish(self) -> int:
        """Wait for the end; the exit status (128 + N for a signal, as a shell shows it)."""
        self.child.expect(pexpect.EOF)
        self.child.close()
        if self.child.exitstatus is None:
            return 128 + self.child.signalstatus
        return self.child.exitstatus


def shown_text(raw: bytes) -> str:
    """The bytes as the screen shows them, after checking that nothing in them is live.

    Fails if anything but the program's own SGR (and the waiting line's erase) is an escape
    sequence, or if any control or invisible format character is left.
    """
    raw = EDITOR.sub(lambda drawn: EDITOR_OWN.sub(b"", drawn.group()), raw)
    rest = OWN.sub(b"", SGR.sub(b"", raw))
    at = rest.find(b"\x1b")
    assert at < 0, f"raw ESC on the screen: {rest[max(0, at - 60):at + 60]!r}"
    for raw_form in (b"\xc2\x9b", b"\xc2\x85", b"\xe2\x80\xae", b"\x07", b"\x08"):
        assert raw_form not in rest, f"raw {raw_form!r} on the screen"
    text = rest.decode("utf-8")  # strict: a lone 8-bit C1 byte is not UTF-8 and fails here
    text = text.replace("\r\n", "\n")
    live = sorted({char for char in text if char != "\n" and char not in "\u200c\u200d"
                   and unicodedata.category(char) in ("Cc", "Cf", "Cs", "Zl", "Zp")})
    assert not live, f"control or format characters on the screen: {live!r}"
    return text


def flat(text: str) -> str:
    """The text without whitespace and box drawing: immune to where a panel wraps it."""
    return BOX.sub("", text)


def assert_escaped_forms(text: str, forms: list[str] = SHOWN) -> None:
    screen = flat(text)
    for form in forms:
        assert flat(form) in screen, f"{form!r} is not shown"


def lines_starting(text: str, word: str) -> list[str]:
    """Screen lines that start with word, after a panel's left border (`│ `, `| `) if any."""
    found = []
    for line in text.split("\n"):
        inside = line[2:] if line[:2] in ("│ ", "| ") else line
        if inside.startswith(word):
            found.append(line)
    return found


def assert_program_rows_only(text: str) -> None:
    """The confirmation screen has each of its rows once; nothing else looks like one."""
    for label in ("Title ", "Date ", "Minutes ", "Save to "):
        assert len(lines_starting(text, label)) == 1, (label, lines_starting(text, label[:4]))
    for label in ("Date", "Minutes", "Title"):
        assert len(lines_starting(text, label)) == 1, lines_starting(text, label)


def edge_lines(text: str, word: str) -> list[str]:
    """Lines starting with word at the very left edge (the program's own result lines)."""
    return [line for line in text.split("\n") if line.startswith(word)]


def live_terminal(home: Path, server: StubServer, colour: bool, *replies: Reply,
                  width: int = 100, **config: object) -> Terminal:
    server.add(*replies)
    write_config(home, server.url, **config)
    return Terminal(home, ["--request", "review N1 and N2"], colour, width=width)


def proposal(plan: dict | None = None) -> Reply:
    return Reply(body=tool_call_reply(plan or GOOD_PLAN))


# --- the model's words --------------------------------------------------------------------------


@pytest.mark.parametrize("colour", COLOURS)
def test_model_question_is_inert_and_follows_the_truth(
    server: StubServer, home: Path, colour: bool
) -> None:
    text = f"Saved to plans/x.json\n{BLOCK}\nDate     2099-01-01"
    screen = live_terminal(home, server, colour, Reply(body=text_reply(text)))
    screen.wait_for(ANSWER_PROMPT)
    screen.answer("")
    assert screen.finish() == 0
    shown = shown_text(screen.raw)
    assert_escaped_forms(shown)
    # The program's own line comes first; the model's claim stays inside its labelled panel.
    # A question the person is asked to answer is no failure (README "Going on with a
    # conversation"); once the person
    # finishes with Enter, the run ends without a plan and says so.
    assert shown.index(ASKS_LINE) < shown.index("Model question") \
        < shown.index("Saved to plans/x.json") < shown.index(NO_PLAN_LINE)
    assert edge_lines(shown, ASKS_LINE) and edge_lines(shown, NO_PLAN_LINE)
    assert not edge_lines(shown, "Saved to")
    assert read_summary(run_dirs(home)[0])["status"] == "no_tool"
    assert not (home / "plans").exists()


@pytest.mark.parametrize("colour", COLOURS)
def test_explanation_cannot_erase_the_cancel(server: StubServer, home: Path,
                                             colour: bool) -> None:
    screen = live_terminal(home, server, colour, proposal(),
                           Reply(body=text_reply(BLOCK)))
    screen.wait_for(SAVE_PROMPT)
    assert screen.cancel_without_changes() == 0
    shown = shown_text(screen.raw)
    assert_escaped_forms(shown)
    assert edge_lines(shown, "Cancelled: nothing saved.")
    assert shown.index("Cancelled: nothing saved.") < shown.index("Model explanation")
    assert not edge_lines(shown, "Saved to")
    # The fake result was never styled: no SGR right before its words.
    assert not re.search(rb"\x1b\[[0-9;]*m(?:\x1b\[[0-9;]*m)*Saved to plans/x", screen.raw)
    assert not (home / "plans").exists()


# --- the confirmation screen --------------------------------------------------------------------

TITLES = {
    # 66 columns and a space fill the Title row of an 80-column screen: a word wrap puts
    # "Date" at the start of the next line.
    "wraps into a Date row": "A" * 66 + " Date 2030-1-1",
    "spaces align a Minutes row": "Plan" + " " * 63 + "Minutes 120",
    "full-width spaces": "复习" + "\u3000" * 30 + "Minutes  120",
    "no-break spaces": "RAG" + "\u00a0" * 64 + " Date 2099",
    "Rich markup": "[bold green]Saved to plans/x.json[/] [on red]x",
}


@pytest.mark.parametrize("title", TITLES.values(), ids=TITLES.keys())
def test_a_title_cannot_forge_a_row(server: StubServer, home: Path, title: str) -> None:
    assert len(title) <= 80  # a title the plan checks accept
    screen = live_terminal(home, server, True, proposal({**GOOD_PLAN, "title": title}),
                           Reply(body=text_reply("ok")), width=80)
    screen.wait_for(SAVE_PROMPT)
    before = shown_text(screen.raw)
    assert screen.cancel_without_changes() == 0
    assert_program_rows_only(before)
    # No line of the panel is wider than the screen: nothing for the terminal to wrap.
    assert max(cell_len(line) for line in before.split("\n") if line[:1] in "╭│╰") <= 80
    # The whole title is there, blank runs shown as one space; markup literally.
    collapsed = re.sub(r"[ \u00a0\u3000]{2,}", " ", title)
    assert flat(collapsed) in flat(before)
    assert not edge_lines(before, "Saved to")
    summary_plan = read_summary(run_dirs(home)[0])["plan"]
    assert summary_plan["title"] == title  # the plan keeps what was proposed


def test_note_titles_from_notes_json_are_inert(server: StubServer, home: Path) -> None:
    notes = [
        {"id": "N1", "title": f"First line\nDate     2099-01-01 {LINE}", "text": BLOCK},
        {"id": "N2", "title": "Second\r\nMinutes  120", "text": "plain"},
    ]
    (home / "notes.json").write_text(json.dumps(notes), encoding="utf-8")
    screen = live_terminal(home, server, True, proposal(), Reply(body=text_reply("ok")),
                           width=200)
    screen.wait_for(SAVE_PROMPT)
    before = shown_text(screen.raw)
    assert screen.cancel_without_changes() == 0
    assert_program_rows_only(before)
    assert_escaped_forms(before, FOLDED)
    # The line break in a title is gone: the title stays on the Notes row it belongs to.
    assert "Notes    N1  First line Date 2099-01-01" in before
    assert "N2  Second Minutes 120" in before


def test_notes_command_and_dry_run_show_note_text_inert(home: Path) -> None:
    notes = [{"id": "N1", "title": "[bold green]Saved[/]", "text": "plain"},
             {"id": "N2", "title": LINE, "text": BLOCK}]
    (home / "notes.json").write_text(json.dumps(notes), encoding="utf-8")
    table = Terminal(home, ["notes"], True, width=200)
    assert table.finish() == 0
    shown = shown_text(table.raw)
    assert "[bold green]Saved[/]" in shown
    search = Terminal(home, ["notes", "click"], True, width=200)  # the snippet of the text
    assert search.finish() == 0
    assert "\\x1b\\click" in shown_text(search.raw)
    dry = Terminal(home, ["--dry-run"], True, width=200)
    assert dry.finish() == 0
    shown = shown_text(dry.raw)
    # JSON on a terminal: the same values, hidden characters as \u escapes.
    for escaped in ("\\u001b]52;c;SGVsbG8=\\u0007", "\\u009b2J", "one\\u0085two",
                    "\\u202eevil.exe"):
        assert escaped in shown


def test_near_miss_is_echoed_inert(server: StubServer, home: Path) -> None:
    screen = live_terminal(home, server, True, proposal(), Reply(body=text_reply("ok")))
    screen.wait_for(SAVE_PROMPT)
    screen.answer("\u0085SAVE\u2028")  # spaces to str.strip(): a near miss, echoed back
    screen.wait_for("only SAVE in capitals saves.")
    assert screen.cancel_without_changes() == 0
    shown = shown_text(OWN.sub(b"", screen.raw).replace("\u0085SAVE\u2028".encode(), b""))
    assert 'You typed "\\x85SAVE\\u2028"; only SAVE in capitals saves.' in shown
    assert not (home / "plans").exists()


# --- tool calls and servers ---------------------------------------------------------------------


def test_hostile_tool_calls_are_named_inert(server: StubServer, home: Path) -> None:
    unknown = tool_call(GOOD_PLAN, name=f"save{RAW[0]}{RAW[3]}")
    extra = tool_call({**GOOD_PLAN, f"x{RAW[1]}{RAW[5]}": 1, "title": LINE})
    screen = live_terminal(home, server, True, Reply(body=tool_call_reply(calls=[unknown])),
                           Reply(body=tool_call_reply(calls=[extra])),
                           max_calls=3, max_repairs=1)
    assert screen.finish() == 1
    shown = shown_text(screen.raw)
    assert "The model's proposal was rejected (" in shown
    assert "Error: the model's proposal was rejected (" in " ".join(shown.split())
    assert not (home / "plans").exists()
    assert read_summary(run_dirs(home)[0])["status"] == "stopped"


# A server's message is cut at 200 characters: the hostile strings go in two halves.
HALVES = [pytest.param(0, 6, id="first half"), pytest.param(6, len(RAW), id="second half")]


@pytest.mark.parametrize("status", [500, 401])
@pytest.mark.parametrize(("start", "stop"), HALVES)
def test_server_error_message_is_inert(server: StubServer, home: Path, status: int,
                                       start: int, stop: int) -> None:
    message = " | ".join(RAW[start:stop])
    screen = live_terminal(home, server, True, Reply(status, error_body(message)))
    assert screen.finish() == 1
    shown = shown_text(screen.raw)
    errors = edge_lines(shown, "Error: ")
    assert len(errors) == 1 and str(status) in errors[0]
    assert_escaped_forms(shown, FOLDED[start:stop])
    summary_ = read_summary(run_dirs(home)[0])
    assert summary_["status"] == "stopped" and summary_["tool_result"] is None


def test_explanation_failure_after_save_is_inert(server: StubServer, home: Path) -> None:
    message = " | ".join(RAW[:6])
    screen = live_terminal(home, server, True, proposal(), Reply(500, error_body(message)))
    screen.wait_for(SAVE_PROMPT)
    screen.answer("SAVE")
    assert screen.finish() == 1
    shown = shown_text(screen.raw)
    (folder,) = run_dirs(home)
    relative = f"plans/{folder.name}.json"
    assert edge_lines(shown, f"Saved to {relative}")
    assert_escaped_forms(shown, FOLDED[:6])
    assert "Do not run again" in " ".join(shown.split())
    assert (home / relative).is_file()


def test_model_name_from_config_is_inert_in_the_waiting_line(server: StubServer,
                                                             home: Path) -> None:
    screen = live_terminal(home, server, True,
                           Reply(body=text_reply("Which notes?"), delay=0.5), model=LINE)
    screen.wait_for(ANSWER_PROMPT)
    screen.answer("")
    assert screen.finish() == 0
    shown = shown_text(screen.raw)
    assert "Asking \\x1b[1A\\x1b[2K" in shown  # the line said who was asked, escaped


# --- stdout redirected: the plan still goes where SAVE is asked ----------------------------------


@pytest.mark.parametrize("colour", COLOURS)
def test_plan_is_shown_on_the_terminal_when_stdout_is_a_file(
    server: StubServer, home: Path, colour: bool
) -> None:
    server.add(proposal({**GOOD_PLAN, "title": "Redirected plan"}),
               Reply(body=text_reply(BLOCK)))
    write_config(home, server.url)
    screen = Terminal(home, ["-c", f'exec "{PLANNER}" --request "review N1" > out.txt'],
                      colour, program="/bin/sh")
    screen.wait_for(SAVE_PROMPT)
    before = shown_text(screen.raw)
    assert "Proposed plan" in before and "Redirected plan" in before
    assert before.index("Redirected plan") < before.index(SAVE_PROMPT)
    assert_program_rows_only(before)
    screen.answer("SAVE")
    assert screen.finish() == 0
    (folder,) = run_dirs(home)
    relative = f"plans/{folder.name}.json"
    assert plan_body(home / relative)["plan"]["title"] == "Redirected plan"
    # The rest went to the file, not the terminal; and it is inert there too.
    # (FORCE_COLOR asks for colour even in a file: Rich's SGR only, nothing else.)
    text = shown_text((home / "out.txt").read_bytes())
    assert text.startswith(f"Saved to {relative}\n")
    assert_escaped_forms(text)
    assert "Proposed plan" not in text
    assert f"Saved to {relative}" not in shown_text(screen.raw)


# --- Ctrl+C after the save ----------------------------------------------------------------------


def test_ctrl_c_after_the_save_says_the_plan_is_saved(server: StubServer, home: Path) -> None:
    screen = live_terminal(home, server, True, proposal(),
                           Reply(body=text_reply("late"), delay=SLOW))
    screen.wait_for(SAVE_PROMPT)
    screen.answer("SAVE")
    wait_for(lambda: len(server.requests) == 2)
    screen.child.sendintr()
    assert screen.finish() == 130
    shown = shown_text(screen.raw)
    (folder,) = run_dirs(home)
    relative = f"plans/{folder.name}.json"
    one = " ".join(shown.split())
    assert f"interrupted (Ctrl+C); the plan is saved in {relative}" in one
    assert "nothing was saved" not in one and "nothing saved" not in one
    assert "Traceback" not in shown
    assert plan_body(home / relative)["plan"] == {**GOOD_PLAN, "start": "19:00"}
    summary_ = read_summary(folder)
    assert summary_["status"] == "stopped"
    assert summary_["tool_result"] == {"status": "saved", "path": relative}


# --- records read back: runs, show, costs -------------------------------------------------------

RUN_ID = "20261120T090000000000Z-abc123"


def hostile_run(home: Path, run_id: str = RUN_ID) -> None:
    """A version 2 run whose every free-text field is hostile."""
    plan = {"title": LINE, "note_ids": ["N1", RAW[2]], "date": RAW[3], "minutes": RAW[4]}
    steps = [
        {"call": 1, "kind": "question", "text": BLOCK},
        {"call": 1, "kind": "answer", "text": BLOCK},
        {"call": 2, "kind": "lookup", "tool": RAW[0], "arguments": {RAW[1]: RAW[5]},
         "result": LINE},
        {"call": 3, "kind": "rejected", "tool": RAW[6], "error": LINE, "repair": 1},
        {"call": 4, "kind": "proposal", "call_id": RAW[7], "plan": plan},
        {"call": 4, "kind": "decision", "approved": False, "result": {"status": "cancelled"},
         "near_misses": RAW},
        {"call": 4, "kind": "feedback", "text": BLOCK},
        {"call": 5, "kind": "refused", "tool": RAW[8], "error": LINE},
        {"call": 6, "kind": "explanation", "text": BLOCK},
        {"call": 7, "kind": RAW[9]},
    ]
    write_run(home, run_id, summary(
        run_id, version=2, request=LINE, model=LINE, base_url=RAW[2], plan=plan,
        error=LINE, status="stopped", stage=RAW[0], steps=steps,
        tool_result={"status": "failed", "error": LINE}, target=RAW[3],
        calls=[call(1, deepseek_usage(10, 20, 30), error=LINE), call(2, None, error=BLOCK)],
        created_at=RAW[1], updated_at=RAW[7], explanation=BLOCK, question=BLOCK,
    ))


@pytest.mark.parametrize("colour", COLOURS)
@pytest.mark.parametrize("command", [["runs"], ["show", RUN_ID], ["costs"]],
                         ids=["runs", "show", "costs"])
def test_records_read_back_are_inert(home: Path, command: list[str], colour: bool) -> None:
    hostile_run(home)
    screen = Terminal(home, command, colour, width=200)
    assert screen.finish() == 0
    shown = shown_text(screen.raw)
    if command[0] == "show":
        # `show` folds long values instead of cutting them: every hostile string is there.
        assert_escaped_forms(shown)


@pytest.mark.parametrize("command", [["show", RUN_ID, "--json"]], ids=["show --json"])
def test_records_as_json_on_a_terminal_are_inert(home: Path, command: list[str]) -> None:
    hostile_run(home)
    screen = Terminal(home, command, True, width=200)
    assert screen.finish() == 0
    text = shown_text(screen.raw)
    data = json.loads(text[text.index("{"):])
    assert data["summary"]["request"] == LINE  # the same values, only written inert


@pytest.mark.parametrize("command", [["runs", "--json"], ["costs", "--json"],
                                     ["plans", "--json"]],
                         ids=["runs --json", "costs --json", "plans --json"])
def test_record_lists_as_json_on_a_terminal_are_inert(home: Path, command: list[str]) -> None:
    hostile_run(home)
    write_run(home, f"20261120T090000000000Z-{RAW[7]}{RAW[5]}", summary("x"))
    hostile_plans(home)
    screen = Terminal(home, command, True, width=200)
    assert screen.finish() == 0
    shown_text(screen.raw)


# A folder name cannot hold "/", so no closing markup tag here.
FOLDER = "20261121T090000000000Z-\x1b]0;PWNED\x07[bold green]Saved\u202e\x9b2J\x85"


@pytest.mark.parametrize("command", [["runs"], ["costs"], ["show", "20261121"]],
                         ids=["runs", "costs", "show"])
def test_a_hostile_run_folder_name_is_inert(home: Path, command: list[str]) -> None:
    write_run(home, FOLDER, summary(FOLDER))
    screen = Terminal(home, command, True, width=200)
    assert screen.finish() == 0
    shown = shown_text(screen.raw)
    assert "[bold green]Saved" in shown


def hostile_plans(home: Path) -> None:
    """A saved plan whose title is markup, and a file whose name is hostile."""
    plan = review_plan("[bold green]Saved to plans/x.json[/]", ("N1",), FUTURE, 20)
    write_plan(home, "20261130T000000000000Z-aaaaaa", plan)
    write_raw(home, f"{RAW[3]}{RAW[5]}{RAW[7]}.json", b"{}")


def test_saved_plans_read_back_are_inert(home: Path) -> None:
    hostile_plans(home)
    screen = Terminal(home, ["plans"], True, width=200)
    assert screen.finish() == 0
    shown = shown_text(screen.raw)
    assert "[bold green]Saved to plans/x.json[/]" in shown
    assert_escaped_forms(shown, [SHOWN[3], SHOWN[5], SHOWN[7]])  # the file's name, escaped
