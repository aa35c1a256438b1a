"""The report screens of plans, notes and reviews: `planner plans`, `notes`, `where`, `due`,
`reviews`, and what `done` recorded."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text

from planner.base import i18n
from planner.base.answers import rating_word
from planner.base.days import AfterLastDay, clock_text
from planner.base.i18n import _, n_
from planner.base.inert import inert_line
from planner.ui.console import info, out, print_line
from planner.ui.dates import distance, parse_day, parse_due
from planner.ui.table_cells import (
    GAP,
    TITLE_LEAST,
    WIDE,
    list_table,
    short_weekday,
    shown_line,
    span_of,
    table_note,
    text_cell,
)
from planner.ui.wrapping import Listed

if TYPE_CHECKING:
    from rich.table import Column, Table

    from planner.plans.files import ListedPlan, PlanRow


# --- planner plans ----------------------------------------------------------------------------


def plans_table(rows: list[ListedPlan], folder: str, today: _dt.date, hidden_past: int = 0,
                hidden_dropped: int = 0, hidden_missed: int = 0) -> None:
    """`planner plans`: upcoming first, then past ones (--all); files with a problem after.

    A series' sessions are rows of their own, numbered #1, #2, ... (the log's `<run_id>#n`);
    a reviewed plan or session is marked done (some of its notes: 1/3), a dropped one (shown
    with --all) dropped, a past one neither done nor dropped missed.
    """
    from planner.plans.files import good_rows, problems_of

    plans = good_rows(rows)
    hidden = _hidden_words(hidden_past, hidden_dropped)
    if not plans:
        info(_("No upcoming plans in {folder}/; {hidden} plan(s): planner plans --all lists "
               "them.").format(folder=folder, hidden=hidden) if hidden
             else _("No plans to show in {folder}/.").format(folder=folder))
    else:
        sessions = any(row.session is not None for row in plans)
        wide = out.width >= WIDE
        out.print(_plans_grid(plans, folder, today, sessions, wide))
        if hidden:
            info(_("{hidden} plan(s) not shown: planner plans --all lists them.").format(
                hidden=hidden))
        if hidden_missed:
            info(_("{count} of the past ones not shown were missed (neither done nor "
                   "dropped).").format(count=hidden_missed))
        if sessions:
            table_note(_("#n: session n of a series; planner done and reviews call it <run_id>#n."))
        if not wide:
            info(_("File names: planner plans --json, or a terminal 110 columns wide."))
    for problem in problems_of(rows):
        # One line each (wrapped between words on a terminal): the file name comes first.
        print_line(Text.assemble((_("Cannot use"), "bold red"), " ", inert_line(
            _("{path}: {problem}").format(path=problem.file,
                                          problem=shown_line(problem.problem)))))


def _hidden_words(past: int, dropped: int) -> str:
    """What --all would add: "2 past and 1 dropped", "2 past", "1 dropped" or ""."""
    hidden = ""
    if past and dropped:
        hidden = _("{past} past and {dropped} dropped")
    elif past:
        hidden = _("{past} past")
    elif dropped:
        hidden = _("{dropped} dropped")
    return hidden.format(past=past, dropped=dropped)


def _plans_grid(plans: list[PlanRow], folder: str, today: _dt.date, sessions: bool,
                wide: bool) -> Table:
    """The listing's table: a row per plan or session, the notes' column sized to its IDs."""
    upcoming = sum(1 for row in plans if row.date >= today)
    past = len(plans) - upcoming
    marked = any(row.done or row.dropped or row.moved or row.reviewed or row.missed
                 for row in plans)
    grid = list_table((_("Plans in {folder}/: {upcoming} upcoming, {past} past") if past
                        else _("Plans in {folder}/: {upcoming} upcoming")).format(
                            folder=folder, upcoming=upcoming, past=past))
    table: list[list[Text | Listed]] = []
    for row in plans:
        day = row.date
        style = "bold" if day == today else ("dim" if day < today else "")
        if row.dropped:
            style = "dim strike"
        date = f"{day.isoformat()} {short_weekday(day)}"
        if row.start is not None:
            date += f" {clock_text(row.start)}"
        title = text_cell(row.title)
        title.no_wrap, title.overflow = True, "ellipsis"
        notes = Listed([inert_line(note) for note in row.note_ids], _(", "))
        cells: list[Text | Listed] = [
            text_cell(date, style), text_cell(distance(day, today), style),
            text_cell(row.minutes), title, notes]
        if sessions:
            session = row.session
            cells.append(Text("" if session is None else f"#{session}"))
        if marked:
            cells.append(_status(row))
        if wide:
            cells.append(text_cell(row.file, "dim"))
        table.append(cells)
    headers = [_("Date"), _("When"), _("Min"), _("Title"), _("Notes"),
               *(["#"] if sessions else []), *([_("Status")] if marked else []),
               *([_("File")] if wide else [])]
    # The title narrows first: one line cut with …, Rich counting wide (Chinese) characters
    # as two cells. The notes keep each ID whole, as many to a line as the column holds:
    # their column is as wide as the others leave, within the least and most it needs.
    others = sum(span_of(header, [cells[index] for cells in table])  # type: ignore[misc]
                 for index, header in enumerate(headers) if index not in (3, 4))
    least, most = _notes_width(plans, out.width)
    room = out.width - others - GAP * (len(headers) - 1) - TITLE_LEAST
    for index, header in enumerate(headers):
        if index == 3:
            grid.add_column(header, min_width=8)
        elif index == 4:
            # All of a row's IDs on one line if the room holds them, else one to a line.
            grid.add_column(header, width=most if most <= room else least)
        else:
            grid.add_column(header, no_wrap=True,
                            justify="right" if header in (_("Min"), "#") else "left")
    for cells in table:
        grid.add_row(*cells)
    return grid


def _notes_width(rows: list[PlanRow], width: int) -> tuple[int, int]:
    """The Notes column's least and most width: at least its widest note ID, so each stays
    whole on its line (a longer one than a third of the screen breaks after a `/`); at most a
    third of the screen, or all of a row's IDs on one line if less."""
    from planner.ui.wrapping import cell_len

    mark = cell_len(_(", ").rstrip())
    widest = max((cell_len(inert_line(note)) + mark for row in rows for note in row.note_ids),
                 default=5)
    whole = max((cell_len(_(", ").join(inert_line(note) for note in row.note_ids))
                 for row in rows), default=5)
    least = max(5, min(widest, width // 3))
    return least, max(least, min(whole, width // 3))


def _status(row: PlanRow) -> Text:
    """A row's mark: dropped, done, partly done (1/3: its notes reviewed so far), missed,
    moved."""
    if row.dropped:
        return Text(_("dropped"), style="yellow")
    if row.done:
        return Text(_("done"), style="green")
    if row.reviewed:
        part = f"{len(row.reviewed)}/{len(row.note_ids)}"
        if row.missed:
            return Text(_("{part} missed").format(part=part), style="red")
        return Text(part, style="green")
    if row.missed:
        return Text(_("missed"), style="red")
    return Text(_("moved"), style="cyan") if row.moved else Text("")


# --- planner notes ----------------------------------------------------------------------------


def notes_table(rows: list[dict[str, Any]], total: int, where: str, query: str | None) -> None:
    """`planner notes`: ID, title and file (and tags when wide), or the best matches' snippets."""
    wide = out.width >= WIDE
    where = shown_line(where)
    if not rows:
        info(_("No notes in {where} match {query}.").format(where=where, query=repr(query))
             if query is not None else _("No notes in {where}.").format(where=where))
        return
    if query is None:
        heading = _("Notes in {where}: {total:,}").format(where=where, total=total)
    else:
        heading = _("Notes in {where} matching {query}: {total:,}, best first").format(
            where=where, query=repr(inert_line(query)), total=total)
    # The heading on its own line: as a table title it would wrap to a narrow table's width.
    print_line(Text(inert_line(heading)))
    grid = list_table("")
    grid.add_column(_("ID"), no_wrap=True, max_width=32, overflow="ellipsis")
    # Titles and snippets are the wrapable columns: single-line Text cut with …, so every
    # note stays one row and Rich measures wide (Chinese) characters as two cells.
    grid.add_column(_("Title"), min_width=8, max_width=40)
    if wide:
        grid.add_column(_("Tags"), max_width=24)
    paths = query is None and any(row["path"] for row in rows)
    if query is not None:
        grid.add_column(_("Snippet"), min_width=12)
    elif paths:
        grid.add_column(_("File"), min_width=8)
    for row in rows:
        cells = [text_cell(row["id"]), text_cell(row["title"])]
        if wide:
            cells.append(text_cell(_(", ").join(row["tags"]) or None, "dim"))
        if query is not None:
            cells.append(text_cell(row["snippet"], "dim"))
        elif paths:
            cells.append(text_cell(row["path"], "dim"))
        for cell in cells[1:]:
            cell.no_wrap, cell.overflow = True, "ellipsis"
        grid.add_row(*cells)
    out.print(grid)
    if len(rows) < total:
        info((_("Showing {count:,} of {total:,} matches: --limit N shows more (0: all).")
              if query is not None else
              _("Showing {count:,} of {total:,} notes: --limit N shows more (0: all); --json "
                "lists them all.")).format(count=len(rows), total=total))


# --- planner where ----------------------------------------------------------------------------


def where_report(report: dict[str, Any]) -> None:
    """`planner where`: the home and why, the config file, the notes source and the index."""
    from rich.table import Table

    why = shown_line(report["why"])
    home = why if report["home_exists"] else _(
        "{why}; it does not exist yet: the first run creates it (private, 0700)").format(why=why)
    if report["config_problem"] is not None:
        config = _("cannot be used: {problem}").format(problem=shown_line(report["config_problem"]))
    elif report["config_exists"]:
        config = _("in use")
    else:
        config = _("not there: the built-in defaults are used (config.example.json shows them)")
    source = report["notes_source"]
    if source == "samples":
        notes_place = _("the built-in samples N1, N2, N3")
        notes = _("the home has no notes/ folder and no notes.json")
    else:
        notes_place = report["notes"]
        if not report["notes_exists"]:
            notes = _("the notes folder set by notes_dir does not exist")
        elif source == "folder":
            notes = _("a folder of Markdown notes, searched through the index")
        else:
            notes = _("notes.json: the notes are listed in this file")
    if source == "folder":
        index = _("built") if report["index_exists"] else _("not built yet")
    else:
        index = (_("built; used only when the notes are a folder") if report["index_exists"]
                 else _("not built yet; used only when the notes are a folder"))
    rows = [(_("Home"), report["home"], home), (_("Config"), report["config"], config),
            (_("Notes"), notes_place, notes), (_("Index"), report["index"], index),
            *_where_more(report)]
    from planner.ui.wrapping import Wrapped

    grid = Table.grid(padding=(0, 2))
    grid.add_column(no_wrap=True)
    grid.add_column()
    for label, place, detail in rows:
        # A path breaks after a `/`, never inside a name; the sentences wrap between words.
        cell = Text(inert_line(place))
        cell.append("\n")
        cell.append(inert_line(detail), style="dim")
        grid.add_row(Text(label, style="bold"), Wrapped(cell))
    out.print(grid)


def _where_more(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    """`planner where`'s rows for the busy calendars, the goals (when the config has them) and
    the memory model: (label, place, detail)."""
    rows = []
    for number, source in enumerate(report["busy_calendars"]):
        label = _("Busy") if number == 0 else ""
        free = source.get("all_day") == "free"
        if source["kind"] == "caldav":
            place = source["place"] + (f" ({source['calendar']})" if source["calendar"] else "")
            detail = _("a CalDAV server: asked only when a command needs the busy time")
            detail += "; " + (_("its all-day events are free (all_day: free)") if free else
                              _("its all-day events count as busy"))
        elif source["readable"]:
            detail = _("can be read")
            if free:
                detail += "; " + _("its all-day events are free (all_day: free)")
            elif source.get("all_day_events") is not None:
                detail += "; " + _("{count} all-day event(s) in the next 60 days count as "
                                   "busy").format(count=source["all_day_events"])
        else:
            detail = _("cannot be used: {problem}; its busy time is unknown").format(
                problem=source["problem"])
        rows.append((label, place if source["kind"] == "caldav" else source["place"], detail))
    if not report["busy_calendars"]:
        rows.append((_("Busy"), _("none"), _("busy_calendars in the config lists calendars "
                                             "whose events are busy time")))
    if "goals" in report:
        for number, goal in enumerate(report["goals"]):
            rows.append((_("Goals") if number == 0 else "", goal["name"],
                         _("on {date}").format(date=goal["date"])))
        if not report["goals"]:
            rows.append((_("Goals"), _("none"), _("goals in the config sets them")))
    memory = report["memory"]
    if memory["problem"] is not None:
        detail = _("FSRS's default parameters are used: {problem}").format(
            problem=memory["problem"])
    elif memory["in_use"] == "fitted" and memory["reviews"] is not None:
        detail = _("fitted parameters are used (planner fit made them from {count} reviews)"
                   ).format(count=memory["reviews"])
    elif memory["in_use"] == "fitted":
        detail = _("fitted parameters are used (planner fit made them)")
    else:
        detail = _("FSRS's default parameters are used (planner fit fits them to your "
                   "reviews)")
    rows.append((_("Memory"), memory["file"], detail))
    return rows


# --- planner due ------------------------------------------------------------------------------


def due_table(rows: list[dict[str, Any]], total: int, today: _dt.date, days: int,
              next_due: _dt.date | AfterLastDay | None) -> None:
    """`planner due`: the notes due by today + days, most overdue first; or one line saying
    nothing is, and when the next review falls due."""
    horizon = today + _dt.timedelta(days=days)
    by = _("today") if not days else (
        n_("{date} (in {days} day)", "{date} (in {days} days)", days)).format(
            date=horizon.isoformat(), days=days)
    if not rows:
        if next_due is None:
            info(_("Nothing is due by {by}, and no note has a due date yet: planner done "
                   "records a review.").format(by=by))
        else:
            info(_("Nothing is due by {by}; the next review is due {when}.").format(
                by=by, when=_day_words(next_due, today)))
        return
    wide = out.width >= WIDE
    grid = list_table((_("Due by {by}: {total:,} note, most overdue first") if total == 1
                        else _("Due by {by}: {total:,} notes, most overdue first")).format(
                            by=by, total=total))
    grid.add_column(_("ID"), no_wrap=True, max_width=24, overflow="ellipsis")
    grid.add_column(_("Title"), min_width=8, ratio=1)
    grid.add_column(_("Due"), no_wrap=True)
    grid.add_column(_("Last review"), no_wrap=True)
    grid.add_column(_("Recall"), justify="right", no_wrap=True)
    if wide:
        grid.add_column(_("Reviews"), justify="right", no_wrap=True)
    for row in rows:
        day = parse_day(row["due"])
        overdue = day is not None and day < today
        due = text_cell(_day_words(day, today) if day else row["due"],
                    "bold red" if overdue else "bold" if day == today else "")
        last = parse_day(row["last_reviewed"])
        recall = row["retrievability"]
        title = text_cell(row["title"])
        title.no_wrap, title.overflow = True, "ellipsis"
        cells = [text_cell(row["id"]), title, due,
                 text_cell(f"{last.isoformat()} {rating_word(row['last_rating'])}" if last
                       else "sr-due"),
                 text_cell(f"{recall}%" if recall is not None else "-")]
        if wide:
            cells.append(text_cell(row["reviews"]))
        grid.add_row(*cells)
    out.print(grid)
    if len(rows) < total:
        info(_("Showing {count:,} of {total:,} due notes: --limit N shows more (0: all).")
             .format(count=len(rows), total=total))
    if not wide:
        table_note(_("Recall: the chance you remember the note now, by FSRS; sr-due: a due date "
                "from Obsidian Spaced Repetition."))


def _day_words(day: _dt.date | AfterLastDay, today: _dt.date) -> str:
    """`2026-12-06 Sun, in 5 days`; a due date past the calendar's end (README "A screen you can
    trust"): its words."""
    if isinstance(day, AfterLastDay):
        return _("after 9999-12-31")
    return _("{date} {weekday}, {distance}").format(
        date=day.isoformat(), weekday=short_weekday(day), distance=distance(day, today))


# --- planner reviews --------------------------------------------------------------------------


def reviews_table(rows: list[dict[str, Any]], where: str, note: str | None,
                  every: Sequence[str] = ()) -> None:
    """`planner reviews`: the review log, newest first; undone reviews marked (they no longer
    count). A review ID cut to fit ends in `…` after a start that no other ID of `every` (the
    log's) has: `done --undo` takes it."""
    about = inert_line(note) if note is not None else None
    if not rows:
        info((_("No reviews in {where} yet: planner done records one.") if about is None else
              _("No reviews of {note} in {where} yet: planner done records one.")).format(
                  where=where, note=about))
        return
    wide = out.width >= WIDE
    counted = sum(1 for row in rows if not row["undone"])
    grid = list_table((_("Reviews in {where}: {count:,}") if about is None else
                        _("Reviews of {note} in {where}: {count:,}")).format(
                            where=where, note=about, count=counted)
                       + (_(", {count:,} undone").format(count=len(rows) - counted)
                          if counted < len(rows) else "")
                       + _(", newest first"))
    grid.add_column(_("When"), no_wrap=True)
    grid.add_column(_("Note"), no_wrap=True, max_width=24, overflow="ellipsis")
    grid.add_column(_("Title"), min_width=8, ratio=1)
    grid.add_column(_("Rating"), no_wrap=True)
    grid.add_column(_("Min"), justify="right", no_wrap=True)
    if wide:
        grid.add_column(_("Plan"), no_wrap=True)
    widest = max(len(str(row["review_id"])) for row in rows)
    grid.add_column(_("Review ID"), no_wrap=True, overflow="ellipsis",
                    min_width=min(widest, unique_start(every, [row["review_id"] for row in rows])
                                  + 1))
    for row in rows:
        style = "dim strike" if row["undone"] else ""
        title = text_cell(row["title"], style)
        title.no_wrap, title.overflow = True, "ellipsis"
        rating = text_cell(rating_word(row["rating"]),
                       "dim" if row["undone"] else _RATING.get(row["rating"], ""))
        cells = [text_cell(_local_time(row["reviewed_at"]), style),
                 text_cell(row["note_id"], style), title, rating,
                 text_cell(row["minutes"], style)]
        if wide:
            cells.append(text_cell(row["run_id"], "dim"))
        review = text_cell(row["review_id"], "dim")
        review.overflow = "ellipsis"  # an ID cut for the screen ends in `…`, never silently
        if row["undone"]:
            # On a line of its own in the cell: a status word is never cut (README "中文界面").
            review.append("\n" + _("undone"), style="yellow")
        cells.append(review)
        grid.add_row(*cells)
    _room_for_last(grid, out.width)
    out.print(grid)
    if not wide:
        info(_("Plans reviewed: planner reviews --json, or a terminal 110 columns wide."))


_RATING = {"again": "red", "hard": "yellow", "good": "green", "easy": "cyan"}


def _room_for_last(grid: Table, width: int) -> None:
    """The last column gets the room the others leave: cut, it ends in `…` (Rich would let the
    table run past the screen and the terminal cut it silently)."""
    from rich.cells import cell_len

    def span(column: Column) -> int:
        widest = max((cell_len(line) for cell in [column.header, *column._cells]
                      for line in str(getattr(cell, "plain", cell)).split("\n")), default=0)
        if column.no_wrap:
            widest = min(widest, column.max_width or widest)
        else:
            widest = min(widest, column.min_width or widest)  # a title gives up all but this
        return max(widest, column.min_width or 0)

    *others, last = grid.columns
    room = width - sum(span(column) for column in others) - 2 * len(others)
    note = others[1]
    if room < (last.min_width or 0) and note.max_width:
        # The note's ID gives way (cut with …) before the review ID's unique start does.
        note.max_width = max(span(note) - ((last.min_width or 0) - room), 10)
        room = width - sum(span(column) for column in others) - 2 * len(others)
    if room < span(last):
        last.max_width = max(room, last.min_width or 1)


def unique_start(every: Sequence[str], shown: Sequence[str]) -> int:
    """The characters each of `shown` needs for no other ID in `every` to start the same."""
    from os.path import commonprefix

    ordered = sorted(set(every) | set(shown))
    place = {value: index for index, value in enumerate(ordered)}
    need = 1
    for value in shown:
        index = place[value]
        for other in ordered[max(index - 1, 0):index] + ordered[index + 1:index + 2]:
            need = max(need, len(commonprefix([value, other])) + 1)
    return need


def _local_time(value: object) -> str:
    """A UTC ISO time from the log as the person's local 'YYYY-MM-DD HH:MM'."""
    try:
        moment = _dt.datetime.fromisoformat(str(value))
    except ValueError:
        return str(value)
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


# --- planner done -----------------------------------------------------------------------------


def review_recorded(shown: str, title: str, rows: list[dict[str, Any]], today: _dt.date,
                    day: _dt.date) -> None:
    """What `planner done` recorded, and each note's next due date."""
    from rich.table import Table

    rating = rating_word(rows[0]["rating"]) if rows else "-"
    what = (_("{rating} for {target}: {title}, reviewed today.") if day == today else
            _("{rating} for {target}: {title}, reviewed on {date}.")).format(
                rating=rating, target=inert_line(i18n.shown(shown)), title=inert_line(title),
                date=day.isoformat())
    print_line(Text.assemble((_("Recorded"), "bold green"), " ", inert_line(what)))
    grid = Table.grid(padding=(0, 2))
    grid.add_column(no_wrap=True, max_width=24, overflow="ellipsis")
    grid.add_column(min_width=8, overflow="ellipsis", no_wrap=True)
    grid.add_column(no_wrap=True)
    for row in rows:
        due = parse_due(row["next_due"])
        grid.add_row(text_cell(row["note_id"]), text_cell(row["title"]),
                     Text(_("next due {when}").format(
                         when=_day_words(due, today) if due else "-")))
    out.print(grid)
    ids = _(", ").join(row["review_id"] for row in rows)
    table_note(_("Review IDs: {ids} (planner done --undo REVIEW_ID takes one back).").format(
        ids=ids))


def review_undone(row: dict[str, Any], today: _dt.date) -> None:
    """What `planner done --undo` did: the review no longer counts; the note's due date now."""
    due = parse_due(row["next_due"])
    then = _local_time(row["reviewed_at"])
    what = _(": review {review_id} of {note} ({rating}, {time}) no longer counts; the log "
             "keeps it, marked undone.").format(
                 review_id=row["review_id"], note=row["note_id"],
                 rating=rating_word(row["rating"]), time=then)
    print_line(Text.assemble((_("Undone"), "bold"), inert_line(what)))
    info(_("{note} is next due {when}.").format(note=row["note_id"],
                                                 when=_day_words(due, today)) if due else
         _("{note} has no review left: it is new again.").format(note=row["note_id"]))
