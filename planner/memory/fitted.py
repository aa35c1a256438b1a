"""The memory model fitted to the person: `memory.json` in the home (SPEC 24).

`{"version": 1, "parameters": [21 numbers] | null, ...}`, written atomically (a temporary file,
fsync, rename), read through the one strict JSON reader and checked field by field. Whatever
builds a schedule from the home (planner.memory.review_memory.ReviewMemory) reads the parameters
here, so `due`, `done`, the SAVE screen, `due_notes` and `week` all use the fitted ones.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import NamedTuple

from planner.base import storage, strictjson
from planner.base.i18n import t
from planner.base.oserrors import os_reason

MEMORY_NAME = "memory.json"
MEMORY_VERSION = 1
PARAMETER_COUNT = 21
MAX_MEMORY_BYTES = 256 * 1024


class MemoryFileError(Exception):
    """memory.json cannot be read or written; str() is the one line for the person."""


class Memory(NamedTuple):
    """What memory.json holds: `parameters` None means the defaults; `data` the whole file."""

    parameters: tuple[float, ...] | None
    reviews: int | None  # the counting reviews of the last fit (None: no fit)
    data: dict


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
    parameters = data.get("parameters")
    if parameters is None:
        return Memory(None, None, data)
    if not valid_parameters(parameters):
        raise MemoryFileError(_damaged(path, t("its parameters are not 21 finite numbers")))
    reviews = data.get("reviews")
    count = reviews if type(reviews) is int and reviews >= 0 else None
    return Memory(tuple(float(value) for value in parameters), count, data)


def valid_parameters(parameters: object) -> bool:
    """21 finite numbers (the FSRS-6 parameters)."""
    return (type(parameters) is list and len(parameters) == PARAMETER_COUNT
            and all(type(value) in (int, float) and math.isfinite(value)
                    for value in parameters))


def write_memory(home: str | os.PathLike[str], data: dict) -> None:
    """Replace memory.json with `data` all at once; MemoryFileError with the file as it was."""
    path = memory_path(home)
    try:
        storage.write_atomic(path, storage.to_json(data, indent=2))
    except OSError as error:
        raise MemoryFileError(t("could not write {path} ({reason}); it is as it was", path=path,
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
