"""Keys and costs through the real command line (README "Providers" and 21): `planner key
set/forget/
status`, what `--dry-run` says about the body and the key, a live run whose key lives in the
keyring, and costs priced only for the model the prices name.

The keyring is the real `keyring` library with the file backend of tests/keyring_backends.py,
chosen by PYTHON_KEYRING_BACKEND (never this machine's keyring). Every case runs the installed
`planner` as a subprocess; the hidden-prompt cases use a real pseudo-terminal and are slow.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import terminal
from conftest import ROOT, all_files, run_planner, snapshot
from stub_server import Reply, StubServer, text_reply, tool_call_reply, usage
from terminal import finish

from planner.base.secrets import shown_command

SECRET = "sk-typed-SECRET-0123456789abcdef"
STORED = "sk-stored-in-keyring-9876543210"
FROM_ENV = "sk-from-the-env-5555555555"
BACKEND = "keyring_backends.FileKeyring"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """The test keyring's file (the backend writes it on the first key stored)."""
    return tmp_path / "keyring.json"


def environment(store: Path, backend: str = BACKEND, **extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHON_KEYRING_BACKEND": backend, "PLANNER_TEST_KEYRING": str(store),
            "PYTHONPATH": str(ROOT / "tests"), **extra}


def stored(store: Path) -> dict[str, str]:
    """The test keyring's entries by user (service planner)."""
    if not store.exists():
        return {}
    entries = json.loads(store.read_text(encoding="utf-8"))
    return {key.split("\n", 1)[1]: value for key, value in entries.items()
            if key.startswith("planner\n")}


def keep(store: Path, **entries: str) -> None:
    """Put entries (user=secret, service planner) straight into the test keyring."""
    store.write_text(json.dumps({f"planner\n{user}": secret for user, secret in entries.items()}))


def one_error(result: subprocess.CompletedProcess) -> str:
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    return lines[0]


def config(home: Path, **data: object) -> None:
    (home / "config.json").write_text(json.dumps(data), encoding="utf-8")


# --- planner key set: refusals before any prompt ----------------------------------------------


def test_key_set_without_a_terminal_stores_nothing(home: Path, store: Path) -> None:
    refused = run_planner("key", "set", "openai", cwd=home, env=environment(store))
    assert refused.returncode == 2
    assert one_error(refused) == ("Error: planner key set reads the key at a hidden prompt; "
                                  "run it in a terminal (nothing was stored)")
    assert not store.exists()


def test_key_set_without_the_keyring_extra_says_how_to_install_it(home: Path,
                                                                  store: Path) -> None:
    code = ("import sys; sys.modules['keyring'] = None; sys.argv[0] = 'planner'; "
            "from planner.cli.app import main; main()")
    refused = run_planner("key", "set", "openai", command=(sys.executable, "-c", code),
                          cwd=home, env=environment(store))
    assert refused.returncode == 2
    assert one_error(refused) == ("Error: keeping keys in the OS keyring needs the keyring "
                                  f"library: {shlex.quote(sys.executable)} -m pip install "
                                  "'planner[keyring]'")
    assert not store.exists()


def test_key_set_on_a_machine_without_a_keyring(home: Path, store: Path) -> None:
    refused = run_planner("key", "set", "deepseek", cwd=home, env=environment(store,
                                                                              backend="keyring.backends.fail.Keyring"))
    assert refused.returncode == 2
    assert one_error(refused).startswith("Error: no OS keyring is available here")


@pytest.mark.parametrize("name", ["opneai", "two words", "caldav:@host"])
def test_key_set_for_no_known_provider_is_refused(home: Path, store: Path, name: str) -> None:
    refused = run_planner("key", "set", name, cwd=home, env=environment(store))
    assert refused.returncode == 2
    assert "names no provider" in one_error(refused)
    assert not store.exists()


# --- planner key set at a hidden prompt (a real pseudo-terminal) -------------------------------


@pytest.mark.slow
@pytest.mark.terminal
def test_key_set_stores_the_typed_key_and_never_shows_it(home: Path, store: Path) -> None:
    child, seen = terminal.spawn("key", "set", "openai", home=home, env=environment(store),
                                 columns=200, rows=40, timeout=60)
    child.expect_exact("Key for openai (input hidden): ")
    child.sendline(SECRET)
    assert finish(child) == 0
    shown = ANSI.sub("", "".join(seen))
    assert "Stored the key for openai in the OS keyring (service planner, user openai)." in shown
    assert SECRET not in shown  # not echoed as it was typed, nor afterwards
    assert stored(store) == {"openai": SECRET}
    for path in all_files(home):
        assert SECRET.encode() not in path.read_bytes()
    status = run_planner("key", "status", cwd=home, env=environment(store))
    assert "openai: the OS keyring (service planner, user openai)" in status.stdout.splitlines()
    assert SECRET not in status.stdout + status.stderr


@pytest.mark.slow
@pytest.mark.terminal
def test_key_set_with_enter_stores_nothing(home: Path, store: Path) -> None:
    child, seen = terminal.spawn("key", "set", "openai", home=home, env=environment(store),
                                 columns=200, rows=40, timeout=60)
    child.expect_exact("Key for openai (input hidden): ")
    child.sendline("")
    assert finish(child) == 2
    assert "Error: no key was typed; nothing was stored" in ANSI.sub("", "".join(seen))
    assert stored(store) == {}


@pytest.mark.slow
@pytest.mark.terminal
def test_key_set_says_when_a_run_would_still_use_another_source(home: Path,
                                                                 store: Path) -> None:
    # No PROVIDER: the configured one (deepseek). Its variable is set, and comes first.
    config(home, provider="deepseek")
    child, seen = terminal.spawn("key", "set", home=home,
                                 env=environment(store, DEEPSEEK_API_KEY=FROM_ENV), columns=200,
                                 rows=40, timeout=60)
    child.expect_exact("Key for deepseek (input hidden): ")
    child.sendline(SECRET)
    assert finish(child) == 0
    assert ("A run still takes its key from the environment variable DEEPSEEK_API_KEY first."
            in ANSI.sub("", "".join(seen)))
    assert stored(store) == {"deepseek": SECRET}


@pytest.mark.slow
@pytest.mark.terminal
def test_key_set_keeps_a_caldav_password(home: Path, store: Path) -> None:
    child, _seen = terminal.spawn("key", "set", "caldav:alice@dav.example.com", home=home,
                                  env=environment(store), columns=200, rows=40, timeout=60)
    child.expect_exact("Key for caldav:alice@dav.example.com (input hidden): ")
    child.sendline("the password")
    assert finish(child) == 0
    assert stored(store) == {"caldav:alice@dav.example.com": "the password"}


# --- planner key forget / status ----------------------------------------------------------------


def test_key_forget_removes_only_that_key(home: Path, store: Path) -> None:
    keep(store, openai=STORED, deepseek=SECRET)
    gone = run_planner("key", "forget", "openai", cwd=home, env=environment(store))
    assert gone.returncode == 0, gone.stderr
    assert gone.stdout == "Removed the key for openai from the OS keyring.\n"
    assert stored(store) == {"deepseek": SECRET}
    again = run_planner("key", "forget", "openai", cwd=home, env=environment(store))
    assert again.returncode == 0
    assert again.stdout == "No key for openai in the OS keyring; nothing was removed.\n"
    # No PROVIDER: the configured provider's key (no preset: the base_url's host).
    assert run_planner("key", "forget", cwd=home, env=environment(store)).stdout == (
        "No key for api.deepseek.com in the OS keyring; nothing was removed.\n")
    config(home, provider="deepseek")
    assert run_planner("key", "forget", cwd=home, env=environment(store)).stdout == (
        "Removed the key for deepseek from the OS keyring.\n")
    assert stored(store) == {}
    # A base_url host names a keyring entry too (as a config without a provider uses it).
    assert run_planner("key", "forget", "API.Example.com", cwd=home,
                       env=environment(store)).stdout == (
        "No key for api.example.com in the OS keyring; nothing was removed.\n")


def test_a_keyring_that_fails_is_one_line_that_never_shows_a_key(home: Path,
                                                                 store: Path) -> None:
    failed = run_planner("key", "forget", "openai", cwd=home, env=environment(store,
                                                                              backend="keyring_backends.BrokenKeyring"))
    assert failed.returncode == 1
    assert one_error(failed).startswith("Error: the OS keyring could not remove the key")
    status = run_planner("key", "status", cwd=home, env=environment(store,
                                                                    backend="keyring_backends.BrokenKeyring"))
    assert status.returncode == 0
    assert status.stdout.startswith("api.deepseek.com (configured): the OS keyring could not "
                                    "be read (KeyringError")
    assert len(status.stdout.splitlines()) == 1  # said once, not for every provider


def test_key_status_names_each_source_and_never_a_key(home: Path, store: Path,
                                                      tmp_path: Path) -> None:
    keep(store, openai=STORED, anthropic=STORED)
    marker = tmp_path / "ran"
    command = [sys.executable, str(ROOT / "tests" / "key_command.py"), "touch", str(marker)]
    config(home, provider="qwen", api_key_cmd=command)
    status = run_planner("key", "status", cwd=home, env=environment(store, GROQ_API_KEY=FROM_ENV))
    assert status.returncode == 0, status.stderr
    # The configured provider first, then the other presets that have a key somewhere.
    assert status.stdout.splitlines() == [
        f"qwen (configured): the output of api_key_cmd {shown_command(command)}",
        "openai: the OS keyring (service planner, user openai)",
        "anthropic: the OS keyring (service planner, user anthropic)",
        "groq: the environment variable GROQ_API_KEY",
    ]
    assert not marker.exists()  # the command is named, never run
    assert STORED not in status.stdout and FROM_ENV not in status.stdout


def test_key_status_without_the_keyring_extra_says_so(home: Path, store: Path) -> None:
    code = ("import sys; sys.modules['keyring'] = None; sys.argv[0] = 'planner'; "
            "from planner.cli.app import main; main()")
    env = {name: value for name, value in environment(store).items()
           if name != "PYTHON_KEYRING_BACKEND"}
    status = run_planner("key", "status", command=(sys.executable, "-c", code), cwd=home,
                         env=env)
    assert status.returncode == 0, status.stderr
    assert status.stdout == ("api.deepseek.com (configured): no key: DEEPSEEK_API_KEY is not set "
                             "and there is no terminal to ask on\n")
    assert status.stderr == ("The OS keyring is not used: it needs "
                             f"{shlex.quote(sys.executable)} -m pip install "
                             "'planner[keyring]'.\n")


# --- --dry-run: the body of the configured api, and where the key would come from --------------


def dry_run(home: Path, store: Path, *args: str, backend: str = BACKEND,
            **extra: str) -> tuple[dict, list[str]]:
    done = run_planner("--dry-run", *args, cwd=home, env=environment(store, backend=backend,
                                                                     **extra))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr.splitlines()


def test_dry_run_prints_the_responses_body_for_the_openai_preset(home: Path,
                                                                 store: Path) -> None:
    config(home, provider="openai")
    # A keyring that fails at every touch: the dry run never reads it.
    body, notes = dry_run(home, store, backend="keyring_backends.BrokenKeyring")
    assert "input" in body and "messages" not in body and body["store"] is False
    assert body["model"] == "gpt-6-luna"
    assert notes == [
        "Dry run: the first request live mode would send to https://api.openai.com/v1 "
        "(POST /responses). Nothing was sent; no key was read; nothing was written.",
        "Key for a live run: the OS keyring (service planner, user openai) if it holds a key; "
        "else no key: OPENAI_API_KEY is not set and there is no terminal to ask on.",
    ]


def test_dry_run_names_the_key_variable_and_never_shows_the_key(home: Path,
                                                                store: Path) -> None:
    body, notes = dry_run(home, store, DEEPSEEK_API_KEY=FROM_ENV)
    assert "messages" in body and body["max_tokens"] == 4096
    assert notes[0].endswith("(POST /chat/completions). Nothing was sent; no key was read; "
                             "nothing was written.")
    assert notes[1] == "Key for a live run: the environment variable DEEPSEEK_API_KEY."
    assert FROM_ENV not in json.dumps(body) + "".join(notes)


def test_dry_run_names_the_key_command_without_running_it(home: Path, store: Path,
                                                          tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    command = [sys.executable, str(ROOT / "tests" / "key_command.py"), "touch", str(marker)]
    config(home, provider="anthropic", api_key_cmd=command)
    body, notes = dry_run(home, store)
    assert body["model"] == "claude-haiku-5-5" and "messages" in body
    assert notes[1] == f"Key for a live run: the output of api_key_cmd {shown_command(command)}."
    assert not marker.exists()


# --- a live run: the key from the keyring; the cost only for the model the prices name ---------


def replies(server: StubServer) -> None:
    plan = {"title": "RAG basics", "note_ids": ["N1"], "date": "2099-01-05", "minutes": 20}
    server.add(Reply(body=tool_call_reply(plan, usage_data=usage(500, 40, hit=None))),
               Reply(body=text_reply("Nothing was saved.", usage_data=usage(550, 40, hit=None))))


@pytest.mark.slow
def test_a_run_takes_its_key_from_the_keyring(home: Path, store: Path,
                                              server: StubServer) -> None:
    # No provider: the keyring user is the base_url's host.
    config(home, base_url=server.url, model="deepseek-v4-flash")
    keep(store, **{"127.0.0.1": STORED})
    replies(server)
    done = run_planner("-r", "review N1 on 2099-01-05", cwd=home,
                       env=environment(store, NO_PROXY="127.0.0.1"))
    assert done.returncode == 0, done.stderr
    assert [request.headers["authorization"] for request in server.requests] == [
        f"Bearer {STORED}"] * 2
    assert STORED not in done.stdout + done.stderr
    for path in all_files(home):
        assert STORED.encode() not in path.read_bytes(), path
    # A custom endpoint (no provider) has no preset's prices, whatever its model's name.
    assert ("2 calls · 1,130 tokens · cost unknown (no prices for deepseek-v4-flash in config)"
            in done.stderr.splitlines())


@pytest.mark.slow
def test_another_models_run_has_no_invented_cost(home: Path, store: Path,
                                                 server: StubServer) -> None:
    config(home, base_url=server.url, model="local-model")
    replies(server)
    done = run_planner("-r", "review N1 on 2099-01-05", cwd=home,
                       env=environment(store, DEEPSEEK_API_KEY=FROM_ENV, NO_PROXY="127.0.0.1"))
    assert done.returncode == 0, done.stderr
    assert ("2 calls · 1,130 tokens · cost unknown (no prices for local-model in config)"
            in done.stderr.splitlines())
    before = snapshot(home)

    def costs(*args: str) -> object:
        result = run_planner(*args, "--json", cwd=home, env=environment(store))
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    report = costs("costs")
    assert [run["cost"] for run in report["runs"]] == [None]
    # No run priced: the total is unknown, not 0.000000.
    assert (report["total"]["output_tokens"], report["total"]["cost"]) == (80, None)
    assert "unknown" in run_planner("costs", cwd=home,
                                    env=environment(store)).stdout.split("total, 1 runs")[1]
    assert [run["cost"] for run in costs("runs")] == [None]
    assert costs("show", "last")["cost"] is None
    shown = run_planner("show", "last", cwd=home, env=environment(store))
    assert "unknown: config has no prices for local-model" in " ".join(shown.stdout.split())
    table = run_planner("runs", cwd=home, env=environment(store))
    assert "unknown" in table.stdout and "config has no prices (a custom endpoint gets none" in (
        " ".join(table.stdout.split()))
    # Prices for that model in config: the same records are priced, nothing rewritten.
    config(home, base_url=server.url, model="local-model",
           prices={"model": "local-model", "per_million_tokens": {
               "input_cache_hit": 0.0028, "input_cache_miss": 0.14, "output": 0.28}})
    priced = costs("costs")
    assert [run["cost"] for run in priced["runs"]] == [0.0001694]
    assert priced["total"]["cost"] == 0.0001694
    assert costs("show", "last")["cost"] == 0.0001694
    assert {path: value for path, value in snapshot(home).items()
            if not path.endswith("config.json")} == {
        path: value for path, value in before.items() if not path.endswith("config.json")}


# --- the README's Keys lines, run as written ----------------------------------------------------


@pytest.mark.slow
@pytest.mark.terminal
def test_the_readme_key_lines_run(home: Path, store: Path) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    body = text.split("\n## Keys\n", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```text\n(.*?)```", body, re.S)
    lines = [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]
    assert [words[:3] for words in lines] == [["planner", "key", "set"],
                                              ["planner", "key", "status"],
                                              ["planner", "key", "forget"]]
    child, _seen = terminal.spawn(*lines[0][1:], home=home, env=environment(store), columns=200,
                                  rows=40, timeout=60)
    child.expect_exact("Key for openai (input hidden): ")
    child.sendline(SECRET)
    assert finish(child) == 0
    assert stored(store) == {"openai": SECRET}
    status = run_planner(*lines[1][1:], cwd=home, env=environment(store))
    assert status.returncode == 0
    assert "openai: the OS keyring (service planner, user openai)" in status.stdout.splitlines()
    forget = run_planner(*lines[2][1:], cwd=home, env=environment(store))
    assert forget.stdout == "Removed the key for openai from the OS keyring.\n"
    assert stored(store) == {}
