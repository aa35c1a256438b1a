"""The command line: options, modes and exit codes; wires config, flow and terminal."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from planner import __version__, ui
from planner.config import Config, ConfigError, load_config
from planner.flow import EXIT_INTERRUPTED, ConfirmRequest, Outcome, run_flow
from planner.notes import NotesError, load_notes
from planner.protocol import DEFAULT_REQUEST

EXIT_USAGE = 2

app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    no_args_is_help=False,
    help="A model proposes a review plan, planner checks it, you confirm it, then it is saved.",
)

HomeOption = Annotated[
    Path,
    typer.Option("--home", help="Folder holding plans/, demo-plans/ and tool-records/."),
]


class UsageProblem(Exception):
    """A usage or configuration error: one line, exit 2."""


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
        typer.Option("--config", help="Settings file [default: ./config.json if present]."),
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
    notes = _notes(home)
    try:
        if dry_run:
            _dry_run(config, notes, request or DEFAULT_REQUEST)
        elif demo:
            _finish(_demo(config, notes, home))
        else:
            _finish(_live(config, notes, home, request))
    except KeyboardInterrupt:
        # The flow handles Ctrl+C itself; this is Ctrl+C before a run started (the key prompt).
        ui.error("interrupted (Ctrl+C); nothing was saved")
        raise typer.Exit(EXIT_INTERRUPTED) from None


def _dry_run(config: Config, notes, request: str) -> None:
    """Build the first request with the live path's own function; send nothing."""
    import datetime as _dt

    from planner.protocol import build_request, first_messages

    body = build_request(config, first_messages(request, notes, _dt.date.today()), notes, "auto")
    ui.notice(f"Dry run: the first request live mode would send to {config.base_url} "
              "(POST /chat/completions). Nothing was sent; no key was read; nothing was written.")
    ui.print_json(body)


def _demo(config: Config, notes, home: Path) -> Outcome:
    from planner.demo import demo_client

    ui.notice("Demo: the model replies are simulated (scripted, offline); "
              "the checks, the SAVE prompt and the writes are real.")
    return _run(DEFAULT_REQUEST, demo_client(), config, notes, home, "demo")


def _live(config: Config, notes, home: Path, request: str) -> Outcome:
    from planner.config import MissingKey, find_api_key
    from planner.model import LiveClient

    ask = ui.ask_hidden if ui.has_terminal() else None
    try:
        key = find_api_key(config, ask)
    except MissingKey as error:
        _usage(str(error))
    return _run(request, LiveClient(config, key), config, notes, home, "live")


def _run(request: str, client, config: Config, notes, home: Path, mode: str) -> Outcome:
    def confirm(view: ConfirmRequest) -> bool:
        ui.show_plan(view, client.simulated)
        answer = ui.ask_save()
        if answer is None:
            ui.info("No terminal to confirm on: treated as cancel.")
        return bool(answer)

    return run_flow(
        request,
        client=client,
        confirm=confirm,
        home=home,
        config=config,
        notes=notes,
        mode=mode,
        on_result=lambda result: ui.show_result(result, str(home)),
    )


def _finish(outcome: Outcome) -> None:
    """Render the outcome (truth first, then the model's words) and exit with its code."""
    label = "Simulated model explanation" if outcome.simulated else "Model explanation"
    if outcome.question:
        asker = "Simulated model reply" if outcome.simulated else "Model reply (no plan proposed)"
        ui.show_model_text(asker, outcome.question)
    if outcome.explanation:
        ui.show_model_text(label, outcome.explanation)
    if outcome.error:
        ui.error(outcome.error)
    if outcome.folder is not None:
        ui.notice(f"Run {outcome.run_id}: records in {outcome.folder}")
    if outcome.exit_code:
        raise typer.Exit(outcome.exit_code)


def _config(path: Path | None) -> Config:
    try:
        return load_config(path)
    except ConfigError as error:
        _usage(str(error))


def _notes(home: Path):
    try:
        return load_notes(home)
    except NotesError as error:
        _usage(str(error))


def _usage(message: str) -> None:
    ui.error(message)
    raise typer.Exit(EXIT_USAGE)


def main() -> None:
    """Console-script entry."""
    app(prog_name="planner")
