"""What a proposal changes from the one before it in the same run (README "Going on with a
conversation"), as plain data.

The confirmation screen shows these, so a note the model silently dropped is seen before SAVE.
Standard library only; the words are the edge's (planner.ui.conversation).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from planner.plans.study import Proposal


class Change(NamedTuple):
    """One difference: `field` is title, note_added, note_removed, date, dates, kind or minutes.

    `before` and `after` are the old and new values (a note's ID on its side only; None on
    the other). `kind` is "plan" or "series", when the model switched between them.
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
    if before.days != after.days:
        if kinds == ("plan", "plan"):
            found.append(Change("date", before.days[0], after.days[0]))
        else:
            found.append(Change("dates", before.days, after.days))
    if before.minutes != after.minutes:
        found.append(Change("minutes", before.minutes, after.minutes))
    return tuple(found)


def _kind(proposal: Proposal) -> str:
    if hasattr(proposal, "sessions"):
        return "study plan"
    return "series" if hasattr(proposal, "dates") else "plan"
