"""Continuing an earlier run (README "Going on with a conversation"): its conversation rebuilt from
its records, only read.

The conversation is the earlier run's last request (its messages, after its system message),
then the last reply to it when that reply can be read: the model's words as they were, or its
tool calls, each paired with what really happened to it (the recorded result, else "not run"),
so the next request is one the API accepts and the model sees whether a plan was saved. Both
wire formats are read: a Chat Completions body's `messages`, a Responses body's `input`.
Nothing here writes; every file is a regular file of bounded size read by the strict reader.

Only what planner itself writes is read back (README "A screen you can trust"): its one system
message, first, then
user, assistant and tool messages; on the Responses wire the items planner sends (its own
messages, a reply's output items sent back, function_call and function_call_output). A second
system message, a developer message, or any other role or item makes the earlier run damaged.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from planner.base import storage, strictjson
from planner.base.errors import UsageError
from planner.base.i18n import t
from planner.base.oserrors import os_reason
from planner.model.turns import ReplyError, Turn, tool_message
from planner.records import history
from planner.records.status import RUNNING
from planner.records.summary import DamagedRun, RunSummary, Step

# A request holds the notes listing and every turn's results (at most 16 KiB each).
REQUEST_LIMIT = 8 * storage.MIB
_CALL_FILE = re.compile(r"[0-9]{2,3}-(request|response)\.json", re.ASCII)
# responses_wire.OUTPUT_ITEMS, named here so reading a Chat run never imports the Responses code.
_OUTPUT_ITEMS = "output_items"
NOT_RUN = {"status": "not_run",
           "error": "the earlier run ended before this call was answered; nothing was run"}


class CannotContinue(UsageError):
    """The earlier run cannot be continued; str() is the one line the person reads."""


def earlier_conversation(home: Path, run_id: str,
                         request: str | None = None) -> list[dict[str, Any]]:
    """The messages of run `run_id` to continue from, without its system message. An answer
    that no request carried, or that only a failed call's request carried, and that the
    person types again as `request` is left to `request`: it is sent once."""
    folder = os.path.join(history.records_dir(home), run_id)
    summary = history.read_run(folder, run_id, os.path.islink(folder))[0]
    if isinstance(summary, DamagedRun):
        raise CannotContinue(t("run {run_id} cannot be continued: {why}", run_id=run_id,
                               why=summary.why))
    if history.derived_status(summary) == RUNNING:
        raise CannotContinue(t("run {run_id} is still running; continue it once it has ended",
                               run_id=run_id))
    if not summary.calls:
        raise CannotContinue(t("run {run_id} sent nothing to the model, so there is no "
                               "conversation to continue; start a new run with -r TEXT",
                               run_id=run_id))
    last = summary.calls[-1]
    name = last.request
    if name is None or not _CALL_FILE.fullmatch(name) or "request" not in name:
        raise CannotContinue(t("run {run_id} cannot be continued: its summary names no request "
                               "file for its last call", run_id=run_id))
    body = _read(folder, name, run_id)
    if body is None:
        raise CannotContinue(t("run {run_id} cannot be continued: its last request ({name}) is "
                               "missing", run_id=run_id, name=name))
    messages, responses = _messages(body, name, run_id)
    reply = None
    if last.response is not None and _CALL_FILE.fullmatch(last.response):
        try:
            reply = _read(folder, last.response, run_id)
        except CannotContinue:
            reply = None  # an unreadable reply is left out, as a failed call's reply is
    carried = _last_reply(reply, responses, summary, run_id, last.response or "")
    unsent = _unsent_answers(summary, len(summary.calls), bool(carried))
    if request is not None and unsent and _same_words(unsent[-1]["content"], request):
        unsent.pop()  # typed again after it was carried: the new request says it
    if request is not None and not carried and messages and messages[-1].get("role") == "user" \
            and _same_words(str(messages[-1].get("content")), request):
        # The last call failed (a 429, a timeout) with the answer in its request: typed again,
        # the new request says it, once.
        messages.pop()
    return messages + carried + unsent


def _unsent_answers(summary: RunSummary, last: int, replied: bool) -> list[dict[str, Any]]:
    """The person's answers to the last reply that no request carried (the calls ran out, or
    the run ended before the next call), each exactly once (README "中文界面"). An answer that a
    later
    request carried belongs to an earlier call's number, so it is never added twice."""
    if not replied:
        return []
    return [{"role": "user", "content": step.text} for step in summary.steps
            if step.call == last and step.kind == "answer" and step.text]


def _same_words(answer: str, request: str) -> bool:
    """Whether `request` repeats `answer` (spaces around and between words aside)."""
    return " ".join(answer.split()) == " ".join(request.split())


def _read(folder: str, name: str, run_id: str) -> object | None:
    """A record file's JSON value; None when it does not exist; CannotContinue when unusable."""
    try:
        data = storage.read_regular_file(os.path.join(folder, name), REQUEST_LIMIT,
                                         follow_links=False)
        return strictjson.loads(data.decode("utf-8"))
    except FileNotFoundError:
        return None
    except (storage.FileRefused, strictjson.JSONRefused, UnicodeDecodeError) as error:
        why = t("is not UTF-8") if isinstance(error, UnicodeDecodeError) else _why(error, name)
        # A record file's name always ends in .json (_CALL_FILE): written into the template, so
        # a line such as "no summary.json" is never split at its space.
        raise CannotContinue(t("run {run_id} cannot be continued: {call}.json {why}",
                               run_id=run_id, call=name.removesuffix(".json"),
                               why=why)) from None
    except OSError as error:
        raise CannotContinue(t("run {run_id} cannot be continued: {name} cannot be read "
                               "({reason})", run_id=run_id, name=name,
                               reason=os_reason(error))) from None


def _why(error: Exception, name: str) -> str:
    text = str(error)
    # FileRefused names the whole path; the file's own name is enough beside the run ID.
    return text.split(f"{name} ", 1)[1] if f"{name} " in text else text


def _messages(body: object, name: str, run_id: str) -> tuple[list[dict[str, Any]], bool]:
    """The recorded request's messages after its system message; whether it was Responses."""
    damaged = _damaged(run_id, name)
    if not isinstance(body, dict):
        raise CannotContinue(damaged)
    responses = "input" in body and "messages" not in body
    if responses:
        from planner.model.responses_wire import messages_from_input

        items = body.get("input")
        if not isinstance(items, list):
            raise CannotContinue(damaged)
        for item in items:
            fault = _item_fault(item)
            if fault is not None:
                raise CannotContinue(damaged if not fault else _problem(run_id, name, fault))
        try:
            messages = messages_from_input(items)
        except ValueError as error:
            raise CannotContinue(_problem(run_id, name, str(error))) from None
    else:
        recorded = body.get("messages")
        if not isinstance(recorded, list):
            raise CannotContinue(damaged)
        # A Chat request never carries a Responses reply's items (protocol strips them).
        if not all(_is_message(message) and _OUTPUT_ITEMS not in message
                   for message in recorded):
            raise CannotContinue(damaged)
        messages = recorded
    # Exactly one system message, planner's own, and first: no other may speak as it.
    if not all(_is_message(message) for message in messages) or \
            [message["role"] for message in messages[:1]] != ["system"] or \
            any(message["role"] == "system" for message in messages[1:]):
        raise CannotContinue(damaged)
    return [dict(message) for message in messages[1:]], responses


def _damaged(run_id: str, name: str) -> str:
    return t("run {run_id} cannot be continued: {name} is not a request planner wrote",
             run_id=run_id, name=name)


def _problem(run_id: str, name: str, problem: str) -> str:
    return t("run {run_id} cannot be continued: {name}: {problem}", run_id=run_id, name=name,
             problem=problem)


def _is_message(message: object) -> bool:
    """A Chat-style message planner writes: its system message and the person's words (text),
    the model's replies (their calls as the reply gave them), the tools' results."""
    if not isinstance(message, dict):
        return False
    role = message.get("role")
    if role in ("system", "user"):
        return isinstance(message.get("content"), str)
    if role == "assistant":
        calls = message.get("tool_calls")
        return calls is None or isinstance(calls, list) and all(
            isinstance(call, dict) and isinstance(call.get("id"), str)
            and isinstance(call.get("function"), dict) for call in calls)
    if role == "tool":
        return isinstance(message.get("tool_call_id"), str)
    return False


def _item_fault(item: object) -> str | None:
    """None for a Responses input item planner sends; else "" (not planner's) or, for an item
    of a type planner never sends, the line that names it."""
    if not isinstance(item, dict):
        return ""
    kind, role = item.get("type"), item.get("role")
    if kind is None:
        # planner's own messages; an assistant's words from a continued Chat run.
        sent = role in ("system", "user", "assistant") and isinstance(item.get("content"), str)
    elif kind in ("message", "reasoning", "function_call"):
        # A reply's output items, sent back as they came: the assistant's, never another voice.
        sent = role in (None, "assistant")
    elif kind == "function_call_output":
        sent = role is None
    else:
        return t("an input item of type {kind} cannot be continued",
                 kind=json.dumps(kind)[:40])
    return None if sent else ""


def _last_reply(reply: object, responses: bool, summary: RunSummary, run_id: str,
                name: str) -> list[dict[str, Any]]:
    """The last reply as messages: its words, or its calls each answered by what happened."""
    if reply is None:
        return []
    turn = _turn(reply, responses)
    if turn is None:
        return []  # a failed call or a reply planner refused: the conversation ends before it
    for item in turn.message.get(_OUTPUT_ITEMS) or ():
        # Sent back as they came, so held to what a request may hold (README "A screen you can
        # trust").
        if _item_fault(item) is not None:
            raise CannotContinue(_problem(run_id, name, t(
                "an input item of type {kind} cannot be continued",
                kind=json.dumps(item.get("type") if isinstance(item, dict) else None)[:40])))
    if not turn.calls:
        return [turn.message] if turn.text is not None else []
    return [turn.message, *(tool_message(call.id, _result(call.id, summary.steps))
                            for call in turn.calls)]


def _turn(reply: object, responses: bool) -> Turn | None:
    try:
        if responses:
            from planner.model.responses_wire import parse_response

            return parse_response(reply)
        from planner.model.chat_wire import parse_reply

        return parse_reply(reply)
    except ReplyError:
        return None


def _result(call_id: str, steps: tuple[Step, ...]) -> dict[str, Any]:
    """What the earlier run really did with one call of its last reply, from its steps."""
    for index, step in enumerate(steps):
        if step.call_id != call_id:
            continue
        if step.kind in ("rejected", "refused"):
            return {"status": step.kind, "error": step.error}
        if step.kind == "proposal":
            return _decision(steps[index + 1:])
    return dict(NOT_RUN)


def _decision(after: tuple[Step, ...]) -> dict[str, Any]:
    """The person's decision on a proposal, with the change they asked for, if any."""
    for number, step in enumerate(after):
        if step.kind == "proposal":
            break
        if step.kind == "decision" and step.result is not None:
            result = step.result.to_json()
            following = after[number + 1] if number + 1 < len(after) else None
            if following is not None and following.kind == "feedback" and following.text:
                # Asked for, then not sent (no call was left): the model hears it now.
                result["feedback"] = following.text
            return result
    return dict(NOT_RUN)

