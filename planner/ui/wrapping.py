"""Every line fits (README "中文界面"): one line of text wrapped to the terminal's width.

Between words in English, between characters in Chinese, never before closing punctuation
(`，。）：` and the like) nor after opening punctuation (`（“`); a continuation is indented. Wide
characters count two columns. A number stays with its unit (`40 分钟`, `3 days`), a short
bracketed mark (`[新笔记]`, `[due today]`) and a short quoted word stay whole. A word wider than
the screen (a long path) breaks after a `/` where it can, else where the screen ends. Used on a
terminal only: a pipe or a file keeps each message on one line, whole, to be grepped and copied.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING, NamedTuple

from planner.base.typesetting import unit_after

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult
    from rich.measure import Measurement
    from rich.text import Text

INDENT = 2
# Never at the start of a line: closing and pausing punctuation, Chinese and Western.
_CLOSING = frozenset("，。、；：？！）》」』】〕〉”’…,.;:?!)]}%")
# Never at the end of a line: opening punctuation.
_OPENING = frozenset("（《「『【〔〈“‘([{")
_SHORT_QUOTE = 6  # characters: a quoted word this short stays on one line
_SHORT_MARK = 32  # characters: a mark this short ([新笔记], [due in 12 days (…)]) stays whole
# A run of characters between spaces and Chinese sentence punctuation (a path is one of them).
_RUN = re.compile(r"[^\s，。、；：？！“”《》「」]+")


def cell_len(text: str) -> int:
    """The columns `text` takes on a terminal, as Rich counts them."""
    if text.isascii() and text.isprintable():
        return len(text)  # Rich's count too: every printable ASCII character is one column
    # Imported only here: `planner --dry-run` wraps its English notices without loading Rich.
    from rich.cells import cell_len as rich_cell_len

    return rich_cell_len(text)


def _wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in ("W", "F")


def _atoms(line: str) -> list[tuple[int, int, bool]]:
    """The pieces of `line` no break may split: (start, end, a space comes before it)."""
    atoms: list[tuple[int, int, bool]] = []
    index, size = 0, len(line)
    spaced = False
    # A path (a run holding a `/`, Chinese folder names included) is one word: it breaks only
    # after a `/` (_split_long), never between its characters.
    paths = {run.start(): run.end() for run in _RUN.finditer(line) if "/" in run.group()}
    while index < size:
        char = line[index]
        if char == " ":
            spaced, index = True, index + 1
            continue
        end = index + 1
        closing = line.find("”", index + 1, index + 2 + _SHORT_QUOTE) if char == "“" else -1
        if index in paths:
            closing, end = -1, paths[index]
        elif char == "[":
            closing = line.find("]", index + 1, index + 2 + _SHORT_MARK)
            if "[" in line[index + 1:max(closing, index)]:
                closing = -1  # not one mark: another one opens inside
        if closing > 0:
            end = closing + 1  # a short quoted word (评分“吃力”) or mark ([新笔记]) is never split
        elif index not in paths and not _wide(char) and char not in _OPENING:
            # A word: everything up to a space or a wide character.
            while end < size and line[end] != " " and not _wide(line[end]):
                end += 1
            end = unit_after(line, index, end)  # a number and its unit: 40 分钟, 3 days
        # Closing punctuation sticks to what comes before it; opening to what comes after.
        glued = bool(atoms) and not spaced and (char in _CLOSING or
                                                 line[atoms[-1][1] - 1] in _OPENING)
        if glued:
            start, _end, before = atoms[-1]
            atoms[-1] = (start, end, before)
        else:
            atoms.append((index, end, spaced))
        spaced, index = False, end
    return atoms


def _split_long(line: str, start: int, end: int, room: int) -> int:
    """Where to cut the piece line[start:end] to fit `room` columns: after a `/` if one fits,
    else at the last character that fits (at least one character)."""
    used, cut, slash = 0, start, None
    for index in range(start, end):
        width = cell_len(line[index])
        if used + width > room:
            break
        used += width
        cut = index + 1
        if line[index] == "/":
            slash = index + 1
    if slash is not None and slash < end and slash > start:
        return slash
    return max(cut, start + 1)


def spans(line: str, width: int, indent: int = INDENT) -> list[tuple[int, int]]:
    """The (start, end) of each screen line of one line of text at `width` columns; lines after
    the first are to be shown after `indent` spaces."""
    width = max(width, indent + 8)
    result: list[tuple[int, int]] = []
    start = None  # the current line's start
    end = 0
    used = 0
    room = width
    atoms = _atoms(line)
    position = 0
    while position < len(atoms):
        first, last, spaced = atoms[position]
        size = cell_len(line[first:last])
        # The spaces between this piece and the last (two after a note's ID) take their room.
        gap = first - end if (spaced and start is not None) else 0
        if start is not None and used + gap + size <= room:
            end, used = last, used + gap + size
            position += 1
            continue
        if start is not None:
            result.append((start, end))
            start, used, room = None, 0, width - indent
        if size <= room:
            start, end, used = first, last, size
            position += 1
            continue
        cut = _split_long(line, first, last, room)
        result.append((first, cut))
        room = width - indent
        atoms[position] = (cut, last, False)
    if start is not None:
        result.append((start, end))
    return result or [(0, 0)]


def wrap_text(text: Text, width: int, indent: int = INDENT) -> Text:
    """`text` (one or more lines) with each line wrapped to `width`, styles kept."""
    from rich.text import Text

    pieces: list[Text] = []
    offset = 0
    for part in text.plain.split("\n"):
        lines = [text[offset + start:offset + end]
                 for start, end in spans(part, width, indent)]
        pieces.append(Text("\n" + " " * indent).join(lines))
        offset += len(part) + 1
    return Text("\n").join(pieces)


def wrap_plain(line: str, width: int, indent: int = INDENT) -> str:
    """A plain string wrapped as wrap_text wraps (for prompts written straight to a terminal)."""
    return "\n".join(
        "\n".join((" " * indent if number else "") + part[start:end]
                  for number, (start, end) in enumerate(spans(part, width, indent)))
        for part in line.split("\n"))


def wrap_block(text: Text, width: int) -> Text:
    """Several lines of prose (the model's words) wrapped to `width`: each line keeps its own
    indentation, and its continuation lines start under its first word."""
    from rich.text import Text

    pieces: list[Text] = []
    offset = 0
    for part in text.plain.split("\n"):
        lead = len(part) - len(part.lstrip(" "))
        if lead > width // 2:
            lead = 0  # an indentation that would leave too little room is not kept
        body = part[lead:]
        lines = [text[offset + lead + start:offset + lead + end]
                 for start, end in spans(body, width - lead, 0)]
        pieces.append(Text("\n").join(Text(" " * lead) + line for line in lines))
        offset += len(part) + 1
    return Text("\n").join(pieces)


class Wrapped:
    """Prose in a table cell or a panel: Rich lays it out, planner's rules wrap it (README
    "中文界面")."""

    def __init__(self, text: Text) -> None:
        self.text = text

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        from rich.measure import Measurement

        lines = self.text.plain.split("\n")
        widest = max(cell_len(line) for line in lines)
        # The narrowest it can be: its widest piece no break may split.
        narrowest = max((cell_len(line[start:end]) for line in lines
                         for start, end, _spaced in _atoms(line)), default=0)
        return Measurement(min(narrowest, widest), widest).clamp(max_width=options.max_width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield wrap_block(self.text, options.max_width)


def pack(items: list[str], separator: str, width: int) -> list[str]:
    """Whole items (note IDs) on lines of at most `width` columns, `separator` between them
    (its spaces dropped at a line's end); an item wider than a line breaks as a path does, after
    a `/`, never inside a name."""
    width = max(width, 1)
    lines: list[str] = []
    line = ""
    mark = separator.rstrip()
    for number, item in enumerate(items):
        last = number == len(items) - 1
        word = item if last else item + mark
        joined = line + (separator[len(mark):] if line else "") + word
        if line and cell_len(joined) <= width:
            line = joined
            continue
        if line:
            lines.append(line)
        if cell_len(word) <= width:
            line = word
            continue
        pieces = [word[start:end] for start, end in spans(word, width, 0)]
        lines += pieces[:-1]
        line = pieces[-1]
    if line or not lines:
        lines.append(line)
    return lines


class Listed:
    """Note IDs in a table cell: each whole, as many to a line as the column holds."""

    def __init__(self, items: list[str], separator: str, style: str = "") -> None:
        self.items, self.separator, self.style = items, separator, style

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        from rich.measure import Measurement

        mark = self.separator.rstrip()
        words = [item + mark for item in self.items[:-1]] + self.items[-1:]
        widest = cell_len(self.separator.join(self.items))
        # The narrowest: its widest item (a wider one than the screen breaks after a `/`).
        narrowest = max((cell_len(word) for word in words), default=1)
        return Measurement(min(narrowest, widest), widest).clamp(max_width=options.max_width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.text import Text

        yield Text("\n".join(pack(self.items, self.separator, options.max_width)),
                   style=self.style, no_wrap=True, overflow="crop")


class Hanging(NamedTuple):
    """A line that ends in a list (a session and its note IDs): the list's lines after the
    first start under its first item."""

    head: str
    items: tuple[str, ...]
    separator: str

    @property
    def plain(self) -> str:
        return self.head + self.separator.join(self.items)

    def lines(self, width: int) -> list[str]:
        """The screen lines at `width` columns: each item whole (pack), under the first."""
        hang = cell_len(self.head)
        mark = cell_len(self.separator.rstrip())
        widest = max((cell_len(item) + mark for item in self.items), default=0)
        if widest > width - hang:
            # An item wider than the room beside the head: all of them on the lines below it,
            # under the head's words (after `3. `), so none is broken inside.
            at = self.head.find(". ")
            indent = " " * (at + 2 if 0 <= at < width // 2 else INDENT)
            return [self.head.rstrip(), *(indent + line for line in pack(
                list(self.items), self.separator, width - len(indent)))]
        lines = pack(list(self.items), self.separator, width - hang)
        return [self.head + lines[0], *(" " * hang + line for line in lines[1:])]
