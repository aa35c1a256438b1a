"""How deep JSON text nests, checked on the text before it is parsed; standard library only."""

# Files planner reads (config, records) may nest at most MAX_DEPTH levels (SPEC 14). The check
# runs on the text, so 100,000 levels are refused without the parser ever recursing into them.
# Speed: each "{" or "[" opens at most one level, so a text with at most `limit` of them needs
# no further look (every summary planner writes); only a larger count is scanned exactly.

from __future__ import annotations

import re

MAX_DEPTH = 64

# A JSON string (unrolled, linear time): brackets inside strings are not nesting.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """True when the JSON in `text` nests objects and arrays deeper than `limit` levels."""
    if text.count("{") + text.count("[") <= limit:
        return False
    depth = 0
    for char in _NOT_BRACKET.sub("", _STRING.sub("", text)):
        if char in "{[":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False
