"""One form for the Chinese and Japanese forms of a character, so a search finds them all; the
only opencc import."""

# Simplified (读), traditional (讀) and Japanese (読) forms of one character are folded to one
# form, with OpenCC's tables: first Japanese shinjitai to traditional (jp2t: 読→讀, 図→圖), then
# traditional to simplified (t2s: 讀→读, 語→语). The index stores folded text and folds every
# query the same way, so 敬语 finds 敬語 and 読解 finds 读解 and 讀解.
#
# The fold is character by character, from a table OpenCC makes once (every CJK character put
# through jp2t and t2s on its own, then followed to where it stops changing: 滬→沪→滤 makes
# 滬 and 沪 one): a query's characters fold exactly as they do inside any note, and the length
# of a text never changes, so a snippet found in the folded text is cut
# from the note's own text at the same place. An index keeps the table it was built with
# (planner.notes.index), so a search reads it from there and never loads OpenCC (~10 ms and
# 5 MiB); text without such characters (English) is returned as it is.

from __future__ import annotations

import re
import threading

# Where a character OpenCC may change can stand: CJK radicals, symbols, kana and ideographs
# (compatibility ideographs and the supplementary planes included).
_RANGES = ((0x2E80, 0xA000), (0xF900, 0xFB00), (0x20000, 0x31350))
_SLICE = 8192
# Every character of a table is in _RANGES (one pattern, so a table is checked in C speed).
_TABLE_CHARS = re.compile("[" + "".join(f"{chr(low)}-{chr(high - 1)}" for low, high in _RANGES)
                          + "]+")
_lock = threading.Lock()
_pairs: str | None = None
_default: Folder | None = None


def table_pairs() -> str:
    """OpenCC's fold as a string of pairs (character, its folded form) for every character it
    changes, made once per process (~40 ms with the import)."""
    global _pairs
    with _lock:
        if _pairs is None:
            # Imported here only: building an index is the one time it is needed.
            import opencc

            japanese, simplified = opencc.OpenCC("jp2t"), opencc.OpenCC("t2s")
            step: dict[str, str] = {}
            # In slices, so the build of an index stays small in memory.
            for low, high in _RANGES:
                for start in range(low, high, _SLICE):
                    chars = [chr(code) for code in range(start, min(start + _SLICE, high))]
                    # One character a line: OpenCC's phrases never join two of them.
                    folded = simplified.convert(japanese.convert("\n".join(chars))).split("\n")
                    if len(folded) != len(chars):  # never seen: such a slice is left as it is
                        continue
                    step.update((char, form) for char, form in zip(chars, folded, strict=True)
                                if form != char and len(form) == 1)
            _pairs = "".join(char + form for char in step
                             if (form := _settled(char, step)) != char)
        return _pairs


def table_digest(pairs: str) -> str:
    """The SHA-256 of a table, kept beside an index's copy of it: a copy cut short between two
    pairs still reads as pairs."""
    import hashlib

    return hashlib.sha256(pairs.encode("utf-8")).hexdigest()


def sound_table(pairs: object, digest: object) -> bool:
    """Whether `pairs` can be a table table_pairs made, with its `digest`: text of pairs of
    characters in _RANGES, each character changed once and to a form that changes no more. An
    index's copy that is not (cut short, of another type, damaged) is rebuilt, never trusted."""
    if type(pairs) is not str or not pairs or len(pairs) % 2 or not _TABLE_CHARS.fullmatch(pairs):
        return False
    changed = set(pairs[0::2])
    return len(changed) == len(pairs) // 2 and changed.isdisjoint(pairs[1::2]) \
        and digest == table_digest(pairs)


def _settled(char: str, step: dict[str, str]) -> str:
    """Where `char` stops changing when folded again and again; in a cycle, its least member."""
    seen = [char]
    while (after := step.get(seen[-1])) is not None and after not in seen:
        seen.append(after)
    return seen[-1] if after is None else min(seen[seen.index(after):])


class Folder:
    """The fold of one table of pairs: call it on a text."""

    def __init__(self, pairs: str) -> None:
        self.pairs = pairs
        self._forms = dict(zip(pairs[0::2], pairs[1::2], strict=True))
        self._changed = frozenset(self._forms)

    def __call__(self, text: str) -> str:
        """`text` with every character in its one searched form; the same length as `text`."""
        if text.isascii():
            return text
        # The characters to change are few in any one text (none in most simplified Chinese):
        # one replace each is 3x faster than str.translate, which looks up every character.
        # A settled table's forms are never changed again, so the order does not matter.
        for char in self._changed.intersection(text):
            text = text.replace(char, self._forms[char])
        return text


def fold(text: str) -> str:
    """`text` folded with OpenCC's table as this process makes it."""
    global _default
    if text.isascii():
        return text
    if _default is None:
        _default = Folder(table_pairs())
    return _default(text)
