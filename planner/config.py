"""Settings: defaults, loading config.json with clear errors, and finding the API key."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlsplit

DEFAULT_CONFIG_FILE = "config.json"


class ConfigError(ValueError):
    """config.json cannot be used; the message names the key."""


class MissingKey(ConfigError):
    """No API key in the environment and no terminal to ask on."""


# A NamedTuple, not a dataclass: building dataclasses costs ~1 ms each at every start-up.
class Prices(NamedTuple):
    """Price per million tokens, by kind of token."""

    currency: str = "USD"
    input_cache_hit: float = 0.0028
    input_cache_miss: float = 0.14
    output: float = 0.28


class Config(NamedTuple):
    """Everything config.json can set; defaults equal config.example.json."""

    model: str = "deepseek-v4-flash"
    base_url: str = "https://api.deepseek.com"
    api_key_env: str = "DEEPSEEK_API_KEY"
    timeout_seconds: float = 60
    max_tokens: int = 1024
    # Shared default: read only (build_request copies it into each body, never changes it).
    extra_body: dict = {"thinking": {"type": "disabled"}}
    prices: Prices = Prices()


def load_config(path: Path | None) -> Config:
    """Read config.json; a missing default file means the defaults, any bad key is an error."""
    if path is None:
        path = Path(DEFAULT_CONFIG_FILE)
        if not path.exists():
            return Config()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot be read ({error})") from None
    try:
        data = json.loads(text)
    except ValueError as error:
        raise ConfigError(f"{path}: is not valid JSON ({error})") from None
    return parse_config(data, str(path))


def parse_config(data: object, source: str = DEFAULT_CONFIG_FILE) -> Config:
    """Check a decoded config object key by key; never converts a value."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: must be a JSON object")
    defaults = Config()
    _no_unknown(data, set(Config._fields), source, "")
    values: dict = {}
    for key in ("model", "base_url", "api_key_env"):
        if key in data:
            values[key] = _text(data[key], source, key)
    if "base_url" in values:
        _check_url(values["base_url"], source)
    if "api_key_env" in values and not values["api_key_env"].replace("_", "").isalnum():
        raise ConfigError(f"{source}: key 'api_key_env' must be an environment variable name")
    if "timeout_seconds" in data:
        values["timeout_seconds"] = _number(data["timeout_seconds"], source, "timeout_seconds")
    if "max_tokens" in data:
        value = data["max_tokens"]
        if type(value) is not int or value < 1:
            raise ConfigError(f"{source}: key 'max_tokens' must be a positive integer")
        values["max_tokens"] = value
    if "extra_body" in data:
        if not isinstance(data["extra_body"], dict):
            raise ConfigError(f"{source}: key 'extra_body' must be an object (use {{}} for none)")
        values["extra_body"] = data["extra_body"]
    if "prices" in data:
        values["prices"] = _prices(data["prices"], source, defaults.prices)
    return defaults._replace(**values)


def _prices(data: object, source: str, defaults: Prices) -> Prices:
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: key 'prices' must be an object")
    _no_unknown(data, {"currency", "per_million_tokens"}, source, "prices.")
    values: dict = {}
    if "currency" in data:
        values["currency"] = _text(data["currency"], source, "prices.currency")
    per_million = data.get("per_million_tokens", {})
    if not isinstance(per_million, dict):
        raise ConfigError(f"{source}: key 'prices.per_million_tokens' must be an object")
    kinds = {"input_cache_hit", "input_cache_miss", "output"}
    _no_unknown(per_million, kinds, source, "prices.per_million_tokens.")
    for kind in kinds & set(per_million):
        name = f"prices.per_million_tokens.{kind}"
        values[kind] = _number(per_million[kind], source, name, allow_zero=True)
    return defaults._replace(**values)


def _check_url(url: str, source: str) -> None:
    """An http(s) URL with a host and a numeric port, so the HTTP client can never choke on it."""
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"{source}: key 'base_url' must start with http:// or https://")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError as error:
        raise ConfigError(f"{source}: key 'base_url' is not a valid URL ({error})") from None
    if not parts.hostname or any(char.isspace() or not char.isprintable() for char in url):
        raise ConfigError(f"{source}: key 'base_url' is not a valid URL (no host, or spaces)")


def _no_unknown(data: dict, known: set[str], source: str, prefix: str) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(
            f"{source}: unknown key '{prefix}{unknown[0]}' (known: {', '.join(sorted(known))})"
        )


def _text(value: object, source: str, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{source}: key '{key}' must be a non-empty string")
    return value


def _number(value: object, source: str, key: str, allow_zero: bool = False) -> float:
    ok = type(value) in (int, float) and math.isfinite(value)
    if not ok or value < 0 or (value == 0 and not allow_zero):
        rule = "zero or more" if allow_zero else "greater than zero"
        raise ConfigError(f"{source}: key '{key}' must be a number {rule}")
    return value


def find_api_key(config: Config, ask: Callable[[str], str] | None) -> str:
    """The key from the environment, else from `ask` (a hidden prompt), else MissingKey."""
    key = os.environ.get(config.api_key_env, "").strip()
    if key:
        return key
    if ask is not None:
        key = (ask(f"{config.api_key_env} (input hidden): ") or "").strip()
        if key:
            return key
    raise MissingKey(
        f"no API key: set {config.api_key_env} in the environment"
        " (or run in a terminal to type it at a hidden prompt)"
    )
