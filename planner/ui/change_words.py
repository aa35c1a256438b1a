"""What a proposal changes from the one before it, in words: the rows under the plan on the
confirmation screen (README "Going on with a conversation")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.base.days import clock_text
from planner.base.i18n import _
from planner.base.inert import inert_line

if TYPE_CHECKING:
    from planner.plans.changes import Change
    from planner.plans.study import Session


def change_rows(changes: tuple[Change, ...]) -> list[tuple[str, str, str]]:
    """`Changed  Minutes 45 → 30`: what this proposal changes from the previous one."""
    if not changes:
        return [(_("Changed"), _("nothing since the previous proposal"), "")]
    return [(_("Changed") if number == 0 else "", change_words(change), "bold yellow")
            for number, change in enumerate(changes)]


def change_words(change: Change) -> str:
    """One change in words; the model's values made inert."""
    before, after = change.before, change.after
    match change.field:
        case "note_added":
            return _("Note {note} added").format(note=inert_line(str(after)))
        case "note_removed":
            return _("Note {note} removed").format(note=inert_line(str(before)))
        case "title":
            return _("Title {before} → {after}").format(before=_quoted(before),
                                                         after=_quoted(after))
        case "date":
            return _("Date {before} → {after}").format(before=inert_line(str(before)),
                                                        after=inert_line(str(after)))
        case "dates":
            return _("Dates {before} → {after}").format(before=_days(before), after=_days(after))
        case "minutes":
            return _("Minutes {before} → {after}").format(before=before, after=after)
        case "kind" if (before, after) == ("plan", "series"):
            return _("A plan before, a series now")
        case "kind" if (before, after) == ("series", "plan"):
            return _("A series before, a plan now")
        case "kind":
            return _("A {before} before, a {after} now").format(
                before=inert_line(str(before)), after=inert_line(str(after)))
        case "session":
            return _session_words(before, after)
    raise TypeError(f"no words for a change of {change.field}")


def _session_words(before: object, after: object) -> str:
    """A study plan's session that changed: what of it changed; or the session added or
    removed, whole."""
    if not isinstance(before, tuple):
        added: tuple[int, Session] = after  # type: ignore[assignment]
        return _("Session {number} added: {session}").format(
            number=added[0], session=_session_text(added[1]))
    if not isinstance(after, tuple):
        return _("Session {number} removed: {session}").format(
            number=before[0], session=_session_text(before[1]))
    (_number, old), (number, new) = before, after
    parts = []
    if (old.date, old.start) != (new.date, new.start):
        parts.append(_("{before} → {after}").format(before=_when(old), after=_when(new)))
    if old.minutes != new.minutes:
        parts.append(_("{before} → {after} min").format(before=old.minutes, after=new.minutes))
    if old.note_ids != new.note_ids:
        parts.append(_("notes {before} → {after}").format(
            before=_days(old.note_ids), after=_days(new.note_ids)))
    return _("Session {number}: {what}").format(number=number, what=_("; ").join(parts))


def _when(session: Session) -> str:
    start = "--:--" if session.start is None else clock_text(session.start)
    return f"{session.date.isoformat()} {start}"


def _session_text(session: Session) -> str:
    return _("{when}, {minutes} min, {notes}").format(
        when=_when(session), minutes=session.minutes, notes=_days(session.note_ids))


def _quoted(value: object) -> str:
    return f'"{inert_line(str(value))}"'


def _days(value: object) -> str:
    days = value if isinstance(value, tuple) else (value,)
    return _(", ").join(inert_line(str(day)) for day in days)
