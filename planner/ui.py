"""All terminal output and prompts: the plan panel, the SAVE prompt, results, tables."""

from __future__ import annotations

import getpass
import io
import json
import sys

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

SAVE_PROMPT = "Type SAVE to save this plan; anything else cancels: "
TTY = "/dev/tty"

# Rich turns colour off by itself when NO_COLOR is set or the stream is not a terminal.
out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


def error(message: str) -> None:
    """The one line a failure prints."""
    err.print(f"[bold red]Error:[/] {escape(message)}")


def info(message: str) -> None:
    """A plain line on stdout."""
    out.print(escape(message))


def notice(message: str) -> None:
    """A line about the run itself (not its result), on stderr so stdout stays clean."""
    err.print(f"[dim]{escape(message)}[/]")


def print_json(data: object) -> None:
    """Machine-readable JSON on stdout, exactly, with no markup or wrapping."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    sys.stdout.flush()


def show_plan(view, simulated: bool) -> None:
    """The checked plan as the person must confirm it: values, notes, target file."""
    plan = view.plan
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    grid.add_row("Title", escape(plan.title))
    for index, note in enumerate(view.notes):
        grid.add_row("Notes" if index == 0 else "", f"{note.id}  {escape(note.title)}")
    date_text = escape(plan.date)
    if view.date_in_past:
        date_text += f"  [bold yellow]warning: this date is in the past (today is {view.today})[/]"
    grid.add_row("Date", date_text)
    grid.add_row("Minutes", str(plan.minutes))
    grid.add_row("Save to", escape(str(view.target)))
    title = "Proposed plan (simulated model)" if simulated else "Proposed plan"
    out.print(Panel(grid, title=title, title_align="left", expand=False))


def ask_save() -> bool | None:
    """Read one line from the controlling terminal; True only for exactly SAVE, None: no tty."""
    try:
        # Like getpass and sudo: the answer comes from the person at the terminal, never a pipe.
        raw = open(TTY, "r+b", buffering=0)  # noqa: SIM115 - closed below
    except OSError:
        return None
    with raw, io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline="\n") as tty:
        out.file.flush()
        tty.write(SAVE_PROMPT)
        tty.flush()
        line = tty.readline()
    # Only a whole line "SAVE" ended by Enter: EOF, spaces or other case all cancel.
    return line == "SAVE\n"


def has_terminal() -> bool:
    """Whether a controlling terminal can be opened for prompts."""
    try:
        with open(TTY, "rb"):
            return True
    except OSError:
        return False


def ask_hidden(prompt: str) -> str:
    """A hidden prompt on the terminal (the API key)."""
    return getpass.getpass(prompt)


def show_result(result: dict, home_display: str) -> None:
    """The program's own result, printed before anything the model says."""
    status = result.get("status")
    if status == "saved":
        out.print(f"[bold green]Saved to {escape(_under(home_display, result['path']))}[/]")
    elif status == "cancelled":
        out.print("[bold]Cancelled: nothing saved.[/]")


def show_model_text(label: str, text: str) -> None:
    """Text written by the model, clearly labelled as such."""
    out.print(Panel(escape(text), title=label, title_align="left", expand=False))


def _under(home_display: str, relative: str) -> str:
    return relative if home_display in ("", ".") else f"{home_display.rstrip('/')}/{relative}"


def table(title: str, columns: list[tuple[str, dict]], rows: list[list[str]]) -> None:
    """A Rich table; Rich measures East Asian wide characters, so Chinese titles line up."""
    grid = Table(title=title, title_justify="left", show_lines=False)
    for name, options in columns:
        grid.add_column(name, **options)
    for row in rows:
        grid.add_row(*(escape(cell) for cell in row))
    out.print(grid)
