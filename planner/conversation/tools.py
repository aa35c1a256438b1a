"""The tool registry: each tool's schema, its strict argument check, and how it runs."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

# Every result sent back to the model for a lookup is at most this long (README "Your notes").
MAX_RESULT_BYTES = 4096
# One reply may ask for at most this many lookups, whose results add up to at most this many
# bytes (README "A screen you can trust"), so no reply can grow the next request without bound.
MAX_LOOKUPS_PER_REPLY = 10
MAX_TURN_RESULT_BYTES = 16 * 1024


class Tool(NamedTuple):
    """One tool the model may call.

    `check` turns the raw `arguments` text into checked arguments or raises
    plan.InvalidArguments naming the field and the rule; nothing is ever converted.
    `run` executes a read-only lookup on checked arguments and returns a JSON-able result;
    it is None for the tool that needs the person's confirmation (the flow runs that one).
    """

    name: str
    schema: dict[str, Any]
    check: Callable[[object], Any]  # the tool's own checked-arguments type
    needs_confirmation: bool = False
    run: Callable[[Any], dict[str, Any]] | None = None


class Registry:
    """The tools offered in one run, by name, in the order they are offered."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self.tools = tuple(tools)
        self._by_name = {tool.name: tool for tool in self.tools}
        if len(self._by_name) != len(self.tools):
            raise ValueError("two tools share a name")

    def definitions(self) -> list[dict[str, Any]]:
        """The `tools` entries of a Chat Completions request."""
        return [tool.schema for tool in self.tools]

    def get(self, name: object) -> Tool | None:
        """The tool called `name`, or None for a name that is not offered."""
        return self._by_name.get(name) if isinstance(name, str) else None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._by_name)
