"""README.md and README.zh-CN.md name the same commands, options and config keys, and show the
same code blocks: a sentence added to one README without its translation fails here, naming what
is missing and from which file."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
ENGLISH = "README.md"
CHINESE = "README.zh-CN.md"

FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
SPAN = re.compile(r"`([^`]+)`")
COMMAND = re.compile(r"(?<![\w.-])planner\s+([a-z][a-z0-9-]*)")
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
COMMENT = re.compile(r"(?:^|\s)#\s.*$", re.M)
JSON_KEY = re.compile(r'"([a-z][a-z0-9_]*)"\s*:')
NAME = r"`[a-z][a-z0-9_]*`"
KEY_CELL = re.compile(rf"^\|\s*({NAME}(?:\s*[,、]\s*{NAME})*)\s*\|")


def read(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def code_blocks(text: str) -> list[str]:
    return FENCE.findall(text)


def code(text: str) -> list[str]:
    """Every fenced block and every inline code span (a span may wrap onto the next line)."""
    spans = [" ".join(span.split()) for span in SPAN.findall(FENCE.sub("", text))]
    return code_blocks(text) + spans


def commands(text: str) -> set[str]:
    """The command word of every `planner <command>` in code (not in a shell comment, where
    `installs planner with test tools` is prose): `planner key set` gives `key`."""
    pieces = [COMMENT.sub("", piece) for piece in code(text)]
    return {word for piece in pieces for word in COMMAND.findall(piece)}


def options(text: str) -> set[str]:
    return set(OPTION.findall(text))


def table_keys(text: str) -> set[str]:
    """The names in the first column of the config table: the table most of whose rows start with
    backticked names only, one of them a key of config.example.json."""
    example = set(json.loads(read("config.example.json")))
    found: set[str] = set()
    rows: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            rows.append(line)
            continue
        cells = [KEY_CELL.match(row) for row in rows[2:]]
        names = {name.strip("`") for cell in cells if cell
                 for name in re.findall(NAME, cell.group(1))}
        if 2 * sum(map(bool, cells)) > len(cells) and names & example:
            found |= names
        rows = []
    return found


def config_keys(text: str, known: set[str]) -> set[str]:
    """The config keys a README names: its config table's, and every known key that stands alone
    in a code span or is a key of a JSON example."""
    named = table_keys(text)
    for piece in code(text):
        if piece in known:
            named.add(piece)
        named |= {key for key in JSON_KEY.findall(piece) if key in known}
    return named


def known_keys() -> set[str]:
    return (set(json.loads(read("config.example.json")))
            | table_keys(read(ENGLISH)) | table_keys(read(CHINESE)))


def missing(english: str, chinese: str) -> list[str]:
    """One line per thing one README names and the other does not."""
    known = known_keys()
    kinds = [("command", commands), ("option", options),
             ("config key", lambda text: config_keys(text, known))]
    problems = []
    for kind, extract in kinds:
        english_names, chinese_names = extract(english), extract(chinese)
        problems += [f"{CHINESE} lacks the {kind} {name}, which {ENGLISH} names"
                     for name in sorted(english_names - chinese_names)]
        problems += [f"{ENGLISH} lacks the {kind} {name}, which {CHINESE} names"
                     for name in sorted(chinese_names - english_names)]
    return problems


def test_both_readmes_name_the_same_commands_options_and_config_keys() -> None:
    problems = missing(read(ENGLISH), read(CHINESE))
    assert not problems, "\n".join(problems)


def test_the_names_are_found() -> None:
    """The extraction sees what the README holds, so an empty set cannot pass for parity."""
    text = read(ENGLISH)
    assert {"init", "done", "week", "sync", "key", "where"} <= commands(text)
    assert {"--dry-run", "--continue", "--home", "--json", "--until"} <= options(text)
    keys = config_keys(text, known_keys())
    assert {"provider", "base_url", "max_calls", "busy_calendars", "language"} <= keys
    assert "notes" not in keys  # a JSON field of `notes --json`, not a config key


def test_every_code_block_of_the_english_readme_is_in_the_chinese_one() -> None:
    chinese = code_blocks(read(CHINESE))
    absent = [block for block in code_blocks(read(ENGLISH)) if block not in chinese]
    assert not absent, f"{CHINESE} lacks these code blocks of {ENGLISH}:\n" + "\n".join(absent)


def test_each_readme_links_the_other_at_its_top() -> None:
    assert "[中文说明](README.zh-CN.md)" in read(ENGLISH).splitlines()[:4]
    assert "[English](README.md)" in read(CHINESE).splitlines()[:4]


def test_a_name_left_out_of_either_readme_is_named() -> None:
    english, chinese = read(ENGLISH), read(CHINESE)
    assert missing(english, chinese.replace("--until", "--untl")) == [
        f"{CHINESE} lacks the option --until, which {ENGLISH} names",
        f"{ENGLISH} lacks the option --untl, which {CHINESE} names"]
    assert missing(english.replace("`daily_minutes`", "daily minutes"), chinese) == [
        f"{ENGLISH} lacks the config key daily_minutes, which {CHINESE} names"]
    assert missing(english, chinese.replace("planner fit", "planner")) == [
        f"{CHINESE} lacks the command fit, which {ENGLISH} names"]


def test_both_readmes_ship_in_the_source_package() -> None:
    manifest = read("MANIFEST.in").split()
    assert CHINESE in manifest  # README.md ships as the project's readme (pyproject.toml)
