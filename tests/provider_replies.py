"""Reply shapes each provider really sends, with where each shape comes from.

Every body below follows a reply published by the provider (its API reference or guide) or
captured from its API in a public issue thread (cited beside it): field names, nesting, ID
formats, finish reasons, error codes and messages are theirs. Only the tool (save_review_plan),
its arguments and the token counts are ours. tests/test_providers.py serves them with the real
SDK through tests/stub_server.py.
"""

from __future__ import annotations

import json
from typing import NamedTuple

from stub_server import PLAN

ARGUMENTS = json.dumps(PLAN, ensure_ascii=False)
EXPLANATION = "Saved: review N1 and N2 on 2026-10-05 for 20 minutes."
QUESTION = "Which date should the review be on?"
THOUGHT = "The person named N1 and N2, a date, 20 minutes and a title: call save_review_plan."


class Failure(NamedTuple):
    """An HTTP error as the provider sends it, and words the advice must contain."""

    status: int
    body: object
    words: tuple[str, ...]
    source: str
    headers: dict = {}


class Provider(NamedTuple):
    """One provider's replies for the proposal -> SAVE -> explanation path and a question."""

    name: str
    proposal: dict
    explanation: dict
    question: dict
    failures: dict[str, Failure]
    sources: tuple[str, ...]


def _usage(prompt: int = 812, completion: int = 46, **extra: object) -> dict:
    return {"prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion, **extra}


def _body(model: str, message: dict, finish: str, **extra: object) -> dict:
    """A chat.completion body in the common layout; `extra` adds the provider's own fields."""
    body = {"id": extra.pop("id", "chatcmpl-9f2c1a"), "object": "chat.completion",
            "created": 1_790_000_000, "model": model,
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": finish, **extra.pop("choice", {})}],
            "usage": extra.pop("usage", _usage())}
    body.update(extra)
    return body


def _call(call_id: str, **extra: object) -> dict:
    return {"id": call_id, "type": "function",
            "function": {"name": "save_review_plan", "arguments": ARGUMENTS}, **extra}


# --- DeepSeek ------------------------------------------------------------------------------------
# Thinking mode: reasoning_content beside content and tool_calls, tool call IDs "call_00_...",
# usage with the cache split: https://api-docs.deepseek.com/guides/thinking_mode (tool-call
# example) and https://api-docs.deepseek.com/api/create-chat-completion (response schema).
# Errors: https://api-docs.deepseek.com/quick_start/error_codes ; 402 body captured in
# danilofalcao/jarvis#62; the 400 for a dropped reasoning_content in posit-dev/chatlas#287.
_DS_USAGE = _usage(812, 46, prompt_tokens_details={"cached_tokens": 768},
                   completion_tokens_details={"reasoning_tokens": 31},
                   prompt_cache_hit_tokens=768, prompt_cache_miss_tokens=44)


def _deepseek(thinking: bool) -> Provider:
    reasoning = {"reasoning_content": THOUGHT} if thinking else {}
    message = {"role": "assistant", "content": "", **reasoning,
               "tool_calls": [_call("call_00_Xo9uyc6Ke2mGsnlVcQFkVlB4", index=0)]}
    text = {"role": "assistant", "content": EXPLANATION, **reasoning}
    ask = {"role": "assistant", "content": QUESTION, **reasoning}
    extra = {"system_fingerprint": "fp_eaab8d114b_prod0820_fp8_kvcache", "usage": _DS_USAGE}
    return Provider(
        "deepseek-thinking" if thinking else "deepseek",
        _body("deepseek-v4-flash", message, "tool_calls", **extra),
        _body("deepseek-v4-flash", text, "stop", **extra),
        _body("deepseek-v4-flash", ask, "stop", **extra),
        {
            "bad_key": Failure(401, {"error": {
                "message": "Authentication Fails, Your api key: ****abcd is invalid",
                "type": "authentication_error", "param": None, "code": "invalid_request_error"}},
                ("api key was refused", "DEEPSEEK_API_KEY"),
                "https://api-docs.deepseek.com/quick_start/error_codes"),
            "no_balance": Failure(402, {"error": {
                "message": "Insufficient Balance", "type": "unknown_error", "param": None,
                "code": "invalid_request_error"}},
                ("no balance", "top it up"), "danilofalcao/jarvis#62"),
            "rate_limit": Failure(429, {"error": {
                "message": "Rate Limit Reached", "type": "rate_limit_error", "param": None,
                "code": "invalid_request_error"}},
                ("rate limit", "wait"), "https://api-docs.deepseek.com/quick_start/error_codes"),
            "bad_request": Failure(400, {"error": {
                "message": "The `reasoning_content` in the thinking mode must be passed back "
                           "to the API.",
                "type": "invalid_request_error", "param": None,
                "code": "invalid_request_error"}},
                ("rejected the request", "reasoning_content"), "posit-dev/chatlas#287"),
        },
        ("https://api-docs.deepseek.com/guides/thinking_mode",
         "https://api-docs.deepseek.com/api/create-chat-completion"),
    )


# --- OpenAI --------------------------------------------------------------------------------------
# https://platform.openai.com/docs/api-reference/chat/object (refusal, annotations, call IDs
# "call_..."), https://platform.openai.com/docs/guides/error-codes (401 invalid_api_key, 429
# "You exceeded your current quota, please check your plan and billing details" with type and
# code insufficient_quota, 429 "Rate limit reached for requests").
def _openai() -> Provider:
    def message(**fields: object) -> dict:
        return {"role": "assistant", "content": None, "refusal": None, "annotations": [],
                **fields}

    extra = {"id": "chatcmpl-CJ8wq0XyZ", "service_tier": "default",
             "system_fingerprint": "fp_6f2eabb9a5",
             "usage": _usage(prompt_tokens_details={"cached_tokens": 0, "audio_tokens": 0},
                             completion_tokens_details={"reasoning_tokens": 0})}
    quota = ("You exceeded your current quota, please check your plan and billing details. For "
             "more information on this error, read the docs: "
             "https://platform.openai.com/docs/guides/error-codes/api-errors.")
    return Provider(
        "openai",
        _body("gpt-4.1-mini-2025-04-14", message(tool_calls=[_call("call_Qf3d9Ww1kXzYlP2b")]),
              "tool_calls", **extra),
        _body("gpt-4.1-mini-2025-04-14", message(content=EXPLANATION), "stop", **extra),
        _body("gpt-4.1-mini-2025-04-14", message(content=QUESTION), "stop", **extra),
        {
            "bad_key": Failure(401, {"error": {
                "message": "Incorrect API key provided: sk-abc***********wxyz. You can find "
                           "your API key at https://platform.openai.com/account/api-keys.",
                "type": "invalid_request_error", "param": None, "code": "invalid_api_key"}},
                ("api key was refused", "OPENAI_API_KEY"),
                "https://platform.openai.com/docs/guides/error-codes"),
            "no_quota": Failure(429, {"error": {
                "message": quota, "type": "insufficient_quota", "param": None,
                "code": "insufficient_quota"}},
                ("no balance or quota", "billing"),
                "https://platform.openai.com/docs/guides/error-codes"),
            "rate_limit": Failure(429, {"error": {
                "message": "Rate limit reached for gpt-4.1-mini in organization org-abc on "
                           "requests per min (RPM): Limit 3, Used 3, Requested 1. Please try "
                           "again in 20s.",
                "type": "requests", "param": None, "code": "rate_limit_exceeded"}},
                ("rate limit", "wait"), "https://platform.openai.com/docs/guides/error-codes",
                {"retry-after": "20"}),
            "bad_request": Failure(400, {"error": {
                "message": "Unsupported parameter: 'max_tokens' is not supported with this "
                           "model. Use 'max_completion_tokens' instead.",
                "type": "invalid_request_error", "param": "max_tokens",
                "code": "unsupported_parameter"}},
                # The fix is said: the config change that sends max_completion_tokens.
                ('"max_tokens_field": "max_completion_tokens"', "config.json"),
                "https://platform.openai.com/docs/api-reference/chat/create (max_tokens: "
                "deprecated, not compatible with o-series models)"),
            # Current reasoning models over Chat Completions with tools and a reasoning effort
            # (their default one included): GoogleChromeLabs/webmcp-tools#417 (gpt-5.6-terra,
            # the whole body), github/app#2133, laurent22/joplin#16451 (gpt-5.6-luna, no
            # reasoning_effort sent at all).
            "tools_need_responses": Failure(400, {"error": {
                "message": "Function tools with reasoning_effort are not supported for "
                           "gpt-5.6-terra in /v1/chat/completions. To use function tools, use "
                           "/v1/responses or set reasoning_effort to 'none'.",
                "type": "invalid_request_error", "param": "reasoning_effort", "code": None}},
                ('"api": "responses"', '"reasoning_effort": "none"', "config.json"),
                "GoogleChromeLabs/webmcp-tools#417"),
        },
        ("https://platform.openai.com/docs/api-reference/chat/object",),
    )


# --- Qwen (DashScope compatible mode) ------------------------------------------------------------
# Tool call reply (content "", IDs "call_<hex>", index inside the call) as captured from
# DashScope in vllm-project/vllm#21571; https://help.aliyun.com/zh/model-studio/qwen-function-calling
# Errors: https://help.aliyun.com/zh/model-studio/error-code ; 400 Arrearage body captured in
# hsliuping/TradingAgents-CN#170.
def _qwen() -> Provider:
    extra = {"id": "chatcmpl-cd0e10d2-57fa-98c2-a6a2-f7d621218fb7", "system_fingerprint": None,
             "usage": _usage(prompt_tokens_details={"cached_tokens": 0})}
    call = {"index": 0, **_call("call_f9aca388535744f0b27facf1")}
    return Provider(
        "qwen",
        _body("qwen-plus", {"content": "", "role": "assistant", "tool_calls": [call]},
              "tool_calls", **extra),
        _body("qwen-plus", {"content": EXPLANATION, "role": "assistant"}, "stop", **extra),
        _body("qwen-plus", {"content": QUESTION, "role": "assistant"}, "stop", **extra),
        {
            "bad_key": Failure(401, {"error": {
                "message": "Incorrect API key provided. ", "type": "invalid_request_error",
                "param": None, "code": "invalid_api_key"},
                "request_id": "0f0a1b2c-3d4e-5f60-7182-93a4b5c6d7e8"},
                ("api key was refused", "DASHSCOPE_API_KEY"),
                "https://help.aliyun.com/zh/model-studio/error-code"),
            "no_balance": Failure(400, {"error": {
                "code": "Arrearage", "param": None,
                "message": "Access denied, please make sure your account is in good standing.",
                "type": "Arrearage"},
                "id": "chatcmpl-f9fdb027-830c-9e05-8366-ce479a878825",
                "request_id": "f9fdb027-830c-9e05-8366-ce479a878825"},
                ("no balance or quota", "billing"), "hsliuping/TradingAgents-CN#170"),
            "rate_limit": Failure(429, {"error": {
                "message": "Requests rate limit exceeded, please try again later.",
                "type": "limit_requests", "param": None, "code": "limit_requests"}},
                ("rate limit", "wait"), "https://help.aliyun.com/zh/model-studio/error-code"),
            "bad_request": Failure(400, {"error": {
                "code": "invalid_parameter_error", "param": None,
                "message": "<400> InternalError.Algo.InvalidParameter: The tool call is not "
                           "supported.",
                "type": "invalid_request_error"}},
                ("rejected the request",), "https://help.aliyun.com/zh/model-studio/error-code"),
        },
        ("vllm-project/vllm#21571 (DashScope reply)",
         "https://help.aliyun.com/zh/model-studio/qwen-function-calling"),
    )


# --- Ollama --------------------------------------------------------------------------------------
# https://docs.ollama.com/api/openai-compatibility : IDs "call_<random>", "index" in each call,
# system_fingerprint "fp_ollama", finish_reason tool_calls since ollama/ollama#5995; thinking
# models add "reasoning". Errors: https://docs.ollama.com/api/errors (model not found is 404).
def _ollama() -> Provider:
    extra = {"id": "chatcmpl-245", "system_fingerprint": "fp_ollama"}
    call = _call("call_3a7k0p2m", index=0)
    return Provider(
        "ollama",
        _body("qwen3:8b", {"role": "assistant", "content": "", "reasoning": THOUGHT,
                           "tool_calls": [call]}, "tool_calls", **extra),
        _body("qwen3:8b", {"role": "assistant", "content": EXPLANATION}, "stop", **extra),
        _body("qwen3:8b", {"role": "assistant", "content": QUESTION}, "stop", **extra),
        {
            "bad_request": Failure(404, {"error": {
                "message": "model \"qwen3:8b\" not found, try pulling it first",
                "type": "api_error", "param": None, "code": None}},
                ("not found", "try pulling it first", "model"),
                "https://docs.ollama.com/api/errors"),
            "server_error": Failure(500, {"error": "the model failed to generate a response"},
                                    ("server failed", "the model failed to generate"),
                                    "https://docs.ollama.com/api/errors (plain-string error)"),
        },
        ("https://docs.ollama.com/api/openai-compatibility", "ollama/ollama#5995"),
    )


# --- vLLM ----------------------------------------------------------------------------------------
# https://docs.vllm.ai/en/stable/features/tool_calling.html ; IDs "chatcmpl-tool-<hex>" as in
# BerriAI/litellm#40040; content null, reasoning_content null unless a reasoning parser runs.
# Errors: {"object": "error", ...} at the top level (langchain4j/langchain4j#3475); with
# --api-key a wrong key gets {"error": "Unauthorized"} (vllm/entrypoints/openai/api_server.py).
def _vllm() -> Provider:
    def message(**fields: object) -> dict:
        return {"role": "assistant", "content": None, "refusal": None, "annotations": None,
                "audio": None, "function_call": None, "tool_calls": [],
                "reasoning_content": None, **fields}

    extra = {"id": "chatcmpl-8e55af51", "choice": {"stop_reason": None},
             "prompt_logprobs": None, "kv_transfer_params": None}
    return Provider(
        "vllm",
        _body("Qwen/Qwen3-8B", message(tool_calls=[_call("chatcmpl-tool-a165800d4d7789c7")]),
              "tool_calls", **extra),
        _body("Qwen/Qwen3-8B", message(content=EXPLANATION), "stop", **extra),
        _body("Qwen/Qwen3-8B", message(content=QUESTION), "stop", **extra),
        {
            "bad_key": Failure(401, {"error": "Unauthorized"},
                               ("api key was refused", "api_key_env"),
                               "vllm/entrypoints/openai/api_server.py (--api-key middleware)"),
            "bad_request": Failure(400, {
                "object": "error",
                "message": "\"auto\" tool choice requires --enable-auto-tool-choice and "
                           "--tool-call-parser to be set",
                "type": "BadRequestError", "param": None, "code": 400},
                ("tool calling off", "--enable-auto-tool-choice", "--tool-call-parser"),
                "langchain4j/langchain4j#3475"),
            "unknown_model": Failure(404, {
                "object": "error", "message": "The model `qwen3` does not exist.",
                "type": "NotFoundError", "param": None, "code": 404},
                ("not found", "does not exist", "model"),
                "https://docs.vllm.ai/en/stable/serving/openai_compatible_server.html"),
        },
        ("https://docs.vllm.ai/en/stable/features/tool_calling.html", "BerriAI/litellm#40040"),
    )


# --- llama.cpp server ----------------------------------------------------------------------------
# https://github.com/ggml-org/llama.cpp/blob/master/docs/function-calling.md ; the reply
# layout (random 32-character call IDs, "timings") as in ggml-org/llama.cpp#11992.
# Errors: {"error": {"code", "message", "type"}}: "tools param requires --jinja flag"
# (containers/ramalama#988), "Invalid API Key" with --api-key (tools/server/server.cpp).
def _llamacpp() -> Provider:
    extra = {"id": "chatcmpl-Vb0sJm3", "system_fingerprint": "b6123-79c1160b",
             "timings": {"prompt_n": 812, "prompt_ms": 390.2, "predicted_n": 46,
                         "predicted_ms": 1012.7}}
    call = {"type": "function", "function": {"name": "save_review_plan",
                                             "arguments": ARGUMENTS},
            "id": "Xp3H8mZJcR2kF1tQ9vW4yB6nL0aE7sDu"}
    return Provider(
        "llamacpp",
        _body("gpt-3.5-turbo", {"role": "assistant", "content": None, "tool_calls": [call]},
              "tool_calls", **extra),
        _body("gpt-3.5-turbo", {"role": "assistant", "content": EXPLANATION}, "stop", **extra),
        _body("gpt-3.5-turbo", {"role": "assistant", "content": QUESTION}, "stop", **extra),
        {
            "bad_key": Failure(401, {"error": {"code": 401, "message": "Invalid API Key",
                                               "type": "authentication_error"}},
                               ("api key was refused",), "tools/server/server.cpp"),
            "bad_request": Failure(500, {"error": {
                "code": 500, "message": "tools param requires --jinja flag",
                "type": "server_error"}},
                ("--jinja", "cannot take tools"), "containers/ramalama#988"),
        },
        ("https://github.com/ggml-org/llama.cpp/blob/master/docs/function-calling.md",
         "ggml-org/llama.cpp#11992"),
    )


# --- LM Studio -----------------------------------------------------------------------------------
# https://lmstudio.ai/docs/app/api/tools : numeric-string call IDs ("193629320" in
# lmstudio-ai/lmstudio-bug-tracker#830), content "", a "stats" object. An unknown path answers
# HTTP 200 {"error": "Unexpected endpoint or method. (POST /chat/completions)"}
# (lmstudio-bug-tracker#618); no model loaded: https://lmstudio.ai/docs/app/api/endpoints/openai
def _lmstudio() -> Provider:
    extra = {"id": "chatcmpl-3xq8rz1yk7m2", "stats": {},
             "system_fingerprint": "qwen/qwen3-8b"}
    return Provider(
        "lmstudio",
        _body("qwen/qwen3-8b", {"role": "assistant", "content": "",
                                "tool_calls": [_call("193629320")]}, "tool_calls", **extra),
        _body("qwen/qwen3-8b", {"role": "assistant", "content": EXPLANATION}, "stop", **extra),
        _body("qwen/qwen3-8b", {"role": "assistant", "content": QUESTION}, "stop", **extra),
        {
            "bad_request": Failure(404, {"error": {
                "message": "No models loaded. Please load a model in the developer page or use "
                           "the `lms load` command.",
                "type": "invalid_request_error", "param": "model", "code": "model_not_found"}},
                ("not found", "No models loaded"),
                "https://lmstudio.ai/docs/app/api/endpoints/openai"),
        },
        ("https://lmstudio.ai/docs/app/api/tools", "lmstudio-ai/lmstudio-bug-tracker#830"),
    )


# --- Gemini (OpenAI compatibility) ---------------------------------------------------------------
# https://ai.google.dev/gemini-api/docs/openai and /thought-signatures (OpenAI section): the
# signature rides in each tool call as extra_content.google.thought_signature and must come
# back; no "content" key beside tool calls, short call IDs and no index (captured from
# gemini-3.1-flash-lite-preview in noho/dayu-agent#45); non-streaming finish_reason
# "tool_calls" (googleapis/python-genai#2868). Errors come as a JSON list:
# [{"error": {"code", "message", "status", "details"}}] (continuedev/continue#8516: a bad key is
# 400 INVALID_ARGUMENT, reason API_KEY_INVALID); 429 RESOURCE_EXHAUSTED with QuotaFailure and
# RetryInfo: https://ai.google.dev/gemini-api/docs/rate-limits and /troubleshooting.
SIGNATURE = "EjQKMgEMOdbHJChLX75QUCJjyYlmQ3tQ8Pq2e0hFvZ1n4Yx7Wk9Ls6Rj5Gd3Cb8Va2Tz"


def _gemini() -> Provider:
    call = {"extra_content": {"google": {"thought_signature": SIGNATURE}},
            "function": {"arguments": ARGUMENTS, "name": "save_review_plan"},
            "id": "jm4owj31", "type": "function"}

    def body(message: dict, finish: str) -> dict:
        return {"choices": [{"finish_reason": finish, "index": 0, "message": message}],
                "created": 1_790_000_000, "id": "P2Faaer-LKrF0-kPtIaUuA0",
                "model": "gemini-3-flash-preview", "object": "chat.completion",
                "usage": {"completion_tokens": 46, "prompt_tokens": 812, "total_tokens": 858}}

    def error(code: int, message: str, status: str, *details: dict) -> list:
        return [{"error": {"code": code, "message": message, "status": status,
                           "details": list(details)}}]

    quota = ("You exceeded your current quota, please check your plan and billing details. For "
             "more information on this error, head to: "
             "https://ai.google.dev/gemini-api/docs/rate-limits.")
    return Provider(
        "gemini",
        body({"role": "assistant", "tool_calls": [call]}, "tool_calls"),
        body({"content": EXPLANATION, "role": "assistant"}, "stop"),
        body({"content": QUESTION, "role": "assistant"}, "stop"),
        {
            "bad_key": Failure(400, error(
                400, "API key not valid. Please pass a valid API key.", "INVALID_ARGUMENT",
                {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID",
                 "domain": "googleapis.com",
                 "metadata": {"service": "generativelanguage.googleapis.com"}},
                {"@type": "type.googleapis.com/google.rpc.LocalizedMessage", "locale": "en-US",
                 "message": "API key not valid. Please pass a valid API key."}),
                ("api key was refused", "GEMINI_API_KEY", "API key not valid"),
                "continuedev/continue#8516"),
            "no_quota": Failure(429, error(
                429, quota, "RESOURCE_EXHAUSTED",
                {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{
                    "quotaMetric": "generativelanguage.googleapis.com/"
                                   "generate_content_free_tier_requests",
                    "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
                    "quotaValue": "20"}]},
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "23s"}),
                ("quota", "billing", "wait"),
                "https://ai.google.dev/gemini-api/docs/troubleshooting (429 RESOURCE_EXHAUSTED)"),
            "bad_request": Failure(400, error(
                400, "Function call is missing a thought_signature in functionCall parts. This "
                     "is required for tools to work correctly, and missing thought_signature "
                     "may lead to degraded model performance.",
                "INVALID_ARGUMENT"),
                ("rejected the request", "thought_signature"),
                "https://ai.google.dev/gemini-api/docs/thought-signatures"),
        },
        ("https://ai.google.dev/gemini-api/docs/thought-signatures", "noho/dayu-agent#45",
         "googleapis/python-genai#2868"),
    )


# --- OpenRouter ----------------------------------------------------------------------------------
# https://openrouter.ai/docs/use-cases/reasoning-tokens : reasoning and reasoning_details
# (reasoning.text, reasoning.encrypted with the Gemini signature as in
# OpenRouterTeam/ai-sdk-provider#289) to be passed back; "native_finish_reason" and "provider"
# fields. Errors: https://openrouter.ai/docs/api-reference/errors : {"error": {"code",
# "message", "metadata"}}; an error met after the model started comes with HTTP 200.
def _openrouter() -> Provider:
    details = [
        {"type": "reasoning.text", "text": THOUGHT, "format": "google-gemini-v1", "index": 0},
        {"type": "reasoning.encrypted", "data": SIGNATURE, "id": "tool_save_review_plan_7Kq2",
         "format": "google-gemini-v1", "index": 0},
    ]
    extra = {"id": "gen-1790000000-Abc123XyZ", "provider": "Google",
             "choice": {"native_finish_reason": "STOP"},
             "usage": _usage(cost=0.00012, is_byok=False,
                             prompt_tokens_details={"cached_tokens": 0},
                             completion_tokens_details={"reasoning_tokens": 31})}

    def message(**fields: object) -> dict:
        return {"role": "assistant", "content": "", "refusal": None, "reasoning": None,
                **fields}

    call = _call("tool_save_review_plan_7Kq2", index=0)
    return Provider(
        "openrouter",
        _body("google/gemini-3-flash-preview",
              message(reasoning=THOUGHT, reasoning_details=details, tool_calls=[call]),
              "tool_calls", **extra),
        _body("google/gemini-3-flash-preview", message(content=EXPLANATION), "stop", **extra),
        _body("google/gemini-3-flash-preview", message(content=QUESTION), "stop", **extra),
        {
            "bad_key": Failure(401, {"error": {"message": "User not found.", "code": 401}},
                               ("api key was refused", "OPENROUTER_API_KEY"),
                               "https://openrouter.ai/docs/api-reference/errors (401)"),
            "no_balance": Failure(402, {"error": {
                "message": "This request requires more credits, or fewer max_tokens. You "
                           "requested up to 1024 tokens, but can only afford 120. To increase, "
                           "visit https://openrouter.ai/settings/credits and add more credits",
                "code": 402, "metadata": {"provider_name": None}}},
                ("no balance", "credits"),
                "https://openrouter.ai/docs/api-reference/errors (402)"),
            "rate_limit": Failure(429, {"error": {
                "message": "Rate limit exceeded: free-models-per-day. Add 10 credits to unlock "
                           "1000 free model requests per day",
                "code": 429, "metadata": {"headers": {"X-RateLimit-Limit": "50",
                                                      "X-RateLimit-Remaining": "0"}}}},
                ("rate limit", "wait"), "https://openrouter.ai/docs/api-reference/limits"),
            "bad_request": Failure(400, {"error": {
                "message": "google/gemini-9 is not a valid model ID", "code": 400}},
                ("rejected the request", "not a valid model ID"),
                "https://openrouter.ai/docs/api-reference/errors (400)"),
        },
        ("https://openrouter.ai/docs/use-cases/reasoning-tokens",
         "OpenRouterTeam/ai-sdk-provider#289"),
    )


# An error met while the model was answering: HTTP 200 with an error object
# (https://openrouter.ai/docs/api-reference/errors: "the returned HTTP response status will be
# 200 and any error occurred while the LLM is producing the output will be emitted in the
# response body").
OPENROUTER_ERROR_IN_200 = {"error": {"code": 502, "message": "Provider returned error",
                                     "metadata": {"provider_name": "Google", "raw": None}},
                           "user_id": "user_2abcXYZ"}
# LM Studio on a base_url without /v1 (lmstudio-ai/lmstudio-bug-tracker#618).
LMSTUDIO_ERROR_IN_200 = {"error": "Unexpected endpoint or method. (POST /chat/completions)"}


# --- Groq ----------------------------------------------------------------------------------------
# https://console.groq.com/docs/tool-use and https://console.groq.com/docs/openai : usage with
# queue/prompt/completion times, x_groq, call IDs "call_<4>" (BerriAI/litellm#11001).
# Errors: https://console.groq.com/docs/errors ; tool_use_failed with failed_generation in
# groq/groq-typescript#103; TPM/TPD limits: https://console.groq.com/docs/rate-limits
def _groq() -> Provider:
    usage = _usage(queue_time=0.021, prompt_time=0.04, completion_time=0.06, total_time=0.1)
    extra = {"id": "chatcmpl-748429af-f2d7-4c1c-8ace-3f626c3e9395", "usage": usage,
             "usage_breakdown": None, "system_fingerprint": "fp_ef479defa8",
             "x_groq": {"id": "req_01k7w4y7wffm7r1q9v3s0n2b4c"}, "service_tier": "on_demand"}
    model = "llama-3.3-70b-versatile"
    return Provider(
        "groq",
        _body(model, {"role": "assistant", "tool_calls": [_call("call_cmfz")]}, "tool_calls",
              **extra),
        _body(model, {"role": "assistant", "content": EXPLANATION}, "stop", **extra),
        _body(model, {"role": "assistant", "content": QUESTION}, "stop", **extra),
        {
            "bad_key": Failure(401, {"error": {"message": "Invalid API Key",
                                               "type": "invalid_request_error",
                                               "code": "invalid_api_key"}},
                               ("api key was refused", "GROQ_API_KEY"),
                               "https://console.groq.com/docs/errors"),
            # Groq's free quota is a per-day rate limit: waiting is the right advice.
            "daily_limit": Failure(429, {"error": {
                "message": "Rate limit reached for model `llama-3.3-70b-versatile` in "
                           "organization `org_01` service tier `on_demand` on tokens per day "
                           "(TPD): Limit 100000, Used 99800, Requested 900. Please try again in "
                           "12m9.6s. Need more tokens? Upgrade to Dev Tier today at "
                           "https://console.groq.com/settings/billing",
                "type": "tokens", "code": "rate_limit_exceeded"}},
                ("rate limit", "wait", "tokens per day"),
                "https://console.groq.com/docs/rate-limits"),
            "bad_request": Failure(400, {"error": {
                "message": "Failed to call a function. Please adjust your prompt. See "
                           "'failed_generation' for more details.",
                "type": "invalid_request_error", "code": "tool_use_failed",
                "failed_generation": "<tool-use>{\"tool_calls\": []}</tool-use>"}},
                ("could not read", "another model"), "groq/groq-typescript#103"),
        },
        ("https://console.groq.com/docs/tool-use", "BerriAI/litellm#11001"),
    )


# --- Mistral -------------------------------------------------------------------------------------
# https://docs.mistral.ai/capabilities/function_calling/ : 9-character call IDs, "index", a
# preamble in content beside the call (github/copilot-cli#4884), calls without "type" (optional,
# default function in Mistral's OpenAPI ToolCall). Reasoning models send content as a list:
# [{"type": "thinking", "thinking": [{"type": "text", ...}]}, {"type": "text", ...}]
# (https://docs.mistral.ai/capabilities/reasoning/, spring-projects/spring-ai#5020).
# Errors: {"object": "error", "message", "type", "param", "code"} (langchain-ai/langchain#21196);
# 401 {"message": "Unauthorized", "request_id"}; 429 capacity: code "3505".
def _mistral() -> Provider:
    extra = {"id": "cmpl-e5cc70bb28c444948073e77776eb30ef"}
    model = "mistral-small-latest"
    call = {"id": "D681PevKs", "function": {"name": "save_review_plan",
                                            "arguments": ARGUMENTS}, "index": 0}

    def thinking(text: str) -> list:
        return [{"type": "thinking", "thinking": [{"type": "text", "text": THOUGHT}]},
                {"type": "text", "text": text}]

    return Provider(
        "mistral",
        _body(model, {"role": "assistant", "tool_calls": [call],
                      "content": "I'll save that review plan for you."}, "tool_calls", **extra),
        _body("magistral-small-latest", {"role": "assistant", "tool_calls": None,
                                         "content": thinking(EXPLANATION)}, "stop", **extra),
        _body("magistral-small-latest", {"role": "assistant", "tool_calls": None,
                                         "content": thinking(QUESTION)}, "stop", **extra),
        {
            "bad_key": Failure(401, {"message": "Unauthorized",
                                     "request_id": "a3c61e8f0b9d4c7e8f1a2b3c4d5e6f70"},
                               ("api key was refused", "MISTRAL_API_KEY"),
                               "https://docs.mistral.ai/api/ (401)"),
            "rate_limit": Failure(429, {
                "object": "error", "message": "Service tier capacity exceeded for this model.",
                "type": "service_tier_capacity_exceeded", "param": None, "code": "3505"},
                ("rate limit", "wait"), "https://docs.mistral.ai/deployment/ai-studio/tier/"),
            "rate_limit_plain": Failure(429, {"message": "Requests rate limit exceeded"},
                                ("rate limit", "wait"),
                                "https://docs.mistral.ai/deployment/ai-studio/tier/"),
            "bad_request": Failure(400, {
                "object": "error",
                "message": "Assistant message must have either content or tool_calls, but not "
                           "both.",
                "type": "invalid_request_error", "param": None, "code": None},
                ("rejected the request", "not both"), "langchain-ai/langchain#21196"),
            "extra_field": Failure(422, {
                "object": "error",
                "message": {"detail": [{"type": "extra_forbidden",
                                        "loc": ["body", "messages", 2, "assistant",
                                                "reasoning_content"],
                                        "msg": "Extra inputs are not permitted",
                                        "input": "..."}]},
                "type": "invalid_request_message_error", "param": None, "code": None},
                ("rejected the request", "Extra inputs are not permitted"),
                "OpenMinis/OpenMinis#87"),
        },
        ("https://docs.mistral.ai/capabilities/function_calling/", "github/copilot-cli#4884",
         "https://docs.mistral.ai/capabilities/reasoning/"),
    )


# --- Moonshot (Kimi) -----------------------------------------------------------------------------
# https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model : kimi-k2.5 thinks by
# default, reasoning_content beside content, call IDs "<name>:<n>"; a dropped reasoning_content
# is 400 "thinking is enabled but reasoning_content is missing in assistant tool call message at
# index N" (bytedance/deer-flow#3043). No balance: 429 exceeded_current_quota_error "Your account
# ... is suspended, please check your plan and billing details"
# (forum.moonshot.ai/t/api-billing-behaviour/111). https://platform.moonshot.ai/docs/api/errors
def _moonshot() -> Provider:
    model = "kimi-k2.5"
    call = {"index": 0, **_call("save_review_plan:0")}
    return Provider(
        "moonshot",
        _body(model, {"role": "assistant", "content": "", "reasoning_content": THOUGHT,
                      "tool_calls": [call]}, "tool_calls",
              usage=_usage(cached_tokens=768)),
        _body(model, {"role": "assistant", "content": EXPLANATION,
                      "reasoning_content": "The plan was saved."}, "stop"),
        _body(model, {"role": "assistant", "content": QUESTION,
                      "reasoning_content": "No date was given."}, "stop"),
        {
            "bad_key": Failure(401, {"error": {"message": "Invalid Authentication",
                                               "type": "invalid_authentication_error"}},
                               ("api key was refused", "MOONSHOT_API_KEY"),
                               "https://platform.moonshot.ai/docs/api/errors"),
            "no_balance": Failure(429, {"error": {
                "type": "exceeded_current_quota_error",
                "message": "Your account org-1a2b<ak-3c4d> is suspended, please check your plan "
                           "and billing details"}},
                ("no balance or quota", "billing"),
                "forum.moonshot.ai/t/api-billing-behaviour/111"),
            "rate_limit": Failure(429, {"error": {
                "message": "Your account org-1a2b<ak-3c4d> request reached organization max "
                           "RPM: 3, please try again after 1 seconds",
                "type": "rate_limit_reached_error"}},
                ("rate limit", "wait"), "https://platform.moonshot.ai/docs/api/errors"),
            "bad_request": Failure(400, {"error": {
                "message": "thinking is enabled but reasoning_content is missing in assistant "
                           "tool call message at index 2",
                "type": "invalid_request_error"}},
                ("rejected the request", "reasoning_content"), "bytedance/deer-flow#3043"),
        },
        ("https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model",),
    )


# --- Zhipu (GLM) ---------------------------------------------------------------------------------
# https://docs.bigmodel.cn/api-reference/模型-api/对话补全 : request_id, call IDs
# "call_-<digits>", reasoning_content for thinking models, finish_reason tool_calls.
# Errors {"error": {"code": "<business code>", "message"}} with the HTTP status of
# https://docs.bigmodel.cn/cn/faq/api-code (1113 arrears is HTTP 429: langgenius/dify#5850).
def _zhipu() -> Provider:
    model = "glm-4.5-flash"
    call = {"function": {"arguments": ARGUMENTS, "name": "save_review_plan"},
            "id": "call_-8231735462410453434", "index": 0, "type": "function"}
    extra = {"id": "20260930165212a9f0b2c4d6e8f0a1b2", "request_id": "20260930165212a9f0b2c4",
             "usage": _usage(prompt_tokens_details={"cached_tokens": 0})}
    return Provider(
        "zhipu",
        _body(model, {"content": "", "reasoning_content": THOUGHT, "role": "assistant",
                      "tool_calls": [call]}, "tool_calls", **extra),
        _body(model, {"content": EXPLANATION, "role": "assistant"}, "stop", **extra),
        _body(model, {"content": QUESTION, "role": "assistant"}, "stop", **extra),
        {
            "bad_key": Failure(401, {"error": {"code": "1002", "message":
                               "Authorization Token非法，请确认Authorization Token正确传递。"}},
                               ("api key was refused", "ZHIPUAI_API_KEY"),
                               "https://docs.bigmodel.cn/cn/faq/api-code"),
            "no_balance": Failure(429, {"error": {"code": "1113",
                                                  "message": "您的账户已欠费，请充值后重试。"}},
                                  ("no balance or quota", "billing"), "langgenius/dify#5850"),
            "rate_limit": Failure(429, {"error": {"code": "1302", "message":
                                  "您当前使用该API的并发数过高，请降低并发，或联系客服增加限额。"}},
                                  ("rate limit", "wait"), "https://docs.bigmodel.cn/cn/api/rate-limit"),
            "overloaded": Failure(429, {"error": {"code": "1305",
                                                  "message": "该模型当前访问量过大，请您稍后再试"}},
                                  ("overloaded", "try again later"),
                                  "https://docs.bigmodel.cn/cn/api/rate-limit"),
            "bad_request": Failure(400, {"error": {"code": "1211",
                                                   "message": "模型不存在，请检查模型代码。"}},
                                   ("rejected the request", "模型不存在"),
                                   "https://docs.bigmodel.cn/cn/faq/api-code"),
        },
        ("https://docs.bigmodel.cn/cn/faq/api-code",),
    )

# --- Anthropic (OpenAI SDK compatibility) --------------------------------------------------------
# https://platform.claude.com/docs/en/cli-sdks-libraries/libraries/openai-sdk : the response
# fields the layer fills (id, choices always of length 1, finish_reason, message role, content
# and tool_calls, usage prompt_tokens / completion_tokens / total_tokens); `strict` is ignored;
# tool call IDs are Claude's tool_use IDs ("toolu_01..." as in anthropics/claude-code#12526).
# Errors keep the Claude API's shape {"type": "error", "error": {"type", "message"},
# "request_id"} (https://platform.claude.com/docs/en/api/errors; 401 "invalid x-api-key" as
# captured in OpenHands/OpenHands#4651; 529 overloaded_error and 429 rate_limit_error on the
# same errors page).
def _anthropic() -> Provider:
    def body(message: dict, finish: str) -> dict:
        return {"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "object": "chat.completion",
                "created": 1_790_000_000, "model": "claude-haiku-5-5",
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": _usage()}

    def error(kind: str, message: str) -> dict:
        return {"type": "error", "error": {"type": kind, "message": message},
                "request_id": "req_011CXw8h8A796q3f74Ezmhav"}

    call = _call("toolu_01A09q90qw90lq917835lq9")
    return Provider(
        "anthropic",
        body({"role": "assistant", "content": "", "tool_calls": [call]}, "tool_calls"),
        body({"role": "assistant", "content": EXPLANATION}, "stop"),
        body({"role": "assistant", "content": QUESTION}, "stop"),
        {
            "bad_key": Failure(401, error("authentication_error", "invalid x-api-key"),
                               ("api key was refused", "ANTHROPIC_API_KEY"),
                               "OpenHands/OpenHands#4651"),
            "rate_limit": Failure(429, error("rate_limit_error",
                                             "Number of request tokens has exceeded your "
                                             "per-minute rate limit"),
                                  ("rate limit", "wait"),
                                  "https://platform.claude.com/docs/en/api/errors"),
            "overloaded": Failure(529, error("overloaded_error", "Overloaded"),
                                  ("overloaded", "try again later"),
                                  "https://platform.claude.com/docs/en/api/errors"),
        },
        ("https://platform.claude.com/docs/en/cli-sdks-libraries/libraries/openai-sdk",),
    )


PROVIDERS: dict[str, Provider] = {
    case.name: case
    for case in (
        _deepseek(False), _deepseek(True), _openai(), _qwen(), _ollama(), _vllm(), _llamacpp(),
        _lmstudio(), _gemini(), _openrouter(), _groq(), _mistral(), _moonshot(), _zhipu(),
        _anthropic(),
    )
}


# --- replies planner refuses, by server ----------------------------------------------------------

def text_body(model: str, content: object, **message: object) -> dict:
    """A stop reply whose content is `content` (a tool call the server did not parse)."""
    return _body(model, {"role": "assistant", "content": content, **message}, "stop")


# vLLM with the hermes parser serving Qwen3-Coder (which writes XML-style calls):
# content '<tool_call>\n<function=...>...', tool_calls [], finish_reason stop
# (vllm-project/vllm#21571).
VLLM_UNPARSED = text_body(
    "Qwen/Qwen3-Coder-30B-A3B-Instruct",
    "<tool_call>\n<function=save_review_plan>\n<parameter=title>\nRAG basics\n</parameter>\n"
    "</function>\n</tool_call>", tool_calls=[])
# A Hermes-format call left as text when vLLM runs without a tool parser for the model.
VLLM_HERMES_TEXT = text_body(
    "Qwen/Qwen3-8B", f'<tool_call>\n{{"name": "save_review_plan", "arguments": {ARGUMENTS}}}\n'
                     "</tool_call>")
# Mistral-format markup as text (vLLM serving a Mistral model without --tool-call-parser mistral).
MISTRAL_MARKUP_TEXT = text_body(
    "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
    f'[TOOL_CALLS]save_review_plan{ARGUMENTS}')
# LM Studio's default tool format when its parser could not read the model's output
# (https://lmstudio.ai/docs/app/api/tools: "[TOOL_REQUEST]...[END_TOOL_REQUEST]").
LMSTUDIO_MARKUP_TEXT = text_body(
    "qwen/qwen3-8b",
    f'[TOOL_REQUEST]\n{{"name": "save_review_plan", "arguments": {ARGUMENTS}}}\n'
    "[END_TOOL_REQUEST]")
# Llama 3.x JSON call as plain text (llama.cpp without --jinja, Ollama before tool support):
# https://www.llama.com/docs/model-cards-and-prompt-formats/llama3_1/ (JSON-based tool calling).
LLAMA_JSON_TEXT = text_body(
    "llama3.1:8b", f'{{"name": "save_review_plan", "parameters": {ARGUMENTS}}}')

# Gemini 2.0 through the OpenAI endpoint in January 2025: a call with "id": "" and
# finish_reason stop (microsoft/autogen#4878).
GEMINI_EMPTY_ID = {
    "id": None, "choices": [{"finish_reason": "tool_calls", "index": 0, "logprobs": None,
                             "message": {"content": None, "refusal": None, "role": "assistant",
                                         "audio": None, "function_call": None,
                                         "tool_calls": [{"id": "", "function": {
                                             "arguments": ARGUMENTS,
                                             "name": "save_review_plan"},
                                             "type": "function"}]}}],
    "created": 1737330953, "model": "gemini-2.0-flash-exp", "object": "chat.completion",
    "usage": {"completion_tokens": 6, "prompt_tokens": 50, "total_tokens": 56},
}
# llama-server early 2025: a tool call with no "id" at all (ggml-org/llama.cpp#11992).
LLAMACPP_NO_ID = _body("gpt-3.5-turbo", {"role": "assistant", "content": None, "tool_calls": [
    {"type": "function", "function": {"name": "save_review_plan", "arguments": ARGUMENTS}}]},
    "tool_calls")
# Ollama before 0.3.1: tool calls with finish_reason "stop" (fixed by ollama/ollama#5995).
OLLAMA_OLD_STOP = _body("llama3.1", {"role": "assistant", "content": "", "tool_calls": [
    _call("call_4lc9a2rs")]}, "stop", id="chatcmpl-57", system_fingerprint="fp_ollama")
# Gemini 3 with reasoning through OpenRouter: tool calls with finish_reason "stop" and the
# signature in reasoning_details (OpenRouterTeam/ai-sdk-provider#288).
OPENROUTER_GEMINI_STOP = _body(
    "google/gemini-3-pro-preview",
    {"role": "assistant", "content": "", "refusal": None, "reasoning": None,
     "reasoning_details": [{"type": "reasoning.encrypted", "data": SIGNATURE,
                            "id": "tool_save_review_plan_9Xk1", "format": "google-gemini-v1",
                            "index": 0}],
     "tool_calls": [_call("tool_save_review_plan_9Xk1", index=0)]},
    "stop", id="gen-1790000001-Def456", provider="Google",
    choice={"native_finish_reason": "STOP"})


# --- OpenAI over the Responses API (POST /responses) ---------------------------------------------
# The Response object: id "resp_...", object "response", created_at, status (completed, failed,
# in_progress, cancelled, queued, incomplete), error, incomplete_details, model, output, store,
# usage {input_tokens, input_tokens_details {cached_tokens}, output_tokens,
# output_tokens_details {reasoning_tokens}, total_tokens}: openai SDK 3.57
# types/responses/response.py, response_usage.py, response_status.py (generated from OpenAI's
# OpenAPI spec). Output items:
# - reasoning {"id": "rs_...", "type": "reasoning", "summary": [{"type": "summary_text",
#   "text"}], "encrypted_content"} (ResponseReasoningItem; encrypted_content "populated by
#   default ... especially important when store is false"; the reasoning guide
#   https://developers.openai.com/api/docs/guides/reasoning says to send them back);
# - function_call {"id": "fc_...", "type": "function_call", "status": "completed", "arguments",
#   "call_id": "call_...", "name"} (ResponseFunctionToolCall;
#   https://developers.openai.com/api/docs/guides/function-calling);
# - message {"id": "msg_...", "type": "message", "status": "completed", "role": "assistant",
#   "content": [{"type": "output_text", "text", "annotations": [], "logprobs": []}]} as captured
#   in https://community.openai.com/t/empty-incomplete-details-from-gpt-5-with-max-output-tokens/1355725
# status "incomplete" with incomplete_details {"reason": "max_output_tokens"}: the reasoning
# guide ("you'll receive a response with a status of incomplete and incomplete_details with
# reason set to max_output_tokens") and the body captured in pydantic/pydantic-ai#509; a failed
# response carries error {"code": "server_error", "message"} (SDK ResponseError). A built-in
# tool's item planner never asked for: web_search_call {"id": "ws_...", "type":
# "web_search_call", "status": "completed", "action": {"type": "search", "query"}}
# (ResponseFunctionWebSearch).
RESPONSES_MODEL = "gpt-6-luna-2026-09-22"
ENCRYPTED = ("gAAAAABo2b3kX9s1q0Zt7eW3v1mYl9pC8nF2xR6aK4sQ0uJ5hT3gD7bV1cN8mE2wL6oP9iU4yH0tR5eW7"
             "qA3sZ1xC_dF4gH6jK8lM0nB2vC4xZ6aS8dF0gH2jK4lM6nB8vC0xZ2aS4dF6gH8jK0lM2nB4vC6xZ8a==")
REASONING_ITEM = {"id": "rs_0c7f1d2a9b8e4f5a0068d2b3e4f5a6b7c8", "type": "reasoning",
                  "summary": [{"type": "summary_text", "text": THOUGHT}],
                  "encrypted_content": ENCRYPTED}
CALL_ITEM = {"id": "fc_0c7f1d2a9b8e4f5a0068d2b3e5a1b2c3d4", "type": "function_call",
             "status": "completed", "arguments": ARGUMENTS,
             "call_id": "call_Kx2vY7pQ9rT4mN1bZ8wA3sD6", "name": "save_review_plan"}


def responses_body(output: list, status: str = "completed", **fields: object) -> dict:
    """A Response object as OpenAI returns it for a store: false request."""
    body = {
        "id": fields.pop("id", "resp_0c7f1d2a9b8e4f5a0068d2b3e4c1a2b3c4"), "object": "response",
        "created_at": 1_790_000_000, "status": status, "background": False, "error": None,
        "incomplete_details": None, "instructions": None, "max_output_tokens": 1024,
        "max_tool_calls": None, "model": RESPONSES_MODEL, "output": output,
        "parallel_tool_calls": True, "previous_response_id": None,
        "reasoning": {"effort": "low", "summary": None}, "service_tier": "default",
        "store": False, "temperature": 1.0, "text": {"format": {"type": "text"},
                                                     "verbosity": "medium"},
        "tool_choice": "auto", "tools": [], "top_p": 1.0, "truncation": "disabled",
        "usage": fields.pop("usage", {
            "input_tokens": 812, "input_tokens_details": {"cached_tokens": 768},
            "output_tokens": 46, "output_tokens_details": {"reasoning_tokens": 31},
            "total_tokens": 858}),
        "user": None, "metadata": {},
    }
    body.update(fields)
    return body


def output_message(text: str, item_id: str = "msg_0c7f1d2a9b8e4f5a0068d2b3e6f7a8b9c0") -> dict:
    return {"id": item_id, "type": "message", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "annotations": [], "logprobs": [],
                         "text": text}]}


RESPONSES_PROPOSAL = responses_body([REASONING_ITEM, CALL_ITEM])
RESPONSES_EXPLANATION = responses_body(
    [{**REASONING_ITEM, "id": "rs_0c7f1d2a9b8e4f5a0068d2b3f0a1b2c3d4"},
     output_message(EXPLANATION)], id="resp_0c7f1d2a9b8e4f5a0068d2b3f1e2d3c4b5")
RESPONSES_QUESTION = responses_body([REASONING_ITEM, output_message(QUESTION)])
# Cut off by max_output_tokens while reasoning: status incomplete, reasoning only
# (pydantic/pydantic-ai#509; the reasoning guide).
RESPONSES_INCOMPLETE = responses_body(
    [{"id": "rs_0c7f1d2a9b8e4f5a0068d2b3e4f5a6b7c9", "type": "reasoning", "summary": [],
      "encrypted_content": ENCRYPTED}],
    "incomplete", incomplete_details={"reason": "max_output_tokens"},
    usage={"input_tokens": 812, "input_tokens_details": {"cached_tokens": 0},
           "output_tokens": 1024, "output_tokens_details": {"reasoning_tokens": 1024},
           "total_tokens": 1836})
RESPONSES_FAILED = responses_body(
    [], "failed", error={"code": "server_error",
                         "message": "The model failed to generate a response."},
    usage=None)
RESPONSES_UNKNOWN_ITEM = responses_body([
    {"id": "ws_0c7f1d2a9b8e4f5a0068d2b3e4f5a6b7d0", "type": "web_search_call",
     "status": "completed", "action": {"type": "search", "query": "RAG basics"}},
    CALL_ITEM])
RESPONSES_NO_CALL_ID = responses_body(
    [REASONING_ITEM, {key: value for key, value in CALL_ITEM.items() if key != "call_id"}])
RESPONSES_BAD_ARGUMENTS = responses_body(
    [REASONING_ITEM, {**CALL_ITEM, "arguments": '{"title": "RAG basics", "note_ids": ["N1"'}])


# Which preset serves each reply case, and the config it needs beyond the preset.
PRESET = {name: name for name in PROVIDERS}
PRESET["deepseek-thinking"] = "deepseek"
# Config beside each case's preset. OpenAI's cases are its Chat Completions shapes: the preset
# over api "chat" (its default is the Responses API, tested in test_responses.py).
THINKING = {"deepseek-thinking": {"extra_body": {"thinking": {"type": "enabled"}}},
            "moonshot": {"extra_body": {}}, "zhipu": {"extra_body": {}},
            "openai": {"api": "chat"}}
# Fields each provider's API takes in an assistant message, where it validates them strictly:
# OpenAI https://platform.openai.com/docs/api-reference/chat/create (assistant message),
# Groq https://console.groq.com/docs/api-reference#chat-create (unknown properties are a 400),
# Mistral https://docs.mistral.ai/api/ (AssistantMessage: content, tool_calls, prefix, role;
# extra inputs are a 422, OpenMinis/OpenMinis#87).
ASSISTANT_FIELDS = {
    "openai": {"role", "content", "tool_calls", "refusal", "name", "audio", "function_call"},
    "groq": {"role", "content", "tool_calls", "name", "reasoning"},
    "mistral": {"role", "content", "tool_calls", "prefix"},
    "qwen": {"role", "content", "tool_calls", "reasoning_content", "partial"},
}
# Reasoning fields that must come back exactly as received (wire.DIALECTS, sources there).
KEPT = {"deepseek-thinking": "reasoning_content", "moonshot": "reasoning_content",
        "zhipu": "reasoning_content", "openrouter": "reasoning_details"}


def received_message(reply: dict) -> dict:
    return reply["choices"][0]["message"]


def check_assistant(name: str, sent: dict, reply: dict) -> None:
    """The assistant message sent back follows the provider's rules for it."""
    got = received_message(reply)
    assert sent["role"] == "assistant"
    allowed = ASSISTANT_FIELDS.get(PRESET[name])
    if allowed is not None:
        assert set(sent) <= allowed, set(sent) - allowed
    if name in KEPT:
        field = KEPT[name]
        assert sent.get(field) == got.get(field)  # kept when sent, never made up
    else:
        assert not {"reasoning_content", "reasoning_details", "reasoning"} & set(sent)
    if got.get("tool_calls"):
        # The calls go back untouched: IDs, index, Gemini's thought signature inside them.
        assert sent["tool_calls"] == got["tool_calls"]
        if PRESET[name] == "mistral":
            assert sent["content"] == ""  # "either content or tool_calls, but not both"
