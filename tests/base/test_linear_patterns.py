"""No pattern takes quadratic time on outside text (README "A screen you can trust"): every regular
expression planner applies to files, servers or the model is fed 100,000 characters built to
make it backtrack, and answers within a second; so do the readers that once used such patterns
(khal's and vdirsyncer's configs, a note's heading, a calendar's alarms and time zones).
"""

from __future__ import annotations

import datetime
import importlib
import pkgutil
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import planner
from planner.calendar import busy_scan
from planner.cli.init_calendars import found_calendars
from planner.notes.folder import note_fields

SIZE = 100_000
BOUND = 1.0  # seconds: a linear pattern takes milliseconds here; a quadratic one, minutes


def timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def _patterns() -> Iterator[tuple[str, re.Pattern]]:
    """Every pattern planner compiles: module-level ones and those its cached functions build."""
    for module_info in pkgutil.walk_packages(planner.__path__, "planner."):
        if module_info.name.endswith("__main__"):
            continue
        module = importlib.import_module(module_info.name)
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern):
                yield f"{module_info.name}.{name}", value
            elif isinstance(value, tuple) and value and all(
                    isinstance(item, re.Pattern) for item in value):
                for index, item in enumerate(value):
                    yield f"{module_info.name}.{name}[{index}]", item


# What makes a pattern backtrack: a long run of what two of its parts could both take, ending
# in what neither expects.
_RUNS = (" ", "\t", " \t#", "[", "]", "a", "1", "1.", "#", "-", ":", "=", " = ", "\r\n", "\n",
         "x ", "\u3000", "{a:", "BEGIN:VALARM\n", "BEGIN:VTIMEZONE\n")
_AROUND = (("[", ""), ("[[", "a"), ("a=b", "c"), ("a =", "\x00"), ("# a", "b"), ("# a", "#x"),
           ("DTSTART;X=", "\n"), ("RRULE:", "\r"), ("[Errno 1] ", "]"), ("caldav:", "@"),
           ("---", "x"), ("\x1b[", "x"), ("1", ".x"))


def _hostile(pattern: re.Pattern) -> Iterator[str | bytes]:
    texts = [run * (SIZE // len(run)) + "\x00" for run in _RUNS]
    texts += [head + run * (SIZE // len(run)) + tail for head, tail in _AROUND
              for run in (" ", "\t", "1")]
    for text in texts:
        yield text.encode() if isinstance(pattern.pattern, bytes) else text


PATTERNS = sorted(_patterns(), key=lambda item: item[0])


def test_every_pattern_is_found() -> None:
    names = {name for name, _ in PATTERNS}
    assert {"planner.calendar.busy_scan._KEPT", "planner.notes.index._CJK",
            "planner.calendar.busy_scan._ALARMS[0]", "planner.base.config._VARIABLE"} <= names
    assert len(PATTERNS) >= 40


@pytest.mark.slow  # 61 patterns, 40 texts of 100,000 characters each: half a minute
@pytest.mark.parametrize("name, pattern", PATTERNS, ids=[name for name, _ in PATTERNS])
def test_each_pattern_takes_linear_time(name: str, pattern: re.Pattern) -> None:
    worst = 0.0
    for text in _hostile(pattern):
        # search (as finditer, sub and findall use it) and an anchored match
        worst = max(worst, timed(lambda text=text: (list(pattern.finditer(text)),
                                                    pattern.fullmatch(text))))
        assert worst < BOUND, (name, text[:20], worst)


def _config(tmp_path: Path, relative: str, text: str) -> dict[str, str]:
    path = tmp_path / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / ".config")}


@pytest.mark.parametrize("line", [
    "[" + " " * SIZE,  # a section never closed: took minutes at 6,000 spaces
    "[[" + " " * SIZE + "a",
    "color =" + " " * SIZE + "x",
    "color" + " " * SIZE + "x",
], ids=["section", "subsection", "setting", "no-equals"])
def test_khal_config_lines_read_in_linear_time(tmp_path: Path, line: str) -> None:
    calendar = tmp_path / "cal"
    calendar.mkdir()
    environ = _config(tmp_path, ".config/khal/config",
                      f"[calendars]\n[[mine]]\npath = {calendar}\n{line}\n")
    found: list = []
    assert timed(lambda: found.extend(found_calendars(environ))) < BOUND
    assert [item.name for item in found] == ["mine"]  # the rest of the file is still read


@pytest.mark.parametrize("line", [
    "a" + " " * SIZE + "b",  # Python's configparser takes quadratic time on this line
    "[" + " " * SIZE,
    "kind" + " " * SIZE + "=",
], ids=["blanks", "section", "setting"])
def test_vdirsyncer_config_lines_read_in_linear_time(tmp_path: Path, line: str) -> None:
    (tmp_path / "store" / "personal").mkdir(parents=True)
    environ = _config(tmp_path, ".config/vdirsyncer/config",
                      f'[storage local]\ntype = "filesystem"\npath = "{tmp_path}/store"\n'
                      f"{line}\n")
    found: list = []
    assert timed(lambda: found.extend(found_calendars(environ))) < BOUND
    assert [item.name for item in found] == ["local/personal"]


def test_a_note_heading_of_blanks_reads_in_linear_time() -> None:
    body = "# a" + " " * SIZE + "b\n\ntext\n"
    parsed: list = []
    assert timed(lambda: parsed.append(note_fields({}, body, "n.md"))) < BOUND
    assert parsed[0].title.startswith("a b")
    closing = note_fields({}, "#  Heading   ##  \n", "n.md")
    assert not isinstance(closing, str) and closing.title == "Heading"


@pytest.mark.parametrize("opening", [b"BEGIN:VALARM\r\n", b"BEGIN:VTIMEZONE\r\n"])
def test_calendar_blocks_never_closed_scan_in_linear_time(opening: bytes) -> None:
    event = (b"BEGIN:VEVENT\r\nUID:1\r\nDTSTART:20261201T100000Z\r\n"
             b"DTEND:20261201T110000Z\r\n")
    data = (b"BEGIN:VCALENDAR\r\n" + event + opening * (SIZE // len(opening))
            + b"END:VEVENT\r\nEND:VCALENDAR\r\n")
    assert timed(lambda: busy_scan.essentials(data)) < BOUND
    day = datetime.date(2026, 12, 1)
    assert timed(lambda: busy_scan.may_touch(data, day, day)) < BOUND


def test_alarms_and_time_zones_are_still_dropped() -> None:
    data = (b"BEGIN:VCALENDAR\r\nBEGIN:VTIMEZONE\r\nTZID:Europe/Paris\r\nEND:VTIMEZONE\r\n"
            b"BEGIN:VEVENT\r\nDTSTART;TZID=Europe/Paris:20261201T100000\r\nBEGIN:VALARM\r\n"
            b"TRIGGER:-PT5M\r\nEND:VALARM\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
    assert busy_scan.essentials(data) == (
        b"BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART;TZID=Europe/Paris:20261201T100000\r\n"
        b"END:VEVENT\r\nEND:VCALENDAR\r\n")
