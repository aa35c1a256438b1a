"""The Responses API behind the same client seam (README "Providers"), and the config that goes
with it.

The real openai SDK talks to tests/stub_server.py, which answers POST /responses with the
reply shapes cited in tests/provider_replies.py; whole runs go through run_flow with a scripted
person. Checked: the request is a Responses body (input items, flat tools, store false,
max_output_tokens, include), every reasoning and function_call item comes back unchanged in
the next request, results are paired by call_id, bad replies are refused like their Chat
Completions equivalents, usage is priced like Chat Completions usage, and the Responses code is
imported only when config asks for it.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, plan_body, read_summary, run_dirs
from people import ScriptedPerson, saying
from provider_replies import (
    CALL_ITEM,
    EXPLANATION,
    QUESTION,
    REASONING_ITEM,
    RESPONSES_BAD_ARGUMENTS,
    RESPONSES_EXPLANATION,
    RESPONSES_FAILED,
    RESPONSES_INCOMPLETE,
    RESPONSES_NO_CALL_ID,
    RESPONSES_PROPOSAL,
    RESPONSES_QUESTION,
    RESPONSES_UNKNOWN_ITEM,
    THOUGHT,
    responses_body,
)
from stub_server import PLAN, Reply, StubServer, error_body, message_item, response

from planner.base.config import Config, ConfigError, Prices, parse_config
from planner.conversation import protocol
from planner.conversation.flow import run_flow
from planner.conversation.protocol import build_request, first_messages, registry_for
from planner.model import costs, responses_wire
from planner.model.client import LiveClient, ModelCallError, ScriptedClient, config_fix, reply_usage
from planner.model.turns import ReplyError, tool_message
from planner.model.wire import RESPONSES
from planner.notes.catalog import SAMPLE_NOTES

KEY = "sk-responses-test-0123456789"
REQUEST = "Review N1 and N2 on 2026-10-05 for 20 minutes, title RAG basics"


def openai_config(server: StubServer, **fields: object) -> Config:
    """The OpenAI preset (Responses API) pointed at the local server."""
    return parse_config({"provider": "openai", "base_url": server.url + "/v1",
                         "timeout_seconds": 5, "max_tokens": 333, **fields})


def first_request(config: Config) -> dict:
    import datetime as dt

    messages = first_messages(REQUEST, SAMPLE_NOTES, dt.date(2026, 10, 1))
    return build_request(config, messages, registry_for(SAMPLE_NOTES), "auto")


def live_run(server: StubServer, home: Path, person: ScriptedPerson, **fields: object):
    config = openai_config(server, **fields)
    return run_flow(REQUEST, client=LiveClient(config, KEY), person=person, home=home,
                    config=config, notes=SAMPLE_NOTES, mode="live")


# --- the request -------------------------------------------------------------------------------


def test_the_openai_preset_sends_a_responses_body(server: StubServer) -> None:
    body = first_request(openai_config(server))
    assert list(body) == ["model", "input", "tools", "tool_choice", "stream", "store",
                          "max_output_tokens", "include", "reasoning"]
    assert body["model"] == "gpt-6-luna"
    system, user = body["input"]
    assert system["role"] == "system" and user == {"role": "user", "content": REQUEST}
    assert (body["store"], body["stream"], body["max_output_tokens"]) == (False, False, 333)
    assert body["include"] == ["reasoning.encrypted_content"]
    # reasoning_effort (the preset's, for Chat Completions) travels as reasoning.effort.
    assert body["reasoning"] == {"effort": "none"}
    # README "Review memory": both confirmed tools, flat as the Responses API has them.
    for tool, chat_tool in zip(body["tools"], registry_for(SAMPLE_NOTES).definitions(),
                               strict=True):
        function = chat_tool["function"]
        assert tool == {"type": "function", "name": function["name"],
                        "description": function["description"],
                        "parameters": function["parameters"], "strict": False}
    assert [tool["name"] for tool in body["tools"]] == ["save_review_plan",
                                                        "save_review_series", "save_study_plan"]
    assert body["tool_choice"] == "auto"
    assert protocol.endpoint(openai_config(server)) == "/responses"


def test_request_body_is_the_body_of_the_configured_api(server: StubServer) -> None:
    # --dry-run prints protocol.request_body: the very body a live run sends first.
    assert protocol.request_body is protocol.build_request
    chat = first_request(openai_config(server, api="chat"))
    assert "messages" in chat and "input" not in chat
    assert chat["max_completion_tokens"] == 333 and "max_tokens" not in chat
    assert chat["reasoning_effort"] == "none"
    assert protocol.endpoint(openai_config(server, api="chat")) == "/chat/completions"


def test_explicit_reasoning_wins_over_reasoning_effort(server: StubServer) -> None:
    body = first_request(openai_config(server, extra_body={
        "reasoning_effort": "none", "reasoning": {"effort": "low", "summary": "auto"}}))
    assert body["reasoning"] == {"effort": "low", "summary": "auto"}
    assert "reasoning_effort" not in body


def test_output_items_go_back_unchanged_and_results_pair_by_call_id() -> None:
    turn = responses_wire.parse_response(copy.deepcopy(RESPONSES_PROPOSAL))
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"},
                turn.message, tool_message(turn.calls[0].id, {"status": "saved"})]
    items = responses_wire.input_items(messages)
    assert items[2:4] == [REASONING_ITEM, CALL_ITEM]  # as received, encrypted content and all
    assert items[4] == {"type": "function_call_output", "call_id": CALL_ITEM["call_id"],
                        "output": '{"status": "saved"}'}
    # A recorded input reads back as the same conversation (to continue a run).
    assert responses_wire.input_items(responses_wire.messages_from_input(items)) == items


def test_a_chat_conversation_continues_over_responses() -> None:
    # Messages from a Chat Completions run: the assistant's calls become function_call items.
    messages = [{"role": "user", "content": "u"},
                {"role": "assistant", "content": "Let me save it.", "tool_calls": [
                    {"id": "call_9", "type": "function",
                     "function": {"name": "save_review_plan", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "call_9", "content": "{}"}]
    assert responses_wire.input_items(messages) == [
        {"role": "user", "content": "u"},
        {"role": "assistant", "content": "Let me save it."},
        {"type": "function_call", "call_id": "call_9", "name": "save_review_plan",
         "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_9", "output": "{}"}]


def test_a_responses_conversation_continues_over_chat(server: StubServer) -> None:
    turn = responses_wire.parse_response(RESPONSES_PROPOSAL)
    config = openai_config(server, api="chat")
    body = build_request(config, [{"role": "user", "content": "u"}, turn.message],
                         registry_for(SAMPLE_NOTES), "auto")
    assistant = body["messages"][1]
    assert responses_wire.OUTPUT_ITEMS not in assistant  # not a Chat Completions field
    assert assistant["tool_calls"][0]["id"] == CALL_ITEM["call_id"]


# --- reading a reply ----------------------------------------------------------------------------


def test_a_proposal_is_read_like_a_chat_tool_call() -> None:
    turn = responses_wire.parse_response(RESPONSES_PROPOSAL)
    (call,) = turn.calls
    assert (call.id, call.name, json.loads(call.arguments)) == (
        CALL_ITEM["call_id"], "save_review_plan", PLAN)
    assert (turn.text, turn.finish, turn.reasoning) == (None, "tool_calls", THOUGHT)
    assert turn.message[responses_wire.OUTPUT_ITEMS] == RESPONSES_PROPOSAL["output"]


def test_a_question_is_text_and_its_reasoning_is_not_the_answer() -> None:
    turn = responses_wire.parse_response(RESPONSES_QUESTION)
    assert (turn.text, turn.calls, turn.reasoning) == (QUESTION, (), THOUGHT)


BAD_REPLIES = {
    "incomplete": (RESPONSES_INCOMPLETE, [
        "cut off at max_tokens (status incomplete, max_output_tokens)",
        "raise max_tokens in config.json"]),
    "failed": (RESPONSES_FAILED, [
        "the server answered with an error server_error instead of a reply",
        "The model failed to generate a response."]),
    "unknown-item": (RESPONSES_UNKNOWN_ITEM, ['"web_search_call"', "nothing was run"]),
    "no-call-id": (RESPONSES_NO_CALL_ID, ["a tool call has no ID", "not run"]),
    "content-filter": (responses_body([], "incomplete",
                                      incomplete_details={"reason": "content_filter"}),
                       ["content filter"]),
    "in-progress": (responses_body([], "in_progress"), ['status "in_progress"']),
    "error-object": (responses_body([], "completed", error={
        "code": "rate_limit_exceeded", "message": "Slow down."}), ["Slow down."]),
    "two-calls-one-id": (responses_body([CALL_ITEM, {**CALL_ITEM, "id": "fc_2"}]),
                         ["share one ID"]),
    "call-cut-short": (responses_body([{**CALL_ITEM, "status": "incomplete"}]),
                       ["not run", "raise max_tokens"]),
    "markup-as-text": (responses_body([message_item(
        '<tool_call>\n{"name": "save_review_plan", "arguments": {}}\n</tool_call>')]),
        ["did not parse the tool call"]),
    "not-an-object": ([], ["not a Responses object"]),
    "no-output": ({**RESPONSES_PROPOSAL, "output": None}, ["no output list"]),
}


@pytest.mark.parametrize(("body", "words"), BAD_REPLIES.values(), ids=BAD_REPLIES.keys())
def test_bad_replies_are_refused_saying_why(body: object, words: list[str]) -> None:
    with pytest.raises(ReplyError) as caught:
        responses_wire.parse_response(body)
    line = str(caught.value)
    assert "\n" not in line
    for word in words:
        assert word in line, (word, line)


def test_a_refusal_is_shown_as_the_models_words() -> None:
    body = responses_body([{"id": "msg_1", "type": "message", "role": "assistant",
                            "status": "completed",
                            "content": [{"type": "refusal", "refusal": "I can't help."}]}])
    assert responses_wire.parse_response(body).text == "I can't help."


# --- whole runs through the real SDK and the local server ----------------------------------------


def test_proposal_save_explanation_over_responses(server: StubServer, home: Path) -> None:
    server.add(Reply(body=RESPONSES_PROPOSAL), Reply(body=RESPONSES_EXPLANATION))
    outcome = live_run(server, home, saying(True))

    assert (outcome.status, outcome.exit_code, outcome.error) == ("complete", 0, None)
    assert outcome.explanation == EXPLANATION
    relative = f"plans/{outcome.run_id}.json"
    assert plan_body(home / relative) == {"simulated": False, "plan": PLAN}
    first, second = server.requests
    assert [first.path, second.path] == ["/v1/responses"] * 2
    assert first.headers["authorization"] == f"Bearer {KEY}"
    one, two = first.body, second.body
    assert (one["tool_choice"], two["tool_choice"]) == ("auto", "none")
    assert one["store"] is False and two["store"] is False
    assert one["include"] == two["include"] == ["reasoning.encrypted_content"]
    assert one["max_output_tokens"] == two["max_output_tokens"] == 333
    # The second request: the first input, then the reply's output items exactly as received,
    # then the result paired with the call by call_id.
    assert two["input"][:2] == one["input"]
    reasoning, call, result = two["input"][2:]
    assert reasoning == REASONING_ITEM and call == CALL_ITEM
    assert result == {"type": "function_call_output", "call_id": CALL_ITEM["call_id"],
                      "output": json.dumps({"status": "saved", "path": relative})}
    (folder,) = run_dirs(home)
    # The records keep both bodies: each request exactly as sent, each reply as received.
    for number, (sent, received) in enumerate(zip(server.requests,
                                                  (RESPONSES_PROPOSAL, RESPONSES_EXPLANATION),
                                                  strict=True), start=1):
        assert json.loads((folder / f"0{number}-request.json").read_text()) == sent.body
        assert json.loads((folder / f"0{number}-response.json").read_text()) == received
    summary = read_summary(folder)
    assert [step["kind"] for step in summary["steps"]] == ["proposal", "decision", "explanation"]


def test_a_question_then_no_answer_is_no_plan(server: StubServer, home: Path) -> None:
    server.add(Reply(body=RESPONSES_QUESTION))
    person = ScriptedPerson([""])
    outcome = live_run(server, home, person)
    assert (outcome.status, outcome.exit_code, outcome.question) == ("no_tool", 0, QUESTION)
    shown = [event.text for event in person.events if type(event).__name__ == "ModelText"]
    assert shown == [QUESTION] and THOUGHT not in QUESTION
    assert len(server.requests) == 1 and not (home / "plans").exists()


def test_the_answer_to_a_question_follows_the_models_own_items(
    server: StubServer, home: Path
) -> None:
    server.add(Reply(body=RESPONSES_QUESTION), Reply(body=RESPONSES_PROPOSAL),
               Reply(body=RESPONSES_EXPLANATION))
    outcome = live_run(server, home, ScriptedPerson(["2026-10-05\n", "SAVE\n"]))
    assert outcome.status == "complete"
    second = server.requests[1].body["input"]
    assert second[2:] == [*RESPONSES_QUESTION["output"],
                          {"role": "user", "content": "2026-10-05"}]
    third = server.requests[2].body["input"]
    assert third[:len(second)] == second  # the whole conversation, every item unchanged


def test_malformed_arguments_are_repaired_like_chat(server: StubServer, home: Path) -> None:
    server.add(Reply(body=RESPONSES_BAD_ARGUMENTS), Reply(body=RESPONSES_PROPOSAL),
               Reply(body=RESPONSES_EXPLANATION))
    outcome = live_run(server, home, saying(True))
    assert outcome.status == "complete"
    rejected = server.requests[1].body["input"][-1]
    assert rejected["type"] == "function_call_output"
    assert rejected["call_id"] == CALL_ITEM["call_id"]
    sent = json.loads(rejected["output"])
    assert sent["status"] == "rejected" and sent["error"].startswith("arguments: ")
    assert server.requests[1].body["input"][-2] == RESPONSES_BAD_ARGUMENTS["output"][-1]


@pytest.mark.parametrize(("body", "words"), [
    (RESPONSES_INCOMPLETE, "cut off at max_tokens"),
    (RESPONSES_FAILED, "server_error"),
    (RESPONSES_UNKNOWN_ITEM, "web_search_call"),
    (RESPONSES_NO_CALL_ID, "no ID"),
], ids=["incomplete", "failed", "unknown-item", "no-call-id"])
def test_a_bad_reply_stops_the_run_with_one_line_and_saves_nothing(
    server: StubServer, home: Path, body: dict, words: str
) -> None:
    server.add(Reply(body=body))
    person = saying(True)
    outcome = live_run(server, home, person)
    assert outcome.exit_code == 1 and words in (outcome.error or "")
    assert "\n" not in outcome.error
    assert person.prompts == [] and not (home / "plans").exists()
    (folder,) = run_dirs(home)
    assert json.loads((folder / "01-response.json").read_text()) == body


def test_a_server_without_the_responses_api_says_the_fix(server: StubServer) -> None:
    config = parse_config({"provider": "openai", "base_url": server.url + "/v2",
                           "timeout_seconds": 5})
    with pytest.raises(ModelCallError) as caught:
        LiveClient(config, KEY).complete(first_request(config))
    line = str(caught.value)
    assert line.startswith("404: not found") and 'set "api": "chat"' in line


def test_a_server_error_over_responses_keeps_the_chat_advice(server: StubServer) -> None:
    server.add(Reply(500, error_body("The server had an error", "server_error")))
    config = openai_config(server)
    with pytest.raises(ModelCallError, match="^500: the server failed or is overloaded"):
        LiveClient(config, KEY).complete(first_request(config))


def test_the_key_is_cut_out_of_a_responses_reply(server: StubServer) -> None:
    server.add(Reply(body=responses_body([message_item(f"Your key is {KEY}.")])))
    config = openai_config(server)
    client = LiveClient(config, KEY)
    assert client.read_turn(client.complete(first_request(config))).text == "Your key is ***."


# --- usage feeds costs like Chat Completions usage -----------------------------------------------


def test_responses_usage_is_priced_like_chat_usage() -> None:
    usage = reply_usage(RESPONSES_PROPOSAL)
    assert usage == {"prompt_tokens": 812, "completion_tokens": 46, "total_tokens": 858,
                     "prompt_tokens_details": {"cached_tokens": 768},
                     "completion_tokens_details": {"reasoning_tokens": 31}}
    assert costs.split_usage(usage) == (768, 44, 46)
    tally = costs.Tally()
    tally.add_call(usage)
    # gpt-6-luna: 768 * 0.01 + 44 * 0.10 + 46 * 0.50 per million tokens.
    assert tally.cost(parse_config({"provider": "openai"}).prices) == 0.00003508


@pytest.mark.parametrize("usage", [
    None, {}, {"input_tokens": 10}, {"input_tokens": -1, "output_tokens": 5},
    {"input_tokens": 10**400, "output_tokens": 5},
    {"input_tokens": 10, "output_tokens": 5, "input_tokens_details": {"cached_tokens": 11}},
    {"input_tokens": "10", "output_tokens": 5},
], ids=["null", "empty", "no-output", "negative", "huge", "cached-over-input", "text"])
def test_broken_responses_usage_is_unknown_never_zero(usage: object) -> None:
    split = costs.split_usage(reply_usage({"object": "response", "usage": usage}))
    assert split is None


def test_chat_usage_is_returned_as_received() -> None:
    usage = {"prompt_tokens": 5, "completion_tokens": 2, "prompt_cache_hit_tokens": 1,
             "prompt_cache_miss_tokens": 4}
    assert reply_usage({"usage": usage}) is usage


def test_a_scripted_model_can_speak_responses() -> None:
    client = ScriptedClient([RESPONSES_QUESTION], wire=RESPONSES)
    assert client.read_turn(client.complete({})).text == QUESTION


# --- "say the fix" -------------------------------------------------------------------------------


@pytest.mark.parametrize(("said", "fix"), [
    ("Unsupported parameter: 'max_tokens' is not supported with this model. Use "
     "'max_completion_tokens' instead.", '"max_tokens_field": "max_completion_tokens"'),
    ("Function tools with reasoning_effort are not supported for gpt-5.4 in "
     "/v1/chat/completions. Please use /v1/responses instead.", '"api": "responses"'),
    ("Unrecognized request argument supplied: max_completion_tokens",
     '"max_tokens_field": "max_tokens"'),
])
def test_the_400s_that_need_a_config_change_name_it(said: str, fix: str) -> None:
    found = config_fix(said)
    assert found is not None and fix in found[1]


def test_other_400s_get_no_config_fix() -> None:
    assert config_fix("Invalid 'messages[1].content': string too long.") is None


# --- presets, fields and prices ------------------------------------------------------------------


def test_config_keys_of_section_18() -> None:
    assert (Config().api, Config().max_tokens_field) == ("chat", "max_tokens")
    config = parse_config({"api": "responses", "max_tokens_field": "max_completion_tokens"})
    assert (config.api, config.max_tokens_field) == ("responses", "max_completion_tokens")
    with pytest.raises(ConfigError, match="""'api' must be "chat" or "responses\""""):
        parse_config({"api": "Responses"})
    with pytest.raises(ConfigError, match="'max_tokens_field' must be"):
        parse_config({"max_tokens_field": "max_output_tokens"})
    for field in ("max_completion_tokens", "input", "store", "include", "max_output_tokens"):
        with pytest.raises(ConfigError, match=f"extra_body.{field}' is set by planner"):
            parse_config({"extra_body": {field: 1}})


def test_the_anthropic_preset_is_the_compatibility_layer() -> None:
    config = parse_config({"provider": "anthropic"})
    assert (config.base_url, config.api_key_env, config.model, config.api) == (
        "https://api.anthropic.com/v1/", "ANTHROPIC_API_KEY", "claude-haiku-5-5", "chat")
    assert "not production" in __import__("planner.base.providers").base.providers.PRESETS[
        "anthropic"].setup


def test_prices_belong_to_the_model_they_name() -> None:
    # A local model with the default prices is never priced at DeepSeek's rates.
    local = parse_config({"base_url": "http://localhost:8080/v1", "model": "llama3.1:8b"})
    assert not local.prices.applies_to(local.model)
    # The model decides, not the base URL: a local test server for the same model is priced.
    proxy = parse_config({"provider": "deepseek", "base_url": "http://127.0.0.1:9/v1"})
    assert proxy.prices.applies_to(proxy.model)
    # A preset's prices are for its model only.
    other = parse_config({"provider": "openai", "model": "gpt-6-astra"})
    assert other.prices.model == "gpt-6-luna" and not other.prices.applies_to("gpt-6-astra")
    # Prices in config.json without a model are for the model config names ...
    own = parse_config({"model": "llama3.1:8b", "prices": {"per_million_tokens": {
        "input_cache_hit": 0, "input_cache_miss": 0, "output": 0}}})
    assert own.prices == Prices("USD", 0, 0, 0, "llama3.1:8b")
    # ... and with one, for that model.
    named = parse_config({"prices": {"model": "deepseek-v4-pro"}})
    assert not named.prices.applies_to(named.model)
    assert not Prices().applies_to(None)


# --- imported only when used ---------------------------------------------------------------------


def test_chat_runs_never_import_the_responses_code() -> None:
    code = ("import sys, datetime\n"
            "from planner.base.config import Config\n"
            "from planner.conversation.protocol import build_request, first_messages, "
            "registry_for\n"
            "from planner.notes.catalog import SAMPLE_NOTES\n"
            "from planner.model.client import reply_usage\n"
            "m = first_messages('x', SAMPLE_NOTES, datetime.date(2026, 1, 1))\n"
            "build_request(Config(), m, registry_for(SAMPLE_NOTES), 'auto')\n"
            "reply_usage({'usage': {'prompt_tokens': 1, 'completion_tokens': 1}})\n"
            "print('planner.model.responses_wire' in sys.modules)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT, timeout=60)
    assert result.stdout.strip() == "False", result.stderr


def test_help_imports_neither_keyring_nor_the_responses_code() -> None:
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "planner", "--help"],
                            capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    imported = {line.split("|")[-1].strip() for line in result.stderr.splitlines()
                if line.startswith("import time:")}
    assert "planner.cli.app" in imported or "planner" in imported
    assert not {"keyring", "planner.base.secrets", "planner.model.responses_wire"} & imported


def test_the_stub_answers_responses_requests_only_on_their_paths(server: StubServer) -> None:
    server.add(Reply(body=response([message_item("hi")])))
    config = openai_config(server)
    client = LiveClient(config, KEY)
    assert client.read_turn(client.complete(first_request(config))).text == "hi"
    assert [r.path for r in server.responses_requests()] == ["/v1/responses"]
    assert server.chat_requests() == []


def test_a_responses_run_is_priced_in_its_summary(server: StubServer, home: Path) -> None:
    server.add(Reply(body=RESPONSES_PROPOSAL), Reply(body=RESPONSES_EXPLANATION))
    outcome = live_run(server, home, saying(True))
    assert outcome.status == "complete"
    summary = read_summary(run_dirs(home)[0])
    assert [costs.split_usage(call["usage"]) for call in summary["calls"]] == [
        (768, 44, 46), (768, 44, 46)]
    assert outcome.tally is not None and outcome.tally.unknown_calls == 0
