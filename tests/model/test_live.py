"""Live mode (issue 3): the real openai SDK talking HTTP to a local scripted server.

Most cases call run_flow() with a LiveClient (fast); a representative few run the real
`planner --request` in a subprocess: in a pseudo-terminal (pexpect) for the SAVE and hidden key
prompts, or with no terminal at all (stdin closed, new session, so /dev/tty cannot be opened).
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import (
    ROOT,
    all_files,
    env_with,
    plan_body,
    read_summary,
    run_dirs,
    run_planner,
    today,
)
from live_model import (
    CLI_TIMEOUT,
    EXPLANATION,
    FUTURE,
    GOOD_PLAN,
    KEY,
    KEY_ENV,
    MAX_TOKENS,
    MODEL,
    REQUEST,
    SLOW,
    USAGE_1,
    USAGE_2,
    closed_port_url,
    explanation,
    one_line,
    plain,
    plan_files,
    proposal,
    run_cli,
    spawn_cli,
    wait_for,
    write_config,
)
from people import saying
from run_records import record_files
from stub_server import (
    Reply,
    StubServer,
    completion,
    error_body,
    text_reply,
    tool_call,
    tool_call_reply,
)
from terminal import finish

from planner.cli.run import timetable_for
from planner.conversation.events import ConfirmRequest, Outcome
from planner.conversation.flow import run_flow
from planner.model.client import LiveClient, ModelCallError
from planner.notes.catalog import SAMPLE_NOTES

PAST = (today() - dt.timedelta(days=1)).isoformat()
SMALL_TIMEOUT = 0.5  # seconds; the delayed replies wait much longer than this


@pytest.fixture
def stub_server():
    """A scripted Chat Completions server on 127.0.0.1, stopped after the test."""
    with StubServer() as server:
        yield server


# --- helpers -----------------------------------------------------------------------------------


@dataclass
class LiveRun:
    """What one run_flow() call left behind."""

    outcome: Outcome
    views: list[ConfirmRequest]
    folder: Path
    summary: dict
    results: list[dict] = field(default_factory=list)

    def record(self, name: str) -> object:
        return json.loads((self.folder / name).read_text(encoding="utf-8"))

    def files(self) -> list[str]:
        return record_files(self.folder)


def live_run(
    server: StubServer | None,
    home: Path,
    *replies: Reply,
    answer: bool = True,
    base_url: str | None = None,
    request: str = REQUEST,
    key: str = KEY,
    timetable: bool = False,
    **config: object,
) -> LiveRun:
    """Queue replies, then run the whole live flow once with the real SDK client."""
    if server is not None:
        server.add(*replies)
    settings = write_config(home, base_url or server.url, **config)
    # A cancel is followed by an empty line at "What should change?": no feedback.
    person = saying(answer)
    outcome = run_flow(
        request,
        client=LiveClient(settings, key),
        person=person,
        home=home,
        config=settings,
        notes=SAMPLE_NOTES,
        mode="live",
        # As the command line runs it: study hours, free_slots (README "Your week").
        timetable=timetable_for(settings, home, "live", today()) if timetable else None,
    )
    (folder,) = run_dirs(home)
    results = [event.result for event in person.events if type(event).__name__ == "Result"]
    return LiveRun(outcome, person.views, folder, read_summary(folder), results)


def assert_key_nowhere(home: Path, *outputs: str) -> None:
    """The sentinel key is in no output and in no file under home."""
    for output in outputs:
        assert KEY not in output
    for path in all_files(home):
        assert KEY.encode() not in path.read_bytes(), path


# --- the happy path ------------------------------------------------------------------------------


def test_saved_run_records_every_step(stub_server: StubServer, home: Path) -> None:
    run = live_run(stub_server, home, proposal(), explanation())
    outcome, summary = run.outcome, run.summary

    assert (outcome.status, outcome.exit_code, outcome.error) == ("complete", 0, None)
    assert outcome.explanation == EXPLANATION
    relative = f"plans/{outcome.run_id}.json"
    assert [p.relative_to(home).as_posix() for p in plan_files(home)] == [relative]
    assert plan_body(home / relative) == {"simulated": False, "plan": GOOD_PLAN}
    assert run.files() == [
        "01-request.json", "01-response.json", "02-request.json", "02-response.json",
        "summary.json",
    ]
    assert run.results == [{"status": "saved", "path": relative}]
    assert summary["mode"] == "live" and summary["simulated"] is False
    assert (summary["status"], summary["stage"], summary["error"]) == ("complete", "done", None)
    assert summary["model"] == MODEL and summary["base_url"] == stub_server.url
    assert summary["approved"] is True and summary["plan"] == GOOD_PLAN
    assert summary["target"] == relative
    assert summary["tool_result"] == {"status": "saved", "path": relative}
    calls = summary["calls"]
    assert [call["usage"] for call in calls] == [USAGE_1, USAGE_2]
    for number, call in enumerate(calls, start=1):
        assert call["request"] == f"{number:02d}-request.json"
        assert call["response"] == f"{number:02d}-response.json"
        assert type(call["duration_ms"]) is int and call["duration_ms"] >= 0
        assert dt.datetime.fromisoformat(call["started_at"]).tzinfo is not None
        assert call["error"] is None
    assert run.record("01-response.json") == tool_call_reply(GOOD_PLAN, usage_data=USAGE_1)
    assert run.record("02-response.json") == text_reply(EXPLANATION, usage_data=USAGE_2)
    # Records and plans may hold personal notes: private files and folders.
    assert ((home / relative).stat().st_mode & 0o777) == 0o600
    assert (run.folder.stat().st_mode & 0o777) == 0o700
    for path in run.folder.iterdir():
        assert (path.stat().st_mode & 0o777) == 0o600, path


def test_first_request_is_exactly_what_the_server_received(
    stub_server: StubServer, home: Path
) -> None:
    run = live_run(stub_server, home, proposal(), explanation(),
                   extra_body={"thinking": {"type": "disabled"}})
    first, second = stub_server.chat_requests()
    assert len(stub_server.requests) == 2
    assert first.path == "/chat/completions"
    assert first.headers["authorization"] == f"Bearer {KEY}"
    body = first.body
    assert run.record("01-request.json") == body
    assert body["model"] == MODEL
    assert body["tool_choice"] == "auto"
    assert body["stream"] is False
    assert body["max_tokens"] == MAX_TOKENS
    # extra_body lands at the top level of the JSON body, not nested under "extra_body".
    assert body["thinking"] == {"type": "disabled"}
    assert "extra_body" not in body and "response_format" not in body
    # README "Review memory": the series tool is offered beside the plan tool.
    assert [tool["function"]["name"] for tool in body["tools"]] == [
        "save_review_plan", "save_review_series", "save_study_plan"]
    system, user = body["messages"]
    assert system["role"] == "system" and today().isoformat() in system["content"]
    assert user == {"role": "user", "content": REQUEST}
    assert run.record("02-request.json") == second.body


def test_second_request_sends_the_proposal_and_the_real_result(
    stub_server: StubServer, home: Path
) -> None:
    call = tool_call(GOOD_PLAN, call_id="call_Abc123")
    proposed = {"role": "assistant", "content": "Saving it now.", "tool_calls": [call]}
    reply = Reply(body=completion(proposed, "tool_calls", usage_data=USAGE_1))
    run = live_run(stub_server, home, reply, explanation(),
                   extra_body={"thinking": {"type": "disabled"}})

    first, second = (request.body for request in stub_server.chat_requests())
    assert second["tool_choice"] == "none"
    assert second["stream"] is False and second["max_tokens"] == MAX_TOKENS
    assert second["thinking"] == {"type": "disabled"}
    assert second["messages"][:2] == first["messages"]
    assistant, tool = second["messages"][2:]
    assert assistant == proposed
    assert tool["role"] == "tool" and tool["tool_call_id"] == "call_Abc123"
    assert json.loads(tool["content"]) == run.summary["tool_result"]
    assert json.loads(tool["content"]) == {
        "status": "saved", "path": f"plans/{run.outcome.run_id}.json",
    }


def test_dry_run_prints_the_body_live_mode_sends(stub_server: StubServer, home: Path) -> None:
    live_run(stub_server, home, proposal(), explanation(), timetable=True)
    result = run_cli("--dry-run", "--request", REQUEST, key=None)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == stub_server.requests[0].body


@pytest.mark.parametrize(
    ("suffix", "path"),
    [("/", "/chat/completions"), ("/v1", "/v1/chat/completions"),
     ("/v1/", "/v1/chat/completions")],
)
def test_base_url_path_is_kept(
    suffix: str, path: str, stub_server: StubServer, home: Path
) -> None:
    base_url = stub_server.url + suffix
    run = live_run(stub_server, home, proposal(), explanation(), base_url=base_url)
    assert run.outcome.status == "complete"
    assert [request.path for request in stub_server.requests] == [path] * 2
    assert run.summary["base_url"] == base_url


def test_extra_body_can_be_empty(stub_server: StubServer, home: Path) -> None:
    run = live_run(stub_server, home, proposal(), explanation(), extra_body={})
    assert run.outcome.status == "complete"
    for request in stub_server.chat_requests():
        assert "thinking" not in request.body
    assert run.record("01-request.json") == stub_server.requests[0].body


def test_missing_usage_is_recorded_as_unknown(stub_server: StubServer, home: Path) -> None:
    body = tool_call_reply(GOOD_PLAN)
    del body["usage"]
    run = live_run(stub_server, home, Reply(body=body), explanation())
    assert run.outcome.status == "complete"
    assert [call["usage"] for call in run.summary["calls"]] == [None, USAGE_2]


def test_cancel_sends_cancelled_and_saves_nothing(stub_server: StubServer, home: Path) -> None:
    run = live_run(stub_server, home, proposal(), explanation("Nothing was saved."), answer=False)
    assert (run.outcome.status, run.outcome.exit_code) == ("complete", 0)
    assert plan_files(home) == []
    assert run.summary["approved"] is False
    assert run.summary["tool_result"] == {"status": "cancelled"}
    assert run.summary["target"] is None
    tool = stub_server.chat_requests()[1].body["messages"][-1]
    assert tool["role"] == "tool" and tool["tool_call_id"] == "call_0001"
    assert json.loads(tool["content"]) == {"status": "cancelled"}
    assert len(stub_server.requests) == 2


def test_text_answer_ends_the_run_without_a_tool(stub_server: StubServer, home: Path) -> None:
    question = "Which date should I use for the review?"
    run = live_run(stub_server, home, Reply(body=text_reply(question, usage_data=USAGE_1)))
    assert (run.outcome.status, run.outcome.exit_code) == ("no_tool", 0)
    assert run.outcome.question == question
    assert run.views == []
    assert len(stub_server.requests) == 1
    assert (run.summary["status"], run.summary["stage"]) == ("no_tool", "done")
    assert run.summary["calls"][0]["usage"] == USAGE_1
    assert run.files() == ["01-request.json", "01-response.json", "summary.json"]
    assert plan_files(home) == []


def test_confirmation_gets_the_checked_plan_and_past_date(
    stub_server: StubServer, home: Path
) -> None:
    plan = {**GOOD_PLAN, "title": "  RAG basics\u3000", "date": PAST}
    run = live_run(stub_server, home, proposal(plan), explanation(), answer=False)
    (view,) = run.views
    assert view.plan.title == "RAG basics" and view.plan.date.isoformat() == PAST
    assert view.date_in_past is True
    assert [note.id for note in view.notes] == ["N1", "N2"]
    assert view.target == home / f"plans/{run.outcome.run_id}.json"


# --- the first call fails -----------------------------------------------------------------------


@dataclass
class Failure:
    """One way the first call can fail, and what the records must then say."""

    replies: list[Reply]
    words: list[str]  # each must appear in the error line (case-insensitive)
    record: dict | None = None  # a subset of 01-response.json; None: the reply body itself
    config: dict = field(default_factory=dict)
    refused: bool = False  # base_url points to a closed port: no request arrives

    @property
    def call_failed(self) -> bool:
        """The HTTP call itself failed (as opposed to a reply that failed the checks)."""
        return self.record is not None


def http_error(status: int, message: str, *words: str, **headers: str) -> Failure:
    reply = Reply(status, error_body(message, "server_error" if status >= 500 else "error"))
    reply.headers.update(headers)
    record = {"error": {"kind": "http_status", "status": status, "message": message}}
    return Failure([reply], [str(status), message, *words], record)


def bad_reply(body: object, *words: str) -> Failure:
    return Failure([Reply(body=body)], list(words))


def bad_proposal(*words: str, plan: object = None, **fields: object) -> Failure:
    body = tool_call_reply(GOOD_PLAN if plan is None else plan, usage_data=USAGE_1, **fields)
    return Failure([Reply(body=body)], list(words))


def _choice(message: dict | None = None) -> dict:
    message = message or {"role": "assistant", "content": "Hi"}
    return {"index": 0, "message": message, "finish_reason": "stop"}


def _without_choices() -> dict:
    body = text_reply("Hi")
    del body["choices"]
    return body


HTML = "<html><body><h1>Welcome to nginx!</h1></body></html>"

FIRST_CALL_FAILURES = {
    "401-wrong-key": http_error(
        401, "Authentication Fails, Your api key is invalid", "api key was refused", KEY_ENV
    ),
    "402-no-balance": http_error(402, "Insufficient Balance", "no balance"),
    "400-bad-request": http_error(400, "Model Not Exist", "rejected the request"),
    "422-bad-request": http_error(
        422, "Failed to deserialize the JSON body into the target type", "rejected the request"
    ),
    "429-rate-limit": http_error(
        429, "Rate limit reached for requests", "rate limit", "wait", **{"retry-after": "0"}
    ),
    "500-server-error": http_error(500, "Internal server error", "server failed"),
    "503-overloaded": http_error(
        503, "Server overloaded, please try again later", "overloaded", "try again later"
    ),
    "502-html-error-page": Failure(
        [Reply(502, HTML, {"content-type": "text/html"})],
        ["502", "server failed", "welcome to nginx"],
        {"error": {"kind": "http_status", "status": 502, "body": HTML}},
    ),
    "timeout": Failure(
        [Reply(body=tool_call_reply(GOOD_PLAN), delay=SLOW)],
        [f"did not answer within {SMALL_TIMEOUT:g} s", "timeout_seconds"],
        {"error": {"kind": "timeout"}},
        config={"timeout_seconds": SMALL_TIMEOUT},
    ),
    "connection-refused": Failure(
        [], ["could not reach", "base_url"], {"error": {"kind": "connection"}}, refused=True
    ),
    "connection-dropped": Failure(
        [Reply(drop=True)], ["could not reach", "disconnected"], {"error": {"kind": "connection"}}
    ),
    "not-json-html": Failure(
        [Reply(200, HTML, {"content-type": "text/html"})],
        ["not json", "base_url"],
        {"error": {"kind": "not_json", "status": 200, "body_text": HTML}},
    ),
    "not-json-broken-json": Failure(
        [Reply(200, b'{"choices": [', {"content-type": "application/json"})],
        ["not json"],
        {"error": {"kind": "not_json", "status": 200, "body_text": '{"choices": ['}},
    ),
    "several-choices": bad_reply(completion(choices=[_choice(), _choice()]), "2 choices"),
    "no-choices-key": bad_reply(_without_choices(), "no choices"),
    "empty-choices": bad_reply(completion(choices=[]), "no choices"),
    "reply-is-a-json-list": bad_reply([text_reply("Hi")], "no choices"),
    "empty-body": Failure(
        [Reply(200, b"", {"content-type": "application/json"})],
        ["not json"],
        {"error": {"kind": "not_json", "status": 200, "body_text": ""}},
    ),
    "null-choices": bad_reply({**text_reply("Hi"), "choices": None}, "no choices"),
    "empty-text-reply": bad_reply(text_reply(""), "empty reply"),
    "arguments-not-a-string": bad_proposal(
        "arguments", "json text",
        calls=[tool_call() | {"function": {"name": "save_review_plan", "arguments": GOOD_PLAN}}],
    ),
    "arguments-invalid-json": bad_proposal("arguments", "not valid json", plan='{"title": '),
    "empty-call-id": bad_proposal("no id", call_id=""),
    "call-type-not-function": bad_proposal("type", "function", call_type="custom"),
    "unknown-function": bad_proposal(
        "is not a tool offered here", "delete_all_plans", name="delete_all_plans"
    ),
    "finish-length": bad_proposal("max_tokens", "length", finish_reason="length"),
    "finish-length-text": bad_reply(
        text_reply("Sure, I will sched", finish_reason="length"), "max_tokens"
    ),
    "finish-content-filter": bad_reply(
        text_reply("", finish_reason="content_filter"), "content filter"
    ),
    "finish-unexpected": bad_proposal(
        "unexpected finish_reason", "function_call", finish_reason="function_call"
    ),
    "finish-null": bad_proposal("unexpected finish_reason", finish_reason=None),
    "finish-stop-with-tool-call": bad_proposal("stop", "tool calls", finish_reason="stop"),
    "two-tool-calls": bad_proposal(
        "only one save_review_plan call",
        calls=[tool_call(GOOD_PLAN, call_id="call_a"), tool_call(GOOD_PLAN, call_id="call_b")],
    ),
    "zero-tool-calls": bad_proposal("unexpected finish_reason", calls=[]),
    "minutes-a-string": bad_proposal("minutes", "integer", plan={**GOOD_PLAN, "minutes": "20"}),
    "extra-approved-field": bad_proposal(
        "approved", "not an allowed field", plan={**GOOD_PLAN, "approved": True}
    ),
    "unknown-note": bad_proposal("note_ids", "N9", plan={**GOOD_PLAN, "note_ids": ["N9"]}),
}


def _is_subset(expected: object, actual: object) -> bool:
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and _is_subset(value, actual[key]) for key, value in expected.items()
        )
    return expected == actual


@pytest.mark.parametrize("case", FIRST_CALL_FAILURES.values(), ids=FIRST_CALL_FAILURES.keys())
def test_first_call_failure_stops_the_run(
    case: Failure, stub_server: StubServer, home: Path
) -> None:
    base_url = closed_port_url() if case.refused else None
    run = live_run(stub_server, home, *case.replies, base_url=base_url, **case.config)
    outcome, summary = run.outcome, run.summary

    assert (outcome.status, outcome.exit_code) == ("stopped", 1)
    error = outcome.error
    assert error and "\n" not in error and "Traceback" not in error
    for word in case.words:
        assert word.lower() in error.lower()
    assert (summary["status"], summary["stage"], summary["error"]) == (
        "stopped", "requesting", error,
    )
    assert summary["plan"] is None and summary["approved"] is None
    assert summary["tool_result"] is None and summary["target"] is None
    assert run.views == [] and run.results == []
    # No retry: the one failed call is the only one.
    assert len(stub_server.requests) == (0 if case.refused else 1)
    (call,) = summary["calls"]
    assert type(call["duration_ms"]) is int
    assert run.files() == ["01-request.json", "01-response.json", "summary.json"]
    response = run.record("01-response.json")
    if case.call_failed:
        assert call["error"] == error and call["usage"] is None
        assert _is_subset(case.record, response), response
    else:
        assert call["error"] is None
        assert response == case.replies[0].body
    assert plan_files(home) == []


# 401 through the CLI: test_key_echoed_by_the_server_is_never_shown_or_saved.
CLI_FAILURES = ["503-overloaded", "timeout", "connection-refused", "minutes-a-string"]


@pytest.mark.slow
@pytest.mark.parametrize("name", CLI_FAILURES)
def test_cli_first_call_failure_exits_1_with_one_line(
    name: str, stub_server: StubServer, home: Path
) -> None:
    case = FIRST_CALL_FAILURES[name]
    stub_server.add(*case.replies)
    write_config(home, closed_port_url() if case.refused else stub_server.url, **case.config)
    result = run_cli("--request", REQUEST)

    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    (folder,) = run_dirs(home)
    summary = read_summary(folder)
    assert summary["status"] == "stopped"
    # The person sees the summary's own message, on one line, once.
    error_lines = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert error_lines == [f"Error: {summary['error']}"], result.stderr
    assert len(stub_server.requests) == (0 if case.refused else 1)
    assert plan_files(home) == []


# --- the second call fails ----------------------------------------------------------------------


SECOND_CALL_FAILURES = {
    "500-server-error": ([Reply(500, error_body("Internal server error"))], ["500"], {}),
    "timeout": (
        [Reply(body=text_reply(EXPLANATION), delay=SLOW)],
        ["did not answer"],
        {"timeout_seconds": SMALL_TIMEOUT},
    ),
    "connection-dropped": ([Reply(drop=True)], ["could not reach"], {}),
    "tool-calls-again": (
        [Reply(body=tool_call_reply(GOOD_PLAN, call_id="call_again"))],
        ["another tool call"],
        {},
    ),
    "text-with-tool-calls": (
        [Reply(body=completion(
            {"role": "assistant", "content": "Saved.", "tool_calls": [tool_call(GOOD_PLAN)]},
            "stop",
        ))],
        ["not run"],
        {},
    ),
    "empty-content": ([Reply(body=text_reply(""))], ["empty explanation"], {}),
    "null-content": (
        [Reply(body=completion({"role": "assistant", "content": None}, "stop"))],
        ["empty explanation"],
        {},
    ),
    "finish-length": (
        [Reply(body=text_reply("The plan was", finish_reason="length"))],
        ["max_tokens"],
        {},
    ),
    "several-choices": (
        [Reply(body=completion(choices=[_choice(), _choice()]))], ["2 choices"], {}
    ),
}


@pytest.mark.parametrize(
    ("replies", "words", "config"), SECOND_CALL_FAILURES.values(), ids=SECOND_CALL_FAILURES.keys()
)
def test_second_call_failure_keeps_the_saved_plan(
    replies: list[Reply], words: list[str], config: dict, stub_server: StubServer, home: Path
) -> None:
    run = live_run(stub_server, home, proposal(), *replies, **config)
    outcome, summary = run.outcome, run.summary
    relative = f"plans/{outcome.run_id}.json"

    assert (outcome.status, outcome.exit_code) == ("stopped", 1)
    for word in words:
        assert word.lower() in outcome.error.lower()
    assert "\n" not in outcome.error
    assert (summary["status"], summary["stage"], summary["error"]) == (
        "stopped", "explaining", outcome.error,
    )
    # Nothing is undone: the plan stays saved and the record still says so.
    assert plan_body(home / relative) == {"simulated": False, "plan": GOOD_PLAN}
    assert summary["approved"] is True and summary["target"] == relative
    assert summary["tool_result"] == {"status": "saved", "path": relative}
    assert outcome.tool_result == {"status": "saved", "path": relative}
    assert outcome.explanation is None
    # No third call.
    assert len(stub_server.requests) == 2
    assert len(summary["calls"]) == 2
    assert "02-response.json" in run.files()


def test_second_call_failure_after_cancel_stays_cancelled(
    stub_server: StubServer, home: Path
) -> None:
    run = live_run(
        stub_server, home, proposal(), Reply(503, error_body("Server overloaded")), answer=False
    )
    assert (run.outcome.status, run.outcome.exit_code) == ("stopped", 1)
    assert run.summary["tool_result"] == {"status": "cancelled"}
    assert run.summary["approved"] is False
    assert plan_files(home) == []
    assert len(stub_server.requests) == 2


# --- the real command line -----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.terminal
def test_cli_save_in_a_terminal(stub_server: StubServer, home: Path) -> None:
    stub_server.add(proposal(), explanation())
    write_config(home, stub_server.url)
    child, seen = spawn_cli("--request", REQUEST)
    child.expect_exact("Type SAVE to save this plan; anything else cancels:")
    shown = one_line("".join(seen))
    assert "RAG basics" in shown and FUTURE in shown and "in the past" not in shown
    child.sendline("SAVE")
    assert finish(child) == 0
    output = plain("".join(seen))

    (folder,) = run_dirs(home)
    summary = read_summary(folder)
    relative = f"plans/{summary['run_id']}.json"
    assert summary["status"] == "complete"
    assert summary["tool_result"] == {"status": "saved", "path": relative}
    # No start was proposed: the first free one, 19:00 on an empty day (README "Your week").
    assert plan_body(home / relative) == {"simulated": False,
                                          "plan": {**GOOD_PLAN, "start": "19:00"}}
    # The program's own result comes before anything the model says.
    saved_at = output.index(f"Saved to {relative}")
    assert saved_at < output.index("Model explanation") < output.index(EXPLANATION[:30])
    assert len(stub_server.requests) == 2
    assert_key_nowhere(home, output)


@pytest.mark.slow
@pytest.mark.terminal
def test_cli_second_call_failure_reports_the_save_first(
    stub_server: StubServer, home: Path
) -> None:
    stub_server.add(proposal(), Reply(500, error_body("Internal server error")))
    write_config(home, stub_server.url)
    child, seen = spawn_cli("--request", REQUEST)
    child.expect_exact("Type SAVE to save this plan")
    child.sendline("SAVE")
    assert finish(child) == 1
    output = plain("".join(seen))
    (folder,) = run_dirs(home)
    relative = f"plans/{folder.name}.json"
    assert (home / relative).is_file()
    failure = (f"Error: The plan is saved in {relative}; only the model's explanation failed "
               "(500: ")
    # The error line wraps between words at the terminal's width (README "中文界面"): read as one
    # line.
    output = " ".join(output.split())
    assert output.index(f"Saved to {relative}") < output.index(failure)
    assert "Do not run again, or you will have two plans." in output
    assert "Traceback" not in output
    assert len(stub_server.requests) == 2


@pytest.mark.slow
@pytest.mark.terminal
def test_cli_past_date_is_shown_with_a_warning(stub_server: StubServer, home: Path) -> None:
    stub_server.add(proposal({**GOOD_PLAN, "date": PAST}), explanation("Nothing was saved."))
    write_config(home, stub_server.url)
    child, seen = spawn_cli("--request", "Review N1 and N2 yesterday for 20 minutes")
    child.expect_exact("Type SAVE to save this plan")
    shown = one_line("".join(seen))
    assert f"Date {PAST} (" in shown
    assert f"warning: this date is in the past (today is {today().isoformat()})" in shown
    child.sendline("no")
    child.expect_exact("What should change? (Enter to finish): ")
    child.sendline("")
    assert finish(child) == 0
    assert "Cancelled: nothing saved." in "".join(seen)
    assert plan_files(home) == []


@pytest.mark.slow
def test_cli_without_terminal_cancels(stub_server: StubServer, home: Path) -> None:
    stub_server.add(proposal(), explanation("Nothing was saved."))
    write_config(home, stub_server.url)
    result = run_cli("--request", REQUEST)
    assert result.returncode == 0, result.stderr
    assert "No terminal to confirm on: treated as cancel." in result.stdout
    assert result.stdout.index("Cancelled: nothing saved.") < result.stdout.index(
        "Nothing was saved."
    )
    summary = read_summary(run_dirs(home)[0])
    assert (summary["status"], summary["approved"]) == ("complete", False)
    tool = stub_server.chat_requests()[1].body["messages"][-1]
    assert json.loads(tool["content"]) == {"status": "cancelled"}
    assert plan_files(home) == []
    assert_key_nowhere(home, result.stdout, result.stderr)


@pytest.mark.slow
def test_cli_text_answer_exits_0(stub_server: StubServer, home: Path) -> None:
    stub_server.add(Reply(body=text_reply("Which date should I use?")))
    write_config(home, stub_server.url)
    result = run_cli("--request", "Review N1 sometime")
    assert result.returncode == 0, result.stderr
    assert "Model reply (no plan proposed)" in result.stdout
    assert "Which date should I use?" in result.stdout
    assert read_summary(run_dirs(home)[0])["status"] == "no_tool"
    assert len(stub_server.requests) == 1
    assert plan_files(home) == []


# --- the API key --------------------------------------------------------------------------------


def test_missing_key_without_terminal_exits_2(stub_server: StubServer, home: Path) -> None:
    write_config(home, stub_server.url)
    result = run_cli("--request", REQUEST, key=None)
    assert result.returncode == 2
    assert KEY_ENV in result.stderr and "Traceback" not in result.stderr
    assert stub_server.requests == []
    assert all_files(home) == [home / "config.json"]


def test_missing_key_names_the_configured_variable(stub_server: StubServer, home: Path) -> None:
    write_config(home, stub_server.url, api_key_env="STUB_PROVIDER_KEY")
    result = run_cli("--request", REQUEST, key=None, env_extra={KEY_ENV: KEY})
    assert result.returncode == 2
    assert "STUB_PROVIDER_KEY" in result.stderr
    assert stub_server.requests == []


@pytest.mark.slow
@pytest.mark.terminal
def test_hidden_key_prompt_in_a_terminal(stub_server: StubServer, home: Path) -> None:
    stub_server.add(proposal(), explanation())
    write_config(home, stub_server.url)
    child, seen = spawn_cli("--request", REQUEST, key=None)
    child.expect_exact(f"{KEY_ENV} (input hidden): ")
    child.sendline(KEY)
    child.expect_exact("Type SAVE to save this plan")
    child.sendline("SAVE")
    assert finish(child) == 0
    # The key reached the server but was never echoed, printed or written.
    assert [r.headers["authorization"] for r in stub_server.requests] == [f"Bearer {KEY}"] * 2
    assert_key_nowhere(home, "".join(seen))
    assert len(plan_files(home)) == 1


@pytest.mark.slow
@pytest.mark.terminal
def test_empty_hidden_key_exits_2(stub_server: StubServer, home: Path) -> None:
    write_config(home, stub_server.url)
    child, seen = spawn_cli("--request", REQUEST, key=None)
    child.expect_exact(f"{KEY_ENV} (input hidden): ")
    child.sendline("")
    assert finish(child) == 2
    # The person was asked: the line says no key was typed, never "run in a terminal".
    said = one_line("".join(seen))
    assert (f"Error: no key was typed at the prompt; set {KEY_ENV} in the environment, "
            "api_key_cmd in config.json, or store one with `planner key set`") in said
    assert "run in a terminal" not in said
    assert stub_server.requests == []
    assert not (home / "tool-records").exists()


ECHOING_401 = Reply(
    401, error_body(f"Authentication Fails, Your api key: {KEY} is invalid", "authentication_error")
)


@pytest.mark.slow
def test_key_echoed_by_the_server_is_never_shown_or_saved(
    stub_server: StubServer, home: Path
) -> None:
    stub_server.add(ECHOING_401)
    write_config(home, stub_server.url)
    result = run_cli("--request", REQUEST)
    assert result.returncode == 1
    summary = read_summary(run_dirs(home)[0])
    error_lines = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert error_lines == [f"Error: {summary['error']}"], result.stderr
    assert "401" in summary["error"] and "Authentication Fails" in summary["error"]
    assert "***" in summary["error"]
    assert_key_nowhere(home, result.stdout, result.stderr)
    assert len(stub_server.requests) == 1


def test_key_echoed_by_the_server_is_scrubbed_in_run_flow(
    stub_server: StubServer, home: Path
) -> None:
    run = live_run(stub_server, home, ECHOING_401)
    assert run.outcome.exit_code == 1 and KEY not in run.outcome.error
    assert "401" in run.outcome.error
    assert_key_nowhere(home)


@pytest.mark.parametrize("key", ["sk-t\u00e9st-0123456789", "sk-\uff21\uff22\uff23-0123456789"])
def test_non_ascii_key_stops_with_a_clear_line(
    key: str, stub_server: StubServer, home: Path
) -> None:
    # A key typed with an input method on (full-width letters) cannot go in a header.
    run = live_run(stub_server, home, proposal(), explanation(), key=key)
    assert (run.outcome.status, run.outcome.exit_code) == ("stopped", 1)
    assert "HTTP header" in run.outcome.error and KEY_ENV in run.outcome.error
    assert run.summary["error"] == run.outcome.error
    assert stub_server.requests == []
    assert run.record("01-response.json") == {"error": {"kind": "invalid_key"}}
    for path in all_files(home):
        assert key not in path.read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.terminal
def test_cli_non_ascii_key_typed_at_the_prompt(stub_server: StubServer, home: Path) -> None:
    write_config(home, stub_server.url)
    child, seen = spawn_cli("--request", REQUEST, key=None)
    child.expect_exact(f"{KEY_ENV} (input hidden): ")
    child.sendline("sk-\uff21\uff22\uff23-0123456789")
    assert finish(child) == 1
    output = one_line("".join(seen))
    assert "Traceback" not in output and "HTTP header" in output
    assert stub_server.requests == []


@pytest.mark.parametrize("key", ["x", "none", "EMPTY"])
def test_placeholder_key_of_a_local_server_changes_nothing(
    key: str, stub_server: StubServer, home: Path
) -> None:
    # Local servers take any key; a short placeholder is no secret and must not be cut out
    # of the replies (it would turn "Linux" into "Linu***" in the plan the person confirms).
    plan = {**GOOD_PLAN, "title": "Linux: none of the EMPTY index tricks"}
    first = tool_call_reply(plan, usage_data=USAGE_1)
    run = live_run(stub_server, home, Reply(body=first), explanation(), key=key)
    assert run.outcome.status == "complete"
    assert run.outcome.plan.title == plan["title"]
    assert run.record("01-response.json") == first
    saved = json.loads((home / run.summary["tool_result"]["path"]).read_text(encoding="utf-8"))
    assert saved["plan"] == plan


def test_key_echoed_in_a_successful_reply_is_scrubbed(
    stub_server: StubServer, home: Path
) -> None:
    run = live_run(stub_server, home, proposal(), explanation(f"Your key {KEY} worked."))
    assert run.outcome.explanation == "Your key *** worked."
    assert_key_nowhere(home)


def test_key_echoed_with_escaped_slashes_is_scrubbed(
    stub_server: StubServer, home: Path
) -> None:
    # Some servers write "/" as "\/" in JSON; the key must not survive in that form either.
    key = "sk-SENTINEL/0123456789+abcdef="
    message = f"Invalid key {key}".replace("/", "\\/")
    raw = ('{"error": {"message": "' + message + '", "type": "authentication_error"}}').encode()
    reply = Reply(401, raw, {"content-type": "application/json"})
    run = live_run(stub_server, home, reply, key=key)
    assert run.outcome.exit_code == 1 and key not in run.outcome.error
    for path in all_files(home):
        assert key not in json.dumps(json.loads(path.read_text(encoding="utf-8"))), path


NON_FINITE = {
    "nan-usage": ('"prompt_tokens": 812', '"prompt_tokens": NaN'),
    "infinity-usage": ('"completion_tokens": 46', '"completion_tokens": Infinity'),
    "overflowing-number": ('"completion_tokens": 46', '"completion_tokens": 1e400'),
}


@pytest.mark.parametrize(("old", "new"), NON_FINITE.values(), ids=NON_FINITE.keys())
def test_reply_with_non_finite_numbers_is_not_json(
    old: str, new: str, stub_server: StubServer, home: Path
) -> None:
    # NaN and Infinity are not JSON: kept, they would make the records unreadable elsewhere.
    text = json.dumps(tool_call_reply(GOOD_PLAN, usage_data=USAGE_1)).replace(old, new)
    assert new in text
    reply = Reply(200, text.encode(), {"content-type": "application/json"})
    run = live_run(stub_server, home, reply)
    assert (run.outcome.status, run.outcome.exit_code) == ("stopped", 1)
    assert "not JSON" in run.outcome.error
    for path in all_files(home):
        json.loads(path.read_text(encoding="utf-8"), parse_constant=_refuse)
    assert plan_files(home) == []


@pytest.mark.parametrize("depth", [900, 100_000])
def test_deeply_nested_reply_stops_cleanly(
    depth: int, stub_server: StubServer, home: Path
) -> None:
    # Python's json gives up (RecursionError) long before 100 000 levels; no traceback either way.
    text = '{"choices": ' + "[" * depth + "]" * depth + "}"
    run = live_run(stub_server, home, Reply(200, text, {"content-type": "application/json"}))
    assert (run.outcome.status, run.outcome.exit_code) == ("stopped", 1)
    assert "not JSON" in run.outcome.error
    assert len(stub_server.requests) == 1
    assert run.record("01-response.json")["error"]["kind"] == "not_json"


def _refuse(name: str) -> None:
    raise AssertionError(f"{name} written to a record")


@pytest.mark.parametrize("base_url", ["https://[::1", "http://127.0.0.1:80a"])
def test_unparsable_base_url_is_a_config_error(base_url: str, home: Path) -> None:
    (home / "config.json").write_text(json.dumps({"base_url": base_url}), encoding="utf-8")
    result = run_cli("--request", REQUEST)
    assert "Traceback" not in result.stderr
    assert result.returncode == 2
    assert "base_url" in result.stderr
    assert not (home / "tool-records").exists()


# --- Ctrl+C ------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.terminal
def test_ctrl_c_at_the_hidden_key_prompt(stub_server: StubServer, home: Path) -> None:
    write_config(home, stub_server.url)
    child, seen = spawn_cli("--request", REQUEST, key=None)
    child.expect_exact(f"{KEY_ENV} (input hidden): ")
    child.sendintr()
    assert finish(child) == 130
    assert "Traceback" not in "".join(seen)
    assert stub_server.requests == []
    assert not (home / "tool-records").exists()


@pytest.mark.slow
@pytest.mark.terminal
def test_ctrl_c_while_waiting_for_the_model(stub_server: StubServer, home: Path) -> None:
    stub_server.add(Reply(body=tool_call_reply(GOOD_PLAN), delay=SLOW))
    write_config(home, stub_server.url)
    child, seen = spawn_cli("--request", REQUEST)
    wait_for(lambda: len(stub_server.requests) == 1)
    child.sendintr()
    assert finish(child) == 130
    assert "Traceback" not in "".join(seen)
    summary = read_summary(run_dirs(home)[0])
    assert summary["status"] == "stopped" and "interrupted" in summary["error"]
    assert summary["tool_result"] is None
    assert len(stub_server.requests) == 1
    assert plan_files(home) == []


@pytest.mark.slow
@pytest.mark.terminal
def test_ctrl_c_at_the_save_prompt(stub_server: StubServer, home: Path) -> None:
    stub_server.add(proposal(), explanation())
    write_config(home, stub_server.url)
    child, seen = spawn_cli("--request", REQUEST)
    child.expect_exact("Type SAVE to save this plan")
    child.sendintr()
    assert finish(child) == 130
    assert "Traceback" not in "".join(seen)
    summary = read_summary(run_dirs(home)[0])
    assert summary["status"] == "stopped" and "interrupted" in summary["error"]
    # Nothing saved and no explanation asked for.
    assert len(stub_server.requests) == 1
    assert plan_files(home) == []


@pytest.mark.slow
@pytest.mark.terminal
def test_ctrl_c_while_waiting_for_the_explanation(stub_server: StubServer, home: Path) -> None:
    stub_server.add(proposal(), Reply(body=text_reply(EXPLANATION), delay=SLOW))
    write_config(home, stub_server.url)
    child, seen = spawn_cli("--request", REQUEST)
    child.expect_exact("Type SAVE to save this plan")
    child.sendline("SAVE")
    wait_for(lambda: len(stub_server.requests) == 2)
    child.sendintr()
    assert finish(child) == 130
    assert "Traceback" not in "".join(seen)
    summary = read_summary(run_dirs(home)[0])
    relative = f"plans/{summary['run_id']}.json"
    # Interrupted after the write: the plan stays saved and the record says so.
    assert summary["status"] == "stopped" and "interrupted" in summary["error"]
    assert summary["tool_result"] == {"status": "saved", "path": relative}
    assert (home / relative).is_file()
    assert len(stub_server.requests) == 2


# --- the stub server as a process (the benchmark runs it this way) ------------------------------


def _start_server_process(*args: str):
    """tests/stub_server.py as a process (stopped by SIGTERM, else SIGKILL, and waited for)."""
    import stub_server

    return stub_server.ServerProcess(*args)


def test_server_process_bench_mode_answers_by_tool_choice(home: Path) -> None:
    with _start_server_process("--bench") as process:
        url = process.url
        for number in range(3):
            run_home = home / f"run{number}"
            run_home.mkdir()
            run = live_run(None, run_home, base_url=url, answer=False)
            assert (run.outcome.status, run.outcome.exit_code) == ("complete", 0)
            assert run.summary["tool_result"] == {"status": "cancelled"}
        assert process.stop() == 0


def test_server_process_script_mode_loops(home: Path, tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([
        {"body": tool_call_reply(GOOD_PLAN)},
        {"status": 503, "body": error_body("Server overloaded")},
    ]), encoding="utf-8")
    with _start_server_process("--script", str(script), "--loop") as process:
        url = process.url
        client = LiveClient(write_config(home, url), KEY)
        replies = []
        for _ in range(4):
            try:
                replies.append(client.complete({"model": MODEL, "messages": []})["choices"])
            except ModelCallError as error:
                replies.append(error.record["error"]["status"])
        assert [reply if reply == 503 else "choices" for reply in replies] == [
            "choices", 503, "choices", 503,
        ]
        assert process.stop() == 0


# --- start-up: only the live path imports openai ------------------------------------------------

_IMPORT_PROBE = """
import sys
sys.argv = ["planner", *sys.argv[1:]]
from planner.cli.app import main
try:
    main()
except SystemExit:
    pass
print("OPENAI_IMPORTED=" + str("openai" in sys.modules))
"""


def _imports_openai(*args: str, key: str | None = None) -> bool:
    env = env_with(**({KEY_ENV: key} if key else {}))
    env["PYTHONPATH"] = str(ROOT)
    result = run_planner(*args, command=[sys.executable, "-c", _IMPORT_PROBE], env=env,
                         timeout=CLI_TIMEOUT)
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("OPENAI_IMPORTED="), result.stdout + result.stderr
    return last == "OPENAI_IMPORTED=True"


@pytest.mark.parametrize("args", [["--help"], ["--dry-run"], ["--demo"]], ids=lambda a: a[0])
def test_offline_paths_do_not_import_openai(args: list[str], home: Path) -> None:
    assert _imports_openai(*args) is False


@pytest.mark.slow
def test_live_path_imports_openai(stub_server: StubServer, home: Path) -> None:
    stub_server.add(proposal(), explanation())
    write_config(home, stub_server.url)
    assert _imports_openai("--request", REQUEST, key=KEY) is True
    assert len(stub_server.requests) == 2
