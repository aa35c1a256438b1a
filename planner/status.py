"""Run status names and exit codes, defined once for the flow, the records and the edge."""

# Recorded in summary.json by the flow.
RUNNING = "running"
COMPLETE = "complete"
NO_TOOL = "no_tool"
STOPPED = "stopped"
BUDGET_EXHAUSTED = "budget_exhausted"

# Derived when reading records back (never recorded).
INTERRUPTED = "interrupted"
DAMAGED = "damaged"

# What a person reads for each status (internal names stay in the records and --json).
WORDS = {
    RUNNING: "running",
    COMPLETE: "complete",
    NO_TOOL: "no plan proposed",
    STOPPED: "stopped",
    BUDGET_EXHAUSTED: "call limit reached",
    INTERRUPTED: "interrupted",
    DAMAGED: "damaged",
}

# What became of a run's plan (tool_result.status), when that is the news.
SAVED = "saved"
CANCELLED = "cancelled"


def run_word(state: str, result: str | None, approved: bool | None) -> str:
    """One run in one word (or a few), the same in `planner runs`, `show` and `costs`.

    `state` is the status to show (derived: a dead `running` run is `interrupted`), `result`
    the status of its tool_result, `approved` the person's decision. A finished run says what
    became of its plan, `saved` or `cancelled`, rather than `complete`; a run that stopped
    after saving says `saved, then stopped`.
    """
    if state == COMPLETE:
        if result == SAVED or result == CANCELLED:
            return result
        return CANCELLED if approved is False else WORDS[COMPLETE]
    word = WORDS.get(state, state)
    # Stopped after the write (the explanation failed, or Ctrl+C): the plan is on disk.
    return f"{SAVED}, then {word}" if result == SAVED and state != RUNNING else word


# What an unfinished run was doing, by the `stage` recorded in summary.json (flow.py and
# records.py write the names): `planner show` says "stopped while asking the model".
STAGE_WORDS = {
    "requesting": "asking the model",
    "explaining": "asking the model to explain the result",
    "answering": "waiting for your answer",
    "confirming": "waiting for you to type SAVE",
    "executing": "saving the plan",
}

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
