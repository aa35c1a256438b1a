"""Line editing at every prompt but SAVE: arrows, Home/End, wide characters, this run's history.

prompt_toolkit does the editing, on the controlling terminal (never stdin or stdout, like the
SAVE prompt), imported on the first edited prompt only: commands that ask nothing never load it.
Chosen over the standard `readline`, which edits only through `input()` on fds 0 and 1 (so not
with stdout redirected), keeps one history for the whole process, and lets the kernel turn
Ctrl+C into a signal whose `^C` echo can land after the program's own next line.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TextIO

from planner.ui.console import discard_pending_input
from planner.ui.plain import TTY

# The most characters a line can hold: a paste beyond it is cut where the person sees it end.
# Twice what can be sent (flow.MAX_ANSWER), so a line too long to send is still refused there
# with the limit named, never cut to a length that would pass.
MAX_LINE = 4000


def read_edited_line(prompt: str, discard_typed_ahead: bool = False,
                     history: Sequence[str] = ()) -> str | None:
    """One edited line from the controlling terminal, with a newline ('' at end of input);
    None: no terminal. `history` is this run's earlier lines, oldest first (Up recalls them).

    With `discard_typed_ahead`, input typed before the prompt is dropped unread (README "A screen
    you can trust").
    Ctrl+C raises KeyboardInterrupt with the prompt's line ended.
    """
    try:
        fd = os.open(TTY, os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return None
    # Closed with the file; written as UTF-8 whatever the locale says (LANG=C included).
    tty = open(fd, "w", encoding="utf-8", errors="replace")  # noqa: SIM115 - closed below
    try:
        with tty:
            if discard_typed_ahead:
                discard_pending_input(fd)
            try:
                line = _edit(tty, prompt, history, discard_typed_ahead)
            except EOFError:
                return ""  # Ctrl+D on an empty line: end of input, as a closed terminal
            return line + "\n"
    except OSError:
        # The terminal went away (hung up) mid-prompt: nobody can answer, as with none at all.
        return None


def _edit(tty: TextIO, prompt: str, history: Sequence[str], fresh: bool) -> str:
    """One line edited in a prompt_toolkit session on the terminal `tty`."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.buffer import Buffer
    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.history import InMemoryHistory
    from prompt_toolkit.input.typeahead import clear_typeahead
    from prompt_toolkit.input.vt100 import Vt100Input
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
    from prompt_toolkit.keys import Keys
    from prompt_toolkit.output.vt100 import Vt100_Output

    def size() -> Size:
        try:
            columns, rows = os.get_terminal_size(tty.fileno())
        except OSError:
            columns, rows = 80, 24
        return Size(rows=rows or 24, columns=columns or 80)

    # No cursor-position requests: nothing here needs them, and a terminal that never answers
    # one (a pipe-backed emulator, a test's pseudo-terminal) would leave `ESC[6n` unanswered.
    output = Vt100_Output(tty, size, term=os.environ.get("TERM"), enable_cpr=False)
    source = Vt100Input(tty)
    # Keys read past the end of the last line are kept for the next prompt on this terminal;
    # a confirming prompt reads only what is typed after it is shown.
    if fresh:
        clear_typeahead(source)
    keys = KeyBindings()

    @keys.add(Keys.BracketedPaste)
    def _paste(event: KeyPressEvent) -> None:
        # One line is asked for: a pasted block's line breaks become spaces, on screen too,
        # so the line sent is the one shown.
        text = event.data.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")
        event.current_buffer.insert_text(text)

    # Styled, so its last space is written too: a screen log or a screen reader gets the
    # prompt whole, as the SAVE prompt is written (an unstyled trailing space is skipped).
    session: PromptSession[str] = PromptSession(
        [("fg:default", prompt)], history=InMemoryHistory(list(history)), input=source,
        output=output, key_bindings=keys, enable_open_in_editor=False, enable_suspend=False,
        enable_system_prompt=False, mouse_support=False, complete_while_typing=False,
        erase_when_done=False)

    def bounded(buffer: Buffer) -> None:
        if len(buffer.text) > MAX_LINE:
            buffer.text = buffer.text[:MAX_LINE]

    session.default_buffer.on_text_changed += bounded
    return session.prompt()
