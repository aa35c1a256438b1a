"""One run, step by step: propose, check, confirm, write, report, explain. Never prints."""

from __future__ import annotations

import datetime as _dt
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from planner import storage
from planner.config import Config
from planner.model import ModelCallError, ModelClient
from planner.notes import Note
from planner.plan import ReviewPlan
from planner.protocol import (
    Proposal,
    Question,
    ReplyError,
    after_tool_messages,
    build_request,
    check_explanation_reply,
    check_proposal_reply,
    first_messages,
)
from planner.records import RECORDS_DIR, RunRecord, call_file_names, now_iso

EXIT_OK, EXIT_FAILED, EXIT_INTERRUPTED = 0, 1, 130
PLANS_DIR = {"live": "plans", "demo": "demo-plans"}


class Limits(NamedTuple):
    """Hard bounds of one run; the defaults give exactly the two-call flow."""

    max_calls: int = 2


DEFAULT_LIMITS = Limits()


class ConfirmRequest(NamedTuple):
    """What the person is shown before deciding: the checked plan, its notes, the target."""

    plan: ReviewPlan
    notes: tuple[Note, ...]
    target: Path
    today: _dt.date

    @property
    def date_in_past(self) -> bool:
        return self.plan.date < self.today.isoformat()


class Outcome:
    """How a run ended, for the edge to render; filled in step by step by the flow."""

    def __init__(self, status: str, exit_code: int, **fields: object) -> None:
        self.status = status  # running | complete | no_tool | stopped
        self.exit_code = exit_code
        self.run_id: str | None = None
        self.folder: Path | None = None
        self.simulated = False
        self.plan: ReviewPlan | None = None
        self.approved: bool | None = None
        self.tool_result: dict | None = None
        self.question: str | None = None
        self.explanation: str | None = None
        self.error: str | None = None
        for name, value in fields.items():
            if not hasattr(self, name):
                raise TypeError(f"Outcome has no field {name!r}")
            setattr(self, name, value)


class _Stop(Exception):
    """Ends the run as `stopped`; the message is the one line the person sees."""


def run_flow(
    request: str,
    *,
    client: ModelClient,
    confirm: Callable[[ConfirmRequest], bool],
    home: Path,
    config: Config,
    notes: Sequence[Note],
    mode: str,
    today: _dt.date | None = None,
    on_result: Callable[[dict], None] = lambda result: None,
    limits: Limits = DEFAULT_LIMITS,
) -> Outcome:
    """Run the whole flow once and return its outcome; only the program ever writes."""
    today = today or _dt.date.today()
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
        )
    except OSError as error:
        return Outcome(
            "stopped",
            EXIT_FAILED,
            simulated=client.simulated,
            error=f"could not write the run's records in {home / RECORDS_DIR} "
            f"({_reason(error)}); check free space and permissions",
        )
    run = _Run(record, client, config, tuple(notes), home, mode, today, limits)
    try:
        return run.go(request, confirm, on_result)
    except _Stop as stop:
        return run.stop(str(stop), EXIT_FAILED)
    except KeyboardInterrupt:
        return run.stop("interrupted (Ctrl+C); nothing more was done", EXIT_INTERRUPTED)


class _Run:
    """The state of one run between steps."""

    def __init__(self, record, client, config, notes, home, mode, today, limits) -> None:
        self.record: RunRecord = record
        self.client: ModelClient = client
        self.config: Config = config
        self.notes: tuple[Note, ...] = notes
        self.home: Path = home
        self.mode: str = mode
        self.today: _dt.date = today
        self.limits: Limits = limits
        self.outcome = Outcome(
            "running", EXIT_OK, run_id=record.run_id, folder=record.folder,
            simulated=client.simulated,
        )

    def go(self, request, confirm, on_result) -> Outcome:
        """The bounded loop: each turn sends one request and decides what comes next."""
        messages = first_messages(request, self.notes, self.today)
        tool_choice = "auto"
        note_ids = [note.id for note in self.notes]
        for number in range(1, self.limits.max_calls + 1):
            body = build_request(self.config, messages, self.notes, tool_choice)
            reply = self._call(number, body)
            if tool_choice == "none":
                text = self._checked(check_explanation_reply, reply)
                self.outcome.explanation = text
                return self._finish("complete", explanation=text)
            step = self._checked(check_proposal_reply, reply, note_ids)
            if isinstance(step, Question):
                self.outcome.question = step.text
                return self._finish("no_tool", question=step.text)
            result = self._decide_and_execute(step, confirm)
            on_result(result)
            # The model hears the real result, paired by its call ID, and may not call again.
            messages = messages + after_tool_messages(step, result)
            tool_choice = "none"
        raise _Stop(f"the run reached its limit of {self.limits.max_calls} model calls")

    def _call(self, number: int, body: dict) -> object:
        """Record the request, send it once, record the response or the error."""
        request_name, response_name = call_file_names(number)
        entry = {
            "request": request_name, "response": response_name, "started_at": now_iso(),
            "duration_ms": None, "usage": None, "error": None,
        }
        stage = "requesting" if number == 1 else "explaining"
        try:
            # Saved before sending, so the records show what was asked even if the run dies.
            self.record.write_file(request_name, body)
            self.record.summary["calls"].append(entry)
            self.record.save(stage=stage)
        except OSError as error:
            raise _Stop(self._record_failure(error, "nothing was sent")) from None
        entry["started_at"] = now_iso()
        started = time.perf_counter()
        try:
            reply = self.client.complete(body)
        except ModelCallError as error:
            entry["duration_ms"] = self._duration(started)
            entry["error"] = str(error)
            self._write_quietly(response_name, error.record)
            raise _Stop(str(error)) from None
        entry["duration_ms"] = self._duration(started)
        usage = reply.get("usage") if isinstance(reply, dict) else None
        entry["usage"] = None if self.client.simulated or not isinstance(usage, dict) else usage
        try:
            self.record.write_file(response_name, reply)
            self.record.save()
        except OSError as error:
            raise _Stop(self._record_failure(error, "the reply was not used")) from None
        return reply

    def _checked(self, check: Callable, *args: object) -> object:
        try:
            return check(*args)
        except ReplyError as error:
            raise _Stop(str(error)) from None

    def _decide_and_execute(self, proposal: Proposal, confirm) -> dict:
        """Ask the person; on SAVE record the intent, then write the plan exclusively."""
        plan = proposal.plan
        self.outcome.plan = plan
        relative = f"{PLANS_DIR[self.mode]}/{self.record.run_id}.json"
        target = self.home / relative
        self._save_or_stop("nothing was saved", stage="confirming", plan=plan.as_dict())
        approved = confirm(ConfirmRequest(plan, self._notes_of(plan), target, self.today))
        self.outcome.approved = approved
        if not approved:
            result = {"status": "cancelled"}
            self.outcome.tool_result = result
            self._save_or_stop("nothing was saved", approved=False, tool_result=result)
            return result
        # The intent is on disk before the write, so a crash in between is never silent.
        self._save_or_stop(
            "nothing was saved", stage="executing", approved=True, target=relative
        )
        # The plan is the person's own file: indented to be read by eye.
        content = storage.to_json(
            {"simulated": self.client.simulated, "plan": plan.as_dict()}, indent=2
        )
        try:
            storage.ensure_dir(target.parent)
            storage.create_exclusive(target, content)
        except OSError as error:
            result = {"status": "failed", "error": f"{relative}: {_reason(error)}"}
            self.outcome.tool_result = result
            self.record.summary["tool_result"] = result
            raise _Stop(f"could not save the plan to {relative} ({_reason(error)}); "
                        "nothing was saved; check free space and permissions") from None
        result = {"status": "saved", "path": relative}
        self.outcome.tool_result = result
        self.record.summary["tool_result"] = result
        try:
            self.record.save()
        except OSError as error:
            raise _Stop(f"the plan was saved to {target}, but its record could not be updated "
                        f"({_reason(error)}); check {target}") from None
        return result

    def _notes_of(self, plan: ReviewPlan) -> tuple[Note, ...]:
        by_id = {note.id: note for note in self.notes}
        return tuple(by_id[note_id] for note_id in plan.note_ids)

    def _save_or_stop(self, consequence: str, **changes: object) -> None:
        try:
            self.record.save(**changes)
        except OSError as error:
            raise _Stop(self._record_failure(error, consequence)) from None

    def _finish(self, status: str, **changes: object) -> Outcome:
        try:
            self.record.save(status=status, stage="done", **changes)
        except OSError as error:
            return self.stop(self._record_failure(error, "the run itself finished"), EXIT_FAILED)
        self.outcome.status = status
        self.outcome.tool_result = self.record.summary["tool_result"]
        return self.outcome

    def stop(self, message: str, exit_code: int) -> Outcome:
        """End as `stopped`: the summary and the outcome say the same one line."""
        self.outcome.status = "stopped"
        self.outcome.exit_code = exit_code
        self.outcome.tool_result = self.record.summary["tool_result"]
        try:
            self.record.save(status="stopped", error=message)
        except OSError as error:
            message += f" (the summary could not be updated either: {_reason(error)})"
        except KeyboardInterrupt:
            pass
        self.outcome.error = message
        return self.outcome

    def _record_failure(self, error: OSError, consequence: str) -> str:
        return (f"could not write the run's records in {self.record.folder} ({_reason(error)}); "
                f"{consequence}; check free space and permissions")

    def _write_quietly(self, name: str, data: object) -> None:
        """Keep a failed call's error on disk if possible; the stop message matters more."""
        try:
            self.record.write_file(name, data)
        except OSError:
            pass

    def _duration(self, started: float) -> int | None:
        return None if self.client.simulated else round((time.perf_counter() - started) * 1000)


def _reason(error: OSError) -> str:
    """An OSError in words, without a traceback: 'No space left on device'."""
    return error.strerror or str(error)
