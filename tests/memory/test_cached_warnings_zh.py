"""README "中文界面": a review log's warnings are said in Chinese also when they come from the
memory cache (README "A memory fitted to you"), which keeps each one's template beside its words."""

from __future__ import annotations

import datetime as _dt
import os
from pathlib import Path

from conftest import run_planner

from planner.memory import log as review_log


def test_a_skipped_log_line_is_warned_in_chinese_from_the_cache_too(home: Path) -> None:
    reviewed = _dt.datetime.now(_dt.UTC).replace(microsecond=0) - _dt.timedelta(days=3)
    review_log.append(home, [review_log.Review("R1", "N1", None, reviewed, "good", None)])
    with (home / "reviews.jsonl").open("a", encoding="utf-8") as log:
        log.write("not json\n")
    said = []
    for _ in range(2):  # the first run builds the cache, the second reads it warm
        result = run_planner("due", env={**os.environ, "LANGUAGE": "zh_CN"})
        assert result.returncode == 0, result.stderr
        said.append(" ".join(result.stderr.split()))
    assert (home / ".planner" / "memory-cache.txt").exists()
    for stderr in said:
        assert "reviews.jsonl 第 2 行无法读取" in stderr and "已跳过" in stderr, stderr
        assert "cannot be read" not in stderr and "skipped" not in stderr, stderr
    # The cache's line keeps the English words first, then the template (a tab apart).
    lines = (home / ".planner" / "memory-cache.txt").read_text(encoding="utf-8").splitlines()
    assert lines[1].startswith("reviews.jsonl line 2 cannot be read (")
    assert "\t{\"template\": \"{log} line {number} cannot be read ({reason}); skipped\"" in lines[1]
