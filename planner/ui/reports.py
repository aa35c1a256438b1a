"""The report screens: `planner runs`, `show`, `costs`, `plans`, `notes` and `where`."""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.panel import Panel
from rich.text import Text

from planner.base import i18n
from planner.base.i18n import _
from planner.base.inert import inert_block, inert_line
from planner.records.status import INTERRUPTED, RUNNING, STAGE_WORDS, STOPPED, WORDS
from planner.ui.console import info, out, print_line
from planner.ui.dates import distance, parse_day

if TYPE_CHECKING:
    from rich.table import Table

    from planner.base.config import Prices
    from planner.model.costs import Tally
    from planner.records.history import CostReport, PricedCall, RunDetail, RunRow
    from planner.records.run_record import PlanRecord, RunSummary, Step, ToolResult

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


def _headers() -> dict[str, str]:
    """Column headers and row labels in the person's language, by their English names."""
    return {
        "#": "#", "Run ID": _("Run ID"), "Time": _("Time"), "Mode": _("Mode"),
        "Status": _("Status"), "Calls": _("Calls"), "Title": _("Title"), "Cost": _("Cost"),
        "Unknown": _("Unknown"), "Input hit": _("Input hit"), "Input miss": _("Input miss"),
        "Output": _("Output"), "Tokens": _("Tokens"), "Request": _("Request"),
        "Response": _("Response"), "Tokens hit/miss/out": _("Tokens hit/miss/out"),
        "Error": _("Error"),
    }


def _line(value: object) -> str:
    """A recorded or domain line (a reason, an error) in the person's language."""
    return i18n.shown(value) if isinstance(value, str) else str(value)


def _mode(mode: object) -> object:
    """A run's recorded mode as a person reads it (the record keeps `demo` or `live`)."""
    words = {"demo": _("demo"), "live": _("live")}
    return words.get(mode, mode) if isinstance(mode, str) else mode


def _short_weekday(day: _dt.date) -> str:
    """`Wed`: the weekday in three letters (two characters in Chinese)."""
    return (_("Mon"), _("Tue"), _("Wed"), _("Thu"), _("Fri"), _("Sat"),
            _("Sun"))[day.weekday()]


# --- Words for recorded values ----------------------------------------------------------------


def _status(word: str) -> Text:
    """A status cell: the run's one word (status.run_word), coloured by what it means."""
    # Coloured by the English word; shown in the person's language.
    return Text(inert_line(i18n.shown(word)), style=_STYLE.get(inert_line(word), "yellow"))


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
        info(_("No runs in {where} yet: planner --demo makes one (offline, nothing to pay).")
             .format(where=where))
        return
    columns: dict[str, list[Text]] = {
        "Run ID": [], "Time": [], "Mode": [], "Status": [], "Calls": [], "Title": [], "Cost": []}
    unknown = unpriced = False
    for row in rows:
        tally = row.tally
        if tally is None:  # damaged: the problem takes the title's place
            title, price = _cell(_line(row.problem), "red"), "-"
        else:
            title = _cell(row.title)
            cost = row.cost(prices)
            if row.simulated:
                price = _("simulated")
            elif cost is None:
                price, unpriced = _("unknown"), True
            else:
                price = _money(cost, tally.unknown_calls)
                unknown = unknown or bool(tally.unknown_calls)
        title.no_wrap, title.overflow = True, "ellipsis"
        for name, cell in (
            ("Run ID", _cell(row.run_id)), ("Time", _cell(_when(row.created_at))),
            ("Mode", _cell(_mode(row.mode))), ("Status", _status(row.word)),
            ("Calls", _cell(_count(None if tally is None else tally.calls))), ("Title", title),
            ("Cost", _cell(price)),
        ):
            columns[name].append(cell)
    head = _headers()
    cost_header = _("Cost {currency}").format(currency=prices.currency)
    least = min(TITLE_ROOM, _span(head["Title"], columns["Title"]))
    status, cost = _span(head["Status"], columns["Status"]), _span(cost_header, columns["Cost"])
    _chosen, left = _fit(out.width, [_span(head["Run ID"], columns["Run ID"]), status,
                                     min(least, TITLE_LEAST), cost])
    by_number = left < 0
    if by_number:
        columns["Run ID"] = _back_numbers(len(rows))
    first = "#" if by_number else "Run ID"
    shown, left = _fit(out.width, [_span(head[first], columns["Run ID"]), status, least, cost],
                       [(name, [_span(head[name], columns[name])]) for name in
                        ("Time", "Calls", "Mode")])
    grid = _list_table(_("Runs in {where}: {total}, newest first").format(where=where,
                                                                           total=total))
    grid.add_column(head[first], no_wrap=True, justify="right" if by_number else "left")
    for name in ("Time", "Mode"):
        if name in shown:
            grid.add_column(head[name], no_wrap=True)
    grid.add_column(head["Status"], no_wrap=True)
    if "Calls" in shown:
        grid.add_column(head["Calls"], justify="right", no_wrap=True)
    # The one column that gives way: one line each, cut with …; Rich counts a Chinese
    # character as two cells.
    # Below about 60 columns even that leaves the title less than `least`: it takes what is left.
    grid.add_column(head["Title"], min_width=max(1, min(least, least + left)), max_width=48)
    grid.add_column(cost_header, justify="right", no_wrap=True)
    names = ["Run ID", *(name for name in ("Time", "Mode") if name in shown), "Status",
             *(["Calls"] if "Calls" in shown else []), "Title", "Cost"]
    for index in range(len(rows)):
        grid.add_row(*(columns[name][index] for name in names))
    out.print(grid)
    if unknown:
        _note(_("+N? = N calls with unknown usage (failed or not reported): not priced, not "
                "zero."))
    if unpriced:
        _note(_unpriced_note(prices))
    if by_number:
        _note(_("#: -1 is the newest run; planner show -1 opens it. Run IDs: planner runs "
                "--json or a wider terminal."))
    hidden = [head[name] for name in ("Time", "Mode", "Calls") if name not in shown]
    if hidden:
        _note(_("Not shown at this width: {columns} (a wider terminal or planner runs --json "
                "shows them).").format(columns=_(", ").join(hidden)))
    if len(rows) < total:
        _note(_("Showing the newest {count} of {total} runs: --limit N shows more (0: all); "
                "--json lists them all.").format(count=len(rows), total=total))


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
        if report.simulated and report.damaged:
            line = _("No priced runs in {where}: left out {simulated} simulated (demo) run(s) "
                     "and {damaged} damaged run(s).")
        elif report.simulated:
            line = _("No priced runs in {where}: left out {simulated} simulated (demo) run(s).")
        elif report.damaged:
            line = _("No priced runs in {where}: left out {damaged} damaged run(s).")
        else:
            line = _("No runs in {where} yet, so nothing has cost anything.")
        info(line.format(where=where, simulated=report.simulated, damaged=report.damaged))
        return
    runs = report.runs if limit is None else report.runs[:limit]
    tallies = [_counted(run) for run in runs]
    # The total cost is the known part: runs whose model the prices are for (SPEC 21).
    known = report.priced(prices).cost(prices)
    ids = [_cell(run.run_id) for run in runs]
    states = [_status(run.word) for run in runs]
    footer = _("total, {count} runs").format(count=priced)

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

    head = _headers()

    def left_with(numbers: list[tuple[str, list[Text], str]]) -> int:
        spans = [_span(head["Run ID"], ids, footer), _span(head["Status"], states),
                 *(_span(head[name], cells, foot) for name, cells, foot in numbers)]
        return _fit(out.width, spans)[1]

    numbers = wide if left_with(wide) >= 0 else narrow
    by_number = left_with(numbers) < 0
    grid = _list_table(_("Costs in {currency}, known part only").format(
        currency=prices.currency), footer=True)
    grid.add_column("#" if by_number else head["Run ID"], no_wrap=True, footer=footer)
    grid.add_column(head["Status"], no_wrap=True)
    for name, _cells, foot in numbers:
        grid.add_column(head[name], justify="right", no_wrap=True, footer=foot)
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
    _note(_("Prices per million tokens: input cache hit {hit}, input cache miss {miss}, "
            "output {output}.").format(hit=prices.input_cache_hit,
                                       miss=prices.input_cache_miss, output=prices.output))
    _note(_("Tokens in total: input cache hit {hit}, input cache miss {miss}, output {output}.")
          .format(hit=_count(total.input_cache_hit_tokens),
                  miss=_count(total.input_cache_miss_tokens), output=_count(total.output_tokens)))
    if total.unknown_calls:
        if numbers is narrow:
            line = _("{count} call(s) have unknown usage (failed, or not reported; +N? beside a "
                     "cost): not priced, not counted as zero; the cost is the known part only.")
        else:
            line = _("{count} call(s) have unknown usage (failed, or not reported): not priced, "
                     "not counted as zero; the cost is the known part only.")
        _note(line.format(count=total.unknown_calls))
    if by_number:
        _note(_("#: planner show -N opens that run. Run IDs: planner costs --json or a wider "
                "terminal."))
    unpriced = report.unpriced(prices)
    if unpriced:
        _note(_("{count} run(s) asked another model: {why}").format(
            count=unpriced, why=_unpriced_note(prices)))
    if report.simulated:
        _note(_("Left out: {count} simulated (demo) run(s).").format(count=report.simulated))
    if report.damaged:
        _note(_("Left out: {count} damaged run(s) whose summary.json cannot be used (see "
                "planner runs).").format(count=report.damaged))
    if len(runs) < priced:
        _note(_("Showing the newest {count} of {total} priced runs; the total covers them all. "
                "--limit N shows more (0: all).").format(count=len(runs), total=priced))


def _run_money(run: RunRow, prices: Prices, marked: bool = False) -> str:
    """A run's known cost ('+N?' when `marked` and calls have unknown usage); 'unknown' when
    the prices are for another model."""
    cost = run.cost(prices)
    if cost is None:
        return _("unknown")
    return _money(cost, _counted(run).unknown_calls if marked else 0)


def _unpriced_note(prices: Prices) -> str:
    return _("unknown = the prices in config are for {model}, not for the run's model; its "
             "cost is not counted (set prices.model and the prices for it).").format(
                 model=inert_line(prices.model))


def _counted(run: RunRow) -> Tally:
    assert run.tally is not None  # a priced run was read, so its calls were counted
    return run.tally


# --- planner show -----------------------------------------------------------------------------


def run_detail(detail: RunDetail) -> None:
    """`planner show`: one run step by step: asked, proposed, decided, written, explained."""
    from rich.table import Table

    from planner.records.run_record import DamagedRun

    summary = detail.summary
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    if isinstance(summary, DamagedRun):
        grid.add_row(_("Status"), _status(detail.word))
        grid.add_row(_("Problem"), _cell(_line(summary.why), "red"))
    else:
        grid.add_row(_("Status"), _state_line(detail.word, detail.status, summary))
        if detail.status != summary.status:
            recorded = _line(WORDS.get(summary.status, summary.status))
            grid.add_row("", _cell(_("recorded as {status}; its process is gone").format(
                status=recorded), "dim"))
    grid.add_row(_("Folder"), _cell(detail.folder))
    if not isinstance(summary, DamagedRun):
        _summary_rows(grid, summary, detail)
    grid.add_row(_("Files"), _cell(", ".join(detail.files) or _("none")))
    out.print(Panel(grid, title=Text(_("Run {run_id}").format(run_id=inert_line(detail.run_id))),
                    title_align="left", expand=False))
    if isinstance(summary, DamagedRun):
        return
    if detail.calls:
        _calls_table(detail.calls)
    if summary.steps:
        _conversation(summary.steps, _("Simulated model") if summary.is_simulated
                      else _("Model"))


def _state_line(word: str, state: str, summary: RunSummary) -> Text:
    """`stopped while asking the model`: the run's word and, for an unfinished run, its step."""
    line = _status(word)
    doing = STAGE_WORDS.get(summary.stage) if summary.stage is not None else None
    if doing and state in (STOPPED, INTERRUPTED, RUNNING):
        line.append((_(": {doing}") if state == RUNNING else _(" while {doing}")).format(
            doing=_line(doing)))
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
    out.print(Panel(grid, title=Text(_("Conversation")), title_align="left", expand=False))


def _step_words(step: Step, model: str) -> tuple[str, Text]:
    """Who spoke in one recorded step, and what they said or what the program did."""
    match step.kind:
        case "proposal":
            plan = step.plan
            title = None if plan is None else plan.title
            return model, _cell(_("proposed {title}: {plan}").format(
                title=str(title), plan=_plan_words(plan)))
        case "rejected":
            then = (_("sent back to be corrected ({repair})").format(repair=step.repair)
                    if step.repair else _("not sent back; the run stopped"))
            return "planner", _cell(_("rejected {tool}: {error}; {then}").format(
                tool=step.tool, error=_line(step.error), then=then), "yellow")
        case "lookup":
            arguments = json.dumps(step.arguments, ensure_ascii=False)
            return "planner", _cell(_("looked up {tool} {arguments} → {found}").format(
                tool=step.tool, arguments=arguments, found=_line(step.found)))
        case "question":
            return _("{model} said (no plan)").format(model=model), Text(inert_block(step.text))
        case "explanation":
            return _("{model} explained").format(model=model), Text(inert_block(step.text))
        case "answer":
            return _("you answered"), Text(inert_block(step.text))
        case "feedback":
            return _("you asked to change"), Text(inert_block(step.text))
        case "decision":
            missed = (_(" (near misses: {misses})").format(misses=", ".join(step.near_misses))
                      if step.near_misses else "")
            verdict = (_("typed SAVE: {written}") if step.approved is True
                       else _("did not type SAVE: {written}"))
            return _("you"), _cell(verdict.format(written=_written(step.result, None)) + missed)
        case "refused":
            return "planner", _cell(_("did not run {tool}: {error}").format(
                tool=step.tool, error=_line(step.error)), "yellow")
        case "budget":
            if step.approved is True:
                return _("you"), _cell(_("allowed more model calls (up to {count} in this run)")
                                       .format(count=step.max_calls))
            return _("you"), _cell(_("allowed no more model calls (the limit stayed {count})")
                                   .format(count=step.max_calls))
    return "?", _cell(_("unknown step {kind}").format(kind=step.kind))


def _plan_words(plan: PlanRecord | None) -> str:
    """`notes N1, N2; 2026-12-05; 20 min`."""
    words = _("notes {notes}; {when}; {minutes} min")
    if plan is None:
        return words.format(notes=None, when=None, minutes=None)
    notes = None if plan.note_ids is None else ", ".join(plan.note_ids)
    # A series (SPEC 16) has its sessions' dates in the place of one date.
    when = plan.date if plan.dates is None else ", ".join(plan.dates)
    return words.format(notes=notes, when=when, minutes=plan.minutes)


def _summary_rows(grid: Table, summary: RunSummary, detail: RunDetail) -> None:
    """What was asked, proposed, decided and written, as label/value rows."""
    if summary.is_simulated:
        grid.add_row(_("Mode"), _cell(_("{mode} (simulated: scripted model replies)").format(
            mode=_mode(summary.mode))))
    else:
        grid.add_row(_("Mode"), _cell(_mode(summary.mode)))
        grid.add_row(_("Model"), _cell(_("{model} at {url}").format(model=summary.model,
                                                                     url=summary.base_url)))
    grid.add_row(_("Created"), _cell(summary.created_at))
    grid.add_row(_("Updated"), _cell(summary.updated_at))
    grid.add_row(_("Request"), _cell(summary.request))
    if summary.continues is not None:
        # planner --continue: this run went on with that run's conversation (SPEC 21).
        grid.add_row(_("Continues"), _cell(_("run {run_id}").format(run_id=summary.continues)))
    if summary.plan is not None:
        grid.add_row(_("Proposal"), _cell(summary.plan.title))
        grid.add_row("", _cell(_plan_words(summary.plan)))
    else:
        grid.add_row(_("Proposal"), _cell(_("none")))
    decision = _("not asked")
    if summary.approved is not None:
        decision = _("approved (typed SAVE)") if summary.approved else _("not approved")
    grid.add_row(_("Decision"), _cell(decision))
    grid.add_row(_("Written"), _cell(_written(summary.tool_result, summary.target)))
    if summary.error:
        grid.add_row(_("Error"), _cell(_line(summary.error), "red"))
    if summary.is_simulated:
        grid.add_row(_("Cost"), _cell(_("simulated run: not priced")))
    elif detail.cost is None:
        # Not simulated, yet no cost: the prices in config are for another model (SPEC 21).
        grid.add_row(_("Cost"), _cell(_("unknown: config has no prices for {model}").format(
            model=summary.model or _("an unnamed model"))))
    else:
        cost = f"{_money(detail.cost)} {detail.currency}"
        unknown = 0 if detail.tally is None else detail.tally.unknown_calls
        if unknown:
            cost += _(" (known part; {count} call(s) with unknown usage)").format(count=unknown)
        grid.add_row(_("Cost"), _cell(cost))


def _written(result: ToolResult | None, target: str | None) -> str:
    """What the program really did with the plan, from tool_result and target."""
    status = None if result is None else result.status
    if result is not None and status == "saved":
        return _("saved to {path}").format(path=result.path)
    if status == "cancelled":
        return _("cancelled: nothing written")
    if result is not None and status == "failed":
        return _("failed: {error} (nothing written)").format(error=_line(result.error))
    if target:
        # The intent was recorded but no result: the write may or may not have happened.
        return _("about to write {path}, no result recorded: check that file").format(
            path=target)
    return _("nothing")


def _calls_table(calls: Sequence[PricedCall]) -> None:
    """Each model call: time, tokens, cost, error; the file names too when there is room."""
    cells: dict[str, list[Text]] = {
        "#": [], "Request": [], "Response": [], "Time": [], "Tokens hit/miss/out": [],
        "Cost": [], "Error": []}
    for call in calls:
        entry, split = call.entry, call.split
        duration = entry.duration_ms
        tokens = _("unknown") if split is None else f"{split[0]:,}/{split[1]:,}/{split[2]:,}"
        for name, cell in (
            ("#", _cell(call.number)), ("Request", _cell(entry.request)),
            ("Response", _cell(entry.response)),
            ("Time", _cell(None if duration is None else f"{duration} ms")),
            ("Tokens hit/miss/out", _cell(tokens)), ("Cost", _cell(_money(call.cost))),
            ("Error", _cell(None if entry.error is None else _line(entry.error), "red")),
        ):
            cells[name].append(cell)
    fixed = ["#", "Time", "Tokens hit/miss/out", "Cost"]
    # The file names are in the panel's Files row too: they go first when space is short.
    head = _headers()
    files = [_span(head[name], cells[name]) for name in ("Request", "Response")]
    shown, _left = _fit(out.width, [*(_span(head[name], cells[name]) for name in fixed),
                                    ERROR_LEAST], [("files", files)])
    names = ["#", *(["Request", "Response"] if shown else []), *fixed[1:], "Error"]
    grid = _list_table(_("Model calls"))
    for name in names:
        if name == "Error":
            # Wraps between words, so a long server message stays whole.
            grid.add_column(head[name], min_width=10)
        else:
            grid.add_column(head[name], no_wrap=True,
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
    hidden = ""
    if hidden_past and hidden_dropped:
        hidden = _("{past} past and {dropped} dropped")
    elif hidden_past:
        hidden = _("{past} past")
    elif hidden_dropped:
        hidden = _("{dropped} dropped")
    hidden = hidden.format(past=hidden_past, dropped=hidden_dropped)
    if not plans:
        info(_("No upcoming plans in {folder}/; {hidden} plan(s): planner plans --all lists "
               "them.").format(folder=folder, hidden=hidden) if hidden
             else _("No plans to show in {folder}/.").format(folder=folder))
    else:
        upcoming = sum(1 for row in plans if row["date"] >= now)
        past = len(plans) - upcoming
        wide = out.width >= WIDE
        sessions = any(row.get("session") is not None for row in plans)
        marked = any(row.get("done") or row.get("dropped") for row in plans)
        grid = _list_table((_("Plans in {folder}/: {upcoming} upcoming, {past} past") if past
                            else _("Plans in {folder}/: {upcoming} upcoming")).format(
                                folder=folder, upcoming=upcoming, past=past))
        grid.add_column(_("Date"), no_wrap=True)
        grid.add_column(_("When"), no_wrap=True)
        grid.add_column(_("Min"), justify="right", no_wrap=True)
        # Title and notes narrow first; their cells are one line cut with …, and Rich counts
        # wide (Chinese) characters as two cells.
        grid.add_column(_("Title"), min_width=8, ratio=3)
        grid.add_column(_("Notes"), min_width=5, ratio=1)
        if sessions:
            grid.add_column("#", justify="right", no_wrap=True)
        if marked:
            grid.add_column(_("Status"), no_wrap=True)
        if wide:
            grid.add_column(_("File"), no_wrap=True)
        for row in plans:
            day = parse_day(row["date"])
            style = "bold" if row["date"] == now else ("dim" if row["date"] < now else "")
            if row.get("dropped"):
                style = "dim strike"
            date = f"{row['date']} {_short_weekday(day)}" if day else row["date"]
            title, notes = _cell(row["title"]), _cell(", ".join(row["note_ids"]))
            for cell in (title, notes):
                cell.no_wrap, cell.overflow = True, "ellipsis"
            cells = [_cell(date, style), _cell(distance(day, today) if day else "-", style),
                     _cell(row["minutes"]), title, notes]
            if sessions:
                session = row.get("session")
                cells.append(Text("" if session is None else f"#{session}"))
            if marked:
                cells.append(Text(_("dropped"), style="yellow") if row.get("dropped")
                             else Text(_("done"), style="green") if row.get("done")
                             else Text(""))
            if wide:
                cells.append(_cell(row["file"], "dim"))
            grid.add_row(*cells)
        out.print(grid)
        if hidden:
            info(_("{hidden} plan(s) not shown: planner plans --all lists them.").format(
                hidden=hidden))
        if sessions:
            _note(_("#n: session n of a series; planner done and reviews call it <run_id>#n."))
        if not wide:
            info(_("File names: planner plans --json, or a terminal 110 columns wide."))
    for row in rows:
        if row["problem"] is not None:
            # One line each (wrapped between words on a terminal): the file name comes first.
            print_line(Text.assemble((_("Cannot use"), "bold red"), " ", inert_line(
                _("{path}: {problem}").format(path=row["file"], problem=_line(row["problem"])))))


# --- planner notes ----------------------------------------------------------------------------


def notes_table(rows: list[dict], total: int, where: str, query: str | None) -> None:
    """`planner notes`: ID, title and file (and tags when wide), or the best matches' snippets."""
    wide = out.width >= WIDE
    where = _line(where)
    if not rows:
        info(_("No notes in {where} match {query}.").format(where=where, query=repr(query))
             if query is not None else _("No notes in {where}.").format(where=where))
        return
    if query is None:
        heading = _("Notes in {where}: {total:,}").format(where=where, total=total)
    else:
        heading = _("Notes in {where} matching {query}: {total:,}, best first").format(
            where=where, query=repr(inert_line(query)), total=total)
    # The heading on its own line: as a table title it would wrap to a narrow table's width.
    print_line(Text(inert_line(heading)))
    grid = _list_table("")
    grid.add_column(_("ID"), no_wrap=True, max_width=32, overflow="ellipsis")
    # Titles and snippets are the wrapable columns: single-line Text cut with …, so every
    # note stays one row and Rich measures wide (Chinese) characters as two cells.
    grid.add_column(_("Title"), min_width=8, max_width=40)
    if wide:
        grid.add_column(_("Tags"), max_width=24)
    paths = query is None and any(row["path"] for row in rows)
    if query is not None:
        grid.add_column(_("Snippet"), min_width=12)
    elif paths:
        grid.add_column(_("File"), min_width=8)
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
        info((_("Showing {count:,} of {total:,} matches: --limit N shows more (0: all).")
              if query is not None else
              _("Showing {count:,} of {total:,} notes: --limit N shows more (0: all); --json "
                "lists them all.")).format(count=len(rows), total=total))


# --- planner where ----------------------------------------------------------------------------


def where_report(report: dict) -> None:
    """`planner where`: the home and why, the config file, the notes source and the index."""
    from rich.table import Table

    why = _line(report["why"])
    home = why if report["home_exists"] else _(
        "{why}; it does not exist yet: the first run creates it (private, 0700)").format(why=why)
    if report["config_problem"] is not None:
        config = _("cannot be used: {problem}").format(problem=_line(report["config_problem"]))
    elif report["config_exists"]:
        config = _("in use")
    else:
        config = _("not there: the built-in defaults are used (config.example.json shows them)")
    source = report["notes_source"]
    if source == "samples":
        notes_place = _("the built-in samples N1, N2, N3")
        notes = _("the home has no notes/ folder and no notes.json")
    else:
        notes_place = report["notes"]
        if not report["notes_exists"]:
            notes = _("the notes folder set by notes_dir does not exist")
        elif source == "folder":
            notes = _("a folder of Markdown notes, searched through the index")
        else:
            notes = _("notes.json: the notes are listed in this file")
    if source == "folder":
        index = _("built") if report["index_exists"] else _("not built yet")
    else:
        index = (_("built; used only when the notes are a folder") if report["index_exists"]
                 else _("not built yet; used only when the notes are a folder"))
    grid = Table.grid(padding=(0, 2))
    grid.add_column(no_wrap=True)
    grid.add_column()
    for label, place, detail in ((_("Home"), report["home"], home),
                                 (_("Config"), report["config"], config),
                                 (_("Notes"), notes_place, notes),
                                 (_("Index"), report["index"], index)):
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
    by = _("today") if not days else (
        _("{date} (in {days} day)") if days == 1 else _("{date} (in {days} days)")).format(
            date=horizon.isoformat(), days=days)
    if not rows:
        if next_due is None:
            info(_("Nothing is due by {by}, and no note has a due date yet: planner done "
                   "records a review.").format(by=by))
        else:
            info(_("Nothing is due by {by}; the next review is due {when}.").format(
                by=by, when=_day_words(next_due, today)))
        return
    wide = out.width >= WIDE
    grid = _list_table((_("Due by {by}: {total:,} note, most overdue first") if total == 1
                        else _("Due by {by}: {total:,} notes, most overdue first")).format(
                            by=by, total=total))
    grid.add_column(_("ID"), no_wrap=True, max_width=24, overflow="ellipsis")
    grid.add_column(_("Title"), min_width=8, ratio=1)
    grid.add_column(_("Due"), no_wrap=True)
    grid.add_column(_("Last review"), no_wrap=True)
    grid.add_column(_("Recall"), justify="right", no_wrap=True)
    if wide:
        grid.add_column(_("Reviews"), justify="right", no_wrap=True)
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
        info(_("Showing {count:,} of {total:,} due notes: --limit N shows more (0: all).")
             .format(count=len(rows), total=total))
    if not wide:
        _note(_("Recall: the chance you remember the note now, by FSRS; sr-due: a due date "
                "from Obsidian Spaced Repetition."))


def _day_words(day: _dt.date, today: _dt.date) -> str:
    """`2026-12-06 Sun, in 5 days`."""
    return _("{date} {weekday}, {distance}").format(
        date=day.isoformat(), weekday=_short_weekday(day), distance=distance(day, today))


# --- planner reviews --------------------------------------------------------------------------


def reviews_table(rows: list[dict], where: str, note: str | None) -> None:
    """`planner reviews`: the review log, newest first; undone reviews marked (they no longer
    count)."""
    about = inert_line(note) if note is not None else None
    if not rows:
        info((_("No reviews in {where} yet: planner done records one.") if about is None else
              _("No reviews of {note} in {where} yet: planner done records one.")).format(
                  where=where, note=about))
        return
    wide = out.width >= WIDE
    counted = sum(1 for row in rows if not row["undone"])
    grid = _list_table((_("Reviews in {where}: {count:,}") if about is None else
                        _("Reviews of {note} in {where}: {count:,}")).format(
                            where=where, note=about, count=counted)
                       + (_(", {count:,} undone").format(count=len(rows) - counted)
                          if counted < len(rows) else "")
                       + _(", newest first"))
    grid.add_column(_("When"), no_wrap=True)
    grid.add_column(_("Note"), no_wrap=True, max_width=24, overflow="ellipsis")
    grid.add_column(_("Title"), min_width=8, ratio=1)
    grid.add_column(_("Rating"), no_wrap=True)
    grid.add_column(_("Min"), justify="right", no_wrap=True)
    if wide:
        grid.add_column(_("Plan"), no_wrap=True)
    grid.add_column(_("Review ID"), no_wrap=True)
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
            review.append(" " + _("undone"), style="yellow")
        cells.append(review)
        grid.add_row(*cells)
    out.print(grid)
    if not wide:
        info(_("Plans reviewed: planner reviews --json, or a terminal 110 columns wide."))


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
    what = (_("{rating} for {target}: {title}, reviewed today.") if day == today else
            _("{rating} for {target}: {title}, reviewed on {date}.")).format(
                rating=rating, target=inert_line(shown), title=inert_line(title),
                date=day.isoformat())
    print_line(Text.assemble((_("Recorded"), "bold green"), " ", inert_line(what)))
    grid = Table.grid(padding=(0, 2))
    grid.add_column(no_wrap=True, max_width=24, overflow="ellipsis")
    grid.add_column(min_width=8, overflow="ellipsis", no_wrap=True)
    grid.add_column(no_wrap=True)
    for row in rows:
        due = parse_day(row["next_due"])
        grid.add_row(_cell(row["note_id"]), _cell(row["title"]),
                     Text(_("next due {when}").format(
                         when=_day_words(due, today) if due else "-")))
    out.print(grid)
    ids = ", ".join(row["review_id"] for row in rows)
    _note(_("Review IDs: {ids} (planner done --undo REVIEW_ID takes one back).").format(ids=ids))


def review_undone(row: dict, today: _dt.date) -> None:
    """What `planner done --undo` did: the review no longer counts; the note's due date now."""
    due = parse_day(row["next_due"])
    then = _local_time(row["reviewed_at"])
    what = _(": review {review_id} of {note} ({rating}, {time}) no longer counts; the log "
             "keeps it, marked undone.").format(
                 review_id=row["review_id"], note=row["note_id"], rating=row["rating"], time=then)
    print_line(Text.assemble((_("Undone"), "bold"), inert_line(what)))
    info(_("{note} is next due {when}.").format(note=row["note_id"],
                                                 when=_day_words(due, today)) if due else
         _("{note} has no review left: it is new again.").format(note=row["note_id"]))
