"""A rejection that names every failing session of a study plan or a series, one line each."""

from __future__ import annotations

from planner.base.i18n import nt, t
from planner.plans.plan import InvalidArguments

MAX_NAMED = 20  # failing sessions named one by one; the rest are counted


class SessionsRejected(InvalidArguments):
    """Some sessions do not fit: `lines` names each (number, date, reason), at most 20."""

    def __init__(self, field: str, rule: str, lines: tuple[str, ...]) -> None:
        super().__init__(field, rule)
        self.lines = lines


def rejection(failures: list[tuple[int, str, str]], total: int,
              summary: str | None = None) -> SessionsRejected:
    """One line per failing session (at most MAX_NAMED, then how many more), under `summary`
    (by default: how many do not fit)."""
    lines = [t("session {number} ({date}): {reason}", number=number, date=date, reason=reason)
             for number, date, reason in failures[:MAX_NAMED]]
    if len(failures) > MAX_NAMED:
        lines.append(t("and {count} more", count=len(failures) - MAX_NAMED))
    if summary is None:
        summary = nt("1 of {total} sessions does not fit; mend it and propose the plan again",
                     "{count} of {total} sessions do not fit; mend them all and propose the "
                     "plan again", len(failures), total=total)
    return SessionsRejected("sessions", summary, tuple(lines))
