"""Hand-built run records for the history and costs tests: summary.json files on disk."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_planner

from planner.base.config import Prices
from planner.model import costs

# Round numbers so expected costs can be written out by hand.
PRICES = Prices(currency="CNY", input_cache_hit=0.5, input_cache_miss=2.0, output=8.0)
CONFIG = {
    "prices": {
        "currency": "CNY",
        "per_million_tokens": {"input_cache_hit": 0.5, "input_cache_miss": 2.0, "output": 8.0},
    }
}


def deepseek_usage(hit: int, miss: int, output: int) -> dict:
    """Usage as DeepSeek reports it: the cache split is given."""
    return {
        "prompt_tokens": hit + miss, "completion_tokens": output,
        "total_tokens": hit + miss + output,
        "prompt_cache_hit_tokens": hit, "prompt_cache_miss_tokens": miss,
    }


def call(number: int, usage: object = None, error: str | None = None) -> dict:
    """One entry of a summary's `calls` list."""
    return {
        "request": f"{number:02d}-request.json", "response": f"{number:02d}-response.json",
        "started_at": "2026-11-20T09:00:00.000+08:00", "duration_ms": 800 + number,
        "usage": usage, "error": error,
    }


def summary(run_id: str, **changes: object) -> dict:
    """A complete, saved live run (two calls, known usage), with `changes` applied."""
    data = {
        "version": 1, "run_id": run_id, "mode": "live", "simulated": False,
        "status": "complete", "stage": "done",
        "request": "请把N1和N2安排在2026-12-05复习20分钟，标题为RAG基础复习。",
        "model": "deepseek-v4-flash", "base_url": "https://api.deepseek.com",
        "approved": True,
        "plan": {"title": "RAG基础复习", "note_ids": ["N1", "N2"], "date": "2026-12-05",
                 "minutes": 20},
        "target": f"plans/{run_id}.json",
        "tool_result": {"status": "saved", "path": f"plans/{run_id}.json"},
        "calls": [call(1, deepseek_usage(1000, 200, 50)), call(2, deepseek_usage(1100, 150, 40))],
        "error": None,
        "created_at": "2026-11-20T09:00:00.000+08:00",
        "updated_at": "2026-11-20T09:00:02.000+08:00",
        "pid": 1, "process_start": 1,
        "question": None,
        "explanation": "计划已保存到 plans/。到时复习 N1 和 N2。",
    }
    data.update(changes)
    return data


def write_run(home: Path, run_id: str, data: object = None, raw: bytes | None = None) -> Path:
    """A run folder with summary.json: `data` as JSON, or `raw` bytes as they are."""
    folder = home / "tool-records" / run_id
    folder.mkdir(parents=True)
    content = raw if raw is not None else json.dumps(data, ensure_ascii=False).encode("utf-8")
    (folder / "summary.json").write_bytes(content)
    return folder


def demo_runs(home: Path, count: int) -> None:
    """Real demo runs, through the installed command with no terminal (so: cancelled)."""
    for _ in range(count):
        result = run_planner("--demo", "--home", str(home))
        assert result.returncode == 0, result.stderr


def write_config(home: Path) -> Path:
    """config.json in home (the tests' working directory) with the round test prices."""
    path = home / "config.json"
    path.write_text(json.dumps(CONFIG), encoding="utf-8")
    return path


def record_files(folder: Path) -> list[str]:
    """The run folder's file names, sorted, messages.json left out once it is checked: it is
    there exactly when summary.json holds a program line, and each of its entries says the
    words summary.json holds, from a template of the program's catalog."""
    names = sorted(path.name for path in folder.iterdir())
    texts: set[str] = set()
    stack: list[object] = [json.loads((folder / "summary.json").read_text(encoding="utf-8"))]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            texts.add(value)
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    if "messages.json" in names:
        kept = json.loads((folder / "messages.json").read_text(encoding="utf-8"))
        assert kept and set(kept) <= texts, set(kept) - texts
        for text, line in kept.items():
            assert _said(line) == text, (text, line)
        names.remove("messages.json")
    return names


def _said(line: dict) -> str:
    values = {name: _said(value) if isinstance(value, dict) else value
              for name, value in line["values"].items()}
    return line["template"].format(**values) if values else line["template"]


# The commands that read the records (and take --home, -h, --json).
COMMANDS = ["runs", "show", "costs", "plans", "export", "notes"]
NEWEST = "20261103T000000000000Z-cccccc"
MIDDLE = "20261102T000000000000Z-bbbbbb"
OLDEST = "20261101T000000000000Z-aaaaaa"


def three_runs(home: Path) -> None:
    """Three recorded runs, OLDEST, MIDDLE and NEWEST."""
    for run_id in (OLDEST, MIDDLE, NEWEST):
        write_run(home, run_id, summary(run_id))


def tally_calls(calls) -> costs.Tally:
    """A summary's call entries tallied as `costs` tallies them (by their usage)."""
    return costs.tally_usages([call.usage for call in calls])
