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

# What callers may use (the lazy names above), for the type checker's explicit exports.
__all__ = [
    "ask_hidden",
    "costs_table",
    "cut_by_terminal",
    "due_table",
    "err",
    "error",
    "fit_report",
    "forecast_chart",
    "has_terminal",
    "indexing_progress",
    "info",
    "notes_table",
    "notice",
    "out",
    "plans_table",
    "print_json",
    "print_json_lines",
    "read_edited_line",
    "read_tty_line",
    "review_recorded",
    "review_undone",
    "reviews_table",
    "run_detail",
    "runs_table",
    "simulation_table",
    "week_table",
    "where_report",
    "write_bytes",
]

if TYPE_CHECKING:  # the same names, for the type checker
    from planner.ui.console import (  # noqa: F401
        ask_hidden,
        cut_by_terminal,
        err,
        error,
        info,
        notice,
        out,
        read_tty_line,
        write_bytes,
    )
    from planner.ui.editor import read_edited_line  # noqa: F401
    from planner.ui.memory_reports import (  # noqa: F401
        fit_report,
        forecast_chart,
        simulation_table,
    )
    from planner.ui.plain import (  # noqa: F401
        has_terminal,
        indexing_progress,
        print_json,
        print_json_lines,
    )
    from planner.ui.reports import (  # noqa: F401
        due_table,
        notes_table,
        plans_table,
        review_recorded,
        review_undone,
        reviews_table,
        where_report,
    )
    from planner.ui.run_reports import costs_table, run_detail, runs_table  # noqa: F401
    from planner.ui.week_view import week_table  # noqa: F401


def __getattr__(name: str) -> object:
    """A name from the reports or the line editor, imported now and kept for the next use."""
    home = _LAZY.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
