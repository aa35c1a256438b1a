"""The person's language before any help is built, and Click's help and errors in Chinese."""

from collections.abc import Callable, Mapping
from contextlib import suppress
from pathlib import Path
from typing import Any

import typer

from planner.base.i18n import N_
from planner.cli.common import (
    HELP_OPTION_NAMES,
    HOME_ENV,
)
from planner.cli.exits import ended

# --- The person's language (README "中文界面")
# -------------------------------------------------------------


def use_language(arguments: list[str]) -> str:
    """Install the language config and environment ask for, before any help text is built."""
    import os

    from planner.base import i18n

    language = i18n.choose(_configured_language(arguments, os.environ), os.environ)
    i18n.install(language)
    return i18n.language()


def _configured_language(arguments: list[str], environ: Mapping[str, str]) -> str:
    """The config file's `language`, read ahead of the command line's own parsing.

    A config that cannot be read or is wrong gives `auto` here: the command reports it in full
    when it loads the config.
    """
    config = _argument_value(arguments, ("--config", "-c"))
    if config:
        path = Path(config)
    else:
        from planner.base.home import CONFIG_FILE, choose

        given = _argument_value(arguments, ("--home",)) or environ.get(HOME_ENV)
        path = choose(Path(given) if given else None, "option" if given else None).path \
            / CONFIG_FILE
    from planner.base import storage, strictjson

    # FileRefused, JSONRefused and UnicodeDecodeError are ValueErrors: the loader says why.
    with suppress(OSError, ValueError, AttributeError):
        # A FIFO or a device is refused without waiting, as the config loader refuses it; the
        # text is read as the loader reads it (UTF-8, the one strict reader).
        data = strictjson.loads(storage.read_regular_file(path, storage.MIB).decode("utf-8"),
                                overflow_as_infinity=True)
        value = data.get("language", "auto")  # type: ignore[attr-defined]
        return value if isinstance(value, str) else "auto"
    return "auto"


def _argument_value(arguments: list[str], names: tuple[str, ...]) -> str | None:
    """The value of the last of `names` in `arguments` (`--name VALUE` or `--name=VALUE`)."""
    found = None
    for index, argument in enumerate(arguments):
        if argument == "--":
            break
        if argument in names and index + 1 < len(arguments):
            found = arguments[index + 1]
        elif argument.startswith("--") and argument.split("=", 1)[0] in names:
            found = argument.split("=", 1)[1]
    return found


def translate_commands(command: Any) -> None:
    """Chinese help and usage errors: every command's and option's text, and the words Typer
    and its Click print around them, from the catalog."""
    from typer import _click
    from typer._click import _textwrap as textwrap_module

    from planner.base.i18n import _, lookup, shown
    from planner.cli.click_words import said

    # Untyped here: what is replaced below is not Click's and Typer's public API.
    click: Any = _click
    _textwrap: Any = textwrap_module
    core: Any = typer.core
    # Typer's own words (Options, Commands, default: ...) go through its module-level `_`.
    core._ = lookup
    write_usage = click.formatting.HelpFormatter.write_usage

    def usage_in_language(self: Any, prog: str, args: str = "", prefix: str | None = None) -> None:
        write_usage(self, prog, args, _("Usage: ") if prefix is None else prefix)

    def show_usage_error(error: Any, file: Any = None) -> None:
        # Click's usage error, its words translated: usage line, hint, then the error itself.
        lines = []
        if error.ctx is not None:
            lines.append(error.ctx.get_usage())
            lines.append(_("Try '{command} {option}' for help.").format(
                command=error.ctx.command_path, option=error.ctx.help_option_names[0]))
            lines.append("")
        lines.append(_("Error: {message}").format(message=shown(said(error.format_message()))))
        click.utils.echo("\n".join(lines), file=file, err=True)

    def heading_in_language(self: Any, heading: str) -> None:
        # A Chinese label ends in a full-width colon (参数：), an English one in ": " (README
        # "中文界面").
        colon = "：" if _columns(heading) > len(heading) else ":"
        self.write(f"{'':>{self.current_indent}}{heading}{colon}\n")

    # Replaced on the classes, not subclassed: Typer makes the formatter and raises the errors.
    click.formatting.HelpFormatter.write_usage = usage_in_language
    click.formatting.HelpFormatter.write_heading = heading_in_language
    click.exceptions.UsageError.show = show_usage_error
    # Click measures text with len(): a Chinese character takes two columns on a terminal.
    click.formatting.term_len = _columns
    _textwrap.TextWrapper = _wide_wrapper(_textwrap.TextWrapper)
    _plain_extras(click, _)
    stack = [command]
    while stack:
        current = stack.pop()
        for attribute in ("help", "short_help", "epilog"):
            text = getattr(current, attribute, None)
            if text:
                setattr(current, attribute, lookup(text))
        parameters = list(current.params)
        help_option = current.get_help_option(
            click.Context(current, help_option_names=HELP_OPTION_NAMES))
        if help_option is not None:
            parameters.append(help_option)
        context = click.Context(current, help_option_names=HELP_OPTION_NAMES)
        for parameter in parameters:
            if getattr(parameter, "help", None):
                parameter.help = lookup(parameter.help)
            if parameter.name == "install_completion":
                parameter.callback = _install_completion
            _translate_metavar(parameter, context, lookup)
        if getattr(current, "options_metavar", None):
            current.options_metavar = lookup(current.options_metavar)
        if getattr(current, "subcommand_metavar", None):
            current.subcommand_metavar = lookup(current.subcommand_metavar)
        stack.extend(getattr(current, "commands", {}).values())


def _install_completion(ctx: Any, param: Any, value: Any) -> Any:
    """Typer's --install-completion, its two lines in the person's language."""
    if not value or ctx.resilient_parsing:
        return value
    from typer._completion_shared import install

    from planner import ui
    from planner.base.i18n import t

    shell, path = install(shell=value if isinstance(value, str) else None)
    ui.info(t("{shell} completion installed in {path}", shell=shell, path=path))
    ui.info(t("Completion will take effect once you restart the terminal"))
    ended()


def _plain_extras(click: Any, _: Callable[[str], str]) -> None:
    """Typer's `[default: 30; 1<=x<=365]` said plainly: `[默认：30；1-365]`."""

    def range_in_words(kind: Any) -> str:
        closed_low = kind.min is not None and not kind.min_open
        closed_high = kind.max is not None and not kind.max_open
        if closed_low and closed_high:
            return _("{low} to {high}").format(low=kind.min, high=kind.max)
        if closed_low and kind.max is None:
            return _("at least {low}").format(low=kind.min)
        if closed_high and kind.min is None:
            return _("at most {high}").format(high=kind.max)
        described: str = kind._describe_range()
        return described

    def joined_in_language(get_help_record: Any) -> Any:
        def help_record(self: Any, ctx: Any) -> Any:
            record = get_help_record(self, ctx)
            if record is None:
                return None
            names, text = record
            # The extras Typer puts last in brackets, joined with the person's semicolon.
            head, opening, extras = text.rpartition("[")
            if extras.endswith("]") and (not head or head.endswith("  ")):
                if isinstance(self.type, click.types._NumberRangeBase):
                    extras = extras.replace(self.type._describe_range(),
                                            range_in_words(self.type))
                text = head + opening + extras.replace("; ", _("; "))
            return names, text
        return help_record

    kinds: tuple[Any, ...] = (typer.core.TyperOption, typer.core.TyperArgument)
    for kind in kinds:
        kind.get_help_record = joined_in_language(kind.get_help_record)


# Click's and Typer's own metavars, translated like the help around them (README "中文界面").
METAVARS = (N_("TEXT"), N_("INTEGER"), N_("FLOAT"), N_("<int range>"), N_("<float range>"),
            N_("<str>"),
            N_("<path>"), N_("PATH"), N_("[OPTIONS]"), N_("COMMAND [ARGS]..."))


def _translate_metavar(parameter: Any, context: Any, lookup: Callable[[str], str]) -> None:
    """An option's metavar in the person's language when it is one of Click's own words (an
    option's own metavar, such as YYYY-MM-DD or RUN, stays; its own TEXT is Click's word)."""
    if parameter.metavar == "TEXT":
        parameter.metavar = lookup("TEXT")
        return
    if parameter.metavar is not None or getattr(parameter, "is_flag", False) or \
            getattr(parameter, "param_type_name", "") == "argument":
        return
    try:
        metavar = parameter.make_metavar(context)
    except Exception:  # noqa: BLE001 - a parameter Click cannot describe keeps its own
        return
    translated = lookup(metavar)
    if translated != metavar:
        parameter.metavar = translated


def _columns(text: str) -> int:
    """How many terminal columns `text` takes (wide characters two; escape codes none)."""
    import re
    import unicodedata

    plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in plain)


# Closing punctuation never starts a line, opening punctuation never ends one (the rules
# Chinese typesetting keeps).
_NO_LINE_START = "，。、；：？！）》」』】,.;:?!)]"
_NO_LINE_END = "（《「『【“‘(["


def _units_kept(pieces: list[str]) -> list[str]:
    """Click's pieces with a number and its unit joined into one (`40 分钟` is never parted)."""
    from planner.base.typesetting import unit_after

    kept: list[str] = []
    index = 0
    while index < len(pieces):
        piece = pieces[index]
        index += 1
        following = "".join(pieces[index:index + 4])
        end = unit_after(piece + following, 0, len(piece)) - len(piece)
        while end > 0 and index < len(pieces):
            end -= len(pieces[index])
            piece += pieces[index]
            index += 1
        kept.append(piece)
    return kept


def whole_names() -> None:
    """Click wraps help text at hyphens too (`demo-` / `plans/`): in any language a name stays
    whole, a line breaks between words (README "中文界面")."""
    from typer._click import formatting as formatting_module

    formatting: Any = formatting_module
    wrap_text = formatting.wrap_text

    def names_whole(*arguments: Any, **options: Any) -> Any:
        # Only when help is written: a command that prints none loads no text wrapper.
        from typer._click import _textwrap as textwrap_module

        _textwrap: Any = textwrap_module
        if not getattr(_textwrap.TextWrapper, "names_whole", False):
            class NamesWhole(_textwrap.TextWrapper):  # type: ignore[misc]
                names_whole = True

                def __init__(self, *arguments: Any, **options: Any) -> None:
                    options["break_on_hyphens"] = False
                    super().__init__(*arguments, **options)

            _textwrap.TextWrapper = NamesWhole
        return wrap_text(*arguments, **options)

    formatting.wrap_text = names_whole


def _wide_wrapper(base: Any) -> Any:
    """Click's TextWrapper, measuring in terminal columns and breaking between Chinese
    characters; never inside a Latin word or a path's hyphen."""

    class WideTextWrapper(base):  # type: ignore[misc]  # Click's class, typed Any here
        def __init__(self, *arguments: Any, **options: Any) -> None:
            options["break_on_hyphens"] = False
            super().__init__(*arguments, **options)

        def _split(self, text: str) -> list[str]:
            pieces: list[str] = []
            for chunk in super()._split(text):
                # Each wide character may end a line; a run of narrow ones stays whole.
                run = ""
                for char in chunk:
                    if _columns(char) == 2:
                        pieces += [run, char] if run else [char]
                        run = ""
                    else:
                        run += char
                if run:
                    pieces.append(run)
            return _units_kept(pieces)

        def _wrap_chunks(self, chunks: list[str]) -> list[str]:
            lines: list[str] = []
            chunks = list(reversed(chunks))
            while chunks:
                indent = self.subsequent_indent if lines else self.initial_indent
                room = self.width - _columns(indent)
                if lines and not chunks[-1].strip():
                    chunks.pop()
                line: list[str] = []
                used = 0
                while chunks and used + _columns(chunks[-1]) <= room:
                    used += _columns(chunks[-1])
                    line.append(chunks.pop())
                if chunks and not line:
                    # One piece wider than the line: it is cut, as Click cuts a long word.
                    piece = chunks.pop()
                    while piece and used + _columns(piece[0]) <= max(room, 2):
                        used += _columns(piece[0])
                        line.append(piece[0])
                        piece = piece[1:]
                    if piece:
                        chunks.append(piece)
                else:
                    # Closing punctuation never starts a line, however many come together
                    # (`）。`): the line gives back what the punctuation holds on to.
                    kept = len(line)
                    while chunks and kept > 1 and (chunks[-1] if kept == len(line)
                                                   else line[kept])[:1] in _NO_LINE_START:
                        kept -= 1
                    while kept > 1 and line[kept - 1][-1:] in _NO_LINE_END:
                        kept -= 1
                    if chunks and kept < len(line) and "".join(line[:kept]).strip():
                        chunks.extend(reversed(line[kept:]))
                        del line[kept:]
                while line and not line[-1].strip():
                    line.pop()
                if line:
                    lines.append(indent + "".join(line))
            return lines

    return WideTextWrapper

