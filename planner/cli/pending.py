"""`planner mcp` and `planner pending`: the door for other agents, and the person's own terminal
where what they staged is confirmed (README "planner for other agents")."""

from __future__ import annotations

import datetime as _dt
import json
from contextlib import suppress
from typing import TYPE_CHECKING, Annotated

import typer

from planner import ui
from planner.base.errors import Interrupted
from planner.base.i18n import t
from planner.base.oserrors import os_reason
from planner.cli.common import (
    ConfigOption,
    HomeOption,
    open_workspace,
    say_warnings,
)
from planner.cli.exits import ended, exit_failed, exit_usage, failing_on_os
from planner.records import status

if TYPE_CHECKING:
    from pathlib import Path

    from planner.agents.proposals import Checked
    from planner.agents.staged import Staged
    from planner.agents.world import World
    from planner.base.config import Config
    from planner.conversation.events import ConfirmRequest
    from planner.notes.catalog import Note
    from planner.plans.plan import ReviewPlan
    from planner.plans.study import StudyPlan
    from planner.records.run_record import RunRecord
    from planner.ui.conversation import TerminalPerson


def mcp_command(ctx: typer.Context, home: HomeOption = None,
                config_path: ConfigOption = None) -> None:
    """Serve planner's lookups and its two propose tools to an agent over MCP (stdio); an
    agent starts it (claude mcp add planner -- planner mcp). It cannot save: a proposal that
    passes is staged, and you confirm it with planner pending.

    Example: planner mcp
    """
    workspace = open_workspace(ctx, home, config_path)
    config = workspace.config()  # a config error is one line, before anything is served
    from planner.agents.mcp_server import serve

    serve(workspace.home, config)


def pending_command(
    ctx: typer.Context,
    staged_id: Annotated[str | None, typer.Argument(
        metavar="[ID]", show_default=False,
        help="A staged proposal (its ID or a unique start of it): show it and save it on SAVE.")]
    = None,
    drop: Annotated[bool, typer.Option("--drop", help="Discard the staged proposal ID.")] = False,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """The proposals agents staged through planner mcp; with an ID, check one again against your
    week, show it and save it when you type SAVE.

    Example: planner pending
    """
    from planner.agents import staged

    workspace = open_workspace(ctx, home, config_path)
    folder = workspace.home
    if staged_id is None:
        if drop:
            exit_usage(t("--drop needs the ID of a staged proposal: planner pending ID --drop"))
        _list(folder)
        return
    found = staged.find(folder, staged_id)
    if found is None:
        exit_usage(t("no staged proposal {id} in {folder}; planner pending lists them",
                     id=json.dumps(staged_id, ensure_ascii=True)[:60],
                     folder=staged.folder(folder)))
    if drop:
        with failing_on_os(lambda reason: t("could not discard {id} ({reason})", id=found,
                                            reason=reason)):
            staged.drop(folder, found)
        ui.info(t("Discarded {id}; nothing was saved.", id=found))
        return
    _confirm(workspace.home, workspace.config(), found)


def _list(folder: Path) -> None:
    """Each staged proposal: its ID, when, which client, what; stale and damaged ones said."""
    from planner.agents import staged

    ids = staged.names(folder)
    if not ids:
        ui.info(t("No proposals are staged. An agent stages one through planner mcp."))
        return
    now = _dt.datetime.now(_dt.UTC)
    for staged_id in ids:
        found = staged.listed(folder, staged_id, _dt.date.today())
        if isinstance(found, str):
            ui.info(t("{id}  damaged: {problem}", id=staged_id, problem=found))
            continue
        proposal, plan = found
        name, version = proposal.client
        values = {"id": staged_id, "what": _what(plan),
                  "when": proposal.staged_at.astimezone().strftime("%Y-%m-%d %H:%M"),
                  "client": " ".join(part for part in (name, version) if part) or "?"}
        if proposal.is_stale(now):
            ui.info(t("{id}  {when}  from {client}  {what}  (stale: older than 7 days, never "
                      "saved)", **values))
        else:
            ui.info(t("{id}  {when}  from {client}  {what}", **values))
    ui.notice(t("planner pending ID shows one and saves it on SAVE; --drop discards it."))


def _what(plan: StudyPlan | ReviewPlan) -> str:
    """A staged proposal in a few words: its title and its sessions' days."""
    from planner.plans.study import StudyPlan

    title = plan.title[:60]
    if isinstance(plan, StudyPlan):
        return t("study plan {title}: {count} sessions, {first} to {last}", title=title,
                 count=len(plan.sessions), first=plan.days[0].isoformat(),
                 last=plan.days[-1].isoformat())
    return t("review plan {title} on {date}", title=title, date=plan.date.isoformat())


def _confirm(home: Path, config: Config, staged_id: str) -> None:
    """Check the staged proposal again, show it, save it on a typed SAVE."""
    from planner.agents import proposals, staged
    from planner.agents.world import World

    # Damaged, stale, or no longer fitting the week: a UsageError rises (exit 2), nothing saved.
    proposal = staged.to_confirm(home, staged_id, _dt.datetime.now(_dt.UTC))
    from planner.cli.goals import goal_catalog
    from planner.cli.plans import ask_caldav_password

    world = World(home, config, goal_catalog(home, config), _dt.date.today(),
                  ask_caldav_password)
    say_warnings(world.memory.warnings())  # as a run says them
    passed = proposals.check_again(world, proposal)
    for line in passed.timetable.unsaid_warnings():
        ui.notice(line)
    _decide_and_save(home, config, world, proposal, passed)


def _decide_and_save(home: Path, config: Config, world: World, proposal: Staged,
                     passed: Checked) -> None:
    """Show the SAVE screen; on SAVE, save through the plan store with a run folder."""
    from planner.agents import staged
    from planner.conversation.events import Notice, Proposed
    from planner.conversation.turn_values import plan_record
    from planner.plans import files
    from planner.records.summary import ToolResult
    from planner.ui.conversation import TerminalPerson

    plan = passed.plan
    record = _pending_record(home, proposal, passed)
    relative = f"{files.PLANS_DIR['live']}/{record.run_id}.json"
    notes = tuple(note for note in (world.catalog.get(note_id) for note_id in plan.note_ids)
                  if note is not None)
    view = _save_screen(home, config, world, proposal, passed, notes, home / relative)
    record.change(plan=plan_record(plan))
    record.save(stage="confirming")
    person = TerminalPerson(str(home))
    person.show(Notice(t("Staged through planner mcp by {client} on {when}; checked again "
                         "against your week now.", client=_client(proposal),
                         when=proposal.staged_at.astimezone().strftime("%Y-%m-%d %H:%M"))))
    person.show(Proposed(1, view, False))
    line = _typed_save(person, record)
    if line != "SAVE\n":
        record.save(status=status.COMPLETE, stage="done", approved=False,
                    tool_result=ToolResult(status.CANCELLED))
        ui.info(t("Nothing was saved; {id} stays staged (planner pending {id} --drop discards "
                  "it).", id=proposal.id) if line is not None else
                t("No terminal to confirm on: nothing was saved."))
        ended(status.EXIT_OK if line is not None else status.EXIT_USAGE)
    _save(home, record, passed, notes, relative)
    record.save(status=status.COMPLETE, stage="done",
                tool_result=ToolResult(status.SAVED, relative))
    with suppress(OSError):  # saved all the same; the staged file is listed until dropped
        staged.drop(home, proposal.id)
    ui.info(t("Saved: {path}", path=relative))
    ui.notice(t("Records: {folder}", folder=record.folder))


def _client(proposal: Staged) -> str:
    """The client that staged the proposal, as its MCP handshake named it."""
    return " ".join(part for part in proposal.client if part) or "?"


def _pending_record(home: Path, proposal: Staged, passed: Checked) -> RunRecord:
    """The run folder of the confirmation: who proposed it, from where; exit 1 unwritable."""
    from planner.records.run_record import RunRecord

    name, version = proposal.client
    goal, until = passed.goal, passed.timetable.until
    with failing_on_os(lambda reason: t("could not write the run's records in {folder} "
                                        "({reason}); check free space and permissions",
                                        folder=home, reason=reason)):
        record = RunRecord.start(
            home, mode="live", simulated=False,
            # `show` says who proposed it: "<client> at planner mcp".
            request=f"planner pending {proposal.id}",
            model=_client(proposal),
            base_url="planner mcp",
            goal=None if goal is None else goal.name,
            until=None if until is None else until.isoformat())
        # Where the proposal came from: planner mcp, and the client the handshake named.
        record.write_file("source.json", {"source": "mcp", "client": {"name": name,
                                                                       "version": version},
                                          "pending": proposal.id,
                                          "staged_at": proposal.staged_at.isoformat()})
    return record


def _save_screen(home: Path, config: Config, world: World, proposal: Staged, passed: Checked,
                 notes: tuple[Note, ...], target: Path) -> ConfirmRequest:
    """What the SAVE screen shows of the proposal, as a run's confirmation shows it."""
    from planner.conversation.events import ConfirmRequest
    from planner.memory.marking import quiet_marks
    from planner.memory.readiness import readiness_line
    from planner.plans import store
    from planner.plans.study import StudyPlan

    plan, timetable, goal = passed.plan, passed.timetable, passed.goal
    warnings = tuple(store.confirmation_warnings(home, "live", plan, world.today,
                                                 lambda: quiet_marks(home).dropped))
    study = isinstance(plan, StudyPlan)
    chosen = proposal.chosen if len(proposal.chosen) == len(plan.days) or not study else ()
    outlook = None
    if goal is not None and study:
        outlook = readiness_line(home, "live", goal, plan, world.memory, world.today, config)
    return ConfirmRequest(plan, notes, target, world.today, warnings,
                          world.memory.due_dates(plan.note_ids), None,
                          bool(chosen and chosen[0]) and not study, timetable.busy().unknown,
                          timetable.unread_after(plan.days), chosen if study else (),
                          outlook, config.daily_minutes)


def _typed_save(person: TerminalPerson, record: RunRecord) -> str | None:
    """What the person typed at the SAVE prompt (a near miss asked once more); Ctrl+C is
    recorded as stopped, exit 130."""
    from planner.conversation.events import Prompt
    from planner.conversation.turn_values import is_near_miss

    prompt, near_misses = Prompt("save"), list[str]()
    try:
        while True:
            line = person.ask(prompt)
            if (line is not None and line.endswith("\n") and is_near_miss(line)
                    and not near_misses):
                near_misses.append(line.removesuffix("\n"))
                prompt = Prompt("save", typed=near_misses[0])
                continue
            return line
    except KeyboardInterrupt:
        stopped = t("interrupted (Ctrl+C); nothing was saved")
        record.save(status=status.STOPPED, error=stopped)
        raise Interrupted(stopped) from None


def _save(home: Path, record: RunRecord, passed: Checked, notes: tuple[Note, ...],
          relative: str) -> None:
    """The plan saved after SAVE, if it still fits (another run may have saved meanwhile)."""
    from planner.conversation.saved_meanwhile import still_fits
    from planner.plans import files, store
    from planner.plans.plan import InvalidArguments
    from planner.records.run_record import now_iso
    from planner.records.summary import ToolResult

    plan, goal = passed.plan, passed.goal
    record.save(stage="executing", approved=True, target=relative)
    content = files.plan_file_content(plan, simulated=False, run_id=record.run_id,
                                      created_at=now_iso(), notes=notes,
                                      goal=None if goal is None else goal.name)
    try:
        store.save_plan(home / relative, content, still_fits(passed.timetable, plan))
    except InvalidArguments as error:
        record.save(status=status.STOPPED, tool_result=ToolResult("failed", error=str(error)),
                    error=str(error))
        exit_failed(t("The plan was not saved: {reason} (another run saved a plan "
                      "meanwhile).", reason=str(error)))
    except OSError as error:
        record.save(status=status.STOPPED, error=os_reason(error))
        exit_failed(t("could not save the plan to {path} ({reason}); nothing was saved; "
                      "check free space and permissions", path=relative,
                      reason=os_reason(error)))
