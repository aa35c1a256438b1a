"""The one way the tests run planner in a pseudo-terminal: start it at a size, in a home, with an
environment (or a shell command line around it); wait for text or for a prompt that reads; type
lines and keys; read back everything it showed, and the lines the screen ends up with; its exit
code.

Every terminal test starts its process here (tests that open a pseudo-terminal carry
`@pytest.mark.terminal`; conftest makes an unmarked one fail at its first spawn).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

import pexpect
from conftest import PLANNER

# Keys as a terminal sends them (xterm): arrows, Home/End, Backspace, Enter, a bracketed paste.
LEFT, RIGHT, HOME, END, UP, DOWN = "\x1b[D", "\x1b[C", "\x1b[H", "\x1b[F", "\x1b[A", "\x1b[B"
BACKSPACE, ENTER = "\x7f", "\r"
PASTE, PASTED = "\x1b[200~", "\x1b[201~"  # a terminal's bracketed paste around pasted text

# A terminal's control sequences (colour, cursor moves, modes): what the screen shows is the rest.
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

CURSOR_SHOWN = "\x1b[?25h"  # the line editor shows its cursor once it reads
# The line editor turns bracketed paste on when a prompt starts (the terminal is raw by then) and
# off when its line is accepted, after drawing the accepted line, question and all, once more.
EDITING, EDITED = "\x1b[?2004h", "\x1b[?2004l"


class Seen(list):
    """A pexpect log that keeps every piece the terminal received, in order."""

    def __init__(self, raw: bool = False) -> None:
        super().__init__()
        self.raw = raw  # the child is read as bytes

    def write(self, text: str | bytes) -> None:
        self.append(text)

    def flush(self) -> None:
        pass

    def text(self) -> str | bytes:
        """Everything shown, escape sequences and all (bytes for a child read as bytes)."""
        return (b"" if self.raw else "").join(self)


def spawn(*args: str, home: Path | None = None, columns: int | None = 80, rows: int = 50,
          env: Mapping[str, str] | None = None, program: str = PLANNER,
          encoding: str | None = "utf-8", timeout: float = 30, measure: bool = False,
          **variables: str) -> tuple[pexpect.spawn, Seen]:
    """`program ARGS` (planner by default) in a pseudo-terminal `rows` x `columns`; the child and
    what it showed.

    `env` is the whole environment (None: this process's, as the `home` fixture left it);
    COLUMNS says the width too, unless `measure` (then it is unset and Rich asks the terminal);
    `variables` are set last. `columns=None` leaves pexpect's own size and COLUMNS as it is.
    `home` is the working folder (None: this process's). `encoding=None` reads bytes.
    """
    environment = dict(os.environ if env is None else env)
    size: dict = {}
    if columns is not None:
        size["dimensions"] = (rows, columns)
        if measure:
            environment.pop("COLUMNS", None)
        else:
            environment["COLUMNS"] = str(columns)
    environment.update(variables)
    # pexpect.spawn looked up when called: conftest replaces it for a test not marked terminal.
    child = pexpect.spawn(program, list(args), cwd=None if home is None else str(home),
                          env=environment, encoding=encoding, timeout=timeout, **size)
    # Each wait is on what the terminal shows, never on time: pexpect's own pauses (50 ms before
    # every send, 100 ms at close) only slowed every test.
    child.delaybeforesend = None
    child.ptyproc.delayafterclose = 0
    seen = Seen(raw=encoding is None)
    child.logfile_read = seen
    return child, seen


def spawn_shell(command: str, **options: object) -> tuple[pexpect.spawn, Seen]:
    """`sh -c COMMAND` in a pseudo-terminal, started as `spawn` starts planner (same options):
    for a pipe or a redirection around planner."""
    return spawn("-c", command, program="/bin/sh", **options)  # type: ignore[arg-type]


def finish(child: pexpect.spawn) -> int | None:
    """Wait for the end (all output read); the exit code (None when a signal ended it)."""
    child.expect(pexpect.EOF)
    child.wait()
    child.close()
    return child.exitstatus


def finish_with_output(child: pexpect.spawn) -> tuple[int | None, str]:
    """Wait for the end; the exit code and everything shown since the last wait."""
    status = finish(child)
    return status, child.before


def ready(child: pexpect.spawn, question: str, edited: bool = True) -> None:
    """Wait until the prompt ending in `question` reads what is typed.

    An edited prompt (the line editor) reads once it has drawn the question in a prompt of its
    own and shown its cursor; the same words drawn again as a line is accepted are not a new
    prompt. A prompt read as a raw line (SAVE, the hidden key prompt: `edited=False`) drops what
    was typed ahead before it writes the question, so it reads once the question is shown.
    """
    while True:
        child.expect_exact(question)
        if not edited or child.before.rfind(EDITING) > child.before.rfind(EDITED):
            break
    if edited:
        child.expect_exact(CURSOR_SHOWN)


def answer(child: pexpect.spawn, question: str, typed: str, edited: bool = True) -> None:
    """Type a line after its question, once the prompt reads it (see `ready`)."""
    ready(child, question, edited)
    child.sendline(typed)


def expect_words(child: pexpect.spawn, sentence: str) -> None:
    """Wait for the sentence's words in order, however the terminal wrapped them."""
    child.expect(r"\s+".join(re.escape(word) for word in sentence.split()))


def screen_lines(text: str, redrawn: bool = True) -> list[str]:
    """What the terminal showed, line by line, without escape sequences. A carriage return starts
    a line over (the waiting line and the line editor redraw in place), so each line is what is
    left of it; `redrawn=False` keeps everything drawn on the line, before its carriage returns
    too."""
    plain = ANSI.sub("", text).replace("\r\n", "\n")
    lines = plain.split("\n")
    return [line.split("\r")[-1] for line in lines] if redrawn else lines
