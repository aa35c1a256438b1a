"""The screens at 80 columns, finished, seen in Chinese.

No name broken inside itself (a path breaks after a `/`, a file name never in the middle, a mark
such as `[新笔记]` whole), no line of punctuation alone, a number with its unit, Chinese commas
in Chinese lists, review IDs cut with `…`, `export --output` counting events, an OS error said
by its kind, Typer's range and default said plainly, an answer typed again after it was carried
sent once. Each is what a real `planner` shows at COLUMNS=80 with LANGUAGE=zh_CN.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
from pathlib import Path

from conftest import run_planner
from live_model import KEY, KEY_ENV, closed_port_url, write_config
from plan_files import NOTES, plan, series
from plan_files import write_plan as save
from screens import columns, run_id
from scripted_conversation import QUESTION, earlier, say
from stub_server import Reply, StubServer, text_reply, tool_call_reply

CHINESE = {**os.environ, "LANGUAGE": "zh_CN", "COLUMNS": "80", KEY_ENV: KEY}
# What a line may not be made of alone: punctuation, Chinese and Western.
PUNCTUATION = set("，。、；：？！）》」』】（《「『【“”‘’,.;:?!()[] ")
FILE_NAME = "切分策略与向量检索的关系以及常见的错误做法.md"


def chinese(*args: str, home: Path | None = None):
    prefix = ("--home", str(home)) if home is not None else ()
    return run_planner(*prefix, *args, env=CHINESE)


def panel_lines(shown: str) -> list[str]:
    """The text inside a panel's borders, line by line."""
    return [line.strip("│ ") for line in shown.splitlines() if line.startswith("│")]


def future(days: int) -> str:
    return (_dt.date.today() + _dt.timedelta(days=days)).isoformat()


def test_the_save_panel_breaks_a_path_after_a_slash_and_keeps_the_new_mark_whole(
        server: StubServer, home: Path) -> None:
    folder = home / "notes" / "第三章-检索增强生成" / "向量检索与切分"
    folder.mkdir(parents=True)
    (folder / FILE_NAME).write_text("---\nid: R1\ntitle: 切分策略与向量检索\n---\n正文\n",
                                    encoding="utf-8")
    (folder / "b.md").write_text("---\nid: R2\ntitle: 引用\n---\n正文\n", encoding="utf-8")
    server.add(Reply(body=tool_call_reply({"title": "复习", "note_ids": ["R1", "R2"],
                                           "date": future(2), "minutes": 40})),
               Reply(body=text_reply("好的")))
    write_config(home, server.url, notes_dir="notes", language="zh")
    result = chinese("-r", "复习")
    assert result.returncode == 0, result.stderr
    lines = panel_lines(result.stdout)
    assert all(columns(line) <= 80 for line in result.stdout.splitlines())
    # The file name whole on its own line, after a line that ends at a `/`.
    [at] = [number for number, line in enumerate(lines) if FILE_NAME in line]
    assert lines[at].startswith(FILE_NAME), lines
    assert lines[at - 1].endswith("/"), lines
    # Each note's mark whole, never 新 / 笔记.
    assert sum(line.count("[新笔记]") for line in lines) == 2, lines
    assert not any(line.endswith(("[新", "[新笔")) for line in lines), lines


def test_the_save_panel_breaks_the_target_path_after_a_slash(home: Path) -> None:
    long_home = home / "一个相当长的文件夹名字" / "another-long-folder-for-planner-home"
    long_home.mkdir(parents=True)
    result = chinese("--demo", home=long_home)
    assert result.returncode == 0, result.stderr
    lines = panel_lines(result.stdout)
    [start] = [number for number, line in enumerate(lines) if line.startswith("保存到")]
    target = lines[start:start + 4]
    file_name = [line for line in target if line.endswith(".json")]
    # The file name whole at the start of its line (its folder may share the line when the
    # temporary path's length puts the break before it).
    assert file_name and re.fullmatch(r"(demo-plans/)?[0-9T]+Z-[0-9a-f]{6}\.json",
                                      file_name[0]), target
    assert all(line.endswith("/") for line in target[:target.index(file_name[0])]), target


def test_done_help_has_no_line_of_punctuation_alone(home: Path) -> None:
    for command in ("done", "forecast", "export", "plans"):
        shown = chinese(command, "-h").stdout
        for line in shown.splitlines():
            if line.strip():
                assert not set(line) <= PUNCTUATION, f"{command}: {line!r}"
                assert line.strip()[0] not in "，。、；：？！）》」』】", f"{command}: {line!r}"
            assert columns(line) <= 80, line


def test_a_number_stays_with_its_unit_in_the_model_words(server: StubServer,
                                                         home: Path) -> None:
    # 36 wide characters fill 72 of the panel's 76 columns: `40` would fit, `分钟` would not.
    words = "一" * 36 + " 40 分钟，每次 20 分钟。"
    server.add(Reply(body=text_reply(words)))
    write_config(home, server.url, language="zh")
    result = chinese("-r", "复习")
    assert result.returncode == 0, result.stderr
    lines = panel_lines(result.stdout)
    assert any(line.startswith("40 分钟，") for line in lines), lines
    assert not any(line.endswith("40") for line in lines), lines


def test_plans_lists_notes_with_chinese_commas(home: Path) -> None:
    save(home, run_id(1), plan(1, note_ids=("N1", "N2", "N3")))
    shown = chinese("plans").stdout
    assert "N1、N2、N3" in shown, shown
    assert "N1, N2" not in shown
    english = run_planner("plans", env={**os.environ, "COLUMNS": "80", "LANGUAGE": "en"})
    assert "N1, N2, N3" in english.stdout
    # A run's proposal and its files, in `show`.
    assert chinese("--demo").returncode == 0
    shown = chinese("show", "last").stdout
    assert "笔记 N1、N2；" in shown and "01-request.json、01-response.json" in shown, shown
    assert "N1, N2" not in shown and "request.json, " not in shown


def test_review_ids_cut_for_the_screen_end_in_an_ellipsis(home: Path) -> None:
    long_id = "rag-pipeline-overview-and-pitfalls"
    note = NOTES["N1"]._replace(id=long_id)
    run = run_id(1)
    save(home, run, plan(0, note_ids=(long_id,)), notes=[note])
    assert chinese("done", run).returncode == 0
    [review_id] = [json.loads(line)["review_id"]
                   for line in (home / "reviews.jsonl").read_text().splitlines()]
    shown = chinese("reviews").stdout
    assert all(columns(line) <= 80 for line in shown.splitlines()), shown
    [row] = [line for line in shown.splitlines() if line.startswith(_dt.date.today().isoformat())]
    last = row.split()[-1]
    # Cut for the screen: a beginning of the ID and `…`, never silently shorter.
    assert last != review_id and last.endswith("…"), row
    assert review_id.startswith(last[:-1]), row


def test_export_output_counts_calendar_events(home: Path) -> None:
    save(home, run_id(1), series(1, 3, 5))
    result = chinese("export", "--ics", "--output", "plans.ics")
    assert result.returncode == 0, result.stderr
    assert "已把 plans/ 中的 3 个日历事件导出到 plans.ics。" in result.stderr, result.stderr
    assert (home / "plans.ics").read_text().count("BEGIN:VEVENT") == 3


def test_a_refused_connection_is_said_in_chinese_by_its_kind(home: Path) -> None:
    write_config(home, closed_port_url(), language="zh")
    result = chinese("-r", "复习")
    assert result.returncode == 1
    assert "（连接被拒绝）" in result.stderr, result.stderr
    assert "Errno" not in result.stderr and "Connection refused" not in result.stderr
    [folder] = (home / "tool-records").iterdir()
    recorded = json.loads((folder / "summary.json").read_text())
    assert "Connection refused" in json.dumps(recorded)  # the record stays English


def test_typer_range_and_default_are_said_plainly(home: Path) -> None:
    shown = " ".join(line.strip() for line in chinese("forecast", "-h").stdout.splitlines())
    assert "--days <整数>" in shown, shown
    assert "[默认：30；1-365]" in shown.replace("； ", "；"), shown
    assert "<=x<=" not in shown and "int range" not in shown and "整数范围" not in shown
    limit = " ".join(line.strip() for line in chinese("notes", "-h").stdout.splitlines())
    assert "[至少 0]" in limit and "x>=" not in limit, limit
    english = run_planner("forecast", "-h", env={**os.environ, "COLUMNS": "80"}).stdout
    assert "1<=x<=365" in english and "<int range>" in english


def test_an_answer_typed_again_after_it_was_carried_is_sent_once(home: Path) -> None:
    # The calls ran out after the person answered: the next run carries the answer...
    run = earlier(home, [say(QUESTION)], ["周五下午\n", "\n"], max_calls=1)
    result = chinese("-n", "-C", run, "-r", " 周五下午 ")
    assert result.returncode == 0, result.stderr
    contents = [message.get("content") for message in json.loads(result.stdout)["messages"]]
    # ... and the person typing it again as -r TEXT sends it once, as the last message.
    assert sum("周五下午" in str(content) for content in contents) == 1, contents
    assert contents[-1].strip() == "周五下午"
    other = chinese("-n", "-C", run, "-r", "还有周六")
    contents = [message.get("content") for message in json.loads(other.stdout)["messages"]]
    assert contents[-2:] == ["周五下午", "还有周六"]


def test_os_errors_are_named_by_their_errno_not_their_words() -> None:
    import errno
    import socket
    import ssl

    from planner.base import i18n
    from planner.base.oserrors import os_reason, reason_within

    # Another C library or locale words it otherwise: the kind is the errno.
    assert os_reason(ConnectionRefusedError(errno.ECONNREFUSED, "Verbindung verweigert")) == \
        "Connection refused"
    wrapped = Exception("[Errno 104] Connection reset by peer")
    assert reason_within(wrapped) == "Connection reset by peer"
    lookup = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    assert reason_within(Exception("the server closed the connection")) is None
    outer = ConnectionError("connect failed")
    outer.__cause__ = lookup
    assert reason_within(outer) == "Name or service not known"
    # TLS's numbers are not errno's: 1 is not "Operation not permitted".
    tls = ssl.SSLCertVerificationError(1, "[SSL: CERTIFICATE_VERIFY_FAILED] verify failed")
    assert reason_within(tls) is None and "permitted" not in os_reason(tls)
    try:
        i18n.install("zh")
        assert i18n.shown(os_reason(ConnectionResetError(errno.ECONNRESET, "x"))) != \
            "Connection reset by peer"
    finally:
        i18n.install("en")


def test_a_schedule_mark_is_never_split_at_any_width() -> None:
    from planner.ui.wrapping import wrap_plain

    for mark in ("[due in 12 days (2026-12-16)]", "[12 天后到期（2026-12-16）]", "[新笔记]"):
        for width in range(40, 81):
            line = "N1  RAG 的基本流程  (notes/第三章/检索.md) " + "x" * (width % 17) + "  " + mark
            assert any(mark in shown for shown in wrap_plain(line, width, 0).split("\n")), \
                (mark, width)


def test_a_note_and_its_recall_stay_on_one_line(monkeypatch) -> None:
    """`N3 69%` is never parted at the end of a line (goals, and the SAVE screen alike)."""
    import io

    from rich.console import Console

    from planner.memory.readiness import GoalReadiness, GoalReport, GoalSessions
    from planner.ui import goals_view

    for pad in range(12):  # a first ID of each length moves every break by one column
        screen = io.StringIO()
        monkeypatch.setattr(goals_view, "out", Console(file=screen, width=80, no_color=True))
        ids = ["X" * pad + "A1", *(f"N{number}" for number in range(2, 11))]
        goals_view.goals_report([GoalReport(
            "Exam", _dt.date(2027, 1, 8), False, 15, GoalSessions(3, 0, 90, 0, 0),
            GoalReadiness(3, 0), tuple((note, 0.69) for note in ids))], [0.9],
            _dt.date(2026, 12, 4))
        shown = screen.getvalue()
        assert all(f"{note}\u00a069%" in shown for note in ids), shown
        for line in shown.splitlines():
            assert not re.search(r"(A1|N[0-9]+)$", line.rstrip()), line  # an ID left alone
