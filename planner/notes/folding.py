"""One form for the Chinese and Japanese forms of a character, so a search finds them all; the
only opencc import."""

# Simplified (读), traditional (讀) and Japanese (読) forms of one character are folded to one
# form, the simplified one, with OpenCC's tables: first Japanese shinjitai to traditional (jp2t:
# 読→讀, 図→圖), then traditional to simplified (t2s: 讀→读, 語→语). The index stores folded text
# and folds every query the same way, so 敬语 finds 敬語 and 読解 finds 读解 and 讀解. Text
# without such characters (English, most of a query's words) is returned as it is and never
# loads OpenCC.
#
# A fold keeps the text's length, character for character: the index finds a snippet in the
# folded text and shows the note's own text at the same place. OpenCC maps every single
# character to a single character; only a phrase of its tables could change the length, and
# then the text is folded one character at a time instead.

from __future__ import annotations

import re
import threading
from collections.abc import Callable

# Where a character OpenCC may change can stand: CJK radicals, symbols, kana and ideographs
# (compatibility ideographs and the supplementary planes included).
_FOLDABLE = re.compile("[\u2e80-\u9fff\uf900-\ufaff\U00020000-\U0003ffff]")
_lock = threading.Lock()
_convert: Callable[[str], str] | None = None
_chars: dict[str, str] = {}  # one character's fold, for the rare text folded char by char


def fold(text: str) -> str:
    """`text` with every character in its one searched form; the same length as `text`."""
    if text.isascii() or _FOLDABLE.search(text) is None:
        return text
    convert = _converter()
    folded = convert(text)
    if len(folded) == len(text):
        return folded
    return "".join(_fold_char(char, convert) for char in text)


def _fold_char(char: str, convert: Callable[[str], str]) -> str:
    folded = _chars.get(char)
    if folded is None:
        folded = convert(char) if _FOLDABLE.match(char) else char
        if len(folded) != 1:
            folded = char
        _chars[char] = folded
    return folded


def _converter() -> Callable[[str], str]:
    global _convert
    if _convert is None:
        with _lock:
            if _convert is None:
                # Imported at the first text that needs it (~10 ms with both tables): --help,
                # --dry-run and English-only notes never pay for it.
                import opencc

                japanese = opencc.OpenCC("jp2t")
                traditional = opencc.OpenCC("t2s")

                def convert(text: str) -> str:
                    return traditional.convert(japanese.convert(text))

                _convert = convert
    return _convert
