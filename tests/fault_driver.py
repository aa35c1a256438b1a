"""Runs `planner` in this process with a fault planted: kill itself at a named point.

Usage: python fault_driver.py '{"answer": "SAVE", "kill": "after-intent"}' -- --demo ...
Used by the fault tests to SIGKILL a run at exact steps, without any hook in planner itself.
"""

from __future__ import annotations

import json
import os
import signal
import sys


def die() -> None:
    """SIGKILL: no cleanup, no finally blocks, exactly like a crash or `kill -9`."""
    os.kill(os.getpid(), signal.SIGKILL)


def plant(spec: dict) -> None:
    """Replace the decision with a fixed answer and wrap the step where the run must die."""
    from planner import ui
    from planner.base import storage
    from planner.model import client as model
    from planner.records import run_record as records
    from planner.ui.conversation import SAVE_PROMPT

    answer = spec.get("answer")
    read_line = ui.read_tty_line

    def answered(prompt: str, discard_typed_ahead: bool = False) -> str | None:
        # The SAVE prompt gets the planted answer; any later prompt (feedback) gets Enter.
        return f"{answer}\n" if prompt.endswith(SAVE_PROMPT) else "\n"

    if answer is not None:
        ui.read_tty_line = answered
        ui.read_edited_line = lambda prompt, **_: "\n"  # the edited prompts: Enter
        ui.has_terminal = lambda: True
    kill = spec.get("kill")
    calls = {"n": 0}
    complete = model.ScriptedClient.complete
    live_complete = model.LiveClient.complete

    def counted(original):
        def wrapper(self, body):
            calls["n"] += 1
            if kill == f"during-call-{calls['n']}":
                die()
            return original(self, body)
        return wrapper

    model.ScriptedClient.complete = counted(complete)
    model.LiveClient.complete = counted(live_complete)
    if kill == "at-prompt":
        def die_at_save(prompt: str, discard_typed_ahead: bool = False) -> str | None:
            return die() if prompt == SAVE_PROMPT else read_line(prompt, discard_typed_ahead)

        ui.read_tty_line = die_at_save
    save = records.RunRecord.save

    def save_then_maybe_die(self, **changes):
        save(self, **changes)
        if kill == "after-intent" and self.summary.stage == "executing" and \
                self.summary.tool_result is None:
            die()

    records.RunRecord.save = save_then_maybe_die
    create = storage.create_exclusive

    def create_then_maybe_die(path, data):
        create(path, data)
        if kill == "after-plan-write":
            die()

    storage.create_exclusive = create_then_maybe_die


def main() -> None:
    spec = json.loads(sys.argv[1])
    assert sys.argv[2] == "--"
    plant(spec)
    from planner.cli.app import app

    app(args=sys.argv[3:], prog_name="planner")


if __name__ == "__main__":
    main()
