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
