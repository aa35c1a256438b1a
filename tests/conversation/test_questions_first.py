"""Every question before the first call: the API key and the password of a CalDAV busy calendar
are asked before the first request reaches the model, never in the middle of a conversation.

The real `planner --request` runs in a pseudo-terminal against the stub model server
(tests/stub_server.py); the busy calendar's server is the discard port, which nothing answers.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import terminal
from conftest import env_with, run_dirs
from live_model import (
    CLI_TIMEOUT,
    KEY,
    KEY_ENV,
    REQUEST,
    explanation,
    plain,
    proposal,
    write_config,
)
from stub_server import StubServer
from terminal import finish

pytestmark = [pytest.mark.slow, pytest.mark.terminal]

CALDAV = "http://127.0.0.1:9/dav/"  # the discard port: nothing listens there
KEY_PROMPT = f"{KEY_ENV} (input hidden): "
PASSWORD_PROMPT = "CalDAV password for alice@127.0.0.1:9 (input hidden): "
SAVE_PROMPT = "Type SAVE to save this plan; anything else cancels: "


def no_keyring(key: str | None) -> dict[str, str]:
    """No keyring and no CalDAV password set: the password can only be typed; the key if given."""
    env = env_with(PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
                   **({KEY_ENV: key} if key else {}))
    env.pop("PLANNER_CALDAV_PASSWORD", None)
    return env


@pytest.mark.parametrize("key", [KEY, None], ids=["key-set", "key-asked"])
def test_the_password_is_asked_before_the_first_request(server: StubServer, home: Path,
                                                        key: str | None) -> None:
    server.add(proposal(), explanation())
    write_config(home, server.url, busy_calendars=[{"caldav": CALDAV, "user": "alice"}])
    child, seen = terminal.spawn("--request", REQUEST, env=no_keyring(key), columns=200,
                                 timeout=CLI_TIMEOUT)
    if key is None:
        child.expect_exact(KEY_PROMPT)
        assert server.requests == []
        child.sendline(KEY)
    child.expect_exact(PASSWORD_PROMPT)
    # Asked, and nothing has been sent to the model yet.
    assert server.requests == []
    assert run_dirs(home) == []
    child.sendline("a-password")
    # The plan is checked against busy time without a second question: the calendar cannot be
    # reached, so its busy time is unknown, and the plan is shown with it.
    child.expect_exact(SAVE_PROMPT)
    assert len(server.chat_requests()) == 1
    child.sendline("no")
    child.expect_exact("What should change? (Enter to finish): ")
    child.sendline("")
    assert finish(child) == 0
    screen = plain("".join(seen))
    assert screen.count("CalDAV password for") == 1, screen
    assert "cannot reach the CalDAV server at http://127.0.0.1:9/dav/" in screen
    assert list(home.glob("plans/*.json")) == []


def test_an_empty_password_ends_before_any_request(server: StubServer, home: Path) -> None:
    write_config(home, server.url, busy_calendars=[{"caldav": CALDAV, "user": "alice"}])
    child, seen = terminal.spawn("--request", REQUEST, env=no_keyring(KEY), columns=200,
                                 timeout=CLI_TIMEOUT)
    child.expect_exact(PASSWORD_PROMPT)
    child.sendline("")
    assert finish(child) == 2
    assert "no password was typed" in plain("".join(seen))
    assert server.requests == []
    assert run_dirs(home) == []
