"""`planner week` at the terminal: seven columns, one per day, in the terminal's width."""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING

from rich import box
from rich.cells import cell_len
from rich.table import Table
from rich.text import Text

from planner.base.days import clock_text
from planner.base.i18n import _
from planner.base.inert import inert_line
from planner.base.study_hours import clock
from planner.ui.console import out, print_note
from planner.ui.table_cells import short_weekday
from planner.ui.wrapping import pack

if TYPE_CHECKING:
    from planner.calendar.week import WeekDay

_GAP = 1  # cells between two columns: the box's divider
_MIN_WIDTH = 8


def week_table(days: list[WeekDay], today: _dt.date) -> None:
    """The week: per day its study hours, busy time, sessions, due notes and planned minutes."""
    width = max((out.width - _GAP * (len(days) - 1)) // len(days), _MIN_WIDTH)
    # A rule under the headers only: no vertical lines, so every cell is the column's width.
    # The box's divider is the gap between two columns (one space).
    table = Table(box=box.SIMPLE_HEAD, padding=0, pad_edge=False, show_edge=False)
    cells = []
    for day in days:
        date = day.date
        header = Text(f"{short_weekday(date)} {date.strftime('%m-%d')}", style="bold")
        # Every header two lines high: Rich puts headers at the bottom, so today's second line
        # would push the other days' dates down a line.
        header.append("\n")
        if date == today:
            header.append(_("today"), style="bold reverse")
        table.add_column(header, width=width, no_wrap=True, overflow="crop")
        cells.append(_day_cell(day, width))
    table.add_row(*cells)
    out.print(table)
    print_note(Text(_("Study hours first, busy time ■, sessions ● (✓ reviewed); due: notes "
                      "falling due that day; min: planned minutes (of the daily limit)."),
                    style="dim"))
    if any(day.anki_set and day.anki is not None for day in days):
        print_note(Text(_("Anki: the review cards due in your Anki collection that day and the "
                          "minutes they take; they count in min."), style="dim"))
    if any(busy.all_day for day in days for busy in day.busy):
        print_note(Text(_("■ at the top of a day: an all-day event, busy all that day."),
                        style="dim"))
    if any(session.moved for day in days for session in day.sessions):
        print_note(Text(_("↷: a session moved with planner move."),
                        style="dim"))
    if any(session.missed for day in days for session in day.sessions):
        print_note(Text(_("✗: a session missed (its day has passed, neither done nor "
                          "dropped)."), style="dim"))
    if any(session.reviewed for day in days for session in day.sessions):
        print_note(Text(_("n/m: n of the session's m notes have their review so far."),
                        style="dim"))


def _day_cell(day: WeekDay, width: int) -> Text:
    """One day's column: each line at most `width` cells."""
    text = Text()
    lines: list[tuple[str, str]] = []
    # All-day events first, one line each, as calendar programs show them: the title only.
    for busy in day.busy:
        if busy.all_day:
            words = inert_line(busy.title) if busy.title else _("all day")
            lines.append((_cut("■" + words, width), "red"))
    for start, end in day.study_hours:
        lines += [(line, "dim") for line in span_of(start, end, width)]
    if not day.study_hours:
        lines.append((_cut(_("no study"), width), "dim"))
    for busy in day.busy:
        if busy.all_day:
            continue
        lines += [(line, "red")
                  for line in span_of(busy.start, busy.end, width - 1, "■")]
        if busy.title:
            lines.append((_cut(" " + inert_line(busy.title), width), "red"))
    for session in day.sessions:
        # ✓ (or ↷, moved) in the place of ●: a mark at the end would be the first thing a
        # narrow column cuts.
        missed = session.missed
        mark = "✓" if session.done else "✗" if missed else "↷" if session.moved else "●"
        head = _cut(f"{mark}{clock_text(session.start)} {session.minutes}′", width)
        lines.append((head, "green" if session.done else "bold red" if missed
                      else "bold cyan"))
        # A partly done session says how far (1/3) before its title, where a column keeps it.
        part = f" {session.reviewed}/{len(session.note_ids)}" if session.reviewed else ""
        lines.append((_cut(part + " " + inert_line(session.title), width), "cyan"))
        # Each note ID whole, wrapped in the column (after a `/` when wider than it).
        notes = [inert_line(note) for note in session.note_ids]
        lines += [(" " + line, "dim") for line in pack(notes, _(", "), width - 1)]
    lines.append((_cut(_("due {count}").format(count=day.due), width),
                  "yellow" if day.due else "dim"))
    anki = day.anki
    if anki and anki.cards:
        line = (_("Anki {cards} card ≈ {minutes} min") if anki.cards == 1
                else _("Anki {cards} cards ≈ {minutes} min")).format(cards=anki.cards,
                                                                     minutes=anki.minutes)
        lines += [(part, "magenta") for part in _words_in(line, width)]
    limit = day.daily_minutes
    # Anki's minutes count against the daily limit as the sessions' do.
    planned = day.planned_minutes + (anki.minutes if anki else 0)
    if limit is None:
        minutes = _("{planned} min").format(planned=planned)
    else:
        minutes = _("{planned}/{limit} min").format(planned=planned, limit=limit)
    over = limit is not None and planned > limit
    lines.append((_cut(minutes, width), "bold red" if over else ""))
    for number, (line, style) in enumerate(lines):
        text.append(("\n" if number else "") + line, style=style)
    return text


def _words_in(line: str, width: int) -> list[str]:
    """A line wrapped at its spaces into lines of at most `width` cells (a longer word cut)."""
    lines: list[str] = []
    for word in line.split(" "):
        if lines and cell_len(f"{lines[-1]} {word}") <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(_cut(word, width))
    return lines


def span_of(start: int, end: int, width: int, mark: str = "") -> list[str]:
    """A time span (minutes after midnight) in one line when it fits (19:00-22:00, else
    19-22), else over two."""
    full = f"{mark}{clock(start)}-{clock(end)}"
    if cell_len(full) <= width:
        return [full]
    short = f"{mark}{_compact(start)}-{_compact(end)}"
    if cell_len(short) <= width:
        return [short]
    return [f"{mark}{clock(start)}-", f"{' ' * cell_len(mark)} {clock(end)}"]


def _compact(minutes: int) -> str:
    """19:00 as 19, 09:30 as 9:30 (24:00, the next midnight, as 24)."""
    hours, rest = divmod(minutes, 60)
    return str(hours) if rest == 0 else f"{hours}:{rest:02d}"


def _cut(line: str, width: int) -> str:
    """A line of at most `width` cells; a longer one ends in …."""
    if cell_len(line) <= width:
        return line
    while cell_len(line) > width - 1:
        line = line[:-1]
    return line + "…"
