"""Your notes and your home: planner notes and planner where."""

from typing import TYPE_CHECKING, Annotated

import typer

from planner import ui
from planner.base.i18n import t
from planner.cli.common import (
    HOME_ENV,
    ConfigOption,
    HomeOption,
    JsonFlag,
    Workspace,
    _usage,
    _workspace,
)

if TYPE_CHECKING:
    pass

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
    from planner.notes.catalog import MAX_QUERY, NotesError, load_catalog

    workspace = _workspace(ctx, home, config_path)
    folder, config = workspace.home, workspace.config()
    if query is not None and not query.strip():
        _usage(t("QUERY needs some words (or leave it out to list the notes)"))
    if query is not None and len(query) > MAX_QUERY:
        _usage(t("QUERY has {count:,} characters; at most {limit} (a few words find a note)",
                 count=len(query), limit=MAX_QUERY))
    if limit is not None:
        shown = limit or None
    elif query is not None:
        shown = NOTES_MATCHES
    else:
        shown = None if as_json else NOTES_TABLE_LIMIT
    try:
        catalog = load_catalog(folder, config.notes_dir, config.file,
                               ui.indexing_progress())
        try:
            rows, total = catalog.rows(query, shown)
        finally:
            catalog.close()
    except NotesError as error:
        _usage(str(error))
    for line in catalog.warnings:
        ui.notice(t("Warning: {warning}", warning=line))
    if as_json:
        ui.print_json_lines(rows)
    else:
        where = {"samples": t("the built-in samples"),
                 "notes.json": str(folder / "notes.json")}
        ui.notes_table(rows, total, where.get(catalog.source)
                       or f"{getattr(catalog, 'folder', folder)}/", query)


# --- Where everything is: planner where (SPEC 21) -----------------------------------------------


def where_command(
    ctx: typer.Context,
    as_json: JsonFlag = False,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """Show the home folder in use and which rule chose it, the config file, where the notes
    come from and the notes index. Reads nothing but names, and creates nothing.

    Example: planner where --json
    """
    import os

    from planner.base.config import DEFAULT_CONFIG_FILE, ConfigError, load_config
    from planner.notes.catalog import INDEX_FOLDER, notes_source
    from planner.notes.index import INDEX_FILE

    workspace = _workspace(ctx, home, config_path)
    folder = workspace.home
    config_file = workspace.config_path or folder / DEFAULT_CONFIG_FILE
    config_exists = os.path.lexists(config_file)
    problem = None
    notes_dir = None
    if config_exists or workspace.config_path is not None:
        try:
            notes_dir = load_config(config_file).notes_dir
        except ConfigError as error:
            problem = str(error)
    source, notes_path = notes_source(folder, notes_dir)
    index = folder / INDEX_FOLDER / INDEX_FILE
    report = {
        "home": os.path.abspath(folder),
        "home_exists": folder.is_dir(),
        "rule": workspace.rule,
        "why": _home_why(workspace),
        "config": os.path.abspath(config_file),
        "config_exists": config_exists,
        "config_problem": problem,
        "notes_source": source,
        "notes": None if notes_path is None else os.path.abspath(notes_path),
        "notes_exists": None if notes_path is None else os.path.lexists(notes_path),
        "index": os.path.abspath(index),
        "index_exists": os.path.lexists(index),
    }
    if as_json:
        ui.print_json(report)
    else:
        ui.where_report(report)


def _home_why(workspace: Workspace) -> str:
    """In words, the rule that chose the home."""
    from planner.base.home import MARKERS, markers_in

    if workspace.rule == "option":
        return t("given with --home")
    if workspace.rule == "env":
        return t("given by {variable}", variable=HOME_ENV)
    if workspace.rule == "current":
        found = ", ".join(_marker_name(name) for name in markers_in(workspace.home))
        return t("the current folder is a planner home (it holds {found})", found=found)
    markers = ", ".join(_marker_name(name) for name in MARKERS)
    return t("your data folder: no --home, no {variable}, and the current folder is not a "
             "planner home (it holds none of {markers})", variable=HOME_ENV, markers=markers)


def _marker_name(name: str) -> str:
    return name if "." in name else f"{name}/"

