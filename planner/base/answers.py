"""The words a prompt shows are the words it takes (README "中文界面"): ratings and yes/no in both
languages.

The record keeps the English rating word; a Chinese screen shows the Chinese one. Words are data
here (not catalog lines) because they are read back as well as shown.
"""

from __future__ import annotations

import unicodedata

from planner.base import i18n

RATINGS = ("again", "hard", "good", "easy")
# The Chinese word shown (and taken) for each rating: forgot / hard work / remembered / easy.
CHINESE_RATINGS = {"again": "忘了", "hard": "吃力", "good": "记得", "easy": "轻松"}
# More Chinese a person may type for a rating (the catalog's older prompt showed these too).
_MORE_CHINESE = {"忘记": "again", "不记得": "again", "困难": "hard", "难": "hard", "好": "good",
                 "良好": "good", "容易": "easy", "简单": "easy"}
YES = frozenset({"y", "yes", "是"})
NO = frozenset({"n", "no", "否"})


def _folded(typed: str) -> str:
    return unicodedata.normalize("NFKC", typed).strip().lower()


def rating_from(typed: str) -> str | None:
    """The English rating for a typed word (English or Chinese, any case, full-width too);
    None when it is not one."""
    word = _folded(typed).rstrip("。.!！")
    if word in RATINGS:
        return word
    for rating, chinese in CHINESE_RATINGS.items():
        if word == chinese:
            return rating
    return _MORE_CHINESE.get(word)


def rating_word(rating: str) -> str:
    """A recorded rating as the person's language shows it (an unknown one as it is)."""
    if i18n.language() == "zh":
        return CHINESE_RATINGS.get(rating, rating)
    return rating


def is_yes(typed: str | None) -> bool:
    """Whether an answer to a [y/N] question is yes: y, yes (any case) or 是, in either
    language; everything else (Enter, no, 否, end of input) is no."""
    return typed is not None and _folded(typed) in YES


def is_full_width(typed: str) -> bool:
    """Whether `typed` holds full-width letters (ＳＡＶＥ), which look like capitals and are not
    the SAVE a person must type."""
    return any(unicodedata.east_asian_width(char) == "F" for char in typed)
