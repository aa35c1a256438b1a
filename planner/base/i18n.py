"""The person's language (README "中文界面"): which one, its catalog, and each line said in it.

Two kinds of marked text, each translated from the place it is written:
- `_("...")` is for text only a person reads (prompts, table headers, help): translated at once.
- `t("... {name} ...", name=value)` is for a line that is also recorded or sent to the model
  (errors, notices, stop lines). It is the English line (a `Message`, a str), so records,
  `--json` and the model see the same words in either language; it keeps its template and
  values, and `shown()` says it from them where it is printed. A value that is such a line is
  said in the person's language too; any other value (a title, a path, a server's words) is
  data and stays as it is. A run's records keep each line's template and values beside its
  words (`messages.json`), so `planner show` says them again in the language of the day.

English is the source language: with `en` nothing is loaded and every line is its own words.
"""

import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Never

LANGUAGES = ("auto", "en", "zh")
DOMAIN = "planner"
LOCALE_DIR = Path(__file__).parent.parent / "locale"
# The gettext variables, in gettext's order: the first one set decides.
_ENVIRONMENT = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
# A placeholder in a template: {name} or {name:format}.
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::[^{}]*)?\}")
# How deep a line's values are said as lines of their own: a program line holds a reason that
# holds a system's error, a few levels at most (and a records file may hold no more).
MAX_DEPTH = 8
_translations = None  # gettext.GNUTranslations when Chinese is in use
_language = "en"
_missed: list[str] = []  # the line the catalog did not hold, when asked since the last clear()
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
    global _translations, _language
    _language = language
    if language != "zh":
        _translations = None
        return
    import gettext

    class Missed(gettext.NullTranslations):
        """The catalog's fallback: a line it does not hold, said as it is and noted."""

        def gettext(self, message: str) -> str:
            _missed[:] = [message]
            return message

        def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
            _missed[:] = [msgid1]
            return msgid1 if n == 1 else msgid2

    try:
        _translations = gettext.translation(DOMAIN, LOCALE_DIR, languages=["zh"])
        # Through gettext's public API: decoded() asks whether a kept line is planner's own.
        _translations.add_fallback(Missed())
    except OSError:
        # A build without the compiled catalog: English rather than no program at all.
        _translations, _language = None, "en"


def _in_catalog(template: str, forms: tuple[str, str] | None) -> bool:
    """Whether the catalog in use holds this line (a plural line by its two forms)."""
    if _translations is None:
        return False
    _missed.clear()
    if forms is None:
        _translations.gettext(template)
    else:
        _translations.ngettext(*forms, 1)
    return not _missed


def language() -> str:
    """The language in use: `en` or `zh`."""
    return _language


def _(message: str) -> str:
    """The translation of a line only a person reads."""
    return message if _translations is None else _translations.gettext(message)




def lookup(text: str) -> str:
    """The translation of text held in a variable (help texts, collected by the tests)."""
    return text if _translations is None else _translations.gettext(text)


class Message(str):
    """A program line: its English words (the str itself), and the template and values it was
    made from, so it is said in the person's language where it is printed."""

    template: str
    values: dict[str, object]
    # A line with a singular and a plural: both English templates (`template` is the one its
    # `count` value takes), said through the catalog's ngettext.
    forms: tuple[str, str] | None

    def __new__(cls, template: str, values: Mapping[str, object] | None = None,
                forms: tuple[str, str] | None = None) -> "Message":
        line = super().__new__(cls, template.format(**values) if values else template)
        # An error given as a value is its line (a program line when it holds one).
        line.template, line.forms, line.values = template, forms, {
            name: str(value) if isinstance(value, BaseException) else value
            for name, value in (values or {}).items()}
        return line

    def __str__(self) -> str:
        # str() of the line, or of an error holding it, keeps the template (str's own would not).
        return self

    if TYPE_CHECKING:
        # `+` and `partition` give plain text without the template, which is then shown in
        # English on a Chinese screen: mypy refuses them, so a line made of lines is a template
        # of its own (t("{prefix} {field}", ...)). Only the type changes; they still run.
        def __add__(self, other: Never, /) -> Never: ...  # type: ignore[override]
        def __radd__(self, other: Never, /) -> Never: ...
        def partition(self, separator: Never, /) -> Never: ...  # type: ignore[override]
        def rpartition(self, separator: Never, /) -> Never: ...  # type: ignore[override]

    def with_values(self, change: "Callable[[str], str]") -> "Message":
        """The same line with `change` applied to each of its text values, nested lines too."""
        return Message(self.template, {
            name: value.with_values(change) if isinstance(value, Message)
            else value if value is None or isinstance(value, (int, float))
            else change(value if isinstance(value, str) else str(value))
            for name, value in self.values.items()}, self.forms)


class Lines(str):
    """Program lines joined one per line (a rejection and its sessions): each said on its own."""

    parts: tuple[str, ...]

    def __new__(cls, parts: "Sequence[str]") -> "Lines":
        joined = super().__new__(cls, "\n".join(parts))
        joined.parts = tuple(parts)
        return joined

    def __str__(self) -> str:
        return self


def t(template: str, /, **values: object) -> Message:
    """A program line from `template` and `values`: English where it is recorded, sent to the
    model or written as JSON; `shown()` says it in the person's language where it is printed."""
    return Message(template, values)


def nt(singular: str, plural: str, count: int, /, **values: object) -> Message:
    """A program line with a singular and a plural (t() otherwise): `count` picks the English
    one, and the catalog's plural rule the translation; `{count}` is among its values."""
    return Message(singular if count == 1 else plural, {"count": count, **values},
                   (singular, plural))


def n_(singular: str, plural: str, count: int) -> str:
    """The translation of a line only a person reads, by `count` (format it with its values)."""
    if _translations is None:
        return singular if count == 1 else plural
    return _translations.ngettext(singular, plural, count)


def N_(message: str) -> Message:
    """Mark a line for the catalog where it is defined: a program line of its own, said in the
    person's language by `shown()` (or `lookup()`) where it is used."""
    return Message(message)


def shown(line: str) -> str:
    """`line` in the person's language: a program line (t(), N_()) from its template, a value
    that is a line of its own translated too; any other text is data, shown as it is."""
    if isinstance(line, Lines):
        return "\n".join(shown(part) for part in line.parts)
    if _translations is None or not line:
        return line
    if not isinstance(line, Message):
        line = _recorded.get(line, line)
    translated = _said(line, MAX_DEPTH) if isinstance(line, Message) else line
    # A value that ends in full-width punctuation (`plans/x.json（第 1 次）`) leaves the
    # template's space before the next Chinese word: no space follows `）` in Chinese.
    return _space_after_punctuation().sub("", translated)


def _said(line: Message, depth: int) -> str:
    """A program line said in the person's language; the English line when the catalog's
    translation does not fit its values (a broken catalog never stops a line being shown)."""
    assert _translations is not None
    count = line.values.get("count")
    if line.forms is not None and isinstance(count, int):
        target = _translations.ngettext(*line.forms, count)
    else:
        target = _translations.gettext(line.template)
    values = {name: _said(value, depth - 1) if isinstance(value, Message) and depth > 0
              else value for name, value in line.values.items()}
    if not values:
        return target
    try:
        return target.format(**values)
    except (KeyError, IndexError, ValueError, AttributeError, TypeError):
        return str.__str__(line)


@cache
def _space_after_punctuation() -> re.Pattern[str]:
    # Compiled on first use, not at every start-up: English screens never need it.
    return re.compile(r"(?<=[，。、；：！？）」』】》]) +(?=[\u4e00-\u9fff])")


# --- Lines kept in the records -------------------------------------------------------------------

# A run's recorded lines, each by its English words, while `planner show` prints them.
_recorded: dict[str, Message] = {}


def encoded(line: Message) -> dict[str, object]:
    """The JSON value that keeps a program line's template and values, and its singular and
    plural when it has them (README "Records")."""
    data: dict[str, object] = {
        "template": line.template,
        "values": {name: encoded(value) if isinstance(value, Message)
                   else value if value is None or isinstance(value, (str, int, float))
                   else str(value) for name, value in line.values.items()}}
    if line.forms is not None:
        data["forms"] = list(line.forms)
    return data


def decoded(data: object, depth: int = MAX_DEPTH) -> Message | None:
    """The program line a records file kept, or None: its template must be planner's own (a
    catalog line), its values text, numbers or such lines, and its words must come out again."""
    if not isinstance(data, dict) or set(data) - {"forms"} != {"template", "values"} \
            or depth < 0:
        return None
    template, values, forms = data["template"], data["values"], data.get("forms")
    if forms is not None:
        # Both English forms, the template one of them, and the catalog's own plural entry.
        if not (isinstance(forms, list) and len(forms) == 2 and template in forms
                and all(isinstance(form, str) for form in forms)):
            return None
        forms = (forms[0], forms[1])
    if not isinstance(template, str) or not isinstance(values, dict) \
            or not _in_catalog(template, forms):
        return None
    kept: dict[str, object] = {}
    for name, value in values.items():
        if isinstance(value, dict):
            value = decoded(value, depth - 1)
            if value is None:
                return None
        elif not (value is None or isinstance(value, (str, int, float))):
            return None
        kept[name] = value
    try:
        return Message(template, kept, forms)
    except (KeyError, IndexError, ValueError, AttributeError, TypeError):
        return None


def kept_words(line: str) -> str | None:
    """A program line's template and values as JSON text, to keep beside its words (None for
    other text)."""
    import json

    return json.dumps(encoded(line), ensure_ascii=False) if isinstance(line, Message) else None


def restored(text: str, kept: object) -> str:
    """`text` as the program line kept beside it (kept_words(), decoded), when that says the
    same words; else `text` itself (English screens need no more)."""
    if kept is None or _translations is None:
        return text
    line = decoded(kept)
    return line if line is not None and line == text else text


@contextmanager
def recorded(lines: Mapping[str, object]) -> Iterator[None]:
    """While in effect, one run's recorded English lines are said from the templates its
    messages.json keeps (each checked by decoded() and against its words)."""
    _recorded.update({text: line for text, data in lines.items()
                      if isinstance(text, str) and (line := decoded(data)) is not None
                      and line == text})
    try:
        yield
    finally:
        _recorded.clear()
