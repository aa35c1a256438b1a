"""The person's language (SPEC 19): which one, its catalog, and lines translated at the edge.

Two kinds of marked text:
- `_("...")` is for text only a person reads (prompts, table headers, help): translated at once.
- `t("... {name} ...", name=value)` is for a line that is also recorded or sent to the model
  (errors, notices, stop lines). It returns the English line, so records, `--json` and the model
  see the same words in either language; `shown()` translates it where it is printed, matching the
  line against the catalog's templates and translating each value that is itself a program line.

English is the source language: with `en` nothing is loaded and both are the identity.
"""

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

LANGUAGES = ("auto", "en", "zh")
DOMAIN = "planner"
LOCALE_DIR = Path(__file__).parent.parent / "locale"
# The gettext variables, in gettext's order: the first one set decides.
_ENVIRONMENT = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
# A placeholder in a template: {name} or {name:format}.
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::[^{}]*)?\}")

_LETTERS = re.compile(r"[A-Za-z]{2}")
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
    """`line` in the person's language: a catalog line, or a template's with its values."""
    if _translations is None or not line:
        return line
    translated = _translations.gettext(line)
    if translated is not line:
        return translated
    fallback = None
    for template in _templates_for(line):
        match = template.pattern().fullmatch(line)
        if match is None:
            continue
        values = {name: match.group(name) for name in template.names}
        shown_values = {name: _value(value) for name, value in values.items()}
        # A short template (`{reason}; {advice}`) can split a line at the wrong place: the
        # match whose sentence-like values are program lines themselves is the right one.
        if all(shown_values[name] != value or " " not in value
               for name, value in values.items()):
            return _fill(template.target, shown_values)
        # A template with words of its own is still this line's, though a value stays English;
        # a mere joiner (`{field}: {rule}`) is not: an untranslated line reads better whole.
        if fallback is None and template.worded:
            fallback = _fill(template.target, shown_values)
    return line if fallback is None else fallback


class _Template:
    """A catalog line with placeholders: its fixed ends (a cheap first test) and its pattern,
    compiled on first use (a run shows a few lines; the catalog holds hundreds)."""

    __slots__ = ("source", "target", "names", "pieces", "fixed", "worded", "_pattern")

    def __init__(self, source: str, target: str) -> None:
        self.source, self.target = source, target
        self.names = tuple(dict.fromkeys(PLACEHOLDER.findall(source)))
        # The fixed text between the placeholders, first piece and last included (maybe empty).
        self.pieces = [_literal(piece) for piece in PLACEHOLDER.split(source)[::2]]
        fixed = "".join(self.pieces)
        self.fixed = len(fixed)
        self.worded = bool(_LETTERS.search(fixed))
        self._pattern: re.Pattern[str] | None = None

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

    def pattern(self) -> re.Pattern[str]:
        if self._pattern is None:
            entry = template_pattern(self.source)
            assert entry is not None  # a _Template has a placeholder
            self._pattern = entry[0]
        return self._pattern


def _templates_for(line: str) -> list[_Template]:
    """The templates whose fixed start and end `line` has, the most fixed text first."""
    return [template for template in _all_templates() if template.may_match(line)]


def _value(text: str) -> str:
    # A value with a space may be a program line itself (a reason, an advice); a single word
    # is a name, an ID or a number, and is shown as it is.
    return shown(text) if " " in text else text


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
