"""The person's language (README "中文界面"): which one, its catalog, and lines translated at the
edge.

Two kinds of marked text:
- `_("...")` is for text only a person reads (prompts, table headers, help): translated at once.
- `t("... {name} ...", name=value)` is for a line that is also recorded or sent to the model
  (errors, notices, stop lines). It returns the English line, so records, `--json` and the model
  see the same words in either language; `shown()` translates it where it is printed, matching the
  line against the catalog's templates and translating each value that is itself a program line.

English is the source language: with `en` nothing is loaded and both are the identity.

Translation is bounded (README "A screen you can trust"): whatever a line holds (a server's message
of a hundred `: `
parts included), each text is translated once per line, values are translated a few levels deep,
templates are matched without backtracking, and a line that still takes more than 50 ms of the
program's time is shown in English.
"""

import os
import re
import time
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path

LANGUAGES = ("auto", "en", "zh")
DOMAIN = "planner"
LOCALE_DIR = Path(__file__).parent.parent / "locale"
# The gettext variables, in gettext's order: the first one set decides.
_ENVIRONMENT = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
# A placeholder in a template: {name} or {name:format}.
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::[^{}]*)?\}")

_LETTERS = re.compile(r"[A-Za-z]{2}")
# The time one line may take to translate (README "A screen you can trust"), on the thread's own
# clock: a machine busy
# with other work does not turn a line English, only the line's own work does.
BUDGET_SECONDS = 0.05
# How deep values are translated: a program line holds a reason that holds a system's error, a
# few levels at most; a server's message of many `: ` parts would otherwise be split at each one.
MAX_DEPTH = 8
_clock = time.thread_time
_translations = None  # gettext.GNUTranslations when Chinese is in use
_language = "en"
_templates: "list[_Template] | None" = None


def choose(setting: str, environ: Mapping[str, str] = os.environ) -> str:
    """`en` or `zh` for a config value: `auto` follows LANGUAGE, LC_ALL, LC_MESSAGES, LANG."""
    if setting in ("en", "zh"):
        return setting
    for variable in _ENVIRONMENT:
        value = environ.get(variable, "")
        if not value:
            continue
        # LANGUAGE may list several (zh_CN:en); the first of English or Chinese wins.
        for name in value.split(":"):
            name = name.strip().lower()
            if name.startswith("zh"):
                return "zh"
            if name.startswith("en") or name in ("c", "posix") or name.startswith("c."):
                return "en"
        return "en"
    return "en"


def install(language: str) -> None:
    """Use `language` (`en` or `zh`) for every line from now on."""
    global _translations, _language, _templates
    _language, _templates = language, None
    if language != "zh":
        _translations = None
        return
    import gettext

    try:
        _translations = gettext.translation(DOMAIN, LOCALE_DIR, languages=["zh"])
    except OSError:
        # A build without the compiled catalog: English rather than no program at all.
        _translations, _language = None, "en"


def language() -> str:
    """The language in use: `en` or `zh`."""
    return _language


def _(message: str) -> str:
    """The translation of a line only a person reads."""
    return message if _translations is None else _translations.gettext(message)


def N_(message: str) -> str:
    """Mark a line for the catalog where it is defined; `lookup()` translates it where used."""
    return message


def lookup(text: str) -> str:
    """The translation of text held in a variable (help texts, collected by the tests)."""
    return text if _translations is None else _translations.gettext(text)


def t(template: str, /, **values: object) -> str:
    """The English line from `template` and `values`; `shown()` translates it when printed."""
    return template.format(**values) if values else template


def shown(line: str) -> str:
    """`line` in the person's language: a catalog line, or a template's with its values; the
    English line when translating it takes longer than BUDGET_SECONDS."""
    if _translations is None or not line:
        return line
    _all_templates()  # built once per language, not counted against a line
    work = _Work()
    try:
        translated = work.shown(line, MAX_DEPTH)
    except _OutOfTime:
        return line
    # A value that ends in full-width punctuation (`plans/x.json（第 1 次）`) leaves the
    # template's space before the next Chinese word: no space follows `）` in Chinese.
    return _space_after_punctuation().sub("", translated)


@cache
def _space_after_punctuation() -> re.Pattern[str]:
    # Compiled on first use, not at every start-up: English screens never need it.
    return re.compile(r"(?<=[，。、；：！？）」』】》]) +(?=[\u4e00-\u9fff])")


class _OutOfTime(Exception):
    """A line took longer than its budget to translate."""


class _Work:
    """One line's translation: its deadline, and each text translated so far (a value met again
    under another template, or at another place, is not translated twice)."""

    __slots__ = ("deadline", "done")

    def __init__(self) -> None:
        self.deadline = _clock() + BUDGET_SECONDS
        # text -> (the depth it was translated with, its translation)
        self.done: dict[str, tuple[int, str]] = {}

    def check(self) -> None:
        if _clock() > self.deadline:
            raise _OutOfTime

    def shown(self, line: str, depth: int) -> str:
        known = self.done.get(line)
        # A translation made with as many levels left (or more) holds for this one too.
        if known is not None and known[0] >= depth:
            return known[1]
        translated = self._translate(line, depth)
        self.done[line] = (depth, translated)
        return translated

    def _translate(self, line: str, depth: int) -> str:
        assert _translations is not None
        translated = _translations.gettext(line)
        if translated is not line:
            return translated
        fallback = None
        for template in _templates_for(line):
            self.check()
            values = template.match(line, self)
            if values is None:
                continue
            shown_values = {name: self._value(value, depth) for name, value in values.items()}
            # A short template (`{reason}; {advice}`) can split a line at the wrong place: the
            # match whose sentence-like values are program lines themselves is the right one.
            if all(shown_values[name] != value or " " not in value
                   for name, value in values.items()):
                return _fill(template.target, shown_values)
            # A template with words of its own is still this line's, though a value stays
            # English; a mere joiner (`{field}: {rule}`) is not: an untranslated line reads
            # better whole.
            if fallback is None and template.worded:
                fallback = _fill(template.target, shown_values)
        return line if fallback is None else fallback

    def _value(self, text: str, depth: int) -> str:
        # A value with a space may be a program line itself (a reason, an advice); a single
        # word is a name, an ID or a number, and is shown as it is. So is any value deeper
        # than MAX_DEPTH.
        return self.shown(text, depth - 1) if " " in text and depth > 0 else text


class _Template:
    """A catalog line with placeholders: its fixed ends (a cheap first test) and the values a
    line formatted from it holds. A placeholder holds at least one character, the shortest
    that lets the rest of the line match (what the regular expression of template_pattern()
    finds, without its backtracking)."""

    __slots__ = ("source", "target", "names", "pieces", "fixed", "worded", "_order")

    def __init__(self, source: str, target: str) -> None:
        self.source, self.target = source, target
        order = PLACEHOLDER.findall(source)
        self.names = tuple(dict.fromkeys(order))
        # A name used twice (`{path} ... {path}`) holds the same text both times.
        self._order = tuple(order) if len(order) > len(self.names) else None
        # The fixed text between the placeholders, first piece and last included (maybe empty).
        self.pieces = [_literal(piece) for piece in PLACEHOLDER.split(source)[::2]]
        fixed = "".join(self.pieces)
        self.fixed = len(fixed)
        self.worded = bool(_LETTERS.search(fixed))

    def may_match(self, line: str) -> bool:
        """Whether `line` starts and ends with the fixed text and holds the rest in order."""
        first, *middle, last = self.pieces
        if len(line) <= self.fixed or not line.startswith(first) or not line.endswith(last):
            return False
        position = len(first)
        for piece in middle:
            position = line.find(piece, position)
            if position < 0:
                return False
            position += len(piece)
        return True

    def match(self, line: str, work: "_Work") -> dict[str, str] | None:
        """The values `line` holds, by name; None when it is not formatted from this template."""
        if self._order is not None:
            return _match_repeated(self.pieces, self._order, line, work)
        pieces, count = self.pieces, len(self.names)
        if not line.startswith(pieces[0]) or not line.endswith(pieces[-1]):
            return None
        # latest[i]: where placeholder i may start at the latest and the rest still match
        # (any earlier start matches too: the placeholder takes the characters between).
        end = len(line) - len(pieces[-1])
        latest = [0] * count
        latest[-1] = end - 1
        for index in range(count - 1, 0, -1):
            found = line.rfind(pieces[index], 0, max(latest[index], 0))
            if found < 1:  # the placeholder before it needs a character
                return None
            latest[index - 1] = found - 1
        position = len(pieces[0])
        if position > latest[0]:
            return None
        # Each placeholder ends at the first place its next piece is found: the rest matches
        # from there, as position <= latest[index] has room for it.
        values = {}
        for index, name in enumerate(self.names[:-1]):
            found = line.find(pieces[index + 1], position + 1)
            values[name] = line[position:found]
            position = found + len(pieces[index + 1])
        values[self.names[-1]] = line[position:end]
        return values


def _match_repeated(pieces: list[str], order: tuple[str, ...], line: str,
                    work: "_Work") -> dict[str, str] | None:
    """The values of a template that uses a name twice: the shortest first placeholder that
    lets the rest match, then the next, as the regular expression's search tries them."""
    values: dict[str, str] = {}

    def rest(index: int, position: int) -> bool:
        # Placeholders index.. from `position`, which follows pieces[index].
        if index == len(order):
            return position == len(line)
        name = order[index]
        if name in values:
            text = values[name] + pieces[index + 1]
            return line.startswith(text, position) and rest(index + 1, position + len(text))
        if all(later in values for later in order[index + 1:]):
            # All that follows is known text: this placeholder ends where that text begins.
            after = zip(order[index + 1:], pieces[index + 2:], strict=True)
            tail = pieces[index + 1] + "".join(values[later] + piece for later, piece in after)
            stop = len(line) - len(tail)
            if stop <= position or not line.endswith(tail):
                return False
            values[name] = line[position:stop]
            return True
        following = pieces[index + 1]
        stop = position + 1
        while stop <= len(line):
            work.check()
            stop = line.find(following, stop)
            if stop < 0:
                break
            values[name] = line[position:stop]
            if rest(index + 1, stop + len(following)):
                return True
            stop += 1
        values.pop(name, None)
        return False

    if not line.startswith(pieces[0]) or not rest(0, len(pieces[0])):
        return None
    return {name: values[name] for name in dict.fromkeys(order)}


def _templates_for(line: str) -> list[_Template]:
    """The templates whose fixed start and end `line` has, the most fixed text first."""
    return [template for template in _all_templates() if template.may_match(line)]


def _fill(target: str, values: Mapping[str, str]) -> str:
    return PLACEHOLDER.sub(lambda found: values.get(found.group(1), found.group(0)), target)


def _all_templates() -> list[_Template]:
    """The catalog's lines with placeholders, those with the most fixed text first."""
    global _templates
    if _templates is None:
        catalog = getattr(_translations, "_catalog", {})
        _templates = sorted((_Template(source, target) for source, target in catalog.items()
                             if isinstance(source, str) and "{" in source and target
                             and PLACEHOLDER.search(source)),
                            key=lambda template: -template.fixed)
    return _templates


def template_pattern(source: str) -> tuple[re.Pattern[str], tuple[str, ...], int] | None:
    """A pattern matching the lines `source` formats to, its placeholder names and the length
    of its fixed text; None when it has no placeholder."""
    parts: list[str] = []
    names: list[str] = []
    position = fixed = 0
    for found in PLACEHOLDER.finditer(source):
        literal = _literal(source[position:found.start()])
        parts.append(re.escape(literal))
        fixed += len(literal)
        name = found.group(1)
        # A name used twice must hold the same text both times.
        parts.append(f"(?P={name})" if name in names else f"(?P<{name}>.+?)")
        if name not in names:
            names.append(name)
        position = found.end()
    if not names:
        return None
    literal = _literal(source[position:])
    parts.append(re.escape(literal))
    fixed += len(literal)
    return re.compile("".join(parts), re.DOTALL), tuple(names), fixed


def _literal(text: str) -> str:
    """Fixed template text as str.format prints it ({{ and }} are braces)."""
    return text.replace("{{", "{").replace("}}", "}")


def placeholders(text: str) -> Sequence[str]:
    """The placeholder names in `text`, sorted (a translation must keep the source's)."""
    return sorted(set(PLACEHOLDER.findall(_strip_braces(text))))


def _strip_braces(text: str) -> str:
    return text.replace("{{", "").replace("}}", "")
