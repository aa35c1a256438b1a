"""What every command shares: the home and config options, the workspace, run IDs, completion."""

from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

import typer

from planner import ui
from planner.base.i18n import t
from planner.base.inert import short_values
from planner.cli.exits import exit_usage, failing_on_os

if TYPE_CHECKING:

    from planner.base.config import Config
    from planner.base.home import Home


HOME_ENV = "PLANNER_HOME"  # planner.base.home.HOME_ENV (not imported here: --help stays light)
HELP_OPTION_NAMES = ["-h", "--help"]
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

        with failing_on_os(lambda reason: t(
                "could not create the home folder {home} ({reason}); nothing was written (use "
                "--home DIR to choose another folder)", home=self.home, reason=reason)):
            ensure(Home(self.home, self.rule))
        return self.home


def open_workspace(ctx: typer.Context, home: Path | None, config_path: Path | None) -> Workspace:
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

        chosen = choose(None, None)
        home, rule = chosen[:2]
        _other_home_said(ctx, chosen)
    if config_path is None and isinstance(outer, Workspace):
        config_path = outer.config_path
    elif config_path is not None:
        config_path = _expanded(config_path)
    return Workspace(home, config_path, rule)


def _expanded(path: Path) -> Path:
    """--config as the config's own paths are read: ~ and $VAR expanded (a quoted '~/x' or
    --config=~/x reaches planner as typed); an unset variable is one line, exit 2."""
    text = str(path)
    if "~" not in text and "$" not in text:
        return path
    from planner.base.config import expand_user, unset_variables

    unset = unset_variables(text)
    if unset:
        exit_usage(t("--config {path}: the variable {variable} is not set", path=text,
                     variable=unset[0]))
    return Path(expand_user(text))


def _other_home_said(ctx: typer.Context, chosen: "Home") -> None:
    """One line, the first time in this folder, when it is the home only because it holds
    planner's folders while the data folder has a config.json (planner where says it always)."""
    from planner.base.home import first_time_said, other_home

    data = other_home(chosen)
    if data is None or "where" in (ctx.info_name, getattr(ctx, "invoked_subcommand", None)):
        return
    if first_time_said(data, chosen.path):
        ui.notice(other_home_line(chosen.markers, data))


def other_home_line(markers: tuple[str, ...], data: Path) -> str:
    """Which home is used, and how to choose the other."""
    found = ", ".join(name if "." in name else f"{name}/" for name in markers)
    return t("The home is the current folder (it holds {found}), not your data folder {data}, "
             "which has a config.json too; planner --home {data} uses that one (said once: "
             "planner where tells which)", found=found, data=data)

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
        exit_usage(t("{given}: is not a folder; planner uses an existing folder and never creates "
                 "it (mkdir it first, or check the spelling)", given=given))
    exit_usage(t("{given}: no such folder; planner uses an existing folder and never creates it "
             "(mkdir it first, or check the spelling)", given=given))

def _config(path: Path | None, home: Path = Path(".")) -> "Config":
    """The settings: `path`, else the home folder's config.json if there is one, else defaults."""
    from planner.base.config import DEFAULT_CONFIG_FILE, Config, load_config

    if path is None:
        candidate = home / DEFAULT_CONFIG_FILE
        # A link is handed on even when broken, so a dangling config.json is named, not skipped.
        if not (candidate.is_symlink() or candidate.exists()):
            return Config(file=str(candidate))
        path = candidate
    # Messages that say what to change name this file, the one really in use. A ConfigError
    # rises: it is a UsageError (exit 2), said by planner.cli.app.
    return load_config(path, home)._replace(file=str(path))

def say_warnings(lines: list[str]) -> None:
    for line in lines:
        # A value echoed whole (a 480-character selector) is cut, as in an error line.
        ui.notice(t("Warning: {warning}", warning=short_values(line)))


JsonFlag = Annotated[
    bool, typer.Option("--json", help="Print stable machine-readable JSON on stdout.")
]


def pick_run(folder: Path, wanted: str) -> str:
    """The run ID that `last`, -N, an ID or a unique start of one names; else exit 2."""
    from planner.records import history

    back = wanted[1:] if wanted.startswith("-") else None
    if back is not None and not (back.isascii() and back.isdigit()):
        # ignore_unknown_options lets any dash word through; only -N is a run.
        exit_usage(t("no such option: {option} (planner show -h lists the options)",
                 option=wanted))
    if wanted == "last" or back is not None:
        number = 1 if back is None else int(back)
        names = history.run_ids(folder)
        if number == 0:
            exit_usage(t("-0 names no run: -1 is the newest, -2 the one before"))
        if not names:
            exit_usage(t("no runs in {folder} yet; planner --demo makes one",
                     folder=records_label(folder)))
        if number > len(names):
            exit_usage(t("there are only {count} run(s) in {folder}; -{count} is the oldest",
                     count=len(names), folder=records_label(folder)))
        return names[number - 1]
    # A RunNotFound or HistoryError rises, said as every failure is (exit 2 or 1).
    return history.find_run(folder, wanted)


def records_label(home: Path) -> str:
    """Where the runs are, as the person named it: tool-records/ or HOME/tool-records/."""
    from planner.records.run_record import RECORDS_DIR

    return f"{RECORDS_DIR}/" if home == Path(".") else f"{home}/{RECORDS_DIR}/"


TABLE_LIMIT = 50  # a terminal table of 10,000 rows is slow to draw (Rich) and no use to read


# --- Shell completion (planner --install-completion): the values people type --------------------
# Called by the shell at each Tab, so each reads only folder names or config.json, and never
# prints: a problem completes nothing.

MAX_COMPLETIONS = 200


def _completion_home(ctx: typer.Context) -> Path:
    """The home the command line being completed names: its --home (or PLANNER_HOME), else
    the one planner would choose."""
    context: Any = ctx  # typer.Context, then its parents (Click contexts)
    while context is not None:
        given = context.params.get("home")
        if given:
            return Path(given)
        context = context.parent
    from planner.base.home import choose

    return choose(None, None).path


def typeable(name: str) -> bool:
    """Whether a person could type `name`: no control character, line break, bidi control or
    other invisible character. Any other is never offered: the shell would print it raw, and a
    line break would offer a candidate of its own."""
    return name.isprintable()


def complete_run(ctx: typer.Context, incomplete: str) -> list[str]:
    """Run IDs that start with what is typed, newest first: the runs in tool-records/ and the
    saved plans (show, done, drop and move)."""
    import os

    try:
        home = _completion_home(ctx)
        names: set[str] = set()
        for folder, suffix in (("tool-records", ""), ("plans", ".json")):
            # A folder that cannot be read completes nothing of its own.
            with suppress(OSError), os.scandir(home / folder) as entries:
                for entry in entries:
                    name = entry.name.removesuffix(suffix) if suffix else entry.name
                    if name[:1] not in (".", "") and name.startswith(incomplete) \
                            and (not suffix or entry.name.endswith(suffix)) and typeable(name):
                        names.add(name)
        # Run IDs begin with their time: the newest sorts last.
        return sorted(names, reverse=True)[:MAX_COMPLETIONS]
    except Exception:  # noqa: BLE001 - a Tab never ends in a traceback
        return []


def complete_goal(ctx: typer.Context, incomplete: str) -> list[str]:
    """The goals in config.json whose names start with what is typed (any case), for --goal."""
    try:
        context: Any = ctx  # typer.Context, then its parents (Click contexts)
        config_path = None
        while context is not None and config_path is None:
            config_path = context.params.get("config_path")
            context = context.parent
        from planner.base.config import DEFAULT_CONFIG_FILE, expand_user, load_config

        path = Path(expand_user(str(config_path))) if config_path else \
            _completion_home(ctx) / DEFAULT_CONFIG_FILE
        config = load_config(path)  # a ConfigError is an Exception: nothing is printed
        names = [goal.get("name") if isinstance(goal, dict) else getattr(goal, "name", None)
                 for goal in getattr(config, "goals", ())]
        return [name for name in names if isinstance(name, str) and typeable(name)
                and name.lower().startswith(incomplete.lower())]
    except Exception:  # noqa: BLE001 - a bad or missing config completes nothing, silently
        return []
