"""One run's state and bookkeeping: its budget of calls, each model call on record, its end."""

from __future__ import annotations

import datetime as _dt
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.base import answers
from planner.base.config import Config
from planner.base.i18n import t
from planner.conversation.events import Called, Calling, Notice, Outcome, Person, Prompt
from planner.conversation.tools import Registry
from planner.conversation.turn_values import Limits, os_error_reason
from planner.model import costs
from planner.model.client import ModelCallError, ModelClient, cut_off_line, reply_usage
from planner.model.turns import CutOff, ReplyError, Turn
from planner.notes.catalog import Catalog
from planner.plans.study import Proposal
from planner.records import status
from planner.records.run_record import RunRecord, call_file_names, now_iso
from planner.records.summary import CallEntry
from planner.records.summary import Step as RecordedStep

if TYPE_CHECKING:
    from planner.calendar.timetable import Timetable
    from planner.memory.readiness import GoalTarget
    from planner.memory.review_memory import ReviewMemory

# However often the person allows more calls (README "Going on with a conversation"), one run makes
# at most this many.
MAX_RUN_CALLS = 60
# The consequence most failed writes of the records name: a program line of its own.
NOTHING_SAVED = t("nothing was saved")


class StopRun(Exception):
    """Ends the run; the message is the one line the person sees."""

    def __init__(self, message: str, run_status: str = status.STOPPED) -> None:
        super().__init__(message)
        self.status = run_status


class RunState:
    """The state of one run between turns."""

    def __init__(self, record: RunRecord, client: ModelClient, person: Person, config: Config,
                 notes: Catalog, home: Path, mode: str, today: _dt.date, limits: Limits,
                 registry: Registry, memory: ReviewMemory | None = None,
                 timetable: Timetable | None = None) -> None:
        self.record: RunRecord = record
        self.client: ModelClient = client
        self.person: Person = person
        self.config: Config = config
        self.notes: Catalog = notes
        self.home: Path = home
        self.mode: str = mode
        self.today: _dt.date = today
        self.limits: Limits = limits
        self.registry: Registry = registry
        self.memory: ReviewMemory | None = memory
        self.timetable: Timetable | None = timetable
        # A run for a goal (--goal): its notes and day; the summary records its name.
        self.goal: GoalTarget | None = None if timetable is None else timetable.goal
        if self.goal is not None:
            record.change(goal=self.goal.name)
        self.calls = 0
        self.call_failed = False  # whether the run ended on a failed model call
        self.allowed = limits.max_calls  # the calls this run may make; the person may add more
        self.repairs = 0
        self.saved: str | None = None  # the plan's relative path once it is on disk
        self.ending = status.COMPLETE  # or no_tool, when the model proposed nothing
        self.writing: Path | None = None  # the plan's path from just before its write
        # The last proposal that reached the person: a plan, or a series (README "Review memory").
        self.proposed: Proposal | None = None

    # --- the budget of calls ----------------------------------------------------------------

    def _next_call(self) -> int:
        # Each turn checks for a call left before it asks for one; this is the hard cap itself.
        if self.calls >= self.allowed:
            raise StopRun(self._budget_line(), status.BUDGET_EXHAUSTED)
        self.calls += 1
        return self.calls

    def _calls_left(self) -> bool:
        return self.calls < self.allowed

    def _may_ask_for_more(self) -> bool:
        """Whether the run can still go on: a call is left, or the person may allow more."""
        return self._calls_left() or (self.person.interactive and self.calls < MAX_RUN_CALLS)

    def _more_calls(self, why: str) -> bool:
        """Whether another call may be made: one is left, or the person allows more (README "Going
        on with a conversation").

        Asked only with a terminal; each yes adds max_calls more, up to MAX_RUN_CALLS in all.
        The answer is a step of the summary either way.
        """
        if self._calls_left():
            return True
        if not self.person.interactive or self.calls >= MAX_RUN_CALLS:
            return False
        more = min(self.limits.max_calls, MAX_RUN_CALLS - self.calls)
        self.person.show(Notice(why))
        self._save_or_stop(NOTHING_SAVED, stage="answering")
        line = self.person.ask(Prompt("budget", used=self.calls, more=more))
        allowed = answers.is_yes(line)  # y, yes or 是 (README "中文界面")
        if allowed:
            self.allowed = self.calls + more
        self._step("budget", self.calls, approved=allowed, max_calls=self.allowed)
        self._save_or_stop(NOTHING_SAVED)
        return allowed

    def _budget_line(self) -> str:
        # Never after a save: a saved plan only waits for an explanation, which needs no budget.
        if self.calls >= MAX_RUN_CALLS:
            limit = t("planner's limit of {count} model calls in one run", count=MAX_RUN_CALLS)
        elif self.allowed > self.limits.max_calls:
            limit = t("the {count} model calls allowed for it (max_calls {max_calls}, raised at "
                      "the prompt)", count=self.allowed, max_calls=self.limits.max_calls)
        else:
            limit = t("its limit of {count} model calls (max_calls)", count=self.allowed)
        return t("the run reached {limit} before the model finished; nothing more was sent; "
                 "nothing was saved; to go on from here, run planner --continue -r TEXT",
                 limit=limit)

    # --- calls and records ------------------------------------------------------------------

    def _call(self, number: int, body: dict[str, Any], explain_only: bool) -> object:
        """Record the request, send it once, record the response or the error."""
        request_name, response_name = call_file_names(number)
        entry = CallEntry(request_name, response_name, now_iso())
        stage = "explaining" if explain_only else "requesting"
        try:
            # Saved before sending, so the records show what was asked even if the run dies.
            self.record.write_file(request_name, body)
            self.record.add_call(entry)
            self.record.save(stage=stage)
        except OSError as error:
            raise StopRun(self._record_failure(error, t("nothing more was sent"))) from None
        # Written with the next save: the call starts now, after its request is on disk.
        entry = entry._replace(started_at=now_iso())
        self.record.update_call(entry)
        self.person.show(Calling(number, self.config.model, self.config.base_url,
                                 self.client.simulated))
        started = time.perf_counter()
        try:
            reply = self.client.complete(body)
        except KeyboardInterrupt:
            # The call's own entry says why it has no response, beside the run's error.
            self.record.update_call(entry._replace(
                duration_ms=self._duration(started),
                error=t("interrupted (Ctrl+C) while waiting for the reply")))
            raise
        except ModelCallError as error:
            self.record.update_call(entry._replace(duration_ms=self._duration(started),
                                                   error=str(error)))
            self._write_quietly(response_name, error.record)
            # The conversation so far is kept in the records: the edge names --continue after
            # the line (README "中文界面").
            self.call_failed = True
            raise StopRun(self._after_save(str(error))) from None
        finally:
            # Also on Ctrl+C: the edge stops its "waiting" line before anything else is shown.
            self.person.show(Called(number))
        # In the Chat Completions shape for either wire format, so costs price both alike.
        usage = reply_usage(reply)
        self.record.update_call(entry._replace(
            duration_ms=self._duration(started),
            usage=None if self.client.simulated else usage))
        try:
            self.record.write_file(response_name, reply)
            self.record.save()
        except OSError as error:
            raise StopRun(self._record_failure(error, t("the reply was not used"))) from None
        return reply

    def _read(self, reply: object) -> Turn:
        try:
            return self.client.read_turn(reply)
        except CutOff as error:
            if not self.saved:  # after a save, only the explanation is lost: nothing to go on
                raise StopRun(cut_off_line(self.config, error.how)) from None
            raise StopRun(self._after_save(str(error))) from None
        except ReplyError as error:
            raise StopRun(self._after_save(str(error))) from None

    def _after_save(self, problem: str) -> str:
        """A failure's line; once a plan is saved, that comes first, with what not to do."""
        if not self.saved:
            return problem
        return t("The plan is saved in {path}; only the model's explanation failed "
                 "({problem}). Do not run again, or you will have two plans.", path=self.saved,
                 problem=problem)

    def interrupted_line(self) -> str:
        if self.saved is None and self.writing is not None and self.writing.exists():
            self.saved = str(self.writing.relative_to(self.home))
        if self.saved:
            return t("interrupted (Ctrl+C); the plan is saved in {path}; do not run again, or "
                     "you will have two plans", path=self.saved)
        return t("interrupted (Ctrl+C); nothing was saved")

    def _step(self, kind: str, number: int, **fields: object) -> None:
        """Add a step to the summary; it is written with the next save."""
        self.record.add_step(RecordedStep(number, kind, **fields))  # type: ignore[arg-type]

    def _save_or_stop(self, consequence: str, **changes: object) -> None:
        try:
            self.record.save(**changes)
        except OSError as error:
            raise StopRun(self._record_failure(error, consequence)) from None

    def _finish(self) -> Outcome:
        final = self.ending
        try:
            self.record.save(status=final, stage="done")
        except OSError as error:
            return self.stop(self._record_failure(error, t("the run itself finished")),
                             status.EXIT_FAILED)
        return self._outcome(final, status.EXIT_OK)

    def stop(self, message: str, exit_code: int, run_status: str = status.STOPPED) -> Outcome:
        """End as stopped (or budget_exhausted): the summary and the edge say the same line."""
        try:
            self.record.save(status=run_status, error=message)
        except OSError as error:
            message = t("{message} (the summary could not be updated either: {reason})",
                        message=message, reason=os_error_reason(error))
        except KeyboardInterrupt:
            pass
        return self._outcome(run_status, exit_code, message)

    def _outcome(self, run_status: str, exit_code: int, error: str | None = None) -> Outcome:
        summary = self.record.summary
        result = summary.tool_result
        return Outcome(
            status=run_status, exit_code=exit_code, run_id=self.record.run_id,
            folder=self.record.folder, simulated=self.client.simulated,
            plan=self.proposed if summary.plan is not None else None,
            approved=summary.approved, tool_result=None if result is None else result.to_json(),
            error=error, question=summary.question, explanation=summary.explanation,
            # The run's own count of its calls: the cost line needs no re-read of summary.json.
            tally=costs.tally_usages(summary.usages),
            call_failed=self.call_failed and not self.saved,
        )

    def _record_failure(self, error: OSError, consequence: str) -> str:
        line = t("could not write the run's records in {folder} ({reason}); {consequence}; "
                 "check free space and permissions", folder=self.record.folder,
                 reason=os_error_reason(error), consequence=consequence)
        return self._after_save(line)

    def _write_quietly(self, name: str, data: object) -> None:
        """Keep a failed call's error on disk if possible; the stop message matters more."""
        try:
            self.record.write_file(name, data)
        except OSError:
            pass

    def _duration(self, started: float) -> int | None:
        return None if self.client.simulated else round((time.perf_counter() - started) * 1000)
