"""Review memory: planner done, reviews, drop and due."""

from contextlib import closing, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from planner import ui
from planner.base import answers
from planner.base.i18n import t
from planner.cli.common import (
    TABLE_LIMIT,
    ConfigOption,
    HomeOption,
    JsonFlag,
    Workspace,
    complete_run,
    open_workspace,
    pick_run,
    say_warnings,
)
from planner.cli.exits import exit_failed, exit_usage, interrupted

if TYPE_CHECKING:
    import datetime as _dt

    from planner.base.config import Config
    from planner.base.days import AfterLastDay
    from planner.memory.log import Review
    from planner.memory.marking import Target
    from planner.notes.catalog import Catalog
    from planner.plans.files import Marks, PlanRow

# README "Review memory". The decisions and the writes are in planner.memory.marking, the schedules
# in
# planner.memory.review_memory (fsrs is imported only when a due date is computed): --help and
# the other commands load none.

RATINGS = answers.RATINGS
RunArgument = Annotated[
    str | None,
    typer.Argument(metavar="[RUN]", show_default=False, autocompletion=complete_run,
                   help="last or -1 (the newest run that saved a plan), -2 (the one before), ..., "
                   "or a run ID or a unique start of one, as for planner show."),
]


def pick_plan_run(folder: Path, wanted: str) -> str:
    """The saved plan's run that RUN names: `last`, -N, an ID or a unique start of one, as for
    `show`; an ID or start of one is looked for among the saved plans too (their records may
    be gone)."""
    from planner.plans import files as plans
    from planner.plans import store

    if wanted == "last" or wanted.startswith("-"):
        return _newest_saved(folder, wanted)
    # An empty RUN names no run (every ID starts with it): said as for `show ''`.
    if wanted:
        ids = []
        for demo in (False, True):  # a demo plan is found, to be refused as one
            names: list[str] = []
            with suppress(plans.PlansError):
                names = store.plan_names(store.plans_dir(folder, demo))
            ids += [name.removesuffix(".json") for name in names]
        matches = [run_id for run_id in ids if run_id == wanted] or [
            run_id for run_id in ids if run_id.startswith(wanted)]
        if len(matches) == 1:
            return matches[0]
    return pick_run(folder, wanted)


def _newest_saved(folder: Path, wanted: str) -> str:
    """The run `last` or -N names among the runs that saved a plan in plans/, newest first: a
    cancelled or demo run in between is not the plan the person means."""
    from planner.plans import files as plans
    from planner.plans import store

    back = "1" if wanted == "last" else wanted[1:]
    if not (back.isascii() and back.isdigit()):
        exit_usage(t("no such option: {option} (planner show -h lists the options)",
                 option=wanted))
    number = int(back)
    if number == 0:
        exit_usage(t("-0 names no run: -1 is the newest, -2 the one before"))
    label = f"{plans.PLANS_DIR['live']}/" if folder == Path(".") else \
        f"{folder}/{plans.PLANS_DIR['live']}/"
    # A PlansError rises: a Failure (exit 1).
    names = store.plan_names(store.plans_dir(folder, False))
    # Run IDs begin with their time: the newest sorts last.
    ids = sorted((name.removesuffix(".json") for name in names), reverse=True)
    if not ids:
        exit_usage(t("no plan saved in {folder} yet; {run} names the newest run that saved one",
                 folder=label, run=wanted))
    if number > len(ids):
        exit_usage(t("only {count} run(s) saved a plan in {folder}; -{count} is the oldest "
                     "of them", count=len(ids), folder=label))
    return ids[number - 1]


def _session_ref(text: str) -> tuple[str, int | None]:
    """RUN or RUN#n: the run and the session number (None: the whole plan)."""
    from planner.plans import files as plans

    return plans.split_ref(text)  # a UsageError rises


def session_rows(rows: list["PlanRow"], number: int | None) -> list["PlanRow"]:
    """All of a plan's rows, or only session `number`'s; one line, exit 2, when it has none."""
    if number is None:
        return rows
    chosen = [row for row in rows if row.session == number]
    if not chosen:
        exit_usage(t("{file} has no session {number} (it has {count})", file=rows[0].file,
                 number=number, count=len(rows)))
    return chosen


def _ask_rating() -> str | None:
    """The rating from the terminal (Enter: good); None: no terminal (then it is good)."""
    from planner.conversation.events import Prompt
    from planner.ui.conversation import TerminalPerson

    person = TerminalPerson(".")
    if not person.interactive:
        return None
    prompt = Prompt("rating")
    for _ in range(3):
        line = person.ask(prompt)
        if line is None:
            return None
        if not line.endswith("\n"):
            exit_usage(t("no rating was given (end of input); nothing was recorded"))
        if not line.strip():
            return "good"
        answer = answers.rating_from(line)  # the words the prompt shows, in either language
        if answer is not None:
            return answer
        prompt = Prompt("rating", typed=line.strip()[:40])
    exit_usage(t("no rating was given (again, hard, good or easy); nothing was recorded"))


def done_command(
    ctx: typer.Context,
    run_id: RunArgument = None,
    rating: Annotated[
        str | None,
        typer.Option("--rating", "-r", metavar="again|hard|good|easy",
                     help="How it went: again, hard, good or easy (also 忘了, 吃力, 记得 or 轻松; "
                     "default: asked on a terminal, else good)."),
    ] = None,
    minutes: Annotated[
        int | None,
        typer.Option("--minutes", "-m", min=1, max=120, help="How long it took (1-120)."),
    ] = None,
    note: Annotated[
        list[str] | None,
        typer.Option("--note", help="Only this note of the plan (repeat for more)."),
    ] = None,
    date: Annotated[
        str | None,
        typer.Option("--date", metavar="YYYY-MM-DD",
                     help="When it happened, if not today (never a future date)."),
    ] = None,
    undo: Annotated[
        str | None,
        typer.Option("--undo", metavar="REVIEW_ID",
                     help="Take back a review recorded by mistake (it stops counting): its "
                     "ID or a unique start of one, as planner reviews shows it."),
    ] = None,
    as_json: JsonFlag = False,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """Record that a saved plan's review happened: one review for each of its notes.

    With no RUN: the most recent plan dated today or earlier that has no reviews yet. A series
    records its earliest session not yet done. Prints each note's next due date.

    Example: planner done --rating hard
    """
    import datetime as _dt

    from planner.memory import marking

    workspace = open_workspace(ctx, home, config_path)
    folder = workspace.home
    if run_id is not None and run_id.startswith("-") and \
            not run_id.partition("#")[0][1:].isdigit():
        exit_usage(t("no such option: {option} (planner done -h lists the options)",
                 option=run_id))
    if undo is not None:
        if run_id is not None or rating is not None or minutes is not None or note or date:
            exit_usage(t("--undo REVIEW_ID takes no RUN, --rating, --minutes, --note or --date"))
        _undo_review(workspace, undo, as_json)
        return
    if rating is not None:
        # The words the rating prompt offers, in either language (README "Review memory").
        word = answers.rating_from(rating)
        if word is None:
            exit_usage(t("--rating {rating}: must be again, hard, good or easy",
                         rating=rating[:40]))
        rating = word
    config = workspace.config()
    now = _dt.datetime.now(_dt.UTC)
    reviewed_at = marking.review_time(date, now)
    today = now.astimezone().date()
    log = marking.read_log(folder)
    say_warnings(log.warnings)
    target = _done_target(folder, config, run_id, note, today, marking.marks_from(log.events))
    note_ids = marking.chosen_notes(target, note or ())
    marking.check_after_saved(target, reviewed_at)
    if rating is None:
        rating = _asked_rating(target, note_ids)
    recorded = marking.record_done(folder, target, note_ids, rating, minutes,
                          reviewed_at)
    _done_said(folder, config, target, note_ids, recorded, reviewed_at, today, as_json)


def _done_target(folder: Path, config: "Config", run_id: str | None, note: list[str] | None,
                 today: "_dt.date", marks: "Marks") -> "Target":
    """The plan or session `planner done` records: RUN's, else the latest open one holding
    --note's notes, else the notes on their own, else the latest open plan."""
    from planner.memory import marking

    if run_id is None and note:
        # A review needs no plan: notes that no open plan holds are recorded on their own.
        target = None
        with suppress(marking.Refused):
            target = marking.latest_open(folder, today, marks)
        if target is None or not set(note) <= set(target.row.note_ids):
            target = marking.without_plan(note,
                                _quiet_catalog(folder, config), today)
        return target
    if run_id is None:
        return marking.latest_open(folder, today, marks)
    wanted, number = _session_ref(run_id)
    found = pick_plan_run(folder, wanted)
    rows = session_rows(marking.plan_rows(folder, found, today, marks),
                         number)
    return marking.target_of(rows, found)


def _asked_rating(target: "Target", note_ids: list[str]) -> str:
    """The rating asked on the terminal (like SAVE, never read from a pipe); with none, good."""
    from planner.base.i18n import _, shown

    rating = "good"
    if ui.has_terminal():
        # Shown only, and translated here: the plan's title is the model's words, never
        # matched against the catalog.
        ui.notice(_("Recording the review of {target}: {title} ({notes}).").format(
            target=shown(target.shown), title=target.row.title,
            notes=", ".join(note_ids)))
        with interrupted(t("interrupted (Ctrl+C); nothing was recorded")):
            rating = _ask_rating() or "good"
    return rating


def _done_said(folder: Path, config: "Config", target: "Target", note_ids: list[str],
               recorded: list["Review"], reviewed_at: "_dt.datetime", today: "_dt.date",
               as_json: bool) -> None:
    """What `planner done` recorded, with each note's next due date; what is left of a session."""
    from planner.memory import marking
    from planner.memory.review_memory import ReviewMemory

    memory = ReviewMemory(folder, _quiet_catalog(folder, config), config.desired_retention)
    due = marking.next_due(memory, note_ids)
    titles = {note.id: note.title for note in target.row.notes}
    rows_out = [{**marking.review_row(review, titles.get(review.note_id)),
                 "next_due": _iso(due[review.note_id])} for review in recorded]
    early = marking.days_early(target, reviewed_at)
    if early == 1:
        ui.notice(t("{target} is dated {date}: recorded 1 day early.", target=target.shown,
                    date=target.row.date))
    elif early:
        ui.notice(t("{target} is dated {date}: recorded {days} days early.",
                    target=target.shown, date=target.row.date, days=early))
    if as_json:
        ui.print_json_lines(rows_out)
        return
    ui.review_recorded(target.shown, target.row.title, rows_out, today,
                       reviewed_at.astimezone().date())
    if target.ref is not None:
        # A session's notes one by one (README "Review memory"): say what is left of it.
        reviewed = {*(target.row.reviewed or ()), *note_ids}
        left = [note_id for note_id in target.row.note_ids if note_id not in reviewed]
        if left:
            ui.notice(t("{target}: {done} of {total} notes reviewed; planner done {ref} records "
                        "the rest ({notes}).", target=target.shown,
                        done=len(target.row.note_ids) - len(left),
                        total=len(target.row.note_ids), ref=target.ref,
                        notes=", ".join(left)))


def _undo_review(workspace: "Workspace", wanted: str, as_json: bool) -> None:
    import datetime as _dt

    from planner.memory import marking
    from planner.memory.review_memory import ReviewMemory

    folder = workspace.home
    log = marking.read_log(folder)
    say_warnings(log.warnings)
    # The start of an ID as `planner reviews` cuts it, `…` and all, is a start of it.
    review = marking.find_review(log, wanted.removesuffix("…") if len(wanted) > 1 else wanted)
    marking.undo(folder, log, review)
    config = workspace.config()
    memory = ReviewMemory(folder, _quiet_catalog(folder, config), config.desired_retention)
    due = marking.next_due(memory, [review.note_id])[review.note_id]
    row = {**marking.review_row(review, None, undone=True), "next_due": _iso(due)}
    if as_json:
        ui.print_json(row)
        return
    ui.review_undone(row, _dt.date.today())


def _iso(day: "_dt.date | AfterLastDay | None") -> str | None:
    return None if day is None else day.isoformat()


def _quiet_catalog(folder: Path, config: "Config") -> "Catalog | None":
    """The notes for titles and sr-due dates; None when they cannot be read (the log still
    decides every note planner has reviewed)."""
    from planner.notes.catalog import NotesError, load_catalog

    with suppress(NotesError):
        return load_catalog(folder, config.notes_dir, config.file)
    return None


def reviews_command(
    ctx: typer.Context,
    as_json: JsonFlag = False,
    note: Annotated[
        str | None, typer.Option("--note", help="Only the reviews of this note.")
    ] = None,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """List the review log, newest first; undone reviews are marked and no longer count.

    Example: planner reviews --note N1
    """
    from planner.memory import marking
    from planner.memory.log import LOG_NAME
    from planner.notes.catalog import NotesError

    workspace = open_workspace(ctx, home, config_path)
    folder = workspace.home
    log = marking.read_log(folder)
    say_warnings(log.warnings)
    catalog = _quiet_catalog(folder, workspace.config()) if log.events else None
    titles: dict[str, str] = {}
    if catalog is not None:
        with closing(catalog), suppress(NotesError):  # else listed by note ID alone
            titles = {row["id"]: row["title"] for row in catalog.rows(None, None)[0]}
    rows = marking.review_rows(log, titles, note)
    if as_json:
        ui.print_json_lines(rows)
    else:
        where = LOG_NAME if folder == Path(".") else f"{folder}/{LOG_NAME}"
        # An ID cut on the screen keeps a start that names it alone in the whole log, which
        # `done --undo` takes.
        every = rows if note is None else marking.review_rows(log, {})
        ui.reviews_table(rows, where, note, [row["review_id"] for row in every])


def drop_command(
    ctx: typer.Context,
    run_id: Annotated[
        str,
        typer.Argument(metavar="RUN", show_default=False, autocompletion=complete_run,
                       help="last or -1 (the newest run that saved a plan), -2, ..., or a run ID "
                       "or a unique start of one, as for planner show."),
    ],
    undo: Annotated[
        bool, typer.Option("--undo", help="Bring a dropped plan back.")
    ] = False,
    home: HomeOption = None,
) -> None:
    """Say that a saved plan will not happen: plans hides it (--all shows it dropped), exports
    cancel its events. The plan file stays as it was.

    Example: planner drop -1
    """
    import datetime as _dt

    from planner.memory import marking

    folder = open_workspace(ctx, home, None).home
    if run_id.startswith("-") and not run_id.partition("#")[0][1:].isdigit():
        exit_usage(t("no such option: {option} (planner drop -h lists the options)",
                 option=run_id))
    wanted, number = _session_ref(run_id)
    found = pick_plan_run(folder, wanted)
    log = marking.read_log(folder)
    say_warnings(log.warnings)
    rows = session_rows(marking.plan_rows(folder, found, _dt.date.today(),
                                    marking.marks_from(log.events)), number)
    ref = found if number is None else f"{found}#{number}"
    marking.drop(folder, rows, ref, undo)
    what = rows[0].file if number is None else t(
        "{file} (session {session})", file=rows[0].file, session=number)
    if undo:
        ui.info(t("Brought back {file}: it is planned again.", file=what))
    else:
        ui.info(t("Dropped {file}: planner plans hides it (--all shows it), exports cancel its "
                  "events; planner drop --undo {run_id} brings it back.", file=what,
                  run_id=ref))


def due_command(
    ctx: typer.Context,
    days: Annotated[
        int, typer.Option("--days", "-d", min=0, max=3650,
                          help="Notes due by today plus this many days (default 0: today).")
    ] = 0,
    as_json: JsonFlag = False,
    limit: Annotated[
        int | None,
        typer.Option("--limit", "-L", min=0, help="How many notes (default: 50 in the table, "
                     "all with --json; 0: all)."),
    ] = None,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """List the notes due for review by today (or today + --days), most overdue first: due
    date, last review and its rating, and the chance you remember each now (FSRS).

    Example: planner due --days 7
    """
    import datetime as _dt

    from planner.memory.memory_file import fit_hint
    from planner.memory.review_memory import ReviewMemory
    from planner.notes.catalog import load_catalog

    workspace = open_workspace(ctx, home, config_path)
    folder, config = workspace.home, workspace.config()
    # A NotesError rises: it is a UsageError (exit 2), said by planner.cli.app.
    catalog = load_catalog(folder, config.notes_dir, config.file, ui.indexing_progress())
    for line in catalog.warnings:
        ui.notice(t("Warning: {warning}", warning=line))
    memory = ReviewMemory(folder, catalog, config.desired_retention)
    # through the cache in .planner/ (README "A memory fitted to you"): a warm one reads no log
    memory.memory()
    if memory.problem is not None:
        exit_failed(memory.problem)
    say_warnings(memory.log_warnings())
    hint = fit_hint(memory.counting_reviews(), memory.fitted())
    if hint is not None:
        ui.notice(hint)
    shown = (None if as_json else TABLE_LIMIT) if limit is None else (limit or None)
    today = _dt.date.today()
    try:
        found = memory.due(today, days, shown)
    finally:
        catalog.close()
    if as_json:
        ui.print_json_lines(found.rows)
        return
    ui.due_table(found.rows, found.total, today, days, found.next_due)
    _anki_due(config, today, days)


def _anki_due(config: "Config", today: "_dt.date", days: int) -> None:
    """One line: the review cards due in Anki by the same day and their minutes, when
    anki_collection is set (README "Your week")."""
    import datetime as _dt

    from planner.memory.anki_load import collection_path, read_load

    collection = collection_path(config)
    if collection is None:
        return
    last = today + _dt.timedelta(days=days) if days < (_dt.date.max - today).days else today
    anki = read_load(collection, today, last, today)
    if anki.warning:
        ui.notice(anki.warning)
        return
    cards = sum(load.cards for load in anki.days.values())
    minutes = sum(load.minutes for load in anki.days.values())
    by = t("today") if not days else last.isoformat()
    ui.info(t("Anki: {cards:,} review cards due by {by} ≈ {minutes:,} min (about {seconds:g} s "
              "a card); they count against daily_minutes.", cards=cards, by=by,
              minutes=minutes, seconds=round(anki.seconds, 1)))
