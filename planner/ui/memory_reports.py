"""The screens of the fitted memory (README "A memory fitted to you"): what `planner fit` found,
`planner forecast`'s bar
chart of the days ahead and its table of simulated retentions. At most 80 columns wide, in
either language."""

from __future__ import annotations

import datetime as _dt
from typing import Any

from rich.cells import cell_len
from rich.text import Text

from planner.base.i18n import _
from planner.base.inert import inert_line
from planner.ui.console import info, out
from planner.ui.table_cells import list_table, short_weekday, table_note, text_cell

CHART_WIDTH = 80
BAR = "█"


def fit_report(record: dict[str, Any], had_fit: bool, adopted: bool, reason: str) -> None:
    """The two sets of parameters' out-of-sample scores side by side, and what was decided."""
    from planner.base.i18n import shown

    sources = _(", ").join(
        _("{name}: {reviews:,} reviews").format(name=source["name"], reviews=source["reviews"])
        for source in record["sources"])
    info(_("Fitted FSRS to {total:,} reviews ({sources}).").format(total=record["reviews"],
                                                                   sources=sources))
    for source in record["sources"]:
        skipped = {key: value for key, value in source["skipped"].items() if value}
        if source["kind"] == "anki" and skipped:
            info(_("  {name}: skipped {skipped}").format(
                name=source["name"],
                skipped=_(", ").join(f"{key} {value:,}" for key, value in skipped.items())))
    info(_("Scored on your later reviews (time-series split; lower is better):"))
    grid = list_table("")
    grid.add_column(_("Score"), no_wrap=True)
    grid.add_column(_("last fit") if had_fit else _("defaults"), justify="right", no_wrap=True)
    grid.add_column(_("fitted"), justify="right", no_wrap=True)
    for label, key in ((_("log loss"), "log_loss"), (_("RMSE(bins)"), "rmse_bins")):
        old, new = record["previous"][key], record[key]
        grid.add_row(text_cell(label), text_cell(f"{old:.4f}"),
                     text_cell(f"{new:.4f}", "bold green" if new < old else "yellow"))
    out.print(grid, width=min(out.width, CHART_WIDTH))
    if adopted:
        info(_("Adopted: {reason}.").format(reason=shown(reason)))
    else:
        info(_("Not adopted: {reason}.").format(reason=shown(reason)))


def forecast_chart(rows: list[dict[str, Any]], today: _dt.date, minutes: float) -> None:
    """One bar a day: the reviews due (day 1 holds the overdue ones too) and their minutes."""
    total = sum(row["reviews"] for row in rows)
    info(_("Reviews due in the next {days} days: {total:,} (about {minutes:g} min each; today "
           "includes overdue notes)").format(days=len(rows), total=total,
                                             minutes=round(minutes, 1)))
    width = min(out.width, CHART_WIDTH)
    labels = [f"{row['date'][5:]} {short_weekday(_dt.date.fromisoformat(row['date']))}"
              for row in rows]
    label_width = max(cell_len(label) for label in labels)
    tails = [(_("{reviews:,} · {minutes:g} min · {planned} min planned") if row.get(
        "planned_minutes") else _("{reviews:,} · {minutes:g} min")).format(
            reviews=row["reviews"], minutes=row["minutes"], planned=row.get("planned_minutes"))
        + (_(" · Anki {minutes} min").format(minutes=row["anki_minutes"])
           if row.get("anki_minutes") else "")
        for row in rows]
    tail_width = max(cell_len(tail) for tail in tails)
    room = max(1, width - label_width - tail_width - 3)
    most = max((row["reviews"] for row in rows), default=0)
    for label, tail, row in zip(labels, tails, rows, strict=True):
        count = row["reviews"]
        length = 0 if not most else max(1 if count else 0, round(count / most * room))
        line = Text(label + " " * (label_width - cell_len(label)) + " ",
                    style="bold" if row["date"] == today.isoformat() else "")
        line.append(BAR * length, style="cyan")
        line.append(" " * (room - length + 1) + " " * (tail_width - cell_len(tail)) + tail)
        out.print(line, no_wrap=True, overflow="crop", crop=True, width=width)


def simulation_table(rows: list[dict[str, Any]], days: int, current: float) -> None:
    """The simulated days at each desired retention, side by side, to choose one."""
    info(_("Simulated over {days} days (fsrs-rs-python), per desired retention:").format(
        days=days))
    grid = list_table("")
    grid.add_column(_("Retention"), justify="right", no_wrap=True)
    grid.add_column(_("Reviews/day"), justify="right", no_wrap=True)
    grid.add_column(_("Minutes/day"), justify="right", no_wrap=True)
    grid.add_column(_("Memorised at the end"), justify="right", no_wrap=True)
    for row in rows:
        mark = " *" if abs(row["retention"] - current) < 1e-9 else ""
        grid.add_row(text_cell(f"{row['retention']:.2f}{mark}"),
                     text_cell(f"{row['reviews_per_day']:g}"),
                     text_cell(f"{row['minutes_per_day']:g}"), text_cell(f"{row['memorised']:g}"))
    out.print(grid, width=min(out.width, CHART_WIDTH))
    table_note(inert_line(_("*: your desired_retention now (config.json).")))
