"""The model-client seam: the live OpenAI-compatible client and the scripted one."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from planner.base import providers, strictjson
from planner.base.config import Config
from planner.base.deadline import MARGIN_SECONDS, Deadline, DeadlinePassed, Sockets
from planner.base.i18n import t
from planner.base.oserrors import reason_within
from planner.model.chat_wire import dialect_named, error_fields
from planner.model.turns import Turn
from planner.model.wire import CHAT, ChatWire, wire_for

if TYPE_CHECKING:
    import httpx2
    import openai

_MESSAGE_LIMIT = 200
# Shorter keys are placeholders (local servers take "x" or "EMPTY"), not secrets: cutting them
# out of replies would change ordinary words in what the model proposed.
_MIN_SECRET = 8
# A Chat Completions body nests a few levels; far deeper would crash later json.dumps calls.
_MAX_DEPTH = 64


class ModelCallError(Exception):
    """A model call failed; `record` is what the response file keeps instead of a body."""

    def __init__(self, message: str, record: dict[str, Any]) -> None:
        super().__init__(message)
        self.record = record


class ModelClient(Protocol):
    """Anything that answers a request body (protocol.build_request) with a decoded reply."""

    simulated: bool
    # False for a scripted model that cannot read the person's feedback (the demo).
    revisable: bool

    def complete(self, body: dict[str, Any]) -> object:
        """Send one request; return the decoded JSON response body or raise ModelCallError."""
        ...

    def read_turn(self, body: object) -> Turn:
        """Read a response body into a Turn (provider quirks live here); raises ReplyError."""
        ...


Reply = object | Callable[[dict[str, Any]], object]


class ScriptedClient:
    """Answers with fixed replies in order; records every request it receives."""

    simulated = True

    def __init__(self, replies: Iterable[Reply], revisable: bool = True,
                 wire: ChatWire = CHAT) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        self.revisable = revisable
        # The wire format of the scripted replies (planner.model.wire).
        self.wire = wire

    def read_turn(self, body: object) -> Turn:
        return self.wire.read(body)

    def complete(self, body: dict[str, Any]) -> object:
        self.requests.append(copy.deepcopy(body))
        if not self.replies:
            raise ModelCallError(t("the scripted model has no reply left"),
                                 {"error": "no reply"})
        reply = self.replies.pop(0)
        if callable(reply):
            reply = reply(body)
        if isinstance(reply, BaseException):
            raise reply
        return copy.deepcopy(reply)


class LiveClient:
    """One OpenAI-compatible endpoint through the official SDK: no retries, no streaming."""

    simulated = False
    revisable = True

    def __init__(self, config: Config, api_key: str) -> None:
        import openai  # here, not at the top: it costs start-up that --help and --demo never pay

        self._openai = openai
        self._key = api_key
        self._config = config
        self.wire = wire_for(config.api)
        # The provider's reply rules: from config's `provider`, else from the base_url's host.
        self._provider = providers.provider_for(config.provider, config.base_url)
        self._dialect = dialect_named(self._provider)
        # Every connection this client opens, so the total deadline can end a read blocked on it.
        self._sockets = Sockets()
        self._client = openai.OpenAI(
            api_key=api_key,
            base_url=config.base_url,
            timeout=config.timeout_seconds,
            # No retries: repeating "request - write - request" could save a plan twice.
            max_retries=0,
            # The SDK's own defaults, and a hook that has httpx report each new connection.
            http_client=openai.DefaultHttpxClient(event_hooks={"request": [self._traced]}),
        )

    def complete(self, body: dict[str, Any]) -> object:
        openai = self._openai
        if not (self._key.isascii() and self._key.isprintable()):
            # The SDK would crash with a raw UnicodeEncodeError, or echo the key in its message.
            message = t(
                "the API key has characters an HTTP header cannot carry (non-ASCII or control "
                "characters); check {env} or the key you typed", env=self._config.api_key_env
            )
            raise ModelCallError(message, {"error": {"kind": "invalid_key"}})
        names = self.wire.sdk_params
        params = {name: body[name] for name in names if name in body}
        extra = {name: value for name, value in body.items() if name not in names}
        # timeout_seconds bounds each read; this bounds the whole request (README "A screen you can
        # trust"), so a server
        # that answers a byte at a time ends as one that never answers does.
        deadline = Deadline(self._config.timeout_seconds + MARGIN_SECONDS,
                            self._sockets.shut_down)
        try:
            with deadline:
                api: object = self._client
                for name in self.wire.sdk_path:  # client.chat.completions, client.responses
                    api = getattr(api, name)
                raw = api.with_raw_response.create(  # type: ignore[attr-defined]
                    **params, extra_body=extra or None)
                text = raw.http_response.text
        except openai.APIStatusError as error:
            raise self._status_error(error) from None
        except (openai.APITimeoutError, DeadlinePassed):
            message = t(
                "the model did not answer within {seconds:g} s; "
                "try again later or raise timeout_seconds in {config}",
                seconds=self._config.timeout_seconds, config=self._config.file,
            )
            raise ModelCallError(message, {"error": {"kind": "timeout"}}) from None
        except openai.APIConnectionError as error:
            # The system's error by its kind (said in the person's language), else the SDK's.
            reason = reason_within(error) or self._scrub(str(error.__cause__ or error))[
                :_MESSAGE_LIMIT]
            message = t(
                "could not reach {url} ({reason}); check base_url in {config} and the network",
                url=self._config.base_url, reason=reason, config=self._config.file,
            )
            raise ModelCallError(
                message, {"error": {"kind": "connection", "reason": reason}}
            ) from None
        try:
            # Scrubbed after decoding: a key the server wrote as "sk-a\/b" is found as "sk-a/b".
            data = self._scrub_data(strictjson.loads(text))
        except (ValueError, RecursionError):
            message = t(
                "the server's reply was not JSON; check that base_url points to an "
                "OpenAI-compatible API"
            )
            record = {"error": {"kind": "not_json", "status": raw.http_response.status_code,
                                "body_text": self._scrub(text)[:4096]}}
            raise ModelCallError(message, record) from None
        return data

    def read_turn(self, body: object) -> Turn:
        return self.wire.read(body, self._dialect)

    def _traced(self, request: httpx2.Request) -> None:
        """httpx's request hook: the connections the request opens are reported to _opened."""
        request.extensions["trace"] = self._opened

    def _opened(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's trace events: a new TCP or TLS connection's socket is kept."""
        if event.endswith((".connect_tcp.complete", ".start_tls.complete")):
            stream = info.get("return_value")
            get_extra_info = getattr(stream, "get_extra_info", None)
            if get_extra_info is not None:
                self._sockets.add(get_extra_info("socket"))

    def _status_error(self, error: openai.APIStatusError) -> ModelCallError:
        """One clear line per HTTP status and provider error code, in the server's own words."""
        status = error.status_code
        try:
            body = self._scrub_data(strictjson.loads(error.response.text))
        except (ValueError, RecursionError):
            body = self._scrub(error.response.text)[:4096]
        said_text, _ = error_fields(body)
        server = said_text or ""
        line = error_line(status, error_codes(body), server, self._config.api_key_env,
                          config_file=self._config.file,
                          other_api=self.wire.has_other_api)
        record = {"error": {"kind": "http_status", "status": status, "message": server,
                            "body": body}}
        return ModelCallError(line, record)

    def _scrub(self, text: str) -> str:
        """Remove the key from anything a server echoes back before it is shown or saved."""
        return text.replace(self._key, "***") if len(self._key) >= _MIN_SECRET else text

    def _scrub_data(self, data: object, depth: int = 0) -> object:
        """Decoded JSON with the key removed from every string, names included."""
        if depth > _MAX_DEPTH:
            raise ValueError(f"nested more than {_MAX_DEPTH} levels deep")
        if isinstance(data, str):
            return self._scrub(data)
        if isinstance(data, list):
            return [self._scrub_data(item, depth + 1) for item in data]
        if isinstance(data, dict):
            return {
                self._scrub(name): self._scrub_data(value, depth + 1)
                for name, value in data.items()
            }
        return data


# Provider error codes that change the advice, whatever the HTTP status (sources in
# tests/provider_replies.py): no quota or balance is not a wait-and-retry case.
_NO_QUOTA = {
    "insufficient_quota",  # OpenAI 429 "You exceeded your current quota"
    "1113",  # Zhipu 429 "您的账户已欠费，请充值后重试"
    "Arrearage",  # DashScope 400 "Access denied, please make sure your account is in good ..."
    "exceeded_current_quota_error",  # Moonshot 429 "... please check your plan and billing"
    "insufficient_balance",
}
_BAD_KEY = {
    "invalid_api_key",  # OpenAI, Groq, DashScope
    "API_KEY_INVALID",  # Gemini 400 INVALID_ARGUMENT (a bad key is not a 401 there)
    "invalid_authentication_error", "incorrect_api_key_error",  # Moonshot
    "1000", "1001", "1002", "1003", "1004",  # Zhipu authentication codes
}
_OVERLOADED = {
    "1305", "1312",  # Zhipu 429 "该模型当前访问量过大"
    "engine_overloaded_error",  # Moonshot 429
}


def reply_usage(reply: object) -> dict[str, Any] | None:
    """A decoded reply's usage in the Chat Completions shape costs reads; None: none given.

    Chat Completions usage is returned as received; Responses usage (input_tokens,
    output_tokens and their details) is converted, so costs price both the same way.
    """
    usage = reply.get("usage") if isinstance(reply, dict) else None
    if not isinstance(usage, dict):
        return None
    if "input_tokens" in usage and "prompt_tokens" not in usage:
        from planner.model.responses_wire import chat_usage

        return chat_usage(usage)
    return usage


def error_codes(body: object) -> set[str]:
    """Every code-like string of an error body: code, type, status and detail reasons."""
    if isinstance(body, list) and body:
        body = body[0]
    if not isinstance(body, dict):
        return set()
    inner = body.get("error", body)
    if not isinstance(inner, dict):
        return set()
    codes = {str(inner.get(name)) for name in ("code", "type", "status")
             if isinstance(inner.get(name), (str, int)) and not isinstance(inner.get(name), bool)}
    details = inner.get("details")
    for detail in details if isinstance(details, list) else ():
        if isinstance(detail, dict) and isinstance(detail.get("reason"), str):
            codes.add(detail["reason"])
    return codes


def error_line(status: int, codes: set[str], server: str, env: str | None,
               other_api: bool = False, config_file: str = "config.json") -> str:
    """`STATUS: what happened; what to do`, by the provider's error code first, then by status;
    `server` is what the server said (may be empty), `env` the key's variable (may be None),
    `config_file` the settings file in use, named where a change there is the fix;
    `other_api`: a 404 may mean the server lacks this wire's API (planner.model.wire)."""
    # Each line whole (with and without the server's words), so the screen can translate it.
    fix = config_fix(server)
    # The server's own words stay data: in quotes, never mistaken for planner's (README "中文界面").
    server = f"“{server}”" if server else ""
    if fix is not None and status in (400, 422):
        return _fix_line(status, fix, server, config_file)
    line = _line_by_code(status, codes, server, env, config_file)
    return line if line is not None else _line_by_status(status, server, other_api, config_file)


def _line_by_code(status: int, codes: set[str], server: str, env: str | None,
                  config_file: str) -> str | None:
    """error_line's line when the provider's code, or words, name the problem; else None."""
    if (codes & _BAD_KEY or status == 401) and env:
        if server:
            return t("{status}: the API key was refused ({server}); check {env}",
                     status=status, server=server, env=env)
        return t("{status}: the API key was refused; check {env}", status=status, env=env)
    if codes & _BAD_KEY or status == 401:
        if server:
            return t("{status}: the API key was refused ({server}); check the server's API key "
                     "setting and api_key_env in {config}", status=status, server=server,
                     config=config_file)
        return t("{status}: the API key was refused; check the server's API key setting and "
                 "api_key_env in {config}", status=status, config=config_file)
    if codes & _NO_QUOTA or status == 402:
        if server:
            return t("{status}: the account has no balance or quota left ({server}); check "
                     "billing or top it up, then run again", status=status, server=server)
        return t("{status}: the account has no balance or quota left; check billing or top it "
                 "up, then run again", status=status)
    if codes & _OVERLOADED:
        if server:
            return t("{status}: the model is overloaded ({server}); try again later",
                     status=status, server=server)
        return t("{status}: the model is overloaded; try again later", status=status)
    if "RESOURCE_EXHAUSTED" in codes:
        # Gemini says "exceeded your current quota" for per-minute and per-day limits alike.
        if server:
            return t("{status}: a quota or rate limit was reached ({server}); wait for it to "
                     "reset, or check the plan and billing", status=status, server=server)
        return t("{status}: a quota or rate limit was reached; wait for it to reset, or check "
                 "the plan and billing", status=status)
    if "--enable-auto-tool-choice" in server:
        return t("{status}: the server has tool calling off ({server}); start vLLM with "
                 "--enable-auto-tool-choice and the --tool-call-parser for this model",
                 status=status, server=server)
    if "--jinja" in server:
        return t("{status}: the server cannot take tools ({server}); start llama-server with "
                 "--jinja", status=status, server=server)
    if "tool_use_failed" in codes:
        # Groq: the model wrote a call its parser could not read.
        if server:
            return t("{status}: the model wrote a tool call the server could not read "
                     "({server}); run again, or choose another model",
                     status=status, server=server)
        return t("{status}: the model wrote a tool call the server could not read; run again, "
                 "or choose another model", status=status)
    return None


def _line_by_status(status: int, server: str, other_api: bool, config_file: str) -> str:
    """error_line's line by the HTTP status alone, when no code the provider sent names it."""
    if status == 403:
        if server:
            return t("{status}: access was denied ({server}); check the key's permissions for "
                     "this model", status=status, server=server)
        return t("{status}: access was denied; check the key's permissions for this model",
                 status=status)
    if status == 404 and other_api:
        if server:
            return t("{status}: not found ({server}); check base_url and model in {config}, "
                     'or, if this server has no Responses API, set "api": "chat"',
                     status=status, server=server, config=config_file)
        return t("{status}: not found; check base_url and model in {config}, or, if this "
                 'server has no Responses API, set "api": "chat"', status=status,
                 config=config_file)
    if status == 404:
        if server:
            return t("{status}: not found ({server}); check base_url and model in {config}",
                     status=status, server=server, config=config_file)
        return t("{status}: not found; check base_url and model in {config}", status=status,
        config=config_file)
    if status in (400, 422):
        if server:
            return t("{status}: the server rejected the request ({server}); check model and "
                     "extra_body in config", status=status, server=server)
        return t("{status}: the server rejected the request; check model and extra_body in "
                 "config", status=status)
    if status == 429:
        if server:
            return t("{status}: rate limit reached ({server}); wait a moment, then run again",
                     status=status, server=server)
        return t("{status}: rate limit reached; wait a moment, then run again", status=status)
    if status >= 500:
        if server:
            return t("{status}: the server failed or is overloaded ({server}); try again later",
                     status=status, server=server)
        return t("{status}: the server failed or is overloaded; try again later", status=status)
    if server:
        return t("{status}: the server refused the request ({server})", status=status,
                 server=server)
    return t("{status}: the server refused the request", status=status)


def _fix_line(status: int, fix: tuple[str, str], server: str, config_file: str) -> str:
    """The line for a 400 that config_fix knows how to fix."""
    if fix is _TAKES_COMPLETION_TOKENS:
        if server:
            return t("{status}: this model takes max_completion_tokens, not max_tokens "
                     '({server}); set "max_tokens_field": "max_completion_tokens" in '
                     "{config}", status=status, server=server, config=config_file)
        return t("{status}: this model takes max_completion_tokens, not max_tokens; set "
                 '"max_tokens_field": "max_completion_tokens" in {config}', status=status,
                 config=config_file)
    if fix is _NO_COMPLETION_TOKENS:
        if server:
            return t("{status}: this server does not take max_completion_tokens ({server}); "
                     'set "max_tokens_field": "max_tokens" in {config}',
                     status=status, server=server, config=config_file)
        return t("{status}: this server does not take max_completion_tokens; set "
                 '"max_tokens_field": "max_tokens" in {config}', status=status, config=config_file)
    # A template holds no literal braces: the part with the JSON value is a line of its own.
    other = t('(or keep Chat Completions with "extra_body": {"reasoning_effort": "none"})')
    if server:
        return t("{status}: tools with reasoning need the Responses API for this model "
                 '({server}); set "api": "responses" in {config} {other}', status=status,
                 server=server, other=other, config=config_file)
    return t("{status}: tools with reasoning need the Responses API for this model; set "
             '"api": "responses" in {config} {other}', status=status, other=other,
             config=config_file)


_TAKES_COMPLETION_TOKENS = ("this model takes max_completion_tokens, not max_tokens",
                            'set "max_tokens_field": "max_completion_tokens" in config.json')
_NO_COMPLETION_TOKENS = ("this server does not take max_completion_tokens",
                         'set "max_tokens_field": "max_tokens" in config.json')
_RESPONSES_FOR_TOOLS = ("tools with reasoning need the Responses API for this model",
                        'set "api": "responses" in config.json (or keep Chat Completions with '
                        '"extra_body": {"reasoning_effort": "none"})')


def config_fix(server: str) -> tuple[str, str] | None:
    """(what the server said it needs, the config.json change that gives it), or None.

    OpenAI's current models refuse max_tokens ("Unsupported parameter: 'max_tokens' is not
    supported with this model. Use 'max_completion_tokens' instead.", code
    unsupported_parameter), and over Chat Completions refuse tools with reasoning ("Function
    tools with reasoning_effort are not supported for MODEL in /v1/chat/completions. To use
    function tools, use /v1/responses or set reasoning_effort to 'none'."); servers that
    predate max_completion_tokens refuse that field. Sources in tests/provider_replies.py.
    """
    if "'max_tokens'" in server and "max_completion_tokens" in server:
        return _TAKES_COMPLETION_TOKENS
    if "max_completion_tokens" in server and ("nrecognized" in server or "nsupported" in server
                                              or "not supported" in server):
        return _NO_COMPLETION_TOKENS
    if "reasoning_effort" in server and "/v1/responses" in server:
        return _RESPONSES_FOR_TOOLS
    return None


def cut_off_line(config: Config, how: str) -> str:
    """A reply cut at max_tokens: the key, its value, a value that would fit (double, up to
    the preset's own limit) and that --continue goes on from there (README "Configuration")."""
    from planner.base.config import MAX_MAX_TOKENS

    preset = providers.PRESETS.get(providers.provider_for(config.provider, config.base_url) or "")
    most = min(MAX_MAX_TOKENS, preset.max_output if preset and preset.max_output else
               MAX_MAX_TOKENS)
    value = min(config.max_tokens * 2, most)
    if value <= config.max_tokens:
        return t('the reply was cut off at max_tokens ({how}): "max_tokens" is {value:,} in '
                 "{config}, already the most this model writes; ask for less with planner "
                 "--continue -r TEXT", how=how, value=config.max_tokens, config=config.file)
    return t('the reply was cut off at max_tokens ({how}): "max_tokens" is {value:,} in '
             "{config}; set it to {fits:,}, then planner --continue -r TEXT goes on from there",
             how=how, value=config.max_tokens, fits=value, config=config.file)
