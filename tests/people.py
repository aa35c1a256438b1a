"""A scripted person for flow tests: answers prompts from a list, records what it was shown."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from planner.conversation.events import ConfirmRequest, Prompt


class ScriptedPerson:
    """Gives each prompt the next line ("" once they run out: end of input); None: no tty."""

    def __init__(self, lines: Iterable[str | BaseException | Callable] = (),
                 interactive: bool = True, save_only: bool = False) -> None:
        self.lines = list(lines)
        self.interactive = interactive
        # save_only: the lines answer SAVE prompts only; answer and feedback prompts get Enter.
        self.save_only = save_only
        self.events: list[object] = []
        self.prompts: list[Prompt] = []

    def show(self, event: object) -> None:
        self.events.append(event)

    def ask(self, prompt: Prompt) -> str | None:
        self.prompts.append(prompt)
        if not self.interactive:
            return None
        if not self.lines or (self.save_only and prompt.kind != "save"):
            return ""
        line = self.lines.pop(0)
        if callable(line):
            line = line(prompt)
        if isinstance(line, BaseException):
            raise line
        return line

    @property
    def views(self) -> list[ConfirmRequest]:
        """Every plan the person was asked to confirm, in order."""
        return [event.view for event in self.events if type(event).__name__ == "Proposed"]

    def kinds(self) -> list[str]:
        """The names of the events shown, in order."""
        return [type(event).__name__ for event in self.events]


def saying(*answers: bool) -> ScriptedPerson:
    """A person who answers each SAVE prompt in turn: True types SAVE, False types no."""
    return ScriptedPerson(["SAVE\n" if answer else "no\n" for answer in answers],
                          save_only=True)
