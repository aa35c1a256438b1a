"""The review log: exact lines on disk, skipped lines, refused files, failed and shared appends."""

from __future__ import annotations

import datetime as _dt
import errno
import os
import shutil
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from planner.memory import log as reviews
from planner.memory.log import Drop, DropUndo, Review, ReviewLogError, Undo
from planner.plans import files as plans

UTC = _dt.UTC
AT = _dt.datetime(2026, 5, 1, 9, 30, 15, tzinfo=UTC)
MIB = 1024 * 1024


def log_of(home: Path) -> Path:
    return home / "reviews.jsonl"


def review_line(review_id: str, note_id: str = "n1", rating: str = "good",
                at: str = "2026-05-01T09:30:15Z") -> str:
    return (f'{{"version":1,"kind":"review","review_id":"{review_id}","note_id":"{note_id}",'
            f'"run_id":null,"reviewed_at":"{at}","rating":"{rating}","minutes":null}}')


def review(review_id: str, note_id: str = "n1", rating: str = "good") -> Review:
    return Review(review_id, note_id, None, AT, rating, None)


def run_python(code: str, *args: str, privileged: bool = True) -> subprocess.CompletedProcess:
    """Run `code` in a fresh interpreter; unprivileged: as root without any capability."""
    command = [sys.executable, "-c", code, *args]
    if not privileged and os.geteuid() == 0:
        # Root without CAP_DAC_OVERRIDE obeys file modes like anyone else.
        command = ["setpriv", "--inh-caps=-all", "--bounding-set=-all", *command]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


# --- round trips ------------------------------------------------------------------------------


def test_every_kind_of_event_is_one_exact_line_and_reads_back(home: Path) -> None:
    recorded = reviews.record_reviews(home, ["rag/basics", "笔记/一"], "hard", minutes=45,
                                      run_id="20260501T093000000000Z-abcdef#2",
                                      reviewed_at=AT.replace(microsecond=999))
    undo = reviews.record_undo(home, recorded[0].review_id, at=AT + _dt.timedelta(minutes=1))
    drop = reviews.record_drop(home, "20260430T080000000000Z-123456", at=AT)
    back = reviews.record_drop_undo(home, "20260430T080000000000Z-123456", at=AT)
    first, second = (item.review_id for item in recorded)
    assert recorded == [
        Review(first, "rag/basics", "20260501T093000000000Z-abcdef#2", AT, "hard", 45),
        Review(second, "笔记/一", "20260501T093000000000Z-abcdef#2", AT, "hard", 45)]
    assert log_of(home).read_bytes().decode("utf-8").splitlines() == [
        f'{{"version":1,"kind":"review","review_id":"{first}","note_id":"rag/basics",'
        '"run_id":"20260501T093000000000Z-abcdef#2","reviewed_at":"2026-05-01T09:30:15Z",'
        '"rating":"hard","minutes":45}',
        f'{{"version":1,"kind":"review","review_id":"{second}","note_id":"笔记/一",'
        '"run_id":"20260501T093000000000Z-abcdef#2","reviewed_at":"2026-05-01T09:30:15Z",'
        '"rating":"hard","minutes":45}',
        f'{{"version":1,"kind":"undo","review_id":"{first}","undone_at":"2026-05-01T09:31:15Z"}}',
        '{"version":1,"kind":"drop","run_id":"20260430T080000000000Z-123456",'
        '"dropped_at":"2026-05-01T09:30:15Z"}',
        '{"version":1,"kind":"drop-undo","run_id":"20260430T080000000000Z-123456",'
        '"undone_at":"2026-05-01T09:30:15Z"}']
    assert log_of(home).read_bytes().endswith(b"}\n")
    assert stat.S_IMODE(log_of(home).stat().st_mode) == 0o600
    assert reviews.read_log(home) == ([*recorded, undo, drop, back], [])
    assert undo == Undo(first, AT + _dt.timedelta(minutes=1))
    assert drop == Drop("20260430T080000000000Z-123456", AT)
    assert back == DropUndo("20260430T080000000000Z-123456", AT)


def test_times_are_kept_in_utc_to_the_second(home: Path) -> None:
    shanghai = _dt.timezone(_dt.timedelta(hours=8))
    [made] = reviews.record_reviews(home, ["n1"], "easy",
                                    reviewed_at=_dt.datetime(2026, 5, 1, 17, 30, 15, 500, shanghai))
    assert made.reviewed_at == AT and made.reviewed_at.tzinfo is UTC
    assert '"reviewed_at":"2026-05-01T09:30:15Z"' in log_of(home).read_text()
    [read] = reviews.read_log(home).events
    assert read == made and read.reviewed_at.tzinfo is UTC


def test_a_time_with_no_zone_or_an_invalid_event_is_never_written(home: Path) -> None:
    with pytest.raises(ValueError, match="time zone"):
        reviews.record_reviews(home, ["n1"], "good", reviewed_at=_dt.datetime(2026, 5, 1))
    bad = [(["n1"], "great", None, "rating is \"great\""),
           (["n1"], "good", 0, "minutes is 0"),
           (["n1"], "good", 121, "minutes is 121"),
           ([""], "good", None, 'note_id is ""')]
    for note_ids, rating, minutes, reason in bad:
        with pytest.raises(ValueError, match=reason):
            reviews.record_reviews(home, note_ids, rating, minutes=minutes)
    # A bad note in a plan stops the whole call: its good notes are not written either.
    with pytest.raises(ValueError, match="note_id"):
        reviews.record_reviews(home, ["n1", ""], "good")
    assert not log_of(home).exists()


def test_review_ids_are_unique_sort_in_creation_order_and_have_the_run_id_form() -> None:
    made = [reviews.new_review_id() for _ in range(2000)]
    assert len(set(made)) == 2000
    assert sorted(made) == made
    assert all(plans.is_run_id(item) and len(item) == 29 for item in made)
    today = _dt.datetime.now(UTC).strftime("%Y%m%d")
    assert made[0][:8] in {today, (_dt.datetime.now(UTC) - _dt.timedelta(1)).strftime("%Y%m%d")}


def test_no_log_is_an_empty_log(home: Path) -> None:
    assert reviews.read_log(home) == ([], [])


# --- what the log says ------------------------------------------------------------------------


def test_undone_reviews_stop_counting_and_drops_follow_the_later_line() -> None:
    r1, r2, r3 = review("r1", "a"), review("r2", "b"), review("r3", "a", "again")
    events: list[reviews.Event] = [
        r1, Drop("p1", AT), r2, Drop("p2", AT), Undo("r2", AT), DropUndo("p1", AT), r3,
        Drop("p3", AT), DropUndo("p3", AT), Drop("p3", AT), Undo("nothing", AT)]
    assert reviews.undone_ids(events) == {"r2", "nothing"}
    assert reviews.effective_reviews(events) == [r1, r3]
    assert reviews.dropped_runs(events) == {"p2", "p3"}
    assert reviews.dropped_runs([DropUndo("p1", AT), Drop("p1", AT)]) == {"p1"}
    assert reviews.dropped_runs([Drop("p1", AT), DropUndo("p1", AT)]) == frozenset()


def test_undo_and_drop_through_the_file(home: Path) -> None:
    first, second = reviews.record_reviews(home, ["a", "b"], "good", reviewed_at=AT)
    reviews.record_undo(home, first.review_id)
    reviews.record_drop(home, "run-1")
    reviews.record_drop(home, "run-2")
    reviews.record_drop_undo(home, "run-1")
    events = reviews.read_log(home).events
    assert reviews.effective_reviews(events) == [second]
    assert reviews.dropped_runs(events) == {"run-2"}
    assert len(log_of(home).read_bytes().splitlines()) == 6  # nothing rewritten or removed


# --- lines that cannot be read ----------------------------------------------------------------


def test_a_torn_last_line_is_skipped_and_the_next_append_is_not_glued_to_it(home: Path) -> None:
    good = review_line("r1") + "\n" + review_line("r2", "n2") + "\n"
    torn = review_line("r3")[:70]
    log_of(home).write_text(good + torn, encoding="utf-8")
    assert reviews.read_log(home) == (
        [review("r1"), review("r2", "n2")],
        ["reviews.jsonl line 3 cannot be read (not valid JSON (Expecting value: column 71)); "
         "skipped"])
    [added] = reviews.record_reviews(home, ["n4"], "easy", reviewed_at=AT)
    assert log_of(home).read_bytes() == (good + torn + "\n").encode() + reviews.encode(added)
    contents = reviews.read_log(home)
    assert contents.events == [review("r1"), review("r2", "n2"), added]
    assert contents.warnings == [
        "reviews.jsonl line 3 cannot be read (not valid JSON (Expecting value: column 71)); "
        "skipped"]


def test_unreadable_lines_are_skipped_one_warning_each_and_every_other_line_counts(
        home: Path) -> None:
    lines = [
        review_line("r1"),
        "not json at all",
        '{"version":1,"version":1}',
        review_line("r1", "n9"),  # a copied line: its review would count twice
        '{"version":2,"kind":"review"}',
        '{"version":true,"kind":"review"}',
        '["a list"]',
        "",
        review_line("r2", "n2", "again"),
        review_line("r3").replace('"good"', '"great"'),
        review_line("r4").replace('"minutes":null', '"minutes":0'),
        review_line("r5").replace('"minutes":null', '"minutes":30.0'),
        review_line("r6").replace('"minutes":null', '"minutes":1e999'),
        review_line("r7", at="2026-05-01T09:30:15+08:00"),
        review_line("r8", at="2026-02-30T09:30:15Z"),
        review_line("r9", at="2026-05-01 09:30:15Z"),
        review_line("r10").replace('"note_id":"n1"', '"note_id":7'),
        review_line("r11").replace('"run_id":null', '"run_id":""'),
        review_line("r12").replace(',"minutes":null', ""),
        review_line("r13").replace("}", ',"extra":1}'),
        '{"version":1,"kind":"promote","run_id":"x"}',
        '{"version":1,"kind":"undo","review_id":"r2","undone_at":"yesterday"}',
        '{"version":1,"kind":"drop","run_id":null,"dropped_at":"2026-05-01T09:30:15Z"}',
        review_line("r14", "n\\u001b[2J"),  # read as it is; the terminal edge makes it inert
        review_line("r15").replace('"good"', '"good\\u202e"'),
        '{"version":1,"kind":"drop-undo","run_id":"p","undone_at":"2026-05-01T09:30:15.5Z"}',
        review_line("r16", "n\x1b[2J"),  # a raw control character is not JSON
    ]
    data = "\n".join(lines).encode() + b"\n\xff\xfe not utf-8\n   \n"
    log_of(home).write_bytes(data)
    contents = reviews.read_log(home)
    assert contents.events == [
        review("r1"), review("r2", "n2", "again"), review("r14", "n\x1b[2J"),
        DropUndo("p", _dt.datetime(2026, 5, 1, 9, 30, 15, 500000, tzinfo=UTC))]
    utc = "not a UTC time such as 2026-05-01T09:30:00Z"
    assert contents.warnings == [f"reviews.jsonl line {number} cannot be read ({reason}); skipped"
                                 for number, reason in [
        (2, "not valid JSON (Expecting value: column 1)"),
        (3, 'repeats the key "version"'),
        (4, "repeats the review_id of line 1"),
        (5, "version is 2, not 1"),
        (6, "version is true, not 1"),
        (7, "not a JSON object"),
        (10, 'rating is "great", not again, hard, good or easy'),
        (11, "minutes is 0, not a whole number from 1 to 120 or null"),
        (12, "minutes is 30.0, not a whole number from 1 to 120 or null"),
        (13, "contains a number that overflows: 1e999"),
        (14, f'reviewed_at is "2026-05-01T09:30:15+08:00", {utc}'),
        (15, f'reviewed_at is "2026-02-30T09:30:15Z", {utc}'),
        (16, f'reviewed_at is "2026-05-01 09:30:15Z", {utc}'),
        (17, "note_id is 7, not a non-empty string"),
        (18, 'run_id is "", not a non-empty string'),
        (19, "has no minutes"),
        (20, 'has the unknown key "extra"'),
        (21, 'kind is "promote", not review, undo, drop, drop-undo or move'),
        (22, f'undone_at is "yesterday", {utc}'),
        (23, "run_id is null, not a non-empty string"),
        (25, 'rating is "good\\u202e", not again, hard, good or easy'),
        (27, "not valid JSON (Invalid control character at: column 60)"),
        (28, "not UTF-8"),
    ]]


# --- files that are refused -------------------------------------------------------------------


def test_a_log_over_64_mib_is_refused_with_its_size_and_64_mib_is_read(home: Path) -> None:
    path = log_of(home)
    path.write_text(review_line("r1") + "\n", encoding="utf-8")
    os.truncate(path, 64 * MIB)  # sparse: the rest of the file reads as NUL bytes
    assert reviews.read_log(home) == (
        [review("r1")], ["reviews.jsonl line 2 cannot be read (not valid JSON (Expecting value: "
                         "column 1)); skipped"])
    os.truncate(path, 64 * MIB + 1)
    with pytest.raises(ReviewLogError) as refused:
        reviews.read_log(home)
    assert str(refused.value) == f"{path} is 67,108,865 bytes, more than the 64 MiB planner reads"


def test_an_append_that_would_pass_64_mib_is_refused_and_changes_nothing(home: Path) -> None:
    path = log_of(home)
    path.write_text(review_line("r1") + "\n", encoding="utf-8")
    os.truncate(path, 64 * MIB - 100)
    with pytest.raises(ReviewLogError) as refused:
        reviews.record_reviews(home, ["n1"], "good")
    assert str(refused.value) == (f"could not record the review in {path} (the log would pass "
                                  "64 MiB); nothing was recorded")
    assert path.stat().st_size == 64 * MIB - 100


def in_thread(call: Callable[[], object]) -> BaseException | None:
    """What `call` raises, run where a hang cannot stall the test run."""
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            call()
        except BaseException as error:  # noqa: B036 - handed back to the test
            outcome.append(error)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), "hung"
    return outcome[0] if outcome else None


def test_a_fifo_is_refused_without_waiting(home: Path) -> None:
    path = log_of(home)
    os.mkfifo(path)
    read = in_thread(lambda: reviews.read_log(home))
    assert isinstance(read, ReviewLogError)
    assert str(read) == f"{path} is not a regular file (a FIFO)"
    append = in_thread(lambda: reviews.record_reviews(home, ["n1"], "good"))
    assert isinstance(append, ReviewLogError)
    assert str(append) == (f"could not record the review in {path} (it is a FIFO); "
                           "nothing was recorded")
    assert stat.S_ISFIFO(os.lstat(path).st_mode)


def test_a_folder_in_the_logs_place_is_refused(home: Path) -> None:
    log_of(home).mkdir()
    with pytest.raises(ReviewLogError) as read:
        reviews.read_log(home)
    assert str(read.value) == f"{log_of(home)} is not a regular file (a folder)"
    with pytest.raises(ReviewLogError) as append:
        reviews.record_drop(home, "p1")
    assert str(append.value) == (f"could not record the drop in {log_of(home)} (Is a directory); "
                                 "nothing was recorded")


@pytest.mark.parametrize("dangling", [False, True])
def test_a_symbolic_link_is_neither_read_nor_written_through(
        home: Path, tmp_path: Path, dangling: bool) -> None:
    target = tmp_path / "elsewhere.jsonl"
    if not dangling:
        target.write_text(review_line("r1") + "\n", encoding="utf-8")
    log_of(home).symlink_to(target)
    if not dangling:
        with pytest.raises(ReviewLogError) as read:
            reviews.read_log(home)
        assert str(read.value) == (f"{log_of(home)} is a symbolic link, which is not followed "
                                   "here")
    with pytest.raises(ReviewLogError) as append:
        reviews.record_reviews(home, ["n1", "n2"], "good")
    assert str(append.value) == (f"could not record the reviews in {log_of(home)} (it is a "
                                 "symbolic link, which is not followed); nothing was recorded")
    assert log_of(home).is_symlink()
    if dangling:
        assert not target.exists()
    else:
        assert target.read_text(encoding="utf-8") == review_line("r1") + "\n"


# --- appends that fail ------------------------------------------------------------------------

APPEND_ONE = """
import sys
from planner.memory import log as reviews
try:
    reviews.record_reviews(sys.argv[1], ["n1"], "good")
except reviews.ReviewLogError as error:
    print(error)
    sys.exit(1)
"""


@pytest.mark.skipif(os.geteuid() == 0 and shutil.which("setpriv") is None,
                    reason="needs setpriv to give up root's privileges")
@pytest.mark.parametrize("log_exists", [False, True])
def test_a_read_only_home_or_log_records_nothing(home: Path, log_exists: bool) -> None:
    path = log_of(home)
    before = (review_line("r1") + "\n").encode()
    if log_exists:
        path.write_bytes(before)
        path.chmod(0o444)
    home.chmod(0o555)
    try:
        done = run_python(APPEND_ONE, str(home), privileged=False)
    finally:
        home.chmod(0o755)
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout == (f"could not record the review in {path} (Permission denied); "
                           "nothing was recorded\n")
    if log_exists:
        assert path.read_bytes() == before
    else:
        assert not path.exists()


def test_a_read_only_file_system_records_nothing(home: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    real_open = os.open

    def read_only(path, flags, *args):
        if str(path).endswith("reviews.jsonl") and flags & os.O_CREAT:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", read_only)
    with pytest.raises(ReviewLogError) as failed:
        reviews.record_undo(home, "r1")
    assert str(failed.value) == (f"could not record the undo in {log_of(home)} (Read-only file "
                                 "system); nothing was recorded")
    assert not log_of(home).exists()


@pytest.fixture
def two_lines(home: Path) -> bytes:
    """A log holding two reviews, as it is before a failing append."""
    reviews.record_reviews(home, ["n1", "n2"], "good", reviewed_at=AT)
    return log_of(home).read_bytes()


def test_a_short_write_on_a_full_disk_is_cut_back(home: Path, two_lines: bytes,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = os.write
    sizes: list[int] = []

    def disk_fills(fd: int, data: bytes) -> int:
        sizes.append(len(data))
        return real_write(fd, data[:len(data) // 2])  # what the kernel does when space runs out

    monkeypatch.setattr(os, "write", disk_fills)
    with pytest.raises(ReviewLogError) as failed:
        reviews.record_reviews(home, ["n3", "n4"], "hard")
    monkeypatch.undo()
    [size] = sizes
    assert str(failed.value) == (
        f"could not record the reviews in {log_of(home)} (only {size // 2} of {size} bytes could "
        "be written; is the disk full?); nothing was recorded")
    assert log_of(home).read_bytes() == two_lines


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT, errno.EIO])
def test_a_write_that_fails_part_way_is_cut_back(home: Path, two_lines: bytes, code: int,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = os.write

    def fails(fd: int, data: bytes) -> int:
        real_write(fd, data[:17])
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "write", fails)
    with pytest.raises(ReviewLogError) as failed:
        reviews.record_reviews(home, ["n3"], "hard")
    monkeypatch.undo()
    assert str(failed.value) == (f"could not record the review in {log_of(home)} "
                                 f"({os.strerror(code)}); nothing was recorded")
    assert log_of(home).read_bytes() == two_lines


def test_ctrl_c_during_the_write_leaves_the_log_as_it_was(
        home: Path, two_lines: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = os.write

    def interrupted(fd: int, data: bytes) -> int:
        real_write(fd, data[:40])
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "write", interrupted)
    with pytest.raises(KeyboardInterrupt):
        reviews.record_reviews(home, ["n3"], "hard")
    monkeypatch.undo()
    assert log_of(home).read_bytes() == two_lines


def test_a_failed_fsync_is_cut_back(home: Path, two_lines: bytes,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    real_fsync = os.fsync
    calls = []

    def first_fails(fd: int) -> None:
        calls.append(fd)
        if len(calls) == 1:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", first_fails)
    with pytest.raises(ReviewLogError) as failed:
        reviews.record_drop(home, "p1")
    monkeypatch.undo()
    assert str(failed.value) == (f"could not record the drop in {log_of(home)} "
                                 "(Input/output error); nothing was recorded")
    assert log_of(home).read_bytes() == two_lines


def test_a_failure_that_cannot_be_cut_back_says_so(home: Path, two_lines: bytes,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = os.write

    def fails(fd: int, data: bytes) -> int:
        real_write(fd, data[:17])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def cannot_cut(fd: int, size: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "write", fails)
    monkeypatch.setattr(os, "ftruncate", cannot_cut)
    with pytest.raises(ReviewLogError) as failed:
        reviews.record_reviews(home, ["n3"], "hard")
    monkeypatch.undo()
    assert str(failed.value) == (f"could not record the review in {log_of(home)} (No space left "
                                 "on device) nor cut the log back; the log may hold part of it")
    # The torn part is one line that the reader skips; the two reviews before it still count.
    contents = reviews.read_log(home)
    assert [event.note_id for event in contents.events if type(event) is Review] == ["n1", "n2"]
    assert len(contents.events) == 2
    assert contents.warnings == [
        "reviews.jsonl line 3 cannot be read (not valid JSON (Unterminated string starting at: "
        "column 14)); skipped"]


def test_a_missing_home_records_nothing(tmp_path: Path) -> None:
    with pytest.raises(ReviewLogError) as failed:
        reviews.record_reviews(tmp_path / "gone", ["n1"], "good")
    assert str(failed.value) == (f"could not record the review in {tmp_path}/gone/reviews.jsonl "
                                 "(No such file or directory); nothing was recorded")


# --- two processes at once --------------------------------------------------------------------

APPEND_MANY = """
import os, sys, time
from planner.memory import log as reviews
home, tag, go = sys.argv[1:]
while not os.path.exists(go):
    time.sleep(0.001)
for number in range(200):
    reviews.record_reviews(home, [f"{tag}-{number}"], "good", minutes=number % 120 + 1)
"""


@pytest.mark.slow
def test_two_processes_appending_at_once_lose_no_line(home: Path, tmp_path: Path) -> None:
    go = tmp_path / "go"
    workers = [subprocess.Popen([sys.executable, "-c", APPEND_MANY, str(home), tag, str(go)])
               for tag in ("a", "b")]
    time.sleep(0.5)  # both interpreters started and waiting
    go.touch()
    assert [worker.wait(timeout=120) for worker in workers] == [0, 0]
    contents = reviews.read_log(home)
    assert contents.warnings == []
    assert len(log_of(home).read_bytes().splitlines()) == 400
    made = [event for event in contents.events if type(event) is Review]
    assert len(made) == 400
    notes = [event.note_id for event in made]
    for tag in ("a", "b"):
        assert [note for note in notes if note.startswith(tag)] == [
            f"{tag}-{number}" for number in range(200)]
    assert len({event.review_id for event in made}) == 400
