"""What no line break may part, shared by planner's wrapper and Click's help (README: Every line
fits): a number and its unit (`40 分钟`, `3 days`)."""

import re

NUMBER = re.compile(r"[0-9]+(?:[.,:/-][0-9]+)*")
# Units a number is never parted from, Chinese and English (longest first where one starts
# another: 分钟 before 分), after at most one space.
UNIT = re.compile(
    r" ?(?:分钟|小时|毫秒|字节|周年|天|次|条|个|周|秒|年|月|日|行|列|页|项|张|份|分|倍|号|"
    r"点|名|篇|场|节|遍|位|步|人|处|种|组|部|本|门|轮|晚|笔)"
    r"| (?:minutes?|min|hours?|days?|weeks?|months?|years?|seconds?|s|ms|calls?|sessions?|reviews?|"
    r"notes?|plans?|events?|runs?|columns?|lines?|times?|tokens?|KiB|MiB|GiB|%)(?![A-Za-z])")


def unit_after(text: str, number_start: int, number_end: int) -> int:
    """Where the unit after the number text[number_start:number_end] ends; number_end when
    that is no number or no unit follows it."""
    if not NUMBER.fullmatch(text, number_start, number_end):
        return number_end
    unit = UNIT.match(text, number_end)
    return unit.end() if unit else number_end
