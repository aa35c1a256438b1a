"""What the report tables share: cells made inert, columns fitted to the terminal, words for
recorded values."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text

from planner.base import i18n
from planner.base.i18n import _
from planner.base.inert import inert_line
from planner.ui.console import print_note

if TYPE_CHECKING:
    from rich.table import Table



WIDE = 110  # below this many columns the plans and notes tables keep only their key columns
GAP = 2  # blank cells between two columns of a list table
TITLE_ROOM = 16  # cells a title keeps before an optional column may take its place
TITLE_LEAST = 10  # cells a title keeps before run IDs give way to -1, -2, ...
ERROR_LEAST = 20  # cells the calls table's error keeps before the file names give way
# By the one word a run is called (status.run_word); any other word is yellow.
_STYLE = {
    "saved": "green", "complete": "green", "cancelled": "yellow", "no plan proposed": "cyan",
    "running": "cyan", "stopped": "red", "call limit reached": "red", "interrupted": "yellow",
    "damaged": "bold red",
}


# --- Cells and columns ------------------------------------------------------------------------


def list_table(title: str, footer: bool = False) -> Table:
    """A borderless table: a rule under the header (and above the footer), 2 spaces between."""
    from rich import box
    from rich.table import Table

    return Table(
        # Text, not a string: a folder name in the title is never read as markup.
        title=Text(inert_line(title)), title_justify="left", box=box.SIMPLE, show_edge=False,
        pad_edge=False, collapse_padding=True, show_footer=footer,
    )


def text_cell(value: object, style: str = "") -> Text:
    # Everything in a table was read back from files: made inert, never obeyed.
    return Text("-" if value is None else inert_line(value), style=style)


def span_of(header: str, cells: list[Text], footer: str = "") -> int:
    """The cells a no-wrap column needs: its widest cell, header or footer."""
    return max([cell_len(header), cell_len(footer), *(cell.cell_len for cell in cells)])


def fit_widths(width: int, spans: Sequence[int],
         optional: Sequence[tuple[str, Sequence[int]]] = ()) -> tuple[list[str], int]:
    """The optional columns that fit beside `spans` (by priority), and the cells left over."""
    # Columns are GAP cells apart. A column that wraps counts as the least it may have and
    # gets what is left over; less than 0 left over: even `spans` alone do not fit.
    left = width - sum(spans) - GAP * (len(spans) - 1)
    chosen = []
    for name, group in optional:
        needed = sum(group) + GAP * len(group)
        if left >= needed:
            chosen.append(name)
            left -= needed
    return chosen, left


def table_note(text: str) -> None:
    """A line under a table, wrapped between words at the terminal's width."""
    print_note(Text(inert_line(text)))


def column_headers() -> dict[str, str]:
    """Column headers and row labels in the person's language, by their English names."""
    return {
        "#": "#", "Run ID": _("Run ID"), "Time": _("Time"), "Mode": _("Mode"),
        "Status": _("Status"), "Calls": _("Calls"), "Title": _("Title"), "Cost": _("Cost"),
        "Unknown": _("Unknown"), "Input hit": _("Input hit"), "Input miss": _("Input miss"),
        "Output": _("Output"), "Tokens": _("Tokens"), "Request": _("Request"),
        "Response": _("Response"), "Tokens hit/miss/out": _("Tokens hit/miss/out"),
        "Error": _("Error"),
    }


def shown_line(value: object) -> str:
    """A recorded or domain line (a reason, an error) in the person's language."""
    return i18n.shown(value) if isinstance(value, str) else str(value)


def mode_words(mode: object) -> object:
    """A run's recorded mode as a person reads it (the record keeps `demo` or `live`)."""
    words = {"demo": _("demo"), "live": _("live")}
    return words.get(mode, mode) if isinstance(mode, str) else mode


def short_weekday(day: _dt.date) -> str:
    """`Wed`: the weekday in three letters (two characters in Chinese)."""
    return (_("Mon"), _("Tue"), _("Wed"), _("Thu"), _("Fri"), _("Sat"),
            _("Sun"))[day.weekday()]


# --- Words for recorded values ----------------------------------------------------------------


def status_cell(word: str) -> Text:
    """A status cell: the run's one word (status.run_word), coloured by what it means."""
    # Coloured by the English word; shown in the person's language.
    return Text(inert_line(i18n.shown(word)), style=_STYLE.get(inert_line(word), "yellow"))


def when_words(value: object) -> str:
    """A recorded ISO time as 'YYYY-MM-DD HH:MM' (the run's local time as recorded)."""
    return value[:16].replace("T", " ") if isinstance(value, str) else "-"


def money_words(cost: object, unknown: object = 0) -> str:
    """The known cost to 6 decimals; '+N?' marks N calls whose usage is unknown (not priced)."""
    text = f"{cost:.6f}" if isinstance(cost, int | float) else "-"
    return f"{text} +{unknown}?" if isinstance(unknown, int) and unknown else text


def count_words(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) else "-"


def back_numbers(count: int) -> list[Text]:
    """-1, -2, ...: what `planner show` takes for the newest runs, when IDs do not fit."""
    return [Text(f"-{number}") for number in range(1, count + 1)]

