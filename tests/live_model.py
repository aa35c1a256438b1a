"""The live model as the tests script it: its key, a good plan, its replies, a config."""

from __future__ import annotations

import datetime as dt
import json
import socket
import time
from pathlib import Path

import pexpect
from conftest import all_files, env_with, run_planner, today
from stub_server import (
    PLAN,
    Reply,
    text_reply,
    tool_call_reply,
    usage,
)
from terminal import ANSI, spawn

from planner.base.config import Config, load_config

KEY = "sk-SENTINEL-0123456789abcdef"
KEY_ENV = "DEEPSEEK_API_KEY"
MODEL = "stub-model"
MAX_TOKENS = 333
# A month ahead stays in the future if the run crosses a midnight.
FUTURE = (today() + dt.timedelta(days=30)).isoformat()
REQUEST = f"Review N1 and N2 on {FUTURE} for 20 minutes, title: RAG basics"
GOOD_PLAN = {**PLAN, "date": FUTURE}
USAGE_1 = usage(812, 46, hit=768)
USAGE_2 = usage(905, 31, hit=896)
EXPLANATION = "The program saved your plan; review N1 and N2 for 20 minutes on that day."
SLOW = 30.0  # a delay no test waits for: the server is stopped (and wakes) at teardown
CLI_TIMEOUT = 30  # seconds for any planner subprocess, so a hang fails instead of blocking


def write_config(home: Path, base_url: str, **overrides: object) -> Config:
    """Write home/config.json pointing at base_url and load it the way the CLI does."""
    data = {
        "model": MODEL,
        "base_url": base_url,
        "timeout_seconds": 5,
        "max_tokens": MAX_TOKENS,
        # Part one's strict two-call flow: no repair round, no call after the explanation.
        # The conversation tests (test_conversation.py) set their own limits.
        "max_calls": 2,
        "max_repairs": 0,
        **overrides,
    }
    path = home / "config.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return load_config(path)


def closed_port_url() -> str:
    """A base_url on 127.0.0.1 where nothing listens: connection refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def proposal(plan: dict | None = None, **fields: object) -> Reply:
    """A 200 reply proposing one save_review_plan call."""
    return Reply(body=tool_call_reply(plan or GOOD_PLAN, usage_data=USAGE_1, **fields))


def explanation(text: str = EXPLANATION) -> Reply:
    """A 200 reply with the model's explanation."""
    return Reply(body=text_reply(text, usage_data=USAGE_2))


def plan_files(home: Path) -> list[Path]:
    """Every file under home/plans (none when the folder does not exist)."""
    return all_files(home / "plans")


def run_cli(*args: str, key: str | None = KEY, env_extra: dict | None = None):
    """Run planner with no terminal at all: stdin closed and a new session without a tty."""
    env = env_with(**({KEY_ENV: key} if key else {}), **(env_extra or {}))
    return run_planner(*args, env=env, timeout=CLI_TIMEOUT)


def spawn_cli(*args: str, key: str | None = KEY) -> tuple[pexpect.spawn, list[str]]:
    """Run planner in a real pseudo-terminal; the second value collects everything it shows."""
    # As wide as the pseudo-terminal, so the plan panel is not wrapped.
    return spawn(*args, columns=200, timeout=CLI_TIMEOUT, **({KEY_ENV: key} if key else {}))


def wait_for(condition, seconds: float = 10.0) -> None:
    """Poll until condition() is true; fail after `seconds`."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.01)


def plain(text: str) -> str:
    """Terminal output without its escape sequences (NO_COLOR still allows bold and dim)."""
    return ANSI.sub("", text).replace("\r\n", "\n")


def one_line(text: str) -> str:
    """Plain text with whitespace (including terminal wrapping) folded to single spaces."""
    return " ".join(plain(text).split())
