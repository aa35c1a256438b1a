"""How deep decoded JSON nests, checked cheaply; standard library only."""

# Files planner reads (config, records) may nest at most MAX_DEPTH levels (README "A screen you can
# trust"). Far deeper
# text (100,000 levels) never decodes: the parser raises RecursionError, which callers catch.
# Speed: each "{" or "[" opens at most one level, so a text with at most `limit` of them needs
# no further look (every usual summary planner writes); only a larger count walks the decoded
# value, level by level (about 15 microseconds for a long conversation's summary, a tenth of
# scanning the text while skipping its strings).

from __future__ import annotations

MAX_DEPTH = 64


def too_deep(text: str, value: object, limit: int = MAX_DEPTH) -> bool:
    """True when `value`, decoded from the JSON `text`, nests deeper than `limit` levels."""
    if text.count("{") + text.count("[") <= limit:
        return False
    level = [value] if type(value) is dict or type(value) is list else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        inner = []
        for node in level:
            for child in node.values() if type(node) is dict else node:
                if type(child) is dict or type(child) is list:
                    inner.append(child)
        level = inner
    return False
