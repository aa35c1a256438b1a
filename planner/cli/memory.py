"""A memory model fitted to the person (README "A memory fitted to you"): planner fit and planner
forecast.

The fit and the simulation are planner.memory.fit (fsrs-rs-python, imported only there and only
by these two commands), Anki's history planner.memory.anki, memory.json planner.memory.memory_file,
the days ahead planner.memory.forecast; the screens are planner.ui.memory_reports.
"""

import datetime as _dt
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from planner import ui
from planner.base.i18n import t
from planner.cli.common import (
    ConfigOption,
    HomeOption,
    JsonFlag,
    open_workspace,
    say_warnings,
)
from planner.cli.exits import exit_failed, exit_usage

if TYPE_CHECKING:
    from planner.base.config import Config
    from planner.memory.fit import Fit

RATING_NUMBERS = {"again": 1, "hard": 2, "good": 3, "easy": 4}


def fit_command(
    ctx: typer.Context,
    anki: Annotated[
        list[Path] | None,
        typer.Option("--anki", metavar="FILE",
                     help="Also fit to an Anki package (.apkg, .colpkg) or collection.anki2 "
                     "(repeat for more); it is only read."),
    ] = None,
    reset: Annotated[
        bool, typer.Option("--reset", help="Go back to FSRS's default parameters.")
    ] = False,
    as_json: JsonFlag = False,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """Fit FSRS's memory model to your reviews (and your Anki history), and use the fitted
    parameters only when they predict your later reviews better than the ones in use.

    Example: planner fit --anki ~/collection.colpkg
    """
    from planner.memory import fit as fitting
    from planner.memory import log as review_log
    from planner.memory import memory_file

    workspace = open_workspace(ctx, home, config_path)
    folder = workspace.home
    if reset:
        if anki:
            exit_usage(t("--reset takes no --anki"))
        _reset(folder, as_json)
        return
    # A damaged memory.json (MemoryFileError, exit 2) or an unreadable log (ReviewLogError,
    # exit 1) rises, said by planner.cli.app.
    memory = memory_file.read_memory(folder)
    future: list[_dt.datetime] = []  # reviews dated after now: never fitted on (one warning)
    log = review_log.read_log(folder, future=future)
    say_warnings(log.warnings)
    counted = review_log.effective_reviews(log.events)
    undone = sum(1 for event in log.events if type(event) is review_log.Review) - len(counted)
    reviews: list[tuple[object, _dt.datetime, int]] = [
        (("log", review.note_id), review.reviewed_at, RATING_NUMBERS[review.rating])
        for review in counted]
    skipped_lines = {"undone": undone, "unreadable": len(log.warnings) - bool(future)}
    if future:
        skipped_lines["future"] = len(future)
    sources: list[dict[str, Any]] = [{"kind": "log", "name": review_log.LOG_NAME,
                                      "reviews": len(counted), "skipped": skipped_lines}]
    reviews += _anki_reviews(anki or [], sources)
    total = len(reviews)
    if total < fitting.MIN_REVIEWS:
        _refused(t("{count} counting reviews; a fit needs at least {least}: {more} more. Nothing "
                   "was changed.", count=total, least=fitting.MIN_REVIEWS,
                   more=fitting.MIN_REVIEWS - total), total, sources, as_json)
        return
    in_use = list(memory.parameters) if memory.parameters is not None else \
        fitting.default_parameters()
    items = fitting.training_items(fitting.by_card(reviews))
    result = fitting.fit_or_refusal(items, in_use)
    if isinstance(result, str):
        _refused(result, total, sources, as_json)
        return
    adopted, reason = _decide(result)
    record = {"version": memory_file.MEMORY_VERSION, "parameters": [round(value, 6) for value in
                                                              result.parameters],
              "fitted_at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds").replace(
                  "+00:00", "Z"),
              "reviews": total, "sources": sources,
              "log_loss": round(result.new.log_loss, 6),
              "rmse_bins": round(result.new.rmse_bins, 6),
              "previous": {"log_loss": round(result.old.log_loss, 6),
                           "rmse_bins": round(result.old.rmse_bins, 6)}}
    if adopted:
        memory_file.write_memory(folder, record)  # a write that fails rises: exit 1
    if as_json:
        ui.print_json({**record, "adopted": adopted, "reason": reason})
        return
    ui.fit_report(record, memory.parameters is not None, adopted, reason)


def _refused(line: str, total: int, sources: list[dict[str, Any]], as_json: bool) -> None:
    """A fit that was not made: its line; with --json, JSON on stdout and the line on stderr."""
    if as_json:
        ui.print_json({"adopted": False, "reason": line, "reviews": total, "sources": sources})
        ui.notice(line)
    else:
        ui.info(line)


def _decide(result: "Fit") -> tuple[bool, str]:
    """Whether the fitted parameters are adopted, and why (one line)."""
    from planner.memory.schedule import check_parameters

    new, old = result.new, result.old
    refused = check_parameters(result.parameters)
    if refused is not None:
        return False, t("fsrs cannot schedule with the fitted parameters ({reason}); the ones "
                        "in use stay", reason=refused)
    if new.log_loss < old.log_loss and new.rmse_bins < old.rmse_bins:
        return True, t("both out-of-sample scores are lower: the fitted parameters are used "
                       "from now on")
    if new.log_loss >= old.log_loss and new.rmse_bins >= old.rmse_bins:
        metrics = t("log loss and RMSE(bins)")
    else:
        metrics = t("log loss") if new.log_loss >= old.log_loss else t("RMSE(bins)")
    return False, t("the fitted parameters are not better on {metrics}; the ones in use stay",
                    metrics=metrics)


def _anki_reviews(files: list[Path], sources: list[dict[str, Any]]
                  ) -> list[tuple[object, _dt.datetime, int]]:
    """Every counting review of the Anki files; a damaged or foreign file ends the command
    (exit 2, nothing changed)."""
    if not files:
        return []
    from planner.memory import anki

    found: list[tuple[object, _dt.datetime, int]] = []
    for number, path in enumerate(files):
        history = anki.history_for_fit(path)  # a file it cannot read: UsageError, exit 2
        found += [(("anki", number, review.card), review.reviewed_at, review.rating)
                  for review in history.reviews]
        skipped = {key: value for key, value in history.skipped.items()
                   if value or key != "bad_time"}
        if history.skipped.get("bad_time"):
            ui.notice(t("Warning: {file}: {count} reviews at the edge of the calendar were "
                        "skipped", file=history.name, count=history.skipped["bad_time"]))
        if history.skipped.get("future"):
            ui.notice(t("Warning: {file}: {count} reviews dated more than a day after now were "
                        "skipped; they do not count (is a clock wrong?)", file=history.name,
                        count=history.skipped["future"]))
        sources.append({"kind": "anki", "name": history.name, "reviews": len(history.reviews),
                        "skipped": skipped})
    return found


def _reset(folder: Path, as_json: bool) -> None:
    from planner.memory import memory_file

    previous_data: dict[str, Any] = {}
    with suppress(memory_file.MemoryFileError):  # nothing of a damaged file is kept
        previous_data = memory_file.read_memory(folder).data
    previous = {key: previous_data[key] for key in ("log_loss", "rmse_bins", "parameters",
                                                     "fitted_at")
                if key in previous_data}
    record = {"version": memory_file.MEMORY_VERSION, "parameters": None,
              "reset_at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds").replace(
                  "+00:00", "Z"),
              "previous": previous}
    memory_file.write_memory(folder, record)  # a write that fails rises: exit 1
    reason = t("back to FSRS's default parameters")
    if as_json:
        ui.print_json({**record, "adopted": False, "reason": reason})
        return
    ui.info(t("Reset: due dates use FSRS's default parameters again ({file} keeps the last "
              "fit under previous).", file=memory_file.MEMORY_NAME))


def _anki_rows(config: "Config", rows: list[dict[str, Any]], today: _dt.date, days: int) -> None:
    """Each day's Anki cards and minutes in `rows` when anki_collection is set (null, and one
    warning, when it cannot be read)."""
    from planner.memory.anki_load import collection_path, read_load

    collection = collection_path(config)
    if collection is None:
        return
    anki = read_load(collection, today, today + _dt.timedelta(days=days - 1), today)
    if anki.warning:
        ui.notice(anki.warning)
    for row in rows:
        load = anki.days.get(_dt.date.fromisoformat(str(row["date"])))
        row["anki_cards"] = None if anki.warning else 0 if load is None else load.cards
        row["anki_minutes"] = None if anki.warning else 0 if load is None else load.minutes


def forecast_command(
    ctx: typer.Context,
    days: Annotated[
        int, typer.Option("--days", "-d", min=1, max=365,
                          help="How many days ahead, today included (1-365, default 30).")
    ] = 30,
    retention: Annotated[
        str | None,
        typer.Option("--retention", metavar="R[,R...]",
                     help="Also simulate these desired retentions (each 0.70-0.99), to help "
                     "choose desired_retention."),
    ] = None,
    as_json: JsonFlag = False,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """The reviews and minutes due on each of the next days, as a bar chart; with --retention,
    a simulation of each desired retention.

    Example: planner forecast --days 14 --retention 0.85,0.9,0.95
    """
    from planner.memory import forecast
    from planner.memory.review_memory import ReviewMemory
    from planner.notes.catalog import load_catalog

    wanted = forecast.retentions(retention)  # a UsageError rises: exit 2
    workspace = open_workspace(ctx, home, config_path)
    folder, config = workspace.home, workspace.config()
    # A NotesError (exit 2) or a FitError (exit 1) rises, said by planner.cli.app.
    catalog = load_catalog(folder, config.notes_dir, config.file)
    try:
        memory = ReviewMemory(folder, catalog, config.desired_retention)
        memory.memory()
        if memory.problem is not None:
            exit_failed(memory.problem)
        say_warnings(memory.log_warnings())
        today = _dt.date.today()
        titles = memory.titles()
        minutes = forecast.minutes_per_review(memory.memory().minutes)
        rows = forecast.days_ahead(memory.schedules(), titles, today, days, minutes)
        simulation = []
        if wanted:
            from planner.memory import fit as fitting

            parameters = memory.parameters() or fitting.default_parameters()
            for value in wanted:
                result = fitting.simulate(parameters, value, days, max(1, len(titles)),
                                          minutes * 60)
                simulation.append({"retention": value,
                                   "reviews_per_day": round(result.reviews_per_day, 1),
                                   "minutes_per_day": round(result.minutes_per_day, 1),
                                   "memorised": round(result.memorised, 1)})
    finally:
        catalog.close()
    from planner.base.days import read_date
    from planner.memory.marking import quiet_marks
    from planner.plans.store import minutes_by_day

    planned = minutes_by_day(folder, today, quiet_marks(folder))
    for row in rows:
        row["planned_minutes"] = planned.get(read_date(str(row["date"])), 0)
    _anki_rows(config, rows, today, days)
    if as_json:
        ui.print_json({"days": rows, "simulation": simulation})
        return
    ui.forecast_chart(rows, today, minutes)
    if simulation:
        ui.simulation_table(simulation, days, config.desired_retention)
