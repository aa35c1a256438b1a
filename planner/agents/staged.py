"""Staged proposals (README "planner for other agents"): pending/<id>.json in the home, written by
planner mcp once a proposal passes every check, confirmed or dropped by `planner pending`.

A staged file is written whole or not at all and never over another (a temporary file, flushed,
then linked to its name, which fails if the name is taken). Read back it is untrusted: every
field is checked, its digest must match (an edited file is refused), and its proposal is checked
again by the caller exactly as a model's arguments are.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from planner.base import storage, strictjson
from planner.base.errors import UsageError
from planner.base.i18n import t
from planner.base.oserrors import os_reason
from planner.plans.plan import InvalidArguments, ReviewPlan, parse_arguments
from planner.plans.schema import is_run_id
from planner.plans.study import StudyPlan, parse_study_arguments
from planner.records.run_record import new_run_id, now_iso

PENDING_DIR = "pending"
VERSION = 1
STUDY, REVIEW = "study_plan", "review_plan"
STALE_AFTER = _dt.timedelta(days=7)
MAX_STAGED_BYTES = 64 * 1024
MAX_CLIENT = 100  # characters of a client's name or version kept
MAX_LISTED = 1000  # staged files listed at most (the newest)
_KEYS = ("version", "id", "kind", "staged_at", "client", "goal", "proposal", "chosen", "digest")


class StagedProblem(ValueError):
    """A staged file that cannot be used; str() says why, in a few words."""


class Staged(NamedTuple):
    """A staged proposal as read back: its fields checked, its proposal not yet."""

    id: str
    kind: str
    staged_at: _dt.datetime
    client: tuple[str | None, str | None]  # name and version, as the client gave them
    goal: str | None
    proposal: dict[str, Any]  # the save tool's arguments, every start given
    chosen: tuple[bool, ...]  # for each session, whether planner chose its start

    def is_stale(self, now: _dt.datetime) -> bool:
        """Older than STALE_AFTER: listed, never saved."""
        return now - self.staged_at > STALE_AFTER

    @property
    def arguments(self) -> dict[str, Any]:
        """The proposal as the propose tool's arguments (with its goal, for a study plan)."""
        return self.proposal if self.goal is None else {"goal": self.goal, **self.proposal}

    def plan(self, today: _dt.date) -> StudyPlan | ReviewPlan:
        """The proposal as the typed plan its save tool makes, by that tool's parser;
        InvalidArguments when it breaks the tool's rules. Its notes need only be named here:
        they are checked against the notes folder again before SAVE (proposals.check_again)."""
        arguments = json.dumps(self.proposal, ensure_ascii=False)
        if self.kind == STUDY:
            return parse_study_arguments(arguments, _ANY_NOTE, today)
        return parse_arguments(arguments, _ANY_NOTE)


class _AnyNote:
    """Every note ID is in it (see Staged.plan)."""

    def __contains__(self, note_id: object) -> bool:
        return True

    def __len__(self) -> int:
        return 0

    def __iter__(self) -> Iterator[str]:
        return iter(())


_ANY_NOTE = _AnyNote()


def folder(home: Path) -> Path:
    """The staged proposals' folder of `home`."""
    return home / PENDING_DIR


def client_of(name: object, version: object) -> tuple[str | None, str | None]:
    """A client's name and version from the handshake, kept short (shown inert later)."""
    return (name[:MAX_CLIENT] if isinstance(name, str) else None,
            version[:MAX_CLIENT] if isinstance(version, str) else None)


def stage(home: Path, kind: str, proposal: dict[str, Any], chosen: tuple[bool, ...],
          goal: str | None, client: tuple[str | None, str | None]) -> str:
    """Write the staged file; its ID. OSError when it cannot be written (nothing is left)."""
    data = {"version": VERSION, "id": "", "kind": kind, "staged_at": now_iso(),
            "client": {"name": client[0], "version": client[1]}, "goal": goal,
            "proposal": proposal, "chosen": list(chosen)}
    where = folder(home)
    storage.ensure_dir(where)
    while True:
        staged_id = data["id"] = new_run_id()
        data["digest"] = digest(data)
        if _create(where / f"{staged_id}.json", storage.to_json(data, indent=2)):
            return staged_id


def _create(target: Path, content: bytes) -> bool:
    """`content` as the new file `target`, whole or not at all; False when the name is taken."""
    temp = target.with_name(f".{target.name}.{os.urandom(4).hex()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                 storage.FILE_MODE)
    try:
        try:
            storage.write_all(fd, content)
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(temp, target)  # fails if the name is taken: nothing is ever overwritten
        except FileExistsError:
            return False
        storage.sync_dir(target.parent)
        return True
    finally:
        try:
            os.unlink(temp)
        except OSError:
            pass


def digest(data: dict[str, Any]) -> str:
    """The SHA-256 of everything but the digest: a file edited after staging no longer matches."""
    rest = {key: value for key, value in data.items() if key != "digest"}
    return hashlib.sha256(storage.to_json(rest)).hexdigest()


def names(home: Path) -> list[str]:
    """The IDs of the staged files, oldest first (at most MAX_LISTED, the newest)."""
    try:
        entries = os.listdir(folder(home))
    except FileNotFoundError:
        return []
    found = sorted(name[:-5] for name in entries
                   if name.endswith(".json") and is_run_id(name[:-5]))
    return found[-MAX_LISTED:]


def find(home: Path, wanted: str) -> str | None:
    """The staged ID that `wanted` names (the ID or a unique start of it); None: none does."""
    every = names(home)
    if wanted in every:
        return wanted
    matches = [name for name in every if wanted and name.startswith(wanted)]
    return matches[0] if len(matches) == 1 else None


def read(home: Path, staged_id: str) -> Staged:
    """The staged file, every field checked; StagedProblem naming what is wrong."""
    path = folder(home) / f"{staged_id}.json"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            raw = os.read(fd, MAX_STAGED_BYTES + 1)
        finally:
            os.close(fd)
    except OSError as error:
        raise StagedProblem(t("cannot be read ({reason})", reason=os_reason(error))) from None
    if len(raw) > MAX_STAGED_BYTES:
        raise StagedProblem(t("is longer than {limit} bytes", limit=MAX_STAGED_BYTES))
    try:
        data = strictjson.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, strictjson.JSONRefused):
        raise StagedProblem(t("is not planner's JSON")) from None
    return _checked(data, staged_id)


def read_or_problem(home: Path, staged_id: str) -> Staged | str:
    """read()'s staged proposal, or the few words saying why it cannot be used."""
    try:
        return read(home, staged_id)
    except StagedProblem as problem:
        return str(problem)


def listed(home: Path, staged_id: str,
           today: _dt.date) -> tuple[Staged, StudyPlan | ReviewPlan] | str:
    """The staged proposal and its typed plan (Staged.plan), or the few words saying why it
    cannot be used: the file's problem, or the rule its proposal breaks."""
    proposal = read_or_problem(home, staged_id)
    if isinstance(proposal, str):
        return proposal
    try:
        return proposal, proposal.plan(today)
    except InvalidArguments as error:
        return str(error)


def to_confirm(home: Path, staged_id: str, now: _dt.datetime) -> Staged:
    """The staged proposal to confirm now; a UsageError saying why it never will be (damaged,
    or stale) and that nothing was saved (exit 2)."""
    proposal = read_or_problem(home, staged_id)
    if isinstance(proposal, str):
        raise UsageError(t("{id} {problem}; nothing was saved (planner pending {id} --drop "
                           "discards it)", id=staged_id, problem=proposal))
    if proposal.is_stale(now):
        raise UsageError(t("{id} was staged on {date}, more than 7 days ago: it is never saved; "
                           "ask for a new proposal (planner pending {id} --drop discards it)",
                           id=staged_id, date=proposal.staged_at.date().isoformat()))
    return proposal


def _checked(data: object, staged_id: str) -> Staged:
    if not isinstance(data, dict) or sorted(data) != sorted(_KEYS):
        raise StagedProblem(t("does not have planner's fields"))
    # Every field once, in the order of _KEYS (all there, none other: checked just above).
    fields = [data[key] for key in _KEYS]
    version, file_id, kind, when, client, goal, proposal, chosen, signed = fields
    if signed != digest(data):
        raise StagedProblem(t("was changed after it was staged"))
    good = (version == VERSION and file_id == staged_id and kind in (STUDY, REVIEW)
            and isinstance(client, dict) and sorted(client) == ["name", "version"]
            and all(value is None or (isinstance(value, str) and len(value) <= MAX_CLIENT)
                    for value in client.values())
            and (goal is None or isinstance(goal, str))
            and isinstance(proposal, dict)
            and isinstance(chosen, list)
            and all(value is True or value is False for value in chosen))
    staged_at = _moment(when)
    if not good or staged_at is None:
        raise StagedProblem(t("does not have planner's fields"))
    return Staged(staged_id, kind, staged_at, (client["name"], client["version"]),
                  goal, proposal, tuple(chosen))


def _moment(value: object) -> _dt.datetime | None:
    """An ISO time with its zone, not in the future; None otherwise."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    try:
        moment = _dt.datetime.fromisoformat(value)
    except ValueError:
        return None
    if moment.tzinfo is None or moment > _dt.datetime.now(_dt.UTC) + _dt.timedelta(minutes=5):
        return None
    return moment


def drop(home: Path, staged_id: str) -> None:
    """Discard a staged file (OSError when it cannot be removed)."""
    os.unlink(folder(home) / f"{staged_id}.json")
    storage.sync_dir(folder(home))
