"""YAML front matter of a Markdown note: split from the body and read; the only yaml import."""

# Read with YAML's base loader: every scalar stays the text that was written. A note's `id:
# 0123` stays "0123" (YAML 1.1 would read an octal 83), `title: 2026-10-05` stays a string,
# `id: no` is not False. Nothing here builds Python objects from tags, so it is safe on any file.

from __future__ import annotations

import re

from planner.base.i18n import t
from planner.base.oserrors import yaml_problem

# An opening or closing fence: three dashes (or three dots to close), trailing spaces allowed.
_OPEN = re.compile(r"---[ \t]*\r?\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.MULTILINE)


class FrontMatterError(ValueError):
    """The front matter cannot be read; the message is one line saying why."""


def split_front_matter(text: str) -> tuple[dict[object, object], str]:
    """The front matter as a mapping ({} when there is none) and the body after it."""
    opening = _OPEN.match(text)
    if opening is None:
        return {}, text
    closing = _CLOSE.search(text, opening.end())
    if closing is None:
        raise FrontMatterError(t("front matter starts with --- but has no closing --- line"))
    data = _load(text[opening.end():closing.start()])
    if data is None:
        return {}, text[closing.end():]
    if not isinstance(data, dict):
        raise FrontMatterError(t("front matter is not a YAML mapping of key: value lines"))
    return data, text[closing.end():]


def _load(source: str) -> object:
    import yaml  # only when a note has front matter: --help and the samples never load it

    loader = getattr(yaml, "CBaseLoader", yaml.BaseLoader)  # libyaml when present: ~10x faster
    try:
        return yaml.load(source, Loader=loader)  # noqa: S506 - the base loader builds no objects
    except yaml.MarkedYAMLError as error:
        problem = yaml_problem(str(error.problem or error.context))
        if error.problem_mark:
            raise FrontMatterError(t("front matter is not valid YAML ({reason} at line {line})",
                                     reason=problem, line=error.problem_mark.line + 2)) from None
        raise FrontMatterError(t("front matter is not valid YAML ({reason})",
                                 reason=problem)) from None
    except (yaml.YAMLError, RecursionError, ValueError, TypeError) as error:
        # A note is the person's own file: whatever it holds is one warning, never a crash.
        reason = yaml_problem(str(error).splitlines()[0] if str(error) else type(error).__name__)
        raise FrontMatterError(t("front matter is not valid YAML ({reason})",
                                 reason=reason)) from None
