"""Your notes and your home: planner notes and planner where."""

from typing import Annotated, Any

import typer

from planner import ui
from planner.base.i18n import t
from planner.cli.common import (
    HOME_ENV,
    ConfigOption,
    HomeOption,
    JsonFlag,
    Workspace,
    open_workspace,
)

# --- Your notes: planner notes -------------------------------------------------------------------
# planner.notes.catalog is imported inside the command; it opens the index (sqlite3) and reads front
# matter (yaml) only for a notes folder, so --help, --dry-run and --demo never load them.

NOTES_TABLE_LIMIT = 50  # notes listed in a table without QUERY
NOTES_MATCHES = 10  # best matches shown for a QUERY, table or JSON


def notes_command(
    ctx: typer.Context,
    query: Annotated[
        str | None,
        typer.Argument(help="Words to search for, Chinese or English (every word must appear); "
                       "without it, the notes are listed."),
    ] = None,
    as_json: JsonFlag = False,
    limit: Annotated[
        int | None,
        typer.Option("--limit", "-L", min=0, help="How many notes (default: 50 in the table "
                     "and all with --json; with QUERY the best 10; 0: all)."),
    ] = None,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """List your notes (ID, title, tags, file), or search them: best matches with a snippet.

    Example: planner notes 检索 --limit 5
    """
    from planner.notes.catalog import check_query, load_catalog

    workspace = open_workspace(ctx, home, config_path)
    folder, config = workspace.home, workspace.config()
    check_query(query)  # a UsageError rises: exit 2
    if limit is not None:
        shown = limit or None
    elif query is not None:
        shown = NOTES_MATCHES
    else:
        shown = None if as_json else NOTES_TABLE_LIMIT
    # A NotesError rises: it is a UsageError (exit 2), said by planner.cli.app.
    catalog = load_catalog(folder, config.notes_dir, config.file, ui.indexing_progress())
    try:
        rows, total = catalog.rows(query, shown)
    finally:
        catalog.close()
    for line in catalog.warnings:
        ui.notice(t("Warning: {warning}", warning=line))
    if as_json:
        ui.print_json_lines(rows)
    else:
        where = {"samples": t("the built-in samples"),
                 "notes.json": str(folder / "notes.json")}
        ui.notes_table(rows, total, where.get(catalog.source)
                       or f"{getattr(catalog, 'folder', folder)}/", query)


# --- Where everything is: planner where (README "Going on with a conversation")
# -----------------------------------------------


def where_command(
    ctx: typer.Context,
    as_json: JsonFlag = False,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """Show the home folder in use and which rule chose it, the config file, where the notes
    come from, the notes index, the busy calendars (whether each can be read, how many all-day
    events count), the goals and the memory model in use. Reads no note, asks no server, and
    creates nothing.

    Example: planner where --json
    """
    import os

    from planner.base.config import DEFAULT_CONFIG_FILE
    from planner.base.config_problems import config_or_problem
    from planner.calendar.busy_places import busy_place
    from planner.memory.memory_file import memory_in_use
    from planner.notes.catalog import INDEX_FOLDER, notes_source
    from planner.notes.index import INDEX_FILE

    workspace = open_workspace(ctx, home, config_path)
    folder = workspace.home
    config_file = workspace.config_path or folder / DEFAULT_CONFIG_FILE
    config_exists = os.path.lexists(config_file)
    problem = None
    config = None
    if config_exists or workspace.config_path is not None:
        config, problem = config_or_problem(config_file, folder)
    notes_dir = None if config is None else config.notes_dir
    source, notes_path = notes_source(folder, notes_dir, str(config_file))
    index = folder / INDEX_FOLDER / INDEX_FILE
    report = {
        "home": os.path.abspath(folder),
        "home_exists": folder.is_dir(),
        "rule": workspace.rule,
        "why": _home_why(workspace),
        # The data folder, when it has a config.json the current folder's home leaves unused.
        "other_home": _other_home(workspace),
        "config": os.path.abspath(config_file),
        "config_exists": config_exists,
        "config_problem": problem,
        "notes_source": source,
        "notes": None if notes_path is None else os.path.abspath(notes_path),
        "notes_exists": None if notes_path is None else os.path.lexists(notes_path),
        "index": os.path.abspath(index),
        "index_exists": os.path.lexists(index),
        "busy_calendars": [busy_place(source, folder) for source in
                           (() if config is None else config.busy_calendars)],
        "memory": memory_in_use(folder),
    }
    # Goals, when this config has them (the key is newer than this command).
    goals = getattr(config, "goals", None)
    if goals is not None:
        report["goals"] = [_goal(goal) for goal in goals]
    if as_json:
        ui.print_json(report)
    else:
        ui.where_report(report)


def _goal(goal: object) -> dict[str, Any]:
    """A goal of the config as where lists it: name, date and how many note selectors."""
    def field(name: str) -> Any:
        return goal.get(name) if isinstance(goal, dict) else getattr(goal, name, None)

    date, notes, retention = field("date"), field("notes"), field("retention")
    return {"name": str(field("name")), "date": None if date is None else str(date),
            "selectors": len(notes) if isinstance(notes, (list, tuple)) else None,
            "retention": retention if isinstance(retention, (int, float)) else None}


def _other_home(workspace: Workspace) -> str | None:
    import os

    from planner.base.home import Home, markers_in, other_home

    found = other_home(Home(workspace.home, workspace.rule, markers_in(workspace.home)))
    return None if found is None else os.path.abspath(found)


def _home_why(workspace: Workspace) -> str:
    """In words, the rule that chose the home (and the other home it leaves unused)."""
    from planner.base.home import MARKERS, markers_in

    if workspace.rule == "option":
        return t("given with --home")
    if workspace.rule == "env":
        return t("given by {variable}", variable=HOME_ENV)
    if workspace.rule == "current":
        found = ", ".join(_marker_name(name) for name in markers_in(workspace.home))
        other = _other_home(workspace)
        if other is not None:
            return t("the current folder is a planner home (it holds {found}); your data folder "
                     "{data} has a config.json too: planner --home {data} uses that one",
                     found=found, data=other)
        return t("the current folder is a planner home (it holds {found})", found=found)
    markers = ", ".join(_marker_name(name) for name in MARKERS)
    return t("your data folder: no --home, no {variable}, and the current folder is not a "
             "planner home (it holds none of {markers})", variable=HOME_ENV, markers=markers)


def _marker_name(name: str) -> str:
    return name if "." in name else f"{name}/"

