"""Reading runs back from tool-records/: the list, each run's status, rows, one run in full."""

# Speed on tens of thousands of runs: names come from one os.scandir and each run costs one
# read of its summary.json; /proc is read only for a summary still marked running. Nothing
# here imports pydantic or Rich.
#
# A folder whose summary.json is missing, unreadable or not a regular file of at most 1 MiB is
# "damaged", as is one that records.from_json cannot use (not JSON, too deep, not an object, no
# status or no calls list): listed with the reason, never raised, never waited on. Everything
# else reads the typed summary (records.RunSummary), never its keys.
#
# Links are not followed (README "A screen you can trust"): a run folder that is a symbolic link to
# a folder is listed
# as damaged ("run folder is a symbolic link (not followed)") and nothing behind it is read
# or listed; a summary.json that is a link is damaged too. A link to anything else is
# not a run, like a plain file.

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from planner.base import storage
from planner.base.errors import Failure, UsageError
from planner.base.home import HomePath
from planner.base.i18n import t
from planner.base.oserrors import os_reason
from planner.model import costs
from planner.model.costs import Tally
from planner.records import summary as records
from planner.records.run_record import MESSAGES, RECORDS_DIR, SUMMARY, process_start_ticks

# The status names live in planner.records.status; imported here so history.RUNNING etc. still work.
from planner.records.status import DAMAGED, INTERRUPTED, RUNNING, WORDS, run_word
from planner.records.summary import CallEntry, DamagedRun, RunSummary

if TYPE_CHECKING:
    from planner.base.config import Prices

Run = RunSummary | DamagedRun

SUMMARY_LIMIT = storage.MIB
LINKED_FOLDER = t("run folder is a symbolic link (not followed)")


class HistoryError(Failure):
    """tool-records/ exists but cannot be listed; one line for the person (exit 1)."""


class RunNotFound(UsageError, LookupError):
    """No run, or more than one, matches the ID or prefix the person gave: exit 2."""


def records_dir(home: HomePath) -> str:
    """The path of home/tool-records as a plain string (cheaper than Path per run)."""
    return os.path.join(os.fspath(home), RECORDS_DIR)


def run_ids(home: HomePath) -> list[str]:
    """Run folder names, newest first (run IDs sort by time); [] when there are none."""
    return _scan(home)[0]


def _scan(home: HomePath) -> tuple[list[str], frozenset[str]]:
    """Run folder names newest first, and those of them that are symbolic links."""
    folder = records_dir(home)
    links = []
    try:
        with os.scandir(folder) as entries:
            names = []
            # Dot names are never runs (.gitkeep, editors' files); plain files are not either.
            for entry in entries:
                if entry.name[0] != "." and _is_dir(entry):
                    names.append(entry.name)
                    # d_type from the listing itself: no extra system call per run.
                    if entry.is_symlink():
                        links.append(entry.name)
    except FileNotFoundError:
        return [], frozenset()
    except OSError as error:
        raise HistoryError(t("{error}; check the folder's permissions", error=t(
            "cannot list {folder} ({reason})", folder=folder, reason=os_reason(error)))) from None
    names.sort(reverse=True)
    return names, frozenset(links)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        # Follows a link only to learn what it points to (stat opens nothing, never waits).
        return entry.is_dir()
    except OSError:
        return False


class _Refused(Exception):
    """summary.json is not a regular file of bounded size; the message is the reason."""


# O_NONBLOCK: a FIFO must not hang the listing; O_NOFOLLOW: a link named summary.json is
# refused (ELOOP), never followed.
_READ_FLAGS = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOFOLLOW
# Summaries are a few kB; a small buffer, because os.read allocates the full size it is given.
_CHUNK = 64 * 1024
_TOO_BIG = t("summary.json is larger than 1 MiB")


def _read_bytes(path: str) -> bytes:
    """A whole regular file of at most SUMMARY_LIMIT bytes, through plain os calls.

    Half the cost of open() on 10,000 small files. A summary is a few kB: open, one read,
    close; fstat only when a read is empty, fails or fills the buffer (a FIFO, a folder, a
    device or a big file), so the usual case costs no extra system call.
    """
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise _Refused(t("summary.json is a symbolic link (not followed)")) from None
        raise
    try:
        try:
            data = os.read(fd, _CHUNK)
        except OSError:
            _check_regular(fd)
            raise
        if not data or len(data) == _CHUNK:
            _check_regular(fd)
        # A plain file reads short only at its end; a full buffer means there may be more.
        if len(data) == _CHUNK:
            parts, left = [data], SUMMARY_LIMIT + 1 - _CHUNK
            while left > 0 and (chunk := os.read(fd, min(left, _CHUNK))):
                parts.append(chunk)
                left -= len(chunk)
            data = b"".join(parts)
            if len(data) > SUMMARY_LIMIT:
                raise _Refused(_TOO_BIG)
        return data
    finally:
        os.close(fd)


def _check_regular(fd: int) -> None:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise _Refused(t("summary.json is not a regular file ({kind})",
                         kind=storage.file_kind(info.st_mode)))
    if info.st_size > SUMMARY_LIMIT:
        raise _Refused(_TOO_BIG)


def read_run(folder: str, run_id: str, linked: bool = False) -> tuple[Run, object]:
    """(the run's typed summary or why it is damaged, the JSON value read); never raises.

    The JSON value is what summary.json holds, for `planner show --json` (None when it could
    not be read). `linked`: the run folder is a symbolic link, so nothing in it is read.
    """
    if linked:
        return DamagedRun(run_id, LINKED_FOLDER), None
    # Plain concatenation: os.path.join twice per run shows up on 10,000 runs.
    try:
        data = _read_bytes(f"{folder}/{SUMMARY}")
    except FileNotFoundError:
        return DamagedRun(run_id, t("no summary.json")), None
    except _Refused as refused:
        return DamagedRun(run_id, str(refused)), None
    except OSError as error:
        return DamagedRun(run_id, t("summary.json cannot be read ({reason})",
                                    reason=os_reason(error))), None
    try:
        value = records.decode(data)
    except records.Unusable as unusable:
        return DamagedRun(run_id, str(unusable)), None
    return records.from_json(value, run_id), value


def derived_status(summary: RunSummary) -> str:
    """The status to show: `running` only while the run's own process is still alive."""
    status = summary.status
    if status != RUNNING:
        return status
    pid = summary.pid
    if pid is None or pid <= 0:
        return INTERRUPTED
    started = process_start_ticks(pid)
    if started is None:
        return INTERRUPTED  # the process is gone
    recorded = summary.process_start
    if recorded is not None and recorded != started:
        return INTERRUPTED  # the pid now belongs to another process
    return RUNNING


def _word(state: str, summary: Run) -> str:
    if isinstance(summary, DamagedRun):
        return WORDS[DAMAGED]
    result = summary.tool_result
    return run_word(state, None if result is None else result.status, summary.approved)


class RunRow(NamedTuple):
    """One run as `planner runs` and `planner costs` list it: a few facts of its summary.

    Only these are kept, never the summary itself: on 10,000 runs each summary is read,
    summed up here and let go, so memory stays flat and reading stays fast.
    """

    run_id: str  # the folder's name
    status: str  # derived: a running run whose process is gone is interrupted; or damaged
    problem: str | None  # why the run is damaged, else None
    tally: Tally | None  # its calls counted; None when damaged
    simulated: bool | None = None  # a demo run, never priced; None when damaged
    created_at: str | None = None
    mode: str | None = None
    approved: bool | None = None
    tool_result: str | None = None  # the status of its tool_result: saved, cancelled, ...
    title: str | None = None  # the title of its last proposal
    model: str | None = None  # the model it asked: config's prices apply to that model only

    @property
    def word(self) -> str:
        """The one word a person reads for this run, in every command (status.run_word)."""
        if self.problem is not None:
            return WORDS[DAMAGED]
        return run_word(self.status, self.tool_result, self.approved)

    def cost(self, prices: Prices) -> float | None:
        """The known part of its cost; None when simulated (never priced), damaged, or when
        the prices are for another model (README "Going on with a conversation": costs are never
        invented)."""
        if self.tally is None or self.simulated or not prices.applies_to(self.model):
            return None
        return self.tally.cost(prices)

    def to_json(self, prices: Prices) -> dict[str, Any]:
        """One `planner runs --json` entry (see the README section on `planner runs`)."""
        tally = self.tally
        return {
            "run_id": self.run_id,
            "created_at": self.created_at,
            "mode": self.mode,
            "simulated": self.simulated,
            "status": self.status,
            "approved": self.approved,
            "tool_result": self.tool_result,
            "calls": None if tally is None else tally.calls,
            "title": self.title,
            "cost": self.cost(prices),
            "unknown_calls": None if tally is None else tally.unknown_calls,
            "currency": prices.currency,
            "problem": self.problem,
        }

    def cost_json(self, prices: Prices) -> dict[str, Any]:
        """One entry of `planner costs --json`: the run's counts and known cost."""
        assert self.tally is not None  # only priced runs are in the report
        # cost null: the prices are for another model (as in `runs --json`).
        return {"run_id": self.run_id, "status": self.status, **self.tally.as_dict(prices),
                "cost": self.cost(prices)}


_new = tuple.__new__


def _row(run_id: str, summary: Run, titled: bool = True) -> RunRow:
    """The run's row; `titled`: with its plan's title (`planner costs` shows none)."""
    if isinstance(summary, DamagedRun):
        return _new(RunRow, (run_id, DAMAGED, summary.why, None, None, None, None, None, None,
                             None, None))
    result = summary.tool_result
    return _new(RunRow, (
        run_id, derived_status(summary), None, costs.tally_usages(summary.usages),
        summary.is_simulated, summary.created_at, summary.mode, summary.approved,
        None if result is None else result.status, _title(summary) if titled else None,
        summary.model,
    ))


def _title(summary: RunSummary) -> str | None:
    plan = summary.plan
    return None if plan is None else plan.title


def list_runs(home: HomePath, limit: int | None = None) -> tuple[list[RunRow], int]:
    """The newest `limit` runs (None: all), damaged ones included; and how many exist."""
    names, links = _scan(home)
    # Only the runs shown are read: `planner runs` in a terminal stays instant on 10,000 runs.
    shown = names if limit is None else names[:limit]
    rows = [_row(run_id, summary) for run_id, summary in _each_run(home, shown, links)]
    return rows, len(names)


def _each_run(home: HomePath, names: list[str], links: frozenset[str]) -> Iterator[tuple[str, Run]]:
    """Each named run and its typed summary, read one at a time and let go."""
    folder = records_dir(home)
    for run_id in names:
        yield run_id, read_run(f"{folder}/{run_id}", run_id, run_id in links)[0]


class CostReport(NamedTuple):
    """`planner costs`: the priced runs newest first, their total, and what was left out."""

    runs: list[RunRow]
    total: Tally
    simulated: int  # demo runs: never priced
    damaged: int  # runs whose summary.json cannot be used

    def priced(self, prices: Prices) -> Tally:
        """The counts of the runs whose model the prices are for: the total's known cost."""
        tally = Tally()
        for run in self.runs:
            if prices.applies_to(run.model):
                tally.add(run.tally)  # type: ignore[arg-type]
        return tally

    def known_cost(self, prices: Prices) -> float | None:
        """The total's known cost; None when no run asked the model the prices are for (no
        prices at all, or another model's): unknown, never 0."""
        if self.runs and not any(prices.applies_to(run.model) for run in self.runs):
            return None  # (no runs at all have cost nothing)
        return self.priced(prices).cost(prices)

    def unpriced(self, prices: Prices) -> int:
        """How many runs asked a model the prices are not for: their cost is unknown."""
        return sum(1 for run in self.runs if not prices.applies_to(run.model))

    def to_json(self, prices: Prices, limit: int | None = None) -> dict[str, Any]:
        """The `planner costs --json` object; `limit` shortens the list, never the total."""
        runs = self.runs if limit is None else self.runs[:limit]
        return {
            "currency": prices.currency,
            "runs": [run.cost_json(prices) for run in runs],
            # The tokens of every run; the cost of those whose model the prices are for.
            "total": {"runs": len(self.runs), **self.total.as_dict(prices),
                      "cost": self.known_cost(prices)},
            "simulated_runs_skipped": self.simulated,
        }


def cost_report(home: HomePath) -> CostReport:
    """Every run's counts (demo and damaged runs counted apart), newest first, and the total."""
    runs = []
    total = Tally()
    simulated = damaged = 0
    names, links = _scan(home)
    for run_id, summary in _each_run(home, names, links):
        if isinstance(summary, DamagedRun):
            damaged += 1
            continue
        if summary.is_simulated:
            simulated += 1
            continue
        row = _row(run_id, summary, titled=False)
        total.add(row.tally)  # type: ignore[arg-type]
        runs.append(row)
    return CostReport(runs, total, simulated, damaged)


def find_run(home: HomePath, wanted: str) -> str:
    """The run ID that equals `wanted`, or the only one starting with it; else RunNotFound."""
    names = run_ids(home)
    if wanted in names:
        return wanted
    matches = [name for name in names if wanted and name.startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise RunNotFound(t("'{wanted}' matches {count} runs; give more of the run ID "
                            "(see planner runs)", wanted=wanted, count=len(matches)))
    raise RunNotFound(t("no run '{wanted}' in {folder} (see planner runs)", wanted=wanted,
                        folder=records_dir(home)))


class PricedCall(NamedTuple):
    """One model call of a run, its tokens split and priced (None: usage unknown)."""

    number: int
    entry: CallEntry
    split: tuple[int, int, int] | None  # cache-hit input, cache-miss input, output tokens
    cost: float | None  # None when unknown or simulated

    def to_json(self) -> dict[str, Any]:
        entry, split = self.entry, self.split
        return {
            "number": self.number,
            "request": entry.request,
            "response": entry.response,
            "started_at": entry.started_at,
            "duration_ms": entry.duration_ms,
            "usage": entry.usage,
            "input_cache_hit_tokens": None if split is None else split[0],
            "input_cache_miss_tokens": None if split is None else split[1],
            "output_tokens": None if split is None else split[2],
            "cost": self.cost,
            "error": entry.error,
        }


class RunDetail(NamedTuple):
    """`planner show`: one run, its derived facts, each call priced, its files."""

    run_id: str
    folder: str
    summary: Run
    status: str  # derived, as `planner runs` shows it
    word: str  # the one word for this run, as `runs` and `costs` say it
    currency: str
    cost: float | None  # the known part; None when simulated or damaged
    tally: Tally | None
    calls: tuple[PricedCall, ...]
    files: tuple[str, ...]
    recorded: object  # summary.json's JSON value as read (for --json), None if unreadable
    messages: dict[str, Any] = {}  # messages.json: each recorded program line's template and values

    @property
    def problem(self) -> str | None:
        return self.summary.why if isinstance(self.summary, DamagedRun) else None

    def to_json(self) -> dict[str, Any]:
        """The `planner show --json` object: derived facts, each call, the files, the summary."""
        summary = self.summary
        damaged = isinstance(summary, DamagedRun)
        return {
            "run_id": self.run_id,
            "folder": self.folder,
            "status": self.status,
            "problem": self.problem,
            "simulated": None if isinstance(summary, DamagedRun) else summary.is_simulated,
            "currency": self.currency,
            "cost": self.cost,
            "unknown_calls": None if self.tally is None else self.tally.unknown_calls,
            "calls": [call.to_json() for call in self.calls],
            "steps": [] if isinstance(summary, DamagedRun) else [step.to_json()
                                                                for step in summary.steps],
            "files": list(self.files),
            "summary": None if damaged else self.recorded,
        }


def run_detail(home: HomePath, run_id: str, prices: Prices) -> RunDetail:
    """One run in full, for `planner show`; a damaged one says why."""
    folder = records_dir(home)
    path = os.path.join(folder, run_id)
    linked = os.path.islink(path)
    summary, value = read_run(path, run_id, linked)
    try:
        # A linked folder is not listed either: what is behind the link is not ours to show.
        files = () if linked else tuple(sorted(name for name in os.listdir(path)
                                               if name[0] != "."))
    except OSError:
        files = ()
    if isinstance(summary, DamagedRun):
        return RunDetail(run_id, path, summary, DAMAGED, WORDS[DAMAGED], prices.currency, None,
                         None, (), files, None)
    # Never priced: a simulated run, or one that asked a model the prices are not for.
    unpriced = summary.is_simulated or not prices.applies_to(summary.model)
    tally = Tally()
    calls = []
    for number, entry in enumerate(summary.calls, 1):
        split = tally.add_call(entry.usage)
        cost = None if split is None or unpriced else costs.price_tokens(split, prices)
        calls.append(PricedCall(number, entry, split, cost))
    state = derived_status(summary)
    return RunDetail(run_id, path, summary, state, _word(state, summary), prices.currency,
                     None if unpriced else tally.cost(prices), tally, tuple(calls), files,
                     value, recorded_lines(path))


def recorded_lines(folder: str) -> dict[str, Any]:
    """A run's messages.json (README "Records"); {} when it is missing, damaged or no file:
    its lines are then shown in the words summary.json holds."""
    try:
        value = records.decode(_read_bytes(f"{folder}/{MESSAGES}"))
    except (OSError, _Refused, records.Unusable):
        return {}
    return value if isinstance(value, dict) else {}
