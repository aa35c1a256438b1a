"""Time `planner costs --json` against a bare loop that only json-loads every summary.json.

Usage: .venv/bin/python benchmarks/costs_bench.py [--runs N] [--repeat R]

Builds N synthetic runs (realistic version 2 summary.json files: live and demo, known and
unknown usage, the two-call flow and about 1 in 20 longer conversations with lookups, whose
nesting check takes the exact path, a few damaged folders) in a temporary home, then runs,
interleaved, R times each: (a) `planner costs --json --home DIR`, (b) a bare Python subprocess
that opens and json-loads every summary.json, and (c) `planner runs --json --home DIR`. Prints
the medians and the ratio a/b (target: at most 2.0). Every timing includes its interpreter's
start-up.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import random
import statistics
import sys
import tempfile
from pathlib import Path

from timing import timed

ROOT = Path(__file__).resolve().parent.parent
PLANNER = str(Path(sys.executable).with_name("planner"))
TARGET_RATIO = 2.0
TITLES = ["RAG基础复习", "向量检索与切分：从原理到实践的一次长复习", "Review N1", "周末复盘"]

BARE_LOOP = """
import json, os, sys
folder = os.path.join(sys.argv[1], "tool-records")
count = 0
for name in os.listdir(folder):
    try:
        with open(os.path.join(folder, name, "summary.json"), "rb") as file:
            json.loads(file.read())
        count += 1
    except (OSError, ValueError):
        pass
print(count)
"""


def usage(rng: random.Random) -> dict | None:
    """A usage object as DeepSeek or OpenAI return it, or None (failed call)."""
    kind = rng.random()
    prompt, completion = rng.randint(800, 3000), rng.randint(20, 300)
    if kind < 0.05:
        return None
    if kind < 0.75:
        hit = rng.randint(0, prompt)
        return {"prompt_tokens": prompt, "completion_tokens": completion,
                "total_tokens": prompt + completion, "prompt_cache_hit_tokens": hit,
                "prompt_cache_miss_tokens": prompt - hit}
    return {"prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": rng.randint(0, prompt)}}


def steps_and_calls(created: _dt.datetime, demo: bool, rng: random.Random,
                    plan: dict, approved: bool) -> tuple[list[dict], list[dict]]:
    """The steps of a run and its calls: two calls, or a longer conversation with lookups."""
    lookups = 0 if demo or rng.random() >= 0.05 else rng.randint(6, 10)
    steps = []
    for number in range(1, lookups + 1):
        steps.append({"call": number, "kind": "lookup", "call_id": f"call_{number}",
                      "tool": "search_notes", "arguments": {"query": "RAG 检索", "limit": 5},
                      "result": {"results": [{"id": "N1", "title": "RAG"}], "total": 1}})
    proposal_call = lookups + 1
    result = {"status": "saved", "path": "plans/x.json"} if approved else {"status": "cancelled"}
    steps += [
        {"call": proposal_call, "kind": "proposal", "call_id": "call_p", "plan": plan},
        {"call": proposal_call, "kind": "decision", "approved": approved, "result": result,
         "near_misses": []},
        {"call": proposal_call + 1, "kind": "explanation", "text": "计划已由程序保存。"},
    ]
    calls = []
    for number in range(1, proposal_call + 2):
        calls.append({
            "request": f"{number:02d}-request.json", "response": f"{number:02d}-response.json",
            "started_at": created.isoformat(timespec="milliseconds"),
            "duration_ms": None if demo else rng.randint(300, 4000),
            "usage": None if demo else usage(rng), "error": None,
        })
    return steps, calls


def summary(run_id: str, created: _dt.datetime, rng: random.Random) -> dict:
    """One finished run's summary.json (version 2), shaped like planner's own."""
    demo = rng.random() < 0.3
    title = rng.choice(TITLES)
    approved = rng.random() < 0.6
    plan = {"title": title, "note_ids": ["N1", "N2"], "date": "2026-10-05", "minutes": 20}
    steps, calls = steps_and_calls(created, demo, rng, plan, approved)
    stamp = created.isoformat(timespec="milliseconds")
    return {
        "version": 2, "run_id": run_id, "mode": "demo" if demo else "live", "simulated": demo,
        "status": "complete", "stage": "done",
        "request": f"请把N1和N2安排在2026-10-05复习20分钟，标题为{title}。只保存本地计划。",
        "model": None if demo else "deepseek-v4-flash",
        "base_url": None if demo else "https://api.deepseek.com",
        "approved": approved,
        "plan": plan,
        "target": f"plans/{run_id}.json" if approved else None,
        "tool_result": {"status": "saved", "path": f"plans/{run_id}.json"} if approved
        else {"status": "cancelled"},
        "calls": calls, "steps": steps, "error": None, "created_at": stamp, "updated_at": stamp,
        "pid": 4242, "process_start": 123456, "question": None,
        "explanation": "计划已由程序保存。到时按计划复习 N1 和 N2 即可。",
    }


def build(home: Path, runs: int, seed: int = 4) -> None:
    """Write `runs` run folders under home/tool-records (about 1 in 1000 damaged)."""
    rng = random.Random(seed)
    records = home / "tool-records"
    records.mkdir(parents=True)
    start = _dt.datetime(2026, 1, 1, tzinfo=_dt.UTC)
    for index in range(runs):
        created = start + _dt.timedelta(seconds=index * 37)
        run_id = f"{created.strftime('%Y%m%dT%H%M%S%fZ')}-{index:06x}"
        folder = records / run_id
        folder.mkdir()
        if index % 1000 == 999:
            (folder / "summary.json").write_text("{ broken", encoding="utf-8")
            continue
        data = json.dumps(summary(run_id, created, rng), ensure_ascii=False, indent=2)
        (folder / "summary.json").write_text(data + "\n", encoding="utf-8")


def main() -> int:
    """Build the records, time the three commands interleaved, print medians and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="planner-costs-bench-") as temp:
        home = Path(temp)
        build(home, args.runs)
        commands = {
            "planner costs --json": [PLANNER, "costs", "--json", "--home", temp],
            "bare json-load loop": [sys.executable, "-c", BARE_LOOP, temp],
            "planner runs --json": [PLANNER, "runs", "--json", "--home", temp],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for argv in commands.values():  # warm the page cache and .pyc files once
            timed(argv)
        for _ in range(args.repeat):
            for name, argv in commands.items():
                times[name].append(timed(argv))
    medians = {name: statistics.median(values) for name, values in times.items()}
    print(f"{args.runs} runs, {args.repeat} repetitions, interleaved (median wall time):")
    for name, value in medians.items():
        print(f"  {name:22} {value * 1000:8.1f} ms")
    ratio = medians["planner costs --json"] / medians["bare json-load loop"]
    verdict = "ok" if ratio <= TARGET_RATIO else "ABOVE TARGET"
    print(f"  ratio costs/bare      {ratio:8.2f}   (target <= {TARGET_RATIO}: {verdict})")
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
