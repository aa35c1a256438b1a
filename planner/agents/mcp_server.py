"""`planner mcp`: the Model Context Protocol over stdio, with the official `mcp` package's
low-level server (README "planner for other agents"). The one module that imports `mcp`.

The low-level server, not MCPServer: MCPServer checks and converts a tool's arguments itself
(pydantic) before the tool sees them, and here every argument must meet the run's own checks
unconverted. The tools are planner.agents.world's lookups and planner.agents.proposals' two
propose tools; nothing here saves a plan, and nothing is written outside pending/.
"""

from __future__ import annotations

import datetime as _dt
import json
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.lowlevel
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from planner import __version__
from planner.agents import proposals, staged
from planner.agents.world import LOOKUPS, World, answer, answer_text, rejected
from planner.base.i18n import t
from planner.base.storage import remove_empty_dir

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

    from planner.base.config import Config
    from planner.notes.catalog import Catalog

INSTRUCTIONS = (
    "planner plans the review of the person's study notes. The lookups only read. "
    "propose_study_plan and propose_review_plan check a plan exactly as planner does and, when "
    "it passes, stage it: nothing is saved until the person runs the `confirm` command the "
    "answer gives, in their own terminal, and types SAVE there.")


class Home:
    """The home served: its notes read once, on the first call; the rest read at each call."""

    def __init__(self, home: Path, config: Config) -> None:
        self.home, self.config = home, config
        self._catalog: Catalog | None = None
        self.lock = threading.Lock()  # one call at a time touches the notes and the week

    def world(self) -> World:
        """The home for one call (the notes loaded on the first)."""
        if self._catalog is None:
            from planner.notes.catalog import load_catalog

            self._catalog = load_catalog(self.home, self.config.notes_dir, self.config.file)
        return World(self.home, self.config, self._catalog, _dt.date.today())


def tools() -> list[types.Tool]:
    """Every tool, lookups first: read-only ones say so; the propose tools stage a file."""
    listed = [types.Tool(name=lookup.name, description=lookup.description,
                         input_schema=lookup.input_schema,
                         annotations=types.ToolAnnotations(read_only_hint=True,
                                                           open_world_hint=False))
              for lookup in LOOKUPS]
    for name, (description, schema) in proposals.schemas().items():
        listed.append(types.Tool(name=name, description=description, input_schema=schema,
                                 annotations=types.ToolAnnotations(
                                     read_only_hint=False, destructive_hint=False,
                                     idempotent_hint=False, open_world_hint=False)))
    return listed


def call(home: Home, name: str, arguments: dict[str, Any] | None,
         client: tuple[str | None, str | None]) -> tuple[dict[str, Any], bool]:
    """One tool call, as a run answers it: the answer and whether it is an error."""
    # The run's checks read the arguments as the JSON text a model sends.
    text = json.dumps({} if arguments is None else arguments, ensure_ascii=False)
    with home.lock:
        world = home.world()
        for lookup in LOOKUPS:
            if lookup.name == name:
                return answer(lookup, world, text)
        if name in proposals.KINDS:
            return proposals.propose(world, name, text, client)
    names = ", ".join([*(lookup.name for lookup in LOOKUPS), *proposals.KINDS])
    return rejected(t("{name} is not a tool offered here (only {names})",
                      name=json.dumps(name, ensure_ascii=True)[:60], names=names)), True


def _client(context: ServerRequestContext) -> tuple[str | None, str | None]:
    """The client's name and version from the handshake (None when it gave none)."""
    params = getattr(context.session, "client_params", None)
    info = None if params is None else params.client_info
    return staged.client_of(getattr(info, "name", None), getattr(info, "version", None))


def server(home: Home) -> Server:
    """The server: its tools listed, each call run in a worker thread (the loop keeps reading)."""

    async def list_tools(context: ServerRequestContext,
                         params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools())

    async def call_tool(context: ServerRequestContext,
                        params: types.CallToolRequestParams) -> types.CallToolResult:
        client = _client(context)
        done: list[tuple[dict[str, Any], bool]] = []

        def work() -> None:
            done.append(call(home, params.name, params.arguments, client))

        try:
            await anyio.to_thread.run_sync(work)
            # A cancellation that came while the thread ran is delivered here, before answering.
            await anyio.lowlevel.checkpoint_if_cancelled()
        except BaseException:
            # Cancelled (the client went away or gave up) once the call had finished: a
            # proposal it will never hear of is not left staged.
            _take_back(home, done)
            raise
        result, failed = done[0]
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=answer_text(result))],
            structured_content=result, is_error=failed)

    return Server("planner", version=__version__, instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool)


def _take_back(home: Home, done: list[tuple[dict[str, Any], bool]]) -> None:
    for result, _failed in done:
        if result.get("status") == "pending":
            try:
                staged.drop(home.home, str(result["id"]))
            except OSError:
                pass
            remove_empty_dir(staged.folder(home.home))


def serve(home: Path, config: Config) -> None:
    """Serve MCP on stdin and stdout until the client closes them."""
    served = server(Home(home, config))

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await served.run(read_stream, write_stream, served.create_initialization_options())

    anyio.run(main)
