"""stdout that never raises, for planner.cli.app's main (README "A screen you can trust")."""

import os
from typing import Any, TextIO


class Output:
    """stdout that never raises: the first write error is kept, later output dropped."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.failure: OSError | None = None
        self.written = False  # whether anything was written: a --json failure writes JSON

    def write(self, text: str) -> int:
        self.written = self.written or bool(text)
        if self.failure is None:
            try:
                return self.stream.write(text)
            except OSError as error:
                self.lost(error)
        return len(text)

    def flush(self) -> None:
        if self.failure is None:
            try:
                self.stream.flush()
            except OSError as error:
                self.lost(error)

    def lost(self, error: OSError) -> None:
        self.failure = error
        # Descriptor 1 becomes /dev/null: what is still buffered, and the interpreter's
        # own flush at exit, go nowhere instead of failing a second time.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self.stream.fileno())
            os.close(devnull)
        except (OSError, ValueError):
            pass

    def __getattr__(self, name: str) -> Any:
        # isatty, fileno, encoding, buffer, ...: Rich and the JSON writers see the stream.
        return getattr(self.stream, name)
