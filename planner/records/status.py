"""Run status names and exit codes, defined once for the flow, the records and the edge."""

from planner.base.i18n import t

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
    RUNNING: t("running"),
    COMPLETE: t("complete"),
    NO_TOOL: t("no plan proposed"),
    STOPPED: t("stopped"),
    BUDGET_EXHAUSTED: t("call limit reached"),
    INTERRUPTED: t("interrupted"),
    DAMAGED: t("damaged"),
}

# What became of a run's plan (tool_result.status), when that is the news.
SAVED = "saved"
CANCELLED = "cancelled"
# A run that stopped after saving, each line whole so the screen finds it in the catalog.
_SAVED_THEN = {
    NO_TOOL: t("saved, then no plan proposed"),
    STOPPED: t("saved, then stopped"),
    BUDGET_EXHAUSTED: t("saved, then call limit reached"),
    INTERRUPTED: t("saved, then interrupted"),
    DAMAGED: t("saved, then damaged"),
}
# The words a person reads for the plan's fate (the constants above are recorded as they are).
_RESULT_WORDS = {SAVED: t("saved"), CANCELLED: t("cancelled")}


def run_word(state: str, result: str | None, approved: bool | None) -> str:
    """One run in one word (or a few), the same in `planner runs`, `show` and `costs`.

    `state` is the status to show (derived: a dead `running` run is `interrupted`), `result`
    the status of its tool_result, `approved` the person's decision. A finished run says what
    became of its plan, `saved` or `cancelled`, rather than `complete`; a run that stopped
    after saving says `saved, then stopped`.
    """
    if state == COMPLETE:
        if result == SAVED or result == CANCELLED:
            return _RESULT_WORDS[result]
        return _RESULT_WORDS[CANCELLED] if approved is False else WORDS[COMPLETE]
    word = WORDS.get(state, state)
    # Stopped after the write (the explanation failed, or Ctrl+C): the plan is on disk.
    if result == SAVED and state != RUNNING:
        return _SAVED_THEN.get(state) or t("saved, then {word}", word=word)
    return word


# What an unfinished run was doing, by the `stage` recorded in summary.json (flow.py and
# records.py write the names): `planner show` says "stopped while asking the model".
STAGE_WORDS = {
    "requesting": t("asking the model"),
    "explaining": t("asking the model to explain the result"),
    "answering": t("waiting for your answer"),
    "confirming": t("waiting for you to type SAVE"),
    "executing": t("saving the plan"),
}

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
