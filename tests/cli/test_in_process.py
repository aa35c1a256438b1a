"""The tests' `planner` runner: a command run in the test process gives what the installed program
gives (exit code, stdout, stderr, files) and leaves the test process as it was; the stub server
run as a process always ends (README "What the tests prove")."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
import stub_server
from conftest import run_planner, snapshot

from planner.base import i18n

COMMANDS = [
    ("--help",), ("runs",), ("where",), ("runs", "--json"), ("show", "nosuchrun"),
    ("--no-such-option",), ("costs",), ("plans",), ("notes",),
]


def both_ways(monkeypatch: pytest.MonkeyPatch, home: Path, *args: str,
              env: dict[str, str] | None = None) -> tuple[tuple, tuple]:
    """The command in this process, then in a process of its own: exit code, stdout, stderr,
    and the files it left."""
    results = []
    for subprocess_every_time in ("", "1"):
        monkeypatch.setenv("PLANNER_TESTS_SUBPROCESS", subprocess_every_time)
        given = None if env is None else {**env, "PLANNER_TESTS_SUBPROCESS": subprocess_every_time}
        before = snapshot(home)
        result = run_planner(*args, env=given)
        after = snapshot(home)
        changed = {path: after[path] for path in after if before.get(path) != after[path]}
        results.append((result.returncode, result.stdout, result.stderr, changed))
    return results[0], results[1]


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_a_command_in_process_gives_what_the_program_gives(
        home: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]) -> None:
    in_process, own_process = both_ways(monkeypatch, home, *args)
    assert in_process == own_process


def test_a_chinese_command_leaves_this_process_english(home: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    env = {**os.environ, "LANGUAGE": "zh_CN", "COLUMNS": "80", "FORCE_COLOR": "1"}
    environment, folder, handlers = dict(os.environ), os.getcwd(), signal.getsignal(signal.SIGINT)
    in_process, own_process = both_ways(monkeypatch, home, "--help", env=env)
    assert in_process == own_process and "用法" in in_process[1]
    monkeypatch.delenv("PLANNER_TESTS_SUBPROCESS")
    assert i18n.language() == "en" and i18n.t("Error:") == "Error:"
    assert (dict(os.environ), os.getcwd(), signal.getsignal(signal.SIGINT)) == (
        environment, folder, handlers)
    # And the next command, in English, is English again, as a new process would be.
    assert run_planner("--help").stdout == run_planner("--help", env={
        **os.environ, "PLANNER_TESTS_SUBPROCESS": "1"}).stdout


def test_a_stub_server_that_ignores_sigterm_is_killed_and_waited_for(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stub_server, "TERM_GRACE", 0.5)
    server = stub_server.ServerProcess("--bench")
    server.process.send_signal(signal.SIGSTOP)  # stopped: SIGTERM waits, SIGKILL does not
    assert server.stop() == -signal.SIGKILL
    with pytest.raises(ProcessLookupError):
        os.kill(server.process.pid, 0)  # ended and reaped: no such process any more
    assert server.process.poll() == -signal.SIGKILL
