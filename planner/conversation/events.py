"""What the flow tells the edge, and asks it: events, prompts, the person, the outcome.

The flow's whole contract with the terminal (planner.ui) and with tests' scripted people. It
imports nothing of planner's at run time, so either side can change without the other.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

if TYPE_CHECKING:
    from planner.base.days import AfterLastDay
    from planner.calendar.best_plan import PlanWorth
    from planner.memory.readiness import GoalOutlook
    from planner.model.costs import Tally
    from planner.notes.catalog import Note
    from planner.plans.changes import Change
    from planner.plans.study import Proposal


class ConfirmRequest(NamedTuple):
    """What the person is shown before deciding: the checked plan (or series), its notes, the
    target; `due`: each note's local due date (None: new; AFTER_LAST_DAY: past 9999-12-31),
    or None when nothing is known; `changes`: how it differs from the run's previous proposal
    (None: it is the first)."""

    plan: Proposal
    notes: tuple[Note, ...]
    target: Path
    today: _dt.date
    warnings: tuple[str, ...] = ()
    due: Mapping[str, _dt.date | AfterLastDay | None] | None = None
    changes: tuple[Change, ...] | None = None
    # README "Your week": the start was chosen by the program (the proposal gave none); the busy
    # calendars whose busy time is unknown (never shown as free).
    start_chosen: bool = False
    busy_unknown: tuple[str, ...] = ()
    # The last day busy time was read for, when a session lies after it; else None.
    busy_read_until: _dt.date | None = None
    # A study plan: for each session, whether the program chose its start.
    sessions_chosen: tuple[bool, ...] = ()
    # A run for a goal: the goal's readiness with and without this plan (memory.readiness).
    readiness: GoalOutlook | None = None
    daily_minutes: int | None = None  # a study plan's weeks are shown against this a day
    # The study hours in force: only a day that has some counts in a week's budget.
    study_hours: Mapping[str, tuple[tuple[int, int], ...]] | None = None
    # A run for a goal: planner's own plan in the same free time, and what would lift this one.
    worth: PlanWorth | None = None
    # A replan run (--replan): what the study plan changes of the goal's sessions still ahead.
    replacing: tuple[str, ...] = ()

    @property
    def dates(self) -> tuple[_dt.date, ...]:
        """The plan's date, or every session's date of a series, in order."""
        return self.plan.days

    @property
    def date_in_past(self) -> bool:
        return self.dates[0] < self.today


# --- Events: what happened, for the edge to render --------------------------------------------


class Proposed(NamedTuple):
    """A checked proposal the person is about to confirm or cancel."""

    call: int
    view: ConfirmRequest
    simulated: bool


class Rejected(NamedTuple):
    """A proposal or lookup broke a rule; `repair` is its number if sent back, else 0."""

    call: int
    tool: str
    error: str
    repair: int
    max_repairs: int
    # One line per failing session of a study plan or series (README "A study plan to a goal").
    lines: tuple[str, ...] = ()


class Looked(NamedTuple):
    """A read-only lookup the program ran for the model without asking."""

    call: int
    tool: str
    arguments: object
    summary: str


class ModelText(NamedTuple):
    """The model's words: a question or answer (`explanation` False) or an explanation.

    `asking`: the person is asked to answer next, so the run goes on (README "Going on with a
    conversation": a question in
    the middle of a conversation is not a failure).
    """

    call: int
    text: str
    simulated: bool
    explanation: bool
    asking: bool = False
    # The program's own line about what became of the plan, shown after the model's last words
    # whatever they claim (README "Live mode"); None while the conversation goes on.
    last_word: str | None = None


class Result(NamedTuple):
    """What the program really did with a proposal: saved (with its path) or cancelled."""

    result: dict[str, Any]
    path: str | None


class RefusedCall(NamedTuple):
    """A tool call the program did not run (a second save, a call instead of an explanation)."""

    call: int
    tool: str
    error: str


class Calling(NamedTuple):
    """A request is about to be sent; the edge may show who is asked while it waits."""

    call: int
    model: str
    base_url: str | None
    simulated: bool


class Called(NamedTuple):
    """The call `call` ended (a reply or a failure): the waiting is over."""

    call: int


class Notice(NamedTuple):
    """A line of the program's own about the run (no terminal, an over-long answer, ...)."""

    text: str


# --- Asking the person ------------------------------------------------------------------------


class Prompt(NamedTuple):
    """A question to the person: kind is save, answer, feedback, rating (`planner done`) or
    budget (more model calls, README "Going on with a conversation"); `typed` a near miss; `used`
    and `more`: the calls
    made so far and how many more a yes allows (budget only)."""

    kind: str
    typed: str | None = None
    used: int | None = None
    more: int | None = None

    @property
    def confirming(self) -> bool:
        """Whether the answer confirms an action: only a line typed after the prompt counts.

        SAVE writes a plan; a rating records a review; a yes to the budget question allows
        spending (README "A screen you can trust": nothing typed ahead counts).
        """
        return self.kind in ("save", "rating", "budget")


class Person(Protocol):
    """The edge: renders events and reads the person's lines from the terminal."""

    interactive: bool  # a terminal is there to ask on

    def show(self, event: object) -> None:
        """Render one event."""
        ...

    def ask(self, prompt: Prompt) -> str | None:
        """One raw line ending in \\n; a line without it at end of input; None: no terminal."""
        ...


class Outcome(NamedTuple):
    """How a run ended: for the edge to render and exit with."""

    status: str
    exit_code: int
    run_id: str | None = None
    folder: Path | None = None
    simulated: bool = False
    plan: Proposal | None = None
    approved: bool | None = None
    tool_result: dict[str, Any] | None = None
    error: str | None = None
    question: str | None = None  # the model's last text without a tool call
    explanation: str | None = None
    tally: Tally | None = None  # the run's calls and their usage, counted as `planner costs` does
    # The run ended on a failed model call with nothing saved: --continue goes on (README
    # "中文界面").
    call_failed: bool = False
