"""Pricing usage (known, unknown, cache-split fallbacks) and `planner costs`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from run_records import (
    PRICES,
    call,
    deepseek_usage,
    demo_runs,
    summary,
    tally_calls,
    write_config,
    write_run,
)
from typer.testing import CliRunner

from planner.cli.app import app
from planner.model import costs
from planner.records.summary import CallEntry, from_json

RUN_KEYS = ["run_id", "status", "calls", "unknown_calls", "input_cache_hit_tokens",
            "input_cache_miss_tokens", "output_tokens", "cost"]
TOTAL_KEYS = ["runs", "calls", "unknown_calls", "input_cache_hit_tokens",
              "input_cache_miss_tokens", "output_tokens", "cost"]


def costs_json(*args: str) -> dict:
    result = CliRunner().invoke(app, ["costs", "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# --- usage to tokens ----------------------------------------------------------------------------

def test_deepseek_split_is_used_as_given() -> None:
    assert costs.split_usage(deepseek_usage(700, 300, 55)) == (700, 300, 55)


def test_fallback_to_cached_tokens_then_to_all_misses() -> None:
    details = {"prompt_tokens": 1000, "completion_tokens": 10,
               "prompt_tokens_details": {"cached_tokens": 600}}
    assert costs.split_usage(details) == (600, 400, 10)
    assert costs.split_usage({"prompt_tokens": 1000, "completion_tokens": 10}) == (0, 1000, 10)
    # details present but without a cached count: all prompt tokens are misses
    no_cached = {"prompt_tokens": 9, "completion_tokens": 1, "prompt_tokens_details": {}}
    assert costs.split_usage(no_cached) == (0, 9, 1)
    # only half of the split: not a split, so the fallback applies
    half = {"prompt_tokens": 50, "completion_tokens": 5, "prompt_cache_hit_tokens": 20}
    assert costs.split_usage(half) == (0, 50, 5)


@pytest.mark.parametrize("usage", [
    None, "12", [], {},
    {"prompt_tokens": 10},  # no completion_tokens
    {"completion_tokens": 10},  # no prompt tokens at all
    {"prompt_tokens": -1, "completion_tokens": 1},
    {"prompt_tokens": True, "completion_tokens": 1},
    {"prompt_tokens": 10.0, "completion_tokens": 1},
    {"prompt_tokens": "10", "completion_tokens": 1},
    {"prompt_tokens": 10, "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": 11}},
    {"prompt_tokens": 10, "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": "1"}},
    {"completion_tokens": 1, "prompt_cache_hit_tokens": 1, "prompt_cache_miss_tokens": -2},
    # absurd counts: unknown, never an OverflowError when priced
    {"prompt_tokens": 10**400, "completion_tokens": 1},
    {"prompt_tokens": 10, "completion_tokens": 10**15 + 1},
    {"completion_tokens": 1, "prompt_cache_hit_tokens": 10**400, "prompt_cache_miss_tokens": 1},
    {"prompt_tokens": 10, "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens":
                                                                             10**400}},
    {"prompt_tokens": 1e400, "completion_tokens": 1},
])
def test_malformed_usage_is_unknown_never_zero(usage: object) -> None:
    assert costs.split_usage(usage) is None
    tally = tally_calls([CallEntry(usage=usage)])
    assert (tally.calls, tally.unknown_calls, tally.cost(PRICES)) == (1, 1, 0.0)


def test_prices_per_million_tokens() -> None:
    assert costs.price_tokens((1_000_000, 0, 0), PRICES) == 0.5
    assert costs.price_tokens((0, 1_000_000, 0), PRICES) == 2.0
    assert costs.price_tokens((0, 0, 1_000_000), PRICES) == 8.0
    assert costs.price_tokens((2100, 350, 90), PRICES) == 0.00247


def test_cost_has_no_float_noise() -> None:
    # 0.1 + 0.2 style noise would make 0.00015052800000000003 here without the rounding
    default = costs.Tally(input_cache_hit_tokens=2810, input_cache_miss_tokens=611,
                          output_tokens=204)
    prices = type("P", (), {"input_cache_hit": 0.0028, "input_cache_miss": 0.14, "output": 0.28})
    assert default.cost(prices) == 0.000150528


def test_the_largest_accepted_count_prices_without_overflow() -> None:
    usage = {"prompt_tokens": 10**15, "completion_tokens": 10**15}
    assert costs.split_usage(usage) == (0, 10**15, 10**15)
    huge = type("P", (), {"input_cache_hit": 1e6, "input_cache_miss": 1e6, "output": 1e6})
    tally = tally_calls([CallEntry(usage=usage)] * 20_000)
    # 2e19 miss and 2e19 output tokens at the highest price config accepts: finite
    assert tally.cost(huge) == 4e19


def test_tally_counts_every_call_and_keeps_the_unknown_apart() -> None:
    # Read as a summary's calls: an entry that is not an object is a call whose usage is unknown.
    calls = from_json(summary("x", calls=[
        {"usage": deepseek_usage(1000, 200, 50)}, {"usage": None}, "not a call", {},
    ])).calls
    tally = tally_calls(calls)
    assert tally.as_dict(PRICES) == {
        "calls": 4, "unknown_calls": 3, "input_cache_hit_tokens": 1000,
        "input_cache_miss_tokens": 200, "output_tokens": 50, "cost": 0.0013,
    }
    assert tally_calls(()).calls == 0


# --- planner costs ------------------------------------------------------------------------------

def test_unknown_usage_counts_apart_and_only_the_known_part_is_priced(home: Path) -> None:
    write_config(home)
    calls = [call(1, deepseek_usage(1000, 200, 50)), call(2, None, error="timeout after 60 s")]
    write_run(home, "20261120T010000000000Z-aaaaaa",
              summary("20261120T010000000000Z-aaaaaa", calls=calls, status="stopped"))
    report = costs_json()
    assert report["runs"] == [{
        "run_id": "20261120T010000000000Z-aaaaaa", "status": "stopped", "calls": 2,
        "unknown_calls": 1, "input_cache_hit_tokens": 1000, "input_cache_miss_tokens": 200,
        "output_tokens": 50, "cost": 0.0013,
    }]
    assert report["total"]["unknown_calls"] == 1
    assert report["total"]["cost"] == 0.0013


def test_cache_split_fallbacks_in_a_run(home: Path) -> None:
    write_config(home)
    cached = {"prompt_tokens": 1000, "completion_tokens": 10,
              "prompt_tokens_details": {"cached_tokens": 600}}
    plain = {"prompt_tokens": 1000, "completion_tokens": 10}
    write_run(home, "20261120T010000000000Z-bbbbbb",
              summary("20261120T010000000000Z-bbbbbb", calls=[call(1, cached), call(2, plain)]))
    (run,) = costs_json()["runs"]
    assert (run["input_cache_hit_tokens"], run["input_cache_miss_tokens"]) == (600, 1400)
    assert run["output_tokens"] == 20
    assert run["cost"] == (600 * 0.5 + 1400 * 2.0 + 20 * 8.0) / 1_000_000


def test_demo_runs_are_skipped_and_counted(home: Path) -> None:
    demo_runs(home, 2)
    write_run(home, "20200101T000000000000Z-cccccc", summary("20200101T000000000000Z-cccccc"))
    report = costs_json()
    assert report["simulated_runs_skipped"] == 2
    assert [run["run_id"] for run in report["runs"]] == ["20200101T000000000000Z-cccccc"]
    assert report["total"]["runs"] == 1


def test_json_shape_totals_and_order(home: Path) -> None:
    write_config(home)
    demo_runs(home, 1)
    for index in range(3):
        run_id = f"2026112{index}T010000000000Z-00000{index}"
        write_run(home, run_id, summary(run_id))
    write_run(home, "20261125T010000000000Z-broken", raw=b"{ not json")
    result = CliRunner().invoke(app, ["costs", "--json"])
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert list(report) == ["currency", "runs", "total", "simulated_runs_skipped"]
    assert report["currency"] == "CNY"
    assert [run["run_id"] for run in report["runs"]] == [
        "20261122T010000000000Z-000002", "20261121T010000000000Z-000001",
        "20261120T010000000000Z-000000",
    ]
    for run in report["runs"]:
        assert list(run) == RUN_KEYS
        assert isinstance(run["run_id"], str) and isinstance(run["status"], str)
        assert all(type(run[key]) is int for key in RUN_KEYS[2:7])
        assert type(run["cost"]) is float and run["cost"] == 0.00247
    assert list(report["total"]) == TOTAL_KEYS
    assert all(type(report["total"][key]) is int for key in TOTAL_KEYS[:6])
    assert report["total"] == {
        "runs": 3, "calls": 6, "unknown_calls": 0, "input_cache_hit_tokens": 6300,
        "input_cache_miss_tokens": 1050, "output_tokens": 270, "cost": 0.00741,
    }
    assert type(report["simulated_runs_skipped"]) is int
    # the damaged run is in neither list nor total; stdout stays one JSON object
    assert "damaged" in result.stderr


def test_limit_shortens_the_list_not_the_total(home: Path) -> None:
    for index in range(3):
        run_id = f"2026112{index}T010000000000Z-00000{index}"
        write_run(home, run_id, summary(run_id))
    report = costs_json("--limit", "1")
    assert [run["run_id"] for run in report["runs"]] == ["20261122T010000000000Z-000002"]
    assert report["total"]["runs"] == 3
    assert len(costs_json("--limit", "0")["runs"]) == 3


def test_no_records_is_an_empty_report(home: Path, tmp_path: Path) -> None:
    empty = {"runs": 0, "calls": 0, "unknown_calls": 0, "input_cache_hit_tokens": 0,
             "input_cache_miss_tokens": 0, "output_tokens": 0, "cost": 0.0}
    (tmp_path / "empty").mkdir()
    report = costs_json("--home", str(tmp_path / "empty"))
    assert report == {"currency": "USD", "runs": [], "total": empty, "simulated_runs_skipped": 0}
    (home / "tool-records").mkdir()
    (home / "tool-records" / ".gitkeep").write_text("")
    assert costs_json()["runs"] == []
    result = CliRunner().invoke(app, ["costs"])
    assert result.exit_code == 0
    assert result.stdout == "No runs in tool-records/ yet, so nothing has cost anything.\n"


def test_prices_come_from_the_config_given(home: Path, tmp_path: Path) -> None:
    write_run(home, "20261120T010000000000Z-dddddd", summary("20261120T010000000000Z-dddddd"))
    assert costs_json()["currency"] == "USD"  # built-in defaults
    config = write_config(tmp_path)
    assert costs_json("--config", str(config))["runs"][0]["cost"] == 0.00247
    result = CliRunner().invoke(app, ["--config", str(config), "costs", "--json"])
    assert json.loads(result.stdout)["currency"] == "CNY"
    bad = tmp_path / "bad.json"
    bad.write_text('{"prices": {"currency": 5}}', encoding="utf-8")
    result = CliRunner().invoke(app, ["costs", "--config", str(bad)])
    assert result.exit_code == 2
    assert "prices.currency" in result.stderr


def test_human_table_shows_the_known_part_and_what_was_left_out(home: Path) -> None:
    write_config(home)
    demo_runs(home, 1)
    calls = [call(1, deepseek_usage(1000, 200, 50)), call(2, None, error="HTTP 503")]
    write_run(home, "20200101T000000000000Z-eeeeee",
              summary("20200101T000000000000Z-eeeeee", calls=calls))
    write_run(home, "20200101T000000000000Z-ffffff", raw=b"")
    result = CliRunner().invoke(app, ["costs"])
    assert result.exit_code == 0
    assert "20200101T000000000000Z-eeeeee" in result.stdout
    assert "0.001300" in result.stdout
    assert "1 call(s) have unknown usage" in result.stdout
    assert "Left out: 1 simulated (demo) run(s)." in result.stdout
    assert "Left out: 1 damaged run(s)" in result.stdout


