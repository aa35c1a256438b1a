"""Hostile files through the real command: one line and the right exit code, never a hang.

Each case builds a file planner reads (config.json, or a run in tool-records/) as a FIFO, a
link to a device or to something outside the home, a huge or absurdly nested JSON text, or an
overflowing number, then runs the installed `planner` with a time limit (a hang fails the test
with TimeoutExpired). What must hold: the exit code, the one line saying why, no traceback, and
nothing written anywhere (the home and the outside folder are compared before and after).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import env_with, run_planner, snapshot
from run_records import call, deepseek_usage, summary, write_run

pytestmark = pytest.mark.slow  # every case runs the real command again and again

SECONDS = 30  # far above a normal run (under a second); reached only by a hang
DEEP = "[" * 100_000 + "]" * 100_000


def assert_one_error_line(result: subprocess.CompletedProcess, code: int, words: str) -> None:
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1, result.stderr
    assert words in result.stderr, result.stderr


# --- config.json --------------------------------------------------------------------------------

def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _folder(path: Path) -> None:
    path.mkdir()
    (path / "inside.json").write_text("{}")


def _two_mib(path: Path) -> None:
    path.write_text('{"model": "' + "x" * (2 * 1024 * 1024) + '"}')


def _text(text: str):
    return lambda path: path.write_text(text)


CONFIGS = {
    "fifo": (_fifo, "config.json is not a regular file (a FIFO)"),
    "link to /dev/zero": (_dev_zero, "config.json is not a regular file (a device)"),
    "folder": (_folder, "config.json is not a regular file (a folder)"),
    "2 MiB": (_two_mib, "config.json is larger than 1 MiB"),
    "100,000 deep": (_text(DEEP), "config.json: is JSON nested deeper than 64 levels"),
    "65 deep": (_text('{"extra_body": ' + '{"a": ' * 64 + "1" + "}" * 65),
                "config.json: is JSON nested deeper than 64 levels"),
    "timeout 1e10": (_text('{"timeout_seconds": 1e10}'),
                     "key 'timeout_seconds' must be a number greater than 0 and at most 600"),
    "timeout 1e400": (_text('{"timeout_seconds": 1e400}'), "key 'timeout_seconds'"),
    "timeout 10**400": (_text('{"timeout_seconds": 1' + "0" * 400 + "}"),
                        "key 'timeout_seconds'"),
    "price 1e308": (_text('{"prices": {"per_million_tokens": {"output": 1e308}}}'),
                    "key 'prices.per_million_tokens.output' must be a number from 0 to"),
    "max_tokens 1e400": (_text('{"max_tokens": 1e400}'), "key 'max_tokens'"),
    "extra_body.model": (_text('{"extra_body": {"model": "x"}}'),
                         "key 'extra_body.model' is set by planner and cannot be replaced"),
    "not UTF-8": (lambda path: path.write_bytes(b'{"model": "\xff"}'),
                  "config.json: is not UTF-8 text"),
}


@pytest.mark.parametrize("case", list(CONFIGS))
def test_hostile_config_is_one_line_exit_2_and_writes_nothing(
        home: Path, tmp_path: Path, case: str) -> None:
    make, words = CONFIGS[case]
    make(home / "config.json")
    before = snapshot(tmp_path)
    for args in (["--dry-run"], ["--demo"], ["runs", "--json"]):
        result = run_planner(*args, cwd=home, env=env_with(COLUMNS="200"), timeout=SECONDS)
        assert_one_error_line(result, 2, words)
        if "--json" in args:
            # Machine output stays machine output: the same failure as JSON on stdout.
            assert json.loads(result.stdout)["exit_code"] == 2
        else:
            assert result.stdout == ""
    assert snapshot(tmp_path) == before


def test_a_config_link_to_a_regular_file_is_read(home: Path, tmp_path: Path) -> None:
    # Config links are followed (a dotfiles habit); only what they point to must be a file.
    real = tmp_path / "real.json"
    real.write_text(json.dumps({"model": "linked-model"}))
    (home / "config.json").symlink_to(real)
    result = run_planner("--dry-run", cwd=home, env=env_with(COLUMNS="200"), timeout=SECONDS)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["model"] == "linked-model"


# --- tool-records/ -----------------------------------------------------------------------------

RUN = "20261101T000000000000Z-hostil"
GOOD = "20261102T000000000000Z-good00"


def _summary_fifo(home: Path, outside: Path) -> str:
    folder = home / "tool-records" / RUN
    folder.mkdir(parents=True)
    os.mkfifo(folder / "summary.json")
    return "summary.json is not a regular file (a FIFO)"


def _summary_dev_zero(home: Path, outside: Path) -> str:
    folder = home / "tool-records" / RUN
    folder.mkdir(parents=True)
    (folder / "summary.json").symlink_to("/dev/zero")
    return "summary.json is a symbolic link (not followed)"


def _summary_outside(home: Path, outside: Path) -> str:
    (outside / "summary.json").write_text(json.dumps(summary(RUN)))
    folder = home / "tool-records" / RUN
    folder.mkdir(parents=True)
    (folder / "summary.json").symlink_to(outside / "summary.json")
    return "summary.json is a symbolic link (not followed)"


def _folder_outside(home: Path, outside: Path) -> str:
    # Behind the link, summary.json is a FIFO: reading it without O_NONBLOCK would hang, and
    # reading it at all would show as something other than the linked-folder reason.
    (outside / "run").mkdir()
    os.mkfifo(outside / "run" / "summary.json")
    (home / "tool-records").mkdir()
    (home / "tool-records" / RUN).symlink_to(outside / "run")
    return "run folder is a symbolic link (not followed)"


def _deep_summary(home: Path, outside: Path) -> str:
    write_run(home, RUN, raw=DEEP.encode())
    return "summary.json is nested deeper than 64 levels"


RECORDS = {
    "summary FIFO": _summary_fifo,
    "summary link to /dev/zero": _summary_dev_zero,
    "summary link outside": _summary_outside,
    "run folder link outside": _folder_outside,
    "100,000 deep summary": _deep_summary,
}


@pytest.mark.parametrize("case", list(RECORDS))
def test_hostile_record_is_a_damaged_run_never_a_hang(
        home: Path, tmp_path: Path, case: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    problem = RECORDS[case](home, outside)
    write_run(home, GOOD, summary(GOOD))
    before = snapshot(home, outside)

    listed = run_planner("runs", "--json", cwd=home, env=env_with(COLUMNS="200"), timeout=SECONDS)
    assert listed.returncode == 0 and listed.stderr == "", listed.stderr
    rows = {row["run_id"]: row for row in json.loads(listed.stdout)}
    assert (rows[RUN]["status"], rows[RUN]["problem"]) == ("damaged", problem)
    assert rows[GOOD]["status"] == "complete"

    table = run_planner("runs", cwd=home, env=env_with(COLUMNS="200"), timeout=SECONDS)
    assert table.returncode == 0 and table.stderr == "", table.stderr
    # The table may cut a long problem to its column; the start of it is always there.
    assert problem[:30] in table.stdout and RUN in table.stdout

    shown = run_planner("show", RUN, cwd=home, env=env_with(COLUMNS="200"), timeout=SECONDS)
    assert shown.returncode == 0 and shown.stderr == "", shown.stderr
    assert problem in shown.stdout and "damaged" in shown.stdout
    detail = json.loads(run_planner("show", RUN, "--json", cwd=home, env=env_with(COLUMNS="200"),
                                    timeout=SECONDS).stdout)
    assert (detail["status"], detail["problem"], detail["summary"]) == ("damaged", problem, None)
    if case == "run folder link outside":
        assert detail["files"] == []  # what is behind the link is not listed either

    costs = run_planner("costs", "--json", cwd=home, env=env_with(COLUMNS="200"), timeout=SECONDS)
    assert costs.returncode == 0
    assert [run["run_id"] for run in json.loads(costs.stdout)["runs"]] == [GOOD]
    assert costs.stderr == "1 damaged run(s) left out (see planner runs)\n"

    for result in (listed, table, shown, costs):
        assert "Traceback" not in result.stdout + result.stderr
    assert snapshot(home, outside) == before


def test_a_usage_of_10_to_the_400_is_unknown_usage(home: Path, tmp_path: Path) -> None:
    absurd = {"prompt_tokens": 10**400, "completion_tokens": 1}
    data = summary(RUN, calls=[call(1, absurd), call(2, deepseek_usage(1000, 200, 50))])
    folder = write_run(home, RUN, data)
    assert b"1" + b"0" * 400 in (folder / "summary.json").read_bytes()
    before = snapshot(tmp_path)

    listed = run_planner("runs", "--json", cwd=home, env=env_with(COLUMNS="200"), timeout=SECONDS)
    assert listed.returncode == 0, listed.stderr
    (row,) = json.loads(listed.stdout)
    # Only the second call is priced: 2.8 + 28 + 14 per million at the default prices.
    assert (row["status"], row["calls"], row["unknown_calls"], row["cost"]) == (
        "complete", 2, 1, 0.0000448)

    costs = run_planner("costs", "--json", cwd=home, env=env_with(COLUMNS="200"), timeout=SECONDS)
    assert costs.returncode == 0, costs.stderr
    total = json.loads(costs.stdout)["total"]
    assert (total["calls"], total["unknown_calls"], total["cost"]) == (2, 1, 0.0000448)
    assert total["input_cache_miss_tokens"] == 200

    detail = json.loads(run_planner("show", RUN, "--json", cwd=home, env=env_with(COLUMNS="200"),
                                    timeout=SECONDS).stdout)
    first, second = detail["calls"]
    assert (first["cost"], first["output_tokens"], second["cost"]) == (None, None, 0.0000448)
    assert detail["unknown_calls"] == 1

    for args in (["runs"], ["show", RUN], ["costs"]):
        result = run_planner(*args, cwd=home, env=env_with(COLUMNS="200"), timeout=SECONDS)
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stdout + result.stderr
    assert snapshot(tmp_path) == before
