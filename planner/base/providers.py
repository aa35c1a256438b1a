"""Provider presets (README "Providers"): base_url, key variable, a sensible model, extra_body and
prices.

Pure data, no imports beyond the standard library: config.py fills the keys a config.json does
not give from the preset named by its `provider` key. Prices are per million tokens as each
provider published them for the preset's model (pages cited beside each row, read 2026); they
change, so `planner costs` is only as right as these numbers: set `prices` in config.json to
override. Prices belong to the model they name (config's `prices.model`): a preset's prices
are for its own model only, so a run with another model is never priced at them. Local servers
charge nothing per token for the model the preset names.
"""

from __future__ import annotations

from typing import NamedTuple
from urllib.parse import urlsplit

# Sent as the key to local servers, which accept any. Shorter than model.py's secret minimum,
# so this word is never cut out of the model's replies as if it were a secret.
PLACEHOLDER_KEY = "no-key"


class Preset(NamedTuple):
    """What `provider: NAME` in config.json fills in."""

    name: str
    label: str
    base_url: str
    # None: a local server that needs no key (PLACEHOLDER_KEY is sent).
    api_key_env: str | None
    model: str
    extra_body: dict[str, object]
    # (currency, input_cache_hit, input_cache_miss, output) per million tokens.
    prices: tuple[str, float, float, float]
    # What the server or account needs for tool calls to work.
    setup: str = ""
    # The wire format: "chat" (Chat Completions) or "responses" (the Responses API).
    api: str = "chat"
    # The body field that carries config's max_tokens over Chat Completions.
    max_tokens_field: str = "max_tokens"
    # The most output tokens the preset's model writes in one reply, as its page gives it;
    # None: the server's own (a local one), so a cut reply's suggested max_tokens is not capped.
    max_output: int | None = None


_FREE = ("USD", 0.0, 0.0, 0.0)

PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        # https://api-docs.deepseek.com/quick_start/pricing (deepseek-v4-flash); thinking off
        # by default here (README "Configuration"); {"thinking": {"type": "enabled"}} turns it on,
        # and the
        # reasoning_content it adds is sent back (wire.DIALECTS["deepseek"]).
        Preset("deepseek", "DeepSeek", "https://api.deepseek.com", "DEEPSEEK_API_KEY",
               "deepseek-v4-flash", {"thinking": {"type": "disabled"}},
               ("USD", 0.0028, 0.14, 0.28), max_output=8192),
        # https://developers.openai.com/api/docs/models/gpt-6-luna (checked 2026-12-01): OpenAI's
        # current low-cost model (released 2026-09-22); input 0.10, cached input 0.01, output
        # 0.50 per million tokens; reasoning.effort none/low/medium (default)/high/xhigh/max;
        # "Chat Completions supports function calling only with reasoning_effort none". Over
        # the Responses API (this preset) reasoning_effort goes as reasoning.effort, and the
        # reasoning items come back in the next request. The gpt-5 and later models refuse
        # max_tokens over Chat Completions ("Use 'max_completion_tokens' instead").
        Preset("openai", "OpenAI", "https://api.openai.com/v1", "OPENAI_API_KEY",
               "gpt-6-luna", {"reasoning_effort": "none"}, ("USD", 0.01, 0.10, 0.50),
               api="responses", max_tokens_field="max_completion_tokens", max_output=128_000),
        # https://platform.claude.com/docs/en/cli-sdks-libraries/libraries/openai-sdk (checked
        # 2026-12-01): Anthropic's OpenAI SDK compatibility layer, "primarily intended to test
        # and compare model capabilities, and ... not considered a long-term or
        # production-ready solution"; `strict` is ignored (planner checks every call itself);
        # max_tokens fully supported. https://platform.claude.com/docs/en/models/haiku-5-5/
        # overview: claude-haiku-5-5 (released 2026-10-07), input 0.10, output 0.50, cache
        # reads 0.01 per million tokens for prompts up to 100K tokens (planner's are far less).
        Preset("anthropic", "Anthropic (OpenAI SDK compatibility)", "https://api.anthropic.com/v1/",
               "ANTHROPIC_API_KEY", "claude-haiku-5-5", {}, ("USD", 0.01, 0.10, 0.50),
               "Anthropic's compatibility layer is for testing, not production (its own words)",
               max_output=64_000),
        # https://help.aliyun.com/zh/model-studio/models (qwen-plus, mainland China, CNY;
        # implicit cache hits bill 20% of input). International accounts use
        # https://dashscope-intl.aliyuncs.com/compatible-mode/v1 with their own key.
        Preset("qwen", "Qwen (DashScope compatible mode)",
               "https://dashscope.aliyuncs.com/compatible-mode/v1", "DASHSCOPE_API_KEY",
               "qwen-plus", {"enable_thinking": False}, ("CNY", 0.16, 0.8, 2.0), max_output=8192),
        # https://docs.ollama.com/api/openai-compatibility
        Preset("ollama", "Ollama", "http://localhost:11434/v1", None, "qwen3:8b", {}, _FREE,
               "ollama pull qwen3:8b (any model tagged 'tools')"),
        # https://docs.vllm.ai/en/stable/features/tool_calling.html ; Qwen3 thinking off through
        # the chat template: https://qwen.readthedocs.io/en/latest/deployment/vllm.html
        Preset("vllm", "vLLM", "http://localhost:8000/v1", None, "Qwen/Qwen3-8B",
               {"chat_template_kwargs": {"enable_thinking": False}}, _FREE,
               "vllm serve Qwen/Qwen3-8B --enable-auto-tool-choice --tool-call-parser hermes"),
        # https://github.com/ggml-org/llama.cpp/blob/master/docs/function-calling.md ; the
        # server answers with whatever model it loaded.
        Preset("llamacpp", "llama.cpp server", "http://localhost:8080/v1", None, "local", {},
               _FREE, "llama-server --jinja -m MODEL.gguf"),
        # https://lmstudio.ai/docs/app/api/endpoints/openai ; the model key as LM Studio lists it.
        Preset("lmstudio", "LM Studio", "http://localhost:1234/v1", None, "qwen/qwen3-8b", {},
               _FREE, "load the model and start the server (Developer tab or `lms server start`)"),
        # https://ai.google.dev/gemini-api/docs/openai ; prices:
        # https://ai.google.dev/gemini-api/docs/pricing (gemini-2.5-flash, paid tier; context
        # cache 0.03). Thinking off: its thinking tokens would count against max_tokens.
        Preset("gemini", "Gemini (OpenAI compatibility)",
               "https://generativelanguage.googleapis.com/v1beta/openai/", "GEMINI_API_KEY",
               "gemini-2.5-flash", {"reasoning_effort": "none"}, ("USD", 0.03, 0.30, 2.50),
               max_output=65_536),
        # https://openrouter.ai/docs/quickstart ; https://openrouter.ai/openai/gpt-4.1-mini
        # (OpenRouter passes the provider's token price through).
        Preset("openrouter", "OpenRouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY",
               "openai/gpt-4.1-mini", {}, ("USD", 0.10, 0.40, 1.60), max_output=32_768),
        # https://console.groq.com/docs/openai ; https://groq.com/pricing (llama-3.3-70b-
        # versatile; no prompt cache for this model, so hits cost as misses).
        Preset("groq", "Groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY",
               "llama-3.3-70b-versatile", {}, ("USD", 0.59, 0.59, 0.79), max_output=32_768),
        # https://docs.mistral.ai/api/ ; https://mistral.ai/pricing#api-pricing
        # (mistral-small-latest).
        Preset("mistral", "Mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY",
               "mistral-small-latest", {}, ("USD", 0.10, 0.10, 0.30)),
        # https://platform.moonshot.ai/docs/pricing/chat (kimi-k2.5: cache hit 0.10, miss 0.60,
        # output 3.00). Thinking is on by default for k2.5; off here for a short, cheap reply.
        Preset("moonshot", "Moonshot (Kimi)", "https://api.moonshot.ai/v1", "MOONSHOT_API_KEY",
               "kimi-k2.5", {"thinking": {"type": "disabled"}}, ("USD", 0.10, 0.60, 3.00)),
        # https://docs.bigmodel.cn/cn/guide/models/free/glm-4.5-flash (free model, CNY);
        # outside China: https://api.z.ai/api/paas/v4/ with a Z.ai key.
        Preset("zhipu", "Zhipu (GLM)", "https://open.bigmodel.cn/api/paas/v4/", "ZHIPUAI_API_KEY",
               "glm-4.5-flash", {"thinking": {"type": "disabled"}}, ("CNY", 0.0, 0.0, 0.0)),
    )
}

# Hosts whose replies follow a preset's dialect even when config.json names no provider.
_HOSTS = {
    "api.deepseek.com": "deepseek",
    "api.openai.com": "openai",
    "api.anthropic.com": "anthropic",
    "dashscope.aliyuncs.com": "qwen",
    "dashscope-intl.aliyuncs.com": "qwen",
    "generativelanguage.googleapis.com": "gemini",
    "openrouter.ai": "openrouter",
    "api.groq.com": "groq",
    "api.mistral.ai": "mistral",
    "api.moonshot.ai": "moonshot",
    "api.moonshot.cn": "moonshot",
    "open.bigmodel.cn": "zhipu",
    "api.z.ai": "zhipu",
}


def provider_for(provider: str | None, base_url: str) -> str | None:
    """The provider whose rules apply: the configured one, else the one the host belongs to."""
    if provider:
        return provider
    try:
        host = (urlsplit(base_url).hostname or "").lower()
    except ValueError:
        return None
    return _HOSTS.get(host)
