"""Which folder is planner's home (SPEC 21); the only platformdirs import."""

# The rules, first match wins: --home, else PLANNER_HOME, else the current folder when it already
# is a planner home, else the per-user data folder. The data folder is created only when a
# command is about to write into it, so looking around (runs, plans, where) leaves no trace.

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from planner.base import storage

HOME_ENV = "PLANNER_HOME"
APP_NAME = "planner"
# What makes a folder a planner home: any one of these in it.
MARKERS = ("config.json", "plans", "tool-records", "notes")
HERE = Path(".")


class Home(NamedTuple):
    """The home folder in use and the rule that chose it."""

    path: Path
    # "option" (--home), "env" (PLANNER_HOME), "current" (the current folder) or "user".
    rule: str
    # For "current": the markers found; for "user": none.
    markers: tuple[str, ...] = ()


def user_folder() -> Path:
    """The per-user data folder: ~/.local/share/planner on Linux (XDG_DATA_HOME honoured)."""
    # Imported here: only a command run outside any home needs it.
    import platformdirs

    return platformdirs.user_data_path(APP_NAME, appauthor=False)


def markers_in(folder: Path) -> tuple[str, ...]:
    """The markers of a planner home that `folder` holds (none: it is not one)."""
    return tuple(name for name in MARKERS if os.path.lexists(folder / name))


def choose(given: Path | None, rule: str | None) -> Home:
    """The home: `given` by `rule` ("option" or "env"), else the current folder or the user's."""
    if given is not None and rule is not None:
        return Home(given, rule)
    found = markers_in(HERE)
    if found:
        return Home(HERE, "current", found)
    folder = user_folder()
    # The data folder that is the current folder is shown as such: paths stay short.
    return Home(HERE if _same(folder, HERE) else folder, "user")


def _same(one: Path, other: Path) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False


def ensure(home: Home) -> None:
    """Create the per-user data folder (0700) before the first write; other homes must exist."""
    if home.rule != "user" or home.path.is_dir():
        return
    # The folders above it (~/.local/share) are ordinary ones; the home itself is private.
    home.path.parent.mkdir(parents=True, exist_ok=True)
    storage.ensure_dir(home.path)
