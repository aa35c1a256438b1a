"""A reply cut at max_tokens (README "Configuration"): one line names the key, its value, a value
that would fit (double, up to the preset's own limit) and that `planner --continue -r TEXT` goes
on from there; after the change, --continue sends the conversation with the new max_tokens. The
real openai SDK against the local stub server, on both wires."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import env_with, run_dirs, run_planner
from stub_server import Reply, StubServer, response, text_reply

from planner.base import providers

# Real processes against a local server: not in the quick lane (make check).
pytestmark = pytest.mark.slow

KEY = "sk-cut-off-test-0123456789"
REQUEST = "plan my exam weeks"


def _config(home: Path, url: str, **data: object) -> Path:
    path = home / "config.json"
    path.write_text(json.dumps({"base_url": url, "timeout_seconds": 5, **data}),
                    encoding="utf-8")
    return path


def test_a_cut_chat_reply_names_the_key_a_value_that_fits_and_continue(home: Path) -> None:
    with StubServer() as server:
        _config(home, server.url, model="stub-model")
        server.add(Reply(body=text_reply("Session 1: 2026-12-07 ...", finish_reason="length")))
        cut = run_planner("-r", REQUEST, env=env_with(DEEPSEEK_API_KEY=KEY))
        assert cut.returncode == 1
        line = ('Error: the reply was cut off at max_tokens (finish_reason length): "max_tokens" '
                "is 4,096 in config.json; set it to 8,192, then planner --continue -r TEXT goes on "
                "from there")
        assert line in cut.stderr.splitlines()
        assert not (home / "plans").exists()
        first = server.chat_requests()[0].body
        assert first["max_tokens"] == 4096
        # The person does as the line says: the same conversation goes out with the new value.
        _config(home, server.url, model="stub-model", max_tokens=8192)
        server.add(Reply(body=text_reply("Which notes should the plan cover?")))
        again = run_planner("--continue", "-r", "go on", env=env_with(DEEPSEEK_API_KEY=KEY))
        assert again.returncode == 0, again.stderr
        second = server.chat_requests()[1].body
        assert second["max_tokens"] == 8192
        assert second["messages"][:2] == first["messages"]
    assert len(run_dirs(home)) == 2


def test_the_suggested_value_stops_at_the_presets_own_limit(home: Path) -> None:
    most = providers.PRESETS["deepseek"].max_output
    assert most is not None
    with StubServer() as server:
        _config(home, server.url, provider="deepseek", max_tokens=6000)
        server.add(Reply(body=text_reply("Session 1", finish_reason="length")))
        cut = run_planner("-r", REQUEST, env=env_with(DEEPSEEK_API_KEY=KEY))
        assert cut.returncode == 1
        assert (f'"max_tokens" is 6,000 in config.json; set it to {most:,}, then planner '
                "--continue -r TEXT goes on from there") in cut.stderr
        _config(home, server.url, provider="deepseek", max_tokens=most)
        server.add(Reply(body=text_reply("Session 1", finish_reason="length")))
        at_most = run_planner("-r", REQUEST, env=env_with(DEEPSEEK_API_KEY=KEY))
        assert at_most.returncode == 1
        assert (f'"max_tokens" is {most:,} in config.json, already the most this model writes; ask '
                "for less with planner --continue -r TEXT") in at_most.stderr


@pytest.mark.parametrize("reasoning", [0, 4096])
def test_a_cut_responses_reply_says_the_same(home: Path, reasoning: int) -> None:
    cut_body = response([], "incomplete", incomplete={"reason": "max_output_tokens"},
                        usage_data={"input_tokens": 900, "output_tokens": 4096,
                                    "output_tokens_details": {"reasoning_tokens": reasoning}})
    with StubServer() as server:
        _config(home, server.url, provider="openai", api_key_env="DEEPSEEK_API_KEY")
        server.add(Reply(body=cut_body))
        cut = run_planner("-r", REQUEST, env=env_with(DEEPSEEK_API_KEY=KEY))
        assert cut.returncode == 1
        assert ("Error: the reply was cut off at max_tokens (status incomplete, "
                'max_output_tokens; reasoning tokens count against it too): "max_tokens" is '
                "4,096 in config.json; set it to 8,192, then planner --continue -r TEXT goes on "
                "from there") in cut.stderr.splitlines()
        assert server.responses_requests()[0].body["max_output_tokens"] == 4096
