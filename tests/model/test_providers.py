"""The providers of README "Providers" through the real openai SDK and the local test server.

Each provider's replies (tests/provider_replies.py, sources cited there) are served by
tests/stub_server.py; LiveClient sends the first request, reads the reply into a Turn, and the
second request is built from `turn.message` and `tool_message` exactly as the turn loop does.
The request the server then received is checked against that provider's documented rules.
"""

from __future__ import annotations

import json

import provider_replies as replies
import pytest
from provider_replies import (
    PRESET,
    PROVIDERS,
    THINKING,
    Provider,
    check_assistant,
    received_message,
)
from stub_server import PLAN, Reply, StubServer

from planner.base import providers
from planner.base.config import ConfigError, Prices, parse_config
from planner.base.secrets import find_key
from planner.model.chat_wire import (
    ReplyError,
    Turn,
    calls_instead_of_text,
    parse_reply,
    tool_message,
)
from planner.model.client import LiveClient, ModelCallError
from planner.plans.plan import parse_arguments, tool_definition

KEY = "sk-provider-test-0123456789"
NOTES = ("N1", "N2", "N3")
SAVED = {"status": "saved", "path": "plans/20261005-000000-abcd.json"}


def client_for(name: str, server: StubServer) -> LiveClient:
    """A LiveClient configured by the case's preset, pointed at the local server."""
    config = parse_config({"provider": PRESET[name], "base_url": server.url + "/v1",
                           "timeout_seconds": 5, "max_tokens": 333, **THINKING.get(name, {})})
    key = find_key(config, None) if config.api_key_env is None else KEY
    return LiveClient(config, key)


def first_body(client: LiveClient) -> dict:
    """The shape of planner's first request (README "Live mode" step 2)."""
    config = client._config
    return {
        "model": config.model,
        "messages": [{"role": "system", "content": "You help plan reviews."},
                     {"role": "user", "content": "Review N1 and N2 on 2026-10-05, 20 min."}],
        "tools": [tool_definition(NOTES)],
        "tool_choice": "auto",
        "stream": False,
        "max_tokens": config.max_tokens,
        **config.extra_body,
    }


def send(client: LiveClient, body: dict) -> tuple[object, Turn]:
    """One call: the decoded body as received, and the turn read from it."""
    data = client.complete(body)
    return data, client.read_turn(data)


# --- proposal -> SAVE -> explanation, per provider ----------------------------------------------


@pytest.mark.parametrize("case", PROVIDERS.values(), ids=PROVIDERS.keys())
def test_proposal_save_explanation(case: Provider, server: StubServer) -> None:
    server.add(Reply(body=case.proposal), Reply(body=case.explanation))
    client = client_for(case.name, server)
    body = first_body(client)
    data, turn = send(client, body)

    # The response record is the body exactly as the provider sent it.
    assert data == case.proposal
    (call,) = turn.calls
    assert call.name == "save_review_plan"
    assert parse_arguments(call.arguments, NOTES).note_ids == tuple(PLAN["note_ids"])
    second = {**body, "messages": [*body["messages"], turn.message,
                                   tool_message(call.id, SAVED)], "tool_choice": "none"}
    data2, explained = send(client, second)

    assert data2 == case.explanation
    assert (explained.text, explained.calls, explained.finish) == (
        replies.EXPLANATION, (), "stop")
    first_seen, second_seen = (request.body for request in server.chat_requests())
    assert first_seen == body and second_seen == second
    assert second_seen["messages"][:2] == first_seen["messages"]
    assistant, result = second_seen["messages"][2:]
    check_assistant(case.name, assistant, case.proposal)
    assert result == {"role": "tool", "tool_call_id": call.id,
                      "content": json.dumps(SAVED, ensure_ascii=False)}
    assert [request.path for request in server.chat_requests()] == ["/v1/chat/completions"] * 2


@pytest.mark.parametrize("case", PROVIDERS.values(), ids=PROVIDERS.keys())
def test_question_and_the_answer_after_it(case: Provider, server: StubServer) -> None:
    server.add(Reply(body=case.question), Reply(body=case.explanation))
    client = client_for(case.name, server)
    body = first_body(client)
    data, turn = send(client, body)

    assert data == case.question
    assert (turn.text, turn.calls) == (replies.QUESTION, ())
    # The person's answer goes back after the model's own question (README "A conversation, not a
    # dead end").
    follow = {**body, "messages": [*body["messages"], turn.message,
                                   {"role": "user", "content": "2026-10-05"}]}
    send(client, follow)
    sent = server.chat_requests()[1].body["messages"][2]
    check_assistant(case.name, sent, case.question)
    got = received_message(case.question)["content"]
    # Mistral takes its own content chunks back; everyone else gets plain text.
    assert sent["content"] == (got if PRESET[case.name] == "mistral" else replies.QUESTION)


def test_mistral_thinking_chunks_are_reasoning_not_the_answer() -> None:
    turn = parse_reply(PROVIDERS["mistral"].question, "mistral")
    assert turn.text == replies.QUESTION
    assert turn.reasoning == replies.THOUGHT
    assert replies.THOUGHT not in turn.text


def test_mistral_list_content_goes_back_as_text_elsewhere() -> None:
    # The same chunks through a generic endpoint (e.g. a proxy) go back as plain text, which
    # every OpenAI-compatible server takes.
    turn = parse_reply(PROVIDERS["mistral"].question)
    assert turn.message == {"role": "assistant", "content": replies.QUESTION}


@pytest.mark.parametrize("name", ["deepseek-thinking", "moonshot", "ollama", "zhipu"])
def test_reasoning_is_never_the_answer(name: str) -> None:
    turn = parse_reply(PROVIDERS[name].proposal, PRESET[name])
    assert turn.reasoning == replies.THOUGHT and turn.text is None


# --- each provider's common errors ---------------------------------------------------------------

FAILURES = [(case.name, kind, failure) for case in PROVIDERS.values()
            for kind, failure in case.failures.items()]


@pytest.mark.parametrize(("name", "kind", "failure"), FAILURES,
                         ids=[f"{name}-{kind}" for name, kind, _ in FAILURES])
def test_provider_error_gets_the_right_advice(
    name: str, kind: str, failure: replies.Failure, server: StubServer
) -> None:
    server.add(Reply(failure.status, failure.body, dict(failure.headers)))
    client = client_for(name, server)
    with pytest.raises(ModelCallError) as caught:
        client.complete(first_body(client))
    line = str(caught.value)
    assert line.startswith(f"{failure.status}: ") and "\n" not in line
    for word in failure.words:
        assert word.lower() in line.lower(), (word, line)
    if kind in ("no_balance", "no_quota") and failure.status == 429:
        # No quota is not a wait-and-retry case, whatever the status says.
        assert "wait a moment" not in line
    # The record keeps the server's body as it came, and nothing is retried.
    assert caught.value.record["error"]["body"] == failure.body
    assert len(server.requests) == 1


def test_gemini_error_list_is_read_for_its_message(server: StubServer) -> None:
    failure = PROVIDERS["gemini"].failures["bad_key"]
    server.add(Reply(failure.status, failure.body))
    client = client_for("gemini", server)
    with pytest.raises(ModelCallError) as caught:
        client.complete(first_body(client))
    line = str(caught.value)
    assert "[{" not in line and '"error"' not in line
    assert caught.value.record["error"]["message"] == (
        "API key not valid. Please pass a valid API key.")
    # A 400 that means a bad key is not blamed on model or extra_body.
    assert "extra_body" not in line


# --- replies planner refuses, saying which and why -----------------------------------------------

MARKUP = {
    "vllm-qwen3-coder-xml": ("vllm", replies.VLLM_UNPARSED, "--tool-call-parser"),
    "vllm-hermes-text": ("vllm", replies.VLLM_HERMES_TEXT, "--enable-auto-tool-choice"),
    "vllm-mistral-markup": ("vllm", replies.MISTRAL_MARKUP_TEXT, "--tool-call-parser"),
    "lmstudio-tool-request": ("lmstudio", replies.LMSTUDIO_MARKUP_TEXT, "LM Studio"),
    "llamacpp-llama-json": ("llamacpp", replies.LLAMA_JSON_TEXT, "--jinja"),
    "ollama-llama-json": ("ollama", replies.LLAMA_JSON_TEXT, "update Ollama"),
    "generic-hermes-text": ("openai", replies.VLLM_HERMES_TEXT, "enable its tool parser"),
}


@pytest.mark.parametrize(("preset", "body", "hint"), MARKUP.values(), ids=MARKUP.keys())
def test_tool_markup_as_text_is_not_shown_as_a_question(
    preset: str, body: dict, hint: str, server: StubServer
) -> None:
    server.add(Reply(body=body))
    client = client_for(preset, server)
    data = client.complete(first_body(client))
    assert data == body
    with pytest.raises(ReplyError) as caught:
        client.read_turn(data)
    assert "the server did not parse the tool call" in str(caught.value)
    assert hint in str(caught.value)


@pytest.mark.parametrize("text", [
    "Which date should I use? Reply like {\"date\": \"YYYY-MM-DD\"}.",
    "Use the tool_call button? No: tell me the date.",
    '{"date": "2026-10-05"}',
])
def test_ordinary_questions_are_not_markup(text: str) -> None:
    turn = parse_reply(replies.text_body("m", text), "vllm")
    assert turn.text == text


ERRORS_IN_200 = {
    "openrouter-provider-error": ("openrouter", replies.OPENROUTER_ERROR_IN_200,
                                  ["502", "Provider returned error"]),
    "lmstudio-unknown-path": ("lmstudio", replies.LMSTUDIO_ERROR_IN_200,
                              ["Unexpected endpoint or method", "/v1"]),
}


@pytest.mark.parametrize(("preset", "body", "words"), ERRORS_IN_200.values(),
                         ids=ERRORS_IN_200.keys())
def test_error_inside_a_200_reply_is_reported_in_the_providers_words(
    preset: str, body: dict, words: list[str], server: StubServer
) -> None:
    server.add(Reply(body=body))
    client = client_for(preset, server)
    data = client.complete(first_body(client))
    assert data == body  # the record keeps it as received
    with pytest.raises(ReplyError) as caught:
        client.read_turn(data)
    line = str(caught.value)
    assert "no choices" not in line
    for word in words:
        assert word in line


def test_openrouter_error_inside_the_choice() -> None:
    # https://openrouter.ai/docs/api-reference/errors: finish_reason "error" with the error
    # in the choice when the model failed after it started.
    body = replies.text_body("openai/gpt-4.1-mini", "")
    body["choices"][0].update(finish_reason="error",
                              error={"code": 502, "message": "Upstream timed out"})
    with pytest.raises(ReplyError, match="Upstream timed out"):
        parse_reply(body, "openrouter")


STRICT = {
    "gemini-2.0-empty-id": ("gemini", replies.GEMINI_EMPTY_ID, ["no ID", "gemini-2.0"]),
    "llamacpp-no-id": ("llamacpp", replies.LLAMACPP_NO_ID, ["no ID", "update llama.cpp"]),
    "ollama-stop-with-calls": ("ollama", replies.OLLAMA_OLD_STOP,
                               ["finish_reason stop", "not run", "0.3.1"]),
    "openrouter-gemini3-stop": ("openrouter", replies.OPENROUTER_GEMINI_STOP,
                                ["finish_reason stop", "not run", "Gemini 3"]),
    "generic-stop-with-calls": ("openai", replies.OLLAMA_OLD_STOP,
                                ["finish_reason stop", "not run"]),
}


@pytest.mark.parametrize(("preset", "body", "words"), STRICT.values(), ids=STRICT.keys())
def test_calls_that_cannot_be_trusted_are_refused_with_the_reason(
    preset: str, body: dict, words: list[str], server: StubServer
) -> None:
    server.add(Reply(body=body))
    client = client_for(preset, server)
    with pytest.raises(ReplyError) as caught:
        client.read_turn(client.complete(first_body(client)))
    for word in words:
        assert word in str(caught.value)


def test_a_call_instead_of_an_explanation_is_named() -> None:
    turn = parse_reply(PROVIDERS["openai"].proposal)
    line = calls_instead_of_text(turn)
    assert "save_review_plan" in line and "tool_choice none" in line and "not run" in line


def test_mistral_call_without_type_is_a_function_call_only_for_mistral() -> None:
    body = PROVIDERS["mistral"].proposal
    (call,) = parse_reply(body, "mistral").calls
    assert call.id == "D681PevKs"
    with pytest.raises(ReplyError, match="type"):
        parse_reply(body)  # elsewhere a call must say it is a function


# --- the dialect follows the host when config.json names no provider ----------------------------


@pytest.mark.parametrize(("base_url", "expected"), [
    ("https://api.mistral.ai/v1", "mistral"),
    ("https://api.deepseek.com", "deepseek"),
    ("https://openrouter.ai/api/v1", "openrouter"),
    ("https://generativelanguage.googleapis.com/v1beta/openai/", "gemini"),
    ("https://api.moonshot.cn/v1", "moonshot"),
    ("https://open.bigmodel.cn/api/paas/v4/", "zhipu"),
    ("http://127.0.0.1:9/v1", None),
])
def test_provider_from_the_host(base_url: str, expected: str | None) -> None:
    assert providers.provider_for(None, base_url) == expected


def test_mistral_rules_apply_by_host_without_a_provider_key() -> None:
    config = parse_config({"base_url": "https://api.mistral.ai/v1", "model": "mistral-small"})
    client = LiveClient(config, KEY)
    turn = client.read_turn(PROVIDERS["mistral"].proposal)
    assert turn.message["content"] == ""


# --- presets in config.json ----------------------------------------------------------------------


@pytest.mark.parametrize("name", providers.PRESETS)
def test_every_preset_loads_and_fills_the_keys(name: str) -> None:
    preset = providers.PRESETS[name]
    config = parse_config({"provider": name})
    assert (config.provider, config.base_url, config.model) == (name, preset.base_url,
                                                                preset.model)
    assert config.api_key_env == preset.api_key_env
    assert config.extra_body == preset.extra_body
    assert config.prices == Prices(*preset.prices, model=preset.model)
    assert (config.api, config.max_tokens_field) == (preset.api, preset.max_tokens_field)


def test_keys_given_explicitly_win_over_the_preset() -> None:
    config = parse_config({
        "provider": "moonshot", "base_url": "https://api.moonshot.cn/v1", "model": "kimi-k2.6",
        "extra_body": {}, "prices": {"per_million_tokens": {"output": 2.5}},
    })
    assert config.base_url == "https://api.moonshot.cn/v1" and config.model == "kimi-k2.6"
    assert config.extra_body == {} and config.api_key_env == "MOONSHOT_API_KEY"
    # A partial price table starts from the preset's, not from DeepSeek's defaults.
    # Prices given without a model are for the model this config names.
    assert config.prices == Prices("USD", 0.10, 0.60, 2.5, "kimi-k2.6")


def test_unknown_provider_names_the_key_and_the_known_ones() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config({"provider": "openia"})
    line = str(caught.value)
    assert "'provider'" in line
    for name in providers.PRESETS:
        assert name in line


@pytest.mark.parametrize("value", [3, "", ["ollama"]])
def test_provider_must_be_a_name(value: object) -> None:
    with pytest.raises(ConfigError, match="'provider'"):
        parse_config({"provider": value})


def test_provider_null_is_no_preset() -> None:
    assert parse_config({"provider": None}) == parse_config({})


@pytest.mark.parametrize("name", ["ollama", "vllm", "llamacpp", "lmstudio"])
def test_local_servers_need_no_key_and_ask_for_none(name: str) -> None:
    config = parse_config({"provider": name})

    def ask(prompt: str) -> str:
        raise AssertionError(f"asked for a key: {prompt}")

    assert find_key(config, ask) == providers.PLACEHOLDER_KEY


def test_a_local_server_with_a_key_variable_uses_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # vllm serve --api-key: the key comes from the variable config.json names.
    monkeypatch.setenv("VLLM_API_KEY", "token-abc123")
    config = parse_config({"provider": "vllm", "api_key_env": "VLLM_API_KEY"})
    assert find_key(config, None) == "token-abc123"


def test_api_key_env_null_means_no_key() -> None:
    config = parse_config({"base_url": "http://127.0.0.1:8000/v1", "api_key_env": None})
    assert find_key(config, None) == providers.PLACEHOLDER_KEY


def test_the_placeholder_key_is_never_cut_out_of_replies(server: StubServer) -> None:
    # Anything shorter than a real key is no secret: "no-key" in the model's words stays.
    body = replies.text_body("qwen3:8b", "There is no-key step here; which date?")
    server.add(Reply(body=body))
    client = client_for("ollama", server)
    turn = client.read_turn(client.complete(first_body(client)))
    assert turn.text == "There is no-key step here; which date?"
    assert server.requests[0].headers["authorization"] == f"Bearer {providers.PLACEHOLDER_KEY}"
