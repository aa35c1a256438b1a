"""Time `planner mcp` (README "planner for other agents").

Usage: .venv/bin/python benchmarks/mcp_bench.py [--notes N] [--repeat R]

Builds a temporary home with N notes in a notes folder, a review log and one goal. Then measures,
R times each, medians side by side:

- (a) a lookup through `planner mcp` (search_notes, then free_slots), one server started once and
  driven by the mcp package's own stdio client, against (b) the same lookup in process: the very
  call the server's handler makes (planner.agents.mcp_server.call). Target: a - b at most 20 ms.
- (c) the server's start: `planner mcp` spawned until it answers `initialize`, against (d)
  `python -c "import mcp"`, interleaved. Target: c/d at most 1.5.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from planner.memory import log as reviews  # noqa: E402

PLANNER = str(Path(sys.executable).with_name("planner"))
TARGET_ABOVE_MS = 20
TARGET_RATIO = 1.5
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "bench", "version": "1"}}}) + "\n"


def build_home(home: Path, notes: int) -> None:
    folder = home / "notes"
    folder.mkdir()
    for number in range(1, notes + 1):
        (folder / f"n{number}.md").write_text(
            f"---\nid: N{number}\ntags: [exam]\n---\n# Note {number}\ngrammar word{number}\n",
            encoding="utf-8")
    day = _dt.date.today() + _dt.timedelta(days=40)
    (home / "config.json").write_text(json.dumps({"goals": [
        {"name": "Exam", "date": day.isoformat(), "notes": ["tag:exam"]}]}), encoding="utf-8")
    reviews.record_reviews(home, [f"N{number}" for number in range(1, notes + 1, 3)], "good",
                           reviewed_at=_dt.datetime.now(_dt.UTC) - _dt.timedelta(days=4))


def calls() -> list[tuple[str, dict]]:
    return [("search_notes", {"query": "grammar", "limit": 5}),
            ("free_slots", {"from": _dt.date.today().isoformat(), "days": 14, "minutes": 30})]


def through_mcp(home: Path, repeat: int) -> dict[str, list[float]]:
    """Each lookup's round trip through one running server, in seconds."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    async def main() -> dict[str, list[float]]:
        times: dict[str, list[float]] = {name: [] for name, _ in calls()}
        parameters = StdioServerParameters(command=PLANNER, args=["--home", str(home), "mcp"])
        async with stdio_client(parameters) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                for name, arguments in calls():  # the notes loaded once, as in a run
                    await session.call_tool(name, arguments)
                for _ in range(repeat):
                    for name, arguments in calls():
                        started = time.perf_counter()
                        result = await session.call_tool(name, arguments)
                        times[name].append(time.perf_counter() - started)
                        assert not result.is_error, result.content
        return times

    return anyio.run(main)


def in_process(home: Path, repeat: int) -> dict[str, list[float]]:
    """The same lookups, the server's own call in this process, in seconds."""
    from planner.agents.mcp_server import Home, call
    from planner.base.config import load_config

    served = Home(home, load_config(home / "config.json", home))
    times: dict[str, list[float]] = {name: [] for name, _ in calls()}
    for name, arguments in calls():
        call(served, name, arguments, ("bench", "1"))
    for _ in range(repeat):
        for name, arguments in calls():
            started = time.perf_counter()
            call(served, name, arguments, ("bench", "1"))
            times[name].append(time.perf_counter() - started)
    return times


def start_time(home: Path) -> float:
    """From spawning `planner mcp` to its answer to initialize, in seconds."""
    started = time.perf_counter()
    child = subprocess.Popen([PLANNER, "--home", str(home), "mcp"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write(INITIALIZE.encode())
    child.stdin.flush()
    line = child.stdout.readline()
    elapsed = time.perf_counter() - started
    child.stdin.close()
    child.wait(timeout=30)
    assert b'"id":1' in line, line
    return elapsed


def import_time() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import mcp"], check=True)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        build_home(home, args.notes)
        print(f"mcp_bench: {args.notes} notes, {args.repeat} rounds, medians")
        remote, local = through_mcp(home, args.repeat), in_process(home, args.repeat)
        met = True
        for name, _ in calls():
            above = (statistics.median(remote[name]) - statistics.median(local[name])) * 1000
            met = met and above <= TARGET_ABOVE_MS
            print(f"  {name}: through planner mcp {statistics.median(remote[name]) * 1000:6.1f}"
                  f" ms, in process {statistics.median(local[name]) * 1000:6.1f} ms, above "
                  f"{above:5.1f} ms  (target <= {TARGET_ABOVE_MS})")
        starts, imports = [], []
        for _ in range(args.repeat):
            starts.append(start_time(home))
            imports.append(import_time())
        ratio = statistics.median(starts) / statistics.median(imports)
        met = met and ratio <= TARGET_RATIO
        print(f"  planner mcp answering initialize: {statistics.median(starts) * 1000:7.1f} ms")
        print(f"  python -c 'import mcp':           {statistics.median(imports) * 1000:7.1f} ms")
        print(f"  ratio start/import: {ratio:.2f}  (target <= {TARGET_RATIO})")
        print("  target met" if met else "  TARGET MISSED")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
