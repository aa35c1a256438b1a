"""Reading the records back: planner runs, show and costs."""

from contextlib import suppress
from typing import TYPE_CHECKING, Annotated

import typer

from planner import ui
from planner.base.i18n import t
from planner.cli.common import (
    TABLE_LIMIT,
    ConfigOption,
    HomeOption,
    JsonFlag,
    complete_run,
    open_workspace,
    pick_run,
    records_label,
)

if TYPE_CHECKING:
    pass

# planner.records.history is imported inside each command, so --help, --dry-run and --demo
# never load it.

LimitOption = Annotated[
    int | None,
    typer.Option("--limit", "-L", min=0, help="List only the newest N runs (default: 50 in "
                 "tables, all with --json; 0: all). Totals always cover every run."),
]


def _limit(limit: int | None, as_json: bool) -> int | None:
    """How many runs to list: None means all."""
    if limit is None:
        return None if as_json else TABLE_LIMIT
    return limit or None


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

    workspace = open_workspace(ctx, home, config_path)
    folder, prices = workspace.home, workspace.config().prices
    rows, total = history.list_runs(folder, _limit(limit, as_json))
    if as_json:
        ui.print_json_lines([row.to_json(prices) for row in rows])
    else:
        ui.runs_table(rows, prices, total, records_label(folder))


def show_command(
    ctx: typer.Context,
    run_id: Annotated[
        str,
        typer.Argument(metavar="[RUN]", show_default=False, autocompletion=complete_run,
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

    workspace = open_workspace(ctx, home, config_path)
    folder, prices = workspace.home, workspace.config().prices
    found = pick_run(folder, run_id)
    detail = history.run_detail(folder, found, prices)
    if as_json:
        ui.print_json(detail.to_json())
    else:
        ui.run_detail(detail)


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

    workspace = open_workspace(ctx, home, config_path)
    folder, prices = workspace.home, workspace.config().prices
    report = history.cost_report(folder)
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
        order: list[str] = []
        with suppress(history.HistoryError):  # no -N then; the costs are still shown
            order = history.run_ids(folder)
        ui.costs_table(report, prices, shown, records_label(folder), order)


