"""What a plan buys, for the model (README "A study plan to a goal"): the read-only lookup
`suggest_study_plan` (planner's own plan for the run's goal, a page at a time) and the
`readiness` every `save_study_plan` result carries back.

Planner's plan is computed once per run, when first asked for; it is the same plan `planner
plan --goal` shows.
"""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, Any, NamedTuple

from planner.base import storage
from planner.conversation.lookups import GoalNotesArguments, check_page
from planner.conversation.tools import MAX_RESULT_BYTES, Tool
from planner.plans.study import Proposal, StudyPlan

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from planner.calendar.best_plan import BestPlan, PlanWorth
    from planner.calendar.timetable import Timetable
    from planner.memory.readiness import GoalOutlook, GoalTarget, OwnPlanBound, Planned
    from planner.memory.review_memory import ReviewMemory

SUGGEST = "suggest_study_plan"
MAX_SUGGEST_LIMIT = 30


class Readiness(NamedTuple):
    """A save_study_plan result's `readiness`: the proposal's ready notes of `of`, and planner's
    own plan's ready notes and minutes."""

    ready: int
    of: int
    best: int
    best_minutes: int

    def to_json(self) -> dict[str, int]:
        """As the result sends it to the model."""
        return self._asdict()

SUGGEST_SCHEMA = {
    "type": "function",
    "function": {
        "name": SUGGEST,
        "description": (
            "Planner's own plan for this run's goal: sessions in the person's free time that "
            "make the most notes ready on the goal's day, then take the fewest minutes. "
            "Read-only; propose it (or better) with save_study_plan. Returns {\"goal\", "
            "\"ready\", \"of\", \"minutes\", \"total\", \"sessions\": [{\"date\", \"start\", "
            "\"minutes\", \"note_ids\"}]}, a page of the sessions."),
        "parameters": {
            "type": "object",
            "properties": {
                "offset": {"type": "integer", "minimum": 0,
                           "description": "How many sessions to skip."},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_SUGGEST_LIMIT,
                          "description": "How many sessions at most."},
            },
            "required": ["offset", "limit"],
            "additionalProperties": False,
        },
    },
}


def suggestion_for(timetable: Timetable | None, memory: ReviewMemory | None
                   ) -> Suggestion | None:
    """The run's suggestion: only a live run for a goal, with review memory, has one."""
    if timetable is None or timetable.goal is None or memory is None:
        return None
    # One per run: the first request's goal line and the lookup share the plan.
    found = timetable.__dict__.get("suggestion")
    if not isinstance(found, Suggestion):
        found = timetable.__dict__["suggestion"] = Suggestion(timetable.goal, memory, timetable)
    return found


class Suggestion:
    """Planner's plan for one run's goal, computed when first asked for."""

    def __init__(self, goal: GoalTarget, memory: ReviewMemory, timetable: Timetable,
                 saved: Sequence[Planned] | None = None,
                 base: Mapping[str, float] | None = None) -> None:
        self.goal, self.memory, self.timetable = goal, memory, timetable
        # The saved sessions ahead it adds to, and the recall with them, when the caller has
        # them already.
        self.saved, self.base = saved, base
        self._best: BestPlan | None = None

    def best(self) -> BestPlan:
        """Planner's plan on top of the saved sessions still ahead (less those replaced)."""
        if self._best is None:
            from planner.calendar.best_plan import best_plan
            from planner.memory import readiness
            from planner.memory.marking import quiet_marks

            now = _dt.datetime.now().replace(second=0, microsecond=0)
            states, parameters = readiness.memory_states(self.memory)
            home = self.timetable.home
            saved = self.saved if self.saved is not None else readiness.sessions_ahead(
                readiness.read_saved_sessions(home, now.date(), quiet_marks(home),
                                              self.timetable.replaced),
                now.date(), self.goal.date, self.timetable.review_time)
            self._best = best_plan(self.timetable, self.goal, states, parameters, saved,
                                   self.timetable.minutes_per_note, now, self.goal.name,
                                   base=self.base)
        return self._best

    def bound(self) -> OwnPlanBound | None:
        """What `planner goals --json` says of planner's plan for a goal: `best`, its notes
        ready and its minutes; None for a goal whose eve has passed or that has no notes."""
        if not self.goal.note_ids or self.goal.deadline < _dt.date.today():
            return None
        best = self.best()
        from planner.memory.readiness import OwnPlanBound

        return OwnPlanBound(best.ready, best.minutes)

    def page(self, arguments: GoalNotesArguments) -> dict[str, Any]:
        """A page of planner's plan, cut to fit 4 KiB (the last sessions go first)."""
        best = self.best()
        every = () if best.plan is None else best.plan.sessions
        # Placed sessions: each has its start.
        sessions = [session.as_dict()
                    for session in every[arguments.offset:arguments.offset + arguments.limit]]
        result = {"goal": self.goal.name, "ready": best.ready, "of": best.of,
                  "minutes": best.minutes, "total": len(every), "sessions": sessions}
        while len(storage.to_json(result)) > MAX_RESULT_BYTES and sessions:
            sessions.pop()
        return result

    def readiness(self, plan: Proposal, outlook: GoalOutlook | None) -> Readiness | None:
        """A save_study_plan result's `readiness`: the proposal's ready notes and planner's best;
        None for another tool, or when it could not be predicted."""
        if outlook is None or not isinstance(plan, StudyPlan):
            return None
        try:
            best = self.best()
        except Exception:  # a prediction helps the model; it must never stop the run
            return None
        return Readiness(outlook.ready_with, outlook.total, best.ready, best.minutes)

    def screen(self, plan: Proposal, outlook: GoalOutlook | None) -> PlanWorth | None:
        """What the SAVE screen says a study plan is worth beside planner's plan; None for
        another tool, or when it could not be predicted."""
        if outlook is None or not isinstance(plan, StudyPlan):
            return None
        from planner.calendar.best_plan import plan_worth
        from planner.memory import readiness
        from planner.memory.marking import quiet_marks

        try:
            best = self.best()
            now = _dt.datetime.now().replace(second=0, microsecond=0)
            home = self.timetable.home
            states, parameters = readiness.memory_states(self.memory)
            saved = readiness.sessions_ahead(
                readiness.read_saved_sessions(home, now.date(), quiet_marks(home),
                                              self.timetable.replaced),
                now.date(), self.goal.date, self.timetable.review_time)
            return plan_worth(self.timetable, self.goal, states, parameters, saved,
                              self.timetable.minutes_per_note, now, plan, outlook.ready_with,
                              plan.minutes, best)
        except Exception:  # a prediction helps the decision; it must never stop it
            return None

    def goal_words(self) -> str:
        """The first request's words on planner's plan (English: what the model reads)."""
        best = self.best()
        return (f" Planner's own plan in the free time makes {best.ready:,} ready in "
                f"{best.minutes:,} minutes; suggest_study_plan gives it.")

    def tool(self) -> Tool:
        """suggest_study_plan: run at once, never confirmed."""
        return Tool(SUGGEST, SUGGEST_SCHEMA,
                    lambda arguments: check_page(arguments, MAX_SUGGEST_LIMIT), False, self.page)
