"""Every network request has a total deadline (README "A screen you can trust"): a server that
answers a byte at a time
ends the request within the per-read timeout plus 5 s, with the timeout line, as a request that
never answers does.

The server here sends a status line, then one header line every second, never finishing: each
read gets something well within any timeout, so only a total deadline ends the request. The real
`planner` runs against it, on both model wires and for `planner sync --caldav`.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest
from conftest import all_files, read_summary, run_dirs, run_planner
from plan_files import save_review as save
from trickle_server import TrickleServer

# libfaketime stretches the timed waits the trickling server paces itself with.
pytestmark = pytest.mark.not_under_faketime("timed waits")

KEY = "sk-deadline-test-0123456789"
KEY_ENV = "DEEPSEEK_API_KEY"
REQUEST = "Review N1 and N2 in a week for 20 minutes, title RAG basics"
TIMEOUT = 3  # timeout_seconds: three times the gap between the server's lines
DEADLINE = TIMEOUT + 5
# planner's CalDAV read timeout is 30 s; this test's planner reads with 2 s (a process that
# sets caldav_sync.TIMEOUT_SECONDS, then runs planner's own main), so its deadline is 7 s.
CALDAV_READ = 2
CALDAV_DEADLINE = CALDAV_READ + 5
SHORT_CALDAV = ("import sys\nfrom planner.calendar import caldav_sync\n"
                f"caldav_sync.TIMEOUT_SECONDS = {CALDAV_READ}\n"
                "from planner.cli.app import main\nsys.argv = ['planner', *sys.argv[1:]]\nmain()\n")
MARGIN = 5  # start-up and a loaded machine
CLI_TIMEOUT = 50  # a planner still waiting this long has no deadline (and fails the test)


@pytest.fixture
def trickle():
    with TrickleServer() as server:
        yield server


def timed(*args: str, env: dict[str, str], command: tuple[str, ...] = ()
          ) -> tuple[float, object]:
    started = time.monotonic()
    result = run_planner(*args, env=env, timeout=CLI_TIMEOUT,
                         **({"command": command} if command else {}))
    return time.monotonic() - started, result


def error_lines(stderr: str) -> list[str]:
    assert "Traceback" not in stderr
    return [line for line in stderr.splitlines() if line.startswith("Error:")]


@pytest.mark.slow
@pytest.mark.timeout(90)
@pytest.mark.parametrize("api", ["chat", "responses"])
def test_a_model_that_answers_a_byte_at_a_time_ends_at_the_deadline(
        api: str, trickle: TrickleServer, home: Path) -> None:
    config = home / "config.json"
    config.write_text(json.dumps({"model": "stub-model", "base_url": trickle.url + "/v1",
                                  "api": api, "timeout_seconds": TIMEOUT, "max_tokens": 333,
                                  "max_calls": 2, "max_repairs": 0}), encoding="utf-8")
    seconds, result = timed("--request", REQUEST, env={**os.environ, KEY_ENV: KEY})

    assert seconds < DEADLINE + MARGIN, seconds
    assert result.returncode == 1, result.stderr
    path = "/v1/responses" if api == "responses" else "/v1/chat/completions"
    assert trickle.requests == [f"POST {path} HTTP/1.1".encode()]
    # Lines kept coming well past timeout_seconds: no read timed out, the deadline ended it.
    assert trickle.lines_sent > TIMEOUT + 1, trickle.lines_sent
    line = (f"the model did not answer within {TIMEOUT} s; try again later or raise "
            "timeout_seconds in config.json")  # the home is the working folder
    assert error_lines(result.stderr) == [f"Error: {line}"], result.stderr
    # Recorded as a request that never answers (test_live's "timeout").
    (folder,) = run_dirs(home)
    summary = read_summary(folder)
    assert (summary["status"], summary["stage"], summary["error"]) == (
        "stopped", "requesting", line)
    (call,) = summary["calls"]
    assert call["error"] == line and call["usage"] is None
    assert (DEADLINE - 1) * 1000 <= call["duration_ms"] < (DEADLINE + 2) * 1000, call
    record = json.loads((folder / "01-response.json").read_text(encoding="utf-8"))
    assert record == {"error": {"kind": "timeout"}}
    assert all_files(home / "plans") == []


@pytest.mark.slow
@pytest.mark.timeout(90)
def test_a_caldav_server_that_answers_a_byte_at_a_time_ends_at_the_deadline(
        trickle: TrickleServer, home: Path) -> None:
    plan = save(home, "20261201T090000000000Z-dead01", 2)
    before = plan.read_bytes()
    url = trickle.url + "/dav/"
    seconds, result = timed("sync", "--caldav", url, "--user", "alice",
                            env={**os.environ, "PLANNER_CALDAV_PASSWORD": "a-password-here"},
                            command=(sys.executable, "-c", SHORT_CALDAV))

    assert seconds < CALDAV_DEADLINE + MARGIN, seconds
    assert result.returncode == 1, result.stderr
    assert len(trickle.requests) == 1, trickle.requests
    assert trickle.lines_sent > CALDAV_READ + 2, trickle.lines_sent  # past any read timeout
    # The line of a server that never answers (test_caldav).
    assert error_lines(result.stderr) == [
        f"Error: cannot reach the CalDAV server at {url} (timed out); nothing was changed there"
    ], result.stderr
    assert result.stdout == ""
    assert plan.read_bytes() == before
