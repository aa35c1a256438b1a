"""The report screens: `planner runs`, `show`, `costs`, `plans`, `notes` and `where`."""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.panel import Panel
from rich.text import Text

from planner.inert import inert_block, inert_line
from planner.status import INTERRUPTED, RUNNING, STAGE_WORDS, STOPPED, WORDS
from planner.ui.console import info, out, print_line
from planner.ui.dates import WEEKDAYS, distance, parse_day

if TYPE_CHECKING:
    from rich.table import Table

    from planner.config import Prices
    from planner.costs import Tally
    from planner.history import CostReport, PricedCall, RunDetail, RunRow
    from planner.records import PlanRecord, RunSummary, Step, ToolResult

WIDE = 110  # below this many columns the plans and notes tables keep only their key columns
GAP = 2  # blank cells between two columns of a list table
TITLE_ROOM = 16  # cells a title keeps before an optional column may take its place
TITLE_LEAST = 10  # cells a title keeps before run IDs give way to -1, -2, ...
ERROR_LEAST = 20  # cells the calls table's error keeps before the file names give way
# By the one word a run is called (status.run_word); any other word is yellow.
_STYLE = {
    "saved": "green", "complete": "green", "cancelled": "yellow", "no plan proposed": "cyan",
    "running": "cyan", "stopped": "red", "call limit reached": "red", "interrupted": "yellow",
    "damaged": "bold red",
}


# --- Cells and columns ------------------------------------------------------------------------


def _list_table(title: str, footer: bool = False) -> Table:
    """A borderless table: a rule under the header (and above the footer), 2 spaces between."""
    from rich import box
    from rich.table import Table

    return Table(
        # Text, not a string: a folder name in the title is never read as markup.
        title=Text(inert_line(title)), title_justify="left", box=box.SIMPLE, show_edge=False,
        pad_edge=False, collapse_padding=True, show_footer=footer,
    )


def _cell(value: object, style: str = "") -> Text:
    # Everything in a table was read back from files: made inert, never obeyed.
    return Text("-" if value is None else inert_line(value), style=style)


def _span(header: str, cells: list[Text], footer: str = "") -> int:
    """The cells a no-wrap column needs: its widest cell, header or footer."""
    return max([cell_len(header), cell_len(footer), *(cell.cell_len for cell in cells)])


def _fit(width: int, spans: Sequence[int],
         optional: Sequence[tuple[str, Sequence[int]]] = ()) -> tuple[list[str], int]:
    """The optional columns that fit beside `spans` (by priority), and the cells left over."""
    # Columns are GAP cells apart. A column that wraps counts as the least it may have and
    # gets what is left over; less than 0 left over: even `spans` alone do not fit.
    left = width - sum(spans) - GAP * (len(spans) - 1)
    chosen = []
    for name, group in optional:
        needed = sum(group) + GAP * len(group)
        if left >= needed:
            chosen.append(name)
            left -= needed
    return chosen, left


def _note(text: str) -> None:
    """A line under a table, wrapped between words at the terminal's width."""
    out.print(Text(inert_line(text)))


# --- Words for recorded values ----------------------------------------------------------------


def _status(word: str) -> Text:
    """A status cell: the run's one word (status.run_word), coloured by what it means."""
    word = inert_line(word)
    return Text(word, style=_STYLE.get(word, "yellow"))


def _when(value: object) -> str:
    """A recorded ISO time as 'YYYY-MM-DD HH:MM' (the run's local time as recorded)."""
    return value[:16].replace("T", " ") if isinstance(value, str) else "-"


def _money(cost: object, unknown: object = 0) -> str:
    """The known cost to 6 decimals; '+N?' marks N calls whose usage is unknown (not priced)."""
    text = f"{cost:.6f}" if isinstance(cost, int | float) else "-"
    return f"{text} +{unknown}?" if isinstance(unknown, int) and unknown else text


def _count(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) else "-"


def _back_numbers(count: int) -> list[Text]:
    """-1, -2, ...: what `planner show` takes for the newest runs, when IDs do not fit."""
    return [Text(f"-{number}") for number in range(1, count + 1)]


# --- planner runs -----------------------------------------------------------------------------


def runs_table(rows: Sequence[RunRow], prices: Prices, total: int, where: str) -> None:
    """`planner runs`: one line per run; it fits the terminal and never cuts a status or cost.

    The ID, status, title and cost are always there (a long title ends in …; below about
    70 columns the run is named by its -N for `planner show`); time, calls and mode are
    added while the title keeps room, so 120 columns show them all.
    """
    if not total:
        info(f"No runs in {where} yet: planner --demo makes one (offline, nothing to pay).")
        return
    columns: dict[str, list[Text]] = {
        "Run ID": [], "Time": [], "Mode": [], "Status": [], "Calls": [], "Title": [], "Cost": []}
    unknown = unpriced = False
    for row in rows:
        tally = row.tally
        if tally is None:  # damaged: the problem takes the title's place
            title, price = _cell(row.problem, "red"), "-"
        else:
            title = _cell(row.title)
            cost = row.cost(prices)
            if row.simulated:
                price = "simulated"
            elif cost is None:
                price, unpriced = "unknown", True
            else:
                price = _money(cost, tally.unknown_calls)
                unknown = unknown or bool(tally.unknown_calls)
        title.no_wrap, title.overflow = True, "ellipsis"
        for name, cell in (
            ("Run ID", _cell(row.run_id)), ("Time", _cell(_when(row.created_at))),
            ("Mode", _cell(row.mode)), ("Status", _status(row.word)),
            ("Calls", _cell(_count(None if tally is None else tally.calls))), ("Title", title),
            ("Cost", _cell(price)),
        ):
            columns[name].append(cell)
    cost_header = f"Cost {prices.currency}"
    least = min(TITLE_ROOM, _span("Title", columns["Title"]))
    status, cost = _span("Status", columns["Status"]), _span(cost_header, columns["Cost"])
    _, left = _fit(out.width, [_span("Run ID", columns["Run ID"]), status,
                               min(least, TITLE_LEAST), cost])
    by_number = left < 0
    if by_number:
        columns["Run ID"] = _back_numbers(len(rows))
    first = "#" if by_number else "Run ID"
    shown, left = _fit(out.width, [_span(first, columns["Run ID"]), status, least, cost],
                       [(name, [_span(name, columns[name])]) for name in
                        ("Time", "Calls", "Mode")])
    grid = _list_table(f"Runs in {where}: {total}, newest first")
    grid.add_column(first, no_wrap=True, justify="right" if by_number else "left")
    for name in ("Time", "Mode"):
        if name in shown:
            grid.add_column(name, no_wrap=True)
    grid.add_column("Status", no_wrap=True)
    if "Calls" in shown:
        grid.add_column("Calls", justify="right", no_wrap=True)
    # The one column that gives way: one line each, cut with …; Rich counts a Chinese
    # character as two cells.
    # Below about 60 columns even that leaves the title less than `least`: it takes what is left.
    grid.add_column("Title", min_width=max(1, min(least, least + left)), max_width=48)
    grid.add_column(cost_header, justify="right", no_wrap=True)
    names = ["Run ID", *(name for name in ("Time", "Mode") if name in shown), "Status",
             *(["Calls"] if "Calls" in shown else []), "Title", "Cost"]
    for index in range(len(rows)):
        grid.add_row(*(columns[name][index] for name in names))
    out.print(grid)
    if unknown:
        _note("+N? = N calls with unknown usage (failed or not reported): not priced, not zero.")
    if unpriced:
        _note(_unpriced_note(prices))
    if by_number:
        _note("#: -1 is the newest run; planner show -1 opens it. Run IDs: planner runs --json "
              "or a wider terminal.")
    hidden = [name for name in ("Time", "Mode", "Calls") if name not in shown]
    if hidden:
        _note(f"Not shown at this width: {', '.join(hidden)} (a wider terminal or "
              "planner runs --json shows them).")
    if len(rows) < total:
        _note(f"Showing the newest {len(rows)} of {total} runs: --limit N shows more (0: all); "
              "--json lists them all.")


# --- planner costs ----------------------------------------------------------------------------


def costs_table(report: CostReport, prices: Prices, limit: int | None, where: str,
                order: list[str] | None = None) -> None:
    """`planner costs`: tokens and known cost per run, the total of all runs, what was left out.

    Wide enough, every count has its column; narrower, the tokens are one sum and the calls
    with unknown usage a `+N?` beside the cost; status and cost are always there. `order`:
    every run ID, newest first, so a narrow table can name runs by their -N for `show`.
    """
    total, priced = report.total, len(report.runs)
    if not priced:
        left_out = []
        if report.simulated:
            left_out.append(f"{report.simulated} simulated (demo) run(s)")
        if report.damaged:
            left_out.append(f"{report.damaged} damaged run(s)")
        info(f"No priced runs in {where}: left out {' and '.join(left_out)}." if left_out
             else f"No runs in {where} yet, so nothing has cost anything.")
        return
    runs = report.runs if limit is None else report.runs[:limit]
    tallies = [_counted(run) for run in runs]
    # The total cost is the known part: runs whose model the prices are for (SPEC 21).
    known = report.priced(prices).cost(prices)
    ids = [_cell(run.run_id) for run in runs]
    states = [_status(run.word) for run in runs]
    footer = f"total, {priced} runs"

    def column(name: str, counts: list[int], all_runs: int) -> tuple[str, list[Text], str]:
        return name, [_cell(_count(count)) for count in counts], _count(all_runs)

    wide = [
        column("Calls", [tally.calls for tally in tallies], total.calls),
        column("Unknown", [tally.unknown_calls for tally in tallies], total.unknown_calls),
        column("Input hit", [tally.input_cache_hit_tokens for tally in tallies],
               total.input_cache_hit_tokens),
        column("Input miss", [tally.input_cache_miss_tokens for tally in tallies],
               total.input_cache_miss_tokens),
        column("Output", [tally.output_tokens for tally in tallies], total.output_tokens),
        ("Cost", [_cell(_run_money(run, prices)) for run in runs], _money(known)),
    ]
    narrow = [
        column("Tokens", [tally.tokens for tally in tallies], total.tokens),
        ("Cost", [_cell(_run_money(run, prices, True)) for run in runs],
         _money(known, total.unknown_calls)),
    ]

    def left_with(numbers: list[tuple[str, list[Text], str]]) -> int:
        spans = [_span("Run ID", ids, footer), _span("Status", states),
                 *(_span(name, cells, foot) for name, cells, foot in numbers)]
        return _fit(out.width, spans)[1]

    numbers = wide if left_with(wide) >= 0 else narrow
    by_number = left_with(numbers) < 0
    grid = _list_table(f"Costs in {prices.currency}, known part only", footer=True)
    grid.add_column("#" if by_number else "Run ID", no_wrap=True, footer=footer)
    grid.add_column("Status", no_wrap=True)
    for name, _cells, foot in numbers:
        grid.add_column(name, justify="right", no_wrap=True, footer=foot)
    id_cells = ids
    if by_number:
        # -N counts every run, as `planner show -N` does, demo and damaged ones included.
        position = {run_id: number for number, run_id in enumerate(order or (), 1)}
        id_cells = [Text(f"-{position[run.run_id]}" if run.run_id in position else "?")
                    for run in runs]
    for index in range(len(runs)):
        grid.add_row(id_cells[index], states[index],
                     *(cells[index] for _name, cells, _foot in numbers))
    out.print(grid)
    _note(f"Prices per million tokens: input cache hit {prices.input_cache_hit}, input cache "
          f"miss {prices.input_cache_miss}, output {prices.output}.")
    _note(f"Tokens in total: input cache hit {_count(total.input_cache_hit_tokens)}, "
          f"input cache miss {_count(total.input_cache_miss_tokens)}, "
          f"output {_count(total.output_tokens)}.")
    if total.unknown_calls:
        marked = "; +N? beside a cost" if numbers is narrow else ""
        _note(f"{total.unknown_calls} call(s) have unknown usage (failed, or not "
              f"reported{marked}): not priced, not counted as zero; the cost is the known part "
              "only.")
    if by_number:
        _note("#: planner show -N opens that run. Run IDs: planner costs --json or a wider "
              "terminal.")
    unpriced = report.unpriced(prices)
    if unpriced:
        _note(f"{unpriced} run(s) asked another model: " + _unpriced_note(prices))
    if report.simulated:
        _note(f"Left out: {report.simulated} simulated (demo) run(s).")
    if report.damaged:
        _note(f"Left out: {report.damaged} damaged run(s) whose summary.json cannot be used "
              "(see planner runs).")
    if len(runs) < priced:
        _note(f"Showing the newest {len(runs)} of {priced} priced runs; the total covers "
              "them all. --limit N shows more (0: all).")


def _run_money(run: RunRow, prices: Prices, marked: bool = False) -> str:
    """A run's known cost ('+N?' when `marked` and calls have unknown usage); 'unknown' when
    the prices are for another model."""
    cost = run.cost(prices)
    if cost is None:
        return "unknown"
    return _money(cost, _counted(run).unknown_calls if marked else 0)


def _unpriced_note(prices: Prices) -> str:
    return (f"unknown = the prices in config are for {inert_line(prices.model)}, not for the "
            "run's model; its cost is not counted (set prices.model and the prices for it).")


def _counted(run: RunRow) -> Tally:
    assert run.tally is not None  # a priced run was read, so its calls were counted
    return run.tally


# --- planner show -----------------------------------------------------------------------------


def run_detail(detail: RunDetail) -> None:
    """`planner show`: one run step by step: asked, proposed, decided, written, explained."""
    from rich.table import Table

    from planner.records import DamagedRun

    summary = detail.summary
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    if isinstance(summary, DamagedRun):
        grid.add_row("Status", _status(detail.word))
        grid.add_row("Problem", _cell(summary.why, "red"))
    else:
        grid.add_row("Status", _state_line(detail.word, detail.status, summary))
        if detail.status != summary.status:
            recorded = WORDS.get(summary.status, summary.status)
            grid.add_row("", _cell(f"recorded as {recorded}; its process is gone", "dim"))
    grid.add_row("Folder", _cell(detail.folder))
    if not isinstance(summary, DamagedRun):
        _summary_rows(grid, summary, detail)
    grid.add_row("Files", _cell(", ".join(detail.files) or "none"))
    out.print(Panel(grid, title=Text(f"Run {inert_line(detail.run_id)}"), title_align="left",
                    expand=False))
    if isinstance(summary, DamagedRun):
        return
    if detail.calls:
        _calls_table(detail.calls)
    if summary.steps:
        _conversation(summary.steps, "Simulated model" if summary.is_simulated else "Model")


def _state_line(word: str, state: str, summary: RunSummary) -> Text:
    """`stopped while asking the model`: the run's word and, for an unfinished run, its step."""
    line = _status(word)
    doing = STAGE_WORDS.get(summary.stage) if summary.stage is not None else None
    if doing and state in (STOPPED, INTERRUPTED, RUNNING):
        line.append(f": {doing}" if state == RUNNING else f" while {doing}")
    return line


def _conversation(steps: Sequence[Step], model: str) -> None:
    """`planner show`: the run told as the conversation it was, step by step."""
    from rich.table import Table

    grid = Table.grid(padding=(0, 2))
    grid.add_column(justify="right", no_wrap=True)
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    for step in steps:
        who, what = _step_words(step, model)
        grid.add_row(_cell("" if step.call is None else f"#{step.call}"), Text(who), what)
    out.print(Panel(grid, title=Text("Conversation"), title_align="left", expand=False))


def _step_words(step: Step, model: str) -> tuple[str, Text]:
    """Who spoke in one recorded step, and what they said or what the program did."""
    match step.kind:
        case "proposal":
            plan = step.plan
            title = None if plan is None else plan.title
            return model, _cell(f"proposed {title!s}: {_plan_words(plan)}")
        case "rejected":
            then = (f"sent back to be corrected ({step.repair})" if step.repair
                    else "not sent back; the run stopped")
            return "planner", _cell(f"rejected {step.tool}: {step.error}; {then}", "yellow")
        case "lookup":
            arguments = json.dumps(step.arguments, ensure_ascii=False)
            return "planner", _cell(f"looked up {step.tool} {arguments} → {step.found}")
        case "question":
            return f"{model} said (no plan)", Text(inert_block(step.text))
        case "explanation":
            return f"{model} explained", Text(inert_block(step.text))
        case "answer":
            return "you answered", Text(inert_block(step.text))
        case "feedback":
            return "you asked to change", Text(inert_block(step.text))
        case "decision":
            missed = (f" (near misses: {', '.join(step.near_misses)})" if step.near_misses
                      else "")
            verdict = "typed SAVE" if step.approved is True else "did not type SAVE"
            return "you", _cell(f"{verdict}: {_written(step.result, None)}{missed}")
        case "refused":
            return "planner", _cell(f"did not run {step.tool}: {step.error}", "yellow")
        case "budget":
            if step.approved is True:
                return "you", _cell(f"allowed more model calls (up to {step.max_calls} in "
                                    "this run)")
            return "you", _cell(f"allowed no more model calls (the limit stayed "
                                f"{step.max_calls})")
    return "?", _cell(f"unknown step {step.kind}")


def _plan_words(plan: PlanRecord | None) -> str:
    """`notes N1, N2; 2026-12-05; 20 min`."""
    if plan is None:
        return "notes None; None; None min"
    notes = None if plan.note_ids is None else ", ".join(plan.note_ids)
    # A series (SPEC 16) has its sessions' dates in the place of one date.
    when = plan.date if plan.dates is None else ", ".join(plan.dates)
    return f"notes {notes}; {when}; {plan.minutes} min"


def _summary_rows(grid: Table, summary: RunSummary, detail: RunDetail) -> None:
    """What was asked, proposed, decided and written, as label/value rows."""
    if summary.is_simulated:
        grid.add_row("Mode", _cell(f"{summary.mode} (simulated: scripted model replies)"))
    else:
        grid.add_row("Mode", _cell(summary.mode))
        grid.add_row("Model", _cell(f"{summary.model} at {summary.base_url}"))
    grid.add_row("Created", _cell(summary.created_at))
    grid.add_row("Updated", _cell(summary.updated_at))
    grid.add_row("Request", _cell(summary.request))
    if summary.continues is not None:
        # planner --continue: this run went on with that run's conversation (SPEC 21).
        grid.add_row("Continues", _cell(f"run {summary.continues}"))
    if summary.plan is not None:
        grid.add_row("Proposal", _cell(summary.plan.title))
        grid.add_row("", _cell(_plan_words(summary.plan)))
    else:
        grid.add_row("Proposal", _cell("none"))
    decision = "not asked"
    if summary.approved is not None:
        decision = "approved (typed SAVE)" if summary.approved else "not approved"
    grid.add_row("Decision", _cell(decision))
    grid.add_row("Written", _cell(_written(summary.tool_result, summary.target)))
    if summary.error:
        grid.add_row("Error", _cell(summary.error, "red"))
    if summary.is_simulated:
        grid.add_row("Cost", _cell("simulated run: not priced"))
    elif detail.cost is None:
        # Not simulated, yet no cost: the prices in config are for another model (SPEC 21).
        grid.add_row("Cost", _cell(f"unknown: config has no prices for "
                                   f"{summary.model or 'an unnamed model'}"))
    else:
        cost = f"{_money(detail.cost)} {detail.currency}"
        unknown = 0 if detail.tally is None else detail.tally.unknown_calls
        if unknown:
            cost += f" (known part; {unknown} call(s) with unknown usage)"
        grid.add_row("Cost", _cell(cost))


def _written(result: ToolResult | None, target: str | None) -> str:
    """What the program really did with the plan, from tool_result and target."""
    status = None if result is None else result.status
    if result is not None and status == "saved":
        return f"saved to {result.path}"
    if status == "cancelled":
        return "cancelled: nothing written"
    if result is not None and status == "failed":
        return f"failed: {result.error} (nothing written)"
    if target:
        # The intent was recorded but no result: the write may or may not have happened.
        return f"about to write {target}, no result recorded: check that file"
    return "nothing"


def _calls_table(calls: Sequence[PricedCall]) -> None:
    """Each model call: time, tokens, cost, error; the file names too when there is room."""
    cells: dict[str, list[Text]] = {
        "#": [], "Request": [], "Response": [], "Time": [], "Tokens hit/miss/out": [],
        "Cost": [], "Error": []}
    for call in calls:
        entry, split = call.entry, call.split
        duration = entry.duration_ms
        tokens = "unknown" if split is None else f"{split[0]:,}/{split[1]:,}/{split[2]:,}"
        for name, cell in (
            ("#", _cell(call.number)), ("Request", _cell(entry.request)),
            ("Response", _cell(entry.response)),
            ("Time", _cell(None if duration is None else f"{duration} ms")),
            ("Tokens hit/miss/out", _cell(tokens)), ("Cost", _cell(_money(call.cost))),
            ("Error", _cell(entry.error, "red")),
        ):
            cells[name].append(cell)
    fixed = ["#", "Time", "Tokens hit/miss/out", "Cost"]
    # The file names are in the panel's Files row too: they go first when space is short.
    files = [_span(name, cells[name]) for name in ("Request", "Response")]
    shown, _ = _fit(out.width, [*(_span(name, cells[name]) for name in fixed), ERROR_LEAST],
                    [("files", files)])
    names = ["#", *(["Request", "Response"] if shown else []), *fixed[1:], "Error"]
    grid = _list_table("Model calls")
    for name in names:
        if name == "Error":
            # Wraps between words, so a long server message stays whole.
            grid.add_column(name, min_width=10)
        else:
            grid.add_column(name, no_wrap=True,
                            justify="left" if name in ("Request", "Response") else "right")
    for index in range(len(calls)):
        grid.add_row(*(cells[name][index] for name in names))
    out.print(grid)


# --- planner plans ----------------------------------------------------------------------------


def plans_table(rows: list[dict], folder: str, today: _dt.date, hidden_past: int = 0,
                hidden_dropped: int = 0) -> None:
    """`planner plans`: upcoming first, then past ones (--all); files with a problem after.

    A series' sessions are rows of their own, numbered #1, #2, ... (the log's `<run_id>#n`);
    a reviewed plan or session is marked done, a dropped one (shown with --all) dropped.
    """
    plans = [row for row in rows if row["problem"] is None]
    now = today.isoformat()
    hidden = []
    if hidden_past:
        hidden.append(f"{hidden_past} past")
    if hidden_dropped:
        hidden.append(f"{hidden_dropped} dropped")
    if not plans:
        info(f"No upcoming plans in {folder}/; {' and '.join(hidden)} plan(s): planner plans "
             "--all lists them." if hidden else f"No plans to show in {folder}/.")
    else:
        upcoming = sum(1 for row in plans if row["date"] >= now)
        past = len(plans) - upcoming
        wide = out.width >= WIDE
        sessions = any(row.get("session") is not None for row in plans)
        marked = any(row.get("done") or row.get("dropped") for row in plans)
        grid = _list_table(f"Plans in {folder}/: {upcoming} upcoming"
                           + (f", {past} past" if past else ""))
        grid.add_column("Date", no_wrap=True)
        grid.add_column("When", no_wrap=True)
        grid.add_column("Min", justify="right", no_wrap=True)
        # Title and notes narrow first; their cells are one line cut with …, and Rich counts
        # wide (Chinese) characters as two cells.
        grid.add_column("Title", min_width=8, ratio=3)
        grid.add_column("Notes", min_width=5, ratio=1)
        if sessions:
            grid.add_column("#", justify="right", no_wrap=True)
        if marked:
            grid.add_column("Status", no_wrap=True)
        if wide:
            grid.add_column("File", no_wrap=True)
        for row in plans:
            day = parse_day(row["date"])
            style = "bold" if row["date"] == now else ("dim" if row["date"] < now else "")
            if row.get("dropped"):
                style = "dim strike"
            date = f"{row['date']} {WEEKDAYS[day.weekday()][:3]}" if day else row["date"]
            title, notes = _cell(row["title"]), _cell(", ".join(row["note_ids"]))
            for cell in (title, notes):
                cell.no_wrap, cell.overflow = True, "ellipsis"
            cells = [_cell(date, style), _cell(distance(day, today) if day else "-", style),
                     _cell(row["minutes"]), title, notes]
            if sessions:
                session = row.get("session")
                cells.append(Text("" if session is None else f"#{session}"))
            if marked:
                cells.append(Text("dropped", style="yellow") if row.get("dropped")
                             else Text("done", style="green") if row.get("done") else Text(""))
            if wide:
                cells.append(_cell(row["file"], "dim"))
            grid.add_row(*cells)
        out.print(grid)
        if hidden:
            info(f"{' and '.join(hidden)} plan(s) not shown: planner plans --all lists them.")
        if sessions:
            _note("#n: session n of a series; planner done and reviews call it <run_id>#n.")
        if not wide:
            info("File names: planner plans --json, or a terminal 110 columns wide.")
    for row in rows:
        if row["problem"] is not None:
            # One line each (wrapped between words on a terminal): the file name comes first.
            print_line(Text.assemble(("Cannot use", "bold red"), " ", inert_line(row["file"]),
                                     ": ", inert_line(row["problem"])))


# --- planner notes ----------------------------------------------------------------------------


def notes_table(rows: list[dict], total: int, where: str, query: str | None) -> None:
    """`planner notes`: ID, title and file (and tags when wide), or the best matches' snippets."""
    wide = out.width >= WIDE
    if not rows:
        info(f"No notes in {where} match {query!r}." if query is not None
             else f"No notes in {where}.")
        return
    if query is None:
        heading = f"Notes in {where}: {total:,}"
    else:
        heading = f"Notes in {where} matching {inert_line(query)!r}: {total:,}, best first"
    # The heading on its own line: as a table title it would wrap to a narrow table's width.
    print_line(Text(inert_line(heading)))
    grid = _list_table("")
    grid.add_column("ID", no_wrap=True, max_width=32, overflow="ellipsis")
    # Titles and snippets are the wrapable columns: single-line Text cut with …, so every
    # note stays one row and Rich measures wide (Chinese) characters as two cells.
    grid.add_column("Title", min_width=8, max_width=40)
    if wide:
        grid.add_column("Tags", max_width=24)
    paths = query is None and any(row["path"] for row in rows)
    if query is not None:
        grid.add_column("Snippet", min_width=12)
    elif paths:
        grid.add_column("File", min_width=8)
    for row in rows:
        cells = [_cell(row["id"]), _cell(row["title"])]
        if wide:
            cells.append(_cell(", ".join(row["tags"]) or None, "dim"))
        if query is not None:
            cells.append(_cell(row["snippet"], "dim"))
        elif paths:
            cells.append(_cell(row["path"], "dim"))
        for cell in cells[1:]:
            cell.no_wrap, cell.overflow = True, "ellipsis"
        grid.add_row(*cells)
    out.print(grid)
    if len(rows) < total:
        what = "matches" if query is not None else "notes"
        info(f"Showing {len(rows):,} of {total:,} {what}: --limit N shows more (0: all)"
             + ("; --json lists them all." if query is None else "."))


# --- planner where ----------------------------------------------------------------------------


def where_report(report: dict) -> None:
    """`planner where`: the home and why, the config file, the notes source and the index."""
    from rich.table import Table

    home = report["why"] if report["home_exists"] else (
        f"{report['why']}; it does not exist yet: the first run creates it (private, 0700)")
    if report["config_problem"] is not None:
        config = f"cannot be used: {report['config_problem']}"
    elif report["config_exists"]:
        config = "in use"
    else:
        config = "not there: the built-in defaults are used (config.example.json shows them)"
    source = report["notes_source"]
    if source == "samples":
        notes_place = "the built-in samples N1, N2, N3"
        notes = "the home has no notes/ folder and no notes.json"
    else:
        notes_place = report["notes"]
        if not report["notes_exists"]:
            notes = "the notes folder set by notes_dir does not exist"
        elif source == "folder":
            notes = "a folder of Markdown notes, searched through the index"
        else:
            notes = "notes.json: the notes are listed in this file"
    index = "built" if report["index_exists"] else "not built yet"
    if source != "folder":
        index += "; used only when the notes are a folder"
    grid = Table.grid(padding=(0, 2))
    grid.add_column(no_wrap=True)
    grid.add_column()
    for label, place, detail in (("Home", report["home"], home),
                                 ("Config", report["config"], config),
                                 ("Notes", notes_place, notes),
                                 ("Index", report["index"], index)):
        # Paths fold anywhere (they have no spaces to wrap at); the sentences wrap at spaces.
        cell = Text(inert_line(place), overflow="fold")
        cell.append("\n")
        cell.append(inert_line(detail), style="dim")
        grid.add_row(Text(label, style="bold"), cell)
    out.print(grid)


# --- planner due ------------------------------------------------------------------------------


def due_table(rows: list[dict], total: int, today: _dt.date, days: int,
              next_due: _dt.date | None) -> None:
    """`planner due`: the notes due by today + days, most overdue first; or one line saying
    nothing is, and when the next review falls due."""
    horizon = today + _dt.timedelta(days=days)
    by = "today" if not days else f"{horizon.isoformat()} (in {days} day{'s' * (days != 1)})"
    if not rows:
        if next_due is None:
            info(f"Nothing is due by {by}, and no note has a due date yet: planner done "
                 "records a review.")
        else:
            info(f"Nothing is due by {by}; the next review is due "
                 f"{_day_words(next_due, today)}.")
        return
    wide = out.width >= WIDE
    grid = _list_table(f"Due by {by}: {total:,} note{'s' * (total != 1)}, most overdue first")
    grid.add_column("ID", no_wrap=True, max_width=24, overflow="ellipsis")
    grid.add_column("Title", min_width=8, ratio=1)
    grid.add_column("Due", no_wrap=True)
    grid.add_column("Last review", no_wrap=True)
    grid.add_column("Recall", justify="right", no_wrap=True)
    if wide:
        grid.add_column("Reviews", justify="right", no_wrap=True)
    for row in rows:
        day = parse_day(row["due"])
        overdue = day is not None and day < today
        due = _cell(_day_words(day, today) if day else row["due"],
                    "bold red" if overdue else "bold" if day == today else "")
        last = parse_day(row["last_reviewed"])
        recall = row["retrievability"]
        title = _cell(row["title"])
        title.no_wrap, title.overflow = True, "ellipsis"
        cells = [_cell(row["id"]), title, due,
                 _cell(f"{last.isoformat()} {row['last_rating']}" if last else "sr-due"),
                 _cell(f"{recall}%" if recall is not None else "-")]
        if wide:
            cells.append(_cell(row["reviews"]))
        grid.add_row(*cells)
    out.print(grid)
    if len(rows) < total:
        info(f"Showing {len(rows):,} of {total:,} due notes: --limit N shows more (0: all).")
    if not wide:
        _note("Recall: the chance you remember the note now, by FSRS; sr-due: a due date from "
              "Obsidian Spaced Repetition.")


def _day_words(day: _dt.date, today: _dt.date) -> str:
    """`2026-12-06 Sun, in 5 days`."""
    return f"{day.isoformat()} {WEEKDAYS[day.weekday()][:3]}, {distance(day, today)}"


# --- planner reviews --------------------------------------------------------------------------


def reviews_table(rows: list[dict], where: str, note: str | None) -> None:
    """`planner reviews`: the review log, newest first; undone reviews marked (they no longer
    count)."""
    about = f" of {inert_line(note)}" if note is not None else ""
    if not rows:
        info(f"No reviews{about} in {where} yet: planner done records one.")
        return
    wide = out.width >= WIDE
    counted = sum(1 for row in rows if not row["undone"])
    grid = _list_table(f"Reviews{about} in {where}: {counted:,}"
                       + (f", {len(rows) - counted:,} undone" if counted < len(rows) else "")
                       + ", newest first")
    grid.add_column("When", no_wrap=True)
    grid.add_column("Note", no_wrap=True, max_width=24, overflow="ellipsis")
    grid.add_column("Title", min_width=8, ratio=1)
    grid.add_column("Rating", no_wrap=True)
    grid.add_column("Min", justify="right", no_wrap=True)
    if wide:
        grid.add_column("Plan", no_wrap=True)
    grid.add_column("Review ID", no_wrap=True)
    for row in rows:
        style = "dim strike" if row["undone"] else ""
        title = _cell(row["title"], style)
        title.no_wrap, title.overflow = True, "ellipsis"
        rating = _cell(row["rating"], "dim" if row["undone"] else _RATING.get(row["rating"], ""))
        cells = [_cell(_local_time(row["reviewed_at"]), style), _cell(row["note_id"], style),
                 title, rating, _cell(row["minutes"], style)]
        if wide:
            cells.append(_cell(row["run_id"], "dim"))
        review = _cell(row["review_id"], "dim")
        if row["undone"]:
            review.append(" undone", style="yellow")
        cells.append(review)
        grid.add_row(*cells)
    out.print(grid)
    if not wide:
        info("Plans reviewed: planner reviews --json, or a terminal 110 columns wide.")


_RATING = {"again": "red", "hard": "yellow", "good": "green", "easy": "cyan"}


def _local_time(value: object) -> str:
    """A UTC ISO time from the log as the person's local 'YYYY-MM-DD HH:MM'."""
    try:
        moment = _dt.datetime.fromisoformat(str(value))
    except ValueError:
        return str(value)
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


# --- planner done -----------------------------------------------------------------------------


def review_recorded(shown: str, title: str, rows: list[dict], today: _dt.date,
                    day: _dt.date) -> None:
    """What `planner done` recorded, and each note's next due date."""
    from rich.table import Table

    rating = rows[0]["rating"] if rows else "-"
    when = "today" if day == today else f"on {day.isoformat()}"
    print_line(Text.assemble(("Recorded", "bold green"), f" {rating} for {inert_line(shown)}: ",
                             inert_line(title), f", reviewed {when}."))
    grid = Table.grid(padding=(0, 2))
    grid.add_column(no_wrap=True, max_width=24, overflow="ellipsis")
    grid.add_column(min_width=8, overflow="ellipsis", no_wrap=True)
    grid.add_column(no_wrap=True)
    for row in rows:
        due = parse_day(row["next_due"])
        grid.add_row(_cell(row["note_id"]), _cell(row["title"]),
                     Text("next due " + (_day_words(due, today) if due else "-")))
    out.print(grid)
    ids = ", ".join(row["review_id"] for row in rows)
    _note(f"Review IDs: {ids} (planner done --undo REVIEW_ID takes one back).")


def review_undone(row: dict, today: _dt.date) -> None:
    """What `planner done --undo` did: the review no longer counts; the note's due date now."""
    due = parse_day(row["next_due"])
    then = _local_time(row["reviewed_at"])
    print_line(Text.assemble(("Undone", "bold"), f": review {inert_line(row['review_id'])} of ",
                             inert_line(row["note_id"]), f" ({inert_line(row['rating'])}, {then}) "
                             "no longer counts; the log keeps it, marked undone."))
    info(f"{row['note_id']} is next due {_day_words(due, today)}." if due else
         f"{row['note_id']} has no review left: it is new again.")
