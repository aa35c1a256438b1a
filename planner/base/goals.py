"""Goals (README "A study plan to a goal"): an exam or a trip, its day and its notes.

config.json's `goals` is checked here, value by value and never converted, like the rest of the
config; which notes a goal's selectors name is decided where the notes are
(planner.notes.selectors), when a command needs them.
"""

from __future__ import annotations

import datetime as _dt
from typing import NamedTuple

from planner.base import days
from planner.base.i18n import t

MAX_GOALS = 20
MAX_NAME = 40
MAX_SELECTORS = 50
MAX_SELECTOR = 500  # characters of one selector: a note ID is at most this long
RETENTION_RANGE = (0.70, 0.99)
GOAL_KEYS = ("name", "date", "notes", "retention")
FOLDER_PREFIX = "folder:"
TAG_PREFIX = "tag:"


class Goal(NamedTuple):
    """One goal: its name, its day, its note selectors (as written) and the recall wanted on
    that day (0.70-0.99)."""

    name: str
    date: _dt.date
    notes: tuple[str, ...]
    retention: float

    @property
    def deadline(self) -> _dt.date:
        """The last day a session for it may be planned: the day before the goal's."""
        return self.date - _dt.timedelta(days=1)

    def is_ahead(self, today: _dt.date) -> bool:
        """Whether a session can still be planned for it: its day is after today."""
        return self.date > today


class BadGoals(ValueError):
    """A goals value that cannot be used; the message names the goal's key and the rule."""


def parse(value: object, default_retention: float) -> tuple[Goal, ...]:
    """Check config.json's `goals`: a list of at most MAX_GOALS goal objects."""
    if not isinstance(value, list) or len(value) > MAX_GOALS:
        raise BadGoals(t("key 'goals' must be a list of at most {most} goals, e.g. [{example}]",
                         most=MAX_GOALS, example='{"name": "JLPT N2", "date": "2027-07-04", '
                                                 '"notes": ["tag:jlpt"]}'))
    goals: list[Goal] = []
    seen: dict[str, int] = {}
    for number, item in enumerate(value, 1):
        goal = _goal(item, f"goals[{number}]", default_retention)
        folded = goal.name.casefold()
        if folded in seen:
            raise BadGoals(t("key 'goals[{number}].name' repeats the name of goals[{first}] "
                             "(names are compared ignoring case)", number=number,
                             first=seen[folded]))
        seen[folded] = number
        goals.append(goal)
    return tuple(goals)


def _goal(item: object, key: str, default_retention: float) -> Goal:
    if not isinstance(item, dict):
        raise BadGoals(t("key '{key}' must be an object with \"name\", \"date\" and \"notes\" "
                         "(and \"retention\" if wanted)", key=key))
    unknown = sorted(name for name in item if name not in GOAL_KEYS)
    if unknown:
        raise BadGoals(t("unknown key '{key}' (known: {known})", key=f"{key}.{unknown[0]}",
                         known=", ".join(GOAL_KEYS)))
    for name in ("name", "date", "notes"):
        if name not in item:
            raise BadGoals(t("key '{key}' is required", key=f"{key}.{name}"))
    name = item["name"]
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME \
            or not name.isprintable():
        raise BadGoals(t("key '{key}' must be a name of 1 to {most} printable characters",
                         key=f"{key}.name", most=MAX_NAME))
    return Goal(name, _date(item["date"], f"{key}.date"),
                _selectors(item["notes"], f"{key}.notes"),
                _retention(item.get("retention", default_retention), f"{key}.retention"))


def _date(value: object, key: str) -> _dt.date:
    day = days.parse_date(value)
    if day is None:
        raise BadGoals(t("key '{key}' must be a real date written YYYY-MM-DD", key=key))
    return day


def _selectors(value: object, key: str) -> tuple[str, ...]:
    rule = t("key '{key}' must be a list of 1 to {most} selectors: a note ID (\"N1\"), "
             "\"folder:NAME/\" or \"tag:NAME\"", key=key, most=MAX_SELECTORS)
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_SELECTORS:
        raise BadGoals(rule)
    for selector in value:
        if not isinstance(selector, str) or not selector.strip() \
                or len(selector) > MAX_SELECTOR or not selector.isprintable():
            raise BadGoals(rule)
        for prefix in (FOLDER_PREFIX, TAG_PREFIX):
            if selector.startswith(prefix) and not selector[len(prefix):].strip("/# "):
                raise BadGoals(t("key '{key}' holds {selector}, which names no folder or tag",
                                 key=key, selector=f'"{selector}"'))
    return tuple(dict.fromkeys(value))


def _retention(value: object, key: str) -> float:
    low, high = RETENTION_RANGE
    # Plain comparisons: False for NaN and for the inf an overflowing number decodes to.
    if isinstance(value, (int, float)) and type(value) is not bool and low <= value <= high:
        return float(value)
    raise BadGoals(t("key '{key}' must be a number from {low:.2f} to {high:.2f} (the recall "
                     "wanted on the goal's day, e.g. 0.9)", key=key, low=low, high=high))


def find_goal(goals: tuple[Goal, ...], wanted: str) -> list[Goal]:
    """The goals whose names start with `wanted`, ignoring case (an exact name alone wins)."""
    folded = wanted.casefold()
    exact = [goal for goal in goals if goal.name.casefold() == folded]
    return exact or [goal for goal in goals if goal.name.casefold().startswith(folded)]
