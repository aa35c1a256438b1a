"""Saved plans and calendars: planner plans, export and sync."""

from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from planner import ui
from planner.base.i18n import t
from planner.cli.common import (
    ConfigOption,
    HomeOption,
    JsonFlag,
    open_workspace,
    say_warnings,
)
from planner.cli.exits import exit_failed, exit_usage, failing_on_os

if TYPE_CHECKING:
    import datetime as _dt

    from planner.base.config import Config
    from planner.calendar.vdir import Counts
    from planner.plans.files import Marks, PlanRow

# planner.plans.files is imported inside each command, and planner.calendar.ics (with icalendar,
# ~50 ms) only by export, so --help, --dry-run and --demo never load them.

DemoPlansFlag = Annotated[
    bool, typer.Option("--demo", help="The demo's plans in demo-plans/ instead of plans/.")
]
# export's calendar targets (README "Calendars"); the code behind them is in the Calendars section
# below.
FeedOption = Annotated[
    Path | None,
    typer.Option("--feed", metavar="FILE", help="Keep this calendar file up to date: created "
                 "the first time, then replaced whole (a file planner did not write is "
                 "refused). For a calendar that subscribes to a file."),
]
VdirOption = Annotated[
    Path | None,
    typer.Option("--vdir", metavar="DIR", help="Keep a folder of one .ics file per event "
                 "(vdir) for khal or vdirsyncer; only changed events are rewritten, other "
                 "files are never touched."),
]


def _demo_plans_hint(folder: Path, exporting: bool) -> bool:
    """With no plans in plans/, say so when the demo's plans are in demo-plans/ (README "Going on
    with a conversation");
    whether it was said."""
    from planner.plans import files as plans
    from planner.plans import store

    count = 0
    # The hint is a courtesy: an unreadable folder is not this command's failure.
    with suppress(plans.PlansError):
        if not store.plan_names(store.plans_dir(folder, False)):
            count = len(store.plan_names(store.plans_dir(folder, True)))
    if count and exporting:
        ui.notice(t("plans/ has no plans, but demo-plans/ has {count} from planner --demo: "
                    "add --demo to export them.", count=count))
    elif count:
        ui.notice(t("plans/ has no plans, but demo-plans/ has {count} from planner --demo: "
                    "planner plans --demo lists them.", count=count))
    return bool(count)


def _marks(folder: Path) -> "Marks":
    """The done and dropped marks of the review log; none (with one warning) when it cannot
    be read, so the plans are still listed."""
    from planner.memory import marking
    from planner.memory.log import ReviewLogError
    from planner.plans import files as plans

    try:
        marks, warnings = marking.read_marks(folder)
        say_warnings(warnings)
    except ReviewLogError as error:
        ui.notice(t("Warning: {error}; no plan is marked done or dropped", error=error))
        marks = plans.NO_MARKS
    return marks


def plans_command(
    ctx: typer.Context,
    show_all: Annotated[
        bool, typer.Option("--all", "-a",
                           help="Past and dropped plans too, after the upcoming ones.")
    ] = False,
    as_json: JsonFlag = False,
    demo: DemoPlansFlag = False,
    home: HomeOption = None,
) -> None:
    """List saved plans: upcoming first (today, then later); files with a problem are named.

    A series lists each session; plans reviewed (planner done) are marked done, and dropped
    ones (planner drop) are left out unless --all shows them.

    Example: planner plans --all
    """
    import datetime as _dt

    from planner.plans import files as plans
    from planner.plans import store

    folder = open_workspace(ctx, home, None).home
    today = _dt.date.today()
    marks = _marks(folder)
    rows = store.list_plans(folder, demo, True, today, marks)  # a PlansError is exit 1
    no_plans = not rows and not demo  # list_plans read every file: none is a plan
    hidden = dropped = missed = 0
    if not show_all:
        # Every file is read either way (the date is inside); past and dropped plans are only
        # counted.
        now = today
        good = plans.good_rows(rows)
        hidden = sum(1 for row in good if row.date < now)
        missed = sum(1 for row in good if row.missed)
        dropped = len({row.run_id for row in good if row.date >= now and row.dropped})
        rows = [row for row in rows if isinstance(row, plans.PlanProblem)
                or (row.date >= now and not row.dropped)]
    if as_json:
        # A moved session simply has its new date and start here; the mark is the screen's.
        ui.print_json_lines([row.to_json(mark_moved=False) for row in rows])
        if no_plans:
            _demo_plans_hint(folder, exporting=False)
    elif not (no_plans and _demo_plans_hint(folder, exporting=False)):
        # One line for one fact (README "中文界面"): the hint about demo-plans/ says there are none
        # here.
        ui.plans_table(rows, plans.PLANS_DIR["demo" if demo else "live"], today, hidden,
                       dropped, missed)


def export_command(
    ctx: typer.Context,
    ics: Annotated[
        bool, typer.Option("--ics", help="Write iCalendar (RFC 5545), the one format there is.")
    ] = False,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Create this file (an existing file is refused, "
                     "never overwritten). Default: stdout."),
    ] = None,
    feed: FeedOption = None,
    vdir_folder: VdirOption = None,
    show_all: Annotated[
        bool, typer.Option("--all", "-a",
                           help="Every plan, past ones too (default: upcoming ones; --feed "
                           "and --vdir always carry every plan).")
    ] = False,
    demo: DemoPlansFlag = False,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """Export saved plans as calendar events at review_time (config), with a reminder.

    Each plan keeps its event ID, so importing a newer export updates the events instead of
    adding them twice. --feed keeps one file up to date for a calendar that subscribes to it;
    --vdir keeps a folder of one file per event for khal or vdirsyncer.

    Example: planner export --ics --output plans.ics
    """
    from planner.plans import files as plans

    if not (ics or feed or vdir_folder):
        exit_usage(t("choose the format: --ics (iCalendar)"))
    if sum(target is not None for target in (output, feed, vdir_folder)) > 1:
        exit_usage(t("choose one of --output, --feed and --vdir"))
    if output is not None and (output.is_symlink() or output.exists()):
        exit_usage(_exists(output))
    workspace = open_workspace(ctx, home, config_path)
    config = workspace.config()
    folder = workspace.home
    label = plans.PLANS_DIR["demo" if demo else "live"]
    # A calendar that follows the feed or the vdir keeps past plans (and their done marks).
    keeps_all = show_all or feed is not None or vdir_folder is not None
    good = _good_rows(folder, demo, keeps_all)
    if not good:
        ui.notice(t("No plans in {folder}/ to export; nothing was written.", folder=label)
                  if keeps_all else
                  t("No upcoming plans in {folder}/ to export (--all exports past ones too); "
                    "nothing was written.", folder=label))
        if not demo:
            _demo_plans_hint(folder, exporting=True)
        return
    if feed is not None or vdir_folder is not None:
        _export_calendar(good, config, label, feed, vdir_folder)
        return
    from planner.calendar.ics import calendar_ics, calendar_name, events_from_rows
    from planner.calendar.revisions import with_revisions

    # A CalendarRefused rises: a UsageError (exit 2).
    events = with_revisions(events_from_rows(good), _log_revisions(folder))
    data = calendar_ics(events, config.review_time, name=calendar_name(config.calendar_name))
    _written(data, output)
    if output is not None:
        # One event per plan and per session of a series: the events are what is counted.
        ui.notice(t("Exported {count} calendar event(s) from {folder}/ to {path}.",
                    count=len(events), folder=label, path=output))


def _good_rows(folder: Path, demo: bool, keeps_all: bool) -> list["PlanRow"]:
    """The saved plans to export or sync (past ones too with `keeps_all`); each file with a
    problem is named and skipped."""
    import datetime as _dt

    from planner.memory import marking
    from planner.plans import files as plans
    from planner.plans import store

    # A PlansError rises: it is a Failure (exit 1), said by planner.cli.app.
    rows = store.list_plans(folder, demo, keeps_all, _dt.date.today(),
                            marking.quiet_marks(folder))
    for problem in plans.problems_of(rows):
        ui.notice(t("Skipped {file}: {problem}", file=problem.file, problem=problem.problem))
    return plans.good_rows(rows)


def _written(data: bytes, output: Path | None) -> None:
    """The calendar on stdout, or in `output`, created (never overwritten)."""
    from planner.base import storage

    if output is None:
        with failing_on_os(lambda reason: t("could not write the calendar to stdout ({reason})",
                                            reason=reason)):
            ui.write_bytes(data)
        return
    with failing_on_os(lambda reason: t("could not create {path} ({reason}); nothing was "
                                        "written", path=output, reason=reason)):
        try:
            storage.create_exclusive(output, data)
        except FileExistsError:
            exit_usage(_exists(output))


def _log_revisions(home: Path) -> dict[str, tuple[int, "_dt.datetime"]]:
    """How the review log changed each plan (README "中文界面"); none when it cannot be read (its
    warnings are said where the plans are listed)."""
    from planner.memory import log as review_log
    from planner.memory import marking

    with suppress(review_log.ReviewLogError):
        return marking.log_revisions(review_log.read_log(home).events)
    return {}


def _exists(path: Path) -> str:
    return t("{path} already exists; planner never overwrites a file: choose another name or "
             "remove it", path=path)


# --- Calendars that stay in step: export --feed / --vdir, planner sync (README "Calendars")
# -----------------
# planner.calendar.ics (icalendar), .vdir and .caldav_sync (caldav, an optional extra) are
# imported inside these functions only, so no other command loads them.


def _export_calendar(rows: list["PlanRow"], config: "Config", label: str, feed: Path | None,
                     folder: Path | None) -> None:
    """export --feed FILE or --vdir DIR: a calendar file or folder planner owns, kept in step."""
    from planner.calendar import ics, vdir

    # A CalendarRefused (exit 2) or a CalendarFileError (a Failure, exit 1) rises.
    events = ics.events_from_rows(rows)
    if feed is not None:
        change = vdir.update_feed(feed, events, config.review_time,
                                  name=ics.calendar_name(config.calendar_name))
    elif folder is not None:
        counts = vdir.write_vdir(folder, events, config.review_time)
        vdir.name_vdir(folder, ics.calendar_name(config.calendar_name))
    if feed is not None:
        ui.info(_feed_line(change, len(events) == 1, feed=feed, count=len(events),
                           folder=label))
        return
    numbers = _counts(counts)
    if len(events) == 1:
        ui.info(t("Vdir {path}: {created} created, {updated} updated, {unchanged} unchanged "
                  "({count} event from {folder}/).", path=folder, count=len(events),
                  folder=label, **numbers))
    else:
        ui.info(t("Vdir {path}: {created} created, {updated} updated, {unchanged} unchanged "
                  "({count} events from {folder}/).", path=folder, count=len(events),
                  folder=label, **numbers))
    if counts.skipped:
        ui.notice(t("Left alone: {count} file(s) in {folder} at an event's name that planner "
                    "did not write.", count=counts.skipped, folder=folder))


def _feed_line(change: str, one: bool, **values: object) -> str:
    """The feed's line: one whole template for each change (created, unchanged or updated, as
    planner.calendar.vdir says), so the word is translated with it."""
    if change == "created":
        return (t("Feed {feed}: created ({count} event from {folder}/).", **values) if one else
                t("Feed {feed}: created ({count} events from {folder}/).", **values))
    if change == "unchanged":
        return (t("Feed {feed}: unchanged ({count} event from {folder}/).", **values) if one
                else t("Feed {feed}: unchanged ({count} events from {folder}/).", **values))
    return (t("Feed {feed}: updated ({count} event from {folder}/).", **values) if one else
            t("Feed {feed}: updated ({count} events from {folder}/).", **values))


def _counts(counts: "Counts") -> dict[str, int]:
    return {"created": counts.created, "updated": counts.updated,
            "unchanged": counts.unchanged}


def sync_command(
    ctx: typer.Context,
    caldav_url: Annotated[
        str | None,
        typer.Option("--caldav", metavar="URL", help="The CalDAV calendar's URL, or the "
                     "server's (then --calendar, or calendar_name in config, names it)."),
    ] = None,
    calendar: Annotated[
        str | None,
        typer.Option("--calendar", metavar="NAME", help="The calendar's name (its display "
                     "name or the last part of its URL)."),
    ] = None,
    user: Annotated[
        str | None,
        typer.Option("--user", "-u", metavar="USER", help="The user to log in as. The "
                     "password: PLANNER_CALDAV_PASSWORD, else the OS keyring (planner key set "
                     "caldav:USER@HOST), else a hidden prompt."),
    ] = None,
    create: Annotated[
        bool,
        typer.Option("--create", help="Make the calendar if the server does not have it: "
                     "the one --calendar (or calendar_name in config) names, or the one at "
                     "the URL."),
    ] = False,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """Put every saved plan into a CalDAV calendar (Nextcloud, Radicale, iCloud, Fastmail...).

    Events are put by their ID: new ones created, changed ones updated, the rest left alone;
    events planner did not create are never changed. Running it again changes nothing.
    Needs the caldav extra; without it, planner names the command that installs it.

    Example: planner sync --caldav https://dav.example.com/cal/alice/reviews/ --user alice
    """
    import urllib.parse

    from planner.base.install import install_command
    from planner.calendar import caldav_sync
    from planner.plans import files as plans

    if caldav_url is None:
        exit_usage(t("choose where to sync: --caldav URL"))
    if not caldav_url.startswith(("http://", "https://")):
        exit_usage(t("--caldav takes the calendar's http:// or https:// URL"))
    if not caldav_sync.available():
        exit_usage(t("planner sync needs the caldav library: {hint}",
                 hint=install_command("caldav")))
    workspace = open_workspace(ctx, home, config_path)
    config = workspace.config()
    good = _good_rows(workspace.home, False, True)
    if not good:
        ui.notice(t("No plans in {folder}/ to sync; nothing was sent.",
                    folder=plans.PLANS_DIR["live"]))
        return
    from planner.calendar import ics

    # A CalendarRefused rises: a UsageError (exit 2).
    items = ics.event_items(ics.events_from_rows(good), config.review_time)
    try:
        in_url = urllib.parse.urlsplit(caldav_url).username
    except ValueError:
        exit_usage(t("--caldav is not a valid URL"))
    login = user or (urllib.parse.unquote(in_url) if in_url else None)
    password = ask_caldav_password(caldav_url, login)
    # A SyncError rises: exit 1, or 2 for a missing caldav library (MissingLibrary).
    counts = caldav_sync.sync(caldav_url, calendar, user, password, items,
                              default_name=ics.calendar_name(config.calendar_name),
                              create=create)
    numbers = _counts(counts)
    if len(items) == 1:
        ui.info(t("CalDAV: {created} created, {updated} updated, {unchanged} unchanged "
                  "({count} event from {folder}/).", count=len(items),
                  folder=plans.PLANS_DIR["live"], **numbers))
    else:
        ui.info(t("CalDAV: {created} created, {updated} updated, {unchanged} unchanged "
                  "({count} events from {folder}/).", count=len(items),
                  folder=plans.PLANS_DIR["live"], **numbers))


def ask_caldav_password(url: str, user: str | None) -> str | None:
    """The CalDAV password from its sources (planner.base.secrets); the problems as one line."""
    from planner.base.secrets import KeyProblem, find_caldav_password

    ask = ui.ask_hidden if ui.has_terminal() else None
    try:
        # A MissingKey rises: a ConfigError (exit 2).
        return find_caldav_password(url, user, ask)
    except KeyProblem as error:
        exit_failed(error)  # a key source that failed: exit 1 here, whatever its own code


def week_command(
    ctx: typer.Context,
    start: Annotated[
        str | None,
        typer.Option("--start", metavar="YYYY-MM-DD", show_default=False,
                     help="The first of the seven days (default: today)."),
    ] = None,
    as_json: JsonFlag = False,
    demo: DemoPlansFlag = False,
    config_path: ConfigOption = None,
    home: HomeOption = None,
) -> None:
    """Show seven days: study hours, busy time from busy_calendars, planned sessions, the notes
    falling due each day and the planned minutes against daily_minutes.

    Example: planner week --start 2026-12-14
    """
    import datetime as _dt

    from planner.base.config import study_windows
    from planner.base.days import LAST_DAY, usable_day
    from planner.calendar.ics import local_zone
    from planner.calendar.week import DAYS, week
    from planner.memory.review_memory import ReviewMemory
    from planner.notes.catalog import NotesError, load_catalog

    workspace = open_workspace(ctx, home, config_path)
    folder, config = workspace.home, workspace.config()
    today = _dt.date.today()
    first = today if start is None else _week_start(start)
    # Counted back from the last day: a week from 9999-12-26 would end past date.max.
    if not (usable_day(first) and (LAST_DAY - first).days >= DAYS - 1):
        exit_usage(t("--start {date}: the week would pass the end of the calendar",
                 date=first.isoformat()))
    marks = _marks(folder)
    try:
        catalog = load_catalog(folder, config.notes_dir, config.file)
    except NotesError as error:
        ui.notice(t("Warning: {error}; no due counts are shown", error=error))
        catalog = None
    memory = ReviewMemory(folder, catalog, config.desired_retention)
    from planner.memory.anki_load import collection_path, read_load

    collection = collection_path(config)
    anki = None if collection is None else read_load(
        collection, first, first + _dt.timedelta(days=DAYS - 1), today)
    # A PlansError rises: it is a Failure (exit 1), said by planner.cli.app.
    found = week(home=folder, demo=demo, start=first, today=today,
                 hours=study_windows(config), daily_minutes=config.daily_minutes,
                 review_time=config.review_time, sources=config.busy_calendars,
                 zone=local_zone().tzinfo, password=ask_caldav_password, marks=marks,
                 memory=memory, anki=anki)
    # The due counts' sources said as due says them: skipped lines, a damaged cache or memory.json.
    say_warnings(memory.log_warnings())
    for line in found.warnings:
        ui.notice(line)
    if anki is not None and anki.warning:
        ui.notice(anki.warning)
    if as_json:
        # As plans --json: a moved session simply has its new date and start, a partly done
        # one done false.
        ui.print_json(found.to_json())
    else:
        ui.week_table(found.days, today)


def _week_start(text: str) -> "_dt.date":
    """--start's day: a real date written YYYY-MM-DD; anything else is exit 2."""
    from planner.base.days import parse_date

    day = parse_date(text)
    if day is None:
        exit_usage(t("--start {date}: must be a real date written YYYY-MM-DD", date=repr(text)))
    return day
