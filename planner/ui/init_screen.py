"""planner init's screen: its lines and the config to confirm, on the terminal where SAVE is
asked (even with stdout redirected), wrapped to the terminal's width."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from planner.base.inert import inert_block, inert_line
from planner.ui.console import out
from planner.ui.plain import TTY
from planner.ui.wrapping import wrap_plain, wrap_text

_console: Console | None = None


def _screen() -> Console:
    """stdout when it is the terminal; else the terminal itself."""
    global _console
    if _console is None:
        _console = out
        try:
            on_terminal = out.file.isatty()
        except (AttributeError, ValueError, OSError):
            on_terminal = False
        if not on_terminal:
            tty = open(TTY, "w", encoding="utf-8", errors="backslashreplace")  # noqa: SIM115
            _console = Console(file=tty, highlight=False, emoji=False)
    return _console


def say(line: str, style: str = "") -> None:
    """One line of planner's own (values in it made inert), wrapped between words."""
    screen = _screen()
    screen.print(wrap_text(Text(inert_line(line), style=style), screen.width), soft_wrap=True)


def show_block(text: str) -> None:
    """A block shown as it is (the config to confirm): every line and its indentation kept,
    nothing interpreted; a line wider than the terminal wrapped between words (a path after a
    `/`), its continuation indented under it."""
    screen = _screen()
    lines = []
    for line in inert_block(text).splitlines():
        body = line.lstrip(" ")
        indent = " " * (len(line) - len(body))
        wrapped = wrap_plain(body, max(screen.width - len(indent), 20)) if body else ""
        lines += [indent + part for part in wrapped.split("\n")]
    screen.print(Text("\n".join(lines)), soft_wrap=True)
