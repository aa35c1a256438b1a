"""Which notes a goal covers: its selectors (a note ID, `folder:NAME/`, `tag:NAME`) resolved
against the notes (README "A study plan to a goal").

A tag is a front-matter `tags:` entry or an inline `#tag` in the text, compared ignoring case;
nested tags count for their parent (`tag:jlpt` takes `#jlpt/n2`). A folder takes its notes at
any depth. The goal's notes are the union, in the order the selectors name them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from planner.base.errors import UsageError
from planner.base.goals import FOLDER_PREFIX, TAG_PREFIX
from planner.base.i18n import t
from planner.base.inert import short

if TYPE_CHECKING:
    from planner.base.goals import Goal
    from planner.notes.catalog import Catalog

MAX_GOAL_NOTES = 500


class GoalTooLarge(UsageError):
    """A goal's selectors name more notes than a goal may hold (a config error, exit 2)."""


class Scope(NamedTuple):
    """A goal's notes (IDs, in selector order) and the selectors that matched nothing."""

    note_ids: tuple[str, ...]
    unmatched: tuple[str, ...]

    def warnings(self, goal_name: str) -> list[str]:
        """One line per selector that matched nothing, cut to SHOWN_CHARS as an error is."""
        return [t("goal {goal}: {selector} matches no note", goal=short(goal_name),
                  selector=f'"{short(selector)}"') for selector in self.unmatched]


def resolve(catalog: Catalog, selectors: Sequence[str], goal_name: str = "",
            source: str = "config.json") -> Scope:
    """The notes `selectors` name in `catalog`; GoalTooLarge past MAX_GOAL_NOTES."""
    rows: list[dict[str, Any]] | None = None
    found: dict[str, None] = {}
    unmatched: list[str] = []
    for selector in selectors:
        if selector.startswith((FOLDER_PREFIX, TAG_PREFIX)) and rows is None:
            rows = catalog.rows(None, None)[0]
        if selector.startswith(FOLDER_PREFIX):
            matched = _in_folder(rows or [], selector[len(FOLDER_PREFIX):])
        elif selector.startswith(TAG_PREFIX):
            matched = _tagged(catalog, rows or [], selector[len(TAG_PREFIX):])
        else:
            matched = [selector] if selector in catalog else []
        if not matched:
            unmatched.append(selector)
        found.update(dict.fromkeys(matched))
    if len(found) > MAX_GOAL_NOTES:
        raise GoalTooLarge(t("{source}: goal {goal}: its notes selectors name {count:,} notes; "
                             "a goal holds at most {most} (narrow its \"notes\")",
                             source=source, goal=goal_name, count=len(found),
                             most=MAX_GOAL_NOTES))
    return Scope(tuple(found), tuple(unmatched))


def goal_scope(catalog: Catalog, goal: Goal, source: str = "config.json") -> Scope:
    """The notes of one goal of the config."""
    return resolve(catalog, goal.notes, goal.name, source)


def _in_folder(rows: list[dict[str, Any]], name: str) -> list[str]:
    """The notes whose file lies under folder `name` (at any depth)."""
    prefix = name.strip("/") + "/"
    return [row["id"] for row in rows if isinstance(row["path"], str)
            and row["path"].startswith(prefix)]


def _tagged(catalog: Catalog, rows: list[dict[str, Any]], name: str) -> list[str]:
    """The notes with the tag `name` or one nested in it, in front matter or inline."""
    wanted = name.strip().lstrip("#").rstrip("/").casefold()
    inline = _inline_pattern(wanted)
    candidates = _candidates(catalog, rows, wanted)
    found = []
    # In the notes' own order (by path), whichever way each was found.
    for row in rows:
        if any(_is_within(tag, wanted) for tag in row["tags"]):
            found.append(row["id"])
        elif row["id"] in candidates:
            note = catalog.get(row["id"])
            if note is not None and inline.search(note.text):
                found.append(row["id"])
    return found


def _is_within(tag: str, wanted: str) -> bool:
    folded = tag.casefold().lstrip("#")
    return folded == wanted or folded.startswith(wanted + "/")


def _inline_pattern(wanted: str) -> re.Pattern[str]:
    # `#tag` at the start or after a space, ended by a nested part (/...) or a character a tag
    # cannot hold; `#tag-2` and `#tags` are other tags.
    return re.compile(r"(?:^|(?<=\s))#" + re.escape(wanted) + r"(?=/|[^\w/-]|$)",
                      re.IGNORECASE | re.MULTILINE)


def _candidates(catalog: Catalog, rows: list[dict[str, Any]], wanted: str) -> set[str]:
    """The notes whose text may hold the tag: a search narrows a folder of notes (every text
    holding the tag holds its words); notes kept in memory are all read."""
    if catalog.source != "folder":
        return {row["id"] for row in rows}
    words = " ".join(part for part in re.split(r"[/\s]+", wanted) if part)
    if not words:
        return set()
    from planner.notes.catalog import NotesError

    try:
        return {row["id"] for row in catalog.rows(words, None)[0]}
    except NotesError:
        return {row["id"] for row in rows}
