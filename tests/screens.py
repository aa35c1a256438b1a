"""What a screen showed: its lines without escape sequences, their width, English left on a
Chinese screen."""

from __future__ import annotations

import datetime as _dt
import re
import unicodedata

from live_model import KEY, KEY_ENV
from terminal import ANSI, screen_lines

__all__ = ["ANSI", "screen_lines"]  # the pseudo-terminal driver's, here beside the screen checks


CHINESE = {"LANGUAGE": "zh_CN"}
ENGLISH = {"LANGUAGE": "en"}
KEYED = {KEY_ENV: KEY}  # every terminal run here has the key set


def columns(line: str) -> int:
    """A line's width on a terminal: wide (Chinese) characters take two columns."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in line)


def run_id(days_ago: int = 0) -> str:
    """A run ID of planner's own form, saved `days_ago` days ago (UTC noon)."""
    moment = _dt.datetime.now(_dt.UTC).replace(hour=12) - _dt.timedelta(days=days_ago)
    return moment.strftime("%Y%m%dT%H%M%S%fZ") + "-abcdef"


# Three English words in a row: a sentence, not a name (`planner done`, `RAG`, `N1`).
SENTENCE = re.compile(r"[A-Za-z]{2,}(?:[ ,]+[A-Za-z]{2,}){2,}")
# Data: quoted words (the server's), and what planner shows as it is (commands, IDs, options).
DATA = re.compile(r"“[^”]*”|'[^']*'|\"[^\"]*\"|planner [a-z-]+(?: [A-Z_-]+)*"
                  r"|--[a-z-]+(?: [A-Z_]+)?")
CLOSING = tuple("，。、；：？！）》」』】")


def problems(shown: str) -> list[str]:
    """Each line of the screen that is too wide, starts with closing punctuation, or holds an
    English sentence."""
    found = []
    for line in screen_lines(shown):
        inner = line.strip("│╭╮╰╯─ ")
        if columns(line) > 80:
            found.append(f"{columns(line)} columns: {line}")
        if inner.startswith(CLOSING):
            found.append(f"starts with punctuation: {line}")
        english = SENTENCE.search(DATA.sub("", inner))
        if english:
            found.append(f"English {english.group(0)!r}: {line}")
    return found
