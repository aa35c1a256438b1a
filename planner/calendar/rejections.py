"""A rejection that names every failing session (planner.plans.rejections: the argument rules
name theirs the same way, below the calendar)."""

from planner.plans.rejections import MAX_NAMED, SessionsRejected, rejection

__all__ = ["MAX_NAMED", "SessionsRejected", "rejection"]
