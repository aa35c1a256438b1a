"""What a proposal changes from the one before it in the same run (README "Going on with a
conversation"), as plain data.

The confirmation screen shows these, so a note the model silently dropped is seen before SAVE.
Standard library only; the words are the edge's (planner.ui.conversation).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from planner.plans.plan import ReviewSeries
from planner.plans.study import StudyPlan

if TYPE_CHECKING:
    from planner.plans.study import Proposal, Session


class Change(NamedTuple):
    """One difference: `field` is title, note_added, note_removed, date, dates, kind, minutes
    or session (a study plan's).

    `before` and `after` are the old and new values (a note's ID on its side only; None on
    the other; a session as its number and the session). `kind` is "plan", "series" or
    "study plan", when the model switched between them.
    """

    field: str
    before: object
    after: object


def plan_changes(before: Proposal, after: Proposal) -> tuple[Change, ...]:
    """Every difference from `before` to `after`, in the order the screen lists its rows."""
    found: list[Change] = []
    kinds = (_kind(before), _kind(after))
    if kinds[0] != kinds[1]:
        found.append(Change("kind", *kinds))
    if before.title != after.title:
        found.append(Change("title", before.title, after.title))
    # Order aside: the same notes in another order are the same review.
    found += [Change("note_added", None, note) for note in after.note_ids
              if note not in before.note_ids]
    found += [Change("note_removed", note, None) for note in before.note_ids
              if note not in after.note_ids]
    if isinstance(before, StudyPlan) and isinstance(after, StudyPlan):
        # Session by session: only the ones that changed, were added or were removed.
        found += _session_changes(before.sessions, after.sessions)
        return tuple(found)
    if before.days != after.days:
        if kinds == ("plan", "plan"):
            found.append(Change("date", before.days[0], after.days[0]))
        else:
            found.append(Change("dates", before.days, after.days))
    if before.minutes != after.minutes:
        found.append(Change("minutes", before.minutes, after.minutes))
    return tuple(found)


def _session_changes(before: Sequence[Session], after: Sequence[Session]) -> list[Change]:
    """`session` changes: (number, session) before and after; None on the side it is not on."""
    from difflib import SequenceMatcher

    found = []
    matcher = SequenceMatcher(None, list(before), list(after), autojunk=False)
    for tag, first, last, new_first, new_last in matcher.get_opcodes():
        if tag == "equal":
            continue
        old = [(number + 1, before[number]) for number in range(first, last)]
        new = [(number + 1, after[number]) for number in range(new_first, new_last)]
        paired = min(len(old), len(new))  # a session replaced is one session changed
        found += [Change("session", was, now) for was, now in zip(old, new, strict=False)]
        found += [Change("session", was, None) for was in old[paired:]]
        found += [Change("session", None, now) for now in new[paired:]]
    return found


def _kind(proposal: Proposal) -> str:
    if isinstance(proposal, StudyPlan):
        return "study plan"
    return "series" if isinstance(proposal, ReviewSeries) else "plan"
