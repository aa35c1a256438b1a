"""planner: a model proposes a review plan, the program checks it, a person confirms it."""

import gc as _gc
import sys as _sys

__version__ = "0.1.0"

# Started as the `planner` command: no cyclic garbage collection while its modules load (their
# objects live to the end anyway, and each full collection over them costs milliseconds at every
# start). planner.cli.app.main freezes them and turns collection back on before the command runs.
if _sys.argv and _sys.argv[0].rsplit("/", 1)[-1] == "planner":
    _gc.disable()
