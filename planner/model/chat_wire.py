"""The Chat Completions wire format: a reply read once into a typed turn, and messages back.

Each provider's quirks live in its `Dialect` (one row of DIALECTS): which reasoning fields the
assistant message sent back must keep, its message rules, and what to tell the person when its
server is known to send something planner refuses. The sources are cited beside each row and in
tests/provider_replies.py.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from planner.base import strictjson
from planner.base.i18n import t
from planner.model.turns import (
    CutOff,
    ReplyError,
    ToolCall,
    Turn,
    calls_instead_of_text,
    tool_message,
)

__all__ = ["ReplyError", "ToolCall", "Turn", "calls_instead_of_text", "tool_message"]

# Server messages are shown on one short line.
_MESSAGE_LIMIT = 200
# What the person can do when tool-call markup arrives as plain text, by server.
_PARSER_HINT = t("enable its tool parser (vLLM: --enable-auto-tool-choice with the "
                 "--tool-call-parser for this model; llama.cpp: --jinja), or use a model with "
                 "tool support")


class Dialect(NamedTuple):
    """How one provider's replies are read and its assistant messages sent back."""

    name: str
    # Assistant-message fields sent back exactly as received (thinking-mode continuity).
    keep: tuple[str, ...] = ()
    # The provider refuses an assistant message with both content and tool_calls.
    no_content_with_calls: bool = False
    # Content that arrived as a list of parts goes back as received (else as its text).
    keep_list_content: bool = False
    # What to do when tool-call markup arrives as text.
    parser_hint: str = _PARSER_HINT
    # The type of a call that names none (Mistral's schema: "type" optional, default function).
    default_call_type: str | None = None
    # Added (after "; ") to the refusal of a call without an ID / of stop with calls, where
    # known.
    missing_id_hint: str = ""
    stop_with_calls_hint: str = ""


GENERIC = Dialect("openai")

DIALECTS: dict[str, Dialect] = {
    "openai": GENERIC,
    # Thinking mode: "between two user messages, if the model performed a tool call, the
    # intermediate assistant's reasoning_content must participate in the context ... in all
    # subsequent user interaction turns"; without tool calls it "will be ignored" if sent.
    # https://api-docs.deepseek.com/guides/thinking_mode
    "deepseek": Dialect("deepseek", keep=("reasoning_content",)),
    # Kimi k2.5 (thinking on by default) answers 400 "thinking is enabled but reasoning_content
    # is missing in assistant tool call message at index N" without it.
    # https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model
    "moonshot": Dialect("moonshot", keep=("reasoning_content",)),
    # "When using interleaved thinking with tools, thinking blocks should be explicitly
    # preserved and returned together with the tool results" (GLM-4.5 and later).
    # https://docs.z.ai/guides/capabilities/thinking-mode
    "zhipu": Dialect("zhipu", keep=("reasoning_content",)),
    # "reasoning_details ... pass them back in subsequent requests" (Gemini 3 and Claude need
    # them for tool calling). https://openrouter.ai/docs/use-cases/reasoning-tokens
    "openrouter": Dialect(
        "openrouter", keep=("reasoning_details",),
        # OpenRouterTeam/ai-sdk-provider#288: Gemini 3 with reasoning ended tool calls with stop.
        stop_with_calls_hint=t("OpenRouter has sent this for Gemini 3 models with reasoning: "
                               "choose another model or turn reasoning off"),
    ),
    # The thought signature travels inside each tool call (extra_content.google), which is sent
    # back untouched anyway; a text reply may carry one at message level.
    # https://ai.google.dev/gemini-api/docs/thought-signatures
    "gemini": Dialect(
        "gemini", keep=("extra_content",),
        missing_id_hint=t("Gemini's OpenAI endpoint sent empty call IDs in early 2025 "
                          "(gemini-2.0): use a current model"),
    ),
    # 400 "Assistant message must have either content or tool_calls, but not both"; reasoning
    # models send content as a list of text and thinking chunks, which Mistral takes back.
    # https://docs.mistral.ai/capabilities/function_calling/ ,
    # https://docs.mistral.ai/capabilities/reasoning/ ; ToolCall.type "optional, default
    # function" in Mistral's OpenAPI schema (docs.rs/crate/mistral-openapi-client, ToolCall.md).
    "mistral": Dialect(
        "mistral", no_content_with_calls=True, keep_list_content=True,
        default_call_type="function",
        parser_hint=t("use a Mistral model with function calling (the reply held [TOOL_CALLS] "
                      "as text)"),
    ),
    "qwen": Dialect("qwen"),
    "groq": Dialect("groq"),
    "ollama": Dialect(
        "ollama",
        parser_hint=t("update Ollama and use a model tagged 'tools' (ollama.com/search?c=tools)"),
        # ollama/ollama#5995 (v0.3.1, July 2024) made the OpenAI endpoint say tool_calls.
        stop_with_calls_hint=t("Ollama before 0.3.1 did this: update Ollama"),
    ),
    "vllm": Dialect(
        "vllm",
        parser_hint=t("start vLLM with --enable-auto-tool-choice and the --tool-call-parser "
                      "that matches the model (e.g. hermes for Qwen2.5/Qwen3, qwen3_coder for "
                      "Qwen3-Coder)"),
    ),
    "llamacpp": Dialect(
        "llamacpp",
        parser_hint=t("start llama-server with --jinja (and a chat template with tool support)"),
        # ggml-org/llama.cpp#11992: builds of early 2025 sent tool calls without an ID.
        missing_id_hint=t("llama-server builds of early 2025 did this: update llama.cpp"),
    ),
    "lmstudio": Dialect(
        "lmstudio",
        parser_hint=t("load a model with native tool support in LM Studio (the reply held its "
                      "[TOOL_REQUEST] markup as text), or update LM Studio"),
        # lmstudio-ai/lmstudio-bug-tracker#830 (0.3.21): a call with an empty ID.
        missing_id_hint=t("a known LM Studio bug (lmstudio-bug-tracker#830): update LM Studio "
                          "or load another model"),
    ),
}

# Tool-call markup that some servers leave in the text when their parser is off or wrong:
# Hermes/Qwen, Mistral, Llama 3.x, DeepSeek V3, Kimi K2, LM Studio, IBM Granite, Liquid LFM2.
TOOL_MARKUP = (
    "<tool_call>", "</tool_call>", "[TOOL_CALLS]", "<|python_tag|>", "<function=",
    "<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<|tool_calls_section_begin|>",
    "<|tool_call_begin|>", "[TOOL_REQUEST]", "<|tool_call|>", "<|tool_call_start|>",
)


def dialect_named(name: str | None) -> Dialect:
    """The dialect of a provider name (generic OpenAI for an unknown or missing one)."""
    return DIALECTS.get(name or "", GENERIC)


def parse_reply(body: object, dialect: Dialect | str | None = None) -> Turn:
    """Read a decoded Chat Completions body into a Turn, or raise ReplyError."""
    rules = dialect if isinstance(dialect, Dialect) else dialect_named(dialect)
    _refuse_error_body(body)
    choice = _only_choice(body)
    if choice.get("finish_reason") == "error" or choice.get("error"):
        # OpenRouter: an error raised while the model was answering arrives in the choice.
        said = error_fields(choice.get("error"))[0] or t("no message")
        raise ReplyError(t("the provider reported an error inside the reply ({said})",
                           said=said))
    message = choice.get("message")
    if not isinstance(message, dict):
        raise ReplyError(t("the reply has no message"))
    finish = choice.get("finish_reason")
    raw_calls = message.get("tool_calls")
    if raw_calls is not None and not isinstance(raw_calls, list):
        raise ReplyError(t("the reply's tool_calls is not a list"))
    content = message.get("content")
    text = content_text(content)
    reasoning = reasoning_text(message)
    if not raw_calls:
        if finish != "stop":
            raise _problem(finish, with_calls=False)
        if text is not None and looks_like_tool_markup(text):
            raise ReplyError(t("the server did not parse the tool call (it sent the call as "
                               "text); {hint}", hint=rules.parser_hint))
        return Turn(text, (), finish, _assistant(message, content, None, rules), reasoning)
    if finish != "tool_calls":
        if finish == "stop" and rules.stop_with_calls_hint:
            raise ReplyError(t("the reply has tool calls but finish_reason stop, so the calls "
                               "were not run (a reply that ends that way may be cut short or "
                               "mis-parsed); {hint}", hint=rules.stop_with_calls_hint))
        raise _problem(finish, with_calls=True)
    calls = tuple(_tool_call(raw, rules) for raw in raw_calls)
    ids = [call.id for call in calls]
    if len(set(ids)) != len(ids):
        # Results are paired with calls by ID; two calls with one ID cannot be answered apart.
        raise ReplyError(t("two tool calls in the reply share one ID, so their results could "
                           "not be paired with them"))
    # The calls go back exactly as proposed (with any provider data inside them, such as
    # Gemini's thought signature), so the model sees its own calls beside the real results.
    return Turn(text, calls, finish, _assistant(message, content, raw_calls, rules), reasoning)


def _assistant(message: dict[str, Any], content: object, raw_calls: list[Any] | None,
               rules: Dialect) -> dict[str, Any]:
    """The assistant message to send back, following the provider's rules."""
    if isinstance(content, list) and not rules.keep_list_content:
        # Plain-text content is what every OpenAI-compatible server accepts back.
        content = _joined_text(content) or None
    if raw_calls and rules.no_content_with_calls:
        # Mistral's own replies to a tool call carry content "" (not null), and take it back.
        content = ""
    assistant = {"role": "assistant", "content": content}
    if raw_calls:
        assistant["tool_calls"] = raw_calls
    for name in rules.keep:
        if message.get(name) is not None:
            assistant[name] = message[name]
    return assistant


def content_text(content: object) -> str | None:
    """The visible text of a message's content (a string, null, or a list of parts)."""
    if isinstance(content, str):
        return content.strip() or None
    if isinstance(content, list):
        # Text parts are the answer; other parts (e.g. thinking) are not shown as the answer.
        return _joined_text(content).strip() or None
    return None


def _joined_text(parts: list[Any]) -> str:
    texts = [part.get("text") for part in parts
             if isinstance(part, dict) and part.get("type") == "text"]
    return "".join(text for text in texts if isinstance(text, str))


def reasoning_text(message: dict[str, Any]) -> str | None:
    """The reasoning a provider sent beside the answer (field or thinking parts), if any."""
    for name in ("reasoning_content", "reasoning"):
        value = message.get(name)
        if isinstance(value, str) and value.strip():
            return value.strip()
    content = message.get("content")
    if isinstance(content, list):
        # Mistral: {"type": "thinking", "thinking": [{"type": "text", "text": "..."}]}.
        thoughts = [_joined_text(part["thinking"]) for part in content
                    if isinstance(part, dict) and part.get("type") == "thinking"
                    and isinstance(part.get("thinking"), list)]
        return "".join(thoughts).strip() or None
    return None


def looks_like_tool_markup(text: str) -> bool:
    """Whether a text answer is really a tool call the server failed to parse."""
    if any(marker in text for marker in TOOL_MARKUP):
        return True
    # A bare {"name": ..., "arguments": ...} object (Llama 3.x JSON calls without a parser).
    stripped = text.strip().removeprefix("```json").removeprefix("```").removesuffix("```")
    if not stripped.strip().startswith(("{", "[")):
        return False
    try:
        data = strictjson.loads(stripped)
    except strictjson.JSONRefused:
        return False
    items = data if isinstance(data, list) else [data]
    return any(isinstance(item, dict) and "name" in item
               and ("arguments" in item or "parameters" in item) for item in items)


def error_fields(data: object) -> tuple[str | None, object]:
    """The message and code of an error body in any documented shape, or (None, None).

    Shapes: {"error": {"message", "code"}} (OpenAI and most), {"object": "error", "message",
    "code"} (vLLM, Mistral), [{"error": {...}}] (Gemini), {"error": "text"} (LM Studio,
    Ollama), {"detail": ...} (FastAPI servers), or plain text.
    """
    if isinstance(data, list) and data:
        data = data[0]
    if isinstance(data, str):
        return one_line(data), None
    if not isinstance(data, dict):
        return None, None
    inner = data.get("error", data)
    if isinstance(inner, str):
        return one_line(inner), data.get("code")
    if not isinstance(inner, dict):
        return None, None
    message = inner.get("message", inner.get("detail"))
    if message is not None and not isinstance(message, str):
        # Mistral's 422 puts a validation object in "message".
        message = json.dumps(message, ensure_ascii=False)
    code = inner.get("code")
    if code is None:
        code = inner.get("type")
    return (one_line(message) if message else None), code


def one_line(text: str) -> str:
    """Text on one short line: whitespace folded, cut at the message limit."""
    line = " ".join(str(text).split())
    return line if len(line) <= _MESSAGE_LIMIT else line[: _MESSAGE_LIMIT - 3] + "..."


def _refuse_error_body(body: object) -> None:
    """An error object where a reply was expected, reported with the provider's own words."""
    if isinstance(body, list) and body and isinstance(body[0], dict) and "error" in body[0]:
        body = body[0]
    if not isinstance(body, dict) or not body.get("error") or body.get("choices"):
        return
    said, code = error_fields(body)
    coded = isinstance(code, (int, str)) and bool(str(code))
    if said and "Unexpected endpoint" in said:
        # LM Studio answers an unknown path with HTTP 200 and this string.
        if coded:
            raise ReplyError(t("the server answered with an error {code} instead of a reply "
                               "({said}); check base_url (LM Studio serves the API under /v1)",
                               code=code, said=said))
        raise ReplyError(t("the server answered with an error instead of a reply ({said}); "
                           "check base_url (LM Studio serves the API under /v1)", said=said))
    if coded:
        raise ReplyError(t("the server answered with an error {code} instead of a reply "
                           "({said})", code=code, said=said))
    raise ReplyError(t("the server answered with an error instead of a reply ({said})",
                       said=said))


def _tool_call(raw: object, rules: Dialect) -> ToolCall:
    kind = raw.get("type") if isinstance(raw, dict) else None
    if kind is None and isinstance(raw, dict):
        kind = rules.default_call_type
    if kind != "function" or not isinstance(raw, dict):
        raise ReplyError(t("a tool call has type {kind}; only 'function' is allowed",
                           kind=json.dumps(kind)[:40]))
    call_id = raw.get("id")
    if not isinstance(call_id, str) or not call_id.strip():
        if rules.missing_id_hint:
            raise ReplyError(t("a tool call has no ID, so its result could not be paired with "
                               "it; it was not run; {hint}", hint=rules.missing_id_hint))
        raise ReplyError(t("a tool call has no ID, so its result could not be paired with it; "
                           "it was not run"))
    function = raw.get("function")
    if not isinstance(function, dict):
        raise ReplyError(t("a tool call has no function"))
    return ToolCall(call_id, function.get("name"), function.get("arguments"))


def _only_choice(body: object) -> dict[str, Any]:
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(choices, list) or not choices:
        raise ReplyError(t("the reply has no choices"))
    if len(choices) != 1:
        raise ReplyError(t("the reply has {count} choices; exactly one is expected",
                           count=len(choices)))
    if not isinstance(choices[0], dict):
        raise ReplyError(t("the reply's choice is not an object"))
    return choices[0]


def _problem(finish: object, with_calls: bool) -> ReplyError:
    problem = finish_problem(finish, with_calls)
    return CutOff(problem, "finish_reason length") if finish == "length" else ReplyError(problem)


def finish_problem(finish: object, with_calls: bool) -> str:
    """Why a finish_reason cannot be used, in words."""
    if finish == "length":
        return t("the reply was cut off at max_tokens (finish_reason length); raise max_tokens")
    if finish == "content_filter":
        return t("the provider's content filter stopped the reply (finish_reason "
                 "content_filter)")
    if finish == "stop" and with_calls:
        return t("the reply has tool calls but finish_reason stop, so the calls were not run "
                 "(a reply that ends that way may be cut short or mis-parsed)")
    return t("the reply ended with an unexpected finish_reason {finish}",
             finish=json.dumps(finish)[:40])
