"""Start-up and overhead of planner, side by side with bare baselines, in one run.

Each command runs in its own pseudo-terminal (so /dev/tty and the SAVE prompt are real),
rounds are interleaved so machine noise hits every command alike, and wall time and peak
memory come from the child itself (os.wait4). Prints medians and ratios.

    .venv/bin/python benchmarks/startup.py [--rounds N] [--start-up-only] [--compare [REV]]
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import platform
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
PLANNER = str(BIN / "planner")
PROMPT = b"anything else cancels: "
KEY = "sk-bench-not-a-real-key"

BARE_SCRIPT = """
import json, sys
from openai import OpenAI
bodies = json.load(open(sys.argv[1]))
client = OpenAI(api_key=sys.argv[2], base_url=sys.argv[3], max_retries=0, timeout=60)
for body in bodies:
    extra = {k: v for k, v in body.items() if k not in
             ("model", "messages", "tools", "tool_choice", "stream", "max_tokens")}
    params = {k: v for k, v in body.items() if k not in extra}
    reply = client.chat.completions.create(**params, extra_body=extra)
print(reply.choices[0].message.content)
if len(sys.argv) > 4:  # the same exit as planner's: no final sweep over the frozen heap
    import gc
    gc.freeze()
"""


def run_in_pty(argv: list[str], cwd: Path, env: dict, answer: bytes | None) -> tuple[float, int]:
    """Run argv with a new pseudo-terminal as its controlling terminal; (seconds, peak KiB)."""
    master, slave = os.openpty()

    def become_session_leader_with_tty() -> None:
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    started = time.perf_counter()
    child = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env,
                             preexec_fn=become_session_leader_with_tty, close_fds=True)
    os.close(slave)
    seen = b""
    while True:
        ready, _, _ = select.select([master], [], [], 30)
        if not ready:
            child.kill()
            raise SystemExit(f"timed out: {' '.join(argv)}\n{seen[-500:]!r}")
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
        if answer is not None and PROMPT in seen:
            os.write(master, answer)
            answer = None
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    os.close(master)
    if child.returncode != 0:
        raise SystemExit(f"exit {child.returncode}: {' '.join(argv)}\n{seen[-800:]!r}")
    return elapsed, usage.ru_maxrss


def start_server() -> tuple[subprocess.Popen, str]:
    server = subprocess.Popen([sys.executable, str(ROOT / "tests" / "stub_server.py"),
                               "--port", "0", "--bench"], stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline().split()
    if len(line) != 2 or line[0] != "READY":
        raise SystemExit(f"stub server did not start: {line}")
    return server, line[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--start-up-only", action="store_true",
                        help="only the baseline, --help and --dry-run (no run, no server use)")
    parser.add_argument("--compare", metavar="COMMAND", nargs="?", const="HEAD",
                        help="another planner command (an earlier checkout's) measured beside; "
                        "alone or with a git revision: planner as committed there")
    args = parser.parse_args()
    # Measured as installed: bytecode compiled. Otherwise a PYTHONDONTWRITEBYTECODE environment
    # (or a module changed since its .pyc) compiles source at every start, and that is counted.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "planner")],
                   check=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""})
    server, url = start_server()
    try:
        with tempfile.TemporaryDirectory(prefix="planner-bench-") as folder:
            compare = args.compare
            if compare is not None and not Path(compare).is_file():
                compare = checkout(compare, Path(folder) / "earlier")
            home = Path(folder) / "home"
            home.mkdir()
            report(home, url, args.rounds, args.start_up_only, compare)
    finally:
        server.terminate()
        server.wait()


def checkout(revision: str, folder: Path) -> str:
    """planner as committed at `revision` (its package, this tree's compiled catalog, compiled
    bytecode) in `folder`, and a command that runs it with this Python."""
    folder.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision, "planner"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    catalog = ROOT / "planner" / "locale"
    if catalog.is_dir():  # built by the install, not committed
        shutil.copytree(catalog, folder / "planner" / "locale", dirs_exist_ok=True)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(folder / "planner")],
                   check=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""})
    command = folder / f"planner@{revision}"
    # Run as a script from `folder`, its package comes first on sys.path (before this tree's).
    command.write_text(f"#!{sys.executable}\nimport sys\nfrom planner.cli.app import main\n"
                       "sys.exit(main())\n")
    command.chmod(0o755)
    return str(command)


# The start-up commands and what each is held to: a command that imports only what it uses
# starts no later than a bare script importing Typer and Rich (1.0x); Chinese within 1.2x.
BASELINE = "import typer, rich.console"
START_UP_TARGETS = {"planner --help": 1.0, "planner --dry-run": 1.0,
                    "planner --help (zh)": 1.20, "planner --dry-run (zh)": 1.20}


def start_up_commands(env: dict) -> dict[str, tuple]:
    """The baseline and the start-up commands: {name: (argv, answer[, env])}."""
    # README "中文界面": the Chinese interface loads its catalog; at most 1.2x the English start-up.
    chinese = {**env, "LANGUAGE": "zh_CN"}
    return {
        BASELINE: ([sys.executable, "-c", "import typer, rich.console"], None),
        "planner --help": ([PLANNER, "--help"], None),
        "planner --dry-run": ([PLANNER, "--dry-run"], None),
        "planner --help (zh)": ([PLANNER, "--help"], None, chinese),
        "planner --dry-run (zh)": ([PLANNER, "--dry-run"], None, chinese),
    }


def report(home: Path, url: str, rounds: int, start_up_only: bool = False,
           compare: str | None = None) -> None:
    # Study all day: every round saves a demo plan and a live one at the first free time, and
    # an evening's three hours would be full after nine rounds (the demo then asks a question).
    (home / "config.json").write_text(json.dumps({"base_url": url,
                                                  "study_hours": {"daily": ["00:00-23:59"]}}))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(NO_COLOR="1", DEEPSEEK_API_KEY=KEY, TERM="dumb")
    python = sys.executable
    baselines = {
        "planner --help": BASELINE,
        "planner --dry-run": BASELINE,
        "planner --help (zh)": "planner --help",
        "planner --dry-run (zh)": "planner --dry-run",
    }
    if start_up_only:
        commands = start_up_commands(env)
        if compare:
            for name in ("--help", "--dry-run"):
                commands[f"{compare} {name}"] = ([compare, name], None)
                baselines[f"{compare} {name}"] = BASELINE
        measure(home, env, rounds, commands, baselines, START_UP_TARGETS)
        return
    # The bare script sends the very bodies planner sends: captured from one planner run.
    run_in_pty([PLANNER, "--request", "plan it"], home, env, b"SAVE\n")
    (run,) = sorted((home / "tool-records").iterdir())
    bodies = [json.loads((run / f"0{n}-request.json").read_text()) for n in (1, 2)]
    (home / "bodies.json").write_text(json.dumps(bodies))
    (home / "bare.py").write_text(BARE_SCRIPT)
    # A terminal that can redraw a line: the live run shows its waiting line there (on "dumb"
    # it does not), so its cost is measured too.
    xterm = {**env, "TERM": "xterm-256color"}
    commands = {
        **start_up_commands(env),
        "planner --demo (SAVE)": ([PLANNER, "--demo"], b"SAVE\n"),
        "bare SDK script, 2 calls": ([python, "bare.py", "bodies.json", KEY, url], None),
        "bare SDK script + gc.freeze() at exit": (
            [python, "bare.py", "bodies.json", KEY, url, "freeze"], None),
        "planner --request (SAVE)": ([PLANNER, "--request", "plan it"], b"SAVE\n"),
        "planner --request (SAVE), waiting line (TERM=xterm)": (
            [PLANNER, "--request", "plan it"], b"SAVE\n", xterm),
    }
    baselines.update({
        "planner --demo (SAVE)": BASELINE,
        "planner --request (SAVE)": "bare SDK script, 2 calls",
        "planner --request (SAVE), waiting line (TERM=xterm)": "bare SDK script, 2 calls",
    })
    targets = {**START_UP_TARGETS, "planner --request (SAVE)": 1.10,
               "planner --request (SAVE), waiting line (TERM=xterm)": 1.10}
    median = measure(home, env, rounds, commands, baselines, targets)
    # Informational: planner against a bare script that exits the way planner does, so the
    # table shows the app's own overhead apart from the exit-time saving.
    extra = ("planner --request (SAVE)", "bare SDK script + gc.freeze() at exit")
    ratio = median[extra[0]] / median[extra[1]]
    print(f"`{extra[0]}` vs `{extra[1]}`: {ratio:.2f}x (informational: the app's own overhead)")


def measure(home: Path, env: dict, rounds: int, commands: dict[str, tuple],
            baselines: dict[str, str], targets: dict[str, float]) -> dict[str, float]:
    """Run the commands in interleaved rounds; print the table of medians; the medians."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    memory: dict[str, list[int]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, (argv, answer, *own_env) in commands.items():
            seconds, peak = run_in_pty(argv, home, own_env[0] if own_env else env, answer)
            times[name].append(seconds)
            memory[name].append(peak)
    median = {name: statistics.median(values) for name, values in times.items()}
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}, "
          f"Python {platform.python_version()}; {rounds} interleaved rounds, medians")
    print()
    print("| command | median wall | vs baseline | target | peak memory |")
    print("|---|---:|---:|---:|---:|")
    verdicts = []
    for name in commands:
        base = baselines.get(name)
        ratio = median[name] / median[base] if base else None
        target = targets.get(name, 1.5) if base else None
        cell = f"{ratio:.2f}x" if ratio else "baseline"
        goal = f"<= {target:.2f}x" if target else ""
        if ratio:
            verdicts.append(ratio <= target)
        peak = statistics.median(memory[name]) / 1024
        print(f"| `{name}` | {median[name] * 1000:.0f} ms | {cell} | {goal} | {peak:.1f} MiB |")
    print()
    print("all targets met" if all(verdicts) else "TARGET MISSED")
    return median


if __name__ == "__main__":
    main()
