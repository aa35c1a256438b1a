"""The live run on the terminal: the plan panel, the prompts, the model's words, the results."""

from __future__ import annotations

import datetime as _dt
import json
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from planner import ui
from planner.base import answers
from planner.base.days import AfterLastDay, clock_text
from planner.base.i18n import N_, _, lookup, n_, shown
from planner.base.inert import inert_block, inert_line
from planner.conversation.events import (
    Called,
    Calling,
    ConfirmRequest,
    Looked,
    ModelText,
    Notice,
    Prompt,
    Proposed,
    RefusedCall,
    Rejected,
    Result,
)
from planner.ui.change_words import change_rows
from planner.ui.console import cut_by_terminal, err, notice, out, print_line
from planner.ui.dates import describe_date
from planner.ui.plain import TTY
from planner.ui.wrapping import Hanging, spans, wrap_block

if TYPE_CHECKING:
    from rich.status import Status


# The English words; lookup() gives them in the person's language where they are shown.
SAVE_PROMPT = N_("Type SAVE to save this plan; anything else cancels: ")
ANSWER_PROMPT = N_("Your answer (Enter to finish): ")
FEEDBACK_PROMPT = N_("What should change? (Enter to finish): ")
RATING_PROMPT = N_("How did it go? again / hard / good / easy (Enter: good): ")
NO_PLAN_LINE = N_("No plan was proposed; nothing was saved.")
ASKS_LINE = N_("The model asks (nothing is saved yet):")
CUT_LINE = N_("That line was longer than the terminal keeps (4,095 bytes, about 1,365 Chinese "
              "characters), so its end was lost; nothing was sent. Shorten it, or press Enter "
              "to finish.")
CONTROL_LINE = N_("That line holds a control character or an escape sequence ({shown}); it was "
                  "not used. Type it again, or press Enter.")
LABEL = 9  # width of the plan panel's labels in terminal columns: "Minutes  ", "保存到   "


def budget_prompt(used: int, more: int) -> str:
    """The question before more model calls are spent (README "Going on with a conversation"); only
    y or yes allows them."""
    return _("The run has used its {used} model calls. Allow {more} more? [y/N]: ").format(
        used=f"{used:,}", more=f"{more:,}")


def prompt_text(kind: str, typed: str | None = None, used: int | None = None,
                more: int | None = None) -> str:
    """The words of a prompt: SAVE (again after a near miss), an answer, feedback, a rating,
    or the budget question."""
    if kind == "budget":
        return budget_prompt(used or 0, more or 0)
    if kind == "answer":
        return lookup(ANSWER_PROMPT)
    if kind == "feedback":
        return lookup(FEEDBACK_PROMPT)
    if kind == "rating":
        return lookup(RATING_PROMPT) if typed is None else _(
            '"{typed}" is not a rating. {prompt}').format(typed=inert_line(typed),
                                                         prompt=lookup(RATING_PROMPT))
    if typed is not None and answers.is_full_width(typed):
        # ＳＡＶＥ is in capitals already: what it lacks is half-width letters (README "中文界面").
        return _('You typed "{typed}"; only SAVE in half-width capitals saves. {prompt}').format(
            typed=inert_line(typed), prompt=lookup(SAVE_PROMPT))
    if typed is not None:
        return _('You typed "{typed}"; only SAVE in capitals saves. {prompt}').format(
            typed=inert_line(typed), prompt=lookup(SAVE_PROMPT))
    return lookup(SAVE_PROMPT)


def fitted_prompt(text: str) -> str:
    """A prompt wrapped to the terminal's width (README "中文界面"); the answer goes after its last
    line."""
    import shutil

    from planner.ui.wrapping import wrap_plain

    width = shutil.get_terminal_size((80, 24)).columns
    wrapped = wrap_plain(text.rstrip(" "), width - 1)
    return wrapped + text[len(text.rstrip(" ")):]


class TerminalPerson:
    """The person at the terminal: renders the flow's events, reads answers from /dev/tty."""

    def __init__(self, home_display: str) -> None:
        self.home_display = home_display
        # The terminal is looked up on planner.ui at each use: tests stand in for it there.
        self.interactive = ui.has_terminal()
        self.waiting: Status | None = None  # the line shown while the model is asked
        self.history: list[str] = []  # this run's edited lines, oldest first (Up recalls them)
        # A terminal that cannot move the cursor (TERM=dumb) gets the plain line it can show.
        self.edits = os.environ.get("TERM", "").lower() not in ("dumb", "unknown")

    def show(self, event: object) -> None:
        """Render one event of the flow (conversation.events); TypeError for an unknown one."""
        if self.waiting is not None:
            # Called ends the wait; any other event would too, before it is drawn.
            with _whole():
                self.waiting.stop()
                self.waiting = None
        match event:
            case Calling():
                try:
                    with _whole():
                        self.waiting = start_waiting(event)
                except KeyboardInterrupt:
                    # Ctrl+C came while it started: stopped here, as the flow's Called would.
                    self.show(Called(event.call))
                    raise
            case Called():
                pass  # the wait is over, and stopped above
            case Proposed():
                show_plan(event.view, event.simulated)
            case Rejected():
                if event.repair:
                    heading = _("The model's proposal was rejected ({error}); asking it to "
                                "correct it ({repair} of {limit}).")
                elif event.max_repairs:
                    # The last one: its lines under a heading of their own, not the one before.
                    heading = _("The model's proposal was rejected again ({error}); no "
                                "correction is left ({limit} of {limit} asked for).")
                else:
                    heading = _("The model's proposal was rejected ({error}); max_repairs is 0: "
                                "no correction is asked for.")
                print_line(Text(heading.format(
                    error=inert_line(shown(event.error)), repair=event.repair,
                    limit=event.max_repairs), style="yellow"))
                for line in event.lines:  # each failing session, as the model is told
                    print_line(Text("  " + inert_line(shown(line)), style="yellow"))
            case Looked():
                argument = json.dumps(_plain(event.arguments), ensure_ascii=False)
                print_line(Text(_("Looked up for the model: {tool} {argument} → {summary}").format(
                    tool=event.tool, argument=inert_line(argument),
                    summary=inert_line(shown(event.summary))), style="dim"))
            case ModelText():
                show_model_text(event)
            case Result():
                show_result(event.result, self.home_display)
            case RefusedCall():
                print_line(Text(_("The model called {tool}; not run ({error}).").format(
                    tool=inert_line(event.tool), error=inert_line(shown(event.error))),
                    style="yellow"))
            case Notice():
                # Wrapped between words on a terminal (a file still gets one line per notice).
                print_line(Text(inert_line(shown(event.text))))
            case _:
                raise TypeError(f"no way to show {type(event).__name__}")

    def ask(self, prompt: Prompt) -> str | None:
        """One line from the controlling terminal; None when there is none.

        SAVE is read exactly as typed; every other prompt edits like a shell line (README "Going on
        with a conversation").
        """
        text = fitted_prompt(prompt_text(prompt.kind, prompt.typed, prompt.used, prompt.more))
        edited = prompt.kind != "save" and self.edits
        for _attempt in range(3):
            if edited:
                line = ui.read_edited_line(text, discard_typed_ahead=prompt.confirming,
                                           history=self.history)
            else:
                line = ui.read_tty_line(text, discard_typed_ahead=prompt.confirming)
            if line is None:
                return None
            if not edited and cut_by_terminal(line):
                problem: str | None = lookup(CUT_LINE)
            else:
                problem = None if prompt.kind == "save" else unsendable(line)
            if problem is None:
                if edited and line.strip():
                    self.history.append(line.removesuffix("\n"))
                return line
            print_line(Text(problem, style="yellow"))
        return ""  # three refused lines: finish, as an empty answer does


def unsendable(line: str) -> str | None:
    """Why an edited line cannot be used (it holds a control character or an escape
    sequence), or None. What reaches the model is exactly what the person saw."""
    words = line.removesuffix("\n")
    if words.isprintable() or all(char.isprintable() or inert_line(char) == char
                                  for char in words):
        return None  # (a lone wide space, U+3000, is not "printable" but is only a space)
    escaped = inert_line(words)
    return lookup(CONTROL_LINE).format(
        shown=escaped if len(escaped) <= 60 else escaped[:59] + "…")


def _plain(value: object) -> object:
    return value._asdict() if hasattr(value, "_asdict") else value


# --- While the model thinks, and what the run cost --------------------------------------------


def _utf(screen: Console) -> bool:
    """Whether the console's stream can show characters beyond ASCII (…, ·, a spinner)."""
    return screen.encoding.lower().startswith("utf")


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
        return Text(_("{waiting} {seconds} s").format(
            waiting=self.text, seconds=int(self.clock() - self.started)), style="dim")


@contextmanager
def _whole() -> Iterator[None]:
    """Ctrl+C waits until the block is done: the waiting line starts or stops whole."""
    # Cut in half by KeyboardInterrupt, Rich's live display would keep its thread drawing the
    # line (and holding the console's lock) after the run ended. The thread started in here
    # is born with Ctrl+C blocked, so the signal always reaches the main thread.
    import signal

    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def start_waiting(event: Calling) -> Status | None:
    """Show who is asked and for how long, on stderr, until stopped; None when not shown.

    Only for a real model (the demo's replies take no time) and only on a terminal.
    """
    if event.simulated or not _can_animate():
        return None
    # Imported here: only a live run in a terminal pays for Rich's live display and spinners.
    from rich.status import Status

    utf = _utf(err)
    line = _Waiting(_("Asking {model} at {host}").format(
        model=inert_line(event.model), host=inert_line(_host(event.base_url))),
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


def run_cost(calls: int, unknown: int, tokens: int, cost: float | None, currency: str,
             model: str | None = None) -> None:
    """The line after a live run: `2 calls · 1,130 tokens · $0.0002` (as `planner costs`).

    `cost` None: config has no prices for the run's `model`, so its cost is unknown (README "Going
    on with a conversation").
    """
    dot = " · " if _utf(err) else " - "
    parts = [n_("1 call", "{count} calls", calls).format(count=f"{calls:,}")]
    known = (_("{count} tokens known") if unknown else _("{count} tokens")).format(
        count=f"{tokens:,}")
    if unknown == calls:
        parts.append(_("cost unknown (no usage reported)"))
    elif cost is None:
        parts += [known, _("cost unknown (no prices for {model} in config)").format(
            model=inert_line(model) if model else _("this model"))]
    elif unknown:
        parts += [known, _("cost unknown ({count} call(s) without usage; the rest {cost})").format(
            count=f"{unknown:,}", cost=money(cost, currency))]
    else:
        parts += [known, money(cost, currency)]
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


# A row of the plan's panel: label, value (a study plan's session hangs its notes), style.
PanelRow = tuple[str, "str | Hanging", str]


# --- The plan to confirm ----------------------------------------------------------------------


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


def _escaped(value: str, encoding: str) -> str:
    return value.encode(encoding, "backslashreplace").decode(encoding)


def _hanging(value: str, width: int) -> list[str]:
    """A value wrapped to the panel's width as every line is (a path after a `/`, a mark such as
    `[新笔记]` whole); the lines after the first are indented by LABEL."""
    if cell_len(value) <= width:
        return [value]
    return [value[start:end] for start, end in spans(value, max(width, 10), 0)]


def show_plan(view: ConfirmRequest, simulated: bool) -> None:
    """The checked plan (or series) as the person must confirm it: values, notes with their
    schedules, each session of a series, target file."""
    from planner.plans.plan import ReviewSeries
    from planner.plans.study import StudyPlan

    plan = view.plan
    warn = "bold yellow"
    if isinstance(plan, StudyPlan):
        _show_rows(_study_rows(view), simulated, None,
                   (_("Proposed study plan of {count} sessions (simulated model)") if simulated
                    else _("Proposed study plan of {count} sessions")).format(
                       count=len(plan.days)))
        return
    series = isinstance(plan, ReviewSeries)
    rows = [(_("Title"), inert_line(plan.title), "")]
    for index, note in enumerate(view.notes):
        where = f"  ({inert_line(note.path)})" if getattr(note, "path", None) else ""
        # The program's own words, after the note's: [due today], [overdue 3 days], [new].
        due = ("" if view.due is None
               else f"  [{schedule_words(view.due.get(note.id), view.today)}]")
        rows.append((_("Notes") if index == 0 else "",
                     f"{inert_line(note.id)}  {inert_line(note.title)}{where}{due}", ""))
    dates = view.dates
    if len(dates) == 1 and not series:
        rows.append((_("Date"), describe_date(dates[0], view.today), ""))
    else:
        # A series: every session on a line of its own, numbered as `planner plans` shows them.
        for number, date in enumerate(dates, 1):
            rows.append((_("Sessions") if number == 1 else "",
                         _("{number}. {date}, {minutes} min").format(
                             number=number, date=describe_date(date, view.today),
                             minutes=plan.minutes), ""))
    past = sum(1 for date in dates if date < view.today)
    if past and len(dates) > 1:
        line = (_("warning: session 1 is in the past (today is {today})") if past == 1 else
                _("warning: sessions 1 to {past} are in the past (today is {today})"))
        rows.append(("", line.format(past=past, today=view.today), warn))
    elif view.date_in_past:
        rows.append(("", _("warning: this date is in the past (today is {today})").format(
            today=view.today), warn))
    if plan.start is not None:
        # README "Your week": a start the proposal left out is the program's choice, and says so.
        clock = clock_text(plan.start)
        start = (_("{start} (chosen by planner: the first free time)").format(start=clock)
                 if view.start_chosen else clock)
        rows.append((_("Start"), start, ""))
    rows += _busy_rows(view)
    rows += [(_("Minutes"), str(plan.minutes), ""),
             (_("Save to"), inert_line(str(view.target)), "")]
    rows += _warning_rows(view)
    what = None if len(dates) == 1 and not series else len(dates)
    _show_rows(rows, simulated, what)


def _warning_rows(view: ConfirmRequest) -> list[tuple[str, str, str]]:
    """The warnings about saved plans, then what changed since the previous proposal."""
    rows = [("", _("warning: {warning}").format(warning=inert_line(shown(warning))),
             "bold yellow") for warning in view.warnings]
    if view.changes is not None:
        rows += change_rows(view.changes)
    return rows


def _study_rows(view: ConfirmRequest) -> list[PanelRow]:
    """A study plan's rows (planner.ui.study_view), then busy warnings, target and warnings."""
    from planner.ui.study_view import study_rows

    rows: list[PanelRow] = [*study_rows(view, view.daily_minutes), *_busy_rows(view)]
    rows.append((_("Save to"), inert_line(str(view.target)), ""))
    return rows + _warning_rows(view)


def _busy_rows(view: ConfirmRequest) -> list[tuple[str, str, str]]:
    """Busy time that is unknown: a source that could not be read, or days past those read."""
    rows = [("", _("warning: the busy times in {source} are unknown; that time may not be "
                   "free").format(source=inert_line(source)), "bold yellow")
            for source in view.busy_unknown]
    if view.busy_read_until is not None:
        rows.append(("", _("warning: busy time after {date} was not read; that time may not "
                           "be free").format(date=view.busy_read_until.isoformat()),
                     "bold yellow"))
    return rows


def _show_rows(rows: Sequence[PanelRow], simulated: bool, what: int | None,
               title: str | None = None) -> None:
    """The panel on the terminal, or with the rest of the output when the terminal is gone."""
    screen = _screen()
    try:
        _plan_panel(screen, rows, simulated, what, title)
    except OSError:
        if screen is out:
            raise
        # The terminal went away while showing it: the plan goes with the rest of the output,
        # and the SAVE prompt, which needs that terminal too, finds none and cancels.
        _plan_panel(out, rows, simulated, what, title)
    finally:
        if screen is not out:
            try:
                screen.file.close()
            except OSError:
                pass


def schedule_words(due: _dt.date | AfterLastDay | None, today: _dt.date) -> str:
    """A note's schedule: `due today`, `overdue 3 days`, `due in 5 days (2026-12-06)`, `new`."""
    if due is None:
        return _("new")
    if isinstance(due, AfterLastDay):
        # README "A screen you can trust": FSRS put it past the calendar's end
        return _("due after 9999-12-31")
    days = (due - today).days
    if days == 0:
        return _("due today")
    if days < 0:
        line = n_("overdue 1 day", "overdue {days} days", -days)
        return line.format(days=f"{-days:,}")
    line = n_("due in 1 day ({date})", "due in {days} days ({date})", days)
    return line.format(days=f"{days:,}", date=due.isoformat())


def _plan_panel(screen: Console, rows: Sequence[PanelRow], simulated: bool,
                sessions: int | None = None, title: str | None = None) -> None:
    """The plan's rows in a panel; no value can wrap into a line that starts like a label."""
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
            value = (value._replace(items=tuple(_escaped(item, encoding) for item in value.items))
                     if isinstance(value, Hanging) else _escaped(value, encoding))
        parts = value.lines(width) if isinstance(value, Hanging) else _hanging(value, width)
        for number, part in enumerate(parts):
            # Padded in terminal columns: a Chinese label's characters take two each.
            shown_label = label if number == 0 else ""
            body.append(shown_label + " " * (LABEL - cell_len(shown_label)), style="bold")
            body.append(part, style=style)
            body.append("\n")
    body.rstrip()
    if title is not None:
        pass
    elif sessions is None:
        title = _("Proposed plan (simulated model)") if simulated else _("Proposed plan")
    else:
        title = (_("Proposed series of {count} sessions (simulated model)") if simulated
                 else _("Proposed series of {count} sessions")).format(count=sessions)
    screen.print(Panel(body, title=Text(title), title_align="left", expand=False,
                       width=columns))


# --- What happened, and what the model said --------------------------------------------------


def show_result(result: dict[str, Any], home_display: str) -> None:
    """The program's own result, printed before anything the model says."""
    status = result.get("status")
    if status == "saved":
        path = inert_line(_under(home_display, result["path"]))
        print_line(Text(_("Saved to {path}").format(path=path), style="bold green"))
    elif status == "cancelled":
        print_line(Text(_("Cancelled: nothing saved."), style="bold"))


def show_model_text(event: ModelText) -> None:
    """Text written by the model, clearly labelled as such, after the program's own truth."""
    if event.explanation:
        label = _("Simulated model explanation") if event.simulated else _("Model explanation")
    elif event.asking:
        # The middle of a conversation: a question is no failure; the answer prompt follows.
        print_line(Text(lookup(ASKS_LINE), style="bold"))
        label = _("Simulated model question") if event.simulated else _("Model question")
    else:
        # The truth first: whatever the text claims, no plan was proposed and nothing saved.
        print_line(Text(lookup(NO_PLAN_LINE), style="bold"))
        label = (_("Simulated model reply (no plan proposed)") if event.simulated
                 else _("Model reply (no plan proposed)"))
    # Text, not markup, and made inert: the words are shown, never obeyed by the terminal.
    text = inert_block(event.text)
    encoding = out.encoding
    if not encoding.startswith("utf"):
        # Escaped before Rich measures the lines, so the panel's border stays where it is.
        text = text.encode(encoding, "backslashreplace").decode(encoding)
    # Wrapped here, not by Rich: between words, between Chinese characters, never before
    # `，。）：`; each line's own indentation kept (4: the panel's border and padding).
    body = wrap_block(Text(text), max(out.width - 4, 20))
    out.print(Panel(body, title=Text(label), title_align="left", expand=False))
    if event.last_word is not None:
        # The program has the last word: what became of the plan, whatever the model wrote.
        print_line(Text(inert_line(shown(event.last_word)), style="bold"))


def _under(home_display: str, relative: str) -> str:
    return relative if home_display in ("", ".") else f"{home_display.rstrip('/')}/{relative}"
