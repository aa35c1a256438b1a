"""All terminal output and prompts: the plan panel, the SAVE prompt, results, tables."""

from __future__ import annotations

import getpass
import io
import json
import sys
from typing import TYPE_CHECKING

from rich.cells import cell_len, chop_cells
from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from planner.inert import inert_block, inert_line
from planner.status import COMPLETE, INTERRUPTED, RUNNING, STAGE_WORDS, STOPPED, WORDS

if TYPE_CHECKING:
    from rich.status import Status
    from rich.table import Table

SAVE_PROMPT = "Type SAVE to save this plan; anything else cancels: "
ANSWER_PROMPT = "Your answer (Enter to finish): "
FEEDBACK_PROMPT = "What should change? (Enter to finish): "
NO_PLAN_LINE = "No plan was proposed; nothing was saved."
TTY = "/dev/tty"
TTY_LINE_BYTES = 4095  # what a terminal keeps of one typed line (Linux N_TTY_BUF_SIZE - 1)
CUT_LINE = ("That line was longer than the terminal keeps (4,095 bytes, about 1,365 Chinese "
            "characters), so its end was lost; nothing was sent. Shorten it, or press Enter to "
            "finish.")
LABEL = 9  # width of the plan panel's labels: "Minutes  "

# Rich turns colour off by itself when NO_COLOR is set or the stream is not a terminal.
out = Console(highlight=False, emoji=False)
err = Console(stderr=True, highlight=False, emoji=False)


def error(message: str) -> None:
    """The one line a failure prints."""
    # soft_wrap: one logical line whatever the width, so it can be grepped and copied whole.
    err.print(Text.assemble(("Error:", "bold red"), " ", inert_line(message)), soft_wrap=True)


def info(message: str) -> None:
    """A plain line on stdout."""
    out.print(Text(inert_line(message)), soft_wrap=True)


def notice(message: str) -> None:
    """A line about the run itself (not its result), on stderr so stdout stays clean."""
    # One line in a pipe or a file (greppable); on a terminal, wrapped between words, where
    # the terminal itself would cut a word at the edge.
    err.print(Text(inert_line(message), style="dim"), soft_wrap=not err.is_terminal)


def print_json(data: object) -> None:
    """Machine-readable JSON on stdout, exactly, with no markup or wrapping."""
    readable = _stdout_reads_cjk()
    text = json.dumps(data, ensure_ascii=not readable, indent=2)
    sys.stdout.write(_inert_json(text) + "\n")
    sys.stdout.flush()


def _stdout_reads_cjk() -> bool:
    """Whether stdout can encode CJK; if not (PYTHONIOENCODING=ascii), JSON uses \\u escapes."""
    try:
        "\u4e00\U0001f600".encode(sys.stdout.encoding or "ascii")
        return True
    except (LookupError, UnicodeError):
        return False


def _inert_json(text: str) -> str:
    """JSON text with hidden characters as \\u escapes: the same JSON value, inert on a tty."""
    # json escapes C0 itself; CJK and other printable text stay as they are.
    if text.isascii() and "\x7f" not in text:
        return text
    import re

    def escape(match: re.Match[str]) -> str:
        run = match.group()
        if run.isprintable():
            return run  # CJK and other ordinary text, in one C-speed check
        # DEL, C1, bidi and other hidden characters (inert_line's choice) and lone
        # surrogates become \uXXXX escapes.
        shown = []
        for char in run:
            code = ord(char)
            if inert_line(char) == char:
                shown.append(char)
            elif code < 0x10000:
                shown.append(f"\\u{code:04x}")
            else:  # a UTF-16 surrogate pair, as JSON writes characters beyond U+FFFF
                code -= 0x10000
                shown.append(f"\\u{0xd800 + (code >> 10):04x}"
                             f"\\u{0xdc00 + (code & 0x3ff):04x}")
        return "".join(shown)

    return re.sub(r"[^\x00-\x7e]+", escape, text)


def prompt_text(kind: str, typed: str | None = None) -> str:
    """The words of a prompt: SAVE (again after a near miss), an answer, or feedback."""
    if kind == "answer":
        return ANSWER_PROMPT
    if kind == "feedback":
        return FEEDBACK_PROMPT
    if typed is not None:
        return f'You typed "{inert_line(typed)}"; only SAVE in capitals saves. {SAVE_PROMPT}'
    return SAVE_PROMPT


class TerminalPerson:
    """The person at the terminal: renders the flow's events, reads answers from /dev/tty."""

    def __init__(self, home_display: str) -> None:
        self.home_display = home_display
        self.interactive = has_terminal()
        self.waiting: Status | None = None  # the line shown while the model is asked

    def show(self, event: object) -> None:
        """Render one event of the flow (see planner.flow for the kinds)."""
        kind = type(event).__name__
        if self.waiting is not None:
            # Called ends the wait; any other event would too, before it is drawn.
            self.waiting.stop()
            self.waiting = None
        if kind == "Calling":
            self.waiting = start_waiting(event)
        elif kind == "Proposed":
            show_plan(event.view, event.simulated)
        elif kind == "Rejected":
            out.print(Text(f"The model's proposal was rejected ({inert_line(event.error)}); "
                           f"asking it to correct it ({event.repair} of {event.max_repairs}).",
                           style="yellow"))
        elif kind == "Looked":
            argument = json.dumps(_plain(event.arguments), ensure_ascii=False)
            out.print(Text(f"Looked up for the model: {event.tool} {inert_line(argument)} "
                           f"→ {inert_line(event.summary)}", style="dim"))
        elif kind == "ModelText":
            show_model_text(event)
        elif kind == "Result":
            show_result(event.result, self.home_display)
        elif kind == "RefusedCall":
            out.print(Text(f"The model called {inert_line(event.tool)}; not run "
                           f"({inert_line(event.error)}).", style="yellow"))
        elif kind == "Notice":
            # Wrapped between words on a terminal (a file still gets one line per notice).
            out.print(Text(inert_line(event.text)), soft_wrap=not out.is_terminal)

    def ask(self, prompt) -> str | None:
        """One line from the controlling terminal; None when there is none."""
        for _ in range(3):
            line = read_tty_line(prompt_text(prompt.kind, prompt.typed),
                                 discard_typed_ahead=prompt.confirming)
            if line is None or not cut_by_terminal(line):
                return line
            out.print(Text(CUT_LINE, style="yellow"), soft_wrap=not out.is_terminal)
        return ""  # three cut lines: finish, as an empty answer does


def cut_by_terminal(line: str) -> bool:
    """Whether the terminal dropped the end of this line (its line buffer was full)."""
    # Linux keeps at most 4,095 bytes of a line in canonical mode; a character cut in two
    # there is read back as U+FFFD (3 bytes). Lines this long are never sent: part of them
    # is gone, and the person would not know which words the model got.
    return len(line.removesuffix("\n").encode("utf-8", "replace")) >= TTY_LINE_BYTES - 2


def _plain(value: object) -> object:
    return value._asdict() if hasattr(value, "_asdict") else value


# --- While the model thinks, and what the run cost --------------------------------------------


def _utf(console: Console) -> bool:
    """Whether the console's stream can show characters beyond ASCII (…, ·, a spinner)."""
    return console.encoding.lower().startswith("utf")


def _can_animate() -> bool:
    """A waiting line needs stderr to be a terminal that can redraw a line: never a pipe."""
    try:
        # The stream itself, not Rich's guess: FORCE_COLOR makes Rich call a pipe a terminal.
        return err.file.isatty() and not err.is_dumb_terminal
    except (AttributeError, ValueError, OSError):
        return False


class _Waiting:
    """`Asking MODEL at HOST… 3 s`: redrawn by the status line, with the seconds so far."""

    def __init__(self, text: str, dots: str) -> None:
        import time

        self.clock = time.monotonic
        self.started = self.clock()
        self.text = text + dots

    def __rich__(self) -> Text:
        return Text(f"{self.text} {int(self.clock() - self.started)} s", style="dim")


def start_waiting(event) -> Status | None:
    """Show who is asked and for how long, on stderr, until stopped; None when not shown.

    Only for a real model (the demo's replies take no time) and only on a terminal.
    """
    if event.simulated or not _can_animate():
        return None
    # Imported here: only a live run in a terminal pays for Rich's live display and spinners.
    from rich.status import Status

    utf = _utf(err)
    line = _Waiting(f"Asking {inert_line(event.model)} at {inert_line(_host(event.base_url))}",
                    "…" if utf else "...")
    waiting = Status(line, console=err, spinner="dots" if utf else "line")
    waiting.start()
    return waiting


def _host(base_url: object) -> str:
    """Where a request goes, as a person names it: the host (and a port that is not usual)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(str(base_url))
        host, port = parts.hostname, parts.port
    except ValueError:
        return str(base_url)
    if not host:
        return str(base_url)
    return f"{host}:{port}" if port else host


def run_cost(calls: int, unknown: int, tokens: int, cost: float, currency: str) -> None:
    """The line after a live run: `2 calls · 1,130 tokens · $0.0002` (as `planner costs`)."""
    dot = " · " if _utf(err) else " - "
    parts = [f"{calls:,} call" + ("" if calls == 1 else "s")]
    if unknown == calls:
        parts.append("cost unknown (no usage reported)")
    elif unknown:
        parts += [f"{tokens:,} tokens known",
                  f"cost unknown ({unknown:,} call(s) without usage; the rest "
                  f"{money(cost, currency)})"]
    else:
        parts += [f"{tokens:,} tokens", money(cost, currency)]
    notice(dot.join(parts))


def money(cost: float, currency: str) -> str:
    """A run's cost to read at a glance: $0.0002, or two significant digits below that."""
    import math

    decimals = 4
    if 0 < cost < 0.00005:
        # 0.0000176 would read as $0.0000: show it as 0.000018 instead.
        decimals = 1 - math.floor(math.log10(cost))
    amount = f"{cost:.{decimals}f}" if cost else "0"
    return f"${amount}" if currency == "USD" else f"{amount} {inert_line(currency)}"


def _screen() -> Console:
    """Where the plan is shown: the terminal where SAVE is asked, even if stdout is a file."""
    try:
        # The stream itself, not Rich's is_terminal: FORCE_COLOR makes that true for a file.
        on_terminal = out.file.isatty()
    except (AttributeError, ValueError, OSError):
        on_terminal = False
    if on_terminal:
        return out
    try:
        tty = open(TTY, "w", encoding="utf-8", errors="backslashreplace")  # noqa: SIM115
    except OSError:
        return out  # no terminal: nobody is asked; the plan goes with the rest of the output
    return Console(file=tty, highlight=False, emoji=False)


def _hanging(value: str, width: int) -> list[str]:
    """A value cut to the panel's width; the lines after the first are indented by LABEL."""
    return chop_cells(value, max(width, 10)) if cell_len(value) > width else [value]


def show_plan(view, simulated: bool) -> None:
    """The checked plan as the person must confirm it: values, notes, target file."""
    plan = view.plan
    warn = "bold yellow"
    rows = [("Title", inert_line(plan.title), "")]
    for index, note in enumerate(view.notes):
        where = f"  ({inert_line(note.path)})" if getattr(note, "path", None) else ""
        rows.append(("Notes" if index == 0 else "",
                     f"{inert_line(note.id)}  {inert_line(note.title)}{where}", ""))
    rows.append(("Date", _date_text(view), ""))
    if view.date_in_past:
        rows.append(("", f"warning: this date is in the past (today is {view.today})", warn))
    rows += [("Minutes", str(plan.minutes), ""), ("Save to", inert_line(str(view.target)), "")]
    rows += [("", f"warning: {inert_line(warning)}", warn)
             for warning in getattr(view, "warnings", ())]
    screen = _screen()
    try:
        _plan_panel(screen, rows, simulated)
    except OSError:
        if screen is out:
            raise
        # The terminal went away while showing it: the plan goes with the rest of the output,
        # and the SAVE prompt, which needs that terminal too, finds none and cancels.
        _plan_panel(out, rows, simulated)
    finally:
        if screen is not out:
            try:
                screen.file.close()
            except OSError:
                pass


def _plan_panel(screen: Console, rows: list[tuple[str, str, str]], simulated: bool) -> None:
    """The plan's rows in a panel; no value can wrap into a line that starts like a label."""
    import os

    columns = screen.width
    try:
        # The terminal's own width wins over a stale COLUMNS: a line longer than the screen
        # would be wrapped by the terminal, past the hanging indent below.
        columns = min(columns, os.get_terminal_size(screen.file.fileno()).columns)
    except (AttributeError, ValueError, OSError):
        pass  # not a terminal: Rich's width (COLUMNS, else 80) is all there is
    # One Text, not a Table: a quarter of the rendering time. A value too long for the panel
    # is cut by hand and its next lines indented past the labels, so a long title can never
    # wrap into a line that starts like one of the rows (`Date`, `Minutes`).
    width = columns - 4 - LABEL
    encoding = screen.encoding
    body = Text()
    for label, value, style in rows:
        if not encoding.startswith("utf"):
            # Escaped before measuring: `\u590d` takes six columns, not the two of 复.
            value = value.encode(encoding, "backslashreplace").decode(encoding)
        for number, part in enumerate(_hanging(value, width)):
            body.append(f"{label if number == 0 else '':<{LABEL}}", style="bold")
            body.append(part, style=style)
            body.append("\n")
    body.rstrip()
    title = "Proposed plan (simulated model)" if simulated else "Proposed plan"
    screen.print(Panel(body, title=Text(title), title_align="left", expand=False,
                       width=columns))


def _date_text(view) -> str:
    plan = view.plan
    try:
        from planner.plans import describe_date
    except ImportError:
        return plan.date
    return describe_date(plan.date, view.today)


def read_tty_line(prompt: str, discard_typed_ahead: bool = False) -> str | None:
    """One raw line from the controlling terminal ('' at end of input); None: no terminal.

    With `discard_typed_ahead`, whatever was typed or pasted before the prompt is dropped
    unread, so only a line typed after seeing what is asked can answer it (SPEC 22).
    """
    try:
        # Like getpass and sudo: the answer comes from the person at the terminal, never a pipe.
        raw = open(TTY, "r+b", buffering=0)  # noqa: SIM115 - closed below
    except OSError:
        return None
    try:
        with raw, io.TextIOWrapper(raw, encoding="utf-8", errors="replace",
                                   newline="\n") as tty:
            out.file.flush()
            if discard_typed_ahead:
                _discard_pending_input(raw.fileno())
            tty.write(prompt)
            tty.flush()
            try:
                return tty.readline()
            except KeyboardInterrupt:
                # End the prompt's line, so the line about the interruption starts on its own.
                tty.write("\n")
                tty.flush()
                raise
    except OSError:
        # The terminal went away (hung up) mid-prompt: nobody can answer, as with none at all.
        return None


def _discard_pending_input(fd: int) -> None:
    """Drop the terminal's unread input (as sudo and getpass do before asking)."""
    import termios

    try:
        termios.tcflush(fd, termios.TCIFLUSH)
    except termios.error:
        pass  # not a terminal after all: there is no typed-ahead queue to drop


def has_terminal() -> bool:
    """Whether a controlling terminal can be opened for prompts."""
    try:
        with open(TTY, "rb"):
            return True
    except OSError:
        return False


def ask_hidden(prompt: str) -> str:
    """A hidden prompt on the terminal (the API key)."""
    return getpass.getpass(prompt)


def show_result(result: dict, home_display: str) -> None:
    """The program's own result, printed before anything the model says."""
    status = result.get("status")
    if status == "saved":
        path = inert_line(_under(home_display, result["path"]))
        out.print(Text(f"Saved to {path}", style="bold green"))
    elif status == "cancelled":
        out.print(Text("Cancelled: nothing saved.", style="bold"))


def show_model_text(event) -> None:
    """Text written by the model, clearly labelled as such, after the program's own truth."""
    who = "Simulated model" if event.simulated else "Model"
    if event.explanation:
        label = f"{who} explanation"
    else:
        # The truth first: whatever the text claims, no plan was proposed and nothing saved.
        out.print(Text(NO_PLAN_LINE, style="bold"))
        label = f"{who} reply (no plan proposed)"
    # Text, not markup, and made inert: the words are shown, never obeyed by the terminal.
    text = inert_block(event.text)
    encoding = out.encoding
    if not encoding.startswith("utf"):
        # Escaped before Rich measures the lines, so the panel's border stays where it is.
        text = text.encode(encoding, "backslashreplace").decode(encoding)
    out.print(Panel(Text(text), title=Text(label), title_align="left", expand=False))


def _under(home_display: str, relative: str) -> str:
    return relative if home_display in ("", ".") else f"{home_display.rstrip('/')}/{relative}"


WIDE = 110  # below this many columns the plans and notes tables keep only their key columns
GAP = 2  # blank cells between two columns of a list table
TITLE_ROOM = 16  # cells a title keeps before an optional column may take its place
TITLE_LEAST = 10  # cells a title keeps before run IDs give way to -1, -2, ...
_STYLE = {
    "saved": "green", "complete": "green", "no plan proposed": "cyan", "running": "cyan",
    "stopped": "red", "call limit reached": "red", "interrupted": "yellow",
    "damaged": "bold red",
}


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


def _note(text: str) -> None:
    """A line under a table, wrapped between words at the terminal's width."""
    out.print(Text(inert_line(text)))


def _span(header: str, cells: list[Text], footer: str = "") -> int:
    """The cells a no-wrap column needs: its widest cell, header or footer."""
    return max([cell_len(header), cell_len(footer), *(cell.cell_len for cell in cells)])


def _fitting(room: int, optional: list[tuple[str, int]], least: int) -> list[str]:
    """The optional columns that fit in `room`, by priority, leaving `least` cells over."""
    chosen = []
    for name, width in optional:
        if room - width - GAP >= least:
            chosen.append(name)
            room -= width + GAP
    return chosen


def _back_numbers(count: int) -> list[Text]:
    """-1, -2, ...: what `planner show` takes for the newest runs, when IDs do not fit."""
    return [Text(f"-{number}") for number in range(1, count + 1)]


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
            title, cost = _cell(row["problem"], "red"), "-"
        else:
            title = _cell(row["title"])
            cost = "simulated" if row["simulated"] else _money(row["cost"], row["unknown_calls"])
            unknown = unknown or (not row["simulated"] and bool(row["unknown_calls"]))
        title.no_wrap, title.overflow = True, "ellipsis"
        outcome = _outcome(row)
        for name, cell in (
            ("Run ID", _cell(row["run_id"])), ("Time", _cell(_when(row["created_at"]))),
            ("Mode", _cell(row["mode"])),
            ("Status", Text(inert_line(outcome), style=_STYLE.get(outcome, "yellow"))),
            ("Calls", _cell(_count(row["calls"]))), ("Title", title), ("Cost", _cell(cost)),
        ):
            columns[name].append(cell)
    cost_header = f"Cost {currency}"
    least = min(TITLE_ROOM, _span("Title", columns["Title"]))
    fixed = _span("Status", columns["Status"]) + _span(cost_header, columns["Cost"]) + 3 * GAP
    by_number = out.width - fixed - _span("Run ID", columns["Run ID"]) < min(least, TITLE_LEAST)
    if by_number:
        columns["Run ID"] = _back_numbers(len(rows))
    room = out.width - fixed - _span("#" if by_number else "Run ID", columns["Run ID"])
    shown = _fitting(room, [(name, _span(name, columns[name])) for name in
                            ("Time", "Calls", "Mode")], least)
    grid = _list_table(f"Runs in {where}: {total}, newest first")
    grid.add_column("#" if by_number else "Run ID", no_wrap=True,
                    justify="right" if by_number else "left")
    for name in ("Time", "Mode"):
        if name in shown:
            grid.add_column(name, no_wrap=True)
    grid.add_column("Status", no_wrap=True)
    if "Calls" in shown:
        grid.add_column("Calls", justify="right", no_wrap=True)
    # The one column that gives way: one line each, cut with …; Rich counts a Chinese
    # character as two cells.
    # Below about 60 columns even that leaves the title less than `least`: it takes what is left.
    spare = room - sum(_span(name, columns[name]) + GAP for name in shown)
    grid.add_column("Title", min_width=max(1, min(least, spare)), max_width=48)
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
    _shown(len(rows), total)


def _shown(shown: int, total: int) -> None:
    if shown < total:
        _note(f"Showing the newest {shown} of {total} runs: --limit N shows more (0: all); "
              "--json lists them all.")


def costs_table(report: dict, prices: dict, damaged: int, limit: int | None, where: str,
                order: list[str] | None = None) -> None:
    """`planner costs`: tokens and known cost per run, the total of all runs, what was left out.

    Wide enough, every count has its column; narrower, the tokens are one sum and the calls
    with unknown usage a `+N?` beside the cost; status and cost are always there. `order`:
    every run ID, newest first, so a narrow table can name runs by their -N for `show`.
    """
    currency, total = report["currency"], report["total"]
    if not total["runs"]:
        left = []
        if report["simulated_runs_skipped"]:
            left.append(f"{report['simulated_runs_skipped']} simulated (demo) run(s)")
        if damaged:
            left.append(f"{damaged} damaged run(s)")
        info(f"No priced runs in {where}: left out {' and '.join(left)}." if left
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

    def needs(numbers: list, id_cells: list[Text]) -> int:
        spans = [_span("Run ID", id_cells, footer), _span("Status", states),
                 *(_span(name, cells, foot) for name, cells, foot in numbers)]
        return sum(spans) + GAP * (len(spans) - 1)

    numbers = wide if needs(wide, ids) <= out.width else narrow
    by_number = needs(numbers, ids) > out.width
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
        plan = step.get("plan") if isinstance(step.get("plan"), dict) else {}
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
    status = result.get("status") if isinstance(result, dict) else None
    if status == "saved":
        return f"saved to {result.get('path')}"
    if status == "cancelled":
        return "cancelled: nothing written"
    if status == "failed":
        return f"failed: {result.get('error')} (nothing written)"
    if target:
        # The intent was recorded but no result: the write may or may not have happened.
        return f"about to write {target}, no result recorded: check that file"
    return "nothing"


def _calls_table(calls: list[dict]) -> None:
    """Each model call: time, tokens, cost, error; the file names too when there is room."""
    cells = {"#": [], "Request": [], "Response": [], "Time": [], "Tokens hit/miss/out": [],
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
    fixed = ("#", "Time", "Tokens hit/miss/out", "Cost")
    room = out.width - sum(_span(name, cells[name]) for name in fixed) - GAP * len(fixed)
    # The file names are in the panel's Files row too: they go first when space is short.
    files = _span("Request", cells["Request"]) + _span("Response", cells["Response"]) + GAP
    names = ["#", "Time", "Tokens hit/miss/out", "Cost", "Error"]
    if _fitting(room, [("files", files)], 20):
        names[1:1] = ["Request", "Response"]
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


def print_json_lines(data: object) -> None:
    """JSON on stdout: the top level and its lists opened, one compact item per line."""
    # Not indent=: that uses json's pure-Python encoder, which on 10,000 runs costs more than
    # reading the records; compact items go through the C encoder and stay greppable.
    encode = json.JSONEncoder(ensure_ascii=not _stdout_reads_cjk()).encode

    def dumps(value: object) -> str:
        return _inert_json(encode(value))

    write = sys.stdout.write

    def block(value: object, indent: str) -> str:
        if isinstance(value, list) and value:
            inner = indent + "  "
            return "[\n" + ",\n".join(inner + dumps(item) for item in value) + f"\n{indent}]"
        return dumps(value)

    if isinstance(data, dict) and data:
        lines = (f"  {dumps(key)}: {block(value, '  ')}" for key, value in data.items())
        write("{\n" + ",\n".join(lines) + "\n}\n")
    else:
        write(block(data, "") + "\n")
    sys.stdout.flush()


# --- planner plans ----------------------------------------------------------------------------


def plans_table(rows: list[dict], folder: str, today, hidden_past: int = 0) -> None:
    """`planner plans`: upcoming first, then past ones (--all); files with a problem after."""
    from planner.inert import inert_line
    from planner.plans import WEEKDAYS, distance

    plans = [row for row in rows if row["problem"] is None]
    now = today.isoformat()
    if not plans:
        info(f"No upcoming plans in {folder}/; {hidden_past} past plan(s): planner plans --all "
             "lists them." if hidden_past else f"No plans to show in {folder}/.")
    else:
        upcoming = sum(1 for row in plans if row["date"] >= now)
        past = len(plans) - upcoming
        wide = out.width >= WIDE
        grid = _list_table(f"Plans in {folder}/: {upcoming} upcoming"
                           + (f", {past} past" if past else ""))
        grid.add_column("Date", no_wrap=True)
        grid.add_column("When", no_wrap=True)
        grid.add_column("Min", justify="right", no_wrap=True)
        # Title and notes narrow first; their cells are one line cut with …, and Rich counts
        # wide (Chinese) characters as two cells.
        grid.add_column("Title", min_width=8, ratio=3)
        grid.add_column("Notes", min_width=5, ratio=1)
        if wide:
            grid.add_column("File", no_wrap=True)
        for row in plans:
            day = _plan_day(row["date"])
            style = "bold" if row["date"] == now else ("dim" if row["date"] < now else "")
            date = f"{row['date']} {WEEKDAYS[day.weekday()][:3]}" if day else row["date"]
            title, notes = _cell(row["title"]), _cell(", ".join(row["note_ids"]))
            for cell in (title, notes):
                cell.no_wrap, cell.overflow = True, "ellipsis"
            cells = [_cell(date, style), _cell(distance(day, today) if day else "-", style),
                     _cell(row["minutes"]), title, notes]
            if wide:
                cells.append(_cell(row["file"], "dim"))
            grid.add_row(*cells)
        out.print(grid)
        if hidden_past:
            info(f"{hidden_past} past plan(s) not shown: planner plans --all lists them.")
        if not wide:
            info("File names: planner plans --json, or a terminal 110 columns wide.")
    for row in rows:
        if row["problem"] is not None:
            # One line each, whatever the width: the file's name is what the person needs.
            out.print(Text.assemble(("Cannot use", "bold red"), " ", inert_line(row["file"]),
                                    ": ", inert_line(row["problem"])), soft_wrap=True)


def _plan_day(date: str):
    import datetime as _dt

    try:
        return _dt.date.fromisoformat(date)
    except (TypeError, ValueError):
        return None


def write_bytes(data: bytes) -> None:
    """A file's bytes on stdout (a calendar): exact into a pipe or file, made inert on a terminal.

    OSError if they cannot be written.
    """
    if sys.stdout.isatty():
        # Read on a screen, not saved: nothing in it may move the cursor or reorder text.
        text = data.decode("utf-8", "replace")
        data = (inert_block(text.removesuffix("\r\n")) + "\n").encode("utf-8", "replace")
    try:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except OSError:
        # Nothing more can reach a closed pipe: point stdout at /dev/null so the interpreter's
        # own flush at exit adds no second message, then let the caller say the one line.
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        raise


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
