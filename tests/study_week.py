"""Next week's Monday and the days counted from it: the week the study plans are placed in."""

from __future__ import annotations

import datetime as _dt

from conftest import today

MONDAY = today() + _dt.timedelta(days=7 - today().weekday())  # next week's Monday


def day(offset: int) -> str:
    """The date `offset` days after next week's Monday, as YYYY-MM-DD."""
    return (MONDAY + _dt.timedelta(days=offset)).isoformat()
