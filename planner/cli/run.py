"""The run modes: --demo, --dry-run, --request (live) and --continue, and how a run ends."""

from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple, cast

import typer

from planner import __version__, ui
from planner.base import answers
from planner.base.days import parse_date
from planner.base.i18n import N_, t
from planner.cli.common import (
    ConfigOption,
    HomeOption,
    Workspace,
    complete_goal,
    open_workspace,
    pick_run,
    say_warnings,
)
from planner.cli.exits import ended, exit_usage, interrupted

if TYPE_CHECKING:
    import datetime as _dt
    from collections.abc import Callable, Sequence

    from planner.base.config import Config
    from planner.base.goals import Goal
    from planner.base.i18n import Message
    from planner.calendar.timetable import Timetable
    from planner.conversation.events import Outcome
    from planner.memory.readiness import GoalTarget
    from planner.memory.review_memory import ReviewMemory
    from planner.model.client import ModelClient
    from planner.model.costs import Tally
    from planner.notes.catalog import Catalog, Note
    from planner.plans.files import Marks

    Password = Callable[[str, str | None], str | None]


def _version(value: bool) -> None:
    if value:
        ui.info(f"planner {__version__}")
        ended()


def _complete_goal(ctx: typer.Context, param: object, incomplete: str) -> list[str]:
    # Click's own hook, not Typer's autocompletion: Typer keeps only the names that start with
    # the typed text in its case, and goal names match in any case ("j" offers "JLPT N2").
    return complete_goal(ctx, incomplete)


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
    until: Annotated[
        str | None,
        typer.Option("--until", metavar="YYYY-MM-DD", show_default=False,
                     help="A deadline (an exam, a trip): no session is planned after "
                     "this day."),
    ] = None,
    goal: Annotated[
        str | None,
        typer.Option("--goal", metavar="NAME", show_default=False,
                     shell_complete=_complete_goal,
                     help="Plan for a goal of config.json (a unique start of its name is "
                     "enough): the day before it is the deadline."),
    ] = None,
    replan: Annotated[
        bool,
        typer.Option("--replan", help="With --goal: the plan proposed replaces the goal's "
                     "sessions still ahead."),
    ] = False,
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
        ended()
    workspace = ctx.obj = open_workspace(ctx, home, config_path)
    flags = {"subcommand": ctx.invoked_subcommand is not None, "request": request is not None,
             "blank": request is not None and not request.strip(), "demo": demo,
             "dry-run": dry_run, "continue": continue_run is not None,
             "until": until is not None, "goal": goal is not None, "replan": replan}
    refused = mode_refused(frozenset(name for name, given in flags.items() if given))
    if refused is not None:
        exit_usage(refused)
    if ctx.invoked_subcommand is None:
        _plan(workspace, Mode(request, demo, dry_run, continue_run, until, goal, replan))


# Which mode flags go together, checked in this order: the first row whose words all hold
# refuses the command line with its line, exit 2. A word is a flag given, `!flag` one not
# given, `a|b` either; `blank` is a --request of spaces. The rows naming `subcommand` are for
# a command line with a subcommand (`planner --home DIR runs`), the others for a run.
MODE_RULES = (
    ("subcommand request|demo|dry-run|continue|until", N_(
        "--request, --demo, --dry-run, --continue and --until cannot be combined with a "
        "subcommand")),
    ("subcommand goal", N_("--goal cannot be combined with a subcommand")),
    ("continue demo", N_(
        "--continue cannot be used with --demo: the demo's scripted replies cannot go on with a "
        "conversation; use --continue with -r TEXT (live) or add --dry-run")),
    ("continue !request", N_(
        "--continue needs your next message: planner --continue [RUN] -r TEXT")),
    ("demo request", N_(
        "--demo uses fixed scripted replies that would not be about your text; use --request "
        "TEXT (live) or --dry-run --request TEXT")),
    ("demo dry-run", N_("choose one of --demo and --dry-run")),
    ("!demo !dry-run !request", N_(
        "choose a mode: --demo, --dry-run (-n) or --request TEXT (-r); planner -h shows them "
        "all")),
    ("blank", N_("--request needs some text")),
    ("until demo", N_(
        "--until is for a live run (--request) or --dry-run; the demo's scripted plan has no "
        "deadline")),
    ("goal demo", N_(
        "--goal is for a live run (--request) or --dry-run; the demo's scripted plan has no "
        "goal")),
    ("replan !goal", N_(
        "--replan needs --goal NAME: the goal whose sessions still ahead are replaced")),
    ("goal until", N_(
        "--goal sets the deadline itself (the day before the goal); give --goal or --until, "
        "not both")),
)


def mode_refused(given: frozenset[str]) -> "Message | None":
    """The line refusing this mix of mode flags (MODE_RULES), or None when they go together."""

    def holds(word: str) -> bool:
        if word.startswith("!"):
            return word[1:] not in given
        return any(each in given for each in word.split("|"))

    for needs, line in MODE_RULES:
        words = needs.split()
        if ("subcommand" in words) == ("subcommand" in given) and all(map(holds, words)):
            return line
    return None


class Mode(NamedTuple):
    """A run's mode flags, as given (refused mixes are refused before)."""

    request: str | None
    demo: bool
    dry_run: bool
    continue_run: str | None
    until: str | None
    goal: str | None
    replan: bool


def _plan(workspace: Workspace, mode: Mode) -> None:
    """The run the mode flags ask for: a dry run, the demo or a live run, and how it ended."""
    home, request, goal, until = workspace.home, mode.request, mode.goal, mode.until
    deadline = None if until is None else _deadline(until)
    config = workspace.config()
    # Read before anything is asked or sent: an earlier run that cannot go on is exit 2.
    earlier = None if mode.continue_run is None else _earlier(home, mode.continue_run, request)
    if goal is None and earlier is not None and until is None:
        goal = _earlier_goal(home, earlier[0])  # --continue keeps the run's goal
    chosen = None if goal is None else goal_ahead(config, goal)
    if chosen is not None:
        deadline = chosen.deadline
    # The flow handles Ctrl+C itself; this is Ctrl+C before a run started (the key prompt).
    with interrupted(t("interrupted (Ctrl+C); nothing was saved")):
        if chosen is None and earlier is None and until is None and request is not None:
            chosen = _goal_named_in(config, request, ask=not mode.dry_run)
            deadline = None if chosen is None else chosen.deadline
        if mode.dry_run:
            from planner.conversation.protocol import DEFAULT_REQUEST

            notes = _notes(home, config)
            target = goal_target(notes, config, chosen)
            _dry_run(config, notes, request or DEFAULT_REQUEST, home, earlier, deadline,
                     target, _replaced(home, target, mode.replan))
            return
        if mode.demo or request is None:
            outcome = _demo(config, workspace.writable())
        else:
            notes = _notes(home, config)
            target = goal_target(notes, config, chosen)
            outcome = _live(config, notes, workspace, request, earlier, deadline, target,
                            _replaced(home, target, mode.replan))
    # The run has ended and its records say how; only the last lines were cut short.
    with interrupted(t("interrupted (Ctrl+C) after the run ended; planner show last tells how "
                       "it went")):
        _finish(outcome, None if mode.demo else config)


def _replaced(home: Path, goal: "GoalTarget | None", replan: bool) -> frozenset[str]:
    """--replan: the goal's saved sessions still ahead, which a proposal replaces; exit 2 when
    there are none."""
    if not replan or goal is None:
        return frozenset()
    import datetime as _dt

    from planner.conversation.replacing import sessions_ahead

    ahead = sessions_ahead(home, goal, _dt.date.today())
    if not ahead:
        exit_usage(t("--replan: no session of {name} is still ahead to replace; planner plan "
                     "--goal {name} plans it", name=goal.name))
    return frozenset(each.ref for each in ahead)


def _deadline(text: str) -> "_dt.date":
    """--until's day: a real date, today or later; anything else is exit 2 with one line."""
    import datetime as _dt

    day = parse_date(text)
    if day is None:
        exit_usage(t("--until {date}: must be a real date written YYYY-MM-DD", date=repr(text)))
    if day < _dt.date.today():
        exit_usage(t("--until {date} is in the past (today is {today}); give today or a later day",
                 date=day.isoformat(), today=_dt.date.today().isoformat()))
    return day


def goal_ahead(config: "Config", wanted: str) -> "Goal":
    """The goal --goal names (a unique start of its name, any case) and still ahead; else
    exit 2 naming the goals still ahead."""
    import datetime as _dt

    from planner.base.goals import find_goal

    today = _dt.date.today()
    # Names and dates only (data, not a sentence): no template that would match other lines.
    ahead = ", ".join(f"{each.name} ({each.date.isoformat()})"
                      for each in config.goals if each.is_ahead(today))
    found = find_goal(config.goals, wanted)
    if len(found) == 1 and found[0].is_ahead(today):
        return found[0]
    if len(found) == 1:
        problem = t("--goal {wanted}: the goal {name} is on {date}, which is not ahead",
                    wanted=repr(wanted), name=found[0].name, date=found[0].date.isoformat())
    elif found:
        problem = t("--goal {wanted} could be {names}; give more of the name",
                    wanted=repr(wanted), names=", ".join(each.name for each in found))
    else:
        problem = t("--goal {wanted}: {file} has no goal by that name", wanted=repr(wanted),
                    file=config.file)
    if ahead:
        exit_usage(t("{problem}; goals still ahead: {goals}", problem=problem, goals=ahead))
    exit_usage(t("{problem}; no goal is ahead (goals in {file} sets them)", problem=problem,
             file=config.file))


def _goal_named_in(config: "Config", request: str, ask: bool) -> "Goal | None":
    """The goal ahead that the request names (its name or its date) without --goal: asked
    about once on a terminal (Enter or y: plan for it); else one line naming --goal, and the
    run goes on without it (README "A study plan to a goal")."""
    import datetime as _dt
    import re
    import shlex

    today = _dt.date.today()
    folded = request.casefold()

    def names(goal: "Goal") -> bool:
        # Whole words on an ASCII side: the goal "IT" is not named by "with"; a Chinese name
        # has no spaces around it ("复习日语考试").
        pattern = r"(?<![a-z0-9])" + re.escape(goal.name.casefold()) + r"(?![a-z0-9])"
        return re.search(pattern, folded) is not None or \
            re.search(r"(?<![0-9])" + goal.date.isoformat() + r"(?![0-9])", request) is not None

    named = [each for each in config.goals if each.is_ahead(today) and names(each)]
    if not named:
        return None
    if len(named) > 1:
        ui.notice(t("This looks like your goals {goals}; planner -r TEXT --goal NAME plans for "
                    "one (this run goes on without a goal).", goals=", ".join(
                        f"{each.name} ({each.date.isoformat()})" for each in named)))
        return None
    (found,) = named
    if ask and ui.has_terminal():
        typed = ui.read_tty_line(t("This looks like your goal {name} ({date}): plan for it? "
                                   "[Y/n] ", name=found.name, date=found.date.isoformat()),
                                 discard_typed_ahead=True)
        # Enter is yes; end of input (Ctrl+D) and anything but y, yes or 是 is no.
        if typed is not None and (typed.strip() == "" and typed.endswith("\n")
                                  or answers.is_yes(typed)):
            return found
        if typed is not None:
            return None
    ui.notice(t("This looks like your goal {name} ({date}); planner -r TEXT --goal {quoted} "
                "plans for it (this run goes on without it).", name=found.name,
                date=found.date.isoformat(), quoted=shlex.quote(found.name)))
    return None


def _earlier_goal(home: Path, run_id: str) -> str | None:
    """The goal of the run --continue goes on with (None: it had none)."""
    from planner.records import history
    from planner.records.summary import DamagedRun

    with suppress(OSError, ValueError):
        summary = history.read_run(str(Path(history.records_dir(home)) / run_id), run_id,
                                   False)[0]
        return None if isinstance(summary, DamagedRun) else summary.goal
    return None


def goal_target(notes: "Catalog", config: "Config", goal: "Goal | None") -> "GoalTarget | None":
    """The run's goal with its notes; a selector matching nothing is one warning."""
    if goal is None:
        return None
    from planner.memory.readiness import target
    from planner.notes.selectors import goal_scope

    scope = goal_scope(notes, goal, config.file)
    say_warnings(scope.warnings(goal.name))
    return target(goal, scope.note_ids)


def timetable_for(config: "Config", home: Path, mode: str, today: "_dt.date",
                  until: "_dt.date | None" = None, busy: bool = True,
                  goal: "GoalTarget | None" = None, password: "Password | None" = None,
                  replaced: frozenset[str] = frozenset(),
                  marks: "Callable[[], Marks] | None" = None) -> "Timetable":
    """The run's study hours, daily minutes, busy calendars (`busy`), deadline (README "Your week")
    and
    goal."""
    from planner.base.config import study_windows
    from planner.calendar.ics import local_zone
    from planner.calendar.timetable import Timetable
    from planner.cli.plans import ask_caldav_password
    from planner.memory.anki_load import collection_path

    def read_marks() -> "Marks":
        # Read only when a session is placed (never by a dry run): imported then.
        from planner.memory.marking import quiet_marks

        return quiet_marks(home)

    timetable = Timetable(home=home, mode=mode, hours=study_windows(config),
                          daily_minutes=config.daily_minutes, review_time=config.review_time,
                          today=today, until=until,
                          sources=config.busy_calendars if busy else (),
                          zone=local_zone().tzinfo, password=password or ask_caldav_password,
                          marks=marks or read_marks, anki_collection=collection_path(config))
    timetable.goal, timetable.replaced = goal, replaced
    timetable.minutes_per_note = config.minutes_per_note
    return timetable


def _nothing_given(ctx: typer.Context) -> bool:
    """No option on the command line (PLANNER_HOME alone does not count)."""
    return all(getattr(ctx.get_parameter_source(name), "name", "DEFAULT") != "COMMANDLINE"
               for name in ctx.params)


def _memory(home: Path, notes: "Catalog", config: "Config") -> "ReviewMemory":
    """The review memory of a live run and its dry run (README "Review memory"); its warnings on
    stderr."""
    from planner.memory.review_memory import ReviewMemory

    memory = ReviewMemory(home, notes, config.desired_retention)
    say_warnings(memory.warnings())
    return memory


def _earlier(home: Path, wanted: str, request: str | None) -> tuple[str, list[dict[str, Any]]]:
    """The run --continue names and its conversation (an answer typed again as the request
    is sent once); exit 2 when it cannot go on."""
    from planner.conversation.continuing import earlier_conversation

    run_id = pick_run(home, wanted)
    # CannotContinue rises: a UsageError (exit 2).
    return run_id, earlier_conversation(home, run_id, request)


def continue_default(args: list[str]) -> list[str]:
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


def _dry_run(config: "Config", notes: "Catalog", request: str, home: Path = Path("."),
             continues: tuple[str, list[dict[str, Any]]] | None = None,
             until: "_dt.date | None" = None, goal: "GoalTarget | None" = None,
             replaced: frozenset[str] = frozenset()) -> None:
    """Build the first request with the live path's own function; send nothing."""
    import datetime as _dt

    from planner.conversation.protocol import (
        build_request,
        continued_messages,
        first_messages,
        registry_for,
    )
    from planner.ui import plain

    today = _dt.date.today()
    memory = _memory(home, notes, config)
    # The busy calendars are read only when a session is placed: never by a dry run. Nor is
    # the rest of the timetable: the first request reads its deadline and goal only.
    timetable = cast("Timetable", _TimetableLater(
        lambda: timetable_for(config, home, "live", today, until, goal=goal, replaced=replaced),
        home, config.review_time, until, goal))
    messages = (first_messages(request, notes, today, memory, timetable) if continues is None
                else continued_messages(request, continues[1], notes, today, memory, timetable))
    body = build_request(config, messages, registry_for(notes, today, memory, timetable),
                         "auto")
    from planner.base.secrets import key_source
    from planner.conversation.protocol import endpoint

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
    # Without Rich (planner.ui.plain): the same bytes, and the dry run starts sooner.
    plain.notice(line)
    # Which source a live run would take its key from; the secret itself is never read.
    plain.notice(t("Key for a live run: {source}.",
                   source=key_source(config, terminal=ui.has_terminal()).detail))
    ui.print_json(body)


class _TimetableLater:
    """The run's timetable as the first request reads it: its home, review time, deadline and
    goal at once, the rest (study hours, busy calendars, saved plans) built on first use."""

    def __init__(self, build: "Callable[[], Timetable]", home: Path, review_time: str,
                 until: "_dt.date | None", goal: "GoalTarget | None") -> None:
        self._build = build
        self._built: Timetable | None = None
        self.home, self.review_time, self.until, self.goal = home, review_time, until, goal

    def __getattr__(self, name: str) -> object:
        # Only what is not set above: the timetable's own study hours, busy time and plans.
        if self._built is None:
            self._built = self._build()
        return getattr(self._built, name)


def _demo(config: "Config", home: Path) -> "Outcome":
    import datetime as _dt

    from planner.conversation.demo import demo_client, demo_request
    from planner.notes.catalog import SAMPLE_NOTES

    today = _dt.date.today()
    ui.notice(t("Demo: the model replies are simulated (scripted, offline) and use the "
                "built-in sample notes; the checks, the SAVE prompt and the writes are real."))
    # The demo's plan is placed in study hours like any other; it reads no busy calendar.
    return _run(demo_request(today), demo_client(today), config, SAMPLE_NOTES, home, "demo",
                timetable=timetable_for(config, home, "demo", today, busy=False))


def _live(config: "Config", notes: "Catalog", workspace: Workspace, request: str,
          continues: tuple[str, list[dict[str, Any]]] | None = None,
          until: "_dt.date | None" = None, goal: "GoalTarget | None" = None,
          replaced: frozenset[str] = frozenset()) -> "Outcome":
    import datetime as _dt

    from planner.base.secrets import find_key
    from planner.model.client import LiveClient

    ask = ui.ask_hidden if ui.has_terminal() else None
    key = find_key(config, ask)  # a MissingKey (a ConfigError, exit 2) rises
    # Every question before the first request: never a password prompt mid-conversation.
    password = _caldav_passwords_first(config)
    # Created only now: a run refused before this point leaves no folder behind.
    home = workspace.writable()
    timetable = timetable_for(config, home, "live", _dt.date.today(), until, goal=goal,
                              password=password, replaced=replaced)
    return _run(request, LiveClient(config, key), config, notes, home, "live",
                _memory(home, notes, config), continues, timetable)


def _caldav_passwords_first(config: "Config") -> "Password":
    """The password of every CalDAV busy calendar, asked (or found) now, before the run's first
    request; busy time, read later, takes them from here."""
    from planner.cli.plans import ask_caldav_password

    answers = {(source["caldav"], source.get("user")):
               ask_caldav_password(source["caldav"], source.get("user"))
               for source in config.busy_calendars if "caldav" in source}
    return lambda url, user: answers.get((url, user))


def _run(request: str, client: "ModelClient", config: "Config",
         notes: "Sequence[Note] | Catalog", home: Path, mode: str,
         memory: "ReviewMemory | None" = None,
         continues: tuple[str, list[dict[str, Any]]] | None = None,
         timetable: "Timetable | None" = None) -> "Outcome":
    from planner.conversation.flow import run_flow
    from planner.ui.conversation import TerminalPerson

    return run_flow(request, client=client, person=TerminalPerson(str(home)), home=home,
                    config=config, notes=notes, mode=mode, memory=memory, continues=continues,
                    timetable=timetable)


def _finish(outcome: "Outcome", config: "Config | None" = None) -> None:
    """Render how the run ended (the events were shown as they came) and exit with its code.

    `config` is given for a live run: its prices turn the run's own tally into the cost line.
    """
    if outcome.error:
        ui.error(outcome.error)
    if outcome.call_failed:
        # The line after a failed call (README "中文界面"): the conversation is kept, every word in
        # it.
        ui.notice(t("Your conversation is kept: planner --continue -r TEXT goes on from here."))
    if outcome.folder is not None:
        if config is not None and not outcome.simulated and outcome.tally is not None:
            _run_cost(outcome.tally, config)
        # The folder's name is the run ID: said once, the line fits 80 columns.
        ui.notice(t("Records: {folder}", folder=outcome.folder))
    if outcome.exit_code:
        ended(outcome.exit_code)


def _run_cost(tally: "Tally", config: "Config") -> None:
    """One line: the run's calls, tokens and cost, from its own tally, as `costs` counts."""
    if tally.calls:
        # Prices belong to the model they name: another model's run has no known cost.
        prices = config.prices
        cost = tally.cost(prices) if prices.applies_to(config.model) else None
        from planner.ui.conversation import run_cost

        run_cost(tally.calls, tally.unknown_calls, tally.tokens, cost, prices.currency,
                 config.model)


def _notes(home: Path, config: "Config") -> "Catalog":
    """The run's notes catalog (notes folder, notes.json or the samples); warnings on stderr."""
    from planner.notes.catalog import load_catalog

    # A NotesError rises: a UsageError (exit 2).
    catalog = load_catalog(home, config.notes_dir, config.file, ui.indexing_progress())
    from planner.ui import plain

    for warning in catalog.warnings:
        plain.notice(warning)
    return catalog

