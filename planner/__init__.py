"""planner: a model proposes a review plan, the program checks it, a person confirms it."""

__version__ = "0.1.0"
