"""Everyday use (README "Looking back"): help and short options, show last/-N, one home folder, the
cost line,
tables that fit, one line for no records, words a person knows, an ASCII-only terminal.

Every case runs the installed `planner` with no terminal (stdin closed, a new session) and
checks the exit code, the message and what is, and is not, on disk. The pseudo-terminal cases
(tables at 80 and 120 columns, the demo screen, the waiting line) are in test_terminal.py.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, all_files, env_with, run_dirs, run_planner, snapshot
from rich.cells import cell_len
from run_records import call, deepseek_usage, demo_runs, summary, write_run
from stub_server import Reply, StubServer, text_reply, tool_call_reply, usage

COMMANDS = ["runs", "show", "costs", "plans", "export", "notes"]
NEWEST = "20261103T000000000000Z-cccccc"
MIDDLE = "20261102T000000000000Z-bbbbbb"
OLDEST = "20261101T000000000000Z-aaaaaa"


def one_error(result: subprocess.CompletedProcess, code: int, words: str) -> None:
    """The command failed with `code` and exactly one line on stderr containing `words`."""
    assert result.returncode == code, (result.returncode, result.stderr)
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1, result.stderr
    assert words in result.stderr, result.stderr
    assert "Traceback" not in result.stdout + result.stderr


def three_runs(home: Path) -> None:
    for run_id in (OLDEST, MIDDLE, NEWEST):
        write_run(home, run_id, summary(run_id))


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


# --- show last, -1, -2, ... ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [([], NEWEST), (["last"], NEWEST), (["-1"], NEWEST), (["-2"], MIDDLE), (["-3"], OLDEST),
     (["20261102"], MIDDLE), (["--", "-2"], MIDDLE)],
    ids=["no argument", "last", "-1", "-2", "-3", "a unique start", "-- -2"])
def test_show_picks_the_newest_runs(home: Path, args: list[str], expected: str) -> None:
    three_runs(home)
    before = snapshot(home)
    result = run_planner("show", "--json", *args)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["run_id"] == expected
    table = run_planner("show", *args)
    assert table.returncode == 0 and f"Run {expected}" in table.stdout
    assert snapshot(home) == before


def test_show_counts_back_with_options_around_it(home: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    three_runs(other)
    result = run_planner("show", "--home", str(other), "-2", "--json")
    assert json.loads(result.stdout)["run_id"] == MIDDLE
    result = run_planner("--home", str(other), "show", "-3", "--json")
    assert json.loads(result.stdout)["run_id"] == OLDEST


@pytest.mark.parametrize(
    ("args", "words"),
    [(["-4"], "there are only 3 run(s) in tool-records/; -3 is the oldest"),
     (["-0"], "-0 names no run: -1 is the newest, -2 the one before"),
     (["-1x"], "no such option: -1x"),
     (["nope"], "no run 'nope'"),
     (["2026110"], "'2026110' matches 3 runs")],
    ids=["past the oldest", "-0", "-1x", "unknown", "ambiguous"])
def test_show_names_what_is_wrong(home: Path, args: list[str], words: str) -> None:
    three_runs(home)
    before = snapshot(home)
    result = run_planner("show", *args)
    one_error(result, 2, words)
    assert result.stdout == ""
    assert snapshot(home) == before


def test_show_with_no_runs_says_how_to_make_one(home: Path) -> None:
    for args in ([], ["last"], ["-1"]):
        result = run_planner("show", *args)
        one_error(result, 2, "no runs in tool-records/ yet; planner --demo makes one")
    assert all_files(home) == []


# --- one folder for everything: --home and PLANNER_HOME ------------------------------------------


def other_home(tmp_path: Path) -> Path:
    """A home folder with its own config.json (model, currency) and notes.json."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "config.json").write_text(json.dumps({
        "model": "home-model", "extra_body": {},
        "prices": {"currency": "CNY"},
    }))
    (other / "notes.json").write_text(json.dumps(
        [{"id": "H1", "title": "家里的笔记", "text": "只在这个家里"}], ensure_ascii=False))
    return other


@pytest.mark.slow
@pytest.mark.parametrize("how", ["--home", "PLANNER_HOME"])
def test_the_home_holds_config_notes_and_records(home: Path, tmp_path: Path, how: str) -> None:
    other = other_home(tmp_path)
    # The current folder's config.json must not be read when another home is given.
    (home / "config.json").write_text(json.dumps({"model": "cwd-model"}))
    before_cwd = snapshot(home)

    def run(*args: str) -> subprocess.CompletedProcess:
        if how == "--home":
            return run_planner("--home", str(other), *args)
        return run_planner(*args, env=env_with(PLANNER_HOME=str(other)))

    body = json.loads(run("-n").stdout)
    assert body["model"] == "home-model" and "thinking" not in body
    assert "H1: 家里的笔记" in body["messages"][0]["content"]
    assert run("--demo").returncode == 0
    assert len(run_dirs(other)) == 1 and not (home / "tool-records").exists()
    (row,) = json.loads(run("runs", "--json").stdout)
    assert row["run_id"] == run_dirs(other)[0].name and row["currency"] == "CNY"
    assert json.loads(run("costs", "--json").stdout)["currency"] == "CNY"
    assert json.loads(run("show", "--json").stdout)["currency"] == "CNY"
    # --config still wins over the home's config.json.
    explicit = tmp_path / "explicit.json"
    explicit.write_text(json.dumps({"model": "explicit-model"}))
    assert json.loads(run("-n", "-c", str(explicit)).stdout)["model"] == "explicit-model"
    assert snapshot(home) == before_cwd


def test_a_bad_home_config_is_named(home: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "config.json").write_text('{"modle": "x"}')
    result = run_planner("-n", env=env_with(PLANNER_HOME=str(other)))
    one_error(result, 2, f"{other / 'config.json'}: unknown key 'modle'")
    assert result.stdout == ""


def test_the_home_option_wins_over_planner_home(home: Path, tmp_path: Path) -> None:
    other = other_home(tmp_path)
    result = run_planner("--home", str(home), "-n", env=env_with(PLANNER_HOME=str(other)))
    assert json.loads(result.stdout)["model"] == "deepseek-v4-flash"


@pytest.mark.parametrize(
    "args",
    [["--demo"], ["--dry-run"], ["-r", "review N1"], ["runs"], ["show"], ["costs"], ["plans"],
     ["export", "--ics"], ["notes"]],
    ids=lambda args: args[0])
def test_a_home_that_does_not_exist_is_named(home: Path, tmp_path: Path,
                                             args: list[str]) -> None:
    missing = tmp_path / "typo"
    result = run_planner("--home", str(missing), *args)
    one_error(result, 2, f"--home {missing}: no such folder")
    assert "free space" not in result.stderr
    result = run_planner(*args, env=env_with(PLANNER_HOME=str(missing)))
    one_error(result, 2, f"PLANNER_HOME={missing}: no such folder")
    if args[0] in COMMANDS:
        result = run_planner(args[0], "--home", str(missing), *args[1:])
        one_error(result, 2, f"--home {missing}: no such folder")
    assert not missing.exists() and all_files(home) == []


def test_a_home_that_is_a_file_is_named(home: Path) -> None:
    (home / "afile").write_text("x")
    before = snapshot(home)
    one_error(run_planner("--home", "afile", "--demo"), 2, "--home afile: is not a folder")
    assert snapshot(home) == before


# --- no records: one line ----------------------------------------------------------------------


def test_no_records_is_one_line(home: Path) -> None:
    runs = run_planner("runs")
    assert runs.returncode == 0 and runs.stderr == ""
    assert runs.stdout == "No runs in tool-records/ yet: planner --demo makes one (offline, " \
                          "nothing to pay).\n"
    costs = run_planner("costs")
    assert costs.returncode == 0 and costs.stderr == ""
    assert costs.stdout == "No runs in tool-records/ yet, so nothing has cost anything.\n"
    assert run_planner("runs", "--json").stdout == "[]\n"
    empty = {"runs": 0, "calls": 0, "unknown_calls": 0, "input_cache_hit_tokens": 0,
             "input_cache_miss_tokens": 0, "output_tokens": 0, "cost": 0.0}
    assert json.loads(run_planner("costs", "--json").stdout) == {
        "currency": "USD", "runs": [], "total": empty, "simulated_runs_skipped": 0}
    assert all_files(home) == []


def test_no_records_in_another_home_names_it(home: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    result = run_planner("runs", "--home", str(other))
    assert result.stdout.startswith(f"No runs in {other}/tool-records/ yet")
    assert result.stdout.count("\n") == 1


def test_costs_with_only_unpriced_runs_says_what_was_left_out(home: Path) -> None:
    demo_runs(home, 1)
    write_run(home, "20261101T000000000000Z-dddddd", raw=b"")
    before = snapshot(home)
    result = run_planner("costs")
    assert result.returncode == 0
    assert result.stdout == ("No priced runs in tool-records/: left out 1 simulated (demo) "
                             "run(s) and 1 damaged run(s).\n")
    assert snapshot(home) == before


# --- words a person knows ----------------------------------------------------------------------


def mixed_runs(home: Path) -> None:
    """One run of each ending a person may meet."""
    write_run(home, "20261101T000000000000Z-saved0", summary("20261101T000000000000Z-saved0"))
    write_run(home, "20261102T000000000000Z-notool", summary(
        "20261102T000000000000Z-notool", status="no_tool", plan=None, approved=None,
        tool_result=None, target=None, question="Which date?", explanation=None))
    write_run(home, "20261103T000000000000Z-budget", summary(
        "20261103T000000000000Z-budget", status="budget_exhausted", plan=None, approved=None,
        tool_result=None, target=None, error="the run reached its limit of 6 model calls"))
    write_run(home, "20261104T000000000000Z-stop00", summary(
        "20261104T000000000000Z-stop00", status="stopped", stage="requesting", plan=None,
        approved=None, tool_result=None, target=None,
        calls=[call(1, None, error="HTTP 503: overloaded")],
        error="the model is overloaded (HTTP 503); try again later"))
    write_run(home, "20261105T000000000000Z-after0", summary(
        "20261105T000000000000Z-after0", status="stopped", stage="explaining",
        calls=[call(1, deepseek_usage(1000, 200, 50)), call(2, None, error="timeout")],
        error="The plan is saved in plans/x.json; only the model's explanation failed"))
    write_run(home, "20261106T000000000000Z-cancel", summary(
        "20261106T000000000000Z-cancel", approved=False, tool_result={"status": "cancelled"},
        target=None))


def test_tables_say_what_happened_in_words(home: Path) -> None:
    mixed_runs(home)
    before = snapshot(home)
    table = run_planner("runs").stdout
    for words in ("no plan proposed", "call limit reached", "saved, then stopped", "stopped",
                  "cancelled", "saved"):
        assert words in table, words
    costs = run_planner("costs").stdout
    assert "no plan proposed" in costs and "call limit reached" in costs
    for internal in ("no_tool", "budget_exhausted", "requesting", "explaining"):
        assert internal not in table + costs, internal
    # The machine-readable output keeps the recorded names.
    statuses = {row["status"] for row in json.loads(run_planner("runs", "--json").stdout)}
    assert {"no_tool", "budget_exhausted", "stopped", "complete"} == statuses
    assert snapshot(home) == before


@pytest.mark.parametrize(
    ("run_id", "words"),
    [("20261104T000000000000Z-stop00", "stopped while asking the model"),
     ("20261105T000000000000Z-after0", "stopped while asking the model to explain the result"),
     ("20261102T000000000000Z-notool", "no plan proposed"),
     ("20261103T000000000000Z-budget", "call limit reached")],
    ids=["stopped", "stopped after saving", "no_tool", "budget_exhausted"])
def test_show_says_what_the_run_was_doing(home: Path, run_id: str, words: str) -> None:
    mixed_runs(home)
    result = run_planner("show", run_id)
    assert result.returncode == 0
    (status_line,) = [line for line in result.stdout.splitlines() if "Status" in line]
    assert words in status_line
    for internal in ("Stage", "requesting", "explaining", "no_tool", "budget_exhausted"):
        assert internal not in result.stdout, internal


def test_interrupted_show_says_where_it_stopped(home: Path) -> None:
    pid_max = int(Path("/proc/sys/kernel/pid_max").read_text())
    write_run(home, "20261101T000000000000Z-intr00", summary(
        "20261101T000000000000Z-intr00", status="running", stage="confirming",
        pid=pid_max + 1, approved=None, tool_result=None, target=None))
    result = run_planner("show", "-1")
    assert "interrupted while waiting for you to type SAVE" in result.stdout
    assert "recorded as running; its process is gone" in result.stdout


# --- tables that fit ---------------------------------------------------------------------------


@pytest.mark.parametrize("columns", [60, 80, 100, 120])
def test_tables_fit_the_width_and_keep_status_title_and_cost(home: Path, columns: int) -> None:
    mixed_runs(home)
    long_title = "检索增强生成的基础知识与向量数据库的切分策略、召回评估以及重排序的完整复习计划"
    write_run(home, "20261107T000000000000Z-long00", summary(
        "20261107T000000000000Z-long00",
        plan={"title": long_title, "note_ids": ["N1"], "date": "2026-12-01", "minutes": 30}))
    runs = run_planner("runs", env=env_with(COLUMNS=str(columns))).stdout
    costs = run_planner("costs", env=env_with(COLUMNS=str(columns))).stdout
    show = run_planner("show", "20261105", env=env_with(COLUMNS=str(columns))).stdout
    for text in (runs, costs, show):
        assert max(cell_len(line) for line in text.splitlines()) <= columns, text
        assert "…" not in re.sub(r"[\u4e00-\u9fff]+ ?…", "", text), text  # only titles are cut
    for cost in ("0.000080", "0.000000 +1?", "0.000045 +1?"):
        assert cost in runs, cost
        # Wide, the calls with unknown usage have their own column; narrower, a +N? mark.
        assert cost[:8] in costs, cost
        assert "+" not in cost or (cost in costs) == ("Unknown" not in costs), cost
    assert "检索增强" in runs and "RAG基础复习" in runs
    if columns >= 80:
        for text in (runs, costs):
            assert "20261107T000000000000Z-long00" in text  # whole IDs from 80 columns on
    if columns == 120:
        for header in ("Time", "Mode", "Calls", "Status", "Title"):
            assert header in runs.splitlines()[1], header
        for header in ("Calls", "Unknown", "Input hit", "Input miss", "Output"):
            assert header in costs, header
        assert "Not shown" not in runs
    if columns < 80:
        # No room for whole IDs: each run is named by what `planner show` takes.
        assert "-1" in runs and "planner show -1 opens it" in " ".join(runs.split())
    one = " ".join(re.sub("[│╭╮╰╯─]", " ", show).split())  # the words, without the panel
    assert "the model's explanation failed" in one and "timeout" in one


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
