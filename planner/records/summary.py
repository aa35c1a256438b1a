"""summary.json of one run as typed values, with its one writer and its one reader.

summary.json is the contract between the flow (which writes it), `planner runs`, `show` and
`costs` and the screens (which read it back). It is read and written here only: `from_json`
turns its bytes (or its decoded JSON value) into a `RunSummary`, or a `DamagedRun` saying why it
cannot be used; `to_json` is the one writer. Version 1 summaries are converted on read (their
steps rebuilt), so every reader sees version 2. Everyone else uses attributes, never keys.

A summary is damaged when it is not UTF-8/JSON, holds NaN or Infinity or a number that
overflows, nests deeper than 64 levels, is not an object, or lacks a status string or a calls
list. Any other field of the wrong type reads as None (or empty); a step that is not an object is
left out; a call entry that is not an object is a call with nothing known about it.

The parts (a plan, a result, a call, a step) are NamedTuples, not dataclasses: start-up stays
fast. RunSummary is a small slotted class that compares and changes (`_replace`) like one, so
that a recorded summary can leave for later what listing runs never reads: `planner costs` and
`runs` on 10,000 runs stay within a tenth of decoding the JSON alone. For the same reason the
decoder is the standard one with NaN, Infinity and overflowing floats refused (as
planner.base.strictjson refuses them), but not repeated keys: checking those costs a Python call per
object, about half the decoding time again; the last one wins, as with every JSON reader.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, NamedTuple

from planner.base.i18n import t
from planner.base.jsonlimits import MAX_DEPTH, too_deep
from planner.records.plan_record import PlanRecord as PlanRecord
from planner.records.plan_record import SessionRecord as SessionRecord
from planner.records.plan_record import plan_record as _plan
from planner.records.plan_record import session_record as session_record

RECORD_VERSION = 2  # 2 adds `steps`: the conversation, step by step (README "Records")


# --- The typed values -------------------------------------------------------------------------


class ToolResult(NamedTuple):
    """What the program really did with a proposal: saved (path), cancelled, failed (error)."""

    status: str | None
    path: str | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"status": self.status}
        if self.path is not None:
            data["path"] = self.path
        if self.error is not None:
            data["error"] = self.error
        return data


class CallEntry(NamedTuple):
    """One model call: its record files, when it started, how long it took, usage, error.

    `usage` is the usage object as the API returned it (costs.split_usage reads it), or None.
    """

    request: str | None = None
    response: str | None = None
    started_at: str | None = None
    duration_ms: int | None = None
    usage: dict[str, Any] | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"request": self.request, "response": self.response,
                "started_at": self.started_at, "duration_ms": self.duration_ms,
                "usage": self.usage, "error": self.error}


class Step(NamedTuple):
    """One step of the conversation (README "Records"): `kind` says which fields it has.

    proposal: call_id, plan. rejected: call_id, tool, error, repair (0: not sent back).
    lookup: call_id, tool, arguments, found (the short result). question, answer, feedback,
    explanation: text. decision: approved, result, near_misses. refused: call_id, tool, error.
    budget: approved (whether the person allowed more calls), max_calls (the run's limit after).
    """

    call: int | None
    kind: str | None
    call_id: str | None = None
    plan: PlanRecord | None = None
    tool: str | None = None
    error: str | None = None
    repair: int | None = None
    arguments: object = None
    found: str | None = None
    text: str | None = None
    approved: bool | None = None
    result: ToolResult | None = None
    near_misses: tuple[str, ...] = ()
    max_calls: int | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"call": self.call, "kind": self.kind}
        for name in STEP_FIELDS.get(self.kind, ()):  # type: ignore[arg-type]
            if name == "plan":
                data[name] = None if self.plan is None else self.plan.to_json()
            elif name == "result":
                if self.kind == "lookup":
                    data[name] = self.found
                else:
                    data[name] = None if self.result is None else self.result.to_json()
            elif name == "near_misses":
                data[name] = list(self.near_misses)
            else:
                data[name] = getattr(self, name)
        return data


# The fields each kind of step records, in the order they are written.
STEP_FIELDS: dict[str, tuple[str, ...]] = {
    "proposal": ("call_id", "plan"),
    "rejected": ("call_id", "tool", "error", "repair"),
    "lookup": ("call_id", "tool", "arguments", "result"),
    "question": ("text",),
    "answer": ("text",),
    "feedback": ("text",),
    "explanation": ("text",),
    "decision": ("approved", "result", "near_misses"),
    "refused": ("call_id", "tool", "error"),
    # The person was asked whether the run may make more model calls.
    "budget": ("approved", "max_calls"),
}


class RunSummary:
    """summary.json of one run (version 2), as the flow writes it and every reader sees it.

    Built by the flow field by field, or by from_json from the recorded JSON. Then the fields
    `planner costs` reads for each of 10,000 runs are converted at once (the status, mode,
    model, time, decision, result, process and each call's usage); the plan (which `planner runs`
    adds) when first read, and the rest (the request, the model's words, the steps, each
    call's files and times, ...) all together when first read. Either way every field holds
    the same value; it compares like a NamedTuple and changes by `_replace`. On 10,000 runs
    this keeps `costs` and `runs` within a tenth of reading the JSON alone.
    """

    run_id: str
    status: str
    version: int
    mode: str | None
    simulated: bool | None
    stage: str | None
    request: str | None
    model: str | None
    base_url: str | None
    approved: bool | None
    target: str | None
    tool_result: ToolResult | None
    calls: tuple[CallEntry, ...]
    steps: tuple[Step, ...]
    error: str | None
    created_at: str | None
    updated_at: str | None
    pid: int | None  # lets `planner runs` tell a live run from one whose process died
    process_start: int | None
    question: str | None  # the model's last text without a tool call
    explanation: str | None
    continues: str | None  # the run this one continues (planner --continue), else None
    until: str | None  # the deadline the person gave (--until YYYY-MM-DD), else None
    goal: str | None  # the goal the run plans for (--goal NAME), else None
    # Each call's usage (calls[i].usage), what `planner costs` counts: kept apart, so that
    # counting never converts the rest of each call.
    usages: tuple[dict[str, Any] | None, ...]
    _plan: PlanRecord | None | _Unread

    _fields = ("run_id", "status", "version", "mode", "simulated", "stage", "request", "model",
               "base_url", "approved", "plan", "target", "tool_result", "calls", "steps",
               "error", "created_at", "updated_at", "pid", "process_start", "question",
               "explanation", "continues", "until", "goal")
    __slots__ = (*(name for name in _fields if name != "plan"), "_plan", "usages", "_recorded")

    def __init__(self, run_id: str, status: str, version: int = RECORD_VERSION,
                 mode: str | None = None, simulated: bool | None = None,
                 stage: str | None = None, request: str | None = None,
                 model: str | None = None, base_url: str | None = None,
                 approved: bool | None = None, plan: PlanRecord | None = None,
                 target: str | None = None, tool_result: ToolResult | None = None,
                 calls: tuple[CallEntry, ...] = (), steps: tuple[Step, ...] = (),
                 error: str | None = None, created_at: str | None = None,
                 updated_at: str | None = None, pid: int | None = None,
                 process_start: int | None = None, question: str | None = None,
                 explanation: str | None = None, continues: str | None = None,
                 until: str | None = None, goal: str | None = None) -> None:
        self.run_id, self.status, self.version, self.mode = run_id, status, version, mode
        self.simulated, self.stage, self.request, self.model = simulated, stage, request, model
        self.base_url, self.approved, self._plan, self.target = base_url, approved, plan, target
        self.tool_result, self.calls, self.steps, self.error = tool_result, calls, steps, error
        self.created_at, self.updated_at, self.pid = created_at, updated_at, pid
        self.process_start, self.question, self.explanation = process_start, question, explanation
        self.continues, self.until, self.goal = continues, until, goal
        self.usages = tuple([call.usage for call in calls])
        self._recorded: dict[str, Any] | None = None

    if not TYPE_CHECKING:  # the type checker keeps checking attribute names

        def __getattr__(self, name: str) -> object:
            # Called for a field not set yet: its part of a recorded summary, converted now.
            recorded = object.__getattribute__(self, "_recorded")
            convert = _LATER.get(name)
            if recorded is None or convert is None:
                raise AttributeError(name)
            convert(self, recorded)
            return object.__getattribute__(self, name)

    @property
    def plan(self) -> PlanRecord | None:
        """The last proposal that reached the person (a recorded one read when first asked)."""
        plan = self._plan
        if isinstance(plan, _Unread):
            plan = self._plan = _plan(object.__getattribute__(self, "_recorded").get("plan"))
        return plan

    @plan.setter
    def plan(self, plan: PlanRecord | None) -> None:
        self._plan = plan

    @property
    def is_simulated(self) -> bool:
        """Demo runs: their usage is simulated, so they are never priced."""
        return self.simulated is True or self.mode == "demo"

    def _asdict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self._fields}

    def _replace(self, **changes: Any) -> RunSummary:
        """A copy with `changes` made (the flow's every step)."""
        return RunSummary(**{**self._asdict(), **changes})

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RunSummary):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self._fields)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"RunSummary({fields})"


class DamagedRun(NamedTuple):
    """A run whose summary.json cannot be used, and why, in a few words."""

    run_id: str
    why: str


# --- The one writer ---------------------------------------------------------------------------


def to_json(summary: RunSummary) -> dict[str, Any]:
    """summary.json's JSON object (version 2), keys in the order planner has always written.

    `continues` is written only by a run that continues another, `until` only by a run with a
    deadline, `goal` only by a run for a goal (optional keys of version 2).
    """
    plan, result = summary.plan, summary.tool_result
    data = {
        "version": RECORD_VERSION,
        "run_id": summary.run_id,
        "mode": summary.mode,
        "simulated": summary.simulated,
        "status": summary.status,
        "stage": summary.stage,
        "request": summary.request,
        "model": summary.model,
        "base_url": summary.base_url,
        "approved": summary.approved,
        "plan": None if plan is None else plan.to_json(),
        "target": summary.target,
        "tool_result": None if result is None else result.to_json(),
        "calls": [call.to_json() for call in summary.calls],
        "steps": [step.to_json() for step in summary.steps],
        "error": summary.error,
        "created_at": summary.created_at,
        "updated_at": summary.updated_at,
        "pid": summary.pid,
        "process_start": summary.process_start,
        "question": summary.question,
        "explanation": summary.explanation,
    }
    if summary.continues is not None:
        data["continues"] = summary.continues
    if summary.until is not None:
        data["until"] = summary.until
    if summary.goal is not None:
        data["goal"] = summary.goal
    return data


# --- The one reader ---------------------------------------------------------------------------


class Unusable(ValueError):
    """summary.json's bytes are not a JSON value planner reads; str() says why."""


def _no_constant(name: str) -> None:
    raise Unusable(t("summary.json contains {name}, which is not a JSON number", name=name))


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise Unusable(t("summary.json contains a number that overflows: {number}",
                         number=text[:40]))
    return value


# The hooks run only on a float or a constant: the usual summary decodes at full C speed.
# An integer past Python's 4,300-digit limit is not JSON here (ValueError), as it always was.
_DECODER = json.JSONDecoder(parse_constant=_no_constant, parse_float=_finite)
_SCAN = _DECODER.scan_once  # type: ignore[attr-defined]  # set by JSONDecoder.__init__


def decode(data: bytes) -> object:
    """summary.json's JSON value: UTF-8 as planner writes it, else any JSON encoding.

    Unusable, with the reason a person reads, when it is not JSON, holds NaN or Infinity or a
    float that overflows, or nests deeper than MAX_DEPTH levels.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    try:
        if text is None or text[:1] == "\ufeff":
            # A BOM or UTF-16/32 file, decoded as json.loads(bytes) would.
            text = data.decode(json.detect_encoding(data), "surrogatepass").removeprefix("\ufeff")
        try:
            # The scanner itself, as planner writes summaries (no space before, a newline
            # after): JSONDecoder.decode's checks around it cost a tenth more on 10,000 runs.
            value, end = _SCAN(text, 0)
            scanned = end == len(text) or text[end:] == "\n"
        except StopIteration:
            scanned = False
        if not scanned:
            value = _DECODER.decode(text)  # anything else: the full check, and its error
    except RecursionError:
        raise Unusable(t("summary.json is nested deeper than {max_depth} levels",
                         max_depth=MAX_DEPTH)) from None
    except Unusable:
        raise
    except ValueError:
        # UnicodeDecodeError is a ValueError too.
        raise Unusable(t("summary.json is empty") if not data.strip()
                       else t("summary.json is not JSON")) from None
    # The bracket count first, inline: it settles every usual summary without a call.
    if text.count("{") + text.count("[") > MAX_DEPTH and too_deep(text, value):
        raise Unusable(t("summary.json is nested deeper than {max_depth} levels",
                         max_depth=MAX_DEPTH))
    return value


def from_json(data: object, run_id: str = "") -> RunSummary | DamagedRun:
    """The typed summary of summary.json's bytes, or of its decoded JSON value; never raises.

    `run_id` (the run folder's name) names a damaged run, and a summary without its own ID.
    Version 1 summaries come back as version 2, their steps rebuilt.
    """
    if isinstance(data, bytes):
        try:
            data = decode(data)
        except Unusable as unusable:
            return DamagedRun(run_id, str(unusable))
    if type(data) is not dict:
        return DamagedRun(run_id, t("summary.json is not a JSON object"))
    get = data.get
    status, calls = get("status"), get("calls")
    if type(status) is not str or type(calls) is not list:
        return DamagedRun(run_id, t("summary.json has no status or no calls list"))
    # What `planner runs` and `costs` read now; the rest when first used (_convert_the_rest).
    summary = _blank(RunSummary)
    recorded_id, mode, model, simulated, approved, created_at, pid, process_start = map(
        get, _FIRST)
    summary.run_id = recorded_id if type(recorded_id) is str else run_id
    summary.status = status
    summary.mode = mode if type(mode) is str else None
    summary.model = model if type(model) is str else None
    summary.simulated = simulated if type(simulated) is bool else None
    summary.approved = approved if type(approved) is bool else None
    summary.created_at = created_at if type(created_at) is str else None
    # type(), not isinstance(): a bool is not a process ID.
    summary.pid = pid if type(pid) is int else None
    summary.process_start = process_start if type(process_start) is int else None
    # The model decides whether config's prices apply: `runs` and `costs` read it.
    model = get("model")
    summary.model = model if type(model) is str else None
    summary._plan = _UNREAD
    summary.tool_result = _result(get("tool_result"))
    try:
        usages = [call.get("usage") for call in calls]
    except AttributeError:  # a call that is not an object: its usage is unknown
        usages = [call.get("usage") if type(call) is dict else None for call in calls]
    summary.usages = tuple([usage if type(usage) is dict else None for usage in usages])
    summary._recorded = data
    return summary


_FIRST = ("run_id", "mode", "model", "simulated", "approved", "created_at", "pid",
          "process_start")
_blank = object.__new__


class _Unread:
    """The plan of a recorded summary before it is first read."""


_UNREAD = _Unread()


def _convert_the_rest(summary: RunSummary, recorded: dict[str, Any]) -> None:
    """The fields of a recorded summary that listing runs never reads, converted together."""
    get = recorded.get
    (summary.stage, summary.request, summary.base_url, summary.target, summary.error,
     summary.updated_at, summary.question, summary.explanation, summary.continues,
     summary.until, summary.goal) = [
        value if type(value) is str else None for value in map(get, _TEXTS)]
    summary.calls = _calls(recorded["calls"])  # a list: from_json checked
    if get("version") == RECORD_VERSION:
        summary.steps = _steps(get("steps"))
    else:
        summary.steps = _v1_steps(summary.plan, summary.approved, summary.tool_result,
                                  summary.question, summary.explanation)
    summary.version = RECORD_VERSION


# The fields from_json leaves for later, and what converts each.
_LATER = dict.fromkeys(
    ("version", "stage", "request", "base_url", "target", "calls", "steps", "error",
     "updated_at", "question", "explanation", "continues", "until", "goal"),
    _convert_the_rest)


_TEXTS = ("stage", "request", "base_url", "target", "error", "updated_at", "question",
          "explanation", "continues", "until", "goal")
_new = tuple.__new__


def _str(value: object) -> str | None:
    return value if type(value) is str else None


def _bool(value: object) -> bool | None:
    return value if type(value) is bool else None


def _int(value: object) -> int | None:
    # bool is not a count: type(), not isinstance().
    return value if type(value) is int else None


def _result(value: object) -> ToolResult | None:
    if type(value) is not dict:
        return None
    status, path, error = map(value.get, ToolResult._fields)
    return _new(ToolResult, (status if type(status) is str else None,
                             path if type(path) is str else None,
                             error if type(error) is str else None))


_NO_CALL = CallEntry()


def _calls(calls: list[Any]) -> tuple[CallEntry, ...]:
    """The call entries; one that is not an object is a call with nothing known about it."""
    entries: list[CallEntry] = []
    add = entries.append
    for value in calls:
        if type(value) is not dict:
            add(_NO_CALL)
            continue
        request, response, started_at, duration, usage, error = map(value.get,
                                                                    CallEntry._fields)
        add(_new(CallEntry, (
            request if type(request) is str else None,
            response if type(response) is str else None,
            started_at if type(started_at) is str else None,
            duration if type(duration) is int else None,
            usage if type(usage) is dict else None, error if type(error) is str else None,
        )))
    return tuple(entries)


def _steps(value: object) -> tuple[Step, ...]:
    if type(value) is not list:
        return ()
    return tuple([_step(step) for step in value if type(step) is dict])


def _step(value: dict[str, Any]) -> Step:
    get = value.get
    kind = get("kind")
    call = _int(get("call"))
    if kind in _TEXT_KINDS:
        return Step(call, kind, text=_str(get("text")))
    if kind == "proposal":
        return Step(call, kind, _str(get("call_id")), _plan(get("plan")))
    if kind == "decision":
        misses = get("near_misses")
        return Step(call, kind, approved=_bool(get("approved")), result=_result(get("result")),
                    near_misses=tuple([miss if type(miss) is str else str(miss)
                                       for miss in misses]) if type(misses) is list else ())
    if kind == "lookup":
        return Step(call, kind, _str(get("call_id")), tool=_str(get("tool")),
                    arguments=get("arguments"), found=_str(get("result")))
    if kind == "budget":
        return Step(call, kind, approved=_bool(get("approved")), max_calls=_int(get("max_calls")))
    if kind in ("rejected", "refused"):
        return Step(call, kind, _str(get("call_id")), tool=_str(get("tool")),
                    error=_str(get("error")),
                    repair=_int(get("repair")) if kind == "rejected" else None)
    return Step(call, _str(kind))


_TEXT_KINDS = frozenset({"question", "answer", "feedback", "explanation"})


def _v1_steps(plan: PlanRecord | None, approved: bool | None, result: ToolResult | None,
              question: str | None, explanation: str | None) -> tuple[Step, ...]:
    """Version 1's steps, rebuilt: one proposal at most (call 1), the explanation as call 2."""
    steps = []
    if plan is not None:
        steps.append(Step(1, "proposal", None, plan))
        if approved is not None or result is not None:
            steps.append(Step(1, "decision", approved=approved, result=result))
    if question is not None:
        steps.append(Step(1, "question", text=question))
    if explanation is not None:
        steps.append(Step(2, "explanation", text=explanation))
    return tuple(steps)
