"""One run as a bounded loop of turns: propose, check, confirm, write, report, explain.

The flow decides every next step itself; it never prints. What happens is sent to the edge as
events (`person.show`), and the person's words come back through `person.ask`.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.base import storage
from planner.base.config import Config, study_windows
from planner.base.i18n import Lines, t
from planner.conversation.events import (
    ConfirmRequest,
    Looked,
    ModelText,
    Notice,
    Outcome,
    Person,
    Prompt,
    Proposed,
    RefusedCall,
    Rejected,
    Result,
)
from planner.conversation.protocol import (
    as_catalog,
    build_request,
    continued_messages,
    first_messages,
    registry_for,
)
from planner.conversation.replacing import left_out, replacing_lines, save_check
from planner.conversation.run_state import NOTHING_SAVED, RunState, StopRun
from planner.conversation.suggestion import Readiness, Suggestion, suggestion_for
from planner.conversation.tools import MAX_LOOKUPS_PER_REPLY, MAX_TURN_RESULT_BYTES, Registry, Tool
from planner.conversation.turn_values import (
    FINISH,
    Continue,
    ExplainOnly,
    Finish,
    Limits,
    NextStep,
    argument_problem,
    ask_to_save,
    bounded_result,
    jsonable,
    os_error_reason,
    plan_record,
    short_summary,
    shown_name,
)
from planner.model.client import ModelClient
from planner.model.turns import ToolCall, Turn, calls_instead_of_text, tool_message
from planner.notes.catalog import Catalog, Note
from planner.plans import files as plans
from planner.plans import store
from planner.plans.changes import plan_changes
from planner.plans.plan import InvalidArguments
from planner.plans.store import save_plan
from planner.plans.study import Proposal, StudyPlan
from planner.records import status
from planner.records.run_record import RECORDS_DIR, RunRecord, now_iso
from planner.records.summary import ToolResult

if TYPE_CHECKING:
    from planner.base.days import AfterLastDay
    from planner.calendar.timetable import Timetable
    from planner.memory.readiness import GoalOutlook
    from planner.memory.review_memory import ReviewMemory

PLANS_DIR = plans.PLANS_DIR
MAX_ANSWER = 2000  # characters of an answer or feedback sent to the model
_ASK_AGAIN = 3  # an over-long answer is asked again this many times, then the run finishes


def run_flow(
    request: str,
    *,
    client: ModelClient,
    person: Person,
    home: Path,
    config: Config,
    notes: Sequence[Note] | Catalog,
    mode: str,
    today: _dt.date | None = None,
    limits: Limits | None = None,
    registry: Registry | None = None,
    memory: ReviewMemory | None = None,
    continues: tuple[str, list[dict[str, Any]]] | None = None,
    timetable: Timetable | None = None,
) -> Outcome:
    """Run the whole loop once and return its outcome; only the program ever writes.

    `memory`: the review log and due dates (README "Review memory"); with it the model may look up
    the notes
    due (`due_notes`, when any are known) and the SAVE screen shows each note's schedule.
    `continues`: (the earlier run's ID, its conversation) for `planner --continue` (README "Going
    on with a conversation"):
    the request is then the person's next message after that conversation.
    `timetable`: study hours, busy time and the deadline (README "Your week"): every session is
    placed and
    checked against it, and the model may ask it for free slots.
    """
    today = today or _dt.date.today()
    limits = limits or Limits(config.max_calls, config.max_repairs)
    try:
        record = RunRecord.start(
            home,
            mode=mode,
            simulated=client.simulated,
            request=request,
            model=None if client.simulated else config.model,
            base_url=None if client.simulated else config.base_url,
            question=None,
            explanation=None,
            continues=None if continues is None else continues[0],
            until=None if timetable is None or timetable.until is None
            else timetable.until.isoformat(),
        )
    except OSError as error:
        message = t("could not write the run's records in {folder} ({reason}); check free "
                    "space and permissions", folder=home / RECORDS_DIR,
                    reason=os_error_reason(error))
        return Outcome(status.STOPPED, status.EXIT_FAILED, simulated=client.simulated,
                       error=message)
    catalog = as_catalog(notes)
    # free_slots and the lines about study hours are for a live model; the demo's scripted
    # replies are placed and checked all the same.
    offered = timetable if mode == "live" else None
    suggestion = suggestion_for(offered, memory)
    run = _Run(record, client, person, config, catalog, home, mode, today, limits,
               registry or registry_for(catalog, today, memory, offered, suggestion), memory,
               timetable)
    run.suggestion = suggestion
    if continues is None:
        messages = first_messages(request, catalog, today, memory, offered)
    else:
        messages = continued_messages(request, continues[1], catalog, today, memory, offered)
    try:
        return run.loop(messages)
    except StopRun as stop:
        return run.stop(str(stop), status.EXIT_FAILED, stop.status)
    except KeyboardInterrupt:
        return run.stop(run.interrupted_line(), status.EXIT_INTERRUPTED)


class _Run(RunState):
    """The turns of one run: each reply decides the next step, within the run's limits."""

    # The program's own line about what became of the plan, said again after the model's last
    # words, whatever they claim (README "Live mode"); None: no plan reached the person.
    last_word: str | None = None
    # A run for a goal: planner's own plan (suggest_study_plan) and, for the proposal in hand,
    # the readiness its result carries back.
    suggestion: Suggestion | None = None
    worth: Readiness | None = None

    # --- the loop ---------------------------------------------------------------------------

    def loop(self, messages: list[dict[str, Any]]) -> Outcome:
        """Each turn sends one request; the reply decides what comes next, within the limits."""
        step: NextStep = Continue(())
        while True:
            explain_only = isinstance(step, ExplainOnly)
            number = self._next_call()
            body = build_request(self.config, messages, self.registry,
                                 "none" if explain_only else "auto")
            turn = self._read(self._call(number, body, explain_only))
            if explain_only:
                step = self._explanation_turn(number, turn)
            elif not turn.calls:
                step = self._text_turn(number, turn)
            else:
                step = self._tool_turn(number, turn)
            if isinstance(step, Finish):
                return self._finish()
            messages = messages + list(step.messages)

    def _explanation_turn(self, number: int, turn: Turn) -> NextStep:
        """After a save or a cancel the model may only explain; any call is refused."""
        if turn.calls:
            if not self._calls_left():
                # Recorded as refused too, so `show` tells this last reply like any other.
                for call in turn.calls:
                    self._step("refused", number, call_id=call.id, tool=shown_name(call.name),
                               error=self._refusal(call))
                raise StopRun(self._after_save(calls_instead_of_text(turn)))
            return ExplainOnly(tuple(self._refuse_all(number, turn)))
        if turn.text is None:
            raise StopRun(self._after_save(t("the model sent an empty explanation")))
        self._step("explanation", number, text=turn.text)
        self.record.change(explanation=turn.text)
        self.person.show(ModelText(number, turn.text, self.client.simulated, True,
                                   last_word=self._last_word()))
        return FINISH

    def _last_word(self) -> str:
        """What became of the plan, in the program's words: the run's last line."""
        if self.last_word is not None:
            return self.last_word
        return (t("Nothing was saved.") if self.proposed is not None
                else t("No plan was proposed; nothing was saved."))

    def _text_turn(self, number: int, turn: Turn) -> NextStep:
        """Text without a tool call: show it after the truth; let the person answer."""
        if turn.text is None:
            raise StopRun(t("the model sent an empty reply; nothing was saved"))
        self.record.change(question=turn.text)
        self._step("question", number, text=turn.text)
        # A question the person will be asked to answer is the middle of a conversation.
        asking = self.person.interactive and self._may_ask_for_more()
        # Without a terminal these words end the run: the program's line comes after them.
        self.person.show(ModelText(number, turn.text, self.client.simulated, False, asking,
                                   None if self.person.interactive else self._last_word()))
        if not self.person.interactive:
            self.ending = status.NO_TOOL
            return FINISH
        if not asking:
            raise StopRun(self._budget_line(), status.BUDGET_EXHAUSTED)
        # The answer first, then (if no call is left) the budget question: it is never lost.
        answer = self._ask_words(Prompt("answer"))
        if not answer:
            self.ending = status.NO_TOOL
            # The run ends here after all: the truth, as when the model only answered.
            self.person.show(Notice(self._last_word()))
            return FINISH
        self._step("answer", number, text=answer)
        if not self._more_calls(t("Sending your answer needs another model call.")):
            raise StopRun(self._budget_line(), status.BUDGET_EXHAUSTED)
        return Continue((turn.message, {"role": "user", "content": answer}))

    def _tool_turn(self, number: int, turn: Turn) -> NextStep:
        """Tool calls: lookups run at once; one valid save goes to the person; else repair."""
        self.worth = None  # known once a proposal in this reply is checked
        # A tool that acts says so itself (needs_confirmation): it goes to the person, alone.
        confirmed = [call for call in turn.calls if self._acts(call)]
        if confirmed and len(turn.calls) > 1:
            names = sorted({shown_name(call.name) for call in confirmed})
            if len(names) > 1:
                problem = t("propose one thing per reply: {names}, not both",
                            names=" or ".join(names))
            elif len(confirmed) == 1:
                problem = t("{name} must be the only call in its reply", name=names[0])
            else:
                problem = t("only one {name} call is allowed", name=names[0])
            return self._reject_all(number, turn, problem)
        unknown = next((call for call in turn.calls if self.registry.get(call.name) is None),
                       None)
        if unknown is not None:
            return self._reject_all(number, turn, t(
                "{name} is not a tool offered here (only {names})", name=shown_name(unknown.name),
                names=", ".join(self.registry.names)))
        if confirmed:
            return self._proposal(number, turn, confirmed[0])
        return self._lookups(number, turn)

    def _acts(self, call: ToolCall) -> bool:
        """Whether the call is to a tool that acts, and so needs the person's confirmation."""
        tool = self.registry.get(call.name)
        return tool is not None and tool.needs_confirmation

    # --- proposals --------------------------------------------------------------------------

    def _proposal(self, number: int, turn: Turn, call: ToolCall) -> NextStep:
        """A confirmed tool's call: checked, shown, decided by the person, then carried out.

        The same steps for every tool that needs confirmation (a plan, a series): what it
        proposes is a ReviewPlan or a ReviewSeries, saved as one file after one SAVE.
        """
        tool = self.registry.get(call.name)
        assert tool is not None  # _tool_turn let only offered tools through
        chosen = False
        sessions_chosen: tuple[bool, ...] = ()
        from planner.calendar.study_placing import place

        plan: Proposal | None = None
        try:
            plan = tool.check(call.arguments)
            if self.timetable is not None:
                try:
                    plan, starts = place(self.timetable, plan)
                    if isinstance(plan, StudyPlan):
                        sessions_chosen = starts
                    else:
                        chosen = starts[0]
                finally:
                    self._busy_notices()
        except InvalidArguments as error:
            if self.suggestion is not None and plan is not None:
                self.worth = self.suggestion.readiness(plan, self._readiness(plan))
            return self._reject_all(number, turn, str(error), getattr(error, "lines", ()))
        relative = f"{PLANS_DIR[self.mode]}/{self.record.run_id}.json"
        target = self.home / relative
        # The last proposal that reached the person is the one the summary describes.
        recorded = plan_record(plan)
        # A second proposal shows what it changes, so a dropped note is seen (README "Going on with
        # a conversation").
        changes = None if self.proposed is None else plan_changes(self.proposed, plan)
        self.proposed = plan
        self._step("proposal", number, call_id=call.id, plan=recorded)
        self._save_or_stop(NOTHING_SAVED, stage="confirming", plan=recorded,
                           approved=None, target=None, tool_result=None)
        # Warnings only: a duplicate or a full day is the person's call, never a refusal.
        warnings = tuple(store.confirmation_warnings(
            self.home, self.mode, plan, self.today, lambda: left_out(self.home, self.timetable)))
        outlook = self._readiness(plan)
        view = ConfirmRequest(plan, self._notes_of(plan), target, self.today, warnings,
                              self._due_dates(plan), changes, chosen, self._unknown_busy(),
                              None if self.timetable is None
                              else self.timetable.unread_after(plan.days), sessions_chosen,
                              outlook, self.config.daily_minutes, study_windows(self.config),
                              None if self.suggestion is None
                              else self.suggestion.screen(plan, outlook),
                              replacing_lines(self.timetable, plan))
        self.worth = None if self.suggestion is None else self.suggestion.readiness(plan, outlook)
        self.person.show(Proposed(number, view, self.client.simulated))
        approved, near_misses = ask_to_save(self.person)
        if not approved:
            return self._cancelled(number, turn, call, near_misses)
        try:
            result = self._execute(plan, relative, target, outlook)
        except InvalidArguments as error:
            return self._not_saved(number, turn, error, near_misses)
        self.last_word = t("Saved: {path}", path=relative)
        self._step("decision", number, approved=True, result=result,
                   near_misses=tuple(near_misses))
        self._save_or_stop_after_write(relative)
        self.person.show(Result(result.to_json(), relative))
        if not self._calls_left():
            return self._no_explanation()
        return ExplainOnly((turn.message, tool_message(call.id, self._sent(result.to_json()))))

    def _sent(self, result: dict[str, Any]) -> dict[str, Any]:
        """A result as sent back: a study plan's carries its readiness (README "A study plan
        to a goal")."""
        return result if self.worth is None else {**result, "readiness": self.worth.to_json()}

    def _no_explanation(self) -> Finish:
        """The decision is carried out; no call is left for the model to explain it."""
        if self.allowed == self.limits.max_calls:
            line = t("No model call is left for an explanation (max_calls {count}).",
                     count=self.allowed)
        else:
            line = t("No model call is left for an explanation (all {count} calls allowed are "
                     "used).", count=self.allowed)
        self.person.show(Notice(line))
        return FINISH

    def _not_saved(self, number: int, turn: Turn, error: InvalidArguments,
                   near_misses: list[str]) -> NextStep:
        """SAVE was typed, but the plan no longer fits the plans saved meanwhile by another run:
        nothing is written; the person is told why, the model may repair."""
        self.writing = None
        problem = str(error)
        result = ToolResult("failed", error=problem)
        self._step("decision", number, approved=True, result=result,
                   near_misses=tuple(near_misses))
        self._save_or_stop(NOTHING_SAVED, stage="confirming", target=None, tool_result=result)
        self.last_word = t("The plan was not saved: {reason} (another run saved a plan "
                           "meanwhile).", reason=problem)
        self.person.show(Notice(self.last_word))
        return self._reject_all(number, turn, problem, getattr(error, "lines", ()))

    def _cancelled(self, number: int, turn: Turn, call: ToolCall,
                   near_misses: list[str]) -> NextStep:
        self.last_word = t("Nothing was saved.")
        result = ToolResult("cancelled")
        self._step("decision", number, approved=False, result=result,
                   near_misses=tuple(near_misses))
        self._save_or_stop(NOTHING_SAVED, approved=False, tool_result=result)
        self.person.show(Result(result.to_json(), None))
        feedback = None
        # Asked even when no call is left: the budget question comes after it (README "Going on with
        # a conversation").
        if self.person.interactive and self._may_ask_for_more():
            if self.client.revisable:
                feedback = self._ask_words(Prompt("feedback"))
            else:
                self.person.show(Notice(t("The demo's scripted model cannot take your "
                                          "changes; to revise a plan, use live mode "
                                          "(--request).")))
        if feedback:
            self._step("feedback", number, text=feedback)
            if not self._more_calls(t("Sending your change needs another model call.")):
                raise StopRun(self._budget_line(), status.BUDGET_EXHAUSTED)
            sent = self._sent({"status": "cancelled", "feedback": feedback})
            return Continue((turn.message, tool_message(call.id, sent)))
        if not self._calls_left():
            return self._no_explanation()
        return ExplainOnly((turn.message, tool_message(call.id, self._sent(result.to_json()))))

    def _busy_notices(self) -> None:
        """Each busy calendar that could not be read, said once, when it was first read."""
        if self.timetable is not None:
            for line in self.timetable.unsaid_warnings():
                self.person.show(Notice(line))

    def _unknown_busy(self) -> tuple[str, ...]:
        """The busy calendars whose busy time could not be read (never taken as free)."""
        return () if self.timetable is None else self.timetable.busy().unknown

    def _readiness(self, plan: Proposal) -> GoalOutlook | None:
        """The goal's readiness with and without this plan, for the SAVE screen; None when the
        run has no goal."""
        goal = getattr(self, "goal", None)
        if goal is None or self.memory is None:
            return None
        from planner.memory.readiness import readiness_line

        try:
            return readiness_line(self.home, self.mode, goal, plan, self.memory, self.today,
                                  self.config, self.timetable.replaced if self.timetable else
                                  frozenset())
        except Exception:  # a prediction helps the decision; it must never stop it
            return None

    def _due_dates(self, plan: Proposal
                   ) -> dict[str, _dt.date | AfterLastDay | None] | None:
        """Each note's due date for the SAVE screen; None without review memory."""
        if self.memory is None:
            return None
        try:
            return self.memory.due_dates(plan.note_ids)
        except Exception:  # a schedule is shown to help; it must never stop the decision
            return None

    def _notes_of(self, plan: Proposal) -> tuple[Note, ...]:
        found = (self.notes.get(note_id) for note_id in plan.note_ids)
        return tuple(note for note in found if note is not None)

    def _execute(self, plan: Proposal, relative: str,
                 target: Path, outlook: GoalOutlook | None = None) -> ToolResult:
        """Record the intent, then save the plan through the store (InvalidArguments when it
        no longer fits the plans saved meanwhile: nothing is written). `outlook`: the SAVE
        screen's readiness, recorded in a study plan's file."""
        # The intent is on disk before the write, so a crash in between is never silent.
        self._save_or_stop(NOTHING_SAVED, stage="executing", approved=True,
                           target=relative)
        goal = getattr(self, "goal", None)  # a run for a goal: its study plan says which
        content = plans.plan_file_content(
            plan, simulated=self.client.simulated, run_id=self.record.run_id,
            created_at=now_iso(), notes=self._notes_of(plan),
            goal=None if goal is None else goal.name,
            # What the person saw and said SAVE to, beside planner's own plan.
            readiness=None if outlook is None else plans.SavedReadiness(
                outlook.ready_with, outlook.total,
                None if self.worth is None else self.worth.best),
        )
        # Known before the write: a Ctrl+C right after it must still say the plan exists.
        self.writing = target
        try:
            save_plan(target, content, save_check(self.timetable, plan, self.home,
                                                  self.record.run_id))
        except OSError as error:
            self.record.change(tool_result=ToolResult(
                "failed", error=t("{path}: {problem}", path=relative,
                                  problem=os_error_reason(error))))
            raise StopRun(t("could not save the plan to {path} ({reason}); nothing was saved; "
                          "check free space and permissions", path=relative,
                          reason=os_error_reason(error))) from None
        self.saved = relative
        result = ToolResult("saved", relative)
        self.record.change(tool_result=result)
        return result

    def _save_or_stop_after_write(self, relative: str) -> None:
        try:
            self.record.save()
        except OSError as error:
            raise StopRun(t("the plan was saved to {path}, but its record could not be updated "
                          "({reason}); check {path}", path=self.home / relative,
                          reason=os_error_reason(error))) from None

    # --- repairs, lookups, refusals ---------------------------------------------------------

    def _reject_all(self, number: int, turn: Turn, problem: str,
                    lines: Sequence[str] = ()) -> NextStep:
        """A rejected reply: every call in it is answered `rejected`; repair if allowed.

        `lines`: one per failing session, after `problem`, for the model and the person alike.
        """
        tool = shown_name(turn.calls[0].name) if len(turn.calls) == 1 else "tool calls"
        whole = Lines((problem, *lines))
        can_repair = self.repairs < self.limits.max_repairs
        if not (can_repair and self._more_calls(
                t("Asking the model to correct its proposal needs another model call."))):
            for call in turn.calls:
                self._step("rejected", number, call_id=call.id, tool=shown_name(call.name),
                           error=whole, repair=0)
            if can_repair:
                raise StopRun(self._budget_line(), status.BUDGET_EXHAUSTED)
            # max_repairs spent (0 gives the strict rule of README "Repairs"): the run stops
            # here as a failed call does, its conversation kept for --continue.
            if lines:  # under a heading of their own, not under the rejection before it
                self.person.show(Rejected(number, tool, problem, 0, self.limits.max_repairs,
                                          tuple(lines)))
            self.call_failed = True
            raise StopRun(t("the model's proposal was rejected ({problem}); nothing was saved",
                          problem=problem))
        self.repairs += 1
        for call in turn.calls:
            self._step("rejected", number, call_id=call.id, tool=shown_name(call.name),
                       error=whole, repair=self.repairs)
        self.person.show(Rejected(number, tool, problem, self.repairs, self.limits.max_repairs,
                                  tuple(lines)))
        answers = [tool_message(call.id, self._sent({"status": "rejected", "error": whole})
                                if len(turn.calls) == 1 else
                                {"status": "rejected", "error": whole}) for call in turn.calls]
        return Continue((turn.message, *answers))

    def _lookups(self, number: int, turn: Turn) -> NextStep:
        """Read-only lookups run at once, answered in order, paired by call ID; a call with
        bad arguments is rejected alone, the others beside it answered with their results."""
        if len(turn.calls) > MAX_LOOKUPS_PER_REPLY:
            return self._reject_all(number, turn, t(
                "at most {limit} lookup calls in one reply, got {count}",
                limit=MAX_LOOKUPS_PER_REPLY, count=len(turn.calls)))
        checked: list[tuple[ToolCall, Tool, object]] = []
        problems: dict[str, str] = {}  # call ID -> why its arguments were refused
        for call in turn.calls:
            tool = self.registry.get(call.name)
            if tool is None or tool.run is None:
                # _tool_turn has sent unknown tools and tools that act elsewhere already.
                raise AssertionError(f"{shown_name(call.name)} is not a lookup")
            try:
                checked.append((call, tool, tool.check(call.arguments)))
            except InvalidArguments as error:
                problems[call.id] = argument_problem(tool.name, error)
                checked.append((call, tool, None))
        if problems and (len(turn.calls) == 1 or self.repairs >= self.limits.max_repairs):
            # One bad call alone, or no repair left (the run stops): as any rejected reply.
            return self._reject_all(number, turn, next(iter(problems.values())))
        why = t("Sending the lookups' results to the model needs another model call.") \
            if len(problems) < len(turn.calls) \
            else t("Asking the model to correct its proposal needs another model call.")
        if not self._more_calls(why):
            for call, tool, _arguments in checked:
                if call.id in problems:
                    self._step("rejected", number, call_id=call.id, tool=tool.name,
                               error=Lines((problems[call.id],)), repair=0)
            raise StopRun(self._budget_line(), status.BUDGET_EXHAUSTED)
        if problems:
            self.repairs += 1  # the bad calls go back to the model to correct: one repair
        answers = []
        room = MAX_TURN_RESULT_BYTES  # what the results of this turn may still add up to
        for call, tool, arguments in checked:
            if call.id in problems:
                whole = Lines((problems[call.id],))
                self._step("rejected", number, call_id=call.id, tool=tool.name, error=whole,
                           repair=self.repairs)
                self.person.show(Rejected(number, tool.name, problems[call.id], self.repairs,
                                          self.limits.max_repairs))
                answers.append(tool_message(call.id, {"status": "rejected", "error": whole}))
                continue
            assert tool.run is not None  # checked above
            result = bounded_result(tool.run(arguments), room)
            room -= len(storage.to_json(result))
            summary = short_summary(result)
            self._step("lookup", number, call_id=call.id, tool=tool.name,
                       arguments=jsonable(arguments), found=summary)
            self.person.show(Looked(number, tool.name, arguments, summary))
            answers.append(tool_message(call.id, result))
        self._busy_notices()
        self._save_or_stop(NOTHING_SAVED)
        return Continue((turn.message, *answers))

    def _refuse_all(self, number: int, turn: Turn) -> list[dict[str, Any]]:
        """Calls where only an explanation may come: none is run; each is answered refused."""
        answers = []
        for call in turn.calls:
            error = self._refusal(call)
            self._step("refused", number, call_id=call.id, tool=shown_name(call.name), error=error)
            self.person.show(RefusedCall(number, shown_name(call.name), error))
            answers.append(tool_message(call.id, {"status": "refused", "error": error}))
        return [turn.message, *answers]

    def _refusal(self, call: ToolCall) -> str:
        if self.saved and self._acts(call):
            return t("a plan was already saved in this run")
        return t("no more tool calls in this run; explain the result in words")

    # --- the person's words -----------------------------------------------------------------

    def _ask_words(self, prompt: Prompt) -> str | None:
        """An answer or feedback: empty, end of input or no terminal means finish."""
        self._save_or_stop(NOTHING_SAVED, stage="answering")
        for _ in range(_ASK_AGAIN):
            line = self.person.ask(prompt)
            words = (line or "").strip()
            if len(words) <= MAX_ANSWER:
                return words or None
            self.person.show(Notice(t("That is {count:,} characters; at most {limit:,} can "
                                      "be sent. Shorten it, or press Enter to finish.",
                                      count=len(words), limit=MAX_ANSWER)))
        return None
