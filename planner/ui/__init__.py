"""The terminal edge: output primitives, the live conversation, the report tables.

Callers use `planner.ui.NAME`. Every name is imported on first use (the output primitives,
the report tables, the line editor), so a command loads only what it shows: `--help` never
loads Rich. Tests stand in for the
terminal by replacing `read_tty_line`, `read_edited_line` and `has_terminal` here. The live
screen (`planner.ui.conversation`) is imported by name: it reads those three from here.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

# The output primitives too: `planner --help` prints through Click and never loads Rich.
_CONSOLE = ("ask_hidden", "cut_by_terminal", "err", "error", "info", "notice", "out",
            "read_tty_line", "write_bytes")
# Written without Rich: `--dry-run` prints its JSON and asks about the terminal without it.
_PLAIN = ("has_terminal", "indexing_progress", "print_json", "print_json_lines")
_LAZY = {
    **dict.fromkeys(_CONSOLE, "console"),
    **dict.fromkeys(_PLAIN, "plain"),
    "runs_table": "run_reports", "run_detail": "run_reports", "costs_table": "run_reports",
    "plans_table": "reports", "notes_table": "reports", "due_table": "reports",
    "reviews_table": "reports", "review_recorded": "reports", "review_undone": "reports",
    "where_report": "reports",
    "fit_report": "memory_reports", "forecast_chart": "memory_reports",
    "simulation_table": "memory_reports",
    "read_edited_line": "editor", "week_table": "week_view",
}

if TYPE_CHECKING:  # the same names, for the type checker (`X as X`: re-exported)
    from planner.ui.console import ask_hidden as ask_hidden
    from planner.ui.console import cut_by_terminal as cut_by_terminal
    from planner.ui.console import err as err
    from planner.ui.console import error as error
    from planner.ui.console import info as info
    from planner.ui.console import notice as notice
    from planner.ui.console import out as out
    from planner.ui.console import read_tty_line as read_tty_line
    from planner.ui.console import write_bytes as write_bytes
    from planner.ui.editor import read_edited_line as read_edited_line
    from planner.ui.memory_reports import fit_report as fit_report
    from planner.ui.memory_reports import forecast_chart as forecast_chart
    from planner.ui.memory_reports import simulation_table as simulation_table
    from planner.ui.plain import has_terminal as has_terminal
    from planner.ui.plain import indexing_progress as indexing_progress
    from planner.ui.plain import print_json as print_json
    from planner.ui.plain import print_json_lines as print_json_lines
    from planner.ui.reports import due_table as due_table
    from planner.ui.reports import notes_table as notes_table
    from planner.ui.reports import plans_table as plans_table
    from planner.ui.reports import review_recorded as review_recorded
    from planner.ui.reports import review_undone as review_undone
    from planner.ui.reports import reviews_table as reviews_table
    from planner.ui.reports import where_report as where_report
    from planner.ui.run_reports import costs_table as costs_table
    from planner.ui.run_reports import run_detail as run_detail
    from planner.ui.run_reports import runs_table as runs_table
    from planner.ui.week_view import week_table as week_table


def __getattr__(name: str) -> object:
    """A name from the reports or the line editor, imported now and kept for the next use."""
    home = _LAZY.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
