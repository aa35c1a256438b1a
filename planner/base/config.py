"""Settings: defaults, loading config.json with clear errors, and finding the API key."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from planner.base import days, providers, storage, strictjson, study_hours
from planner.base import goals as goals_module
from planner.base.errors import UsageError
from planner.base.i18n import LANGUAGES, t
from planner.base.inert import short
from planner.base.oserrors import os_reason

DEFAULT_CONFIG_FILE = "config.json"

# Upper bounds (README "A screen you can trust"): a typo or a hostile file cannot ask for an
# hour-long wait, an unbounded bill, or a number that overflows once it is multiplied.
MAX_TIMEOUT_SECONDS = 600
MAX_MAX_TOKENS = 1_000_000
MAX_PRICE = 1_000_000
CALLS_RANGE = (2, 20)
REPAIRS_RANGE = (0, 5)
# FSRS's target chance of recalling a note when it falls due (README "Review memory"); schedule.py's
# bounds.
RETENTION_RANGE = (0.70, 0.99)
# Body fields planner sets itself (Chat Completions and Responses); extra_body may add fields,
# never replace these.
RESERVED_BODY_KEYS = ("model", "messages", "tools", "tool_choice", "stream", "max_tokens", "n",
                      "max_completion_tokens", "input", "store", "include", "max_output_tokens")
MAX_CALENDAR_NAME = 100
# The wire formats (README "Providers") and the fields that can carry max_tokens over Chat
# Completions.
APIS = ("chat", "responses")
MAX_TOKENS_FIELDS = ("max_tokens", "max_completion_tokens")
# api_key_cmd: a short argument list, never a shell string.
MAX_KEY_CMD_ARGS = 64
MAX_KEY_CMD_ARG = 4096
# README "Your week": the most minutes of review planned on one day, and where busy time is read
# from.
DAILY_MINUTES_RANGE = (5, 600)
MINUTES_PER_NOTE_RANGE = (5, 60)
MAX_BUSY_SOURCES = 10
BUSY_KINDS = ("ics", "vdir", "caldav")
# What a busy calendar's all-day events are (README "Calendars"); left out: busy.
ALL_DAY = ("free", "busy")
# Exactly 2+2 ASCII digits ([0-9], not \d, which also matches other scripts' digits).
# $NAME or ${NAME} in a path of the config (notes_dir, busy_calendars' ics and vdir).
_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_PATH_KINDS = ("ics", "vdir")
# A URL or path longer than any server or file system takes is refused at load, never passed on
# (httpx refuses a URL past 65,536 characters with its own error; a path past PATH_MAX or a part
# past NAME_MAX is an OSError at its first use).
MAX_URL_CHARS = 8192
MAX_PATH_CHARS = 4096
MAX_PATH_PART = 255


class ConfigError(UsageError, ValueError):
    """config.json cannot be used; the message names the key."""


class MissingKey(ConfigError):
    """No API key in the environment and no terminal to ask on."""


# A NamedTuple, not a dataclass: building dataclasses costs ~1 ms each at every start-up.
class Prices(NamedTuple):
    """Price per million tokens, by kind of token, for one model (README "Going on with a
    conversation")."""

    currency: str = "USD"
    input_cache_hit: float = 0.0028
    input_cache_miss: float = 0.14
    output: float = 0.28
    # The model these prices are for: a run with another model has no known cost.
    model: str = "deepseek-v4-flash"

    def applies_to(self, model: object) -> bool:
        """Whether a call to `model` is priced at these prices (the model name decides)."""
        return isinstance(model, str) and bool(self.model) and model == self.model


# A custom endpoint's prices until config.json gives some: for no model, so every cost is
# unknown, never zero (README "Providers"). Prices given without every number still take the
# numbers left out from here, as they always have.
NO_PRICES = Prices(model="")


class Config(NamedTuple):
    """Everything config.json can set; defaults equal config.example.json."""

    model: str = "deepseek-v4-flash"
    base_url: str = "https://api.deepseek.com"
    # None: a local server that takes any key (providers.PLACEHOLDER_KEY is sent).
    api_key_env: str | None = "DEEPSEEK_API_KEY"
    timeout_seconds: float = 60
    max_tokens: int = 4096
    # Shared default: read only (build_request copies it into each body, never changes it).
    extra_body: dict[str, object] = {"thinking": {"type": "disabled"}}
    prices: Prices = Prices()
    max_calls: int = 6
    max_repairs: int = 1
    # A folder of Markdown notes, relative to the home folder; None: notes/ if it exists.
    notes_dir: str | None = None
    # "HH:MM", 24-hour, local time: when exported plans start.
    review_time: str = "19:00"
    # A preset name (providers.PRESETS) that fills the keys config.json leaves out.
    provider: str | None = None
    # The body field that carries max_tokens over Chat Completions (README "Providers").
    max_tokens_field: str = "max_tokens"
    # "chat": POST /chat/completions; "responses": POST /responses (the Responses API).
    api: str = "chat"
    # A command that prints the key (an argument list, run without a shell); None: not used.
    api_key_cmd: tuple[str, ...] | None = None
    # The chance of recall FSRS schedules each note's next review for (0.70-0.99, README "Review
    # memory").
    desired_retention: float = 0.9
    # The calendar's name in exports, the feed, the vdir and CalDAV sync (README "Calendars").
    calendar_name: str = "planner reviews"
    # The language of every program line: "auto" (the environment's), "en" or "zh" (README
    # "中文界面").
    language: str = "auto"
    # When the person studies (README "Your week"), by weekday; None: one daily window from
    # review_time.
    study_hours: Mapping[str, tuple[tuple[int, int], ...]] | None = None
    # The most planned review minutes on one day; None: no limit.
    daily_minutes: int | None = None
    # The minutes one note takes in planner's own plan for a goal (README "A study plan to a
    # goal"): a session of k notes lasts k times this.
    minutes_per_note: int = 15
    # Calendars whose events are busy time, only ever read: {"ics"|"vdir"|"caldav": ...}.
    busy_calendars: tuple[Mapping[str, str], ...] = ()
    # Exams and trips, each with its day and its notes (README "A study plan to a goal").
    goals: tuple[goals_module.Goal, ...] = ()
    # Anki's collection.anki2, only ever read: its daily reviews count against daily_minutes
    # (README "Your week"); kept as written, expanded where it is read (planner.memory.anki_load).
    anki_collection: str | None = None
    # Not a key of the file: the file these settings came from (-c PATH, or the home's
    # config.json even when absent), so a message that says what to change names it (README "Going
    # on with a conversation").
    file: str = DEFAULT_CONFIG_FILE


# The keys a config file may set: every field but `file`.
KEYS = frozenset(Config._fields) - {"file"}


def load_config(path: Path | None, home: Path | None = None) -> Config:
    """Read config.json; a missing default file means the defaults, any bad key is an error.

    busy_calendars' paths come back expanded from the file's folder (expand_path), for use
    from `home` (None: the file's own folder); when that folder is the home, a plain relative
    one stays as written, so it is named as the person wrote it."""
    default = path is None
    if path is None:
        path = Path(DEFAULT_CONFIG_FILE)
    try:
        # A FIFO, a device, a folder or a huge file is refused at once, never waited on.
        data = storage.read_regular_file(path, storage.MIB)
    except FileNotFoundError:
        if default:
            return Config()
        raise ConfigError(t("{path}: no such config file", path=path)) from None
    except storage.FileRefused as error:
        raise ConfigError(t("{error}; the config must be a plain JSON file", error=error)) from None
    except OSError as error:
        raise ConfigError(t("{path}: cannot be read ({reason})", path=path,
                           reason=os_reason(error))) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(t("{path}: is not UTF-8 text ({reason} at byte {byte})", path=path,
                            reason=error.reason, byte=error.start)) from None
    try:
        # Every config number has a range: one too large to read is named with its key.
        value = strictjson.loads(text, overflow_as_infinity=True)
    except strictjson.JSONRefused as error:
        raise ConfigError(t("{path}: {problem}", path=path, problem=error)) from None
    return _busy_paths(parse_config(value, str(path)), path, home)


def expand_path(value: str, config_file: str | os.PathLike[str]) -> Path:
    """A path of the config as planner uses it: $VAR and ${VAR} replaced by the variable's
    value, ~ by the home folder, and a relative path taken from the folder of `config_file` (the
    file it was read from), made absolute. parse_config keeps paths as written (and checks that
    their variables are set); load_config gives busy_calendars' paths expanded, and notes_dir
    is expanded where it is used (planner.notes.catalog), so messages can show it as written."""
    folder = os.path.dirname(os.fspath(config_file))
    return Path(os.path.abspath(os.path.join(folder, expand_user(value))))


def expand_user(value: str) -> str:
    """`value` with $VAR and ${VAR} replaced by the variable's value (an unset one stays as
    written) and ~ by the home folder; a relative path stays relative (--config's value)."""
    expanded = _VARIABLE.sub(lambda found: os.environ.get(found[1] or found[2], found[0]), value)
    return os.path.expanduser(expanded)


def unset_variables(value: str) -> list[str]:
    """The $VAR and ${VAR} of `value` that are not set, as written."""
    return [found[0] for found in _VARIABLE.finditer(value)
            if (found[1] or found[2]) not in os.environ]


def _busy_paths(config: Config, path: Path, home: Path | None) -> Config:
    """The config with busy_calendars' files and folders expanded from the config's folder."""
    if not config.busy_calendars:
        return config
    in_home = home is None or os.path.abspath(path.parent) == os.path.abspath(home)

    def expanded(text: str) -> str:
        plain = not os.path.isabs(text) and not text.startswith("~") and "$" not in text
        return text if in_home and plain else str(expand_path(text, path))

    return config._replace(busy_calendars=tuple(
        {name: expanded(text) if name in _PATH_KINDS else text
         for name, text in source.items()} for source in config.busy_calendars))


def _set_variables(value: str, source: str, key: str) -> str:
    """A path whose every $VAR is set: an unset one is a config error naming it."""
    for found in _VARIABLE.finditer(value):
        if (found[1] or found[2]) not in os.environ:
            raise ConfigError(t("{source}: key '{key}' uses the variable {variable}, which is not "
                                "set", source=source, key=key, variable=short(found[0])))
    return value


def parse_config(data: object, source: str = DEFAULT_CONFIG_FILE) -> Config:
    """Check a decoded config object key by key; never converts a value."""
    if not isinstance(data, dict):
        raise ConfigError(t("{source}: must be a JSON object", source=source))
    defaults = Config()
    _no_unknown(data, set(KEYS), source, "")
    values = _endpoint_values(data, source, defaults)
    _add_request_values(data, source, defaults, values)
    _add_study_values(data, source, defaults, values)
    return defaults._replace(**values)


def _endpoint_values(data: dict[str, Any], source: str, defaults: Config) -> dict[str, Any]:
    """The keys of the endpoint, checked: the provider's preset, then model, base_url, the key."""
    # The preset first, so that every key given explicitly replaces its value.
    # provider null: no preset, as when the key is left out.
    values: dict[str, Any] = _preset(data["provider"], source) if data.get("provider") is not None \
        else {}
    for key in ("model", "base_url", "api_key_env"):
        if key in data:
            # api_key_env null: a local server that needs no key.
            values[key] = None if key == "api_key_env" and data[key] is None \
                else _text(data[key], source, key)
    if "base_url" in data:
        _check_url(values["base_url"], source)
    if data.get("provider") is None and providers.provider_for(
            None, values.get("base_url", defaults.base_url)) != "deepseek":
        # A custom endpoint: no preset's extra_body (DeepSeek's thinking) or prices.
        values.update(extra_body={}, prices=NO_PRICES)
    if values.get("api_key_env") is not None \
            and not values["api_key_env"].replace("_", "").isalnum():
        raise ConfigError(t("{source}: key 'api_key_env' must be an environment variable name",
                            source=source))
    return values


def _add_request_values(data: dict[str, Any], source: str, defaults: Config,
                        values: dict[str, Any]) -> None:
    """The keys of each request (limits, body, API, key command, prices), checked into `values`."""
    if "timeout_seconds" in data:
        values["timeout_seconds"] = _number(
            data["timeout_seconds"], source, "timeout_seconds", MAX_TIMEOUT_SECONDS
        )
    if "max_tokens" in data:
        values["max_tokens"] = _integer(data["max_tokens"], source, "max_tokens",
                                        (1, MAX_MAX_TOKENS))
    if "max_calls" in data:
        values["max_calls"] = _integer(data["max_calls"], source, "max_calls", CALLS_RANGE)
    if "max_repairs" in data:
        values["max_repairs"] = _integer(data["max_repairs"], source, "max_repairs",
                                         REPAIRS_RANGE)
    if "extra_body" in data:
        values["extra_body"] = _extra_body(data["extra_body"], source)
    if "max_tokens_field" in data:
        values["max_tokens_field"] = _choice(data["max_tokens_field"], source,
                                             "max_tokens_field", MAX_TOKENS_FIELDS)
    if "api" in data:
        values["api"] = _choice(data["api"], source, "api", APIS)
    if "api_key_cmd" in data:
        values["api_key_cmd"] = _key_command(data["api_key_cmd"], source)
    if "prices" in data:
        # Prices given without a model are for the model this config uses.
        model = values.get("model", defaults.model)
        values["prices"] = _prices(data["prices"], source,
                                   values.get("prices", defaults.prices), model)


def _add_study_values(data: dict[str, Any], source: str, defaults: Config,
                      values: dict[str, Any]) -> None:
    """The keys of the notes, reviews, study hours, calendars and goals, checked into `values`."""
    if "notes_dir" in data:
        values["notes_dir"] = _notes_dir(data["notes_dir"], source)
    if "review_time" in data:
        values["review_time"] = _review_time(data["review_time"], source)
    if "desired_retention" in data:
        values["desired_retention"] = _retention(data["desired_retention"], source)
    if "calendar_name" in data:
        values["calendar_name"] = _calendar_name(data["calendar_name"], source)
    if "language" in data:
        values["language"] = _choice(data["language"], source, "language", LANGUAGES)
    if data.get("study_hours") is not None:  # null: from review_time, as when left out
        try:
            values["study_hours"] = study_hours.parse(data["study_hours"])
        except study_hours.BadStudyHours as error:
            raise ConfigError(t("{source}: key 'study_hours' {problem}", source=source,
                                problem=error)) from None
    if "daily_minutes" in data and data["daily_minutes"] is not None:
        values["daily_minutes"] = _integer(data["daily_minutes"], source, "daily_minutes",
                                           DAILY_MINUTES_RANGE)
    if "minutes_per_note" in data:
        values["minutes_per_note"] = _integer(data["minutes_per_note"], source,
                                              "minutes_per_note", MINUTES_PER_NOTE_RANGE)
    if "busy_calendars" in data:
        values["busy_calendars"] = _busy_calendars(data["busy_calendars"], source)
    if "anki_collection" in data:
        values["anki_collection"] = _anki_collection(data["anki_collection"], source)
    if "goals" in data:
        # A goal without retention wants the config's desired_retention on its day.
        retention = values.get("desired_retention", defaults.desired_retention)
        try:
            values["goals"] = goals_module.parse(data["goals"], retention)
        except goals_module.BadGoals as error:
            raise ConfigError(t("{source}: {problem}", source=source, problem=error)) from None


def study_windows(config: Config) -> Mapping[str, tuple[tuple[int, int], ...]]:
    """The study hours in force: study_hours, else the window review_time means (README "Your
    week")."""
    if config.study_hours is not None:
        return config.study_hours
    return study_hours.from_review_time(config.review_time)


def _preset(name: object, source: str) -> dict[str, Any]:
    """The values a provider preset fills in (README "Providers")."""
    preset = providers.PRESETS.get(name) if isinstance(name, str) else None
    if preset is None:
        raise ConfigError(t("{source}: key 'provider' must be one of {names}", source=source,
                            names=", ".join(providers.PRESETS)))
    currency, hit, miss, output = preset.prices
    return {
        "provider": preset.name,
        "base_url": preset.base_url,
        "api_key_env": preset.api_key_env,
        "model": preset.model,
        "extra_body": preset.extra_body,
        # The preset's prices are for the preset's model only.
        "prices": Prices(currency, hit, miss, output, preset.model),
        "api": preset.api,
        "max_tokens_field": preset.max_tokens_field,
    }


def _extra_body(value: object, source: str) -> dict[str, object]:
    if not isinstance(value, dict):
        # {} as a value: a template holds no literal braces (a translator sees only placeholders).
        raise ConfigError(t("{source}: key 'extra_body' must be an object (use {empty} for none)",
                            source=source, empty="{}"))
    for key in value:
        if key in RESERVED_BODY_KEYS:
            raise ConfigError(t("{source}: key 'extra_body.{key}' is set by planner and cannot be "
                                "replaced", source=source, key=short(key)))
    return value


def _choice(value: object, source: str, key: str, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ConfigError(_choice_rule(source, key, allowed))
    return value


def _choice_rule(source: str, key: str, allowed: tuple[str, ...]) -> str:
    """`key must be "a" or "b"`: one template per number of choices, so each is translated."""
    if len(allowed) == 2:
        return t("{source}: key '{key}' must be \"{first}\" or \"{second}\"", source=source,
                 key=key, first=allowed[0], second=allowed[1])
    if len(allowed) == 3:
        return t("{source}: key '{key}' must be \"{first}\" or \"{second}\" or \"{third}\"",
                 source=source, key=key, first=allowed[0], second=allowed[1],
                 third=allowed[2])
    names = " or ".join(f'"{name}"' for name in allowed)
    return t("{source}: key '{key}' must be {names}", source=source, key=key, names=names)


def _key_command(value: object, source: str) -> tuple[str, ...] | None:
    """api_key_cmd: a list of arguments (never one shell string), or null for none."""
    if value is None:
        return None
    rule = t("{source}: key 'api_key_cmd' must be a list of arguments, e.g. "
             '["pass", "show", "openai"] (never one shell string), or null', source=source)
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_KEY_CMD_ARGS:
        raise ConfigError(rule)
    for item in value:
        if not isinstance(item, str) or "\0" in item or len(item) > MAX_KEY_CMD_ARG:
            raise ConfigError(rule)
    if not value[0].strip():
        raise ConfigError(rule)
    return tuple(value)


def _notes_dir(value: object, source: str) -> str | None:
    if value is None:
        return None
    # A NUL cannot be in a path; refused here rather than as an error deep inside a run.
    if not isinstance(value, str) or not value.strip() or "\0" in value:
        raise ConfigError(t("{source}: key 'notes_dir' must be a folder path (a string) or null",
                            source=source))
    _path_length(value, source, "notes_dir")
    return _set_variables(value, source, "notes_dir")


def _anki_collection(value: object, source: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or "\0" in value \
            or not value.isprintable():
        raise ConfigError(t("{source}: key 'anki_collection' must be the path of Anki's "
                            "collection.anki2 (a string) or null", source=source))
    _path_length(value, source, "anki_collection")
    return _set_variables(value, source, "anki_collection")


def _review_time(value: object, source: str) -> str:
    if not isinstance(value, str) or days.parse_clock(value) is None:
        raise ConfigError(t("{source}: key 'review_time' must be a 24-hour time \"HH:MM\", e.g. "
                            "\"19:00\"", source=source))
    return value


def _busy_calendars(value: object, source: str) -> tuple[Mapping[str, str], ...]:
    """busy_calendars: a list of sources, each one .ics file, one vdir folder or one CalDAV URL."""
    if not isinstance(value, list) or len(value) > MAX_BUSY_SOURCES:
        raise ConfigError(t("{source}: key 'busy_calendars' must be a list of at most {most} "
                            "sources, e.g. [{example}]", source=source, most=MAX_BUSY_SOURCES,
                            example='{"vdir": "~/.calendars/classes"}'))
    sources = []
    for number, entry in enumerate(value, 1):
        key = f"busy_calendars[{number}]"
        kinds = [kind for kind in BUSY_KINDS if isinstance(entry, dict) and kind in entry]
        if len(kinds) != 1:
            raise ConfigError(t("{source}: key '{key}' must be an object with one of \"ics\", "
                                "\"vdir\" or \"caldav\"", source=source, key=key))
        kind = kinds[0]
        allowed = {"caldav", "calendar", "user"} if kind == "caldav" else {kind}
        _no_unknown(entry, allowed | {"all_day"}, source, f"{key}.")
        if "all_day" in entry:
            # Its all-day events: busy (the calendar standard's default) or free (birthdays).
            _choice(entry["all_day"], source, f"{key}.all_day", ALL_DAY)
        checked = {name: _text(entry[name], source, f"{key}.{name}") for name in entry}
        if any("\0" in text or not text.isprintable() for text in checked.values()):
            raise ConfigError(t("{source}: key '{key}' holds a control character", source=source,
                                key=key))
        if kind == "caldav":
            _check_url(checked["caldav"], source, f"{key}.caldav")
        else:
            _path_length(checked[kind], source, f"{key}.{kind}")
            _set_variables(checked[kind], source, f"{key}.{kind}")
        sources.append(checked)
    return tuple(sources)


def _calendar_name(value: object, source: str) -> str:
    # One short line: it is the calendar's name in every calendar program (X-WR-CALNAME, NAME).
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_CALENDAR_NAME \
            or not value.isprintable():
        raise ConfigError(t("{source}: key 'calendar_name' must be a calendar name: one line of "
                            "1 to {most} printable characters", source=source,
                            most=MAX_CALENDAR_NAME))
    return value


def _retention(value: object, source: str) -> float:
    low, high = RETENTION_RANGE
    # Plain comparisons: False for NaN and for the inf an overflowing number decodes to.
    if isinstance(value, (int, float)) and type(value) is not bool and low <= value <= high:
        return float(value)
    raise ConfigError(t("{source}: key 'desired_retention' must be a number from {low:.2f} to "
                        "{high:.2f} (the chance of recall a review is scheduled for, e.g. 0.9)",
                        source=source, low=low, high=high))


def _prices(data: object, source: str, defaults: Prices, model: str) -> Prices:
    if not isinstance(data, dict):
        raise ConfigError(t("{source}: key 'prices' must be an object", source=source))
    _no_unknown(data, {"currency", "per_million_tokens", "model"}, source, "prices.")
    values: dict[str, Any] = {"model": _text(data["model"], source, "prices.model")
                              if "model" in data else model}
    if "currency" in data:
        values["currency"] = _text(data["currency"], source, "prices.currency")
    per_million = data.get("per_million_tokens", {})
    if not isinstance(per_million, dict):
        raise ConfigError(t("{source}: key 'prices.per_million_tokens' must be an object",
                            source=source))
    kinds = {"input_cache_hit", "input_cache_miss", "output"}
    _no_unknown(per_million, kinds, source, "prices.per_million_tokens.")
    for kind in kinds & set(per_million):
        name = f"prices.per_million_tokens.{kind}"
        values[kind] = _number(per_million[kind], source, name, MAX_PRICE, allow_zero=True)
    return defaults._replace(**values)


def _check_url(url: str, source: str, key: str = "base_url") -> None:
    """An http(s) URL with a host and a numeric port, so the HTTP client can never choke on it."""
    if not url.startswith(("http://", "https://")):
        raise ConfigError(t("{source}: key '{key}' must start with http:// or https://",
                            source=source, key=key))
    if len(url) > MAX_URL_CHARS:
        raise ConfigError(t("{source}: key '{key}' is not a valid URL (longer than {most:,} "
                            "characters)", source=source, key=key, most=MAX_URL_CHARS))
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError as error:
        raise ConfigError(t("{source}: key '{key}' is not a valid URL ({reason})",
                            source=source, key=key, reason=short(error))) from None
    if not parts.hostname or any(char.isspace() or not char.isprintable() for char in url):
        raise ConfigError(t("{source}: key '{key}' is not a valid URL (no host, or spaces)",
                            source=source, key=key))


def _path_length(value: str, source: str, key: str) -> None:
    """A path no file system refuses for its length: it would be an OSError at its first use."""
    if len(value) > MAX_PATH_CHARS or any(len(part.encode("utf-8", "surrogatepass"))
                                          > MAX_PATH_PART for part in value.split("/")):
        raise ConfigError(t("{source}: key '{key}' is too long for a path (at most {most:,} "
                            "characters, {part} bytes between two /)", source=source, key=key,
                            most=MAX_PATH_CHARS, part=MAX_PATH_PART))


def _no_unknown(data: Mapping[str, object], known: set[str], source: str, prefix: str) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(t("{source}: unknown key '{key}' (known: {known})", source=source,
                            key=short(f"{prefix}{unknown[0]}"), known=", ".join(sorted(known))))


def _text(value: object, source: str, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(t("{source}: key '{key}' must be a non-empty string", source=source,
                            key=key))
    return value


def _number(value: object, source: str, key: str, most: int, allow_zero: bool = False) -> float:
    # Plain comparisons, no float(): they are False for NaN and inf (JSON 1e400 decodes to inf)
    # and never overflow on a 400-digit integer.
    if isinstance(value, (int, float)) and type(value) is not bool \
            and (0 <= value if allow_zero else 0 < value) and value <= most:
        return value
    if allow_zero:
        raise ConfigError(t("{source}: key '{key}' must be a number from 0 to {most:,}",
                            source=source, key=key, most=most))
    raise ConfigError(t("{source}: key '{key}' must be a number greater than 0 and at most "
                        "{most:,}", source=source, key=key, most=most))


def _integer(value: object, source: str, key: str, bounds: tuple[int, int]) -> int:
    # type() is int, not isinstance: true and false are not numbers here.
    if type(value) is not int or not bounds[0] <= value <= bounds[1]:
        raise ConfigError(t("{source}: key '{key}' must be a whole number from {low} to {high:,}",
                            source=source, key=key, low=bounds[0], high=bounds[1]))
    return value

