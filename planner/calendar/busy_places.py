"""A busy calendar of the config as `planner where` reports it (README "Going on with a
conversation"): what it is and whether it can be read, no server asked and nothing cached."""

from __future__ import annotations

import datetime as _dt
import os
import stat
from typing import TYPE_CHECKING, Any

from planner.base import storage
from planner.base.i18n import t
from planner.base.oserrors import os_reason

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path


def busy_place(source: Mapping[str, str], home: Path) -> dict[str, Any]:
    """A busy calendar of the config (a path relative to `home`, or absolute): what it is and
    whether it can be read, nothing read."""
    all_day = source.get("all_day", "busy")
    if "caldav" in source:
        from planner.calendar.caldav_sync import shown_url

        # A server: asked only when a command needs the busy time (where sends nothing).
        return {"kind": "caldav", "place": shown_url(source["caldav"]),
                "calendar": source.get("calendar"), "readable": None, "problem": None,
                "all_day": all_day, "all_day_events": None}
    kind = "ics" if "ics" in source else "vdir"
    place = os.path.join(home, source[kind])
    problem = None
    try:
        info = os.stat(place)
    except FileNotFoundError:
        problem = t("does not exist")
    except OSError as error:
        problem = t("cannot be read ({why})", why=os_reason(error))
    else:
        wanted = stat.S_ISREG if kind == "ics" else stat.S_ISDIR
        if not wanted(info.st_mode):
            problem = (t("is not a folder") if kind == "vdir"
                       else t("is {kind}, not a calendar file",
                              kind=storage.file_kind(info.st_mode)))
        elif not os.access(place, os.R_OK | (os.X_OK if kind == "vdir" else 0)):
            problem = t("cannot be read (no permission)")
    return {"kind": kind, "place": os.path.abspath(place), "calendar": None,
            "readable": problem is None, "problem": problem, "all_day": all_day,
            "all_day_events": _all_day_events(source, home) if problem is None else None}


def _all_day_events(source: Mapping[str, str], home: Path) -> int | None:
    """How many all-day events of a calendar file count as busy from today to the days a run
    reads (None: it cannot be read); nothing cached, nothing written."""
    from planner.calendar.busy import read_busy
    from planner.calendar.timetable import AHEAD_DAYS

    today = _dt.date.today()
    found = read_busy([source], today, today + _dt.timedelta(days=AHEAD_DAYS), home=home,
                      zone=None, cache=False)
    if found.unknown:
        return None
    return sum(1 for event in found.events if event.all_day)
