"""Output primitives: the two consoles, one-line messages, exact JSON and bytes, the terminal."""

from __future__ import annotations

import getpass
import io
import signal
import sys

from rich.console import Console
from rich.text import Text

from planner.base import storage
from planner.base.i18n import Message, _, language, shown
from planner.base.inert import inert_block, inert_line, short_values

# Written without Rich there, for the commands that load no Rich; named here too.
from planner.ui.plain import (  # noqa: F401
    TTY,
    has_terminal,
    indexing_progress,
    is_tty,
    print_json,
    print_json_lines,
)

TTY_LINE_BYTES = 4095  # what a terminal keeps of one typed line (Linux N_TTY_BUF_SIZE - 1)



def _console(stderr: bool = False) -> Console:
    """A console that reads COLUMNS and LINES at each use (Rich's size), never once when it is
    built: planner.ui loads this module on first use, and that moment's size must not stay."""
    import os

    saved = {name: os.environ.pop(name) for name in ("COLUMNS", "LINES") if name in os.environ}
    try:
        return Console(stderr=stderr, highlight=False, emoji=False)
    finally:
        os.environ.update(saved)


# Rich turns colour off by itself when NO_COLOR is set or the stream is not a terminal.
out = _console()
err = _console(stderr=True)


def error(message: str) -> None:
    """The one line a failure prints."""
    if _signalled and is_tty(err.file):
        # Ctrl+C came as a signal: the terminal echoes `^C` on its own, after the signal, so
        # the echo can land after the program's last newline. Back to column 0, clear the line.
        err.file.write("\r\x1b[2K")
    # soft_wrap: one logical line whatever the width, so it can be grepped and copied whole.
    label = _("Error:")
    # A full-width colon (错误：) carries its own space.
    space = "" if label.endswith("：") else " "
    global last_error
    # A value echoed whole (a 900,000-character URL) is cut before the line is translated.
    last_error = short_values(message)
    # A line cut as a whole may lose its template; its values cut one by one say it in the
    # person's language (the English words, for --json, stay as cut whole).
    line = inert_line(shown(last_error if isinstance(last_error, Message)
                            or not isinstance(message, Message) or language() == "en"
                            else message.with_values(short_values)))
    err.print(fitted(Text.assemble((label, "bold red"), space, line), err), soft_wrap=True)


# The last failure line (English, before translation): what `--json` puts on stdout with it.
last_error: str | None = None


def fitted(text: Text, console: Console) -> Text:
    """One message as a terminal shows it: wrapped between words (between characters in
    Chinese, never before `，。）：`), the continuation indented (README "中文界面"); whole in
    a pipe or a file, so it can be grepped and copied."""
    if not is_tty(console.file):
        return text
    from planner.ui.wrapping import wrap_text

    lead = len(text.plain) - len(text.plain.lstrip(" "))
    if lead and "\n" not in text.plain and lead < console.width // 2:
        # An indented line (one item under a heading) keeps its indentation on every line.
        lines = wrap_text(text[lead:], console.width - lead).split("\n")
        return Text("\n").join(Text(" " * lead) + line for line in lines)
    return wrap_text(text, console.width)


_signalled = False  # whether Ctrl+C arrived as a signal (at a prompt it is a key instead)


def _interrupted(signum: int, frame: object) -> None:
    """Python's own Ctrl+C handling (KeyboardInterrupt), remembering that it happened."""
    global _signalled
    _signalled = True
    raise KeyboardInterrupt


try:
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _interrupted)
except ValueError:
    pass  # imported first outside the main thread: Python's own handling stays


def info(message: str) -> None:
    """A plain line on stdout."""
    print_line(Text(inert_line(shown(message))))


def print_line(text: Text) -> None:
    """One line on stdout: whole in a pipe or a file (greppable); on a terminal, wrapped
    between words, wide characters counted as two columns, where the terminal would cut one."""
    # A token wider than the screen (a long path) is still cut at the edge: there is no
    # word boundary to wrap at.
    out.print(fitted(text, out), soft_wrap=True)


def print_note(text: Text) -> None:
    """A line under a table, wrapped like the table at the console's width, on a terminal or
    not: it belongs to the report, which a pipe gets at that width too."""
    from planner.ui.wrapping import wrap_text

    out.print(wrap_text(text, out.width), soft_wrap=True)


def notice(message: str) -> None:
    """A line about the run itself (not its result), on stderr so stdout stays clean."""
    # One line in a pipe or a file (greppable); on a terminal, wrapped between words, where
    # the terminal itself would cut a word at the edge.
    # Not cut: the run's own lines name its own files (`Records: ...`) whole.
    err.print(fitted(Text(inert_line(shown(message)), style="dim"), err), soft_wrap=True)


# --- Exact output: JSON and bytes -------------------------------------------------------------


def write_bytes(data: bytes) -> None:
    """A file's bytes on stdout (a calendar): exact into a pipe or file, made inert on a terminal.

    OSError if they cannot be written.
    """
    if sys.stdout.isatty():
        # Read on a screen, not saved: nothing in it may move the cursor or reorder text.
        text = data.decode("utf-8", "replace")
        data = (inert_block(text.removesuffix("\r\n")) + "\n").encode("utf-8", "replace")
    try:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except OSError:
        # Nothing more can reach a closed pipe: point stdout at /dev/null so the interpreter's
        # own flush at exit adds no second message, then let the caller say the one line.
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        raise


# --- Reading from the terminal ----------------------------------------------------------------


def read_tty_line(prompt: str, discard_typed_ahead: bool = False) -> str | None:
    """One raw line from the controlling terminal ('' at end of input); None: no terminal.

    With `discard_typed_ahead`, whatever was typed or pasted before the prompt is dropped
    unread, so only a line typed after seeing what is asked can answer it (README "A screen you can
    trust").
    """
    try:
        # Like getpass and sudo: the answer comes from the person at the terminal, never a pipe.
        raw = open(TTY, "r+b", buffering=0)  # noqa: SIM115 - closed below
    except OSError:
        return None
    try:
        with raw, io.TextIOWrapper(raw, encoding="utf-8", errors="replace",
                                   newline="\n") as tty:
            out.file.flush()
            if discard_typed_ahead:
                discard_pending_input(raw.fileno())
            try:
                # Written straight to the terminal, inside the try: a Ctrl+C that lands while
                # the prompt is still being written must also end the prompt's line.
                storage.write_all(raw.fileno(), prompt.encode("utf-8", "replace"))
                return tty.readline()
            except KeyboardInterrupt:
                # End the prompt's line, so the line about the interruption starts on its own.
                storage.write_all(raw.fileno(), b"\n")
                raise
    except OSError:
        # The terminal went away (hung up) mid-prompt: nobody can answer, as with none at all.
        return None


def discard_pending_input(fd: int) -> None:
    """Drop the terminal's unread input (as sudo and getpass do before asking)."""
    import termios

    try:
        termios.tcflush(fd, termios.TCIFLUSH)
    except termios.error:
        pass  # not a terminal after all: there is no typed-ahead queue to drop


def cut_by_terminal(line: str) -> bool:
    """Whether the terminal dropped the end of this line (its line buffer was full)."""
    # Linux keeps at most 4,095 bytes of a line in canonical mode; a character cut in two
    # there is read back as U+FFFD (3 bytes). Lines this long are never sent: part of them
    # is gone, and the person would not know which words the model got.
    return len(line.removesuffix("\n").encode("utf-8", "replace")) >= TTY_LINE_BYTES - 2


def ask_hidden(prompt: str) -> str:
    """A hidden prompt on the terminal (the API key)."""
    return getpass.getpass(prompt)
