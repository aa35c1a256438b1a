"""Which folder is planner's home (README "Going on with a conversation"); the only platformdirs
import."""

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
# The settings file in a home (planner.base.config.DEFAULT_CONFIG_FILE names the same file;
# here it costs no import of the config's checks, which `--help` does not need).
CONFIG_FILE = "config.json"
# What makes a folder a planner home: any one of these in it.
MARKERS = (CONFIG_FILE, "plans", "tool-records", "notes")
HERE = Path(".")


# Where a home folder is, as code that only reads or writes in it takes it.
HomePath = str | os.PathLike[str]


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


# --- the other home, said once -------------------------------------------------------------------
# A folder that holds plans/ or notes/ is the home even when the person's config.json is in the
# data folder: they may have meant that one. One line says so, the first time in that folder
# (remembered in the data folder's .planner/SAID_FILE, one folder per line); `planner where`
# says it every time.
SAID_FILE = "other-home-said"
MAX_SAID = 200  # folders remembered; the oldest are forgotten (and would be told again)
_SAID_BYTES = 256 * 1024


def other_home(home: Home) -> Path | None:
    """The per-user data folder when the current folder is the home only because it holds
    planner's folders (no config.json) and the data folder has a config.json; else None."""
    if home.rule != "current" or MARKERS[0] in home.markers:
        return None
    data = data_folder()
    if _same(data, home.path) or not os.path.isfile(data / MARKERS[0]):
        return None
    return data


def data_folder() -> Path:
    """user_folder(), without importing platformdirs on Linux, where its answer is the XDG
    rule: $XDG_DATA_HOME/planner, else ~/.local/share/planner (every command run in such a
    home looks there, so the 4 ms import is saved; tests/test_other_home.py compares both)."""
    import sys

    if sys.platform != "linux":
        return user_folder()
    base = os.environ.get("XDG_DATA_HOME", "").strip() or os.path.expanduser("~/.local/share")
    return Path(base) / APP_NAME


def first_time_said(data: Path, here: Path) -> bool:
    """Whether the current folder `here` is said to be the home instead of `data` for the first
    time; remembers that it was. A record that cannot be read or written: said again."""
    place = data / ".planner" / SAID_FILE
    folder = os.path.abspath(here)
    try:
        said = storage.read_regular_file(place, _SAID_BYTES, follow_links=False).decode(
            "utf-8", "replace").splitlines()
    except (OSError, ValueError):
        said = []
    if folder in said:
        return False
    try:
        storage.ensure_dir(place.parent)
        kept = [*said, folder][-MAX_SAID:]
        storage.write_atomic(place, ("\n".join(kept) + "\n").encode("utf-8", "surrogateescape"))
    except (OSError, ValueError):
        pass
    return True
