"""Click's usage errors in the person's language (README "中文界面").

Typer's Click writes its errors as finished English lines (f-strings, no catalog of its own), so
planner says them from the forms it knows: each form below is one of Click's sentences with its
values as placeholders, read back by one anchored pattern. Only a usage error's text is read
this way; planner's own lines are said from their templates where they are written.
"""

from __future__ import annotations

import re
from functools import cache

from planner.base.i18n import N_, PLACEHOLDER, Message

# Click's sentences, the longer of two that start alike first.
CLICK_FORMS = (
    N_("No such option: {name} (Possible options: {options})"),
    N_("No such option: {name}"),
    N_("Missing argument {param}."),
    N_("Missing option {param}."),
    N_("Missing parameter {param}."),
    N_("Option {name} requires an argument."),
    N_("Option {name} requires {count} arguments."),
    N_("Option {name} does not take a value."),
    N_("Invalid value for {param}: {message}"),
    N_("Invalid value: {message}"),
    N_("{value} is not in the range {range}."),
    N_("{value} is not a valid int range."),
    N_("{value} is not a valid int."),
    N_("{value} is not a valid float range."),
    N_("{value} is not a valid float."),
    N_("Got unexpected extra argument(s) ({args})"),
    N_("{message}. Did you mean {suggestions}?"),
)
# Longer text is shown as Click wrote it: a pattern with two placeholders tries each split.
MAX_CHARS = 2000
MAX_DEPTH = 2  # `Invalid value for --days: 'x' is not a valid int.`


def said(text: str, depth: int = MAX_DEPTH) -> str:
    """Click's error `text` as a program line (`Message`) when it has one of Click's forms; its
    values that have one too are such lines as well. Any other text comes back as it is."""
    if len(text) > MAX_CHARS:
        return text
    for form, pattern in _patterns():
        found = pattern.fullmatch(text)
        if found is None:
            continue
        values = {name: said(value, depth - 1) if depth > 0 else value
                  for name, value in found.groupdict().items()}
        line = Message(form, values)
        if line == text:
            return line
    return text


@cache
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((form, _pattern(form)) for form in CLICK_FORMS)


def _pattern(form: str) -> re.Pattern[str]:
    """A pattern that matches the lines `form` formats to, each placeholder a named group."""
    parts, position = [], 0
    for found in PLACEHOLDER.finditer(form):
        parts.append(re.escape(form[position:found.start()]))
        parts.append(f"(?P<{found.group(1)}>.+?)")
        position = found.end()
    parts.append(re.escape(form[position:]))
    return re.compile("".join(parts), re.DOTALL)
