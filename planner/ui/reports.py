"""The report screens: `planner runs`, `show`, `costs`, `plans` and `notes`."""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.panel import Panel
from rich.text import Text

from planner.inert import inert_block, inert_line
from planner.status import COMPLETE, INTERRUPTED, RUNNING, STAGE_WORDS, STOPPED, WORDS
from planner.ui.console import info, out
from planner.ui.dates import WEEKDAYS, distance, parse_day

if TYPE_CHECKING:
    from rich.table import Table

WIDE = 110  # below this many columns the plans and notes tables keep only their key columns
GAP = 2  # blank cells between two columns of a list table
TITLE_ROOM = 16  # cells a title keeps before an optional column may take its place
TITLE_LEAST = 10  # cells a title keeps before run IDs give way to -1, -2, ...
ERROR_LEAST = 20  # cells the calls table's error keeps before the file names give way
_STYLE = {
    "saved": "green", "complete": "green", "no plan proposed": "cyan", "running": "cyan",
    "stopped": "red", "call limit reached": "red", "interrupted": "yellow",
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


def _word(value: object) -> str:
    """A recorded status as a person reads it: `no plan proposed`, not `no_tool`."""
    return WORDS.get(value, value) if isinstance(value, str) else "-"


def _status(value: object) -> Text:
    """A status cell: its word, coloured by what it means."""
    word = inert_line(_word(value))
    return Text(word, style=_STYLE.get(word, ""))


def _outcome(row: dict) -> str:
    """How a run ended, in one word where one says it: saved, cancelled, stopped, ..."""
    state = row["status"]
    result = row["tool_result"]
    if state == COMPLETE:
        if result in ("saved", "cancelled"):
            return result
        return "cancelled" if row["approved"] is False else _word(state)
    # Stopped after the write (the explanation failed, or Ctrl+C): the plan is on disk.
    return f"saved, then {_word(state)}" if result == "saved" else _word(state)


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


def runs_table(rows: list[dict], currency: str, total: int, where: str) -> None:
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
    unknown = False
    for row in rows:
        if row["status"] == "damaged":
            title, price = _cell(row["problem"], "red"), "-"
        else:
            title = _cell(row["title"])
            price = "simulated" if row["simulated"] else _money(row["cost"], row["unknown_calls"])
            unknown = unknown or (not row["simulated"] and bool(row["unknown_calls"]))
        title.no_wrap, title.overflow = True, "ellipsis"
        outcome = _outcome(row)
        for name, cell in (
            ("Run ID", _cell(row["run_id"])), ("Time", _cell(_when(row["created_at"]))),
            ("Mode", _cell(row["mode"])),
            ("Status", Text(inert_line(outcome), style=_STYLE.get(outcome, "yellow"))),
            ("Calls", _cell(_count(row["calls"]))), ("Title", title), ("Cost", _cell(price)),
        ):
            columns[name].append(cell)
    cost_header = f"Cost {currency}"
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


def costs_table(report: dict, prices: dict, damaged: int, limit: int | None, where: str,
                order: list[str] | None = None) -> None:
    """`planner costs`: tokens and known cost per run, the total of all runs, what was left out.

    Wide enough, every count has its column; narrower, the tokens are one sum and the calls
    with unknown usage a `+N?` beside the cost; status and cost are always there. `order`:
    every run ID, newest first, so a narrow table can name runs by their -N for `show`.
    """
    currency, total = report["currency"], report["total"]
    if not total["runs"]:
        left_out = []
        if report["simulated_runs_skipped"]:
            left_out.append(f"{report['simulated_runs_skipped']} simulated (demo) run(s)")
        if damaged:
            left_out.append(f"{damaged} damaged run(s)")
        info(f"No priced runs in {where}: left out {' and '.join(left_out)}." if left_out
             else f"No runs in {where} yet, so nothing has cost anything.")
        return
    runs = report["runs"] if limit is None else report["runs"][:limit]
    ids = [_cell(run["run_id"]) for run in runs]
    states = [_status(run["status"]) for run in runs]
    footer = f"total, {total['runs']} runs"
    split = [("Calls", "calls"), ("Unknown", "unknown_calls"),
             ("Input hit", "input_cache_hit_tokens"), ("Input miss", "input_cache_miss_tokens"),
             ("Output", "output_tokens")]
    wide = [(name, [_cell(_count(run[key])) for run in runs], _count(total[key]))
            for name, key in split]
    wide.append(("Cost", [_cell(_money(run["cost"])) for run in runs], _money(total["cost"])))
    narrow = [("Tokens", [_cell(_count(_tokens(run))) for run in runs], _count(_tokens(total))),
              ("Cost", [_cell(_money(run["cost"], run["unknown_calls"])) for run in runs],
               _money(total["cost"], total["unknown_calls"]))]

    def left_with(numbers: list[tuple[str, list[Text], str]]) -> int:
        spans = [_span("Run ID", ids, footer), _span("Status", states),
                 *(_span(name, cells, foot) for name, cells, foot in numbers)]
        return _fit(out.width, spans)[1]

    numbers = wide if left_with(wide) >= 0 else narrow
    by_number = left_with(numbers) < 0
    grid = _list_table(f"Costs in {currency}, known part only", footer=True)
    grid.add_column("#" if by_number else "Run ID", no_wrap=True, footer=footer)
    grid.add_column("Status", no_wrap=True)
    for name, _cells, foot in numbers:
        grid.add_column(name, justify="right", no_wrap=True, footer=foot)
    id_cells = ids
    if by_number:
        # -N counts every run, as `planner show -N` does, demo and damaged ones included.
        position = {run_id: number for number, run_id in enumerate(order or (), 1)}
        id_cells = [Text(f"-{position[run['run_id']]}" if run["run_id"] in position else "?")
                    for run in runs]
    for index in range(len(runs)):
        grid.add_row(id_cells[index], states[index],
                     *(cells[index] for _name, cells, _foot in numbers))
    out.print(grid)
    _note(f"Prices per million tokens: input cache hit {prices['hit']}, input cache miss "
          f"{prices['miss']}, output {prices['output']}.")
    _note(f"Tokens in total: input cache hit {_count(total['input_cache_hit_tokens'])}, "
          f"input cache miss {_count(total['input_cache_miss_tokens'])}, "
          f"output {_count(total['output_tokens'])}.")
    if total["unknown_calls"]:
        marked = "; +N? beside a cost" if numbers is narrow else ""
        _note(f"{total['unknown_calls']} call(s) have unknown usage (failed, or not "
              f"reported{marked}): not priced, not counted as zero; the cost is the known part "
              "only.")
    if by_number:
        _note("#: planner show -N opens that run. Run IDs: planner costs --json or a wider "
              "terminal.")
    if report["simulated_runs_skipped"]:
        _note(f"Left out: {report['simulated_runs_skipped']} simulated (demo) run(s).")
    if damaged:
        _note(f"Left out: {damaged} damaged run(s) whose summary.json cannot be used "
              "(see planner runs).")
    if len(runs) < total["runs"]:
        _note(f"Showing the newest {len(runs)} of {total['runs']} priced runs; the total covers "
              "them all. --limit N shows more (0: all).")


def _tokens(counts: dict) -> int:
    return (counts["input_cache_hit_tokens"] + counts["input_cache_miss_tokens"]
            + counts["output_tokens"])


# --- planner show -----------------------------------------------------------------------------


def run_detail(detail: dict) -> None:
    """`planner show`: one run step by step: asked, proposed, decided, written, explained."""
    summary, state = detail["summary"], detail["status"]
    from rich.table import Table

    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_row("Status", _state_line(state, summary))
    if summary is None:
        grid.add_row("Problem", _cell(detail["problem"], "red"))
    elif state != summary["status"]:
        grid.add_row("", _cell(f"recorded as {_word(summary['status'])}; its process is gone",
                               "dim"))
    grid.add_row("Folder", _cell(detail["folder"]))
    if summary is not None:
        _summary_rows(grid, summary, detail)
    grid.add_row("Files", _cell(", ".join(detail["files"]) or "none"))
    out.print(Panel(grid, title=Text(f"Run {inert_line(detail['run_id'])}"), title_align="left",
                    expand=False))
    if summary is None:
        return
    if detail["calls"]:
        _calls_table(detail["calls"])
    steps = detail.get("steps")
    if steps is None:
        steps = [step for step in summary.get("steps") or () if isinstance(step, dict)]
    if steps:
        _conversation(steps, "Simulated model" if detail["simulated"] else "Model")


def _state_line(state: str, summary: dict | None) -> Text:
    """`stopped while asking the model`: the status and, for an unfinished run, its step."""
    line = _status(state)
    stage = summary.get("stage") if summary is not None else None
    doing = STAGE_WORDS.get(stage) if isinstance(stage, str) else None
    if doing and state in (STOPPED, INTERRUPTED, RUNNING):
        line.append(f": {doing}" if state == RUNNING else f" while {doing}")
    return line


def _conversation(steps: list[dict], model: str) -> None:
    """`planner show`: the run told as the conversation it was, step by step."""
    from rich.table import Table

    grid = Table.grid(padding=(0, 2))
    grid.add_column(justify="right", no_wrap=True)
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    for step in steps:
        call = step.get("call")
        who, what = _step_words(step, model)
        grid.add_row(_cell(f"#{call}" if isinstance(call, int) else ""), Text(who), what)
    out.print(Panel(grid, title=Text("Conversation"), title_align="left", expand=False))


def _step_words(step: dict, model: str) -> tuple[str, Text]:
    """Who spoke in one recorded step, and what they said or what the program did."""
    kind = step.get("kind")
    if kind == "proposal":
        recorded = step.get("plan")
        plan = recorded if isinstance(recorded, dict) else {}
        notes = plan.get("note_ids")
        notes = ", ".join(map(str, notes)) if isinstance(notes, list) else notes
        return model, _cell(f"proposed {plan.get('title')!s}: notes {notes}; "
                            f"{plan.get('date')}; {plan.get('minutes')} min")
    if kind == "rejected":
        repair = step.get("repair")
        then = (f"sent back to be corrected ({repair})" if isinstance(repair, int) and repair
                else "not sent back; the run stopped")
        return "planner", _cell(f"rejected {step.get('tool')}: {step.get('error')}; {then}",
                                "yellow")
    if kind == "lookup":
        arguments = json.dumps(step.get("arguments"), ensure_ascii=False)
        return "planner", _cell(f"looked up {step.get('tool')} {arguments} → "
                                f"{step.get('result')}")
    if kind in ("question", "explanation"):
        said = "said (no plan)" if kind == "question" else "explained"
        return f"{model} {said}", Text(inert_block(step.get("text")))
    if kind == "answer":
        return "you answered", Text(inert_block(step.get("text")))
    if kind == "feedback":
        return "you asked to change", Text(inert_block(step.get("text")))
    if kind == "decision":
        result = step.get("result")
        written = _written(result, None)
        typed = step.get("near_misses")
        missed = (f" (near misses: {', '.join(map(str, typed))})"
                  if isinstance(typed, list) and typed else "")
        verdict = "typed SAVE" if step.get("approved") is True else "did not type SAVE"
        return "you", _cell(f"{verdict}: {written}{missed}")
    if kind == "refused":
        return "planner", _cell(f"did not run {step.get('tool')}: {step.get('error')}",
                                "yellow")
    return "?", _cell(f"unknown step {kind}")


def _summary_rows(grid: Table, summary: dict, detail: dict) -> None:
    """What was asked, proposed, decided and written, as label/value rows."""
    if detail["simulated"]:
        grid.add_row("Mode", _cell(f"{summary.get('mode')} (simulated: scripted model replies)"))
    else:
        grid.add_row("Mode", _cell(summary.get("mode")))
        grid.add_row("Model", _cell(f"{summary.get('model')} at {summary.get('base_url')}"))
    grid.add_row("Created", _cell(summary.get("created_at")))
    grid.add_row("Updated", _cell(summary.get("updated_at")))
    grid.add_row("Request", _cell(summary.get("request")))
    plan = summary.get("plan")
    if isinstance(plan, dict):
        notes = plan.get("note_ids")
        notes = ", ".join(map(str, notes)) if isinstance(notes, list) else notes
        grid.add_row("Proposal", _cell(plan.get("title")))
        grid.add_row("", _cell(f"notes {notes}; {plan.get('date')}; {plan.get('minutes')} min"))
    else:
        grid.add_row("Proposal", _cell("none"))
    approved = summary.get("approved")
    decision = "not asked"
    if isinstance(approved, bool):
        decision = "approved (typed SAVE)" if approved else "not approved"
    grid.add_row("Decision", _cell(decision))
    grid.add_row("Written", _cell(_written(summary.get("tool_result"), summary.get("target"))))
    if summary.get("error"):
        grid.add_row("Error", _cell(summary["error"], "red"))
    if detail["simulated"]:
        grid.add_row("Cost", _cell("simulated run: not priced"))
    else:
        cost = f"{_money(detail['cost'])} {detail['currency']}"
        if detail["unknown_calls"]:
            cost += f" (known part; {detail['unknown_calls']} call(s) with unknown usage)"
        grid.add_row("Cost", _cell(cost))


def _written(result: object, target: object) -> str:
    """What the program really did with the plan, from tool_result and target."""
    done = result if isinstance(result, dict) else {}
    status = done.get("status")
    if status == "saved":
        return f"saved to {done.get('path')}"
    if status == "cancelled":
        return "cancelled: nothing written"
    if status == "failed":
        return f"failed: {done.get('error')} (nothing written)"
    if target:
        # The intent was recorded but no result: the write may or may not have happened.
        return f"about to write {target}, no result recorded: check that file"
    return "nothing"


def _calls_table(calls: list[dict]) -> None:
    """Each model call: time, tokens, cost, error; the file names too when there is room."""
    cells: dict[str, list[Text]] = {
        "#": [], "Request": [], "Response": [], "Time": [], "Tokens hit/miss/out": [],
        "Cost": [], "Error": []}
    for call in calls:
        duration = call["duration_ms"]
        tokens = "unknown"
        if call["output_tokens"] is not None:
            tokens = (f"{call['input_cache_hit_tokens']:,}/{call['input_cache_miss_tokens']:,}/"
                      f"{call['output_tokens']:,}")
        for name, cell in (
            ("#", _cell(call["number"])), ("Request", _cell(call["request"])),
            ("Response", _cell(call["response"])),
            ("Time", _cell(None if duration is None else f"{duration} ms")),
            ("Tokens hit/miss/out", _cell(tokens)), ("Cost", _cell(_money(call["cost"]))),
            ("Error", _cell(call["error"], "red")),
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
            # One line each, whatever the width: the file's name is what the person needs.
            out.print(Text.assemble(("Cannot use", "bold red"), " ", inert_line(row["file"]),
                                    ": ", inert_line(row["problem"])), soft_wrap=True)


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
    out.print(Text(inert_line(heading)), soft_wrap=True)
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
    out.print(Text.assemble(("Recorded", "bold green"), f" {rating} for {inert_line(shown)}: ",
                            inert_line(title), f", reviewed {when}."), soft_wrap=True)
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
    out.print(Text.assemble(("Undone", "bold"), f": review {inert_line(row['review_id'])} of ",
                            inert_line(row["note_id"]), f" ({inert_line(row['rating'])}, {then}) "
                            "no longer counts; the log keeps it, marked undone."), soft_wrap=True)
    info(f"{row['note_id']} is next due {_day_words(due, today)}." if due else
         f"{row['note_id']} has no review left: it is new again.")
