"""The command line: options, modes and exit codes; wires config, flow and terminal."""

import gc
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from planner import __version__, status, ui

# Only what --help needs is imported here; each mode imports its own modules when it runs.
if TYPE_CHECKING:
    from planner.config import Config
    from planner.flow import Outcome

EXIT_USAGE = status.EXIT_USAGE
EXIT_INTERRUPTED = status.EXIT_INTERRUPTED

app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    no_args_is_help=False,
    # Plain help: Rich help formatting loads a Markdown parser and costs ~60 ms per command.
    rich_markup_mode=None,
    help="A model proposes a review plan, planner checks it, you confirm it, then it is saved.",
)

HomeOption = Annotated[
    Path,
    typer.Option("--home", help="Folder holding plans/, demo-plans/ and tool-records/."),
]


def _version(value: bool) -> None:
    if value:
        ui.info(f"planner {__version__}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def main_command(
    ctx: typer.Context,
    request: Annotated[
        str | None, typer.Option("--request", help="Ask the live model to plan this request.")
    ] = None,
    demo: Annotated[
        bool, typer.Option("--demo", help="Offline run with scripted (simulated) model replies.")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the first request live mode would send.")
    ] = False,
    config_path: Annotated[
        Path | None,
        typer.Option("--config", help="Settings file (default: ./config.json if present)."),
    ] = None,
    home: HomeOption = Path("."),
    version: Annotated[
        bool | None,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = None,
) -> None:
    """Plan a review: --demo (offline), --dry-run (show the request) or --request TEXT (live)."""
    ctx.obj = {"home": home, "config": config_path}
    if ctx.invoked_subcommand is not None:
        if request is not None or demo or dry_run:
            _usage("--request, --demo and --dry-run cannot be combined with a subcommand")
        return
    if demo and request is not None:
        _usage("--demo uses fixed scripted replies that would not be about your text; "
               "use --request TEXT (live) or --dry-run --request TEXT")
    if demo and dry_run:
        _usage("choose one of --demo and --dry-run")
    if not (demo or dry_run or request is not None):
        _usage("choose a mode: --demo, --dry-run or --request TEXT (see planner --help)")
    if request is not None and not request.strip():
        _usage("--request needs some text")
    config = _config(config_path)
    try:
        if dry_run:
            from planner.protocol import DEFAULT_REQUEST

            _dry_run(config, _notes(home), request or DEFAULT_REQUEST)
        elif demo:
            _finish(_demo(config, home))
        else:
            _finish(_live(config, _notes(home), home, request))
    except KeyboardInterrupt:
        # The flow handles Ctrl+C itself; this is Ctrl+C before a run started (the key prompt).
        ui.error("interrupted (Ctrl+C); nothing was saved")
        raise typer.Exit(EXIT_INTERRUPTED) from None


def _dry_run(config: "Config", notes, request: str) -> None:
    """Build the first request with the live path's own function; send nothing."""
    import datetime as _dt

    from planner.protocol import build_request, first_messages, registry_for

    messages = first_messages(request, notes, _dt.date.today())
    body = build_request(config, messages, registry_for(notes), "auto")
    ui.notice(f"Dry run: the first request live mode would send to {config.base_url} "
              "(POST /chat/completions). Nothing was sent; no key was read; nothing was written.")
    ui.print_json(body)


def _demo(config: "Config", home: Path) -> "Outcome":
    import datetime as _dt

    from planner.demo import demo_client, demo_request
    from planner.notes import SAMPLE_NOTES

    today = _dt.date.today()
    ui.notice("Demo: the model replies are simulated (scripted, offline) and use the built-in "
              "sample notes; the checks, the SAVE prompt and the writes are real.")
    return _run(demo_request(today), demo_client(today), config, SAMPLE_NOTES, home, "demo")


def _live(config: "Config", notes, home: Path, request: str) -> "Outcome":
    from planner.config import MissingKey, find_api_key
    from planner.model import LiveClient

    ask = ui.ask_hidden if ui.has_terminal() else None
    try:
        key = find_api_key(config, ask)
    except MissingKey as error:
        _usage(str(error))
    return _run(request, LiveClient(config, key), config, notes, home, "live")


def _run(request: str, client, config: "Config", notes, home: Path, mode: str) -> "Outcome":
    from planner.flow import run_flow

    return run_flow(request, client=client, person=ui.TerminalPerson(str(home)), home=home,
                    config=config, notes=notes, mode=mode)


def _finish(outcome: "Outcome") -> None:
    """Render how the run ended (the events were shown as they came) and exit with its code."""
    if outcome.error:
        ui.error(outcome.error)
    if outcome.folder is not None:
        ui.notice(f"Run {outcome.run_id}: records in {outcome.folder}")
    if outcome.exit_code:
        raise typer.Exit(outcome.exit_code)


def _config(path: Path | None) -> "Config":
    from planner.config import ConfigError, load_config

    try:
        return load_config(path)
    except ConfigError as error:
        _usage(str(error))


def _notes(home: Path):
    from planner.notes import NotesError, load_notes

    try:
        return load_notes(home)
    except NotesError as error:
        _usage(str(error))


def _usage(message: str) -> None:
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
        ui.error("standard output is closed; nothing was run (give planner somewhere to "
                 "write, for example > /dev/null)")
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
        app(prog_name="planner")
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
        reason = ("its reader stopped reading (broken pipe)" if isinstance(error, BrokenPipeError)
                  else f"{error.strerror or error}")
        try:
            ui.error(f"could not write the output to stdout: {reason}; what was written is "
                     "incomplete")
        except OSError:
            pass
        if ending.code in (None, status.EXIT_OK):
            ending = SystemExit(status.EXIT_FAILED)
    raise ending


# --- Reading the records back: planner runs / show / costs ---------------------------------------
# planner.history is imported inside each command, so --help, --dry-run and --demo never load it.

JsonFlag = Annotated[
    bool, typer.Option("--json", help="Print stable machine-readable JSON on stdout.")
]
SubHomeOption = Annotated[
    Path | None,
    typer.Option("--home", help="Folder holding tool-records/ (default: the --home before the "
                 "command, else .)."),
]
SubConfigOption = Annotated[
    Path | None,
    typer.Option("--config", help="Settings file with the price table (default: ./config.json if "
                 "present)."),
]
LimitOption = Annotated[
    int | None,
    typer.Option("--limit", min=0, help="List only the newest N runs (default: 50 in tables, "
                 "all with --json; 0: all). Totals always cover every run."),
]
TABLE_LIMIT = 50  # a terminal table of 10,000 rows is slow to draw (Rich) and no use to read


def _records_home(ctx: typer.Context, home: Path | None) -> Path:
    """The subcommand's own --home wins over the one given before the subcommand."""
    if home is not None:
        return home
    return (ctx.obj or {}).get("home") or Path(".")


def _records_config(ctx: typer.Context, config_path: Path | None) -> "Config":
    return _config(config_path if config_path is not None else (ctx.obj or {}).get("config"))


def _history_failed(error: Exception) -> None:
    ui.error(f"{error}; check the folder's permissions")
    raise typer.Exit(1)


def _limit(limit: int | None, as_json: bool) -> int | None:
    """How many runs to list: None means all."""
    if limit is None:
        return None if as_json else TABLE_LIMIT
    return limit or None


@app.command("runs")
def runs_command(
    ctx: typer.Context,
    as_json: JsonFlag = False,
    limit: LimitOption = None,
    home: SubHomeOption = None,
    config_path: SubConfigOption = None,
) -> None:
    """List the runs in tool-records/, newest first (damaged ones included)."""
    from planner import history

    prices = _records_config(ctx, config_path).prices
    try:
        rows, total = history.list_runs(
            _records_home(ctx, home), prices, _limit(limit, as_json)
        )
    except history.HistoryError as error:
        _history_failed(error)
    if as_json:
        ui.print_json_lines(rows)
    else:
        ui.runs_table(rows, prices.currency, total)


@app.command("show")
def show_command(
    ctx: typer.Context,
    run_id: Annotated[str, typer.Argument(help="A run ID, or a unique start of one.")],
    as_json: JsonFlag = False,
    home: SubHomeOption = None,
    config_path: SubConfigOption = None,
) -> None:
    """Show one run step by step: request, proposal, decision, write, explanation, calls."""
    from planner import history

    prices = _records_config(ctx, config_path).prices
    folder = _records_home(ctx, home)
    try:
        found = history.find_run(folder, run_id)
    except history.RunNotFound as error:
        _usage(str(error))
    except history.HistoryError as error:
        _history_failed(error)
    detail = history.run_detail(folder, found, prices)
    if as_json:
        ui.print_json(detail)
    else:
        ui.run_detail(detail)


@app.command("costs")
def costs_command(
    ctx: typer.Context,
    as_json: JsonFlag = False,
    limit: LimitOption = None,
    home: SubHomeOption = None,
    config_path: SubConfigOption = None,
) -> None:
    """Token usage and cost per run and in total (known part; simulated runs left out)."""
    from planner import history

    prices = _records_config(ctx, config_path).prices
    try:
        report, damaged = history.cost_report(_records_home(ctx, home), prices)
    except history.HistoryError as error:
        _history_failed(error)
    shown = _limit(limit, as_json)
    if as_json:
        # --limit shortens the `runs` list only; `total` always covers every priced run.
        report["runs"] = report["runs"][:shown]
        ui.print_json_lines(report)
        if damaged:
            # The JSON object's shape is fixed, so the damaged count goes to stderr.
            ui.notice(f"{damaged} damaged run(s) left out (see planner runs)")
    else:
        table_prices = {"hit": prices.input_cache_hit, "miss": prices.input_cache_miss,
                        "output": prices.output}
        ui.costs_table(report, table_prices, damaged, shown)


# --- Saved plans: planner plans / export ---------------------------------------------------------
# planner.plans is imported inside each command, and planner.ics (with icalendar, ~50 ms) only by
# export, so --help, --dry-run and --demo never load them.

PlansHomeOption = Annotated[
    Path | None,
    typer.Option("--home", help="Folder holding plans/ and demo-plans/ (default: the --home "
                 "before the command, else .)."),
]
DemoPlansFlag = Annotated[
    bool, typer.Option("--demo", help="The demo's plans in demo-plans/ instead of plans/.")
]


def _plans_home(ctx: typer.Context, home: Path | None) -> Path:
    folder = _records_home(ctx, home)
    if not folder.is_dir():
        _usage(f"--home {folder}: no such folder")
    return folder


def _plans_failed(error: object) -> None:
    ui.error(str(error))
    raise typer.Exit(1)


@app.command("plans")
def plans_command(
    ctx: typer.Context,
    show_all: Annotated[
        bool, typer.Option("--all", help="Past plans too, newest first, after the upcoming ones.")
    ] = False,
    as_json: JsonFlag = False,
    demo: DemoPlansFlag = False,
    home: PlansHomeOption = None,
) -> None:
    """List saved plans: upcoming first (today, then later); files with a problem are named.

    Example: planner plans --all
    """
    import datetime as _dt

    from planner import plans

    folder = _plans_home(ctx, home)
    today = _dt.date.today()
    try:
        rows = plans.list_plans(folder, demo, True, today)
    except plans.PlansError as error:
        _plans_failed(error)
    hidden = 0
    if not show_all:
        # Every file is read either way (the date is inside); the past ones are only counted.
        now = today.isoformat()
        kept = [row for row in rows if row["problem"] is not None or row["date"] >= now]
        hidden, rows = len(rows) - len(kept), kept
    if as_json:
        ui.print_json_lines(rows)
    else:
        ui.plans_table(rows, plans.PLANS_DIR["demo" if demo else "live"], today, hidden)


@app.command("export")
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
    show_all: Annotated[
        bool, typer.Option("--all", help="Every plan, past ones too (default: upcoming ones).")
    ] = False,
    demo: DemoPlansFlag = False,
    home: PlansHomeOption = None,
    config_path: Annotated[
        Path | None,
        typer.Option("--config", help="Settings file with review_time (default: ./config.json "
                     "if present)."),
    ] = None,
) -> None:
    """Export saved plans as calendar events at review_time (config), with a reminder.

    Each plan keeps its event ID, so importing a newer export updates the events instead of
    adding them twice.

    Example: planner export --ics --output plans.ics
    """
    import datetime as _dt

    from planner import plans, storage

    if not ics:
        _usage("choose the format: --ics (iCalendar)")
    if output is not None and (output.is_symlink() or output.exists()):
        _usage(f"{output} already exists; planner never overwrites a file: "
               "choose another name or remove it")
    review_time = getattr(_records_config(ctx, config_path), "review_time", "19:00")
    folder = _plans_home(ctx, home)
    label = plans.PLANS_DIR["demo" if demo else "live"]
    try:
        rows = plans.list_plans(folder, demo, show_all, _dt.date.today())
    except plans.PlansError as error:
        _plans_failed(error)
    good = [row for row in rows if row["problem"] is None]
    for row in rows:
        if row["problem"] is not None:
            ui.notice(f"Skipped {row['file']}: {row['problem']}")
    if not good:
        ui.notice(f"No plans in {label}/ to export; nothing was written." if show_all else
                  f"No upcoming plans in {label}/ to export (--all exports past ones too); "
                  "nothing was written.")
        return
    from planner.ics import export_ics

    try:
        data = export_ics(good, review_time)
    except ValueError as error:
        _usage(str(error))
    if output is None:
        try:
            ui.write_bytes(data)
        except OSError as error:
            _plans_failed(f"could not write the calendar to stdout ({error.strerror or error})")
        return
    try:
        storage.create_exclusive(output, data)
    except FileExistsError:
        _usage(f"{output} already exists; planner never overwrites a file: "
               "choose another name or remove it")
    except OSError as error:
        _plans_failed(f"could not create {output} ({error.strerror or error}); "
                      "nothing was written")
    ui.notice(f"Exported {len(good)} plan(s) from {label}/ to {output}.")


# --- Your notes: planner notes -------------------------------------------------------------------
# planner.notes is imported inside the command; it opens the index (sqlite3) and reads front
# matter (yaml) only for a notes folder, so --help, --dry-run and --demo never load them.

NotesHomeOption = Annotated[
    Path | None,
    typer.Option("--home", help="Folder holding notes/ (or notes.json) and the index in "
                 ".planner/ (default: the --home before the command, else .)."),
]
NOTES_TABLE_LIMIT = 50  # notes listed in a table without QUERY
NOTES_MATCHES = 10  # best matches shown for a QUERY, table or JSON


@app.command("notes")
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
        typer.Option("--limit", min=0, help="How many notes (default: 50 in the table and all "
                     "with --json; with QUERY the best 10; 0: all)."),
    ] = None,
    home: NotesHomeOption = None,
    config_path: Annotated[
        Path | None,
        typer.Option("--config", help="Settings file with notes_dir (default: ./config.json if "
                     "present)."),
    ] = None,
) -> None:
    """List your notes (ID, title, tags, file), or search them: best matches with a snippet.

    Example: planner notes 检索 --limit 5
    """
    from planner.notes import MAX_QUERY, NotesError, load_catalog

    folder = _plans_home(ctx, home)
    notes_dir = getattr(_records_config(ctx, config_path), "notes_dir", None)
    if query is not None and not query.strip():
        _usage("QUERY needs some words (or leave it out to list the notes)")
    if limit is not None:
        shown = limit or None
    elif query is not None:
        shown = NOTES_MATCHES
    else:
        shown = None if as_json else NOTES_TABLE_LIMIT
    try:
        catalog = load_catalog(folder, notes_dir)
        try:
            rows, total = catalog.rows(query, shown)
        finally:
            catalog.close()
    except NotesError as error:
        _usage(str(error))
    for line in catalog.warnings:
        ui.notice(f"Warning: {line}")
    if as_json:
        ui.print_json_lines(rows)
    else:
        where = {"samples": "the built-in samples", "notes.json": str(folder / "notes.json")}
        ui.notes_table(rows, total, where.get(catalog.source) or f"{catalog.folder}/", query)
    if query is not None and len(query) > MAX_QUERY:
        _usage(f"QUERY has {len(query):,} characters; at most {MAX_QUERY} (a few words find "
               "a note)")
