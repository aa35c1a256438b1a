"""A CalDAV deadline is total, body included: a server that sends its headers at once and then
its body a byte at a time ends the request within the read timeout plus 5 s, for `sync`,
`sync --create` and busy time from a CalDAV busy calendar, as a model endpoint does.

The server here answers every request with its whole head (a 207 and a Content-Length), then
one byte of the body every BYTE_GAP seconds: each read gets something well within any read
timeout, so only a total deadline ends it. The real `planner` runs against it, started by a
process that lowers the 30 s read timeout to CALDAV_READ seconds (for `sync` in caldav_sync,
for busy time in read_busy's default) and then runs planner's own main.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path

import pytest
from conftest import all_files, run_planner, snapshot
from plan_files import save_review as save
from trickle_server import TrickleServer

# libfaketime stretches the timed waits the trickling server paces itself with.
pytestmark = [pytest.mark.not_under_faketime("timed waits"), pytest.mark.slow]

CALDAV_READ = 1  # seconds per read, in place of planner's 30
DEADLINE = CALDAV_READ + 5  # the read timeout plus planner's margin
MARGIN = 5  # start-up and a loaded machine
BYTE_GAP = 0.2  # seconds between the body's bytes: far inside any read timeout
CLI_TIMEOUT = 45  # a planner still waiting this long has no total deadline (and fails)
SHORT = ("import sys\nfrom planner.calendar import busy, caldav_sync\n"
         f"caldav_sync.TIMEOUT_SECONDS = {CALDAV_READ}\n"
         f"busy.read_busy.__kwdefaults__['timeout'] = {CALDAV_READ}\n"
         "from planner.cli.app import main\nsys.argv = ['planner', *sys.argv[1:]]\nmain()\n")
BODY = b'<?xml version="1.0" encoding="utf-8"?>\n<multistatus xmlns="DAV:">' + b" " * 4000


class BodyTrickleServer(TrickleServer):
    """TrickleServer's listener and request reading (tests/base/test_deadline.py), answering
    with a whole head at once, then its body one byte every BYTE_GAP seconds."""

    def __init__(self) -> None:
        super().__init__()
        self.bytes_sent = 0

    @property
    def url(self) -> str:
        return f"{super().url}/dav/"

    def _trickle(self, connection: socket.socket) -> None:
        with connection:
            connection.settimeout(5)
            try:
                self._read_request(connection)
                connection.sendall(b"HTTP/1.1 207 Multi-Status\r\n"
                                   b"Content-Type: application/xml; charset=utf-8\r\n"
                                   b"Content-Length: %d\r\n\r\n" % len(BODY))
                for byte in BODY:
                    if self._stop.wait(BYTE_GAP) or time.monotonic() > self._until:
                        return
                    connection.sendall(bytes([byte]))
                    with self._lock:
                        self.bytes_sent += 1
            except OSError:  # the client hung up: what a deadline does
                return


@pytest.fixture
def trickle():
    with BodyTrickleServer() as server:
        yield server


def timed(*args: str, env: dict[str, str] | None = None) -> tuple[float, object]:
    started = time.monotonic()
    result = run_planner(*args, env={**os.environ, **(env or {})}, timeout=CLI_TIMEOUT,
                         command=(sys.executable, "-c", SHORT))
    return time.monotonic() - started, result


def error_lines(stderr: str) -> list[str]:
    assert "Traceback" not in stderr
    return [line for line in stderr.splitlines() if line.strip()]


PASSWORD = {"PLANNER_CALDAV_PASSWORD": "a-password-here"}


@pytest.mark.timeout(90)
@pytest.mark.parametrize("create", [False, True], ids=["sync", "sync-create"])
def test_a_sync_whose_answer_trickles_ends_at_the_deadline(
        create: bool, trickle: BodyTrickleServer, home: Path) -> None:
    plan = save(home, "20261201T090000000000Z-body01", 2)
    before = snapshot(home)
    seconds, result = timed("sync", "--caldav", trickle.url, "--user", "alice",
                            *(["--calendar", "reviews", "--create"] if create else []),
                            env=PASSWORD)

    assert seconds < DEADLINE + MARGIN, seconds
    assert result.returncode == 1, result.stderr
    assert len(trickle.requests) == 1, trickle.requests
    # Bytes kept coming well past the read timeout: no read timed out, the deadline ended it.
    assert trickle.bytes_sent > (CALDAV_READ + 2) / BYTE_GAP, trickle.bytes_sent
    assert error_lines(result.stderr) == [
        f"Error: cannot reach the CalDAV server at {trickle.url} (timed out); nothing was "
        "changed there"], result.stderr
    assert result.stdout == ""
    assert snapshot(home) == before
    assert plan.exists()


@pytest.mark.timeout(90)
def test_busy_time_whose_answer_trickles_ends_at_the_deadline(
        trickle: BodyTrickleServer, home: Path) -> None:
    (home / "config.json").write_text(json.dumps({
        "busy_calendars": [{"caldav": trickle.url, "user": "alice"}]}), encoding="utf-8")
    before = snapshot(home)
    seconds, result = timed("week", "--json", env=PASSWORD)

    assert seconds < DEADLINE + MARGIN, seconds
    assert result.returncode == 0, result.stderr
    assert len(trickle.requests) == 1, trickle.requests
    assert trickle.bytes_sent > (CALDAV_READ + 2) / BYTE_GAP, trickle.bytes_sent
    # One line: the server timed out, so its busy time is unknown (never free).
    assert error_lines(result.stderr) == [
        f"cannot reach the CalDAV server at {trickle.url} (timed out); its busy time is "
        "unknown"], result.stderr
    assert json.loads(result.stdout)["days"]
    assert snapshot(home) == before
    assert all_files(home / "plans") == []
