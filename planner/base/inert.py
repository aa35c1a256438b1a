"""Make text the program did not write inert before it reaches a terminal.

Every string from outside the program (model text, tool arguments, server errors, note titles,
fields read back from records) goes through `inert_line` (one-line places: cells, titles,
labels, errors, prompts) or `inert_block` (multi-line text in a bounded panel) on its way to
the screen. What they guarantee, and the choices made:

- Shown escaped, Python style, never emitted raw: every C0 control, DEL and every C1 control
  (so ESC and the 8-bit CSI U+009B, and with them every escape sequence: CSI, OSC including
  hyperlinks and clipboard writes, DCS, APC, PM, SOS), lone surrogates, the line and paragraph
  separators U+2028/U+2029, and every format character (category Cf): the bidirectional
  controls, U+200B, U+2060, U+FEFF, the soft hyphen, the invisible tag characters
  U+E0000-U+E007F, and the rest. `\\t`, `\\n`, `\\r` use their short forms, others `\\x1b`,
  `\\u202e`, `\\U000e0041`, so a person sees that something was there.
- Two format characters are kept: U+200C and U+200D (zero-width non-joiner and joiner). Persian
  and Indic scripts need them to spell words, and emoji sequences need the joiner; they move
  no cursor and change no direction. The cost of escaping all of Cf: the few flag emoji built
  from tag characters (England, Scotland, Wales) show their tags escaped.
- Kept as they are: private-use and unassigned code points (icon fonts, emoji newer than this
  Python's Unicode tables), combining marks, every printable character.
- Literal backslashes are left alone: the four characters `\\x1b` typed by a model look the
  same as an escaped ESC. Doubling backslashes would tell them apart but mangles Windows paths
  and regular expressions in the model's text; the guarantee that matters is that no raw
  control character reaches the terminal, and both forms are harmless.
- `inert_line` collapses a run of two or more blank characters (every space separator, such as
  U+0020, U+00A0, U+2000-U+200A, U+3000, and characters drawn as blank: U+2800 braille blank and
  the Hangul fillers) into one ordinary space, so a title cannot pad itself into looking like
  one of the program's labelled rows. A single blank is kept (a no-break space in French text).
- `inert_block` keeps line breaks (`\\r\\n` becomes `\\n`; a lone `\\r` is escaped), turns a tab
  into 4 spaces and keeps runs of spaces (indentation is fine inside a bounded panel).
- Rich markup is not handled here: callers wrap the result in `rich.text.Text`, which never
  reads markup.

Plain printable ASCII, the common case, is returned unchanged after three C-speed checks and no
regex; `unicodedata` is imported only when a character outside printable ASCII needs a decision.
"""

from __future__ import annotations

import re
from functools import cache

from planner.base.i18n import Message

# Kept although they are format characters: needed to spell Persian, Indic and emoji text.
_JOINERS = frozenset("\u200c\u200d")
# Every space separator (category Zs) plus characters fonts draw as blank; the tests check that
# this covers Zs in the running Python's Unicode tables.
_BLANKS = (
    " \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000"
    "\u2800\u115f\u1160\u3164\uffa0"
)
_NOT_ASCII_PRINTABLE = re.compile(r"[^\x20-\x7e]+")
_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
# Decisions per character, filled as characters are met: the same few recur in a table.
_SHOWN: dict[str, str] = {}


def inert_line(text: object) -> str:
    """One line safe to show: controls and format characters escaped, blank runs collapsed."""
    line = _as_str(text)
    if line.isascii():
        if line.isprintable():
            return line if "  " not in line else _blank_run().sub(" ", line)
    elif line.isprintable():
        # No control, format or non-ASCII space character: only blank runs can be left.
        return _blank_run().sub(" ", line)
    return _blank_run().sub(" ", _escape(line))


def inert_block(text: object) -> str:
    """Lines safe to show in a panel: line breaks and indentation kept, the rest as inert_line."""
    block = _as_str(text)
    if block.isascii() and block.isprintable():
        return block
    block = block.replace("\r\n", "\n").replace("\t", "    ")
    return "\n".join(_escape(line) for line in block.split("\n"))


@cache
def _blank_run() -> re.Pattern[str]:
    # Compiled on first use: a class beyond Latin-1 costs 0.3 ms to compile, paid at every
    # start-up if done at import, and most commands never show a double space.
    return re.compile(f"[{_BLANKS}]{{2,}}")


def _as_str(text: object) -> str:
    if type(text) is str:
        return text
    try:
        return str(text)
    except ValueError:
        # An int past Python's digit limit cannot be turned into text; say so instead (only
        # ever shown, so translated at once).
        from planner.base.i18n import _

        return _("<{kind} too large to show>").format(kind=type(text).__name__)


def _escape(line: str) -> str:
    """Every character that must not reach the terminal raw, written as an escape."""
    return _NOT_ASCII_PRINTABLE.sub(_escape_run, line)


def _escape_run(match: re.Match[str]) -> str:
    run = match.group()
    if run.isprintable():
        # Ordinary non-ASCII text (Chinese, accents, emoji) in one C-speed check.
        return run
    shown = _SHOWN
    return "".join(shown.get(char) or _decide(char) for char in run)


def _decide(char: str) -> str:
    """The character itself, or its Python-style escape if it controls or hides anything."""
    import unicodedata

    category = unicodedata.category(char)
    hidden = category in ("Cc", "Cs", "Zl", "Zp") or (category == "Cf" and char not in _JOINERS)
    if not hidden:
        shown = char
    elif char in _SHORT:
        shown = _SHORT[char]
    else:
        code = ord(char)
        shown = f"\\x{code:02x}" if code < 0x100 else (
            f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    if len(_SHOWN) < 4096:  # bounded: a hostile text cannot grow it without limit
        _SHOWN[char] = shown
    return shown


# --- What the person wrote, echoed short ------------------------------------------------------

# A config value, path, URL or key echoed in a message is cut to this many characters, with …,
# like every other outside text: a 900,000-character URL is one line of a few hundred columns.
SHOWN_CHARS = 120
# A run of characters with no blank in it, past SHOWN_CHARS: only a value (a URL, path, key)
# is ever that long. CJK text is left out (full-width punctuation and ideographs): a Chinese
# line has no spaces, and its words are the program's.
_LONG_RUN = re.compile(f"[^\\s\u3000-\u9fff\uff00-\uffef]{{{SHOWN_CHARS + 1},}}")


def short(value: object, limit: int = SHOWN_CHARS) -> str:
    """`value` as text of at most `limit` characters: a longer one keeps its start and its end
    (a URL's host, a path's file name) around `…`."""
    text = _as_str(value)
    if len(text) <= limit:
        return text
    head = (limit - 1) // 2
    return text[:head] + "…" + text[len(text) - (limit - 1 - head):]


def short_values(line: str) -> str:
    """The line with every run of more than SHOWN_CHARS characters without a blank (a URL, a
    path, a key echoed whole) cut by `short`; quotes and punctuation at its ends are kept."""
    if len(line) <= SHOWN_CHARS:
        return line
    cut = _LONG_RUN.sub(_cut_run, line)
    if cut == line:
        return line
    if not isinstance(line, Message):
        return cut
    # A program line with its values cut says the same words: it keeps its template, so it is
    # still said in the person's language.
    kept = line.with_values(short_values)
    return kept if kept == cut else cut


def _cut_run(found: re.Match[str]) -> str:
    run = found.group()
    # A value already cut, with its quotes or a colon around it, is not cut twice.
    if "…" in run and len(run) <= SHOWN_CHARS + _AROUND:
        return run
    return short(run)


_AROUND = 8  # characters a message puts around a value: quotes, brackets, a colon
