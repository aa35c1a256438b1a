"""The program's failures as a small family: each carries its one line and its exit code.

A module raises the member that fits; the command line turns any of them into the line and the
exit code in one place (planner.cli.exits' `said()`, used by the command group for every command
and by `main` for what rises before one), so no command has to catch them one by one.
"""


class PlannerError(Exception):
    """A failure planner explains in one line (str()); `exit_code` says how the command ends."""

    exit_code = 1


class UsageError(PlannerError):
    """What was asked cannot be done as asked (a value, a file, a name to correct): exit 2."""

    exit_code = 2


class Failure(PlannerError):
    """What was asked could not be carried out (a file, a folder, a log, a server): exit 1."""

    exit_code = 1


class Interrupted(PlannerError):
    """Ctrl+C stopped what was asked; the line says what was left as it was: exit 130."""

    exit_code = 130
