"""The one strict JSON reader for every file and reply planner parses; standard library only.

Refused the same way everywhere: repeated keys, NaN and Infinity, floats that overflow, nesting
deeper than MAX_DEPTH, text that is not JSON, and numbers too large to read: a float that
overflows or an integer past Python's 4,300-digit limit. For files whose every number has a
range (config, plan files), `overflow_as_infinity` reads those as infinite instead, so the
caller's own range check names the key and its range rather than Python's limit.
"""

from __future__ import annotations

import json
import sys

from planner.base.i18n import N_, Message, t
from planner.base.jsonlimits import MAX_DEPTH, too_deep

_MAX_DIGITS = sys.get_int_max_str_digits() or 4300
# What Python's reader says is wrong, marked so the catalog translates it by its kind (README
# "中文界面").
PYTHON_REASONS = (
    N_("Expecting value"), N_("Expecting ',' delimiter"), N_("Expecting ':' delimiter"),
    N_("Expecting property name enclosed in double quotes"),
    N_("Unterminated string starting at"), N_("Invalid control character at"),
    N_("Invalid \\escape"), N_("Invalid \\uXXXX escape"), N_("Extra data"),
    N_("Illegal trailing comma before end of object"),
    N_("Illegal trailing comma before end of array"),
)

_KNOWN_REASONS = frozenset(PYTHON_REASONS)


class JSONRefused(ValueError):
    """The text is not strict JSON; str() is the reason, e.g. "repeats the key 'model'".

    `reason` is that line (its template and values); `bare` is the reason without a leading
    "is " ("not valid JSON (...)"), for a line that names the text's problem in parentheses.
    """

    def __init__(self, reason: Message, bare: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.bare = reason if bare is None else bare


def _unique(pairs: list[tuple[str, object]]) -> dict[str, object]:
    data = dict(pairs)
    if len(data) != len(pairs):
        keys = [key for key, _ in pairs]
        repeated = next(key for number, key in enumerate(keys) if key in keys[:number])
        raise JSONRefused(t("repeats the key {key}",
                            key=json.dumps(repeated, ensure_ascii=True)[:60]))
    return data


def _no_constant(name: str) -> None:
    raise JSONRefused(t("contains {name}, which is not a JSON number", name=name))


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise JSONRefused(t("contains a number that overflows: {number}", number=text[:40]))
    return value


def _readable_integer(text: str) -> int:
    if len(text) - text.startswith("-") <= _MAX_DIGITS:
        return int(text)
    raise JSONRefused(t("contains a number too long to read ({digits:,} digits)",
                        digits=len(text)))


def _integer_or_infinity(text: str) -> int | float:
    if len(text) - text.startswith("-") <= _MAX_DIGITS:
        return int(text)
    return float("-inf") if text.startswith("-") else float("inf")


# One decoder each, built once: json.loads with hooks would build a new one every call.
_DECODER = json.JSONDecoder(object_pairs_hook=_unique, parse_constant=_no_constant,
                            parse_float=_finite, parse_int=_readable_integer)
_RANGED_DECODER = json.JSONDecoder(object_pairs_hook=_unique, parse_constant=_no_constant,
                                   parse_int=_integer_or_infinity)


def loads(text: str, max_depth: int = MAX_DEPTH, overflow_as_infinity: bool = False) -> object:
    """The JSON value of `text`, or JSONRefused saying why in a few words."""
    try:
        value = (_RANGED_DECODER if overflow_as_infinity else _DECODER).decode(text)
    except JSONRefused:
        raise
    except RecursionError:
        # The parser gives up near 1,000 levels, at once and without reading further.
        raise _too_deep(max_depth) from None
    except ValueError as error:
        what = getattr(error, "msg", None)
        if what in _KNOWN_REASONS:
            what = Message(what)  # said in the person's language by its kind
        line, column = getattr(error, "lineno", None), getattr(error, "colno", None)
        if what and column is not None and "\n" not in text:
            # What, then where (README "中文界面"); one line of text (a log's line) needs only the
            # column.
            reason = t("{what}: column {column}", what=what, column=column)
        elif what and line is not None and column is not None:
            reason = t("{what}: line {line}, column {column}", what=what, line=line,
                       column=column)
        else:
            reason = what or t("cannot be read")
        raise JSONRefused(t("is not valid JSON ({reason})", reason=reason),
                          t("not valid JSON ({reason})", reason=reason)) from None
    if too_deep(text, value, max_depth):
        raise _too_deep(max_depth)
    return value


def _too_deep(max_depth: int) -> JSONRefused:
    return JSONRefused(t("is JSON nested deeper than {max_depth} levels", max_depth=max_depth),
                       t("JSON nested deeper than {max_depth} levels", max_depth=max_depth))
