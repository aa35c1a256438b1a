"""The command line assembled: the Typer app, its commands in order, and the console-script entry.

Each group of commands lives in its own module (run, history, plans, keys, notes, reviews); this
one puts them together and runs them so that output that cannot be written ends in one line.
"""

import gc
import sys
from contextlib import suppress
from typing import Any

import typer

from planner import ui
from planner.base.errors import PlannerError
from planner.base.i18n import t
from planner.base.oserrors import os_reason
from planner.cli import (
    goals,
    history,
    init,
    keys,
    memory,
    notes,
    own_plan,
    pending,
    plans,
    reviews,
    run,
    sessions,
)
from planner.cli.common import HELP_OPTION_NAMES
from planner.cli.exits import said
from planner.cli.help import translate_commands, use_language, whole_names
from planner.records import status
from planner.ui.guarded import Output

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


class Commands(typer.core.TyperGroup):
    """planner's commands: a PlannerError rising from one ends as its line and exit code."""

    # Unannotated: Click's Context type lives in typer's private _click module.
    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except PlannerError as failure:
            # Here, not only in main: Click's test runner and the fault driver call the app.
            raise typer.Exit(said(failure)) from None


app = typer.Typer(
    cls=Commands,
    # --install-completion and --show-completion (bash, zsh, fish): Tab completes commands,
    # options, run IDs and goal names (planner.cli.common.complete_run, complete_goal).
    add_completion=True,
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

key_app = typer.Typer(no_args_is_help=False, rich_markup_mode=None)

# The order here is the order of `planner --help`.
app.callback(invoke_without_command=True)(run.main_command)
app.command("init", short_help="Set planner up: a few questions, then config.json.")(
    init.init_command)
app.command("runs", short_help="List your runs, newest first.")(history.runs_command)
app.command("show", short_help="One run step by step (default: the newest).",
             # `show -1`: -1 is a run (the newest), not an option; see pick_run.
             context_settings={"ignore_unknown_options": True})(history.show_command)
app.command("costs", short_help="Tokens and cost per run, and in total.")(history.costs_command)
app.command("plans", short_help="List saved plans, upcoming first.")(plans.plans_command)
app.command("export", short_help="Export plans to your calendar (iCalendar).")(
    plans.export_command)
app.command("sync", short_help="Put your plans into a CalDAV calendar.")(plans.sync_command)
app.command("week", short_help="Seven days: study hours, busy time, sessions.")(
    plans.week_command)
app.add_typer(key_app, name="key", short_help="Keep API keys in the OS keyring.")
key_app.callback(invoke_without_command=True)(keys.key_command)
key_app.command("set", short_help="Store a key in the OS keyring (typed at a hidden prompt).")(
    keys.key_set_command)
key_app.command("forget", short_help="Remove a key from the OS keyring.")(keys.key_forget_command)
key_app.command("status", short_help="Where each provider's key would come from.")(
    keys.key_status_command)
app.command("notes", short_help="List or search your notes.")(notes.notes_command)
app.command("where", short_help="Where planner keeps everything, and why there.")(
    notes.where_command)
app.command("done", short_help="Record that a planned review happened.",
             context_settings={"ignore_unknown_options": True})(reviews.done_command)
app.command("reviews", short_help="The reviews you recorded, newest first.")(
    reviews.reviews_command)
app.command("drop", short_help="Say a saved plan will not happen.",
             context_settings={"ignore_unknown_options": True})(reviews.drop_command)
app.command("move", short_help="Move one saved session to another day or time.",
             # `move -1#3`: -1 is a run (the newest that saved a plan), not an option.
             context_settings={"ignore_unknown_options": True})(sessions.move_command)
app.command("due", short_help="The notes due for review.")(reviews.due_command)
app.command("fit", short_help="Fit the memory model to your reviews (and Anki's).")(
    memory.fit_command)
app.command("forecast", short_help="The reviews and minutes due in the days ahead.")(
    memory.forecast_command)
app.command("plan", short_help="Planner's own plan for a goal, saved after SAVE.")(
    own_plan.plan_command)
app.command("goals", short_help="Your goals: their day, sessions and notes ready.")(
    goals.goals_command)
app.command("mcp", short_help="Serve planner to an agent over MCP (it cannot save).")(
    pending.mcp_command)
app.command("pending", short_help="Proposals agents staged: confirm one with SAVE.")(
    pending.pending_command)


def _wants_json(command: Any, arguments: list[str]) -> bool:
    """Whether the command line runs a command that has --json, with --json."""
    if command is None or "--json" not in arguments:
        return False
    group = command
    for argument in arguments[:arguments.index("--json")]:
        found = getattr(group, "commands", {}).get(argument)
        if found is not None:
            group = found
    return any("--json" in getattr(param, "opts", ()) for param in group.params)


def main() -> None:
    """Console-script entry: output that cannot be written ends in one line on stderr.

    README "A screen you can trust". stdout closed at start (`>&-`): refused before anything runs,
    exit 1. stdout
    failing later (a broken pipe, a full disk, /dev/full): the rest of the output is dropped,
    the command or run goes on to its end (so no run is left `running`), then one line says
    so, with exit 1 unless the command already ended with its own failure code (1, 2, 130),
    which is kept. A broken pipe (`planner runs | head -1`) is quiet (README "中文界面"): the reader
    took what it wanted; only the exit code (1) says the output was cut off. An encoding
    without CJK (PYTHONIOENCODING=ascii) is no failure: what it cannot encode is written as a
    backslash escape.
    """
    if sys.stdout is None:
        # Python found descriptor 1 closed. Nothing could be shown, and the first file opened
        # would get descriptor 1: refuse before anything is read, run or written.
        ui.error(t("standard output is closed; nothing was run (give planner somewhere to "
                   "write, for example > /dev/null)"))
        raise SystemExit(status.EXIT_FAILED)
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    output = Output(sys.stdout)
    sys.stdout = output
    arguments: list[str] = []
    command = None
    try:
        arguments = run.continue_default(sys.argv[1:])
        command = typer.main.get_command(app)
        ending = program(command, arguments)
    except PlannerError as failure:
        # Commands.invoke says what rises from a command; this says what rises before one runs.
        ending = SystemExit(said(failure))
    if ending.code not in (None, status.EXIT_OK) and not output.written \
            and _wants_json(command, arguments):
        # Machine output stays machine output: a --json command that failed, whatever the
        # failure, answers JSON on stdout too (its one line is on stderr).
        from planner.ui.console import last_error

        ui.print_json({"error": last_error, "exit_code": ending.code})
    output.flush()
    raise _output_lost(output, ending)


def program(command: Any, arguments: list[str]) -> SystemExit:
    """The command line run, without error handling: how it ended (a PlannerError rises)."""
    try:
        whole_names()
        if use_language(arguments) == "zh":
            translate_commands(command)
        # Collection off while the modules loaded (planner/__init__.py): what they made is
        # frozen (never swept again), and collection is back on for the command itself.
        gc.freeze()
        gc.enable()
        command(args=arguments, prog_name="planner")
    except SystemExit as done:
        return done
    finally:
        # Every file is written and closed by now. Freezing the heap spares the interpreter's
        # final collection a sweep over every object of every imported module: ~80 ms at exit
        # once the SDK is loaded, a real wait for the person at the prompt.
        gc.freeze()
    return SystemExit(status.EXIT_OK)


def _output_lost(output: Output, ending: SystemExit) -> SystemExit:
    """How the program ends once stdout failed: one line (none for a broken pipe), exit 1
    unless the command already ended with its own failure code."""
    if output.failure is None:
        return ending
    error = output.failure
    # A reader that stopped reading (`planner plans | head -1`) took what it wanted: no
    # line about it (README "中文界面"); the exit code still says the output was cut off.
    if not isinstance(error, BrokenPipeError):
        with suppress(OSError):  # stderr failing too: the exit code alone says it
            ui.error(t("could not write the output to stdout: {reason}; what was written "
                       "is incomplete", reason=os_reason(error)))
    if ending.code in (None, status.EXIT_OK):
        return SystemExit(status.EXIT_FAILED)
    return ending
