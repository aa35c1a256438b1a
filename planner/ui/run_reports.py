"""The screens of the run records: `planner runs`, `show` and `costs`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.panel import Panel
from rich.text import Text

from planner.base import i18n
from planner.base.i18n import _
from planner.base.inert import inert_block, inert_line
from planner.records.status import INTERRUPTED, RUNNING, STAGE_WORDS, STOPPED, WORDS
from planner.ui.console import info, out
from planner.ui.table_cells import (
    ERROR_LEAST,
    TITLE_LEAST,
    TITLE_ROOM,
    back_numbers,
    column_headers,
    count_words,
    fit_widths,
    list_table,
    mode_words,
    money_words,
    shown_line,
    span_of,
    status_cell,
    table_note,
    text_cell,
    when_words,
)
from planner.ui.wrapping import Wrapped

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.table import Table

    from planner.base.config import Prices
    from planner.model.costs import Tally
    from planner.records.history import CostReport, PricedCall, RunDetail, RunRow
    from planner.records.summary import PlanRecord, RunSummary, Step, ToolResult

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
    columns, unknown, unpriced = _run_cells(rows, prices)
    head = column_headers()
    cost_header = _("Cost {currency}").format(currency=prices.currency)
    least = min(TITLE_ROOM, span_of(head["Title"], columns["Title"]))
    status, cost = span_of(head["Status"], columns["Status"]), span_of(cost_header, columns["Cost"])
    _chosen, left = fit_widths(out.width, [span_of(head["Run ID"], columns["Run ID"]), status,
                                     min(least, TITLE_LEAST), cost])
    by_number = left < 0
    if by_number:
        columns["Run ID"] = back_numbers(len(rows))
    first = "#" if by_number else "Run ID"
    shown, left = fit_widths(out.width,
                             [span_of(head[first], columns["Run ID"]), status, least, cost],
                             [(name, [span_of(head[name], columns[name])]) for name in
                              ("Time", "Calls", "Mode")])
    grid = list_table(_("Runs in {where}: {total}, newest first").format(where=where,
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
        table_note(_("+N? = N calls with unknown usage (failed or not reported): not priced, not "
                "zero."))
    if unpriced:
        table_note(_unpriced_note(prices))
    if by_number:
        table_note(_("#: -1 is the newest run; planner show -1 opens it. Run IDs: planner runs "
                "--json or a wider terminal."))
    hidden = [head[name] for name in ("Time", "Mode", "Calls") if name not in shown]
    if hidden:
        table_note(_("Not shown at this width: {columns} (a wider terminal or planner runs --json "
                "shows them).").format(columns=_(", ").join(hidden)))
    if len(rows) < total:
        table_note(_("Showing the newest {count} of {total} runs: --limit N shows more (0: all); "
                "--json lists them all.").format(count=len(rows), total=total))


def _run_cells(rows: Sequence[RunRow], prices: Prices) -> tuple[dict[str, list[Text]], bool, bool]:
    """Each column's cells, one per run; whether a cost leaves out calls, whether one is unknown."""
    columns: dict[str, list[Text]] = {
        "Run ID": [], "Time": [], "Mode": [], "Status": [], "Calls": [], "Title": [], "Cost": []}
    unknown = unpriced = False
    for row in rows:
        tally = row.tally
        if tally is None:  # damaged: the problem takes the title's place
            title, price = text_cell(shown_line(row.problem), "red"), "-"
        else:
            title = text_cell(row.title)
            cost = row.cost(prices)
            if row.simulated:
                price = _("simulated")
            elif cost is None:
                price, unpriced = _("unknown"), True
            else:
                price = money_words(cost, tally.unknown_calls)
                unknown = unknown or bool(tally.unknown_calls)
        title.no_wrap, title.overflow = True, "ellipsis"
        for name, cell in (
            ("Run ID", text_cell(row.run_id)), ("Time", text_cell(when_words(row.created_at))),
            ("Mode", text_cell(mode_words(row.mode))), ("Status", status_cell(row.word)),
            ("Calls", text_cell(count_words(None if tally is None else tally.calls))),
            ("Title", title),
            ("Cost", text_cell(price)),
        ):
            columns[name].append(cell)
    return columns, unknown, unpriced


# --- planner costs ----------------------------------------------------------------------------

# One number column: its name, one cell per run, and the total of all runs.
_Numbers = tuple[str, list[Text], str]


def costs_table(report: CostReport, prices: Prices, limit: int | None, where: str,
                order: list[str] | None = None) -> None:
    """`planner costs`: tokens and known cost per run, the total of all runs, what was left out.

    Wide enough, every count has its column; narrower, the tokens are one sum and the calls
    with unknown usage a `+N?` beside the cost; status and cost are always there. `order`:
    every run ID, newest first, so a narrow table can name runs by their -N for `show`.
    """
    total, priced = report.total, len(report.runs)
    if not priced:
        _no_priced_runs(report, where)
        return
    runs = report.runs if limit is None else report.runs[:limit]
    # The total cost is the known part: runs whose model the prices are for (README "Going on with a
    # conversation").
    known = report.known_cost(prices)
    wide, narrow = _cost_columns(runs, total, known, prices)
    ids = [text_cell(run.run_id) for run in runs]
    states = [status_cell(run.word) for run in runs]
    footer = _("total, {count} runs").format(count=priced)
    head = column_headers()

    def left_with(numbers: list[_Numbers]) -> int:
        spans = [span_of(head["Run ID"], ids, footer), span_of(head["Status"], states),
                 *(span_of(head[name], cells, foot) for name, cells, foot in numbers)]
        return fit_widths(out.width, spans)[1]

    numbers = wide if left_with(wide) >= 0 else narrow
    by_number = left_with(numbers) < 0
    grid = list_table(_("Costs in {currency}, known part only").format(
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
    _costs_notes(report, prices, numbers is narrow, by_number, len(runs))


def _no_priced_runs(report: CostReport, where: str) -> None:
    """`planner costs` with no priced run: one line, naming the runs left out."""
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


def _cost_columns(runs: list[RunRow], total: Tally, known: float | None,
                  prices: Prices) -> tuple[list[_Numbers], list[_Numbers]]:
    """The number columns (name, one cell per run, the total): every count, or the tokens summed."""
    tallies = [_counted(run) for run in runs]
    total_money = _("unknown") if known is None else money_words(known)

    def column(name: str, counts: list[int], all_runs: int) -> _Numbers:
        return name, [text_cell(count_words(count)) for count in counts], count_words(all_runs)

    wide = [
        column("Calls", [tally.calls for tally in tallies], total.calls),
        column("Unknown", [tally.unknown_calls for tally in tallies], total.unknown_calls),
        column("Input hit", [tally.input_cache_hit_tokens for tally in tallies],
               total.input_cache_hit_tokens),
        column("Input miss", [tally.input_cache_miss_tokens for tally in tallies],
               total.input_cache_miss_tokens),
        column("Output", [tally.output_tokens for tally in tallies], total.output_tokens),
        ("Cost", [text_cell(_run_money(run, prices)) for run in runs], total_money),
    ]
    narrow = [
        column("Tokens", [tally.tokens for tally in tallies], total.tokens),
        ("Cost", [text_cell(_run_money(run, prices, True)) for run in runs],
         total_money if known is None else money_words(known, total.unknown_calls)),
    ]
    return wide, narrow


def _costs_notes(report: CostReport, prices: Prices, narrow: bool, by_number: bool,
                 shown: int) -> None:
    """The notes under the costs table: prices, tokens in total, and what the table leaves out."""
    total, priced = report.total, len(report.runs)
    if prices.model:
        table_note(_("Prices per million tokens: input cache hit {hit}, input cache miss {miss}, "
                     "output {output}.").format(hit=prices.input_cache_hit,
                                                miss=prices.input_cache_miss, output=prices.output))
    table_note(_("Tokens in total: input cache hit {hit}, input cache miss {miss}, output "
                 "{output}.").format(hit=count_words(total.input_cache_hit_tokens),
                                     miss=count_words(total.input_cache_miss_tokens),
                                     output=count_words(total.output_tokens)))
    if total.unknown_calls:
        if narrow:
            line = _("{count} call(s) have unknown usage (failed, or not reported; +N? beside a "
                     "cost): not priced, not counted as zero; the cost is the known part only.")
        else:
            line = _("{count} call(s) have unknown usage (failed, or not reported): not priced, "
                     "not counted as zero; the cost is the known part only.")
        table_note(line.format(count=total.unknown_calls))
    if by_number:
        table_note(_("#: planner show -N opens that run. Run IDs: planner costs --json or a wider "
                "terminal."))
    unpriced = report.unpriced(prices)
    if unpriced and not prices.model:
        table_note(_unpriced_note(prices))
    elif unpriced:
        table_note(_("{count} run(s) asked another model: {why}").format(
            count=unpriced, why=_unpriced_note(prices)))
    if report.simulated:
        table_note(_("Left out: {count} simulated (demo) run(s).").format(count=report.simulated))
    if report.damaged:
        table_note(_("Left out: {count} damaged run(s) whose summary.json cannot be used (see "
                "planner runs).").format(count=report.damaged))
    if shown < priced:
        table_note(_("Showing the newest {count} of {total} priced runs; the total covers them "
                     "all. --limit N shows more (0: all).").format(count=shown, total=priced))


def _run_money(run: RunRow, prices: Prices, marked: bool = False) -> str:
    """A run's known cost ('+N?' when `marked` and calls have unknown usage); 'unknown' when
    the prices are for another model."""
    cost = run.cost(prices)
    if cost is None:
        return _("unknown")
    return money_words(cost, _counted(run).unknown_calls if marked else 0)


def _unpriced_note(prices: Prices) -> str:
    if not prices.model:
        return _("unknown = config has no prices (a custom endpoint gets none from a preset); "
                 "set prices.model and the prices for it.")
    return _("unknown = the prices in config are for {model}, not for the run's model; its "
             "cost is not counted (set prices.model and the prices for it).").format(
                 model=inert_line(prices.model))


def _counted(run: RunRow) -> Tally:
    assert run.tally is not None  # a priced run was read, so its calls were counted
    return run.tally


# --- planner show -----------------------------------------------------------------------------


def run_detail(detail: RunDetail) -> None:
    """`planner show`: one run step by step: asked, proposed, decided, written, explained."""
    # The recorded lines said from their templates, in the language of the day.
    with i18n.recorded(detail.messages):
        _run_detail(detail)


def _run_detail(detail: RunDetail) -> None:
    from rich.table import Table

    from planner.records.summary import DamagedRun

    class ProseGrid(Table):
        """A grid whose last column is prose, wrapped by planner's rules (README "中文界面")."""

        def add_row(self, *cells: RenderableType | None, **options: Any) -> None:
            *head, last = cells
            super().add_row(*head, Wrapped(last) if isinstance(last, Text) else last,
                            **options)

    summary = detail.summary
    grid = ProseGrid.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    if isinstance(summary, DamagedRun):
        grid.add_row(_("Status"), status_cell(detail.word))
        grid.add_row(_("Problem"), text_cell(shown_line(summary.why), "red"))
    else:
        grid.add_row(_("Status"), _state_line(detail.word, detail.status, summary))
        if detail.status != summary.status:
            recorded = shown_line(WORDS.get(summary.status, summary.status))
            grid.add_row("", text_cell(_("recorded as {status}; its process is gone").format(
                status=recorded), "dim"))
    grid.add_row(_("Folder"), text_cell(detail.folder))
    if not isinstance(summary, DamagedRun):
        _summary_rows(grid, summary, detail)
    grid.add_row(_("Files"), text_cell(_(", ").join(detail.files) or _("none")))
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
    line = status_cell(word)
    doing = STAGE_WORDS.get(summary.stage) if summary.stage is not None else None
    if doing and state in (STOPPED, INTERRUPTED, RUNNING):
        line.append((_(": {doing}") if state == RUNNING else _(" while {doing}")).format(
            doing=shown_line(doing)))
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
        grid.add_row(text_cell("" if step.call is None else f"#{step.call}"), Text(who),
                     Wrapped(what))
    out.print(Panel(grid, title=Text(_("Conversation")), title_align="left", expand=False))


def _step_words(step: Step, model: str) -> tuple[str, Text]:
    """Who spoke in one recorded step, and what they said or what the program did."""
    match step.kind:
        case "proposal":
            plan = step.plan
            title = None if plan is None else plan.title
            words = inert_line(_("proposed {title}: {plan}").format(
                title=str(title), plan=_plan_words(plan)))
            # A study plan session by session, each on a line of its own.
            return model, Text("\n".join([words, *_session_lines(plan)]))
        case "rejected":
            then = (_("sent back to be corrected ({repair})").format(repair=step.repair)
                    if step.repair else _("not sent back; the run stopped"))
            # A study plan's rejection names each failing session on a line of its own.
            first, *sessions = (step.error or "-").split("\n")
            words = _("rejected {tool}: {error}; {then}").format(
                tool=step.tool, error=shown_line(first), then=then)
            return "planner", Text("\n".join([inert_line(words), *(
                "  " + inert_line(shown_line(line)) for line in sessions)]), style="yellow")
        case "lookup":
            arguments = json.dumps(step.arguments, ensure_ascii=False)
            return "planner", text_cell(_("looked up {tool} {arguments} → {found}").format(
                tool=step.tool, arguments=arguments, found=shown_line(step.found)))
        case "question":
            return _("{model} said (no plan)").format(model=model), Text(inert_block(step.text))
        case "explanation":
            return _("{model} explained").format(model=model), Text(inert_block(step.text))
        case "answer":
            return _("you answered"), Text(inert_block(step.text))
        case "feedback":
            return _("you asked to change"), Text(inert_block(step.text))
        case "decision":
            missed = (_(" (near misses: {misses})").format(misses=_(", ").join(step.near_misses))
                      if step.near_misses else "")
            verdict = (_("typed SAVE: {written}") if step.approved is True
                       else _("did not type SAVE: {written}"))
            return _("you"), text_cell(verdict.format(written=_written(step.result, None)) + missed)
        case "refused":
            return "planner", text_cell(_("did not run {tool}: {error}").format(
                tool=step.tool, error=shown_line(step.error)), "yellow")
        case "budget":
            if step.approved is True:
                return _("you"), text_cell(_("allowed more model calls (up to {count} in this run)")
                                       .format(count=step.max_calls))
            return _("you"), text_cell(_("allowed no more model calls (the limit stayed {count})")
                                   .format(count=step.max_calls))
    return "?", text_cell(_("unknown step {kind}").format(kind=step.kind))


def _plan_words(plan: PlanRecord | None) -> str:
    """`notes N1, N2; 2026-12-05; 20 min`; a study plan's `5 sessions; 220 min` (its sessions:
    _session_lines)."""
    words = _("notes {notes}; {when}; {minutes} min")
    if plan is not None and plan.sessions is not None:
        return _("{count} sessions; {minutes} min").format(count=len(plan.sessions),
                                                           minutes=plan.minutes)
    if plan is None:
        return words.format(notes=None, when=None, minutes=None)
    notes = None if plan.note_ids is None else _(", ").join(plan.note_ids)
    # A series (README "Review memory") has its sessions' dates in the place of one date.
    when = plan.date if plan.dates is None else _(", ").join(plan.dates)
    return words.format(notes=notes, when=when, minutes=plan.minutes)


def _session_lines(plan: PlanRecord | None) -> list[str]:
    """A study plan's sessions as recorded, one line each: `1. 2026-12-07 19:00, 45 min: N1,
    N2` (made inert: the record is data)."""
    if plan is None or plan.sessions is None:
        return []
    lines = []
    for number, session in enumerate(plan.sessions, 1):
        lines.append(inert_line(_("{number}. {when}, {minutes} min: {notes}").format(
            number=number, when=" ".join(part for part in (session.date, session.start)
                                         if part is not None),
            minutes=session.minutes,
            notes=None if session.note_ids is None else _(", ").join(session.note_ids))))
    return lines


def _summary_rows(grid: Table, summary: RunSummary, detail: RunDetail) -> None:
    """What was asked, proposed, decided and written, as label/value rows."""
    if summary.is_simulated:
        grid.add_row(_("Mode"), text_cell(_("{mode} (simulated: scripted model replies)").format(
            mode=mode_words(summary.mode))))
    else:
        grid.add_row(_("Mode"), text_cell(mode_words(summary.mode)))
        grid.add_row(_("Model"), text_cell(_("{model} at {url}").format(model=summary.model,
                                                                     url=summary.base_url)))
    # Local 'YYYY-MM-DD HH:MM' (README "中文界面"), as every other time on screen; --json keeps ISO.
    grid.add_row(_("Created"), text_cell(_local_minute(summary.created_at)))
    grid.add_row(_("Updated"), text_cell(_local_minute(summary.updated_at)))
    grid.add_row(_("Request"), text_cell(summary.request))
    if summary.continues is not None:
        # planner --continue: this run went on with that run's conversation (README "Going on with a
        # conversation").
        grid.add_row(_("Continues"), text_cell(_("run {run_id}").format(run_id=summary.continues)))
    if summary.plan is not None:
        grid.add_row(_("Proposal"), text_cell(summary.plan.title))
        grid.add_row("", text_cell(_plan_words(summary.plan)))
        for line in _session_lines(summary.plan):
            grid.add_row("", Text(line))
    else:
        grid.add_row(_("Proposal"), text_cell(_("none")))
    decision = _("not asked")
    if summary.approved is not None:
        decision = _("approved (typed SAVE)") if summary.approved else _("not approved")
    grid.add_row(_("Decision"), text_cell(decision))
    grid.add_row(_("Written"), text_cell(_written(summary.tool_result, summary.target)))
    if summary.error:
        grid.add_row(_("Error"), text_cell(shown_line(summary.error), "red"))
    if summary.is_simulated:
        grid.add_row(_("Cost"), text_cell(_("simulated run: not priced")))
    elif detail.cost is None:
        # Not simulated, yet no cost: the prices in config are for another model (README "Going on
        # with a conversation").
        grid.add_row(_("Cost"), text_cell(_("unknown: config has no prices for {model}").format(
            model=summary.model or _("an unnamed model"))))
    else:
        cost = f"{money_words(detail.cost)} {detail.currency}"
        unknown = 0 if detail.tally is None else detail.tally.unknown_calls
        if unknown:
            cost += _(" (known part; {count} call(s) with unknown usage)").format(count=unknown)
        grid.add_row(_("Cost"), text_cell(cost))


def _written(result: ToolResult | None, target: str | None) -> str:
    """What the program really did with the plan, from tool_result and target."""
    status = None if result is None else result.status
    if result is not None and status == "saved":
        return _("saved to {path}").format(path=result.path)
    if status == "cancelled":
        return _("cancelled: nothing written")
    if result is not None and status == "failed":
        return _("failed: {error} (nothing written)").format(error=shown_line(result.error))
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
            ("#", text_cell(call.number)), ("Request", text_cell(entry.request)),
            ("Response", text_cell(entry.response)),
            ("Time", text_cell(None if duration is None else f"{duration} ms")),
            ("Tokens hit/miss/out", text_cell(tokens)), ("Cost", text_cell(money_words(call.cost))),
            ("Error", text_cell(None if entry.error is None else shown_line(entry.error), "red")),
        ):
            cells[name].append(cell)
    fixed = ["#", "Time", "Tokens hit/miss/out", "Cost"]
    # The file names are in the panel's Files row too: they go first when space is short.
    head = column_headers()
    files = [span_of(head[name], cells[name]) for name in ("Request", "Response")]
    shown, _left = fit_widths(out.width, [*(span_of(head[name], cells[name]) for name in fixed),
                                    ERROR_LEAST], [("files", files)])
    names = ["#", *(["Request", "Response"] if shown else []), *fixed[1:], "Error"]
    grid = list_table(_("Model calls"))
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


def _local_minute(value: object) -> str:
    """A recorded ISO time as this machine's local 'YYYY-MM-DD HH:MM'; as recorded otherwise."""
    import datetime as _dt

    try:
        moment = _dt.datetime.fromisoformat(str(value))
    except ValueError:
        return str(value)
    if moment.tzinfo is not None:
        moment = moment.astimezone()
    return moment.strftime("%Y-%m-%d %H:%M")
