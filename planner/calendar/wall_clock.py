"""Busy time's times as the person's wall clock shows them, honest at the edges.

Occurrences are kept as naive local wall-clock times (busy.BusyEvent). Aware times are compared
as aware times first: on the night the clocks go back an event may end, in naive local time,
before it starts, and it still covers the wall-clock times it touches (`wall_span`); when they
go forward, the naive span already holds it. Near 0001-01-01 and 9999-12-31 a time may not exist
in another zone: such a time stays at the calendar's end, outside every day planner asks for
(planner.base.days keeps those a day inside the ends).
"""

from __future__ import annotations

import datetime as _dt

from planner.base.days import FIRST_DAY, LAST_DAY


def aware_utc(moment: _dt.datetime, zone: _dt.tzinfo | None) -> _dt.datetime:
    """A local wall-clock time as an aware one, in UTC (the calendar's first or last moment
    when it would pass either end)."""
    try:
        local = moment.replace(tzinfo=zone) if zone is not None else moment.astimezone()
        return local.astimezone(_dt.UTC)
    except (OverflowError, ValueError):
        edge = _dt.datetime.min if moment.year < 5000 else _dt.datetime.max
        return edge.replace(tzinfo=_dt.UTC)


def shifted(moment: _dt.datetime, by: _dt.timedelta) -> _dt.datetime:
    """`moment` + `by`, kept a day inside the calendar's ends (they hold no busy time planner
    asks for, and a time zone may not reach past them)."""
    low = _dt.datetime.combine(FIRST_DAY, _dt.time()) - _dt.timedelta(hours=12)
    high = _dt.datetime.combine(LAST_DAY, _dt.time()) + _dt.timedelta(hours=36)
    try:
        return min(max(moment + by, low), high)
    except OverflowError:
        return low if by < _dt.timedelta() else high



def local_time(moment: _dt.date | _dt.datetime, zone: _dt.tzinfo | None) -> _dt.datetime:
    """A date, a floating time or an aware time as naive local wall-clock time."""
    if not isinstance(moment, _dt.datetime):
        return _dt.datetime.combine(moment, _dt.time())
    if moment.tzinfo is None:
        return moment
    return _in_zone(moment, zone).replace(tzinfo=None, fold=0)


def _in_zone(moment: _dt.datetime, zone: _dt.tzinfo | None) -> _dt.datetime:
    return moment.astimezone(zone) if zone is not None else moment.astimezone()


def wall_span(start: _dt.date | _dt.datetime, end: _dt.date | _dt.datetime,
               zone: _dt.tzinfo | None) -> tuple[_dt.datetime, _dt.datetime]:
    """An occurrence as the local wall-clock times it covers. Aware times are compared as aware
    times: when the clocks go back during one, its naive end may not be after its naive start
    (00:30-01:00 UTC is 02:30 CEST to 02:00 CET in Berlin), and it then covers the wall-clock
    times from the earlier of its start and the repeated hour's start, to the later of its end
    and the moment the clocks went back (03:00): never dropped as taking no time. When they go
    forward, the naive span already covers it."""
    if not (isinstance(start, _dt.datetime) and isinstance(end, _dt.datetime)
            and start.tzinfo is not None and end.tzinfo is not None):
        return local_time(start, zone), local_time(end, zone)
    try:
        first, last = _in_zone(start, zone), _in_zone(end, zone)
    except OverflowError:
        # A time past either end of the calendar in the local zone: that end, which lies
        # outside every day planner asks for.
        return _edge_local(start, zone), _edge_local(end, zone)
    naive_first = first.replace(tzinfo=None, fold=0)
    naive_last = last.replace(tzinfo=None, fold=0)
    if first.utcoffset() == last.utcoffset() or end <= start:
        return naive_first, naive_last
    before, after = _clocks_change(start, end, zone)
    return min(naive_first, after), max(naive_last, before)


def _edge_local(moment: _dt.datetime, zone: _dt.tzinfo | None) -> _dt.datetime:
    try:
        return _in_zone(moment, zone).replace(tzinfo=None, fold=0)
    except OverflowError:
        return _dt.datetime.min if moment.year < 5000 else _dt.datetime.max


def _clocks_change(start: _dt.datetime, end: _dt.datetime,
                   zone: _dt.tzinfo | None) -> tuple[_dt.datetime, _dt.datetime]:
    """Where the local offset changes between two aware times of different offsets: the naive
    local time the clocks showed as it changed (03:00 when they go back an hour at 03:00), and
    the one they show after (02:00)."""
    low, high = start.astimezone(_dt.UTC), end.astimezone(_dt.UTC)
    offset = _in_zone(low, zone).utcoffset()
    step = _dt.timedelta(seconds=1)
    while high - low > step:  # the first moment with the new offset lies in (low, high]
        middle = low + (high - low) / 2
        if _in_zone(middle, zone).utcoffset() == offset:
            low = middle
        else:
            high = middle
    changed = _in_zone(high, zone)
    moved = (offset or _dt.timedelta()) - (changed.utcoffset() or _dt.timedelta())
    after = changed.replace(tzinfo=None, fold=0)
    return after + moved, after
