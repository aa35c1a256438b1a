"""The last check before a plan is written: does it still fit the plans saved meanwhile?

Another run in the same home may have saved a plan since this one was shown. Right before the
write, under the plans folder's lock (planner.plans.store), the proposal is placed again by the
very checks that placed it (planner.calendar's timetable and study placing), against the saved
plans read again now; busy time is the run's own, read once. A session that now overlaps a saved
plan or passes `daily_minutes` raises InvalidArguments, with the reason for the model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from planner.plans.study import Proposal

if TYPE_CHECKING:
    from planner.calendar.busy import BusyTimes
    from planner.calendar.timetable import Timetable
    from planner.memory.anki_load import AnkiDays


def still_fits(timetable: Timetable | None, plan: Proposal) -> Callable[[], None]:
    """The check to run under the lock: raises InvalidArguments when `plan` no longer fits.

    Without a timetable nothing was checked against the week, and nothing is checked again.
    """
    if timetable is None:
        return lambda: None

    def check() -> None:
        from planner.calendar.study_placing import place

        place(_saved_now(timetable), plan)

    return check


def _saved_now(run: Timetable) -> Timetable:
    """The run's timetable with its saved plans unread (read again when asked), its busy time
    kept."""
    from planner.calendar.timetable import Timetable

    class SavedNow(Timetable):
        def busy(self) -> BusyTimes:
            return run.busy()

        def anki_days(self) -> AnkiDays:
            return run.anki_days()

    fresh = SavedNow(home=run.home, mode=run.mode, hours=run.hours,
                     daily_minutes=run.daily_minutes, review_time=run.review_time,
                     today=run.today, until=run.until, sources=run.sources, zone=run.zone,
                     password=run.password, marks=run.marks,
                     anki_collection=run.anki_collection)
    fresh.leave_out, fresh.goal, fresh.replaced = run.leave_out, run.goal, run.replaced
    return fresh
