"""`planner plan --goal NAME`: planner's own plan for a goal, shown on the study plan's SAVE
screen and saved after one typed SAVE as a run's study plan is, with no model and no key
(README "A study plan to a goal").

The run folder records what happened as a run's does: the request (the command), the proposal,
the decision and the result; no model call, so its cost is 0.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import TYPE_CHECKING

from planner.base.config import study_windows
from planner.base.i18n import t
from planner.conversation.events import (
    ConfirmRequest,
    Notice,
    Outcome,
    Person,
    Proposed,
    Result,
)
from planner.conversation.replacing import replaced_then
from planner.conversation.turn_values import ask_to_save, os_error_reason, plan_record
from planner.plans import files as plans
from planner.plans.plan import InvalidArguments
from planner.plans.store import save_plan
from planner.records import status
from planner.records.run_record import RunRecord, now_iso
from planner.records.summary import Step, ToolResult

if TYPE_CHECKING:
    from planner.base.config import Config
    from planner.calendar.timetable import Timetable
    from planner.memory.readiness import GoalOutlook
    from planner.notes.catalog import Catalog
    from planner.plans.study import StudyPlan

MODE = "plan"  # summary.json's mode for a run with no model


def confirm_own_plan(plan: StudyPlan, *, request: str, goal_name: str, person: Person,
                     home: Path, config: Config, catalog: Catalog, timetable: Timetable,
                     readiness: GoalOutlook | None, today: _dt.date,
                     warnings: tuple[str, ...] = (), replacing: tuple[str, ...] = ()
                     ) -> Outcome:
    """Show planner's plan, save it on SAVE; the outcome says what happened. `replacing`: the
    saved sessions (`RUN#n`) a replan replaces, recorded as dropped with the plan."""
    try:
        record = RunRecord.start(home, mode=MODE, simulated=False, request=request, model=None,
                                 base_url=None, question=None, explanation=None, continues=None,
                                 until=None if timetable.until is None
                                 else timetable.until.isoformat(), goal=goal_name)
    except OSError as error:
        return Outcome(status.STOPPED, status.EXIT_FAILED, error=t(
            "could not write the run's records in {folder} ({reason}); check free space and "
            "permissions", folder=home / "runs", reason=os_error_reason(error)))
    relative = f"{plans.PLANS_DIR['live']}/{record.run_id}.json"
    target = home / relative
    recorded = plan_record(plan)
    notes = tuple(note for note in (catalog.get(note_id) for note_id in plan.note_ids)
                  if note is not None)
    record.add_step(Step(1, "proposal", plan=recorded))
    try:
        record.save(stage="confirming", plan=recorded, approved=None)
        view = ConfirmRequest(plan, notes, target, today, warnings,
                              sessions_chosen=tuple(False for _ in plan.sessions),
                              busy_unknown=timetable.busy().unknown,
                              readiness=readiness, daily_minutes=config.daily_minutes,
                              study_hours=study_windows(config))
        person.show(Proposed(1, view, False))
        approved, near_misses = ask_to_save(person)
        if not approved:
            result = ToolResult(status.CANCELLED)
            record.add_step(Step(1, "decision", approved=False, result=result,
                                 near_misses=tuple(near_misses)))
            record.save(status=status.COMPLETE, stage="done", approved=False, tool_result=result)
            person.show(Notice(t("Nothing was saved.")))
            return _outcome(record, status.COMPLETE, status.EXIT_OK, plan)
        record.save(stage="executing", approved=True, target=relative)
        content = plans.plan_file_content(
            plan, simulated=False, run_id=record.run_id, created_at=now_iso(), notes=notes,
            goal=goal_name, readiness=None if readiness is None else plans.SavedReadiness(
                readiness.ready_with, readiness.total, readiness.ready_with))
        try:
            save_plan(target, content, replaced_then(timetable, plan, home, replacing,
                                                     record.run_id))
        except InvalidArguments as error:
            line = t("The plan was not saved: {reason}", reason=str(error))
            result = ToolResult("failed", error=str(error))
            record.save(status=status.STOPPED, stage="done", tool_result=result, error=line)
            return _outcome(record, status.STOPPED, status.EXIT_FAILED, plan, line)
        except OSError as error:
            line = t("could not save the plan to {path} ({reason}); nothing was saved; check "
                     "free space and permissions", path=relative, reason=os_error_reason(error))
            record.save(status=status.STOPPED, stage="done", error=line,
                        tool_result=ToolResult("failed", error=os_error_reason(error)))
            return _outcome(record, status.STOPPED, status.EXIT_FAILED, plan, line)
        result = ToolResult(status.SAVED, relative)
        record.add_step(Step(1, "decision", approved=True, result=result,
                             near_misses=tuple(near_misses)))
        record.save(status=status.COMPLETE, stage="done", tool_result=result)
    except OSError as error:
        line = t("could not write the run's records in {folder} ({reason}); check free space "
                 "and permissions", folder=record.folder, reason=os_error_reason(error))
        if target.exists():
            line = t("the plan was saved to {path}, but its record could not be updated "
                     "({reason}); check {path}", path=target, reason=os_error_reason(error))
        return _outcome(record, status.STOPPED, status.EXIT_FAILED, plan, line)
    person.show(Result(result.to_json(), relative))
    return _outcome(record, status.COMPLETE, status.EXIT_OK, plan)


def _outcome(record: RunRecord, run_status: str, exit_code: int, plan: StudyPlan,
             error: str | None = None) -> Outcome:
    summary = record.summary
    result = summary.tool_result
    return Outcome(status=run_status, exit_code=exit_code, run_id=record.run_id,
                   folder=record.folder, plan=plan, approved=summary.approved,
                   tool_result=None if result is None else result.to_json(), error=error)
