"""A plain export moves with the log (README "中文界面"): each event's SEQUENCE and LAST-MODIFIED
from
the review log's changes of it, where there is no earlier copy to compare with."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable

from planner.calendar.ics import UID_SUFFIX, EventSpec


def with_revisions(events: Iterable[EventSpec],
                   revisions: dict[str, tuple[int, _dt.datetime]]) -> list[EventSpec]:
    """Each event with the log's changes (memory.marking.log_revisions) of its plan (a drop,
    a drop-undo) and of itself (done, undo): SEQUENCE their number, LAST-MODIFIED the last."""
    return [_with_revision(spec, revisions) for spec in events]


def _with_revision(spec: EventSpec, revisions: dict[str, tuple[int, _dt.datetime]]) -> EventSpec:
    run_id = spec.saved_order
    rest = spec.uid.removeprefix(run_id).removesuffix(UID_SUFFIX)
    refs = [run_id] + ([f"{run_id}#{rest[1:]}"] if rest.startswith("-") else [])
    found = [revisions[ref] for ref in dict.fromkeys(refs) if ref in revisions]
    if not found:
        return spec
    return spec._replace(sequence=sum(count for count, _ in found),
                         modified=max(moment for _, moment in found))
