"""The terminal draws every event the flow can send, and refuses one it does not know."""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import NamedTuple

import pytest
from plan_files import review_plan

from planner import ui
from planner.conversation import events
from planner.notes.catalog import Note
from planner.ui import conversation

TODAY = _dt.date(2026, 11, 30)
VIEW = events.ConfirmRequest(review_plan("RAG review", ("N1",), "2026-12-08", 20),
                             (Note("N1", "RAG 的基本流程", "t"),), Path("plans/r1.json"), TODAY)
# One of each event; a new event class fails test_every_event_has_a_sample until added here.
SAMPLES = {
    events.Calling: events.Calling(1, "deepseek-chat", "https://api.deepseek.com", True),
    events.Called: events.Called(1),
    events.Proposed: events.Proposed(1, VIEW, False),
    events.Rejected: events.Rejected(1, "propose_review_plan", "minutes must be 5-240", 1, 2),
    events.Looked: events.Looked(1, "search_notes", {"query": "RAG"}, "2 notes"),
    events.ModelText: events.ModelText(1, "Which notes?", False, False),
    events.Result: events.Result({"status": "saved", "path": "plans/r1.json"}, "plans/r1.json"),
    events.RefusedCall: events.RefusedCall(2, "propose_review_plan", "already saved"),
    events.Notice: events.Notice("No terminal: nothing is asked."),
}
NOT_EVENTS = {events.ConfirmRequest, events.Prompt, events.Outcome}


def event_classes() -> set[type]:
    """Every NamedTuple conversation.events defines, apart from the ones that are not events."""
    return {value for value in vars(events).values()
            if isinstance(value, type) and value.__module__ == events.__name__
            and hasattr(value, "_fields") and value not in NOT_EVENTS}


def test_every_event_has_a_sample() -> None:
    assert event_classes() == set(SAMPLES)


@pytest.mark.parametrize("kind", sorted(SAMPLES, key=lambda kind: kind.__name__),
                         ids=lambda kind: kind.__name__)
def test_every_event_is_drawn(kind: type, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    # No terminal to open: the plan panel goes to stdout with everything else.
    monkeypatch.setattr(conversation, "TTY", str(tmp_path / "none" / "tty"))
    conversation.TerminalPerson(".").show(SAMPLES[kind])
    drawn = capsys.readouterr().out
    assert drawn if kind not in (events.Calling, events.Called) else not drawn


class Unheard(NamedTuple):
    text: str


def test_an_unknown_event_is_refused() -> None:
    with pytest.raises(TypeError, match="no way to show Unheard"):
        conversation.TerminalPerson(".").show(Unheard("new"))


def test_every_lazy_name_is_there() -> None:
    for name in ui._LAZY:
        assert getattr(ui, name) is getattr(getattr(ui, ui._LAZY[name]), name)
