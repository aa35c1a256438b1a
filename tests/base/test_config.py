"""Config keys and their bounds: good values accepted as given, bad ones refused naming the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.base.config import KEYS, Config, ConfigError, load_config, parse_config
from planner.base.jsonlimits import too_deep

GOOD = [
    ("max_calls", 2), ("max_calls", 20), ("max_calls", 6),
    ("max_repairs", 0), ("max_repairs", 5),
    ("notes_dir", None), ("notes_dir", "notes"), ("notes_dir", "/home/me/vault"),
    ("notes_dir", "我的笔记"),
    ("review_time", "00:00"), ("review_time", "23:59"), ("review_time", "07:30"),
    ("timeout_seconds", 600), ("timeout_seconds", 0.5), ("timeout_seconds", 599.9),
    ("max_tokens", 1), ("max_tokens", 1_000_000),
    ("extra_body", {}), ("extra_body", {"thinking": {"type": "enabled"}, "top_k": 5}),
    ("extra_body", {"Model": "x", "stream_options": {}}),  # not the fields planner sets
]


@pytest.mark.parametrize(("key", "value"), GOOD)
def test_good_values_are_taken_exactly(key: str, value: object) -> None:
    config = parse_config({key: value})
    assert getattr(config, key) == value
    assert type(getattr(config, key)) is type(value)
    assert config._replace(**{key: getattr(Config(), key)}) == Config()


def test_new_defaults() -> None:
    config = Config()
    assert (config.max_calls, config.max_repairs, config.notes_dir, config.review_time) == (
        6, 1, None, "19:00")
    assert parse_config({}) == config
    # Long enough for a 21-session study plan (about 1,400 tokens).
    assert config.max_tokens == 4096


@pytest.mark.parametrize("base_url", ["http://127.0.0.1:8080/v1", "https://llm.example.org/v1"])
def test_a_custom_endpoint_gets_no_presets_extra_body_and_no_prices(base_url: str) -> None:
    config = parse_config({"base_url": base_url, "model": "deepseek-v4-flash"})
    assert config.extra_body == {}
    assert not config.prices.applies_to("deepseek-v4-flash") and not config.prices.model
    # What the file gives is still taken; DeepSeek's own host keeps DeepSeek's defaults.
    given = parse_config({"base_url": base_url, "extra_body": {"thinking": {"type": "enabled"}},
                          "prices": {"per_million_tokens": {"output": 1.0}}})
    assert given.extra_body == {"thinking": {"type": "enabled"}}
    assert given.prices.applies_to(Config().model) and given.prices.output == 1.0
    deepseek = parse_config({"base_url": "https://api.deepseek.com/v1"})
    assert (deepseek.extra_body, deepseek.prices) == (Config().extra_body, Config().prices)


INF = float("inf")
BAD = [
    ("max_calls", [1, 21, 0, -6, True, False, 6.0, "6", None, 10**400, INF]),
    ("max_repairs", [-1, 6, True, 1.0, "1", None, 10**400]),
    ("notes_dir", [3, "", "   ", [], {}, True, "no\0te"]),
    ("review_time", ["7:00", "07:0", "24:00", "23:60", "19:00 ", " 19:00", "19:00\n", "1900",
                     "19-00", "19:00:00", "１９:００", "19:0٠", "", None, 1900, "ab:cd",
                     "-1:00"]),
    ("timeout_seconds", [0, -1, 601, 600.0001, 1e10, INF, float("nan"), 10**400, True, "60",
                         None]),
    ("max_tokens", [0, -1, 1_000_001, 10**400, 1024.0, True, "1024", None, INF]),
]


@pytest.mark.parametrize(("key", "value"), [(key, value) for key, values in BAD
                                            for value in values])
def test_bad_values_are_refused_naming_the_key(key: str, value: object) -> None:
    with pytest.raises(ConfigError, match=f"key '{key}' must be"):
        parse_config({key: value})


@pytest.mark.parametrize("kind", ["input_cache_hit", "input_cache_miss", "output"])
@pytest.mark.parametrize("value", [-0.01, 1_000_000.01, 1e308, INF, float("nan"), 10**400,
                                   True, "0.1", None])
def test_prices_have_an_upper_bound(kind: str, value: object) -> None:
    name = f"prices.per_million_tokens.{kind}"
    with pytest.raises(ConfigError, match=rf"key '{name}' must be a number from 0 to 1,000,000"):
        parse_config({"prices": {"per_million_tokens": {kind: value}}})
    for good in (0, 0.0, 1_000_000, 0.0028):
        prices = parse_config({"prices": {"per_million_tokens": {kind: good}}}).prices
        assert getattr(prices, kind) == good


@pytest.mark.parametrize("reserved", ["model", "messages", "tools", "tool_choice", "stream",
                                      "max_tokens", "n"])
def test_extra_body_cannot_replace_what_planner_sets(reserved: str) -> None:
    body = {"thinking": {"type": "disabled"}, reserved: None}
    with pytest.raises(ConfigError) as caught:
        parse_config({"extra_body": body})
    assert str(caught.value) == (f"config.json: key 'extra_body.{reserved}' is set by planner "
                                 "and cannot be replaced")


def test_review_time_error_says_the_form() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config({"review_time": "7pm"})
    assert str(caught.value) == (
        'config.json: key \'review_time\' must be a 24-hour time "HH:MM", e.g. "19:00"')


def test_unknown_key_is_still_refused_and_lists_the_new_keys() -> None:
    with pytest.raises(ConfigError, match="unknown key 'max_call'") as caught:
        parse_config({"max_call": 6})
    for key in ("max_calls", "max_repairs", "notes_dir", "review_time"):
        assert key in str(caught.value)


def test_the_example_config_sets_every_key() -> None:
    from conftest import ROOT

    data = json.loads((ROOT / "config.example.json").read_text(encoding="utf-8"))
    assert set(data) == KEYS and KEYS == set(Config._fields) - {"file"}
    assert parse_config(data) == Config()
    assert parse_config({"provider": None}) == Config()


# --- reading the file ---------------------------------------------------------------------------

def write(home: Path, data: bytes) -> Path:
    path = home / "config.json"
    path.write_bytes(data)
    return path


def test_a_missing_default_file_means_the_defaults(home: Path) -> None:
    assert load_config(None) == Config()
    with pytest.raises(ConfigError, match="nope.json: no such config file"):
        load_config(home / "nope.json")


def test_the_default_file_is_read(home: Path) -> None:
    write(home, json.dumps({"max_calls": 3, "review_time": "08:15"}).encode())
    config = load_config(None)
    assert (config.max_calls, config.review_time) == (3, "08:15")


@pytest.mark.parametrize(("data", "words"), [
    (b'{"model": "\xff"}', "is not UTF-8 text"),
    (b"\xff\xfe{\x00}\x00", "is not UTF-8 text"),  # UTF-16 is not accepted either
    (b"{model: x}", "is not valid JSON"),
    (b"[" * 65 + b"]" * 65, "JSON nested deeper than 64 levels"),
    (b"[" * 100_000, "JSON nested deeper than 64 levels"),
    # Past Python's 4,300-digit limit: named like any other number out of range (README "A screen
    # you can trust").
    (b'{"timeout_seconds": 1' + b"0" * 5000 + b"}", "key 'timeout_seconds' must be a number"),
    (b'{"model": "a", "model": "b"}', "repeats the key \"model\""),
    (b"[]", "must be a JSON object"),
])
def test_file_contents_that_cannot_be_used(home: Path, data: bytes, words: str) -> None:
    path = write(home, data)
    with pytest.raises(ConfigError, match=words) as caught:
        load_config(path)
    assert "\n" not in str(caught.value)


def test_64_levels_are_fine(home: Path) -> None:
    inner = '{"a": ' * 62 + "1" + "}" * 62  # extra_body itself and the file: 64 in all
    path = write(home, ('{"extra_body": ' + inner + "}").encode())
    assert load_config(path).extra_body["a"]["a"]["a"] is not None


def deep(text: str) -> bool:
    return too_deep(text, json.loads(text))


def test_depth_ignores_brackets_inside_strings() -> None:
    assert not deep(json.dumps({"model": "[" * 500 + "{" * 500}))
    assert deep("[" * 65 + "]" * 65)
    assert not deep("[" * 64 + "]" * 64)
    assert deep('{"a": ' * 65 + "1" + "}" * 65)
    assert not deep('{"a": ' * 64 + "1" + "}" * 64)
    assert deep("[" + "[]," * 100 + "[" * 64 + "]" * 64 + "]")  # the deep branch is the last
    assert not deep("[" + "[]," * 1000 + "[]]")  # wide, not deep
    assert not deep(json.dumps({"a": ['"\\"[[[[' * 100]}))  # escaped quotes in strings


# --- messages name the config file in use (README "Going on with a conversation")
# ---------------------------------------------


@pytest.mark.slow
def test_messages_name_the_config_file_given_with_c(home: Path, tmp_path: Path) -> None:
    from conftest import run_planner

    custom = tmp_path / "settings" / "work.json"
    custom.parent.mkdir()
    custom.write_text(json.dumps({"notes_dir": "vault"}))
    result = run_planner("-c", str(custom), "--dry-run")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (f"Error: notes_dir: vault does not exist; create it or change "
                             f"notes_dir in {custom}\n")
    # No key anywhere and no terminal: the advice names the same file.
    custom.write_text("{}")
    result = run_planner("-c", str(custom), "-r", "review N1")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"api_key_cmd in {custom}," in result.stderr and "config.json" not in result.stderr
    assert not (home / "tool-records").exists()


@pytest.mark.slow
def test_without_c_the_message_names_the_homes_config_json(home: Path, tmp_path: Path) -> None:
    from conftest import run_planner

    other = tmp_path / "other"
    other.mkdir()
    result = run_planner("--home", str(other), "-r", "review N1")
    assert result.returncode == 2
    assert f"api_key_cmd in {other / 'config.json'}," in result.stderr


def test_the_file_field_is_not_a_config_key() -> None:
    with pytest.raises(ConfigError, match="unknown key 'file'"):
        parse_config({"file": "x.json"})


@pytest.mark.slow
def test_a_server_error_names_the_config_file_in_use(home: Path, tmp_path: Path, server) -> None:
    import os

    from conftest import run_planner
    from stub_server import Reply

    custom = tmp_path / "lab.json"
    custom.write_text(json.dumps({"base_url": server.url, "model": "m"}))
    server.add(Reply(status=404, body={"error": {"message": "no such model"}}))
    result = run_planner("-c", str(custom), "-r", "review N1",
                         env={**os.environ, "DEEPSEEK_API_KEY": "sk-test"})
    assert result.returncode == 1
    assert (f"Error: 404: not found (“no such model”); check base_url and model in {custom}\n"
            in result.stderr)
