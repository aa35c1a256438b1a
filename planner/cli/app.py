"""The command line: options, modes and exit codes; wires config, flow and terminal."""

import gc
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NamedTuple, NoReturn

import typer

from planner import __version__, ui
from planner.base.i18n import t
from planner.records import status

# Only what --help needs is imported here; each mode imports its own modules when it runs.
if TYPE_CHECKING:
    from planner.base.config import Config
    from planner.conversation.events import Outcome
    from planner.model.costs import Tally

EXIT_USAGE = status.EXIT_USAGE
EXIT_INTERRUPTED = status.EXIT_INTERRUPTED

HOME_ENV = "PLANNER_HOME"  # planner.base.home.HOME_ENV (not imported here: --help stays light)
HELP_OPTION_NAMES = ["-h", "--help"]
# \b keeps the block as written (Click rewraps other paragraphs to the terminal's width).
HELP = """A model proposes a review plan, planner checks it, you confirm it, then it is saved.

\b
Examples:
  planner --demo               try it offline (the model is simulated)
  planner -r "review N1 and N2 tomorrow for 20 minutes"
  planner -n -r "review N3"    print the request it would send; send nothing
  planner runs                 your runs, newest first
  planner show last            the newest run, step by step (-2: one before)
  planner costs                tokens and cost per run, and in total

\b
One folder holds everything: config.json, notes/, plans/, demo-plans/ and
tool-records/. It is --home DIR, else PLANNER_HOME, else the current folder
when it holds one of those, else your data folder; planner where tells which.
"""

app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain `planner` shows the help with exit 0 (main_command): Click's no_args_is_help
    # would exit 2, the code of a usage error.
    no_args_is_help=False,
    # -h as well as --help, like most command-line tools; subcommands inherit it.
    context_settings={"help_option_names": HELP_OPTION_NAMES},
    # Plain help: Rich help formatting loads a Markdown parser and costs ~60 ms per command.
    rich_markup_mode=None,
    help=HELP,
)

# Each option is declared once and means the same before a command and after it; the one
# given after a command wins (`planner runs --home DIR`).
HomeOption = Annotated[
    Path | None,
    typer.Option("--home", envvar=HOME_ENV, show_envvar=True,
                 help="The folder for everything: config.json, notes/, plans/, demo-plans/, "
                 "tool-records/ (default: the current folder when it holds one of them, else "
                 "your data folder; planner where tells which)."),
]
ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", "-c", help="Settings file (default: config.json in the home "
                 "folder if present, else built-in defaults)."),
]


class Workspace(NamedTuple):
    """The home folder and the config file of one command, resolved once for it."""

    home: Path
    config_path: Path | None
    # Which rule chose the home (planner.base.home.Home.rule): "option", "env", "current", "user".
    rule: str = "current"

    def config(self) -> "Config":
        """The settings: --config, else the home's config.json, else the defaults."""
        return _config(self.config_path, self.home)

    def writable(self) -> Path:
        """The home, created first (0700) when it is the per-user data folder not made yet."""
        from planner.base.home import Home, ensure

        try:
            ensure(Home(self.home, self.rule))
        except OSError as error:
            _failed(t("could not create the home folder {home} ({reason}); nothing was written "
                      "(use --home DIR to choose another folder)", home=self.home,
                      reason=error.strerror or error))
        return self.home


def _workspace(ctx: typer.Context, home: Path | None, config_path: Path | None) -> Workspace:
    """This command's workspace: its own --home/--config, else those given before it, else
    the home that planner.base.home chooses (the current folder or the per-user data folder)."""
    outer = ctx.find_root().obj
    # PLANNER_HOME is read again by each command: it must not undo a --home given before it.
    from_env = getattr(ctx.get_parameter_source("home"), "name", "") == "ENVIRONMENT"
    if home is not None and not (from_env and isinstance(outer, Workspace)):
        home, rule = _checked_home(ctx, home)
    elif isinstance(outer, Workspace):
        home, rule = outer.home, outer.rule
    else:
        from planner.base.home import choose

        home, rule = choose(None, None)[:2]
    if config_path is None and isinstance(outer, Workspace):
        config_path = outer.config_path
    return Workspace(home, config_path, rule)


def _version(value: bool) -> None:
    if value:
        ui.info(f"planner {__version__}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def main_command(
    ctx: typer.Context,
    request: Annotated[
        str | None,
        typer.Option("--request", "-r", metavar="TEXT",
                     help="Ask the live model to plan this request."),
    ] = None,
    demo: Annotated[
        bool, typer.Option("--demo", help="Offline run with scripted (simulated) model replies.")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", "-n", help="Print the first request live mode would "
                           "send; send nothing, write nothing.")
    ] = False,
    continue_run: Annotated[
        str | None,
        typer.Option("--continue", "-C", metavar="[RUN]", show_default=False,
                     help="Go on with an earlier run's conversation, -r TEXT being your next "
                     "message: the newest run, or last, -N, a run ID or a unique start of one."),
    ] = None,
    config_path: ConfigOption = None,
    home: HomeOption = None,
    version: Annotated[
        bool | None,
        typer.Option("--version", "-V", callback=_version, is_eager=True,
                     help="Show the version."),
    ] = None,
) -> None:
    """Plan a review: --demo (offline), --dry-run (show the request) or --request TEXT (live)."""
    if ctx.invoked_subcommand is None and _nothing_given(ctx):
        # Plain `planner`: the help, like gh and git, and exit 0: nothing went wrong.
        typer.echo(ctx.get_help())
        raise typer.Exit()
    workspace = ctx.obj = _workspace(ctx, home, config_path)
    home = workspace.home
    if ctx.invoked_subcommand is not None:
        if request is not None or demo or dry_run or continue_run is not None:
            _usage(t("--request, --demo, --dry-run and --continue cannot be combined with a "
                     "subcommand"))
        return
    if continue_run is not None and demo:
        _usage(t("--continue cannot be used with --demo: the demo's scripted replies cannot "
                 "go on with a conversation; use --continue with -r TEXT (live) or add "
                 "--dry-run"))
    if continue_run is not None and request is None:
        _usage(t("--continue needs your next message: planner --continue [RUN] -r TEXT"))
    if demo and request is not None:
        _usage(t("--demo uses fixed scripted replies that would not be about your text; "
                 "use --request TEXT (live) or --dry-run --request TEXT"))
    if demo and dry_run:
        _usage(t("choose one of --demo and --dry-run"))
    if not (demo or dry_run or request is not None):
        _usage(t("choose a mode: --demo, --dry-run (-n) or --request TEXT (-r); "
                 "planner -h shows them all"))
    if request is not None and not request.strip():
        _usage(t("--request needs some text"))
    config = workspace.config()
    # Read before anything is asked or sent: an earlier run that cannot go on is exit 2.
    earlier = None if continue_run is None else _earlier(home, continue_run)
    try:
        if dry_run:
            from planner.conversation.protocol import DEFAULT_REQUEST

            _dry_run(config, _notes(home, config), request or DEFAULT_REQUEST, home, earlier)
            return
        if demo or request is None:
            outcome = _demo(config, workspace.writable())
        else:
            outcome = _live(config, _notes(home, config), workspace, request, earlier)
    except KeyboardInterrupt:
        # The flow handles Ctrl+C itself; this is Ctrl+C before a run started (the key prompt).
        ui.error(t("interrupted (Ctrl+C); nothing was saved"))
        raise typer.Exit(EXIT_INTERRUPTED) from None
    try:
        _finish(outcome, None if demo else config)
    except KeyboardInterrupt:
        # The run has ended and its records say how; only the last lines were cut short.
        ui.error(t("interrupted (Ctrl+C) after the run ended; planner show last tells how it "
                   "went"))
        raise typer.Exit(EXIT_INTERRUPTED) from None


def _nothing_given(ctx: typer.Context) -> bool:
    """No option on the command line (PLANNER_HOME alone does not count)."""
    return all(getattr(ctx.get_parameter_source(name), "name", "DEFAULT") != "COMMANDLINE"
               for name in ctx.params)


def _checked_home(ctx: typer.Context, home: Path) -> tuple[Path, str]:
    """The home folder given by --home or PLANNER_HOME, and which of them gave it; it must
    exist: it is never created."""
    source = getattr(ctx.get_parameter_source("home"), "name", "DEFAULT")
    if source == "ENVIRONMENT":
        return _existing_home(home, f"{HOME_ENV}={home}"), "env"
    return _existing_home(home, f"--home {home}"), "option"


def _existing_home(home: Path, given: str) -> Path:
    # Checked up front: otherwise the first write fails and the message blames free space.
    if home.is_dir():
        return home
    if home.exists():
        _usage(t("{given}: is not a folder; planner uses an existing folder and never creates "
                 "it (mkdir it first, or check the spelling)", given=given))
    _usage(t("{given}: no such folder; planner uses an existing folder and never creates it "
             "(mkdir it first, or check the spelling)", given=given))


def _memory(home: Path, notes, config: "Config"):
    """The review memory of a live run and its dry run (SPEC 16); its warnings on stderr."""
    from planner.memory.review_memory import ReviewMemory

    memory = ReviewMemory(home, notes, config.desired_retention)
    _log_warnings(memory.warnings())
    return memory


def _earlier(home: Path, wanted: str) -> tuple[str, list[dict]]:
    """The run --continue names and its conversation; exit 2 when it cannot go on."""
    from planner.conversation.continuing import CannotContinue, earlier_conversation

    run_id = _pick_run(home, wanted)
    try:
        return run_id, earlier_conversation(home, run_id)
    except CannotContinue as error:
        _usage(str(error))


def _continue_default(args: list[str]) -> list[str]:
    """The command line with `last` after a --continue (-C) given without a RUN."""
    given: list[str] = []
    value_next = False
    for index, arg in enumerate(args):
        if arg == "--" and not value_next:
            return given + args[index:]
        if value_next:
            value_next = False
        elif arg in ("-C", "--continue"):
            following = args[index + 1] if index + 1 < len(args) else "-"
            back = following.startswith("-") and following[1:].isdigit()
            if following.startswith("-") and not back:
                given += [arg, "last"]
                continue
            value_next = True
        elif arg in ("-r", "--request", "-c", "--config", "--home"):
            value_next = True
        elif not arg.startswith("-"):
            return given + args[index:]  # a subcommand: the rest is its own
        given.append(arg)
    return given


def _dry_run(config: "Config", notes, request: str, home: Path = Path("."),
             continues: tuple[str, list[dict]] | None = None) -> None:
    """Build the first request with the live path's own function; send nothing."""
    import datetime as _dt

    from planner.conversation.protocol import (
        build_request,
        continued_messages,
        first_messages,
        registry_for,
    )

    today = _dt.date.today()
    memory = _memory(home, notes, config)
    messages = (first_messages(request, notes, today, memory) if continues is None
                else continued_messages(request, continues[1], notes, today, memory))
    body = build_request(config, messages, registry_for(notes, today, memory), "auto")
    from planner.conversation.protocol import endpoint
    from planner.model.keys import key_source

    where = {"url": config.base_url, "endpoint": endpoint(config)}
    # A notes folder is indexed to count its notes: that cache is the one thing written.
    indexed = notes.source == "folder"
    if continues is None and indexed:
        line = t("Dry run: the first request live mode would send to {url} (POST {endpoint}). "
                 "Nothing was sent; no key was read; nothing was written but the notes index "
                 "(.planner/).", **where)
    elif continues is None:
        line = t("Dry run: the first request live mode would send to {url} (POST {endpoint}). "
                 "Nothing was sent; no key was read; nothing was written.", **where)
    elif indexed:
        line = t("Dry run: the first request continuing run {run_id} live mode would send to "
                 "{url} (POST {endpoint}). Nothing was sent; no key was read; nothing was "
                 "written but the notes index (.planner/).", run_id=continues[0], **where)
    else:
        line = t("Dry run: the first request continuing run {run_id} live mode would send to "
                 "{url} (POST {endpoint}). Nothing was sent; no key was read; nothing was "
                 "written.", run_id=continues[0], **where)
    ui.notice(line)
    # Which source a live run would take its key from; the secret itself is never read.
    ui.notice(t("Key for a live run: {source}.",
                source=key_source(config, terminal=ui.has_terminal()).detail))
    ui.print_json(body)


def _demo(config: "Config", home: Path) -> "Outcome":
    import datetime as _dt

    from planner.conversation.demo import demo_client, demo_request
    from planner.notes.catalog import SAMPLE_NOTES

    today = _dt.date.today()
    ui.notice(t("Demo: the model replies are simulated (scripted, offline) and use the "
                "built-in sample notes; the checks, the SAVE prompt and the writes are real."))
    return _run(demo_request(today), demo_client(today), config, SAMPLE_NOTES, home, "demo")


def _live(config: "Config", notes, workspace: Workspace, request: str,
          continues: tuple[str, list[dict]] | None = None) -> "Outcome":
    from planner.base.config import MissingKey
    from planner.model.client import LiveClient
    from planner.model.keys import find_key

    ask = ui.ask_hidden if ui.has_terminal() else None
    try:
        key = find_key(config, ask)
    except MissingKey as error:
        _usage(str(error))
    # Created only now: a run refused before this point leaves no folder behind.
    home = workspace.writable()
    return _run(request, LiveClient(config, key), config, notes, home, "live",
                _memory(home, notes, config), continues)


def _run(request: str, client, config: "Config", notes, home: Path, mode: str,
         memory=None, continues: tuple[str, list[dict]] | None = None) -> "Outcome":
    from planner.conversation.flow import run_flow
    from planner.ui.conversation import TerminalPerson

    return run_flow(request, client=client, person=TerminalPerson(str(home)), home=home,
                    config=config, notes=notes, mode=mode, memory=memory, continues=continues)


def _finish(outcome: "Outcome", config: "Config | None" = None) -> None:
    """Render how the run ended (the events were shown as they came) and exit with its code.

    `config` is given for a live run: its prices turn the run's own tally into the cost line.
    """
    if outcome.error:
        ui.error(outcome.error)
    if outcome.folder is not None:
        if config is not None and not outcome.simulated and outcome.tally is not None:
            _run_cost(outcome.tally, config)
        # The folder's name is the run ID: said once, the line fits 80 columns.
        ui.notice(t("Records: {folder}", folder=outcome.folder))
    if outcome.exit_code:
        raise typer.Exit(outcome.exit_code)


def _run_cost(tally: "Tally", config: "Config") -> None:
    """One line: the run's calls, tokens and cost, from its own tally, as `costs` counts."""
    if tally.calls:
        # Prices belong to the model they name: another model's run has no known cost.
        prices = config.prices
        cost = tally.cost(prices) if prices.applies_to(config.model) else None
        from planner.ui.conversation import run_cost

        run_cost(tally.calls, tally.unknown_calls, tally.tokens, cost, prices.currency,
                 config.model)


def _config(path: Path | None, home: Path = Path(".")) -> "Config":
    """The settings: `path`, else the home folder's config.json if there is one, else defaults."""
    from planner.base.config import DEFAULT_CONFIG_FILE, Config, ConfigError, load_config

    if path is None:
        candidate = home / DEFAULT_CONFIG_FILE
        # A link is handed on even when broken, so a dangling config.json is named, not skipped.
        if not (candidate.is_symlink() or candidate.exists()):
            return Config(file=str(candidate))
        path = candidate
    try:
        # Messages that say what to change name this file, the one really in use.
        return load_config(path)._replace(file=str(path))
    except ConfigError as error:
        _usage(str(error))


def _notes(home: Path, config: "Config"):
    """The run's notes catalog (notes folder, notes.json or the samples); warnings on stderr."""
    from planner.notes.catalog import NotesError, load_catalog

    try:
        catalog = load_catalog(home, config.notes_dir, config.file, ui.indexing_progress())
    except NotesError as error:
        _usage(str(error))
    for warning in catalog.warnings:
        ui.notice(warning)
    return catalog


def _usage(message: str) -> NoReturn:
    ui.error(message)
    raise typer.Exit(EXIT_USAGE)


def main() -> None:
    """Console-script entry: output that cannot be written ends in one line on stderr.

    SPEC 14. stdout closed at start (`>&-`): refused before anything runs, exit 1. stdout
    failing later (a broken pipe, a full disk, /dev/full): the rest of the output is dropped,
    the command or run goes on to its end (so no run is left `running`), then one line says
    so, with exit 1 unless the command already ended with its own failure code (1, 2, 130),
    which is kept. A broken pipe (`planner runs | head -1`) is treated the same: Python
    ignores SIGPIPE, so the write fails; a quiet exit 141 would let a cut-off table or JSON
    pass for a whole one. An encoding without CJK (PYTHONIOENCODING=ascii) is no failure:
    what it cannot encode is written as a backslash escape.
    """
    import os
    import sys

    if sys.stdout is None:
        # Python found descriptor 1 closed. Nothing could be shown, and the first file opened
        # would get descriptor 1: refuse before anything is read, run or written.
        ui.error(t("standard output is closed; nothing was run (give planner somewhere to "
                   "write, for example > /dev/null)"))
        raise SystemExit(status.EXIT_FAILED)
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")

    class Output:
        """stdout that never raises: the first write error is kept, later output dropped."""

        def __init__(self, stream) -> None:
            self.stream = stream
            self.failure: OSError | None = None

        def write(self, text: str) -> int:
            if self.failure is None:
                try:
                    return self.stream.write(text)
                except OSError as error:
                    self.lost(error)
            return len(text)

        def flush(self) -> None:
            if self.failure is None:
                try:
                    self.stream.flush()
                except OSError as error:
                    self.lost(error)

        def lost(self, error: OSError) -> None:
            self.failure = error
            # Descriptor 1 becomes /dev/null: what is still buffered, and the interpreter's
            # own flush at exit, go nowhere instead of failing a second time.
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, self.stream.fileno())
                os.close(devnull)
            except (OSError, ValueError):
                pass

        def __getattr__(self, name: str):
            # isatty, fileno, encoding, buffer, ...: Rich and the JSON writers see the stream.
            return getattr(self.stream, name)

    output = Output(sys.stdout)
    sys.stdout = output
    ending = SystemExit(status.EXIT_OK)
    try:
        arguments = _continue_default(sys.argv[1:])
        command = typer.main.get_command(app)
        if _use_language(arguments) == "zh":
            _translate_commands(command)
        command(args=arguments, prog_name="planner")
    except SystemExit as done:
        ending = done
    finally:
        # Every file is written and closed by now. Freezing the heap spares the interpreter's
        # final collection a sweep over every object of every imported module: ~80 ms at exit
        # once the SDK is loaded, a real wait for the person at the prompt.
        gc.freeze()
    output.flush()
    if output.failure is not None:
        error = output.failure
        reason = (t("its reader stopped reading (broken pipe)")
                  if isinstance(error, BrokenPipeError) else f"{error.strerror or error}")
        try:
            ui.error(t("could not write the output to stdout: {reason}; what was written is "
                       "incomplete", reason=reason))
        except OSError:
            pass
        if ending.code in (None, status.EXIT_OK):
            ending = SystemExit(status.EXIT_FAILED)
    raise ending


# --- The person's language (SPEC 19) -------------------------------------------------------------


def _use_language(arguments: list[str]) -> str:
    """Install the language config and environment ask for, before any help text is built."""
    import os

    from planner.base import i18n

    language = i18n.choose(_configured_language(arguments, os.environ), os.environ)
    i18n.install(language)
    return i18n.language()


def _configured_language(arguments: list[str], environ) -> str:
    """The config file's `language`, read ahead of the command line's own parsing.

    A config that cannot be read or is wrong gives `auto` here: the command reports it in full
    when it loads the config.
    """
    from planner.base.config import DEFAULT_CONFIG_FILE

    config = _argument_value(arguments, ("--config", "-c"))
    if config:
        path = Path(config)
    else:
        from planner.base.home import choose

        given = _argument_value(arguments, ("--home",)) or environ.get(HOME_ENV)
        path = choose(Path(given) if given else None, "option" if given else None).path \
            / DEFAULT_CONFIG_FILE
    from planner.base import storage, strictjson

    try:
        # A FIFO or a device is refused without waiting, as the config loader refuses it; the
        # text is read as the loader reads it (UTF-8, the one strict reader).
        data = strictjson.loads(storage.read_regular_file(path, storage.MIB).decode("utf-8"),
                                overflow_as_infinity=True)
        value = data.get("language", "auto")  # type: ignore[attr-defined]
    except (OSError, ValueError, AttributeError):
        # FileRefused, JSONRefused and UnicodeDecodeError are ValueErrors: the loader says why.
        return "auto"
    return value if isinstance(value, str) else "auto"


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


def _translate_commands(command) -> None:
    """Chinese help and usage errors: every command's and option's text, and the words Typer
    and its Click print around them, from the catalog."""
    from typer import _click as click
    from typer._click import _textwrap

    from planner.base.i18n import _, lookup, shown

    # Typer's own words (Options, Commands, default: ...) go through its module-level `_`.
    typer.core._ = lookup  # type: ignore[assignment]
    write_usage = click.formatting.HelpFormatter.write_usage

    def usage_in_language(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        write_usage(self, prog, args, _("Usage: ") if prefix is None else prefix)

    def show_usage_error(error, file=None) -> None:
        # Click's usage error, its words translated: usage line, hint, then the error itself.
        lines = []
        if error.ctx is not None:
            lines.append(error.ctx.get_usage())
            lines.append(_("Try '{command} {option}' for help.").format(
                command=error.ctx.command_path, option=error.ctx.help_option_names[0]))
            lines.append("")
        lines.append(_("Error: {message}").format(message=shown(error.format_message())))
        click.utils.echo("\n".join(lines), file=file, err=True)

    # Replaced on the classes, not subclassed: Typer makes the formatter and raises the errors.
    click.formatting.HelpFormatter.write_usage = usage_in_language  # type: ignore[method-assign]
    click.exceptions.UsageError.show = show_usage_error  # type: ignore[method-assign,assignment]
    # Click measures text with len(): a Chinese character takes two columns on a terminal.
    click.formatting.term_len = _columns  # type: ignore[assignment]
    _textwrap.TextWrapper = _wide_wrapper(_textwrap.TextWrapper)  # type: ignore[misc,assignment]
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
        for parameter in parameters:
            if getattr(parameter, "help", None):
                parameter.help = lookup(parameter.help)
        stack.extend(getattr(current, "commands", {}).values())


def _columns(text: str) -> int:
    """How many terminal columns `text` takes (wide characters two; escape codes none)."""
    import re
    import unicodedata

    plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in plain)


# Closing punctuation never starts a line (the rule Chinese typesetting keeps).
_NO_LINE_START = "，。、；：？！）》」』】,.;:?!)"


def _wide_wrapper(base):
    """Click's TextWrapper, measuring in terminal columns and breaking between Chinese
    characters; never inside a Latin word or a path's hyphen."""

    class WideTextWrapper(base):
        def __init__(self, *arguments, **options) -> None:
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
            return pieces

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
                elif chunks and chunks[-1][:1] in _NO_LINE_START and len(line) > 1:
                    chunks.append(line.pop())
                while line and not line[-1].strip():
                    line.pop()
                if line:
                    lines.append(indent + "".join(line))
            return lines

    return WideTextWrapper


# --- Reading the records back: planner runs / show / costs ---------------------------------------
# planner.records.history is imported inside each command, so --help, --dry-run and --demo never load it.

JsonFlag = Annotated[
    bool, typer.Option("--json", help="Print stable machine-readable JSON on stdout.")
]
LimitOption = Annotated[
    int | None,
    typer.Option("--limit", "-L", min=0, help="List only the newest N runs (default: 50 in "
                 "tables, all with --json; 0: all). Totals always cover every run."),
]
TABLE_LIMIT = 50  # a terminal table of 10,000 rows is slow to draw (Rich) and no use to read


def _records_label(home: Path) -> str:
    """Where the runs are, as the person named it: tool-records/ or HOME/tool-records/."""
    from planner.records.run_record import RECORDS_DIR

    return f"{RECORDS_DIR}/" if home == Path(".") else f"{home}/{RECORDS_DIR}/"


def _history_failed(error: Exception) -> NoReturn:
    ui.error(t("{error}; check the folder's permissions", error=error))
    raise typer.Exit(status.EXIT_FAILED)


def _limit(limit: int | None, as_json: bool) -> int | None:
    """How many runs to list: None means all."""
    if limit is None:
        return None if as_json else TABLE_LIMIT
    return limit or None


@app.command("runs", short_help="List your runs, newest first.")
def runs_command(
    ctx: typer.Context,
    as_json: JsonFlag = False,
    limit: LimitOption = None,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """List the runs in tool-records/, newest first (damaged ones included).

    Example: planner runs -L 10
    """
    from planner.records import history

    workspace = _workspace(ctx, home, config_path)
    folder, prices = workspace.home, workspace.config().prices
    try:
        rows, total = history.list_runs(folder, _limit(limit, as_json))
    except history.HistoryError as error:
        _history_failed(error)
    if as_json:
        ui.print_json_lines([row.to_json(prices) for row in rows])
    else:
        ui.runs_table(rows, prices, total, _records_label(folder))


@app.command("show", short_help="One run step by step (default: the newest).",
             # `show -1`: -1 is a run (the newest), not an option; see _pick_run.
             context_settings={"ignore_unknown_options": True})
def show_command(
    ctx: typer.Context,
    run_id: Annotated[
        str,
        typer.Argument(metavar="[RUN]", show_default=False,
                       help="last or -1 (the newest run, the default), -2 (the one before), "
                       "..., or a run ID or a unique start of one."),
    ] = "last",
    as_json: JsonFlag = False,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """Show one run step by step: request, proposal, decision, write, explanation, calls.

    Example: planner show -2
    """
    from planner.records import history

    workspace = _workspace(ctx, home, config_path)
    folder, prices = workspace.home, workspace.config().prices
    found = _pick_run(folder, run_id)
    detail = history.run_detail(folder, found, prices)
    if as_json:
        ui.print_json(detail.to_json())
    else:
        ui.run_detail(detail)


def _pick_run(folder: Path, wanted: str) -> str:
    """The run ID that `last`, -N, an ID or a unique start of one names; else exit 2."""
    from planner.records import history

    back = wanted[1:] if wanted.startswith("-") else None
    if back is not None and not (back.isascii() and back.isdigit()):
        # ignore_unknown_options lets any dash word through; only -N is a run.
        _usage(t("no such option: {option} (planner show -h lists the options)",
                 option=wanted))
    try:
        if wanted == "last" or back is not None:
            number = 1 if back is None else int(back)
            names = history.run_ids(folder)
            if number == 0:
                _usage(t("-0 names no run: -1 is the newest, -2 the one before"))
            if not names:
                _usage(t("no runs in {folder} yet; planner --demo makes one",
                         folder=_records_label(folder)))
            if number > len(names):
                _usage(t("there are only {count} run(s) in {folder}; -{count} is the oldest",
                         count=len(names), folder=_records_label(folder)))
            return names[number - 1]
        return history.find_run(folder, wanted)
    except history.RunNotFound as error:
        _usage(str(error))
    except history.HistoryError as error:
        _history_failed(error)


@app.command("costs", short_help="Tokens and cost per run, and in total.")
def costs_command(
    ctx: typer.Context,
    as_json: JsonFlag = False,
    limit: LimitOption = None,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """Token usage and cost per run and in total (known part; simulated runs left out).

    Example: planner costs --json
    """
    from planner.records import history

    workspace = _workspace(ctx, home, config_path)
    folder, prices = workspace.home, workspace.config().prices
    try:
        report = history.cost_report(folder)
    except history.HistoryError as error:
        _history_failed(error)
    shown = _limit(limit, as_json)
    damaged = report.damaged
    if as_json:
        # --limit shortens the `runs` list only; `total` always covers every priced run.
        ui.print_json_lines(report.to_json(prices, shown))
        if damaged:
            # The JSON object's shape is fixed, so the damaged count goes to stderr.
            ui.notice(t("{count} damaged run(s) left out (see planner runs)", count=damaged))
    else:
        # Every run, newest first: a narrow table names a run by its -N for `planner show`.
        try:
            order = history.run_ids(folder)
        except history.HistoryError:
            order = []
        ui.costs_table(report, prices, shown, _records_label(folder), order)


# --- Saved plans: planner plans / export ---------------------------------------------------------
# planner.plans.files is imported inside each command, and planner.calendar.ics (with icalendar, ~50 ms) only by
# export, so --help, --dry-run and --demo never load them.

DemoPlansFlag = Annotated[
    bool, typer.Option("--demo", help="The demo's plans in demo-plans/ instead of plans/.")
]
# export's calendar targets (SPEC 17); the code behind them is in the Calendars section below.
FeedOption = Annotated[
    Path | None,
    typer.Option("--feed", metavar="FILE", help="Keep this calendar file up to date: created "
                 "the first time, then replaced whole (a file planner did not write is "
                 "refused). For a calendar that subscribes to a file."),
]
VdirOption = Annotated[
    Path | None,
    typer.Option("--vdir", metavar="DIR", help="Keep a folder of one .ics file per event "
                 "(vdir) for khal or vdirsyncer; only changed events are rewritten, other "
                 "files are never touched."),
]


def _demo_plans_hint(folder: Path, exporting: bool) -> None:
    """With no plans in plans/, say so when the demo's plans are in demo-plans/ (SPEC 21)."""
    from planner.plans import files as plans

    try:
        if plans.plan_names(plans.plans_dir(folder, False)):
            return
        count = len(plans.plan_names(plans.plans_dir(folder, True)))
    except plans.PlansError:
        return  # the hint is a courtesy: an unreadable folder is not this command's failure
    if count and exporting:
        ui.notice(t("plans/ has no plans, but demo-plans/ has {count} from planner --demo: "
                    "add --demo to export them.", count=count))
    elif count:
        ui.notice(t("plans/ has no plans, but demo-plans/ has {count} from planner --demo: "
                    "planner plans --demo lists them.", count=count))


def _failed(error: object) -> NoReturn:
    """A command that failed: its one line, exit 1."""
    ui.error(str(error))
    raise typer.Exit(status.EXIT_FAILED)


@app.command("plans", short_help="List saved plans, upcoming first.")
def plans_command(
    ctx: typer.Context,
    show_all: Annotated[
        bool, typer.Option("--all", "-a",
                           help="Past and dropped plans too, after the upcoming ones.")
    ] = False,
    as_json: JsonFlag = False,
    demo: DemoPlansFlag = False,
    home: HomeOption = None,
) -> None:
    """List saved plans: upcoming first (today, then later); files with a problem are named.

    A series lists each session; plans reviewed (planner done) are marked done, and dropped
    ones (planner drop) are left out unless --all shows them.

    Example: planner plans --all
    """
    import datetime as _dt

    from planner.memory import reviewing
    from planner.memory.log import ReviewLogError
    from planner.plans import files as plans

    folder = _workspace(ctx, home, None).home
    today = _dt.date.today()
    try:
        marks, warnings = reviewing.read_marks(folder)
        _log_warnings(warnings)
    except ReviewLogError as error:
        ui.notice(t("Warning: {error}; no plan is marked done or dropped", error=error))
        marks = plans.NO_MARKS
    try:
        rows = plans.list_plans(folder, demo, True, today, marks)
    except plans.PlansError as error:
        _failed(error)
    no_plans = not rows and not demo  # list_plans read every file: none is a plan
    hidden = dropped = 0
    if not show_all:
        # Every file is read either way (the date is inside); past and dropped plans are only
        # counted.
        now = today.isoformat()
        good = [row for row in rows if row["problem"] is None]
        hidden = sum(1 for row in good if row["date"] < now)
        dropped = len({row["run_id"] for row in good if row["date"] >= now and row["dropped"]})
        rows = [row for row in rows if row["problem"] is not None
                or (row["date"] >= now and not row["dropped"])]
    if as_json:
        ui.print_json_lines(rows)
    else:
        ui.plans_table(rows, plans.PLANS_DIR["demo" if demo else "live"], today, hidden,
                       dropped)
    if no_plans:
        _demo_plans_hint(folder, exporting=False)


@app.command("export", short_help="Export plans to your calendar (iCalendar).")
def export_command(
    ctx: typer.Context,
    ics: Annotated[
        bool, typer.Option("--ics", help="Write iCalendar (RFC 5545), the one format there is.")
    ] = False,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Create this file (an existing file is refused, "
                     "never overwritten). Default: stdout."),
    ] = None,
    feed: FeedOption = None,
    vdir_folder: VdirOption = None,
    show_all: Annotated[
        bool, typer.Option("--all", "-a",
                           help="Every plan, past ones too (default: upcoming ones; --feed "
                           "and --vdir always carry every plan).")
    ] = False,
    demo: DemoPlansFlag = False,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """Export saved plans as calendar events at review_time (config), with a reminder.

    Each plan keeps its event ID, so importing a newer export updates the events instead of
    adding them twice. --feed keeps one file up to date for a calendar that subscribes to it;
    --vdir keeps a folder of one file per event for khal or vdirsyncer.

    Example: planner export --ics --output plans.ics
    """
    import datetime as _dt

    from planner.base import storage
    from planner.memory import reviewing
    from planner.plans import files as plans

    if not (ics or feed or vdir_folder):
        _usage(t("choose the format: --ics (iCalendar)"))
    if sum(target is not None for target in (output, feed, vdir_folder)) > 1:
        _usage(t("choose one of --output, --feed and --vdir"))
    if output is not None and (output.is_symlink() or output.exists()):
        _usage(_exists(output))
    workspace = _workspace(ctx, home, config_path)
    config = workspace.config()
    folder, review_time = workspace.home, config.review_time
    label = plans.PLANS_DIR["demo" if demo else "live"]
    # A calendar that follows the feed or the vdir keeps past plans (and their done marks).
    keeps_all = show_all or feed is not None or vdir_folder is not None
    try:
        rows = plans.list_plans(folder, demo, keeps_all, _dt.date.today(),
                                reviewing.quiet_marks(folder))
    except plans.PlansError as error:
        _failed(error)
    good = [row for row in rows if row["problem"] is None]
    for row in rows:
        if row["problem"] is not None:
            ui.notice(t("Skipped {file}: {problem}", file=row["file"], problem=row["problem"]))
    if not good:
        ui.notice(t("No plans in {folder}/ to export; nothing was written.", folder=label)
                  if keeps_all else
                  t("No upcoming plans in {folder}/ to export (--all exports past ones too); "
                    "nothing was written.", folder=label))
        if not demo:
            _demo_plans_hint(folder, exporting=True)
        return
    if feed is not None or vdir_folder is not None:
        _export_calendar(good, config, label, feed, vdir_folder)
        return
    from planner.calendar.ics import export_ics

    try:
        data = export_ics(good, review_time, name=config.calendar_name)
    except ValueError as error:
        _usage(str(error))
    if output is None:
        try:
            ui.write_bytes(data)
        except OSError as error:
            _failed(t("could not write the calendar to stdout ({reason})",
                      reason=error.strerror or error))
        return
    try:
        storage.create_exclusive(output, data)
    except FileExistsError:
        _usage(_exists(output))
    except OSError as error:
        _failed(t("could not create {path} ({reason}); nothing was written", path=output,
                  reason=error.strerror or error))
    ui.notice(t("Exported {count} plan(s) from {folder}/ to {path}.", count=len(good),
                folder=label, path=output))


def _exists(path: Path) -> str:
    return t("{path} already exists; planner never overwrites a file: choose another name or "
             "remove it", path=path)


# --- Calendars that stay in step: export --feed / --vdir, planner sync (SPEC 17) -----------------
# planner.calendar.ics (icalendar), planner.calendar.vdir and planner.calendar.caldav_sync (caldav, an optional extra) are
# imported inside these functions only, so no other command loads them.


def _export_calendar(rows: list[dict], config: "Config", label: str, feed: Path | None,
                     folder: Path | None) -> None:
    """export --feed FILE or --vdir DIR: a calendar file or folder planner owns, kept in step."""
    from planner.calendar import ics, vdir

    try:
        events = ics.events_from_rows(rows)
        if feed is not None:
            change = vdir.update_feed(feed, events, config.review_time,
                                      name=config.calendar_name)
        elif folder is not None:
            counts = vdir.write_vdir(folder, events, config.review_time)
            vdir.name_vdir(folder, config.calendar_name)
    except vdir.CalendarFileError as error:
        _failed(error)
    except ValueError as error:
        _usage(str(error))
    if feed is not None:
        ui.info(_feed_line(change, len(events) == 1, feed=feed, count=len(events),
                           folder=label))
        return
    numbers = _counts(counts)
    if len(events) == 1:
        ui.info(t("Vdir {path}: {created} created, {updated} updated, {unchanged} unchanged "
                  "({count} event from {folder}/).", path=folder, count=len(events),
                  folder=label, **numbers))
    else:
        ui.info(t("Vdir {path}: {created} created, {updated} updated, {unchanged} unchanged "
                  "({count} events from {folder}/).", path=folder, count=len(events),
                  folder=label, **numbers))
    if counts.skipped:
        ui.notice(t("Left alone: {count} file(s) in {folder} at an event's name that planner "
                    "did not write.", count=counts.skipped, folder=folder))


def _feed_line(change: str, one: bool, **values: object) -> str:
    """The feed's line: one whole template for each change (created, unchanged or updated, as
    planner.calendar.vdir says), so the word is translated with it."""
    if change == "created":
        return (t("Feed {feed}: created ({count} event from {folder}/).", **values) if one else
                t("Feed {feed}: created ({count} events from {folder}/).", **values))
    if change == "unchanged":
        return (t("Feed {feed}: unchanged ({count} event from {folder}/).", **values) if one
                else t("Feed {feed}: unchanged ({count} events from {folder}/).", **values))
    return (t("Feed {feed}: updated ({count} event from {folder}/).", **values) if one else
            t("Feed {feed}: updated ({count} events from {folder}/).", **values))


def _counts(counts) -> dict[str, int]:
    return {"created": counts.created, "updated": counts.updated,
            "unchanged": counts.unchanged}


@app.command("sync", short_help="Put your plans into a CalDAV calendar.")
def sync_command(
    ctx: typer.Context,
    caldav_url: Annotated[
        str | None,
        typer.Option("--caldav", metavar="URL", help="The CalDAV calendar's URL, or the "
                     "server's (then --calendar, or calendar_name in config, names it)."),
    ] = None,
    calendar: Annotated[
        str | None,
        typer.Option("--calendar", metavar="NAME", help="The calendar's name (its display "
                     "name or the last part of its URL)."),
    ] = None,
    user: Annotated[
        str | None,
        typer.Option("--user", "-u", metavar="USER", help="The user to log in as. The "
                     "password: PLANNER_CALDAV_PASSWORD, else the OS keyring (planner key set "
                     "caldav:USER@HOST), else a hidden prompt."),
    ] = None,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """Put every saved plan into a CalDAV calendar (Nextcloud, Radicale, iCloud, Fastmail...).

    Events are put by their ID: new ones created, changed ones updated, the rest left alone;
    events planner did not create are never changed. Running it again changes nothing.
    Needs the caldav extra: pip install 'planner[caldav]'.

    Example: planner sync --caldav https://dav.example.com/cal/alice/reviews/ --user alice
    """
    import datetime as _dt
    import urllib.parse

    from planner.calendar import caldav_sync
    from planner.memory import reviewing
    from planner.plans import files as plans

    if caldav_url is None:
        _usage(t("choose where to sync: --caldav URL"))
    if not caldav_url.startswith(("http://", "https://")):
        _usage(t("--caldav takes the calendar's http:// or https:// URL"))
    if not caldav_sync.available():
        _usage(t("planner sync needs the caldav library: {hint}",
                 hint=caldav_sync.INSTALL_HINT))
    workspace = _workspace(ctx, home, config_path)
    config = workspace.config()
    try:
        rows = plans.list_plans(workspace.home, False, True, _dt.date.today(),
                                reviewing.quiet_marks(workspace.home))
    except plans.PlansError as error:
        _failed(error)
    good = [row for row in rows if row["problem"] is None]
    for row in rows:
        if row["problem"] is not None:
            ui.notice(t("Skipped {file}: {problem}", file=row["file"], problem=row["problem"]))
    if not good:
        ui.notice(t("No plans in {folder}/ to sync; nothing was sent.",
                    folder=plans.PLANS_DIR["live"]))
        return
    from planner.calendar import ics

    try:
        items = ics.event_items(ics.events_from_rows(good), config.review_time)
    except ValueError as error:
        _usage(str(error))
    try:
        in_url = urllib.parse.urlsplit(caldav_url).username
    except ValueError:
        _usage(t("--caldav is not a valid URL"))
    login = user or (urllib.parse.unquote(in_url) if in_url else None)
    password = _caldav_password(caldav_url, login)
    try:
        counts = caldav_sync.sync(caldav_url, calendar, user, password, items,
                                  default_name=config.calendar_name)
    except caldav_sync.MissingLibrary as error:
        _usage(str(error))
    except caldav_sync.SyncError as error:
        _failed(error)
    numbers = _counts(counts)
    if len(items) == 1:
        ui.info(t("CalDAV: {created} created, {updated} updated, {unchanged} unchanged "
                  "({count} event from {folder}/).", count=len(items),
                  folder=plans.PLANS_DIR["live"], **numbers))
    else:
        ui.info(t("CalDAV: {created} created, {updated} updated, {unchanged} unchanged "
                  "({count} events from {folder}/).", count=len(items),
                  folder=plans.PLANS_DIR["live"], **numbers))


def _caldav_password(url: str, user: str | None) -> str | None:
    """The CalDAV password from its sources (planner.model.keys); the problems as one line."""
    from planner.model.keys import KeyProblem, MissingKey, find_caldav_password

    ask = ui.ask_hidden if ui.has_terminal() else None
    try:
        return find_caldav_password(url, user, ask)
    except KeyProblem as error:
        _failed(error)
    except MissingKey as error:
        _usage(str(error))


# --- Keys in the OS keyring: planner key set / forget / status (SPEC 18) -------------------------
# planner.model.keys imports the keyring library (an optional extra) only when the keyring is used.

key_app = typer.Typer(no_args_is_help=False, rich_markup_mode=None)
app.add_typer(key_app, name="key", short_help="Keep API keys in the OS keyring.")


@key_app.callback(invoke_without_command=True)
def key_command(ctx: typer.Context) -> None:
    """Keep API keys (and CalDAV passwords) in the OS keyring, or see where keys come from.

    Example: planner key set openai
    """
    if ctx.invoked_subcommand is None:
        # Plain `planner key`: its help, exit 0, as plain `planner` does.
        typer.echo(ctx.get_help())
        raise typer.Exit()

ProviderArgument = Annotated[
    str | None,
    typer.Argument(metavar="[PROVIDER]", show_default=False,
                   help="A provider (deepseek, openai, ...), a base_url host, or "
                   "caldav:USER@HOST for a CalDAV password (default: the configured provider)."),
]


def _key_failed(error: Exception) -> NoReturn:
    """A keyring problem: a missing extra, no keyring or a refused key is exit 2, else exit 1."""
    from planner.model.keys import KeyRefused, KeyringUnavailable

    ui.error(str(error))
    usage = isinstance(error, KeyringUnavailable | KeyRefused)
    raise typer.Exit(EXIT_USAGE if usage else status.EXIT_FAILED)


@key_app.command("set", short_help="Store a key in the OS keyring (typed at a hidden prompt).")
def key_set_command(
    ctx: typer.Context,
    provider: ProviderArgument = None,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """Store a key in the OS keyring: it is typed at a hidden prompt, never shown or written.

    A run takes it from there when the key variable is not set and api_key_cmd is not given.

    Example: planner key set openai
    """
    from planner.base.i18n import _
    from planner.model import keys

    config = _workspace(ctx, home, config_path).config()
    try:
        user = keys.user_for(config, provider)
        keys.check_keyring()
        if not ui.has_terminal():
            raise keys.KeyRefused(t("planner key set reads the key at a hidden prompt; run "
                                    "it in a terminal (nothing was stored)"))
        secret = ui.ask_hidden(_("Key for {user} (input hidden): ").format(user=user))
        keys.set_key(user, secret)
    except KeyboardInterrupt:
        ui.error(t("interrupted (Ctrl+C); nothing was stored"))
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except keys.KeyProblem as error:
        _key_failed(error)
    ui.info(t("Stored the key for {user} in the OS keyring (service {service}, user {user}).",
              user=user, service=keys.SERVICE))
    if provider is None or user == keys.key_user(config):
        source = keys.key_source(config, terminal=True, probe_keyring=True)
        if source.kind != "keyring":
            ui.notice(t("A run still takes its key from {source} first.", source=source.detail))


@key_app.command("forget", short_help="Remove a key from the OS keyring.")
def key_forget_command(
    ctx: typer.Context,
    provider: ProviderArgument = None,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """Remove a key from the OS keyring (nothing else is changed).

    Example: planner key forget openai
    """
    from planner.model import keys

    config = _workspace(ctx, home, config_path).config()
    try:
        user = keys.user_for(config, provider)
        removed = keys.forget_key(user)
    except keys.KeyProblem as error:
        _key_failed(error)
    if removed:
        ui.info(t("Removed the key for {user} from the OS keyring.", user=user))
    else:
        ui.info(t("No key for {user} in the OS keyring; nothing was removed.", user=user))


@key_app.command("status", short_help="Where each provider's key would come from.")
def key_status_command(
    ctx: typer.Context,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """Where the configured provider's key would come from, and which other providers have a
    key in the environment or the OS keyring. No key is ever shown.

    Example: planner key status
    """
    from planner.base.i18n import language, shown
    from planner.model import keys

    config = _workspace(ctx, home, config_path).config()
    rows = keys.key_status(config, terminal=ui.has_terminal())
    # "{user}: {source}" would match any line with a colon: each part is translated on its own.
    colon = "：" if language() == "zh" else ": "
    for row in rows:
        name = t("{user} (configured)", user=row.user) if row.configured else row.user
        ui.info(f"{shown(name)}{colon}{shown(row.source.detail)}")
    if not keys.keyring_installed():
        ui.notice(t("The OS keyring is not used: it needs pip install 'planner[keyring]'."))


# --- Your notes: planner notes -------------------------------------------------------------------
# planner.notes.catalog is imported inside the command; it opens the index (sqlite3) and reads front
# matter (yaml) only for a notes folder, so --help, --dry-run and --demo never load them.

NOTES_TABLE_LIMIT = 50  # notes listed in a table without QUERY
NOTES_MATCHES = 10  # best matches shown for a QUERY, table or JSON


@app.command("notes", short_help="List or search your notes.")
def notes_command(
    ctx: typer.Context,
    query: Annotated[
        str | None,
        typer.Argument(help="Words to search for, Chinese or English (every word must appear); "
                       "without it, the notes are listed."),
    ] = None,
    as_json: JsonFlag = False,
    limit: Annotated[
        int | None,
        typer.Option("--limit", "-L", min=0, help="How many notes (default: 50 in the table "
                     "and all with --json; with QUERY the best 10; 0: all)."),
    ] = None,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """List your notes (ID, title, tags, file), or search them: best matches with a snippet.

    Example: planner notes 检索 --limit 5
    """
    from planner.notes.catalog import MAX_QUERY, NotesError, load_catalog

    workspace = _workspace(ctx, home, config_path)
    folder, config = workspace.home, workspace.config()
    if query is not None and not query.strip():
        _usage(t("QUERY needs some words (or leave it out to list the notes)"))
    if query is not None and len(query) > MAX_QUERY:
        _usage(t("QUERY has {count:,} characters; at most {limit} (a few words find a note)",
                 count=len(query), limit=MAX_QUERY))
    if limit is not None:
        shown = limit or None
    elif query is not None:
        shown = NOTES_MATCHES
    else:
        shown = None if as_json else NOTES_TABLE_LIMIT
    try:
        catalog = load_catalog(folder, config.notes_dir, config.file,
                               ui.indexing_progress())
        try:
            rows, total = catalog.rows(query, shown)
        finally:
            catalog.close()
    except NotesError as error:
        _usage(str(error))
    for line in catalog.warnings:
        ui.notice(t("Warning: {warning}", warning=line))
    if as_json:
        ui.print_json_lines(rows)
    else:
        where = {"samples": t("the built-in samples"),
                 "notes.json": str(folder / "notes.json")}
        ui.notes_table(rows, total, where.get(catalog.source)
                       or f"{getattr(catalog, 'folder', folder)}/", query)


# --- Where everything is: planner where (SPEC 21) -----------------------------------------------


@app.command("where", short_help="Where planner keeps everything, and why there.")
def where_command(
    ctx: typer.Context,
    as_json: JsonFlag = False,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """Show the home folder in use and which rule chose it, the config file, where the notes
    come from and the notes index. Reads nothing but names, and creates nothing.

    Example: planner where --json
    """
    import os

    from planner.base.config import DEFAULT_CONFIG_FILE, ConfigError, load_config
    from planner.notes.catalog import INDEX_FOLDER, notes_source
    from planner.notes.index import INDEX_FILE

    workspace = _workspace(ctx, home, config_path)
    folder = workspace.home
    config_file = workspace.config_path or folder / DEFAULT_CONFIG_FILE
    config_exists = os.path.lexists(config_file)
    problem = None
    notes_dir = None
    if config_exists or workspace.config_path is not None:
        try:
            notes_dir = load_config(config_file).notes_dir
        except ConfigError as error:
            problem = str(error)
    source, notes_path = notes_source(folder, notes_dir)
    index = folder / INDEX_FOLDER / INDEX_FILE
    report = {
        "home": os.path.abspath(folder),
        "home_exists": folder.is_dir(),
        "rule": workspace.rule,
        "why": _home_why(workspace),
        "config": os.path.abspath(config_file),
        "config_exists": config_exists,
        "config_problem": problem,
        "notes_source": source,
        "notes": None if notes_path is None else os.path.abspath(notes_path),
        "notes_exists": None if notes_path is None else os.path.lexists(notes_path),
        "index": os.path.abspath(index),
        "index_exists": os.path.lexists(index),
    }
    if as_json:
        ui.print_json(report)
    else:
        ui.where_report(report)


def _home_why(workspace: Workspace) -> str:
    """In words, the rule that chose the home."""
    from planner.base.home import MARKERS, markers_in

    if workspace.rule == "option":
        return t("given with --home")
    if workspace.rule == "env":
        return t("given by {variable}", variable=HOME_ENV)
    if workspace.rule == "current":
        found = ", ".join(_marker_name(name) for name in markers_in(workspace.home))
        return t("the current folder is a planner home (it holds {found})", found=found)
    markers = ", ".join(_marker_name(name) for name in MARKERS)
    return t("your data folder: no --home, no {variable}, and the current folder is not a "
             "planner home (it holds none of {markers})", variable=HOME_ENV, markers=markers)


def _marker_name(name: str) -> str:
    return name if "." in name else f"{name}/"


# --- Review memory: planner done / reviews / drop / due -------------------------------------------
# SPEC 16. The decisions and the writes are in planner.memory.reviewing, the schedules in planner.memory.review_memory
# (fsrs is imported only when a due date is computed): --help and the other commands load none.

RATINGS = ("again", "hard", "good", "easy")
RunArgument = Annotated[
    str | None,
    typer.Argument(metavar="[RUN]", show_default=False,
                   help="last or -1 (the newest run), -2 (the one before), ..., or a run ID or "
                   "a unique start of one, as for planner show."),
]


def _reviewing(call, *args, **kwargs):
    """Run a planner.memory.reviewing step: Refused is exit 2, Failed exit 1, one line each."""
    from planner.memory import reviewing

    try:
        return call(*args, **kwargs)
    except reviewing.Refused as refused:
        _usage(str(refused))
    except reviewing.Failed as failed:
        _failed(failed)


def _log_warnings(lines: list[str]) -> None:
    for line in lines:
        ui.notice(t("Warning: {warning}", warning=line))


def _pick_plan_run(folder: Path, wanted: str) -> str:
    """The saved plan's run that RUN names: `last`, -N, an ID or a unique start of one, as for
    `show`; an ID or start of one is looked for among the saved plans too (their records may
    be gone)."""
    from planner.plans import files as plans

    if wanted != "last" and not wanted.startswith("-"):
        ids = []
        for demo in (False, True):  # a demo plan is found, to be refused as one
            try:
                names = plans.plan_names(plans.plans_dir(folder, demo))
            except plans.PlansError:
                names = []
            ids += [name.removesuffix(".json") for name in names]
        matches = [run_id for run_id in ids if run_id == wanted] or [
            run_id for run_id in ids if run_id.startswith(wanted)]
        if len(matches) == 1:
            return matches[0]
    return _pick_run(folder, wanted)


def _ask_rating() -> str | None:
    """The rating from the terminal (Enter: good); None: no terminal (then it is good)."""
    from planner.conversation.events import Prompt
    from planner.ui.conversation import TerminalPerson

    person = TerminalPerson(".")
    if not person.interactive:
        return None
    prompt = Prompt("rating")
    for _ in range(3):
        line = person.ask(prompt)
        if line is None:
            return None
        if not line.endswith("\n"):
            _usage(t("no rating was given (end of input); nothing was recorded"))
        answer = line.strip().lower()
        if not answer:
            return "good"
        if answer in RATINGS:
            return answer
        prompt = Prompt("rating", typed=line.strip()[:40])
    _usage(t("no rating was given (again, hard, good or easy); nothing was recorded"))


@app.command("done", short_help="Record that a planned review happened.",
             context_settings={"ignore_unknown_options": True})
def done_command(
    ctx: typer.Context,
    run_id: RunArgument = None,
    rating: Annotated[
        str | None,
        typer.Option("--rating", "-r", metavar="again|hard|good|easy",
                     help="How it went (default: asked on a terminal, else good)."),
    ] = None,
    minutes: Annotated[
        int | None,
        typer.Option("--minutes", "-m", min=1, max=120, help="How long it took (1-120)."),
    ] = None,
    note: Annotated[
        list[str] | None,
        typer.Option("--note", help="Only this note of the plan (repeat for more)."),
    ] = None,
    date: Annotated[
        str | None,
        typer.Option("--date", metavar="YYYY-MM-DD",
                     help="When it happened, if not today (never a future date)."),
    ] = None,
    undo: Annotated[
        str | None,
        typer.Option("--undo", metavar="REVIEW_ID",
                     help="Take back a review recorded by mistake (it stops counting)."),
    ] = None,
    as_json: JsonFlag = False,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """Record that a saved plan's review happened: one review for each of its notes.

    With no RUN: the most recent plan dated today or earlier that has no reviews yet. A series
    records its earliest session not yet done. Prints each note's next due date.

    Example: planner done --rating hard
    """
    import datetime as _dt

    from planner.base.i18n import _, shown
    from planner.memory import reviewing
    from planner.memory.review_memory import ReviewMemory

    workspace = _workspace(ctx, home, config_path)
    folder = workspace.home
    if run_id is not None and run_id.startswith("-") and not run_id[1:].isdigit():
        _usage(t("no such option: {option} (planner done -h lists the options)",
                 option=run_id))
    if undo is not None:
        if run_id is not None or rating is not None or minutes is not None or note or date:
            _usage(t("--undo REVIEW_ID takes no RUN, --rating, --minutes, --note or --date"))
        _undo_review(workspace, undo, as_json)
        return
    if rating is not None and rating not in RATINGS:
        _usage(t("--rating {rating}: must be again, hard, good or easy", rating=rating))
    config = workspace.config()
    now = _dt.datetime.now(_dt.UTC)
    reviewed_at = _reviewing(reviewing.review_time, date, now)
    today = now.astimezone().date()
    log = _reviewing(reviewing.read_log, folder)
    _log_warnings(log.warnings)
    marks = reviewing.marks_from(log.events)
    if run_id is None:
        target = _reviewing(reviewing.latest_open, folder, today, marks)
    else:
        found = _pick_plan_run(folder, run_id)
        rows = _reviewing(reviewing.plan_rows, folder, found, today, marks)
        target = _reviewing(reviewing.target_of, rows, found)
    note_ids = _reviewing(reviewing.chosen_notes, target, note or ())
    if rating is None:
        # Asked on the terminal (like SAVE, never read from a pipe); with none, it is good.
        rating = "good"
        if ui.has_terminal():
            # Shown only, and translated here: the plan's title is the model's words, never
            # matched against the catalog.
            ui.notice(_("Recording the review of {target}: {title} ({notes}).").format(
                target=shown(target.shown), title=target.row["title"],
                notes=", ".join(note_ids)))
            try:
                rating = _ask_rating() or "good"
            except KeyboardInterrupt:
                ui.error(t("interrupted (Ctrl+C); nothing was recorded"))
                raise typer.Exit(EXIT_INTERRUPTED) from None
    recorded = _reviewing(reviewing.record_done, folder, target, note_ids, rating, minutes,
                          reviewed_at)
    memory = ReviewMemory(folder, _quiet_catalog(folder, config), config.desired_retention)
    due = reviewing.next_due(memory, note_ids)
    titles = {item["id"]: item["title"] for item in target.row["notes"]}
    rows_out = [{**reviewing.review_row(review, titles.get(review.note_id)),
                 "next_due": _iso(due[review.note_id])} for review in recorded]
    if as_json:
        ui.print_json_lines(rows_out)
        return
    ui.review_recorded(target.shown, target.row["title"], rows_out, today,
                       reviewed_at.astimezone().date())


def _undo_review(workspace: "Workspace", wanted: str, as_json: bool) -> None:
    import datetime as _dt

    from planner.memory import reviewing
    from planner.memory.review_memory import ReviewMemory

    folder = workspace.home
    log = _reviewing(reviewing.read_log, folder)
    _log_warnings(log.warnings)
    review = _reviewing(reviewing.find_review, log, wanted)
    _reviewing(reviewing.undo, folder, log, review)
    config = workspace.config()
    memory = ReviewMemory(folder, _quiet_catalog(folder, config), config.desired_retention)
    due = reviewing.next_due(memory, [review.note_id])[review.note_id]
    row = {**reviewing.review_row(review, None, undone=True), "next_due": _iso(due)}
    if as_json:
        ui.print_json(row)
        return
    ui.review_undone(row, _dt.date.today())


def _iso(day) -> str | None:
    return None if day is None else day.isoformat()


def _quiet_catalog(folder: Path, config: "Config"):
    """The notes for titles and sr-due dates; None when they cannot be read (the log still
    decides every note planner has reviewed)."""
    from planner.notes.catalog import NotesError, load_catalog

    try:
        return load_catalog(folder, config.notes_dir, config.file)
    except NotesError:
        return None


@app.command("reviews", short_help="The reviews you recorded, newest first.")
def reviews_command(
    ctx: typer.Context,
    as_json: JsonFlag = False,
    note: Annotated[
        str | None, typer.Option("--note", help="Only the reviews of this note.")
    ] = None,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """List the review log, newest first; undone reviews are marked and no longer count.

    Example: planner reviews --note N1
    """
    from planner.memory import reviewing
    from planner.memory.log import LOG_NAME
    from planner.notes.catalog import NotesError

    workspace = _workspace(ctx, home, config_path)
    folder = workspace.home
    log = _reviewing(reviewing.read_log, folder)
    _log_warnings(log.warnings)
    catalog = _quiet_catalog(folder, workspace.config()) if log.events else None
    titles: dict[str, str] = {}
    if catalog is not None:
        try:
            titles = {row["id"]: row["title"] for row in catalog.rows(None, None)[0]}
        except NotesError:
            pass  # the reviews are listed by note ID alone
        finally:
            catalog.close()
    rows = reviewing.review_rows(log, titles, note)
    if as_json:
        ui.print_json_lines(rows)
    else:
        where = LOG_NAME if folder == Path(".") else f"{folder}/{LOG_NAME}"
        ui.reviews_table(rows, where, note)


@app.command("drop", short_help="Say a saved plan will not happen.",
             context_settings={"ignore_unknown_options": True})
def drop_command(
    ctx: typer.Context,
    run_id: Annotated[
        str,
        typer.Argument(metavar="RUN", show_default=False,
                       help="last or -1 (the newest run), -2, ..., or a run ID or a unique "
                       "start of one, as for planner show."),
    ],
    undo: Annotated[
        bool, typer.Option("--undo", help="Bring a dropped plan back.")
    ] = False,
    home: HomeOption = None,
) -> None:
    """Say that a saved plan will not happen: plans hides it (--all shows it dropped), exports
    cancel its events. The plan file stays as it was.

    Example: planner drop -1
    """
    import datetime as _dt

    from planner.memory import reviewing

    folder = _workspace(ctx, home, None).home
    if run_id.startswith("-") and not run_id[1:].isdigit():
        _usage(t("no such option: {option} (planner drop -h lists the options)",
                 option=run_id))
    found = _pick_plan_run(folder, run_id)
    log = _reviewing(reviewing.read_log, folder)
    _log_warnings(log.warnings)
    rows = _reviewing(reviewing.plan_rows, folder, found, _dt.date.today(),
                      reviewing.marks_from(log.events))
    _reviewing(reviewing.drop, folder, rows, found, undo)
    if undo:
        ui.info(t("Brought back {file}: it is planned again.", file=rows[0]["file"]))
    else:
        ui.info(t("Dropped {file}: planner plans hides it (--all shows it), exports cancel its "
                  "events; planner drop --undo {run_id} brings it back.", file=rows[0]["file"],
                  run_id=found))


@app.command("due", short_help="The notes due for review.")
def due_command(
    ctx: typer.Context,
    days: Annotated[
        int, typer.Option("--days", "-d", min=0, max=3650,
                          help="Notes due by today plus this many days (default 0: today).")
    ] = 0,
    as_json: JsonFlag = False,
    limit: Annotated[
        int | None,
        typer.Option("--limit", "-L", min=0, help="How many notes (default: 50 in the table, "
                     "all with --json; 0: all)."),
    ] = None,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """List the notes due for review by today (or today + --days), most overdue first: due
    date, last review and its rating, and the chance you remember each now (FSRS).

    Example: planner due --days 7
    """
    import datetime as _dt

    from planner.memory.review_memory import ReviewMemory
    from planner.notes.catalog import NotesError, load_catalog

    workspace = _workspace(ctx, home, config_path)
    folder, config = workspace.home, workspace.config()
    try:
        catalog = load_catalog(folder, config.notes_dir, config.file,
                               ui.indexing_progress())
    except NotesError as error:
        _usage(str(error))
    for line in catalog.warnings:
        ui.notice(t("Warning: {warning}", warning=line))
    memory = ReviewMemory(folder, catalog, config.desired_retention)
    log = memory.log()
    if memory.problem is not None:
        _failed(memory.problem)
    _log_warnings(log.warnings)
    shown = (None if as_json else TABLE_LIMIT) if limit is None else (limit or None)
    today = _dt.date.today()
    try:
        found = memory.due(today, days, shown)
    except NotesError as error:
        _usage(str(error))
    finally:
        catalog.close()
    if as_json:
        ui.print_json_lines(found.rows)
    else:
        ui.due_table(found.rows, found.total, today, days, found.next_due)
