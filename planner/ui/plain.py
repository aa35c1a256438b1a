"""Output without Rich: notices, exact JSON, the terminal checks; what the dry run needs.

Rich costs about 15 ms to import, as much as the rest of `planner --dry-run`'s own work (README
"Speed"), so the commands that print only notices and JSON write them here. `notice` writes the
very bytes `planner.ui.console.notice` writes through Rich (the same words, inert and
translated; wrapped, and dim where Rich would colour, only on a terminal); tests compare the
two under every setting Rich reads.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable

from planner.base.i18n import _, shown
from planner.base.inert import inert_line

TTY = "/dev/tty"
DIM, RESET = "\x1b[2m", "\x1b[0m"  # Rich's SGR for the style "dim", with or without NO_COLOR


def is_tty(stream: object) -> bool:
    """Whether the stream itself is a terminal (not Rich's guess, which FORCE_COLOR sways)."""
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return False


def is_terminal(stream: object) -> bool:
    """Whether Rich counts `stream` as a terminal (rich.console.Console.is_terminal): the
    variables TTY_COMPATIBLE and FORCE_COLOR first, else whether it is one."""
    compatible = os.environ.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "1"
    force = os.environ.get("FORCE_COLOR")
    if force is not None:
        return force != ""
    return is_tty(stream)


def _dumb(terminal: bool) -> bool:
    """Rich's dumb terminal: a terminal whose TERM is dumb or unknown (no colour, 80 columns)."""
    return terminal and os.environ.get("TERM", "").lower() in ("dumb", "unknown")


def width(stream: object) -> int:
    """The columns Rich gives a console writing to `stream` (rich.console.Console.size):
    80 on a dumb terminal, else COLUMNS, else the first standard stream's terminal size."""
    if _dumb(is_terminal(stream)):
        return 80
    columns = None
    for fd in (0, 1, 2):
        try:
            columns = os.get_terminal_size(fd).columns
        except (AttributeError, ValueError, OSError):  # not a terminal
            continue
        break
    given = os.environ.get("COLUMNS")
    if given is not None and given.isdigit():
        columns = int(given)
    return columns or 80  # a pseudo-terminal can report 0 columns


def notice(message: str) -> None:
    """A line about the run itself (not its result), on stderr so stdout stays clean."""
    stream = sys.stderr
    line = inert_line(shown(message))
    pieces = [line]
    if is_tty(stream):
        # On a terminal, wrapped between words (planner.ui.wrapping), as console.fitted does.
        from planner.ui.wrapping import INDENT, spans

        pieces = [line[start:end] for start, end in spans(line, width(stream))]
        indent = "\n" + " " * INDENT
    else:
        indent = "\n"  # never used: one piece
    terminal = is_terminal(stream)
    if terminal and not _dumb(terminal):
        # Rich styles each screen line's text, not the indentation before it.
        pieces = [DIM + piece + RESET if piece else piece for piece in pieces]
    stream.write(indent.join(pieces) + "\n")
    stream.flush()


def indexing_progress() -> Callable[[int, int], None] | None:
    """A line on a terminal's stderr, redrawn in place while the notes are first indexed, and
    erased when done; None when stderr is not a terminal (pipes and files get nothing)."""
    if not is_terminal(sys.stderr):
        return None
    stream = sys.stderr

    def show(done: int, total: int) -> None:
        # Carriage return and erase-line (ECMA-48 EL): the line is redrawn, never scrolled.
        line = _("Indexing your notes for the first time: {done} of {total} files").format(
            done=f"{done:,}", total=f"{total:,}")
        stream.write("\r\x1b[2K" + (line if done < total else ""))
        stream.flush()

    return show


def has_terminal() -> bool:
    """Whether a controlling terminal can be opened for prompts."""
    try:
        with open(TTY, "rb"):
            return True
    except OSError:
        return False


# --- Exact output: JSON -----------------------------------------------------------------------


def print_json(data: object) -> None:
    """Machine-readable JSON on stdout, exactly, with no markup or wrapping."""
    readable = _stdout_reads_cjk()
    text = json.dumps(data, ensure_ascii=not readable, indent=2)
    sys.stdout.write(_inert_json(text) + "\n")
    sys.stdout.flush()


def print_json_lines(data: object) -> None:
    """JSON on stdout: the top level and its lists opened, one compact item per line."""
    # Not indent=: that uses json's pure-Python encoder, which on 10,000 runs costs more than
    # reading the records; compact items go through the C encoder and stay greppable.
    encode = json.JSONEncoder(ensure_ascii=not _stdout_reads_cjk()).encode

    def dumps(value: object) -> str:
        return _inert_json(encode(value))

    write = sys.stdout.write

    def block(value: object, indent: str) -> str:
        if isinstance(value, list) and value:
            inner = indent + "  "
            return "[\n" + ",\n".join(inner + dumps(item) for item in value) + f"\n{indent}]"
        return dumps(value)

    if isinstance(data, dict) and data:
        lines = (f"  {dumps(key)}: {block(value, '  ')}" for key, value in data.items())
        write("{\n" + ",\n".join(lines) + "\n}\n")
    else:
        write(block(data, "") + "\n")
    sys.stdout.flush()


def _stdout_reads_cjk() -> bool:
    """Whether stdout can encode CJK; if not (PYTHONIOENCODING=ascii), JSON uses \\u escapes."""
    try:
        "\u4e00\U0001f600".encode(sys.stdout.encoding or "ascii")
        return True
    except (LookupError, UnicodeError):
        return False


def _inert_json(text: str) -> str:
    """JSON text with hidden characters as \\u escapes: the same JSON value, inert on a tty."""
    # json escapes C0 itself; CJK and other printable text stay as they are.
    if text.isascii() and "\x7f" not in text:
        return text
    import re

    def escape(match: re.Match[str]) -> str:
        run = match.group()
        if run.isprintable():
            return run  # CJK and other ordinary text, in one C-speed check
        # DEL, C1, bidi and other hidden characters (inert_line's choice) and lone
        # surrogates become \uXXXX escapes.
        shown = []
        for char in run:
            code = ord(char)
            if inert_line(char) == char:
                shown.append(char)
            elif code < 0x10000:
                shown.append(f"\\u{code:04x}")
            else:  # a UTF-16 surrogate pair, as JSON writes characters beyond U+FFFF
                code -= 0x10000
                shown.append(f"\\u{0xd800 + (code >> 10):04x}"
                             f"\\u{0xdc00 + (code & 0x3ff):04x}")
        return "".join(shown)

    return re.sub(r"[^\x00-\x7e]+", escape, text)
