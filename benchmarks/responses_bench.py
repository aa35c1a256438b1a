"""The live run over the Responses API, side by side with a bare SDK script (README "Providers").

Starts tests/stub_server.py answering as the Responses API (`--bench --api responses`: the
proposal, then the explanation), points planner at it with config `"api": "responses"`, and
runs, interleaved in rounds, (a) `planner --request ...` answering SAVE in its own
pseudo-terminal (as benchmarks/startup.py does) and (b) a bare Python script that makes the
same two `responses.create` calls with the openai SDK (the very bodies planner sent, read from
a first run's tool-records/<run>/01-request.json and 02-request.json) and writes a file.
Prints the medians and the ratio a/b (target: at most 1.10); exit 1 when missed.

    .venv/bin/python benchmarks/responses_bench.py [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from startup import run_in_pty

ROOT = Path(__file__).resolve().parent.parent
PLANNER = str(Path(sys.executable).with_name("planner"))
KEY = "sk-bench-not-a-real-key"
TARGET_RATIO = 1.10

# The same split as planner's: the SDK's named parameters by name, the rest (input among them)
# through extra_body, so both send the same bytes. Writes the answer to a file, as planner
# writes its plan.
BARE_SCRIPT = """
import json, sys
from openai import OpenAI
NAMED = ("model", "tools", "tool_choice", "store", "max_output_tokens", "include")
bodies = json.load(open(sys.argv[1]))
client = OpenAI(api_key=sys.argv[2], base_url=sys.argv[3], max_retries=0, timeout=60)
for body in bodies:
    params = {k: v for k, v in body.items() if k in NAMED}
    extra = {k: v for k, v in body.items() if k not in NAMED}
    reply = client.responses.create(**params, extra_body=extra or None)
with open(sys.argv[4], "w", encoding="utf-8") as out:
    out.write(reply.output_text + "\\n")
print(reply.output_text)
"""


def start_server() -> tuple[subprocess.Popen, str]:
    """The stub server answering as the Responses API; (process, base URL)."""
    server = subprocess.Popen([sys.executable, str(ROOT / "tests" / "stub_server.py"),
                               "--port", "0", "--bench", "--api", "responses"],
                              stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline().split()
    if len(line) != 2 or line[0] != "READY":
        server.terminate()
        raise SystemExit(f"stub server did not start: {line}")
    return server, line[1]


def measure(home: Path, url: str, rounds: int) -> dict[str, list[float]]:
    """Capture planner's bodies once, then time both commands in interleaved rounds."""
    (home / "config.json").write_text(json.dumps({"base_url": url, "api": "responses"}))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(NO_COLOR="1", DEEPSEEK_API_KEY=KEY, TERM="dumb")
    request = [PLANNER, "--request", "plan it"]
    run_in_pty(request, home, env, b"SAVE\n")  # also warms the .pyc files
    (run,) = sorted((home / "tool-records").iterdir())
    bodies = [json.loads((run / f"0{n}-request.json").read_text()) for n in (1, 2)]
    if any("input" not in body for body in bodies):
        raise SystemExit(f"planner did not send Responses bodies: {run}")
    (home / "bodies.json").write_text(json.dumps(bodies))
    (home / "bare.py").write_text(BARE_SCRIPT)
    bare = [sys.executable, "bare.py", "bodies.json", KEY, url, "bare-out.txt"]
    run_in_pty(bare, home, env, None)
    commands = {"planner --request (SAVE), Responses": (request, b"SAVE\n"),
                "bare SDK script, 2 responses.create": (bare, None)}
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, (argv, answer) in commands.items():
            times[name].append(run_in_pty(argv, home, env, answer)[0])
    return times


def main() -> int:
    """Start the stub server, measure, print medians and the ratio; 1 when the target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    server, url = start_server()
    try:
        with tempfile.TemporaryDirectory(prefix="planner-responses-bench-") as folder:
            times = measure(Path(folder), url, args.rounds)
    finally:
        server.terminate()
        server.wait()
    medians = {name: statistics.median(values) for name, values in times.items()}
    planner, bare = medians.values()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}; {args.rounds} interleaved rounds (median wall time):")
    for name, value in medians.items():
        print(f"  {name:38} {value * 1000:8.1f} ms")
    ratio = planner / bare
    verdict = "ok" if ratio <= TARGET_RATIO else "ABOVE TARGET"
    print(f"  {'ratio planner/bare':38} {ratio:8.2f}   (target <= {TARGET_RATIO:.2f}: {verdict})")
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
