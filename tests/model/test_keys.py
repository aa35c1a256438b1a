"""Keys from where people keep them (README "Providers"): environment, api_key_cmd, OS keyring,
prompt.

Real parts: api_key_cmd runs a real subprocess (tests/key_command.py, a stand-in for a password
manager's command line); the keyring is the real `keyring` library with a backend chosen by
PYTHON_KEYRING_BACKEND (tests/keyring_backends.py), never the machine's own keyring. Every
failure is one line naming the source, and the key itself never reaches a message, a file, a
record or the screen.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import keyring.core
import pytest
from conftest import ROOT, all_files
from people import saying
from stub_server import Reply, StubServer, text_reply, tool_call_reply

from planner.base import providers
from planner.base import secrets as keys
from planner.base.config import ConfigError, MissingKey, parse_config
from planner.base.secrets import find_key
from planner.conversation.flow import run_flow
from planner.model.client import LiveClient
from planner.notes.catalog import SAMPLE_NOTES

COMMAND = [sys.executable, str(ROOT / "tests" / "key_command.py")]
SECRET = "sk-test-SECRET-0123456789abcdef"
STORED = "sk-stored-in-keyring-9876543210"


def config(**fields: object):
    """A DeepSeek config (key variable DEEPSEEK_API_KEY) with `fields` on top."""
    return parse_config({"provider": "deepseek", **fields})


def never_asked(prompt: str) -> str:
    raise AssertionError(f"the hidden prompt was shown: {prompt}")


@pytest.fixture
def file_keyring(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The keyring library with the test file backend; returns the file it writes."""
    path = tmp_path / "keyring.json"
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring_backends.FileKeyring")
    monkeypatch.setenv("PLANNER_TEST_KEYRING", str(path))
    monkeypatch.setattr(keyring.core, "_keyring_backend", None)  # chosen again from the env
    return path


@pytest.fixture
def broken_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring_backends.BrokenKeyring")
    monkeypatch.setattr(keyring.core, "_keyring_backend", None)


@pytest.fixture
def no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    """The library is installed but the machine has no keyring (a server, CI)."""
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    monkeypatch.setattr(keyring.core, "_keyring_backend", None)


# --- the order ---------------------------------------------------------------------------------


def test_the_environment_comes_first(monkeypatch, file_keyring: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    keys.set_key("deepseek", STORED)
    monkeypatch.setenv("DEEPSEEK_API_KEY", f"  {SECRET}  ")
    cfg = config(api_key_cmd=[*COMMAND, "touch", str(marker)])
    assert find_key(cfg, never_asked) == SECRET
    assert not marker.exists()  # the command was not even run
    assert keys.key_source(cfg, terminal=True) == keys.KeySource(
        "env", "the environment variable DEEPSEEK_API_KEY")


def test_the_command_comes_before_the_keyring(file_keyring: Path) -> None:
    keys.set_key("deepseek", STORED)
    cfg = config(api_key_cmd=[*COMMAND, "print", SECRET])
    # The first line of what it prints, stripped; the rest is never read as the key.
    assert find_key(cfg, never_asked) == SECRET
    source = keys.key_source(cfg, terminal=True)
    assert source.kind == "command" and "key_command.py print" in source.detail


def test_the_keyring_comes_before_the_prompt(file_keyring: Path) -> None:
    keys.set_key("deepseek", STORED)
    assert find_key(config(), never_asked) == STORED
    assert keys.key_source(config(), terminal=True, probe_keyring=True) == keys.KeySource(
        "keyring", "the OS keyring (service planner, user deepseek)")


def test_the_prompt_comes_last(file_keyring: Path) -> None:
    asked: list[str] = []
    assert find_key(config(), lambda prompt: asked.append(prompt) or SECRET) == SECRET
    assert asked == ["DEEPSEEK_API_KEY (input hidden): "]
    assert keys.key_source(config(), terminal=True, probe_keyring=True).kind == "prompt"


def test_nothing_anywhere_names_every_source(no_keyring: None) -> None:
    with pytest.raises(MissingKey) as caught:
        find_key(config(), None)
    line = str(caught.value)
    assert line.startswith("no API key: set DEEPSEEK_API_KEY in the environment")
    assert "api_key_cmd" in line and "planner key set" in line and "\n" not in line
    assert keys.key_source(config(), terminal=False, probe_keyring=True).kind == "missing"
    # Without asking the keyring (--dry-run) the keyring is named as a maybe.
    assert keys.key_source(config(), terminal=False).detail.endswith(
        "if it holds a key; else no key: DEEPSEEK_API_KEY is not set and there is no terminal "
        "to ask on")


def test_enter_at_the_prompt_says_no_key_was_typed(no_keyring: None) -> None:
    with pytest.raises(MissingKey) as caught:
        find_key(config(), lambda prompt: "  ")
    assert str(caught.value).startswith("no key was typed at the prompt")
    assert "terminal" not in str(caught.value)


def test_a_local_server_needs_no_key_and_asks_no_source() -> None:
    cfg = parse_config({"provider": "ollama"})
    assert find_key(cfg, never_asked) == providers.PLACEHOLDER_KEY
    assert keys.key_source(cfg, terminal=True).kind == "none"


def test_a_local_server_with_a_command_runs_it() -> None:
    cfg = parse_config({"provider": "vllm", "api_key_cmd": [*COMMAND, "print", SECRET]})
    assert find_key(cfg, never_asked) == SECRET


# --- api_key_cmd: a real subprocess, bounded, its output never shown ----------------------------


def test_a_command_in_a_deep_folder_is_named_by_its_program() -> None:
    deep = "/" + "/".join(["a-folder-deeper-than-usual"] * 8)
    shown = keys.shown_command([f"{deep}/bin/python", f"{deep}/key_command.py", "print", "x"])
    assert shown == ".../python .../key_command.py print x"
    assert keys.shown_command(["pass", "show", "openai"]) == "pass show openai"  # short: whole
    long_words = keys.shown_command(["echo", "x" * 300])
    assert len(long_words) == 120 and long_words.endswith("...")


def command_problem(*args: str) -> str:
    cfg = config(api_key_cmd=[*COMMAND, *args])
    with pytest.raises(keys.KeyProblem) as caught:
        find_key(cfg, never_asked)
    line = str(caught.value)
    assert "\n" not in line and line.startswith("api_key_cmd ")
    assert "key_command.py" in line  # names the command
    return line


def test_a_failing_command_is_one_line_without_its_output(
    capfd: pytest.CaptureFixture[str],
) -> None:
    line = command_problem("fail", SECRET)
    # Its stderr does not reach the screen either.
    assert "vault locked" not in "".join(capfd.readouterr())
    assert "failed (exit status 3)" in line
    # What it printed (on stdout and stderr) is never in the message.
    assert "vault locked" not in line
    assert line.count(SECRET) == 1 and line.endswith("run it yourself to see why")
    # The one SECRET in the line is the command's own argument, as config.json has it.
    assert f"fail {SECRET}" in line


def test_a_command_that_prints_nothing(tmp_path: Path) -> None:
    assert "printed no key" in command_problem("empty")
    assert "printed no key" in command_problem("blank")  # the first line is the key


def test_a_command_that_prints_a_megabyte_is_stopped() -> None:
    started = time.monotonic()
    line = command_problem("big")
    assert "printed more than 64 KiB" in line
    assert "sk-printed-before-a-megabyte" not in line and "xxx" not in line
    assert time.monotonic() - started < 5


def test_a_command_that_prints_without_end_is_stopped_at_the_limit() -> None:
    started = time.monotonic()
    assert "printed more than 64 KiB" in command_problem("flood")
    assert time.monotonic() - started < 5  # not at the 10-second timeout


@pytest.mark.not_under_faketime("libfaketime stretches a thread's timed join")
@pytest.mark.skipif(os.name != "posix", reason="sh")
def test_a_helper_the_command_leaves_running_does_not_hold_the_key_back(tmp_path: Path) -> None:
    # A password manager that starts an agent which keeps the output pipe open.
    agent = tmp_path / "agent.pid"
    cfg = config(api_key_cmd=["sh", "-c", f"echo {SECRET}; sleep 30 & echo $! > {agent}"])
    started = time.monotonic()
    try:
        assert find_key(cfg, never_asked) == SECRET
        assert time.monotonic() - started < 5
    finally:
        # The agent is the test's to end: no test leaves a process behind.
        with contextlib.suppress(FileNotFoundError, ValueError, ProcessLookupError):
            os.kill(int(agent.read_text()), signal.SIGKILL)


def test_a_command_that_prints_bytes_not_text() -> None:
    assert "not UTF-8 text" in command_problem("binary")


def test_a_hanging_command_is_ended_at_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    assert keys.COMMAND_TIMEOUT == 10  # README "Providers"; shortened here so the test is quick
    monkeypatch.setattr(keys, "COMMAND_TIMEOUT", 1.0)
    started = time.monotonic()
    line = command_problem("hang")
    assert "did not finish within 1 s" in line
    assert time.monotonic() - started < 4


def test_a_command_that_cannot_start() -> None:
    cfg = config(api_key_cmd=["/nonexistent/password-manager", "show", "openai"])
    with pytest.raises(keys.KeyProblem) as caught:
        find_key(cfg, never_asked)
    assert str(caught.value) == ("api_key_cmd /nonexistent/password-manager show openai could "
                                 "not be started: no such program")


@pytest.mark.skipif(os.name != "posix", reason="signals")
def test_a_command_killed_by_a_signal() -> None:
    cfg = config(api_key_cmd=["sh", "-c", "kill -TERM $$"])
    with pytest.raises(keys.KeyProblem, match="was ended by signal 15"):
        find_key(cfg, never_asked)


def test_the_command_runs_without_a_shell(tmp_path: Path) -> None:
    marker = tmp_path / "injected"
    # One argument with shell syntax in it stays one argument: nothing is interpreted.
    cfg = config(api_key_cmd=[*COMMAND, "print", f"sk-x; touch {marker}"])
    assert find_key(cfg, never_asked) == f"sk-x; touch {marker}"
    assert not marker.exists()


def test_a_key_an_http_header_cannot_carry_names_its_source() -> None:
    cfg = config(api_key_cmd=[*COMMAND, "print", "sk-ключ"])
    with pytest.raises(keys.KeyProblem, match="the key printed by api_key_cmd .* HTTP header"):
        find_key(cfg, never_asked)


@pytest.mark.parametrize("value", ["pass show openai", [], [""], ["pass", 3], ["a\0b"], {}])
def test_api_key_cmd_must_be_an_argument_list(value: object) -> None:
    with pytest.raises(ConfigError, match="'api_key_cmd' must be a list of arguments"):
        parse_config({"api_key_cmd": value})


def test_api_key_cmd_null_is_none() -> None:
    assert parse_config({"api_key_cmd": None}).api_key_cmd is None
    assert parse_config({"api_key_cmd": ["pass", "show", "x"]}).api_key_cmd == (
        "pass", "show", "x")


# --- the OS keyring ------------------------------------------------------------------------------


def test_set_forget_and_the_user_name(file_keyring: Path) -> None:
    keys.set_key("openai", f" {STORED}\n")
    assert json.loads(file_keyring.read_text()) == {"planner\nopenai": STORED}
    assert keys.keyring_key("openai") == STORED
    assert keys.forget_key("openai") is True
    assert keys.forget_key("openai") is False  # nothing stored: said, not an error
    assert keys.keyring_key("openai") is None


def test_without_a_provider_the_user_is_the_base_url_host(file_keyring: Path) -> None:
    cfg = parse_config({"base_url": "https://API.Example.com:8443/v1", "api_key_env": "EX_KEY"})
    assert keys.key_user(cfg) == "api.example.com"
    keys.set_key("api.example.com", STORED)
    assert find_key(cfg, never_asked) == STORED


@pytest.mark.parametrize("secret", ["", "   ", "sk-two\nlines", "sk-\x1b[2J", "sk-ключ"])
def test_a_key_that_cannot_be_sent_is_not_stored(file_keyring: Path, secret: str) -> None:
    with pytest.raises(keys.KeyProblem, match="nothing was stored|HTTP header"):
        keys.set_key("openai", secret)
    assert not file_keyring.exists()


def test_a_broken_keyring_is_one_line_and_never_shows_the_key(broken_keyring: None) -> None:
    with pytest.raises(keys.KeyProblem) as caught:
        find_key(config(), never_asked)
    assert str(caught.value) == ("the OS keyring could not be read (KeyringError: the keyring "
                                 "is locked (asked for planner/deepseek))")
    with pytest.raises(keys.KeyProblem) as caught:
        keys.set_key("deepseek", SECRET)
    line = str(caught.value)
    # The backend echoed the key in its error; the line has it cut out.
    assert SECRET not in line and "***" in line and "\n" not in line
    with pytest.raises(keys.KeyProblem, match="could not remove the key"):
        keys.forget_key("deepseek")
    # key status asks the keyring; --dry-run never does.
    assert keys.key_source(config(), terminal=True, probe_keyring=True).kind == "error"
    assert keys.key_source(config(), terminal=True).kind == "keyring"


def test_no_keyring_on_the_machine_falls_through_to_the_prompt(no_keyring: None) -> None:
    assert find_key(config(), lambda prompt: SECRET) == SECRET
    with pytest.raises(keys.KeyProblem, match="no OS keyring is available"):
        keys.set_key("deepseek", SECRET)


def test_without_the_keyring_library(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "keyring", None)  # import keyring raises ImportError
    assert find_key(config(), lambda prompt: SECRET) == SECRET
    with pytest.raises(keys.KeyProblem, match=r"pip install 'planner\[keyring\]'"):
        keys.set_key("deepseek", SECRET)


def test_dry_run_source_reads_no_secret(file_keyring: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    cfg = config(api_key_cmd=[*COMMAND, "touch", str(marker)])
    assert keys.key_source(cfg, terminal=True).kind == "command"
    assert not marker.exists()  # named, never run
    keys.set_key("deepseek", STORED)
    source = keys.key_source(config(), terminal=True)
    assert source == keys.KeySource(
        "keyring", "the OS keyring (service planner, user deepseek) if it holds a key; else "
                   "a hidden prompt for DEEPSEEK_API_KEY on the terminal")
    assert STORED not in repr(source)


# --- the key never reaches a file, a record or the screen ----------------------------------------


@pytest.mark.parametrize("where", ["command", "keyring"])
def test_a_whole_run_never_writes_or_shows_the_key(
    where: str, file_keyring: Path, home: Path, server: StubServer
) -> None:
    if where == "keyring":
        keys.set_key("deepseek", SECRET)
        cfg = config(base_url=server.url)
    else:
        cfg = config(base_url=server.url, api_key_cmd=[*COMMAND, "print", SECRET])
    # The server echoes the key back in its answers (as some error pages do).
    server.add(Reply(body=tool_call_reply()),
               Reply(body=text_reply(f"Saved. Your key {SECRET} was used.")))
    key = find_key(cfg, never_asked)
    person = saying(True)
    outcome = run_flow("Review N1 and N2 on 2026-10-05 for 20 minutes, title RAG basics",
                       client=LiveClient(cfg, key), person=person, home=home, config=cfg,
                       notes=SAMPLE_NOTES, mode="live")
    assert outcome.status == "complete"
    # The key was really used ...
    assert {r.headers["authorization"] for r in server.requests} == {f"Bearer {SECRET}"}
    # ... and is in no file under the home folder, no event shown, no outcome field.
    for path in all_files(home):
        assert SECRET.encode() not in path.read_bytes(), path
    assert SECRET not in repr(person.events) and SECRET not in repr(outcome)


# --- imported only when used --------------------------------------------------------------------


def test_keyring_is_imported_only_when_the_keyring_is_consulted() -> None:
    code = ("import os, sys\n"
            "os.environ['DEEPSEEK_API_KEY'] = 'sk-from-env-0123'\n"
            "from planner.base.config import parse_config\n"
            "from planner.base.secrets import find_key\n"
            "find_key(parse_config({}), None)\n"
            "print('keyring' in sys.modules)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT, timeout=60)
    assert result.stdout.strip() == "False", result.stderr
