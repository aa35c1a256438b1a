"""How a command ends, in one place: the error family's line and its exit code.

Commands raise (or let rise) a member of planner.base.errors; `said` prints its one line and
gives its code, for the command group (planner.cli.app) and for what rises before a command.
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import NoReturn

import typer

from planner import ui
from planner.base.errors import Failure, Interrupted, PlannerError, UsageError
from planner.base.oserrors import os_reason
from planner.records import status


def said(failure: PlannerError) -> int:
    """A failure of the family said in its one line; its exit code."""
    ui.error(str(failure))
    return failure.exit_code


def exit_usage(message: str) -> NoReturn:
    """What was asked cannot be done as asked: its one line, exit 2."""
    raise UsageError(message)


def exit_failed(error: object) -> NoReturn:
    """A command that failed: its one line, exit 1."""
    raise Failure(str(error))


@contextmanager
def interrupted(line: str) -> Iterator[None]:
    """Ctrl+C within the block ends the command with `line` (what was left as it was), 130."""
    try:
        yield
    except KeyboardInterrupt:
        raise Interrupted(line) from None


@contextmanager
def failing_on_os(line: Callable[[str], str]) -> Iterator[None]:
    """An OSError within the block ends the command with `line(reason)`, exit 1."""
    try:
        yield
    except OSError as error:
        raise Failure(line(os_reason(error))) from None


def ended(code: int = status.EXIT_OK) -> NoReturn:
    """The command ends here with `code`, its lines said already (help, a run's own end)."""
    raise typer.Exit(code)
