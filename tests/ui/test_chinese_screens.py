"""README "中文界面": 中文, whole, and small truths, part two.

The prompts take the words they show (rating words and 是 at [y/N] in Chinese, the half-width
SAVE), `done` dates that make sense, `--continue` carrying every typed word exactly once, lines
that fit 80 columns (wide characters counted as two), a quiet closed pipe, install advice for this
Python, Click's "Did you mean" in Chinese. Real `planner` processes, in pseudo-terminals at 80
columns where a prompt is involved, a real closed pipe, request bodies read back.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from conftest import PLANNER, env_with, run_planner, succeeded, today
from live_model import GOOD_PLAN, REQUEST, explanation, proposal, write_config
from plan_files import review_plan
from plan_files import write_plan as save
from radicale_server import PASSWORD, USER
from review_log import log_lines
from screens import ANSI, CHINESE, ENGLISH, KEYED, columns, run_id, screen_lines
from scripted_conversation import QUESTION, earlier, say
from stub_server import Reply, StubServer, tool_call, tool_call_reply
from terminal import finish, spawn

from planner.base import answers
from planner.conversation.continuing import earlier_conversation
from planner.model.client import ModelCallError
from planner.plans.plan import ReviewPlan
from planner.ui.wrapping import spans, wrap_plain


def too_wide(text: str) -> list[str]:
    return [line for line in screen_lines(text) if columns(line) > 80]


def plan(offset: int) -> ReviewPlan:
    return review_plan("RAG基础复习", ("N1", "N2"),
                      (today() + _dt.timedelta(days=offset)).isoformat(), 20)


# --- 1. the words a prompt shows are the words it takes ----------------------------------------


def test_rating_words_in_both_languages() -> None:
    for rating, chinese in answers.CHINESE_RATINGS.items():
        assert answers.rating_from(chinese) == rating
        assert answers.rating_from(f" {rating.upper()} ") == rating
    assert answers.rating_from("好") == "good"
    assert answers.rating_from("棒") is None
    assert [answers.is_yes(word) for word in ("是", "y", "YES", " 是 ", "否", "n", "", None)] == [
        True, True, True, True, False, False, False, False]
    assert answers.is_full_width("ＳＡＶＥ") and not answers.is_full_width("SAVE")


@pytest.mark.terminal
@pytest.mark.slow
def test_the_chinese_rating_prompt_shows_and_takes_chinese_words(home: Path) -> None:
    run = run_id(1)
    save(home, run, plan(0))
    child, seen = spawn("done", run, home=home, **CHINESE, **KEYED)
    child.expect_exact("忘了 / 吃力 / 记得 / 轻松")
    child.sendline("棒")  # not a rating: named, asked again, in Chinese
    child.expect_exact("“棒”不是评分")
    child.expect_exact("：")
    child.sendline("记得")
    assert finish(child) == 0
    shown = "".join(seen)
    assert [line["rating"] for line in log_lines(home)] == ["good", "good"]  # English recorded
    recorded = "".join(ANSI.sub("", shown).split("已记录", 1)[1].split())
    assert "评分“记得”" in recorded and "good" not in shown
    assert too_wide(shown) == []


@pytest.mark.terminal
@pytest.mark.slow
def test_shi_at_the_budget_question_allows_more_calls(server: StubServer, home: Path) -> None:
    server.add(say_reply(QUESTION), say_reply(QUESTION), proposal(), explanation())
    write_config(home, server.url, max_calls=2, max_repairs=0, language="zh")
    child, seen = spawn("--request", REQUEST, home=home, **CHINESE, **KEYED)
    for answer in ("周五", "下午"):
        child.expect_exact("（直接回车结束）")
        child.sendline(answer)
    child.expect_exact("[是/否，y/N]")
    child.sendline("是")
    child.expect(r"SAVE[^\n]*：")
    child.sendline("ＳＡＶＥ")  # capitals, but full-width: named as such, asked once more
    child.expect_exact("半角大写 SAVE")
    child.sendline("SAVE")
    # The explanation needs one more call: 否 declines it (the plan is saved already).
    if child.expect([pexpect.EOF, r"\[是/否，y/N\]"]) == 1:
        child.sendline("否")
        child.expect(pexpect.EOF)
    child.close()
    shown = "".join(seen)
    assert len(server.chat_requests()) >= 3  # 是 allowed the third
    assert too_wide(shown) == []
    assert len(list((home / "plans").iterdir())) == 1


def say_reply(text: str):
    from stub_server import Reply

    return Reply(body=say(text))


# --- 2. done dates that make sense --------------------------------------------------------------


@pytest.mark.slow  # planner in a subprocess
def test_done_before_the_plan_was_saved_is_refused(home: Path) -> None:
    run = run_id(0)
    save(home, run, plan(0))
    result = run_planner("done", run, "--date", "2020-01-01")
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "a review cannot come before its plan" in lines[0], lines
    assert not (home / "reviews.jsonl").exists()
    chinese = run_planner("done", run, "--date", "2020-01-01", env={**os.environ, **CHINESE})
    assert chinese.returncode == 2 and "复习不能早于它的计划" in chinese.stderr


@pytest.mark.slow  # planner in a subprocess
def test_done_on_a_later_plan_says_how_many_days_early(home: Path) -> None:
    run = run_id(1)
    save(home, run, plan(3))
    result = run_planner("done", run)
    assert result.returncode == 0, result.stderr
    file = f"plans/{run}.json"
    day = (today() + _dt.timedelta(days=3)).isoformat()
    assert result.stderr.splitlines() == [f"{file} is dated {day}: recorded 3 days early."]
    assert len(log_lines(home)) == 2
    other = run_id(2)
    save(home, other, plan(1))
    chinese = run_planner("done", other, env={**os.environ, **CHINESE})
    assert "已提前 1 天记录" in chinese.stderr
    on_time = run_id(3)
    save(home, on_time, plan(0))
    assert run_planner("done", on_time).stderr == ""


# --- 3. --continue keeps every word once --------------------------------------------------------


def dry_run_body(home: Path) -> dict:
    result = run_planner("--home", str(home), "-n", "-C", "-r", "Go on")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.slow  # planner in a subprocess
def test_an_answer_no_request_carried_is_carried_once(home: Path) -> None:
    # The calls ran out: the answer was typed, then the person allowed no more.
    run = earlier(home, [say(QUESTION)], ["周五 please\n", "\n"], max_calls=1)
    messages = earlier_conversation(home, run)
    assert messages[-1] == {"role": "user", "content": "周五 please"}
    body = dry_run_body(home)
    contents = [message.get("content") for message in body["messages"]]
    assert contents.count("周五 please") == 1
    assert contents[-2:] == ["周五 please", "Go on"]


@pytest.mark.slow  # planner in a subprocess
def test_an_answer_a_failed_call_carried_is_not_repeated(home: Path) -> None:
    failure = ModelCallError("429: rate limit reached; wait a moment, then run again",
                             {"error": {"status": 429}})
    earlier(home, [say(QUESTION), failure], ["Friday please\n"])
    body = dry_run_body(home)
    contents = [message.get("content") for message in body["messages"]]
    assert contents.count("Friday please") == 1
    assert contents[-1] == "Go on"


def test_an_answer_sent_when_ctrl_c_came_is_carried_once(home: Path) -> None:
    # Ctrl+C while the model was thinking: the request with the answer was recorded first.
    run = earlier(home, [say(QUESTION), KeyboardInterrupt()], ["周六\n"])
    contents = [message.get("content") for message in earlier_conversation(home, run)]
    assert contents.count("周六") == 1 and contents[-1] == "周六"


@pytest.mark.terminal
@pytest.mark.slow
def test_after_a_429_the_line_names_continue_and_the_answer_is_carried_once(
        server: StubServer, home: Path) -> None:
    from stub_server import Reply, error_body

    server.add(say_reply(QUESTION),
               Reply(status=429, body=error_body("Rate limit reached", "rate_limit_error")))
    write_config(home, server.url, max_calls=6, max_repairs=0)
    for language in (CHINESE,):
        child, seen = spawn("--request", REQUEST, home=home, **language, **KEYED)
        child.expect_exact("（直接回车结束）")
        child.sendline("周五下午")
        assert finish(child) == 1
        shown = "".join(seen)
        assert "planner --continue -r TEXT" in shown
        assert too_wide(shown) == []
    # The failed request carried the answer; the continued one carries it once, not twice.
    [failed] = [request.body for request in server.chat_requests()][1:]
    assert [m["content"] for m in failed["messages"]].count("周五下午") == 1
    body = dry_run_body(home)
    assert [m.get("content") for m in body["messages"]].count("周五下午") == 1


# --- 4. every line fits ----------------------------------------------------------------------


def test_wrapping_between_words_and_characters_never_before_punctuation() -> None:
    english = ("Error: the run reached its limit of 6 model calls (max_calls) before the model "
               "finished; nothing more was sent; nothing was saved")
    lines = wrap_plain(english, 80).split("\n")
    assert all(columns(line) <= 80 for line in lines)
    assert [word for line in lines for word in line.split()] == english.split()
    assert lines[1].startswith("  ") and not lines[1].startswith("   ")
    chinese = "错误：" + "复习计划，" * 30 + "结束。"
    for width in (20, 41, 80):
        lines = wrap_plain(chinese, width).split("\n")
        assert all(columns(line) <= width for line in lines), lines
        assert not any(line.strip()[:1] in "，。）：" for line in lines)
        assert "".join(line.strip() for line in lines) == chinese
    # A short quoted word stays whole: 评分“吃力”, never 评分“吃 / 力”.
    for pad in range(30, 40):
        rated = "评" * pad + "评分“吃力”，复习于今天。"
        assert any("“吃力”，" in line for line in wrap_plain(rated, 80).split("\n")), pad
    path = "/home/someone/" + "very-long-folder/" * 8 + "plan.json"
    pieces = spans(path, 40)
    assert all(columns(path[a:b]) <= 40 for a, b in pieces)
    assert path[pieces[0][0]:pieces[0][1]].endswith("/")


@pytest.mark.terminal
@pytest.mark.slow
def test_a_long_error_in_a_terminal_wraps_at_80_columns(home: Path) -> None:
    run = run_id(0)
    save(home, run, plan(0))
    for language in (CHINESE, ENGLISH):
        child, seen = spawn("done", run, "--date", "2020-01-01", home=home, **language, **KEYED)
        assert finish(child) == 2
        shown = "".join(seen)
        assert too_wide(shown) == [], shown
        lines = [line for line in screen_lines(shown) if line.strip()]
        assert len(lines) >= 2 and lines[1].startswith("  ")


@pytest.mark.terminal
@pytest.mark.slow
def test_the_model_words_rejections_and_lookups_wrap_in_chinese(server: StubServer,
                                                                 home: Path) -> None:
    """Rich alone would start a line with `，` and break a lookup's words; planner's wrapper
    keeps punctuation with the character before it, in the panel and in the run's lines."""
    slots = {"from": today().isoformat(), "days": 14, "minutes": 120}
    words = "复习" * 19 + "，" + "然后休息一下再继续复习下一组笔记。" * 3 + "（全部保存）：完成。"
    server.add(Reply(body=tool_call_reply(calls=[tool_call(slots, name="free_slots")])),
               proposal({**GOOD_PLAN, "minutes": "20"}), proposal(), explanation(words))
    write_config(home, server.url, max_calls=6, max_repairs=1, language="zh")
    child, seen = spawn("--request", REQUEST, home=home, **CHINESE, **KEYED)
    child.expect(r"SAVE[^\n]*：")
    child.sendline("SAVE")
    assert finish(child) == 0
    shown = "".join(seen)
    assert too_wide(shown) == [], too_wide(shown)
    # Inside the panel the border and its padding come first.
    starts = [line.strip("│ ")[:1] for line in screen_lines(shown) if line.strip("│ ")]
    assert not [start for start in starts if start in "，。）：、"], shown
    panel = "".join(line.strip("│ ") for line in screen_lines(shown)
                    if line.startswith("│"))
    assert words in panel
    lines = [line for line in screen_lines(shown) if line.strip()]
    rejected = next(number for number, line in enumerate(lines) if "被拒绝" in line)
    assert columns(lines[rejected]) > 60 and lines[rejected + 1].startswith("  ")
    assert any("为模型查询：free_slots" in line for line in lines)
    assert len(list((home / "plans").iterdir())) == 1


# --- 5. a quiet closed pipe, install advice, one line per fact ------------------------------------


@pytest.mark.slow  # planner in a subprocess, through a shell
def test_a_closed_pipe_is_quiet(home: Path) -> None:
    for number in range(60):
        save(home, f"2025010{1 + number % 9}T1000000000{number:02d}Z-aaaaaa", plan(number % 9))
    result = subprocess.run(
        f"{shlex.quote(PLANNER)} plans --all | head -1", shell=True, cwd=home,
        capture_output=True, text=True, timeout=60, env={**os.environ, "COLUMNS": "80"})
    assert result.stdout.count("\n") == 1
    assert result.stderr == ""


def test_install_advice_names_this_python() -> None:
    from planner.base.install import install_command

    assert install_command("caldav") == (f"{shlex.quote(sys.executable)} -m pip install "
                                         "'planner[caldav]'")


@pytest.mark.slow  # planner in a subprocess
def test_click_did_you_mean_is_chinese(home: Path) -> None:
    result = run_planner("run", env={**os.environ, **CHINESE})
    assert result.returncode == 2
    assert "错误：没有这个命令 'run'。你是不是想输入 'runs'？" in result.stderr.splitlines()
    assert "Did you mean" not in result.stderr
    english = run_planner("run")
    assert "Error: No such command 'run'. Did you mean 'runs'?" in english.stderr


# --- 8. a missing CalDAV calendar: named, and made with --create --------------------------------


@pytest.mark.slow  # a real Radicale server, planner in subprocesses
def test_sync_create_makes_the_missing_calendar_and_fills_it(home: Path,
                                                             radicale: str) -> None:  # noqa: F811
    import uuid

    import caldav

    name = f"planner 复习 {uuid.uuid4().hex[:6]}"
    save(home, run_id(1), plan(2))
    env = {**os.environ, "PLANNER_CALDAV_PASSWORD": PASSWORD}
    args = ("sync", "--caldav", radicale, "--user", USER, "--calendar", name)
    missing = run_planner(*args, env=env)
    assert missing.returncode == 1
    [line] = missing.stderr.splitlines()
    assert line.startswith(f"Error: no calendar named '{name}' at {radicale}")
    assert line.endswith("add --create to make it") and "login" not in line
    made = run_planner(*args, "--create", env=env)
    assert made.returncode == 0, made.stderr
    assert "1 created" in made.stdout
    client = caldav.DAVClient(url=radicale, username=USER, password=PASSWORD,
                              enable_rfc6764=False)
    [calendar] = [found for found in client.principal().get_calendars()
                  if found.get_display_name() == name]
    assert len(calendar.search(event=True)) == 1
    again = run_planner(*args, "--create", env=env)  # there now: found, nothing made twice
    assert again.returncode == 0 and "1 unchanged" in again.stdout
    assert [found.get_display_name() for found in client.principal().get_calendars()].count(
        name) == 1
    # A change of language updates the event once (a new SEQUENCE), not at every sync.
    for _ in range(2):
        chinese = run_planner(*args, env={**env, **CHINESE})
        assert chinese.returncode == 0, chinese.stderr
    [event] = calendar.search(event=True)
    data = event.data.replace("\r\n ", "")
    assert field(data, "SEQUENCE") == ["1"] and "要复习的笔记：" in data
    # A URL that names a calendar the server lacks: named as missing, then made at that URL.
    at = f"{radicale}{USER}/planner-{uuid.uuid4().hex[:6]}/"
    gone = run_planner("sync", "--caldav", at, "--user", USER, env=env)
    assert gone.returncode == 1
    [line] = gone.stderr.splitlines()
    assert "has no calendar there (HTTP 404); add --create to make it there" in line
    made_at = run_planner("sync", "--caldav", at, "--user", USER, "--create", env=env)
    assert made_at.returncode == 0, made_at.stderr
    assert "1 created" in made_at.stdout
    [there] = [found for found in client.principal().get_calendars()
               if str(found.url) == at]
    assert there.get_display_name() == "planner reviews"
    assert len(there.search(event=True)) == 1
    again_at = run_planner("sync", "--caldav", at, "--user", USER, "--create", env=env)
    assert again_at.returncode == 0 and "1 unchanged" in again_at.stdout


# --- 7. the calendar in the person's language; a plain export moves with the log ----------------


def field(data: str, name: str) -> list[str]:
    return [line.split(":", 1)[1] for line in data.replace("\r\n ", "").splitlines()
            if line.startswith(name + ":")]


@pytest.mark.slow  # planner in subprocesses
def test_a_change_of_language_updates_each_event_once(home: Path) -> None:
    save(home, run_id(1), plan(2))
    save(home, run_id(2), plan(3))
    feed = home / "feed.ics"
    succeeded(run_planner("export", "--ics", "--feed", str(feed)))
    english = feed.read_text(encoding="utf-8")
    assert field(english, "X-WR-CALNAME") == ["planner reviews"]
    assert field(english, "SEQUENCE") == ["0", "0"]
    assert "Notes to review:" in english
    succeeded(run_planner("export", "--ics", "--feed", str(feed), env=env_with(**CHINESE)))
    chinese = feed.read_text(encoding="utf-8")
    assert field(chinese, "X-WR-CALNAME") == ["planner 复习"]
    assert field(chinese, "SEQUENCE") == ["1", "1"]
    assert "要复习的笔记：" in chinese and "由 planner 保存在 plans/" in chinese
    assert "Notes to review" not in chinese and "Saved by" not in chinese
    succeeded(run_planner("export", "--ics", "--feed", str(feed), env=env_with(**CHINESE)))
    assert field(feed.read_text(encoding="utf-8"), "SEQUENCE") == ["1", "1"]  # once only
    vdir = home / "vdir"
    succeeded(run_planner("export", "--vdir", str(vdir)))
    result = succeeded(run_planner("export", "--vdir", str(vdir), env=env_with(**CHINESE)))
    assert "已更新 2 个" in result.stdout
    again = succeeded(run_planner("export", "--vdir", str(vdir), env=env_with(**CHINESE)))
    assert "2 个没有变化" in again.stdout
    for path in vdir.glob("*.ics"):
        assert field(path.read_text(encoding="utf-8"), "SEQUENCE") == ["1"]
    (home / "config.json").write_text(json.dumps({"calendar_name": "My reviews"}))
    named = succeeded(run_planner("export", "--ics", env=env_with(**CHINESE))).stdout
    assert field(named, "X-WR-CALNAME") == ["My reviews"]  # a name the person set stays


@pytest.mark.slow  # planner in subprocesses
def test_a_plain_export_moves_sequence_and_last_modified_with_the_log(home: Path) -> None:
    run = run_id(1)
    save(home, run, plan(0))

    def revision() -> tuple[str, str, str]:
        data = succeeded(run_planner("export", "--ics", "--all")).stdout
        [sequence], [modified], [status] = (field(data, "SEQUENCE"),
                                            field(data, "LAST-MODIFIED"), field(data, "STATUS"))
        return sequence, modified, status

    first = revision()
    assert first[0] == "0"
    assert revision() == first  # nothing changed: the same revision
    succeeded(run_planner("done", run))
    done = revision()
    assert done[0] == "1" and done[1] > first[1]
    review = log_lines(home)[0]["review_id"]  # one of the plan's two notes
    succeeded(run_planner("done", "--undo", review))
    assert revision()[0] == "2"
    succeeded(run_planner("drop", run))
    assert revision()[0::2] == ("3", "CANCELLED")
    succeeded(run_planner("drop", "--undo", run))
    assert revision()[0::2] == ("4", "CONFIRMED")
    output = home / "out.ics"
    succeeded(run_planner("export", "--ics", "--all", "--output", str(output)))
    assert field(output.read_text(encoding="utf-8"), "SEQUENCE") == ["4"]


# --- 6. outside texts explained by their kind -----------------------------------------------------


@pytest.mark.slow  # planner in subprocesses
def test_json_yaml_and_os_errors_are_explained_in_chinese(home: Path) -> None:
    (home / "config.json").write_text('{"language": "zh",\n "model": }\n', encoding="utf-8")
    broken = run_planner("runs", env={**os.environ, **CHINESE})
    assert broken.returncode == 2
    assert "不是有效的 JSON（这里缺少一个值，位于第 2 行第 11 列）" in broken.stderr
    english = run_planner("runs")
    assert "is not valid JSON (Expecting value: line 2, column 11)" in english.stderr
    (home / "config.json").write_text('{"notes_dir": "notes"}', encoding="utf-8")
    (home / "notes").mkdir()
    (home / "notes" / "n.md").write_text("---\ntitle: a: b\n---\nbody\n", encoding="utf-8")
    notes = run_planner("notes", env={**os.environ, **CHINESE})
    assert "不是有效的 YAML（第 2 行：这里不能出现“键: 值”）" in notes.stderr, notes.stderr


def test_system_reasons_are_translated_as_values() -> None:
    import errno

    from planner.base import i18n
    from planner.base.oserrors import os_reason
    from planner.plans.plan import InvalidArguments

    refused = os_reason(ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused"))
    try:
        i18n.install("zh")
        line = i18n.shown(i18n.t("{problem}; nothing was changed there", problem=i18n.t(
            "cannot reach the CalDAV server at {url} ({why})", url="http://127.0.0.1:9/",
            why=refused)))
        assert "连接被拒绝" in line and "Connection refused" not in line, line
        assert "磁盘空间已满" in i18n.shown(os_reason(OSError(errno.ENOSPC, "x")))
        # No space after full-width punctuation a value ends with, before a Chinese word.
        target = i18n.t("{file} (session {session})", file="plans/a.json", session=2)
        series = i18n._("Recording the review of {target}: {title} ({notes}).").format(
            target=i18n.shown(target), title="RAG 复习", notes="N1")
        assert i18n.shown(series) == "正在记录 plans/a.json（第 2 次）的复习：RAG 复习（N1）。", \
            series
        kind = i18n.shown(str(InvalidArguments("minutes", i18n.t(
            "must be an integer, got {kind}", kind=i18n.t("a string {value}", value='"30"')))))
        assert kind == 'minutes：必须是整数，收到的是字符串 "30"', kind
    finally:
        i18n.install("en")


def test_system_words_planner_does_not_know_are_quoted_data_under_a_line_of_its_own() -> None:
    import errno

    from planner.base import i18n
    from planner.base.oserrors import os_reason, yaml_problem

    assert os_reason(PermissionError(errno.EACCES, "Permission denied")) == "Permission denied"
    busy = os_reason(OSError(errno.ETXTBSY, "Text file busy"))
    assert busy == "the system said “Text file busy” (ETXTBSY)"
    assert os_reason(OSError("odd")) == "the system said “odd”"
    assert yaml_problem("found undefined alias") == "found undefined alias"
    assert yaml_problem("some new complaint") == "“some new complaint”"
    try:
        i18n.install("zh")
        line = i18n.shown(i18n.t("could not create {path} ({reason}); nothing was written",
                                 path="/tmp/x", reason=busy))
        assert "操作系统说：“Text file busy”（ETXTBSY）" in line, line
        assert "could not" not in line and "the system" not in line
        known = i18n.shown(i18n.t("could not create {path} ({reason}); nothing was written",
                                  path="/tmp/x", reason=os_reason(PermissionError(
                                      errno.EACCES, "Permission denied"))))
        assert "权限" in known and "Permission" not in known, known
    finally:
        i18n.install("en")


# --- status words never cut -------------------------------------------------------------------


@pytest.mark.slow  # planner in subprocesses
def test_reviews_keep_the_undone_word_whole_at_80_columns(home: Path) -> None:
    run = run_id(1)
    save(home, run, plan(0))
    succeeded(run_planner("done", run))
    succeeded(run_planner("done", "--undo", log_lines(home)[0]["review_id"]))
    for language, word in ((CHINESE, "已撤销"), (ENGLISH, "undone")):
        shown = run_planner("reviews", env={**os.environ, **language, "COLUMNS": "80"}).stdout
        assert too_wide(shown) == []
        assert any(line.strip() == word for line in shown.splitlines()), shown


# --- one line for one fact, and small truths -------------------------------------------------


@pytest.mark.slow  # planner in subprocesses
def test_plans_with_only_demo_plans_is_one_line(home: Path) -> None:
    save(home, run_id(1), plan(1), folder="demo-plans", simulated=True)
    (home / "plans").mkdir()
    for language in (CHINESE, ENGLISH):
        listed = run_planner("plans", env={**os.environ, **language})
        assert listed.returncode == 0
        lines = (listed.stdout + listed.stderr).splitlines()
        assert len(lines) == 1 and "demo-plans/" in lines[0], lines


@pytest.mark.slow  # planner in subprocesses
def test_help_metavars_and_labels_are_chinese(home: Path) -> None:
    shown = run_planner("notes", "--help", env={**os.environ, **CHINESE}).stdout
    assert "<整数>" in shown and "<路径>" in shown and "[选项]" in shown
    assert "<int range>" not in shown and "<path>" not in shown and "[OPTIONS]" not in shown
    assert "选项：" in shown and "选项:" not in shown
    english = run_planner("notes", "--help").stdout
    assert "<int range>" in english and "Options:" in english
    done = run_planner("done", "--help", env={**os.environ, **CHINESE}).stdout
    assert "--note <文本>" in done and "<str>" not in done


@pytest.mark.slow  # planner in subprocesses
def test_show_prints_local_minutes(home: Path) -> None:
    result = run_planner("--demo", env={**os.environ, "TZ": "Asia/Shanghai"})
    assert result.returncode == 0, result.stderr
    shown = run_planner("show", "last", env={**os.environ, "TZ": "Asia/Shanghai"}).stdout
    [folder] = (home / "tool-records").iterdir()
    recorded = json.loads((folder / "summary.json").read_text())["created_at"]
    local = _dt.datetime.fromisoformat(recorded).astimezone(
        _dt.timezone(_dt.timedelta(hours=8)))
    assert local.strftime("%Y-%m-%d %H:%M") in shown
    assert recorded not in shown and recorded[:19] not in shown
