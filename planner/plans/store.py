"""The plan store (README "Plans you can use"): the plans folder and the one place a plan file is
saved, listed and asked what is planned on a day. planner.plans.files knows one file's format.

A plan is written once, exclusively and durably, never over another (README "Live mode"). Two
runs in one home may confirm plans for the same time at once: the plans folder is locked
(`flock` on the folder itself, so no lock file shows up among the plans) around the caller's
last check against the plans saved meanwhile and the write, and only there. A check that fails
raises, the lock is let go, and nothing is written.
"""

from __future__ import annotations

import datetime as _dt
import fcntl
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from planner.base import storage
from planner.base.home import HomePath
from planner.base.i18n import t
from planner.base.oserrors import os_reason
from planner.plans.files import (
    NO_MARKS,
    PLANS_DIR,
    ListedPlan,
    Marks,
    PlanProblem,
    PlanRow,
    PlansError,
    plan_days,
    read_plan,
    row_ref,
)
from planner.plans.plan import ReviewSeries
from planner.plans.study import Proposal

# Plans examined for the SAVE screen's warnings: enough for decades of daily use, and a bound
# on the time a folder of millions of files can add before the prompt. Names sort by time, so
# the newest are the ones examined.
MAX_WARNING_FILES = 20_000


def _no_check() -> None:
    """Nothing to check again: the plan is written as it is."""


def save_plan(target: Path, content: bytes, check: Callable[[], None] = _no_check) -> None:
    """Write `content` as the new plan file `target`, after `check()`, both under the lock.

    `check` reads the saved plans again and raises when the plan no longer fits (whatever it
    raises comes out of here, with nothing written). OSError when the folder cannot be made or
    locked or the file cannot be written (then nothing partial is left, and nothing is ever
    overwritten).
    """
    storage.ensure_dir(target.parent)
    with locked(target.parent):
        check()
        storage.create_exclusive(target, content)


@contextmanager
def locked(folder: Path) -> Iterator[None]:
    """The plans folder locked against every other run's save, for the `with` block only."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # waits for another run's check and write to end
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


# --- Reading the folder ---------------------------------------------------------------------


def plans_dir(home: HomePath, demo: bool) -> str:
    """The path of home/plans (or home/demo-plans) as a plain string."""
    return os.path.join(os.fspath(home), PLANS_DIR["demo" if demo else "live"])


def plan_names(folder: str) -> list[str]:
    """The `*.json` names in a plans folder, sorted; [] when it does not exist; else PlansError."""
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return []
    except OSError as error:
        raise PlansError(t("cannot look at {folder} ({reason})", folder=folder,
                           reason=os_reason(error))) from None
    if stat.S_ISLNK(info.st_mode):
        # A link could lead anywhere on the disk: plans are read only inside the home folder.
        raise PlansError(t("{folder} is a symbolic link, which is not followed; make it a real "
                           "folder", folder=folder))
    if not stat.S_ISDIR(info.st_mode):
        raise PlansError(t("{folder} is not a folder", folder=folder))
    try:
        with os.scandir(folder) as entries:
            # Dot names are never plans (.gitkeep, editors' files), nor are names not ending .json.
            names = [entry.name for entry in entries
                     if entry.name[0] != "." and entry.name.endswith(".json")]
    except OSError as error:
        raise PlansError(t("cannot list {folder} ({reason})", folder=folder,
                           reason=os_reason(error))) from None
    names.sort()
    return names


def list_plans(home: HomePath, demo: bool, include_past: bool, today: _dt.date,
               marks: Marks = NO_MARKS) -> list[ListedPlan]:
    """`planner plans --json` rows: upcoming first, then (include_past) past newest first,
    then every file that has a problem (a PlanProblem); raises PlansError when the folder
    cannot be listed.

    A series gives one row per session. Dropped plans are listed too, marked (`plans` hides
    them, exports cancel their events). `marks`: from the review log, read by the caller
    (the review memory owns the log; this layer sits below it).
    """
    label = PLANS_DIR["demo" if demo else "live"]
    folder = plans_dir(home, demo)
    names = plan_names(folder)
    upcoming: list[PlanRow] = []
    past: list[PlanRow] = []
    problems: list[PlanProblem] = []
    first_file: dict[str, str] = {}
    now = today
    for name in names:
        rows = read_plan(folder, name, label)
        if isinstance(rows, PlanProblem):
            problems.append(rows)
            continue
        first = rows[0]
        # A copied file keeps the run ID: two calendar events with one UID would merge.
        earlier = first_file.setdefault(first.run_id, first.file)
        if earlier != first.file:
            problems.append(PlanProblem(f"{label}/{name}", t(
                "has the same run_id as {file} (a copy?)", file=earlier)))
            continue
        for row in rows:
            if marks is not NO_MARKS:
                row = _marked(row, marks)
                if row.date < now and not (row.done or row.dropped):
                    # Known only with the log read: without it nothing is marked done.
                    row = row._replace(missed=True)
            if row.date >= now:
                upcoming.append(row)
            elif include_past:
                past.append(row)
    # Names sort by creation time (run IDs), so ties on a date keep the order they were saved.
    upcoming.sort(key=_date_key)
    past.sort(key=_date_key, reverse=True)
    return [*upcoming, *past, *problems]


def _marked(row: PlanRow, marks: Marks) -> PlanRow:
    """The row as the review log marks it: done (each of its notes reviewed for it; some:
    partly), dropped, moved."""
    ref = row_ref(row)
    done = ref in marks.done
    reviewed: tuple[str, ...] = ()
    if done:
        notes = marks.reviewed.get(ref)
        if notes is not None:
            reviewed = tuple(note for note in row.note_ids if note in notes)
            done = len(reviewed) == len(row.note_ids)
        else:
            reviewed = tuple(row.note_ids)
    dropped = row.run_id in marks.dropped or ref in marks.dropped
    where = marks.moved.get(ref) if marks.moved else None
    if where is not None:
        # Plan files are never rewritten: the log's latest move says where it is now.
        return row._replace(done=done, dropped=dropped, date=where[0], start=where[1],
                            moved=True, reviewed=reviewed)
    if reviewed or dropped:
        return row._replace(done=done, dropped=dropped, reviewed=reviewed)
    return row


def confirmation_warnings(home: HomePath, mode: str, plan: Proposal,
                          today: _dt.date,
                          dropped: Callable[[], frozenset[str]] = frozenset) -> list[str]:
    """One-line warnings for the SAVE screen about plans already saved; never raises.

    A saved plan (or session) of the same mode with the same date and the same set of note IDs
    is named as a duplicate; other plans on that date are counted with their minutes. For a
    series, every session's date is looked at, and each warning names its session. Dropped
    plans and sessions, and files that cannot be read, are left out (`planner plans` lists
    them). `today` is accepted for the screen's own use and does not change the result.
    `dropped()` gives the plans and sessions (`RUN`, `RUN#n`) left out: asked only when there
    are plans to look at, so an empty folder costs no read of the log.
    """
    label = PLANS_DIR.get(mode)
    if label is None:
        return []
    folder = os.path.join(os.fspath(home), label)
    try:
        names = plan_names(folder)
    except PlansError:
        return []
    warnings: list[str] = []
    if len(names) > MAX_WARNING_FILES:
        warnings.append(t("only the newest {checked:,} of {count:,} files in {folder}/ were "
                          "checked for plans on this date", checked=MAX_WARNING_FILES,
                          count=len(names), folder=label))
        names = names[-MAX_WARNING_FILES:]
    days = plan_days(plan)
    wanted = frozenset(plan.note_ids)
    same: dict[_dt.date, list[str]] = {day: [] for day in days}
    minutes = dict.fromkeys(days, 0)
    count = dict.fromkeys(days, 0)
    left_out = dropped() if names else frozenset()
    for name in names:
        try:
            rows = read_plan(folder, name, label)
        except Exception:  # a warning must never stop the person from deciding
            continue
        for row in rows if isinstance(rows, list) else ():
            day = row.date
            if day not in count or row.run_id in left_out \
                    or row_ref(row) in left_out:  # a plan dropped, or that one session
                continue
            count[day] += 1
            minutes[day] += row.minutes
            if frozenset(row.note_ids) == wanted:
                where = row.file
                if row.session is not None:
                    where = t("{file} (session {session})", file=where, session=row.session)
                same[day].append(where)
    series = len(days) > 1 or isinstance(plan, ReviewSeries)
    for number, day in enumerate(days, 1):
        found, day_warnings = same[day], []
        if len(found) > 1:
            day_warnings.append(t("the same review (same date, same notes) is already saved in "
                                  "{file} and {more} more", file=found[0], more=len(found) - 1))
        elif found:
            day_warnings.append(t("the same review (same date, same notes) is already saved in "
                                  "{file}", file=found[0]))
        if count[day] == 1:
            day_warnings.append(t("that day already holds {minutes} minutes in 1 plan",
                                  minutes=minutes[day]))
        elif count[day]:
            day_warnings.append(t("that day already holds {minutes} minutes in {count} plans",
                                  minutes=minutes[day], count=count[day]))
        for warning in day_warnings:
            warnings.append(t("session {number} ({day}): {warning}", number=number,
                              day=day.isoformat(), warning=warning) if series else warning)
    return warnings


def _date_key(row: PlanRow) -> _dt.date:
    return row.date


# --- strict reading --------------------------------------------------------------------------


def minutes_by_day(home: str | os.PathLike[str], today: _dt.date,
                   marks: Marks = NO_MARKS) -> dict[_dt.date, int]:
    """Each day's planned minutes from today on: saved sessions, not dropped, at their moved
    dates; {} when the plans folder cannot be listed."""
    try:
        rows = list_plans(home, False, False, today, marks)
    except PlansError:
        return {}
    planned: dict[_dt.date, int] = {}
    for row in rows:
        if isinstance(row, PlanRow) and not row.dropped:
            planned[row.date] = planned.get(row.date, 0) + row.minutes
    return planned
