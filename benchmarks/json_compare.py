"""Every `--json` output of this checkout against an older commit's, byte for byte, same homes.

Usage (by hand, like the benchmarks; it needs a second checkout, so it is not a test):

    .venv/bin/python benchmarks/json_compare.py OLD_COMMIT [--keep DIR]

OLD_COMMIT (say 1d2776e, the previous release) is checked out read-only with
`git worktree add` into a temporary folder and removed afterwards. Homes are built ONCE with
the old code (demo runs saved through a pseudo-terminal, plan files of versions 1, 2 and 3 and
damaged ones, hand-written run records, a notes folder, a config with study hours, prices and a
vdir busy calendar, a review log written by the old `done` and `drop`), then each command runs
on two fresh copies of the home: the old code (PYTHONPATH=worktree) and the new (this checkout).
Both run under one pinned clock (time-machine, ticking from the same instant), LANGUAGE=en, so
nothing is masked. Stdout and exit codes are compared; each difference is printed as a unified
diff. Exit 0: no difference; 1: differences (some may be deliberate: read them).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = str(Path(sys.executable))
# Runs planner with its clock at argv[1] (a Unix time), ticking; the rest is planner's argv.
DRIVER = ("import sys, time_machine; time_machine.travel(float(sys.argv[1]), tick=True).start(); "
          "sys.argv = ['planner', *sys.argv[2:]]; from planner.cli.app import main; main()")
# Fields this release adds on purpose: (command, where in the output, field names).
DELIBERATE = {"forecast": ("days", {"planned_minutes"}),
              "where": ("", {"busy_calendars", "goals", "memory"})}
NOTE = "---\ntitle: {title}\n---\n# {title}\n\n{body}\n"


def environment(code: Path, scratch: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if not key.endswith("_API_KEY") and key not in ("PLANNER_HOME", "FORCE_COLOR")}
    env.update(PYTHONPATH=str(code), LANGUAGE="en", NO_COLOR="1", COLUMNS="120",
               HOME=str(scratch / "user"), XDG_DATA_HOME=str(scratch / "data"), TZ="UTC")
    return env


def planner(code: Path, scratch: Path, home: Path, args: list[str], clock: float | None = None,
            stdin: str | None = None) -> subprocess.CompletedProcess:
    argv = [PYTHON, "-c", DRIVER, str(clock), *args] if clock else [PYTHON, "-m", "planner", *args]
    return subprocess.run(argv, cwd=home, env=environment(code, scratch), input=stdin or "",
                          capture_output=True, timeout=120)


def demo_saved(code: Path, scratch: Path, home: Path) -> None:
    """One demo run of `code`, SAVE typed in a pseudo-terminal."""
    import pexpect

    child = pexpect.spawn(PYTHON, ["-m", "planner", "--demo", "--home", str(home)],
                          env=environment(code, scratch), encoding="utf-8", timeout=60)
    child.expect_exact("Type SAVE")
    child.sendline("SAVE")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before


def write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def day(offset: int) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(time.time() + offset * 86400))


def write_vdir(folder: Path) -> None:
    """A weekly class, an all-day event and a cancelled one, as khal keeps them."""
    folder.mkdir(parents=True)
    start = day(1).replace("-", "")
    events = {
        "class": f"DTSTART:{start}T190000Z\nDTEND:{start}T200000Z\nRRULE:FREQ=WEEKLY;COUNT=10\n"
                 "SUMMARY:class",
        "allday": f"DTSTART;VALUE=DATE:{day(2).replace('-', '')}\n"
                  f"DTEND;VALUE=DATE:{day(3).replace('-', '')}\nSUMMARY:holiday",
        "gone": f"DTSTART:{start}T080000Z\nDTEND:{start}T090000Z\nSTATUS:CANCELLED\nSUMMARY:x",
    }
    for name, body in events.items():
        text = (f"BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//compare//EN\nBEGIN:VEVENT\n"
                f"UID:{name}@compare\nDTSTAMP:20260101T000000Z\n{body}\nEND:VEVENT\nEND:VCALENDAR\n")
        (folder / f"{name}.ics").write_text(text.replace("\n", "\r\n"), encoding="utf-8")


def run_record(home: Path, run_id: str, **changes: object) -> None:
    usage = {"prompt_tokens": 1200, "completion_tokens": 50, "total_tokens": 1250,
             "prompt_cache_hit_tokens": 1000, "prompt_cache_miss_tokens": 200}
    call = {"request": "01-request.json", "response": "01-response.json",
            "started_at": "2026-11-20T09:00:00.000+08:00", "duration_ms": 801, "usage": usage,
            "error": None}
    data = {
        "version": 1, "run_id": run_id, "mode": "live", "simulated": False, "status": "complete",
        "stage": "done", "request": "review N1 and N2", "model": "deepseek-v4-flash",
        "base_url": "https://api.deepseek.com", "approved": True,
        "plan": {"title": "RAG", "note_ids": ["N1", "N2"], "date": day(2), "minutes": 20},
        "target": f"plans/{run_id}.json",
        "tool_result": {"status": "saved", "path": f"plans/{run_id}.json"},
        "calls": [call], "error": None, "created_at": "2026-11-20T09:00:00.000+08:00",
        "updated_at": "2026-11-20T09:00:02.000+08:00", "pid": 1, "process_start": 1,
        "question": None, "explanation": "saved",
    }
    data.update(changes)
    write_json(home / "tool-records" / run_id / "summary.json", data)


def build_homes(old: Path, scratch: Path) -> dict[str, Path]:
    homes = {name: scratch / "homes" / name for name in ("empty", "demo", "full", "badconfig")}
    for home in homes.values():
        home.mkdir(parents=True)
    for _ in range(3):
        demo_saved(old, scratch, homes["demo"])
    planner(old, scratch, homes["demo"], ["--demo"])  # no terminal: cancelled

    full = homes["full"]
    shutil.copytree(homes["demo"] / "tool-records", full / "tool-records")
    write_vdir(full / "busy")
    write_json(full / "config.json", {
        "prices": {"currency": "CNY", "per_million_tokens":
                   {"input_cache_hit": 0.5, "input_cache_miss": 2.0, "output": 8.0}},
        "study_hours": {"mon": ["18:00-21:00"], "tue": ["18:00-21:00"], "wed": ["07:00-08:00",
                        "18:00-21:00"], "thu": ["18:00-21:00"], "fri": ["18:00-20:00"],
                        "sat": ["09:00-12:00", "14:00-17:00"], "sun": []},
        "daily_minutes": 90, "busy_calendars": [{"vdir": "busy"}], "desired_retention": 0.85,
    })
    notes = full / "notes"
    for number, title in enumerate(("RAG 的基本流程", "切分与向量检索", "Reranking", "Eval"), 1):
        (notes / f"N{number}.md").parent.mkdir(exist_ok=True)
        (notes / f"N{number}.md").write_text(
            NOTE.format(title=title, body=f"body of note {number}, retrieval"), encoding="utf-8")
    plans = full / "plans"
    notes12 = [{"id": "N1", "title": "RAG 的基本流程"}, {"id": "N2", "title": "切分与向量检索"}]
    write_json(plans / "20261101T100000000000Z-aaaaaa.json", {
        "simulated": False, "plan": {"title": "v1 plan", "note_ids": ["N1"], "date": day(-3),
                                     "minutes": 15}})
    for index, (offset, start) in enumerate(((1, "19:00"), (3, None), (-1, "07:30"))):
        plan = {"title": f"v2 plan {index}", "note_ids": ["N1", "N2"], "date": day(offset),
                "minutes": 20 + index}
        if start:
            plan["start"] = start
        run_id = f"20261102T10000{index}000000Z-bbbbb{index}"
        write_json(plans / f"{run_id}.json", {
            "version": 2, "simulated": False, "run_id": run_id,
            "created_at": "2026-11-02T10:00:00.000+00:00", "plan": plan, "notes": notes12})
        run_record(full, run_id)
    series = "20261103T100000000000Z-cccccc"
    write_json(plans / f"{series}.json", {
        "version": 3, "simulated": False, "run_id": series,
        "created_at": "2026-11-03T10:00:00.000+00:00",
        "plan": {"title": "series", "note_ids": ["N3"], "dates": [day(-2), day(0), day(4), day(9)],
                 "minutes": 25, "start": "18:30"}, "notes": [{"id": "N3", "title": "Reranking"}]})
    run_record(full, series, status="failed", stage="model", approved=None, plan=None,
               tool_result=None, error="HTTP 500 from the model", calls=[
                   {"request": "01-request.json", "response": None, "usage": None,
                    "started_at": "2026-11-20T09:00:00.000+08:00", "duration_ms": 5,
                    "error": "HTTP 500"}])
    (plans / "20261104T100000000000Z-dddddd.json").write_text("{not json", encoding="utf-8")
    write_json(plans / "20261105T100000000000Z-eeeeee.json", {"version": 9, "plan": {}})
    write_json(plans / "20261106T100000000000Z-ffffff.json", {
        "version": 2, "simulated": False, "run_id": "20261106T100000000000Z-ffffff",
        "created_at": "2026-11-06T10:00:00.000+00:00",
        "plan": {"title": "bad", "note_ids": ["N1"], "date": "2026-02-30", "minutes": 20},
        "notes": [{"id": "N1", "title": "x"}]})
    (full / "tool-records" / "20261107T100000000000Z-gggggg").mkdir()
    (full / "tool-records" / "20261107T100000000000Z-gggggg" / "summary.json").write_text("[1,")
    # The review log, written by the old code itself.
    for args in (["done", "20261102T100002000000Z-bbbbb2", "-r", "good", "-m", "18"],
                 ["done", series, "-r", "hard", "--date", day(-2)],
                 ["done", "20261101T100000000000Z-aaaaaa", "-r", "again", "--note", "N1"],
                 ["done", "20261102T100001000000Z-bbbbb1", "-r", "easy", "--json"],
                 ["drop", "20261102T100000000000Z-bbbbb0"]):
        result = planner(old, scratch, full, args)
        assert result.returncode == 0, (args, result.stderr)
    log = full / "reviews.jsonl"
    lines = log.read_text(encoding="utf-8").splitlines()
    undone = json.loads(lines[-2])["review_id"]
    result = planner(old, scratch, full, ["done", "--undo", undone])
    assert result.returncode == 0, result.stderr
    with log.open("a", encoding="utf-8") as stream:
        stream.write('{"version":1,"kind":"review","broken\n')

    (homes["badconfig"] / "config.json").write_text('{"model": 3}', encoding="utf-8")
    return homes


def commands(homes: dict[str, Path]) -> list[tuple[str, list[str]]]:
    every = [["runs", "--json"], ["runs", "--json", "-L", "1"], ["show", "--json"],
             ["show", "-2", "--json"], ["show", "nosuchrun", "--json"], ["costs", "--json"],
             ["costs", "--json", "-L", "2"], ["plans", "--json"], ["plans", "--all", "--json"],
             ["plans", "--demo", "--json"], ["plans", "--demo", "--all", "--json"],
             ["week", "--json"], ["week", "--demo", "--json"],
             ["week", "--start", day(-3), "--json"], ["notes", "--json"],
             ["notes", "retrieval", "--json"], ["notes", "--json", "-L", "1"], ["where", "--json"],
             ["reviews", "--json"], ["reviews", "--note", "N1", "--json"], ["due", "--json"],
             ["due", "--days", "30", "--json"], ["due", "--json", "-L", "2"], ["fit", "--json"],
             ["fit", "--reset", "--json"], ["forecast", "--json"],
             ["forecast", "--days", "14", "--retention", "0.8,0.95", "--json"],
             ["done", "nosuchrun", "-r", "good", "--json"]]
    out = [(name, args) for name in homes for args in every]
    full = "20261102T100000000000Z-bbbbb0"
    out += [("full", ["show", full, "--json"]), ("full", ["show", "last", "--json"]),
            ("full", ["done", "20261102T100001000000Z-bbbbb1", "-r", "good", "--json"]),
            ("full", ["done", "20261103T100000000000Z-cccccc", "-r", "good", "-m", "5",
                      "--json"])]
    return out


def without_deliberate(command: str, text: str) -> str | None:
    """The new output with this release's deliberate additions taken out, as indented JSON;
    None when it is not JSON or the command has none."""
    if command not in DELIBERATE:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    place, fields = DELIBERATE[command]
    holders = data.get(place, []) if place else [data]
    for holder in holders if isinstance(holders, list) else []:
        for field in fields:
            if isinstance(holder, dict):
                holder.pop(field, None)
    return json.dumps(data, ensure_ascii=False, indent=2)


def reindented(text: str) -> str | None:
    try:
        return json.dumps(json.loads(text), ensure_ascii=False, indent=2)
    except ValueError:
        return None


def compare(old: Path, scratch: Path, homes: dict[str, Path]) -> int:
    clock = float(int(time.time()) // 60 * 60)
    # A review ID made by `done` in this run: the pinned clock's microseconds and random hex,
    # so provably different on each side; the only value masked.
    made_now = re.compile('"' + time.strftime("%Y%m%dT%H%M", time.gmtime(clock))
                          + r'[0-9]{8}Z-[0-9a-f]{6}"')
    differences = 0
    for number, (name, args) in enumerate(commands(homes)):
        outputs = []
        for side, code in (("old", old), ("new", ROOT)):
            copy = scratch / "copies" / f"{number}-{side}"
            shutil.copytree(homes[name], copy, symlinks=True)
            outputs.append(planner(code, scratch, copy, ["--home", str(copy), *args], clock))
        old_run, new_run = outputs
        label = f"[{name}] planner {' '.join(args)}"
        # A copy's path appears in some outputs (where, errors): each side's own path is the same
        # folder name apart from its number and side, so both are written as <home>.
        texts = [run.stdout.decode("utf-8", "replace").replace(
            str(scratch / "copies" / f"{number}-{side}"), "<home>")
            for run, side in ((old_run, "old"), (new_run, "new"))]
        texts = [made_now.sub('"<review made now>"', text) for text in texts]
        if texts[0] == texts[1] and old_run.returncode == new_run.returncode:
            print(f"same  {label}")
            continue
        stripped = without_deliberate(args[0], texts[1])
        if stripped is not None and stripped == reindented(texts[0]) \
                and old_run.returncode == new_run.returncode:
            print(f"same  {label}  (apart from this release's deliberate fields: "
                  f"{', '.join(sorted(DELIBERATE[args[0]][1]))})")
            continue
        if stripped is not None:
            texts[1] = stripped + "\n"
            texts[0] = (reindented(texts[0]) or texts[0]) + "\n"
        differences += 1
        print(f"DIFF  {label}  exit {old_run.returncode} -> {new_run.returncode}")
        sys.stdout.writelines(difflib.unified_diff(
            texts[0].splitlines(keepends=True), texts[1].splitlines(keepends=True), "old", "new"))
        if not texts[0].endswith("\n") or not texts[1].endswith("\n"):
            print()
    return differences


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("commit", help="the older commit, e.g. the previous release")
    parser.add_argument("--keep", type=Path, help="build the homes here and keep them")
    options = parser.parse_args()
    scratch = options.keep or Path(tempfile.mkdtemp(prefix="json-compare-"))
    old = scratch / "old-checkout"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(old),
                    options.commit], check=True, capture_output=True)
    try:
        homes = build_homes(old, scratch)
        differences = compare(old, scratch, homes)
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)],
                       check=False)
        if options.keep is None:
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"{differences} difference(s)")
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
