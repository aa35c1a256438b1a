"""planner.ui.plain: the dry run's notices without Rich, byte for byte what Rich writes.

README "Speed": `planner --dry-run` starts no later than a bare `import typer, rich`; it prints
its notices without Rich, so they must stay exactly what `planner.ui.console.notice` writes
under every setting Rich reads (TERM, NO_COLOR, FORCE_COLOR, TTY_COMPATIBLE, COLORTERM,
COLUMNS, a terminal or not), in English and in Chinese.
"""

from __future__ import annotations

import io
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from planner.ui import console, plain

ROOT = Path(__file__).resolve().parent.parent.parent

MESSAGES = [
    "Key for a live run: the environment variable DEEPSEEK_API_KEY.",
    "Dry run: the first request live mode would send to https://api.deepseek.com (POST "
    "/chat/completions). Nothing was sent; no key was read; nothing was written.",
    "试运行：实时模式会发往 https://api.deepseek.com 的第一个请求（POST /chat/completions）。"
    "什么也没有发送；没有读取密钥；除笔记索引（.planner/）外什么也没有写入。",
    "",
    "x" * 80,
    "x" * 81,
    "bad \x1b[31m red \u202e and\ttab  spaces " * 4,
    "Records: /home/someone/a/very/long/path/" + "segment/" * 20 + "20250101-120000",
    "笔记 [新笔记] 评分“吃力” 40 分钟 " * 6,
]
SETTINGS = {
    "TERM": [None, "dumb", "xterm-256color", "unknown"],
    "NO_COLOR": [None, "1"],
    "FORCE_COLOR": [None, "1", ""],
    "TTY_COMPATIBLE": [None, "0", "1"],
    "COLORTERM": [None, "truecolor"],
    "COLUMNS": [None, "40", "200", "0"],
}


class Stream(io.StringIO):
    """stderr as a terminal or as a pipe."""

    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def written(notice, tty: bool, monkeypatch: pytest.MonkeyPatch) -> str:
    stream = Stream(tty)
    with monkeypatch.context() as patch:
        patch.setattr(sys, "stderr", stream)
        # Built now, as planner builds it at its first notice: Rich reads the colours then.
        patch.setattr(console, "err", console._console(stderr=True))
        for message in MESSAGES:
            notice(message)
    return stream.getvalue()


@pytest.mark.parametrize("tty", [True, False], ids=["terminal", "pipe"])
def test_plain_notices_are_the_bytes_rich_writes(tty: bool,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    names = list(SETTINGS)
    coloured = wrapped = 0
    for values in itertools.product(*SETTINGS.values()):
        for name, value in zip(names, values, strict=True):
            if value is None:
                monkeypatch.delenv(name, raising=False)
            else:
                monkeypatch.setenv(name, value)
        rich = written(console.notice, tty, monkeypatch)
        assert written(plain.notice, tty, monkeypatch) == rich, dict(zip(names, values,
                                                                         strict=True))
        coloured += "\x1b[2m" in rich
        wrapped += "\n  " in rich
    # Both ways were met: coloured and not, wrapped (on a terminal) and not.
    assert coloured and coloured < len(list(itertools.product(*SETTINGS.values())))
    assert bool(wrapped) is tty


_PROBE = """
import sys
sys.argv = ["planner", *sys.argv[1:]]
from planner.cli.app import main
try:
    main()
except SystemExit:
    pass
loaded = [name for name in ("rich", "fsrs", "hashlib", "planner.calendar.timetable")
          if name in sys.modules]
print("LOADED=" + ",".join(loaded))
"""


def test_the_dry_run_loads_neither_rich_nor_fsrs_nor_the_timetable(home: Path) -> None:
    # A home with no review yet: nothing to replay, no timetable to build for the first request.
    done = subprocess.run([sys.executable, "-c", _PROBE, "--dry-run"], capture_output=True,
                          text=True, timeout=60, env={**_env(), "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    body, _, last = done.stdout.rstrip().rpartition("\n")
    assert last == "LOADED="
    assert json.loads(body)["messages"][0]["role"] == "system"
    assert done.stderr.startswith("Dry run: the first request live mode would send to ")


def _env() -> dict[str, str]:
    import os

    return {name: value for name, value in os.environ.items() if name != "FORCE_COLOR"}
