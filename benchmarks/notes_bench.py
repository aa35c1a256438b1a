"""Notes at scale: 10,000 Markdown notes of about 2 KB, timed side by side with bare baselines.

Every figure is a whole process (start-up included), rounds interleaved so machine noise hits
each command alike; wall time and peak memory come from the child itself (os.wait4). Prints
medians, ratios and whether each target of README "Your notes" / issue 11 is met:

- building the index from nothing   <= 10x  a bare loop reading every file into an in-memory
                                             FTS5 table
- a search with a warm index         <= 2.5x `planner --help`
- the search after one note changed  <= 3x   `planner --help` (edited ten seconds before)
- peak memory of `planner notes`     <= 64 MiB (build, search, table, --json of every note)

    .venv/bin/python benchmarks/notes_bench.py [--notes N] [--rounds N] [--build-rounds N]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
PLANNER = str(BIN / "planner")
TARGETS = {"build": 10.0, "warm": 2.5, "changed": 3.0}
MEMORY_MIB = 64

BARE_LOOP = """
import os, sqlite3, sys
db = sqlite3.connect(":memory:")
db.execute("CREATE VIRTUAL TABLE notes USING fts5(path, body)")
with db:
    for folder, _dirs, names in os.walk(sys.argv[1]):
        for name in names:
            if name.endswith(".md"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as handle:
                    db.execute("INSERT INTO notes VALUES (?, ?)", (path, handle.read()))
print(db.execute("SELECT count(*) FROM notes WHERE notes MATCH 'retrieval'").fetchone()[0])
"""

# Vocabularies for notes that read like study notes: each note has a topic (a few words it is
# about) and draws most of its words from it, so a word is in some notes, not in all of them.
ZH_WORDS = (
    "检索 向量 切分 引用 校验 模型 提示 评测 数据 索引 召回 排序 "
    "重排 上下文 窗口 嵌入 相似度 段落 文档 答案 问题 片段 生成 增强 "
    "知识 图谱 推理 链路 工具 调用 代理 规划 记忆 缓存 延迟 成本 "
    "批处理 流式 微调 蒸馏 量化 剪枝 注意力 编码器 解码器 词表 分词 语料 "
    "标注 清洗 去重 过滤 评估 指标 准确率 召回率 覆盖率 幻觉 对齐 安全 "
    "隐私 日志 监控 部署 服务 接口 协议 格式 模板 示例 练习 复习 "
    "总结 概念 定义 例子 误区 技巧 "
).split()
ZH_GLUE = ["的", "是", "和", "在", "要", "先", "再", "把", "用", "对", "，", "。", "；"]
EN_WORDS = (
    "retrieval augmented generation chunk vector index query answer citation model prompt "
    "embedding similarity rerank context window evaluation dataset baseline latency cache "
    "token budget batch stream finetune distill quantize prune attention encoder decoder "
    "vocabulary tokenizer corpus label clean dedupe filter metric precision recall coverage "
    "hallucination alignment safety privacy logging monitor deploy service interface protocol "
    "format template example exercise review summary concept definition pitfall trick agent "
    "planner memory tool schema validation proposal confirm record audit cost usage price"
).split()
EN_GLUE = ["the", "a", "of", "and", "to", "in", "is", "for", "with", "then", "first"]
QUERIES = {"检索": "a two-character Chinese word", "retrieval": "an English word",
           "复习": "in every note (worst case)"}


def make_notes(folder: Path, count: int) -> None:
    """`count` notes of about 2 KB in 100 folders, Chinese and English, most with front matter."""
    past = time.time() - 86400  # written yesterday: nothing is "just changed"
    for number in range(count):
        rng = random.Random(number)
        zh_topic, en_topic = rng.sample(ZH_WORDS, 6), rng.sample(EN_WORDS, 8)
        parts, size = [], 0
        while size < 1900:
            if rng.random() < 0.5:
                words = [rng.choice(en_topic if rng.random() < 0.6 else EN_GLUE)
                         for _ in range(14)]
                part = " ".join(words) + ". "
            else:
                part = "".join(rng.choice(zh_topic if rng.random() < 0.5 else ZH_GLUE)
                               for _ in range(16)) + "。"
            parts.append(part)
            size += len(part.encode())
        body = f"# Note {number}\n\n复习要点：" + "".join(parts) + "\n"
        if number % 3:
            body = (f"---\nid: B{number}\ntitle: 笔记 {number} {zh_topic[0]}\n"
                    f"tags: [{', '.join(en_topic[:2])}]\n---\n") + body
        path = folder / f"area{number % 100:02d}" / f"note-{number:05d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
        os.utime(path, (past, past))


def run(argv: list[str], cwd: Path) -> tuple[float, int]:
    """Run argv to its end; (seconds, peak resident KiB) of that child."""
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}
    started = time.perf_counter()
    child = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    errors = child.stderr.read().decode(errors="replace")
    child.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0 or errors:
        raise SystemExit(f"{' '.join(argv)} failed: {errors[-800:]}")
    return elapsed, usage.ru_maxrss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--build-rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="planner-notes-bench-") as folder:
        report(Path(folder), args)


def report(home: Path, args: argparse.Namespace) -> None:
    notes = home / "notes"
    started = time.perf_counter()
    make_notes(notes, args.notes)
    total_bytes = sum(path.stat().st_size for path in notes.rglob("*.md"))
    print(f"generated {args.notes:,} notes, {total_bytes / 1e6:.1f} MB "
          f"({total_bytes / args.notes:,.0f} bytes each) in {time.perf_counter() - started:.1f} s")
    (home / "bare_loop.py").write_text(BARE_LOOP)
    index = home / ".planner" / "notes-index.sqlite3"
    query = next(iter(QUERIES))
    search = [PLANNER, "notes", query]
    times: dict[str, list[float]] = {}
    memory: dict[str, list[int]] = {}

    def measure(name: str, argv: list[str]) -> None:
        seconds, peak = run(argv, home)
        times.setdefault(name, []).append(seconds)
        memory.setdefault(name, []).append(peak)

    build, bare = f"planner notes {query} (index built from nothing)", "bare loop"
    help_, warm = "planner --help", f"planner notes {query} (warm index)"
    edited = f"planner notes {query} (one note changed)"
    for _ in range(args.build_rounds):
        measure(bare, [sys.executable, "bare_loop.py", "notes"])
        index.unlink(missing_ok=True)
        measure(build, search)
    changed = notes / "area07" / "note-00007.md"
    original = changed.read_text(encoding="utf-8")
    for round_number in range(args.rounds):
        measure(help_, [PLANNER, "--help"])
        measure(warm, search)
        # Edited ten seconds ago: the size changes, so the search sees it and reads it again.
        changed.write_text(original + f"\n改动 {round_number}\n", encoding="utf-8")
        ten_seconds_ago = time.time() - 10
        os.utime(changed, (ten_seconds_ago, ten_seconds_ago))
        measure(edited, search)
    informational = []
    for word, what in list(QUERIES.items())[1:]:
        informational.append((f"planner notes {word} (warm; {what})", [PLANNER, "notes", word]))
    informational += [
        ("planner notes (table, first 50)", [PLANNER, "notes"]),
        ("planner notes --json (every note)", [PLANNER, "notes", "--json"]),
        (f"planner notes --json --limit 0 {query} (every match)",
         [PLANNER, "notes", "--json", "--limit", "0", query]),
    ]
    for _ in range(5):
        for name, argv in informational:
            measure(name, argv)
    counts = {word: len(json.loads(subprocess.run(
        [PLANNER, "notes", "--json", "--limit", "0", word], cwd=home, capture_output=True,
        text=True).stdout)) for word in QUERIES}

    median = {name: statistics.median(values) for name, values in times.items()}
    peak = {name: max(values) / 1024 for name, values in memory.items()}
    baselines = {build: (bare, TARGETS["build"]), warm: (help_, TARGETS["warm"]),
                 edited: (help_, TARGETS["changed"])}
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}, "
          f"Python {platform.python_version()}; medians of {args.build_rounds} build rounds, "
          f"{args.rounds} search rounds and 5 rounds of the rest, interleaved; "
          f"index file {index.stat().st_size / 1e6:.1f} MB")
    print("notes matching: " + ", ".join(f"{word} {count:,}" for word, count in counts.items()))
    print("bare loop = a Python loop that reads every .md file and inserts it into an in-memory "
          "FTS5 table (one transaction)")
    print()
    print("| command | median wall | vs baseline | target | peak memory (max) |")
    print("|---|---:|---:|---:|---:|")
    verdicts = []
    for name in times:
        base = baselines.get(name)
        ratio_cell = "baseline" if name in (bare, help_) else ""
        target_cell = ""
        if base:
            ratio = median[name] / median[base[0]]
            verdicts.append(ratio <= base[1])
            ratio_cell, target_cell = f"{ratio:.2f}x", f"<= {base[1]:.1f}x"
        memory_cell = f"{peak[name]:.1f} MiB"
        if name.startswith("planner notes"):
            verdicts.append(peak[name] <= MEMORY_MIB)
            memory_cell += f" (<= {MEMORY_MIB})"
        print(f"| `{name}` | {median[name] * 1000:,.0f} ms | {ratio_cell} | {target_cell} "
              f"| {memory_cell} |")
    print()
    print("all targets met" if all(verdicts) else "TARGET MISSED")


if __name__ == "__main__":
    main()
