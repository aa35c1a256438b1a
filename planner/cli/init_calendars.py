"""The calendars already on this computer, for planner init to offer by name: khal's configured
calendars and vdirsyncer's filesystem folders.

Both programs keep a calendar as a vdir (a folder of .ics files), which busy_calendars reads as
`{"vdir": PATH}`. Their config files are only read here, never written; a file that cannot be
read or understood offers nothing.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Mapping
from contextlib import suppress
from pathlib import Path
from typing import NamedTuple

MAX_CONFIG_BYTES = 1024 * 1024
MAX_FOUND = 30
# Both configs are read line by line with string methods, in linear time: a pattern for their
# lines backtracks on a long run of blanks (a line of `[` and 6,000 spaces took minutes).
_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")


class Found(NamedTuple):
    """One calendar folder found: its name, which program keeps it, and its folder."""

    name: str
    source: str
    path: Path


def found_calendars(environ: os._Environ[str] | dict[str, str] = os.environ) -> list[Found]:
    """khal's calendars, then vdirsyncer's folders not already among them; at most MAX_FOUND."""
    found: list[Found] = []
    for calendar in [*_khal(environ), *_vdirsyncer(environ)]:
        if calendar.path.is_dir() and all(calendar.path != seen.path for seen in found):
            found.append(calendar)
    return found[:MAX_FOUND]


def _config_home(environ: Mapping[str, str]) -> Path:
    return Path(environ.get("XDG_CONFIG_HOME") or Path(environ.get("HOME", "~")) / ".config")


def _expanded(value: str, environ: Mapping[str, str]) -> Path:
    """A path as khal and vdirsyncer read it: quotes dropped, ~ and $VARS expanded."""
    value = value.strip().strip("\"'")
    home = environ.get("HOME")
    if home and (value == "~" or value.startswith("~/")):
        value = home + value[1:]
    return Path(os.path.expandvars(os.path.expanduser(value)))


def _read(path: Path) -> str | None:
    from planner.base import storage

    with suppress(OSError, ValueError):
        return storage.read_regular_file(path, MAX_CONFIG_BYTES).decode("utf-8", "replace")
    return None


def _khal(environ: Mapping[str, str]) -> list[Found]:
    """The calendars in khal's config: each `[[name]]` of `[calendars]` with its `path`
    (`type = discover`: every folder its glob matches)."""
    text = None
    for path in (_config_home(environ) / "khal" / "config",
                 Path(environ.get("HOME", "~")) / ".khal" / "khal.conf"):
        text = _read(path)
        if text is not None:
            break
    if text is None:
        return []
    calendars: list[tuple[str, dict[str, str]]] = []
    in_calendars = False
    # khal's config (configobj): `[calendars]`, then one `[[name]]` per calendar with
    # `path = ...`.
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        section = _section(line)
        if section is not None:
            depth, name = section
            if depth == 1:
                in_calendars = name.lower() == "calendars"
            elif depth == 2 and in_calendars:
                calendars.append((name, {}))
            continue
        setting = _setting(line, "=")
        if setting is not None and in_calendars and calendars:
            calendars[-1][1][setting[0]] = setting[1]
    found = []
    for name, settings in calendars:
        if "path" not in settings:
            continue
        path = _expanded(settings["path"], environ)
        if settings.get("type", "").strip().strip("\"'").lower() == "discover":
            for match in sorted(glob.glob(str(path)))[:MAX_FOUND]:
                found.append(Found(Path(match).name, "khal", Path(match)))
        else:
            found.append(Found(name, "khal", path))
    return found


def _vdirsyncer(environ: Mapping[str, str]) -> list[Found]:
    """The folders of vdirsyncer's `filesystem` storages: one per collection (subfolder)."""
    candidates = [Path(environ["VDIRSYNCER_CONFIG"])] if environ.get("VDIRSYNCER_CONFIG") else []
    candidates += [Path(environ.get("HOME", "~")) / ".vdirsyncer" / "config",
                   _config_home(environ) / "vdirsyncer" / "config"]
    text = None
    for path in candidates:
        text = _read(path)
        if text is not None:
            break
    if text is None:
        return []
    # vdirsyncer's config (INI): `[storage NAME]` sections of `key = value` lines.
    sections: dict[str, dict[str, str]] = {}
    settings: dict[str, str] | None = None
    for line in text.splitlines():
        if line.lstrip().startswith(("#", ";")):
            continue
        stripped = line.strip()
        if stripped.startswith("[") and "]" in stripped[1:]:
            settings = sections.setdefault(stripped[1:stripped.rindex("]")], {})
            continue
        setting = _setting(line, "=:")
        if setting is not None and settings is not None:
            settings[setting[0]] = setting[1]
    found = []
    for section, storage in sections.items():
        kind, _, name = section.partition(" ")
        if kind != "storage" or storage.get("type", "").strip("\"' ") != "filesystem" \
                or "path" not in storage:
            continue
        folder = _expanded(storage["path"], environ)
        children: list[Path] = []
        with suppress(OSError):  # a folder that cannot be listed offers no calendar
            # A storage's folder holds one subfolder per collection (calendar).
            children = sorted(child for child in folder.iterdir() if child.is_dir()
                              and not child.name.startswith("."))
        for child in children[:MAX_FOUND]:
            found.append(Found(f"{name.strip()}/{child.name}", "vdirsyncer", child))
    return found


def _section(line: str) -> tuple[int, str] | None:
    """A configobj section line `[name]`, `[[name]]`: its depth and name; None for another."""
    stripped = line.strip()
    inner = stripped.lstrip("[")
    depth = len(stripped) - len(inner)
    name = inner.rstrip("]")
    if not depth or len(name) == len(inner) or "]" in name:
        return None
    return depth, name.strip()


def _setting(line: str, delimiters: str) -> tuple[str, str] | None:
    """A `key = value` line (the key in lower case, both stripped); None for another."""
    cut = min((at for at in map(line.find, delimiters) if at >= 0), default=-1)
    if cut < 0:
        return None
    key = line[:cut].strip()
    if not key or (delimiters == "=" and not _KEY_CHARS.issuperset(key)):
        return None
    return key.lower(), line[cut + 1:].strip()
