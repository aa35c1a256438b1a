"""README "Your week": free time inside study hours, and the checks of one session (pure
arithmetic)."""

from __future__ import annotations

import datetime as _dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.calendar.free_time import Span, free_spans, session_problem


def first_free_start(day, windows, taken, minutes: int, minutes_left: int | None):
    """The earliest free start `free_spans` gives, or None."""
    spans = free_spans(day, windows, taken, minutes, minutes_left)
    return spans[0].start if spans else None

DAY = _dt.date(2026, 12, 8)  # a Tuesday
EVENING = ((19 * 60, 22 * 60),)
TWO = ((6 * 60 + 30, 7 * 60 + 30), (19 * 60, 22 * 60))


def at(clock: str, day: _dt.date = DAY) -> _dt.datetime:
    hours, minutes = clock.split(":")
    return _dt.datetime.combine(day, _dt.time(int(hours), int(minutes)))


def span(first: str, last: str, day: _dt.date = DAY, last_day: _dt.date | None = None) -> Span:
    return Span(at(first, day), at(last, last_day or day))


def shown(spans: list[Span]) -> list[str]:
    return [f"{s.start:%H:%M}-{s.end:%H:%M}" if s.end.date() == DAY else
            f"{s.start:%H:%M}-24:00" for s in spans]


NEXT = DAY + _dt.timedelta(days=1)
BEFORE = DAY - _dt.timedelta(days=1)


@pytest.mark.parametrize(("windows", "taken", "at_least", "left", "expected"), [
    # nothing taken: the whole window
    (EVENING, [], 30, None, ["19:00-22:00"]),
    # a busy hour in the middle splits the window
    (EVENING, [span("20:00", "21:00")], 30, None, ["19:00-20:00", "21:00-22:00"]),
    # a slot of exactly the length fits; one minute less does not
    (EVENING, [span("19:30", "21:30")], 30, None, ["19:00-19:30", "21:30-22:00"]),
    (EVENING, [span("19:30", "21:31")], 30, None, ["19:00-19:30"]),
    # touching spans leave no gap between them, and touching the window's edge is fine
    (EVENING, [span("19:00", "20:00"), span("20:00", "21:00")], 30, None, ["21:00-22:00"]),
    # overlapping and unsorted taken spans
    (EVENING, [span("20:30", "21:15"), span("19:10", "20:45")], 10, None,
     ["19:00-19:10", "21:15-22:00"]),
    (EVENING, [span("20:30", "21:15"), span("19:10", "20:45")], 11, None, ["21:15-22:00"]),
    # busy time across midnight takes the start of the day from the day before
    (((0, 120), (19 * 60, 22 * 60)), [span("23:00", "01:00", BEFORE, DAY)], 30, None,
     ["01:00-02:00", "19:00-22:00"]),
    # ... and the end of the day from the day after it starts
    (((22 * 60, 24 * 60),), [span("23:30", "00:30", DAY, NEXT)], 30, None, ["22:00-23:30"]),
    # a window running to midnight
    (((22 * 60, 24 * 60),), [], 30, None, ["22:00-24:00"]),
    # spans on other days take nothing
    (EVENING, [span("19:00", "22:00", BEFORE), span("19:00", "22:00", NEXT)], 30, None,
     ["19:00-22:00"]),
    # two windows
    (TWO, [span("07:00", "20:00")], 30, None, ["06:30-07:00", "20:00-22:00"]),
    # the day's budget: enough, exactly enough, not enough
    (EVENING, [], 30, 45, ["19:00-22:00"]),
    (EVENING, [], 30, 30, ["19:00-22:00"]),
    (EVENING, [], 30, 29, []),
    (EVENING, [], 30, 0, []),
    # no study hours that day
    ((), [], 5, None, []),
    # everything taken
    (EVENING, [span("18:00", "23:00")], 5, None, []),
    # an empty or backwards span takes nothing
    (EVENING, [span("20:00", "20:00"), span("21:00", "20:30")], 180, None, ["19:00-22:00"]),
])
def test_free_spans(windows, taken, at_least, left, expected) -> None:
    assert shown(free_spans(DAY, windows, taken, at_least, left)) == expected


def test_first_free_start() -> None:
    assert first_free_start(DAY, EVENING, [span("19:00", "19:45")], 30, None) == at("19:45")
    assert first_free_start(DAY, EVENING, [span("19:15", "21:40")], 30, None) is None
    assert first_free_start(DAY, EVENING, [], 30, 20) is None
    assert first_free_start(DAY, TWO, [], 60, None) == at("06:30")


def check(start: str, minutes: int = 30, *, windows=EVENING, busy=(), plans=(), planned=0,
          daily=None, until=None, day: _dt.date = DAY) -> str | None:
    return session_problem(at(start, day), minutes, windows, list(busy), list(plans), planned,
                           daily, until)


@pytest.mark.parametrize(("arguments", "expected"), [
    ({"start": "19:00"}, None),
    ({"start": "21:30"}, None),  # ends exactly when the window does
    ({"start": "07:00"},
     "starts at 07:00 on 2026-12-08, outside the study hours of that day (19:00–22:00)"),
    ({"start": "22:00"},
     "starts at 22:00 on 2026-12-08, outside the study hours of that day (19:00–22:00)"),
    ({"start": "07:00", "windows": TWO},
     None),
    ({"start": "07:15", "windows": TWO},
     "ends at 07:45 on 2026-12-08, after the study hours of that day end (07:30)"),
    ({"start": "12:00", "windows": TWO}, "starts at 12:00 on 2026-12-08, outside the study "
     "hours of that day (06:30–07:30,19:00–22:00)"),
    ({"start": "22:00", "minutes": 60, "windows": ((22 * 60, 24 * 60),)},
     None),
    ({"start": "23:45", "windows": ((22 * 60, 24 * 60),)},
     "ends at 00:15 on 2026-12-09, after the study hours of that day end (24:00)"),
    ({"start": "22:00", "minutes": 60},
     "starts at 22:00 on 2026-12-08, outside the study hours of that day (19:00–22:00)"),
    ({"start": "21:45"},
     "ends at 22:15 on 2026-12-08, after the study hours of that day end (22:00)"),
    ({"start": "19:30", "busy": [span("19:00", "20:00")]},
     "overlaps busy time 19:00–20:00 on 2026-12-08"),
    # touching busy time is fine
    ({"start": "20:00", "busy": [span("19:00", "20:00"), span("20:30", "21:00")]}, None),
    ({"start": "19:00", "busy": [span("23:00", "19:10", BEFORE, DAY)]},
     "overlaps busy time 2026-12-07 23:00–19:10 on 2026-12-08"),
    ({"start": "21:30", "busy": [span("21:50", "00:00", DAY, NEXT)]},
     "overlaps busy time 21:50–24:00 on 2026-12-08"),
    ({"start": "19:00", "plans": [span("19:00", "19:30")]},
     "overlaps the saved plan at 19:00–19:30 on 2026-12-08"),
    ({"start": "19:30", "plans": [span("19:00", "19:30")]}, None),
    ({"start": "19:00", "planned": 40, "daily": 70}, None),
    ({"start": "19:00", "planned": 40, "daily": 60},
     "would make 2026-12-08 hold 70 planned minutes; daily_minutes is 60"),
    ({"start": "19:00", "until": DAY}, None),
    ({"start": "19:00", "until": BEFORE}, "2026-12-08 is after the deadline 2026-12-07"),
    ({"start": "19:00", "windows": ()},
     "2026-12-08 has no study hours (tue); choose another date"),
])
def test_session_problem(arguments, expected) -> None:
    assert check(**arguments) == expected


def test_the_checks_come_in_order_deadline_hours_busy_plans_budget() -> None:
    everything = {"busy": [span("19:00", "20:00")], "plans": [span("19:00", "20:00")],
                  "planned": 100, "daily": 60}
    assert "deadline" in check("07:00", until=BEFORE, **everything)
    assert "outside the study hours" in check("07:00", **everything)
    assert check("19:00", **everything).startswith("overlaps busy time")
    assert check("19:00", **{**everything, "busy": []}).startswith("overlaps the saved plan")
    assert check("19:00", **{**everything, "busy": [], "plans": []}).startswith("would make")


def test_no_title_can_reach_the_reason() -> None:
    """A Span carries times only: the reason for the model is made of times and dates."""
    assert Span._fields == ("start", "end")


MINUTE = st.integers(min_value=0, max_value=24 * 60)


@st.composite
def windows(draw) -> tuple[tuple[int, int], ...]:
    cuts = sorted(draw(st.sets(MINUTE, max_size=8)))
    pairs = list(zip(cuts[::2], cuts[1::2], strict=False))
    return tuple((first, last) for first, last in pairs if first < last)


@st.composite
def spans(draw) -> Span:
    start = at("00:00", BEFORE) + _dt.timedelta(minutes=draw(st.integers(0, 3 * 24 * 60)))
    return Span(start, start + _dt.timedelta(minutes=draw(st.integers(0, 600))))


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(windows(), st.lists(spans(), max_size=8), st.integers(1, 120),
       st.one_of(st.none(), st.integers(0, 200)))
def test_free_spans_property(hours, taken, at_least, left) -> None:
    found = free_spans(DAY, hours, taken, at_least, left)
    midnight = at("00:00")
    for slot in found:
        assert slot.end - slot.start >= _dt.timedelta(minutes=at_least)
        assert any(midnight + _dt.timedelta(minutes=first) <= slot.start
                   and slot.end <= midnight + _dt.timedelta(minutes=last)
                   for first, last in hours)
        # (a span of no length takes no time, even inside a slot)
        assert not any(other.start < slot.end and slot.start < other.end
                       for other in taken if other.end > other.start)
    assert found == sorted(found)
    if left is not None and left < at_least:
        assert found == []
    if left is not None and left < at_least:
        return
    # Maximal: the runs of free minutes (by the minute) of each window, those long enough.
    expected = []
    for first, last in hours:
        run_start = None
        for minute in range(first, last + 1):
            moment = midnight + _dt.timedelta(minutes=minute)
            free = minute < last and not any(other.start <= moment < other.end
                                             for other in taken)
            if free and run_start is None:
                run_start = minute
            elif not free and run_start is not None:
                if minute - run_start >= at_least:
                    expected.append(Span(midnight + _dt.timedelta(minutes=run_start), moment))
                run_start = None
    assert found == expected
