"""The memory model fitted to the person: `memory.json` in the home (README "A memory fitted to
you").

`{"version": 1, "parameters": [21 numbers] | null, ...}`, written atomically (a temporary file,
fsync, rename), read through the one strict JSON reader and checked field by field: planner wrote
it, and still a hand edit or a torn disk may have changed it, so every field there is of its
kind (counts whole and 0 or more, scores finite, times in UTC with their zone). A damaged file is
one line; whoever schedules then uses the default parameters and says so. Whatever
builds a schedule from the home (planner.memory.review_memory.ReviewMemory) reads the parameters
here, so `due`, `done`, the SAVE screen, `due_notes` and `week` all use the fitted ones.
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from planner.base import storage, strictjson
from planner.base.days import usable_time
from planner.base.errors import Failure, UsageError
from planner.base.i18n import t
from planner.base.oserrors import os_reason

MEMORY_NAME = "memory.json"
MEMORY_VERSION = 1
PARAMETER_COUNT = 21
MAX_MEMORY_BYTES = 256 * 1024


class MemoryFileError(UsageError):
    """memory.json cannot be read (damaged: exit 2); str() is the one line for the person."""


class MemoryWriteError(MemoryFileError, Failure):
    """memory.json could not be written (exit 1): it is as it was."""

    exit_code = Failure.exit_code


class Memory(NamedTuple):
    """What memory.json holds: `parameters` None means the defaults; `data` the whole file."""

    parameters: tuple[float, ...] | None
    reviews: int | None  # the counting reviews of the last fit (None: no fit)
    data: dict[str, object]


NO_MEMORY = Memory(None, None, {})


def memory_path(home: str | os.PathLike[str]) -> Path:
    """Where the fitted memory of `home` is kept."""
    return Path(home) / MEMORY_NAME


def read_memory(home: str | os.PathLike[str]) -> Memory:
    """The fitted memory; NO_MEMORY when there is no file; MemoryFileError when it is damaged."""
    path = memory_path(home)
    try:
        raw = storage.read_regular_file(path, MAX_MEMORY_BYTES, follow_links=False)
    except FileNotFoundError:
        return NO_MEMORY
    except storage.FileRefused as refused:
        raise MemoryFileError(str(refused)) from None
    except OSError as error:
        raise MemoryFileError(t("{path} cannot be read ({reason})", path=path,
                                reason=os_reason(error))) from None
    try:
        data = strictjson.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, strictjson.JSONRefused):
        raise MemoryFileError(_damaged(path, t("it is not JSON"))) from None
    if type(data) is not dict or data.get("version") != MEMORY_VERSION:
        raise MemoryFileError(_damaged(path, t("it is not a version 1 object")))
    if "parameters" not in data:
        raise MemoryFileError(_damaged(path, t("it has no parameters")))
    parameters = data.get("parameters")
    if parameters is not None and not valid_parameters(parameters):
        raise MemoryFileError(_damaged(path, t("its parameters are not 21 finite numbers")))
    problem = _field_problem(data)
    if problem is not None:
        raise MemoryFileError(_damaged(path, problem))
    if parameters is None:
        return Memory(None, None, data)
    reviews = data.get("reviews")
    return Memory(tuple(float(value) for value in parameters),
                  reviews if type(reviews) is int else None, data)


def memory_in_use(home: str | os.PathLike[str]) -> dict[str, object]:
    """The memory model's parameters in use, as `planner where` reports them: fitted
    (memory.json) or FSRS's defaults, and why a damaged file is not used."""
    path = os.path.abspath(memory_path(home))
    try:
        memory = read_memory(home)
    except MemoryFileError as error:
        return {"in_use": "defaults", "file": path, "problem": str(error), "reviews": None,
                "fitted_at": None}
    fitted_at = memory.data.get("fitted_at")
    return {"in_use": "defaults" if memory.parameters is None else "fitted", "file": path,
            "problem": None, "reviews": memory.reviews,
            "fitted_at": fitted_at if isinstance(fitted_at, str) else None}


def _field_problem(data: dict[str, object]) -> str | None:
    """What is wrong with memory.json's other fields (each checked when there), or None."""
    for key in ("fitted_at", "reset_at"):
        if key in data and not _utc_time(data[key]):
            return t("its {key} is not a UTC time with its zone, such as 2026-05-01T09:30:00Z",
                     key=key)
    if "reviews" in data and not _count(data["reviews"]):
        return t("its {key} is not a whole number of 0 or more", key="reviews")
    for key in ("log_loss", "rmse_bins"):
        if key in data and not _score(data[key]):
            return t("its {key} is not a finite number of 0 or more", key=key)
    previous = data.get("previous", {})
    if type(previous) is not dict:
        return t("its {key} is not an object", key="previous")
    for key in ("log_loss", "rmse_bins"):
        if key in previous and not _score(previous[key]):
            return t("its {key} is not a finite number of 0 or more", key=f"previous.{key}")
    if "fitted_at" in previous and not _utc_time(previous["fitted_at"]):
        return t("its {key} is not a UTC time with its zone, such as 2026-05-01T09:30:00Z",
                 key="previous.fitted_at")
    if previous.get("parameters") is not None and not valid_parameters(previous["parameters"]):
        return t("its previous parameters are not 21 finite numbers")
    sources = data.get("sources", [])
    if type(sources) is not list or not all(_source(source) for source in sources):
        return t("its {key} is not a list of sources (kind, name, reviews, skipped)",
                 key="sources")
    return None


def _count(value: object) -> bool:
    return type(value) is int and value >= 0


def _score(value: object) -> bool:
    return isinstance(value, (int, float)) and type(value) is not bool \
        and math.isfinite(value) and value >= 0


def _utc_time(value: object) -> bool:
    if type(value) is not str or not _UTC_TIME.fullmatch(value):
        return False
    try:
        moment = _dt.datetime.fromisoformat(value)
    except ValueError:
        return False
    return usable_time(moment)


def _source(source: object) -> bool:
    if type(source) is not dict or source.get("kind") not in ("log", "anki"):
        return False
    skipped = source.get("skipped", {})
    return (type(source.get("name")) is str and _count(source.get("reviews"))
            and type(skipped) is dict and all(_count(value) for value in skipped.values()))


_UTC_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?"
                       r"(Z|\+00:00)", re.ASCII)


def valid_parameters(parameters: object) -> bool:
    """21 finite numbers (the FSRS-6 parameters)."""
    return (type(parameters) is list and len(parameters) == PARAMETER_COUNT
            and all(type(value) in (int, float) and math.isfinite(value)
                    for value in parameters))


def write_memory(home: str | os.PathLike[str], data: Mapping[str, object]) -> None:
    """Replace memory.json with `data` all at once; MemoryFileError with the file as it was."""
    path = memory_path(home)
    try:
        storage.write_atomic(path, storage.to_json(data, indent=2))
    except OSError as error:
        raise MemoryWriteError(t("could not write {path} ({reason}); it is as it was", path=path,
                                reason=os_reason(error))) from None


def _damaged(path: Path, reason: str) -> str:
    return t("{path} is damaged ({reason}); planner fit --reset starts again from the default "
             "parameters", path=path, reason=reason)


FIRST_FIT_AT = 200


def fit_hint(reviews: int, memory: Memory) -> str | None:
    """`planner due`'s line suggesting a fit: the counting reviews have doubled since the last
    fit, or reached 200 with none; None otherwise."""
    if memory.parameters is None or memory.reviews is None:
        if reviews < FIRST_FIT_AT:
            return None
        return t("You have {reviews:,} reviews and no memory model fitted to them yet: planner "
                 "fit fits FSRS to how you remember.", reviews=reviews)
    # The log's own reviews at the last fit (an Anki history does not grow with the log).
    before = memory.reviews
    sources = memory.data.get("sources")
    if type(sources) is list:
        counts = [source.get("reviews") for source in sources
                  if type(source) is dict and source.get("kind") == "log"]
        if counts and type(counts[0]) is int and counts[0] >= 0:
            before = counts[0]
    if reviews < max(2 * before, FIRST_FIT_AT):
        return None
    return t("Your reviews have doubled since the last fit ({before:,} then, {reviews:,} now): "
             "planner fit fits FSRS to them again.", before=before, reviews=reviews)
