"""Help and options (README "Looking back"): plain planner and -h, every command's help and
example, wrong options, the short options, an ASCII-only terminal.

Every case runs the installed `planner` with no terminal (stdin closed, a new session) and
checks the exit code, the message and what is, and is not, on disk.
"""


from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import all_files, env_with, one_error, run_dirs, run_planner, snapshot
from run_records import (
    COMMANDS,
    NEWEST,
    three_runs,
)

# --- help, -h, plain planner, wrong options ----------------------------------------------------


def test_plain_planner_and_h_show_the_help(home: Path) -> None:
    full = run_planner("--help")
    assert full.returncode == 0 and full.stderr == ""
    for args in ([], ["-h"]):
        result = run_planner(*args)
        assert (result.returncode, result.stdout, result.stderr) == (0, full.stdout, "")
    for words in ("-h, --help", "-r, --request TEXT", "-n, --dry-run", "-c, --config",
                  "-V, --version", "PLANNER_HOME", "Examples:", "planner show last"):
        assert words in full.stdout, words
    assert all_files(home) == []


def test_plain_planner_with_planner_home_set_still_shows_the_help(home: Path) -> None:
    result = run_planner(env=env_with(PLANNER_HOME=str(home)))
    assert result.returncode == 0 and result.stdout.startswith("Usage: planner")
    assert all_files(home) == []


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_h_and_one_example(home: Path, command: str) -> None:
    short, long = run_planner(command, "-h"), run_planner(command, "--help")
    assert short.returncode == long.returncode == 0
    assert short.stdout == long.stdout and short.stderr == ""
    examples = [line for line in short.stdout.splitlines() if "Example:" in line]
    assert len(examples) == 1 and f"Example: planner {command}" in examples[0]
    # The help fits an 80-column terminal without being wrapped by it.
    assert max(len(line) for line in short.stdout.splitlines()) <= 80
    assert all_files(home) == []


def test_the_command_list_says_what_each_does_in_full(home: Path) -> None:
    listing = run_planner("-h").stdout.split("Commands:")[1]
    for command in COMMANDS:
        (line,) = [row for row in listing.splitlines() if row.strip().startswith(command + " ")]
        assert not line.endswith("..."), line  # short help, not a cut docstring


@pytest.mark.parametrize(
    "args", [["--bogus"], ["-x"], ["runs", "--bogus"], ["show", "--jsn"], ["costs", "-q"]],
    ids=["--bogus", "-x", "runs --bogus", "show --jsn", "costs -q"])
def test_a_wrong_option_is_exit_2(home: Path, args: list[str]) -> None:
    three_runs(home)
    before = snapshot(home)
    result = run_planner(*args)
    assert result.returncode == 2 and result.stdout == ""
    assert "no such option" in result.stderr.lower() and args[-1] in result.stderr
    assert "Traceback" not in result.stderr
    assert snapshot(home) == before


# --- short options -----------------------------------------------------------------------------


def test_n_and_r_are_dry_run_and_request(home: Path) -> None:
    assert run_planner("-n").stdout == run_planner("--dry-run").stdout
    short = run_planner("-n", "-r", "明天复习N3十分钟")
    assert short.returncode == 0
    assert short.stdout == run_planner("--dry-run", "--request", "明天复习N3十分钟").stdout
    body = json.loads(short.stdout)
    assert body["messages"][-1] == {"role": "user", "content": "明天复习N3十分钟"}
    assert all_files(home) == []


def test_c_is_config_and_capital_v_is_version(home: Path, tmp_path: Path) -> None:
    config = tmp_path / "elsewhere.json"
    config.write_text(json.dumps({"model": "short-option-model"}))
    body = json.loads(run_planner("-n", "-c", str(config)).stdout)
    assert body["model"] == "short-option-model"
    assert run_planner("-V").stdout == run_planner("--version").stdout == "planner 0.1.0\n"
    assert all_files(home) == []


def test_r_runs_live(home: Path) -> None:
    # Without a key and without a terminal: the same usage error as --request.
    result = run_planner("-r", "review N1 tomorrow")
    one_error(result, 2, "DEEPSEEK_API_KEY")
    assert all_files(home) == []


@pytest.mark.slow
def test_limit_and_all_have_short_forms(home: Path) -> None:
    three_runs(home)
    before = snapshot(home)
    for command in ("runs", "costs"):
        short = run_planner(command, "--json", "-L", "1")
        assert short.returncode == 0
        assert short.stdout == run_planner(command, "--json", "--limit", "1").stdout
    assert [row["run_id"] for row in json.loads(run_planner("runs", "--json", "-L", "1").stdout)] \
        == [NEWEST]
    notes = run_planner("notes", "--json", "-L", "1")
    assert notes.stdout == run_planner("notes", "--json", "--limit", "1").stdout
    assert len(json.loads(notes.stdout)) == 1
    assert run_planner("plans", "-a", "--json").stdout == run_planner("plans", "--all",
                                                                      "--json").stdout
    everything = run_planner("export", "--ics", "-a")
    assert everything.returncode == 0
    assert "No plans in plans/ to export; nothing was written." in everything.stderr
    assert snapshot(home) == before


# --- an ASCII-only terminal ----------------------------------------------------------------------


@pytest.mark.slow
def test_ascii_output_does_not_crash_the_demo_or_the_dry_run(home: Path) -> None:
    normal = json.loads(run_planner("--dry-run").stdout)
    dry = run_planner("--dry-run", env=env_with(PYTHONIOENCODING="ascii"))
    assert dry.returncode == 0, dry.stderr
    assert json.loads(dry.stdout) == normal  # still valid JSON: \\u escapes
    assert dry.stdout.isascii() and "Traceback" not in dry.stderr
    demo = run_planner("--demo", env=env_with(PYTHONIOENCODING="ascii"))
    assert demo.returncode == 0, demo.stderr
    assert "Traceback" not in demo.stdout + demo.stderr
    assert "RAG\\u57fa\\u7840\\u590d\\u4e60" in demo.stdout  # 基础复习, visibly escaped
    (folder,) = run_dirs(home)
    assert json.loads((folder / "summary.json").read_text())["status"] == "complete"
    for args in (["-h"], ["runs"], ["show"], ["costs"], ["notes"]):
        result = run_planner(*args, env=env_with(PYTHONIOENCODING="ascii"))
        assert result.returncode == 0 and "Traceback" not in result.stderr, (args, result.stderr)
