"""The plan store: the one place a plan file is saved.

A plan is written once, exclusively and durably, never over another (README "Live mode"). Two
runs in one home may confirm plans for the same time at once: the plans folder is locked
(`flock` on the folder itself, so no lock file shows up among the plans) around the caller's
last check against the plans saved meanwhile and the write, and only there. A check that fails
raises, the lock is let go, and nothing is written.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from planner.base import storage


def _no_check() -> None:
    """Nothing to check again: the plan is written as it is."""


def save_plan(target: Path, content: bytes, check: Callable[[], None] = _no_check) -> None:
    """Write `content` as the new plan file `target`, after `check()`, both under the lock.

    `check` reads the saved plans again and raises when the plan no longer fits (whatever it
    raises comes out of here, with nothing written). OSError when the folder cannot be made or
    locked or the file cannot be written (then nothing partial is left, and nothing is ever
    overwritten).
    """
    storage.ensure_dir(target.parent)
    with locked(target.parent):
        check()
        storage.create_exclusive(target, content)


@contextmanager
def locked(folder: Path) -> Iterator[None]:
    """The plans folder locked against every other run's save, for the `with` block only."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # waits for another run's check and write to end
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
