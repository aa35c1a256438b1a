"""Reading runs back from tool-records/: the list, each run's status, rows, one run in full."""

# Speed on tens of thousands of runs: names come from one os.scandir and each run costs one
# read of its summary.json; /proc is read only for a summary still marked running. Nothing
# here imports pydantic or Rich.
#
# A folder whose summary.json is missing, unreadable, not a regular file of at most 1 MiB, not
# UTF-8/JSON, nested deeper than 64 levels, not an object, or lacks a status string or a calls
# list is "damaged": listed with the reason, never raised, never waited on.
#
# Links are not followed (SPEC 14): a run folder that is a symbolic link to a folder is listed
# as damaged ("run folder is a symbolic link (not followed)") and nothing behind it is read
# or listed; a summary.json that is a link is damaged too. A link to anything else is
# not a run, like a plain file.

from __future__ import annotations

import errno
import json
import os
import stat

from planner import costs, storage
from planner.jsonlimits import MAX_DEPTH, too_deep
from planner.records import RECORDS_DIR, SUMMARY, process_start_ticks

# The status names live in planner.status; imported here so history.RUNNING etc. still work.
from planner.status import DAMAGED, INTERRUPTED, RUNNING

SUMMARY_LIMIT = storage.MIB
LINKED_FOLDER = "run folder is a symbolic link (not followed)"


class HistoryError(Exception):
    """tool-records/ exists but cannot be listed; one line for the person."""


class RunNotFound(LookupError):
    """No run, or more than one, matches the ID or prefix the person gave."""


def records_dir(home: object) -> str:
    """The path of home/tool-records as a plain string (cheaper than Path per run)."""
    return os.path.join(os.fspath(home), RECORDS_DIR)


def run_ids(home: object) -> list[str]:
    """Run folder names, newest first (run IDs sort by time); [] when there are none."""
    return _scan(home)[0]


def _scan(home: object) -> tuple[list[str], frozenset[str]]:
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
        raise HistoryError(f"cannot list {folder} ({error.strerror or error})") from None
    names.sort(reverse=True)
    return names, frozenset(links)


def _is_dir(entry: os.DirEntry) -> bool:
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
_TOO_BIG = "summary.json is larger than 1 MiB"


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
            raise _Refused("summary.json is a symbolic link (not followed)") from None
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
        raise _Refused(f"summary.json is not a regular file ({storage.file_kind(info.st_mode)})")
    if info.st_size > SUMMARY_LIMIT:
        raise _Refused(_TOO_BIG)


class _TooDeep(ValueError):
    """JSON nested deeper than MAX_DEPTH levels."""


def _decode(data: bytes) -> object:
    """JSON from bytes: the UTF-8 planner writes first (the cheap path), then any JSON encoding.

    ValueError when it is not JSON, _TooDeep when it nests deeper than MAX_DEPTH levels.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is None or text[:1] == "\ufeff":
        # A BOM or UTF-16/32 file, decoded as json.loads(bytes) would; ValueError if it cannot be.
        text = data.decode(json.detect_encoding(data), "surrogatepass").removeprefix("\ufeff")
    try:
        value = json.loads(text)
    except RecursionError:
        raise _TooDeep from None  # thousands of levels: the parser gave up
    # The bracket count first, inline: it settles every usual summary without a call.
    if text.count("{") + text.count("[") > MAX_DEPTH and too_deep(text, value):
        raise _TooDeep
    return value


def read_summary(folder: str, linked: bool = False) -> tuple[dict | None, str | None]:
    """(summary, None), or (None, why the run is damaged); never raises, never waits.

    `linked`: the run folder is a symbolic link, so nothing in it is read.
    """
    if linked:
        return None, LINKED_FOLDER
    # Plain concatenation: os.path.join twice per run shows up on 10,000 runs.
    try:
        data = _read_bytes(f"{folder}/{SUMMARY}")
    except FileNotFoundError:
        return None, "no summary.json"
    except _Refused as refused:
        return None, str(refused)
    except OSError as error:
        return None, f"summary.json cannot be read ({error.strerror or error})"
    try:
        summary = _decode(data)
    except _TooDeep:
        return None, f"summary.json is nested deeper than {MAX_DEPTH} levels"
    except ValueError:
        # UnicodeDecodeError is a ValueError too.
        return None, "summary.json is empty" if not data.strip() else "summary.json is not JSON"
    if not isinstance(summary, dict):
        return None, "summary.json is not a JSON object"
    if not isinstance(summary.get("status"), str) or not isinstance(summary.get("calls"), list):
        return None, "summary.json has no status or no calls list"
    return summary, None


def derived_status(summary: dict) -> str:
    """The status to show: `running` only while the run's own process is still alive."""
    status = summary["status"]
    if status != RUNNING:
        return status
    pid = summary.get("pid")
    if type(pid) is not int or pid <= 0:
        return INTERRUPTED
    started = process_start_ticks(pid)
    if started is None:
        return INTERRUPTED  # the process is gone
    recorded = summary.get("process_start")
    if type(recorded) is int and recorded != started:
        return INTERRUPTED  # the pid now belongs to another process
    return RUNNING


def is_simulated(summary: dict) -> bool:
    """Demo runs: their usage is simulated, so they are never priced."""
    return summary.get("simulated") is True or summary.get("mode") == "demo"


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _bool(value: object) -> bool | None:
    return value if isinstance(value, bool) else None


def _sub_text(value: object, key: str) -> str | None:
    return _text(value.get(key)) if isinstance(value, dict) else None


def run_row(run_id: str, summary: dict | None, problem: str | None, prices) -> dict:
    """One `planner runs --json` entry (see the README section on `planner runs`)."""
    if summary is None:
        return {
            "run_id": run_id, "created_at": None, "mode": None, "simulated": None,
            "status": DAMAGED, "approved": None, "tool_result": None, "calls": None,
            "title": None, "cost": None, "unknown_calls": None,
            "currency": prices.currency, "problem": problem,
        }
    tally = costs.tally_calls(summary["calls"])
    simulated = is_simulated(summary)
    return {
        "run_id": run_id,
        "created_at": _text(summary.get("created_at")),
        "mode": _text(summary.get("mode")),
        "simulated": simulated,
        "status": derived_status(summary),
        "approved": _bool(summary.get("approved")),
        "tool_result": _sub_text(summary.get("tool_result"), "status"),
        "calls": tally.calls,
        "title": _sub_text(summary.get("plan"), "title"),
        "cost": None if simulated else tally.cost(prices),
        "unknown_calls": tally.unknown_calls,
        "currency": prices.currency,
        "problem": None,
    }


def list_runs(home: object, prices, limit: int | None = None) -> tuple[list[dict], int]:
    """The newest `limit` runs (None: all) as rows, damaged ones included; and how many exist."""
    folder = records_dir(home)
    names, links = _scan(home)
    rows = []
    # Only the runs shown are read: `planner runs` in a terminal stays instant on 10,000 runs.
    for run_id in names if limit is None else names[:limit]:
        summary, problem = read_summary(f"{folder}/{run_id}", run_id in links)
        rows.append(run_row(run_id, summary, problem, prices))
    return rows, len(names)


def cost_report(home: object, prices) -> tuple[dict, int]:
    """The `planner costs --json` object, and how many damaged runs were left out of it."""
    folder = records_dir(home)
    runs = []
    total = costs.Tally()
    simulated = damaged = 0
    names, links = _scan(home)
    for run_id in names:
        summary, _problem = read_summary(f"{folder}/{run_id}", run_id in links)
        if summary is None:
            damaged += 1
            continue
        if is_simulated(summary):
            simulated += 1
            continue
        tally = costs.tally_calls(summary["calls"])
        total.add(tally)
        runs.append({"run_id": run_id, "status": derived_status(summary),
                     **tally.as_dict(prices)})
    report = {
        "currency": prices.currency,
        "runs": runs,
        "total": {"runs": len(runs), **total.as_dict(prices)},
        "simulated_runs_skipped": simulated,
    }
    return report, damaged


def find_run(home: object, wanted: str) -> str:
    """The run ID that equals `wanted`, or the only one starting with it; else RunNotFound."""
    names = run_ids(home)
    if wanted in names:
        return wanted
    matches = [name for name in names if wanted and name.startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise RunNotFound(f"'{wanted}' matches {len(matches)} runs; give more of the run ID "
                          "(see planner runs)")
    raise RunNotFound(f"no run '{wanted}' in {records_dir(home)} (see planner runs)")


def run_detail(home: object, run_id: str, prices) -> dict:
    """The `planner show --json` object: derived facts, each call, the files, the summary."""
    folder = records_dir(home)
    path = os.path.join(folder, run_id)
    linked = os.path.islink(path)
    summary, problem = read_summary(path, linked)
    try:
        # A linked folder is not listed either: what is behind the link is not ours to show.
        files = [] if linked else sorted(name for name in os.listdir(path) if name[0] != ".")
    except OSError:
        files = []
    detail = {
        "run_id": run_id,
        "folder": path,
        "status": DAMAGED if summary is None else derived_status(summary),
        "problem": problem,
        "simulated": None if summary is None else is_simulated(summary),
        "currency": prices.currency,
        "cost": None,
        "unknown_calls": None,
        "calls": [],
        "steps": [],
        "files": files,
        "summary": summary,
    }
    if summary is None:
        return detail
    simulated = detail["simulated"]
    tally = costs.Tally()
    for number, call in enumerate(summary["calls"], 1):
        call = call if isinstance(call, dict) else {}
        split = tally.add_call(call.get("usage"))
        detail["calls"].append({
            "number": number,
            "request": _text(call.get("request")),
            "response": _text(call.get("response")),
            "started_at": _text(call.get("started_at")),
            "duration_ms": call.get("duration_ms") if type(call.get("duration_ms")) is int
            else None,
            "usage": call.get("usage"),
            "input_cache_hit_tokens": None if split is None else split[0],
            "input_cache_miss_tokens": None if split is None else split[1],
            "output_tokens": None if split is None else split[2],
            "cost": None if split is None or simulated else costs.price_tokens(split, prices),
            "error": call.get("error"),
        })
    detail["cost"] = None if simulated else tally.cost(prices)
    detail["unknown_calls"] = tally.unknown_calls
    detail["steps"] = run_steps(summary)
    return detail


def run_steps(summary: dict) -> list[dict]:
    """The run as the conversation it was: version 2's recorded steps, or version 1's rebuilt."""
    if summary.get("version") == 2:
        steps = summary.get("steps")
        return [step for step in steps if isinstance(step, dict)] if isinstance(steps, list) else []
    # Version 1 had one proposal at most (call 1) and the explanation as call 2.
    steps: list[dict] = []
    plan = summary.get("plan")
    if isinstance(plan, dict):
        steps.append({"call": 1, "kind": "proposal", "call_id": None, "plan": plan})
        approved = _bool(summary.get("approved"))
        result = summary.get("tool_result")
        if approved is not None or isinstance(result, dict):
            steps.append({"call": 1, "kind": "decision", "approved": approved,
                          "result": result if isinstance(result, dict) else None,
                          "near_misses": []})
    question = _text(summary.get("question"))
    if question is not None:
        steps.append({"call": 1, "kind": "question", "text": question})
    explanation = _text(summary.get("explanation"))
    if explanation is not None:
        steps.append({"call": 2, "kind": "explanation", "text": explanation})
    return steps
