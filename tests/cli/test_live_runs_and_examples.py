"""Live runs from the command line: the line with tokens and cost at their end, and every
example in the help and in the README run as typed, against a local scripted model.

Every case runs the installed `planner` with no terminal (stdin closed, a new session) and
checks the exit code, the message and what is, and is not, on disk.
"""


from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, env_with, run_dirs, run_planner
from run_records import (
    COMMANDS,
    demo_runs,
)
from stub_server import Reply, StubServer, text_reply, tool_call_reply, usage

# --- the line at the end of a live run ----------------------------------------------------------


@pytest.fixture
def server(home: Path):
    """A scripted Chat Completions server, with home/config.json pointing at it (and prices
    for its model: prices belong to the model they name)."""
    with StubServer() as stub:
        (home / "config.json").write_text(json.dumps({"base_url": stub.url, "model": "m",
                                                      "prices": {"model": "m"}}))
        yield stub


def live(home: Path, *args: str) -> subprocess.CompletedProcess:
    return run_planner(*args, env=env_with(DEEPSEEK_API_KEY="sk-test", NO_PROXY="127.0.0.1",
                                           no_proxy="127.0.0.1"))


def plan_reply(usage_data: object) -> Reply:
    plan = {"title": "RAG basics", "note_ids": ["N1"], "date": "2099-01-05", "minutes": 20}
    return Reply(body=tool_call_reply(plan, usage_data=usage_data))


@pytest.mark.slow
def test_a_live_run_ends_with_its_tokens_and_cost(home: Path, server: StubServer) -> None:
    # 1,050 input tokens, all cache misses, and 80 output: (1050*0.14 + 80*0.28) / 1e6.
    server.add(plan_reply(usage(500, 40, hit=None)),
               Reply(body=text_reply("Nothing was saved.", usage_data=usage(550, 40, hit=None))))
    result = live(home, "-r", "review N1 on 2099-01-05")
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert "2 calls · 1,130 tokens · $0.0002" in lines
    (folder,) = run_dirs(home)
    # Under it, where the records are; the cost is what `planner costs` says.
    assert lines.index("2 calls · 1,130 tokens · $0.0002") + 1 == lines.index(
        f"Records: tool-records/{folder.name}")
    assert json.loads(run_planner("costs", "--json").stdout)["total"]["cost"] == 0.0001694
    assert "Asking" not in result.stdout + result.stderr  # no terminal: no waiting line


@pytest.mark.slow
def test_a_live_run_with_unknown_usage_says_so(home: Path, server: StubServer) -> None:
    plan = tool_call_reply({"title": "RAG basics", "note_ids": ["N1"], "date": "2099-01-05",
                            "minutes": 20})
    explanation = text_reply("Nothing was saved.")
    del plan["usage"], explanation["usage"]
    server.add(Reply(body=plan), Reply(body=explanation))
    result = live(home, "-r", "review N1 on 2099-01-05")
    assert result.returncode == 0, result.stderr
    assert "2 calls · cost unknown (no usage reported)" in result.stderr.splitlines()
    server.add(plan_reply(usage(500, 40, hit=None)), Reply(body=explanation))
    result = live(home, "-r", "review N1 on 2099-01-05")
    line = ("2 calls · 540 tokens known · cost unknown (1 call(s) without usage; the rest "
            "$0.0001)")
    assert line in result.stderr.splitlines()


@pytest.mark.slow
def test_a_failed_live_run_still_counts_its_calls(home: Path, server: StubServer) -> None:
    server.add(Reply(status=503, body={"error": {"message": "overloaded"}}))
    result = live(home, "-r", "review N1 on 2099-01-05")
    assert result.returncode == 1
    assert "1 call · cost unknown (no usage reported)" in result.stderr.splitlines()
    assert not (home / "plans").exists()


def test_the_demo_has_no_cost_line(home: Path) -> None:
    result = run_planner("--demo")
    assert result.returncode == 0
    assert " · " not in result.stderr and "cost" not in result.stderr


# --- the examples people copy ------------------------------------------------------------------


def help_examples() -> list[str]:
    """Every example in `planner -h` and in each command's help."""
    found = []
    text = run_planner("-h").stdout
    block = text.split("Examples:")[1].split("\n\n")[0]
    found += [re.split(r"\s{2,}", line.strip())[0] for line in block.splitlines()
              if line.strip()]
    for command in COMMANDS:
        (line,) = [row for row in run_planner(command,
                                              "-h").stdout.splitlines() if "Example:" in row]
        found.append(line.split("Example:")[1].strip())
    return found


def readme_examples() -> list[str]:
    """Every `planner ...` line in the README's shell blocks."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = []
    for block in re.findall(r"```(?:sh|shell|console|bash)\n(.*?)```", text, re.S):
        lines += [line.strip().removeprefix("$ ") for line in block.splitlines()
                  if line.strip().removeprefix("$ ").startswith("planner ")]
    return lines


def run_example(home: Path, server: StubServer, line: str) -> subprocess.CompletedProcess:
    words = shlex.split(line, comments=True)
    assert words[0] == "planner", line
    server.add(plan_reply(usage(500, 40)), Reply(body=text_reply("Nothing was saved.")))
    return live(home, *words[1:])


@pytest.mark.slow
def test_the_help_examples_run(home: Path, server: StubServer) -> None:
    examples = help_examples()
    assert len(examples) == 6 + len(COMMANDS), examples
    demo_runs(home, 2)  # so that `show -2` has a run to open
    for line in examples:
        result = run_example(home, server, line)
        assert result.returncode == 0, (line, result.stderr)
        assert "Traceback" not in result.stdout + result.stderr, line
    assert not (home / "plans.ics").exists()  # nothing upcoming to export: nothing written


@pytest.mark.slow
def test_the_readme_examples_run(home: Path, server: StubServer) -> None:
    examples = readme_examples()
    assert examples, "the README shows how planner is used"
    demo_runs(home, 2)
    for line in examples:
        result = run_example(home, server, line)
        assert result.returncode == 0, (line, result.stderr)
        assert "Traceback" not in result.stdout + result.stderr, line
