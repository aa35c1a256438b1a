"""Text from outside the program is made inert before it reaches a terminal (README "A screen
you can trust")."""

from __future__ import annotations

import io
import re
import sys
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from planner.base.inert import inert_block, inert_line

PROPERTY = settings(
    max_examples=500,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)

C0 = {chr(code) for code in range(0x20)}
C1 = {chr(code) for code in range(0x80, 0xA0)}
BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# What must never reach a terminal raw; inert_block may keep "\n" only.
DANGEROUS = C0 | {"\x7f"} | C1 | BIDI | {"\u2028", "\u2029"}
JOINERS = {"\u200c", "\u200d"}
ALL_ZS = [chr(code) for code in range(sys.maxunicode + 1)
          if unicodedata.category(chr(code)) == "Zs"]
BLANKS = set(ALL_ZS) | set("\u2800\u115f\u1160\u3164\uffa0")


def dangerous(text: str, allowed: frozenset[str] = frozenset()) -> list[str]:
    """The characters of text that must not reach a terminal raw, in order."""
    return [
        char for char in text
        if char not in allowed and (
            char in DANGEROUS or "\ud800" <= char <= "\udfff"
            or (unicodedata.category(char) == "Cf" and char not in JOINERS))
    ]


# --- inert_line: exact outputs for every class -------------------------------------------------

@pytest.mark.parametrize(("text", "shown"), [
    # C0, DEL and C1 controls; \t \n \r use their short Python forms.
    ("\x00", "\\x00"), ("a\x07b", "a\\x07b"), ("\x08\x0b\x0c", "\\x08\\x0b\\x0c"),
    ("\x1b", "\\x1b"), ("\x1f", "\\x1f"), ("a\nb", "a\\nb"), ("a\rb", "a\\rb"),
    ("a\r\nb", "a\\r\\nb"), ("a\tb", "a\\tb"), ("a\t\tb", "a\\t\\tb"), ("\x7f", "\\x7f"),
    ("\x80", "\\x80"), ("\x85", "\\x85"), ("\x9f", "\\x9f"),
    # Escape sequences of every kind, 7-bit and 8-bit.
    ("\x1b[2K\x1b[1A\x1b[32mSaved to plans/x.json",
     "\\x1b[2K\\x1b[1A\\x1b[32mSaved to plans/x.json"),
    ("\x1b]52;c;SGVsbG8=\x07", "\\x1b]52;c;SGVsbG8=\\x07"),
    ("\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\",
     "\\x1b]8;;http://evil\\x1b\\link\\x1b]8;;\\x1b\\"),
    ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),
    ("\x1bP1$r\x1b\\", "\\x1bP1$r\\x1b\\"),  # DCS
    ("\x1b_apc\x1b\\", "\\x1b_apc\\x1b\\"), ("\x1b^pm\x1b\\", "\\x1b^pm\\x1b\\"),
    ("\x1bXsos\x1b\\", "\\x1bXsos\\x1b\\"), ("\x1bc", "\\x1bc"),
    ("\x9b2K", "\\x9b2K"), ("\x9d0;t\x9c", "\\x9d0;t\\x9c"), ("\x90q\x9c", "\\x90q\\x9c"),
    # Bidirectional controls.
    ("\u202eevil", "\\u202eevil"),
    ("a\u202ab\u202bc\u202cd\u202de", "a\\u202ab\\u202bc\\u202cd\\u202de"),
    ("\u2066\u2067\u2068\u2069", "\\u2066\\u2067\\u2068\\u2069"),
    ("\u200e\u200f\u061c", "\\u200e\\u200f\\u061c"),
    # Other invisible format characters (category Cf), tag characters included.
    ("x\u200by", "x\\u200by"), ("x\u2060y", "x\\u2060y"), ("\ufeffx", "\\ufeffx"),
    ("soft\xadhyphen", "soft\\xadhyphen"), ("\u180e", "\\u180e"),
    ("hi\U000e0041\U000e007f", "hi\\U000e0041\\U000e007f"),
    # Line and paragraph separators, lone surrogates.
    ("a\u2028b\u2029c", "a\\u2028b\\u2029c"), ("\ud800x\udfff", "\\ud800x\\udfff"),
    ("\ud83d\ude00", "\\ud83d\\ude00"),
])
def test_line_escapes_every_control_class(text: str, shown: str) -> None:
    assert inert_line(text) == shown


@pytest.mark.parametrize("text", [
    "Review RAG notes", "复习 RAG 笔记：检索增强生成", "Révision : café", "a\u00a0b", "a\u3000b",
    "👨\u200d👩\u200d👧 family", "می\u200cخواهم", "e\u0301", "\ue0a0 branch", "\U0010fffd",
    "C:\\Users\\x1b\\u202e", "[bold red]x[/]", "", " lead and trail ",
])
def test_line_keeps_printable_text(text: str) -> None:
    assert inert_line(text) == text


def test_line_returns_plain_ascii_itself() -> None:
    text = "Review RAG notes 2026-01-01"
    assert inert_line(text) is text


@pytest.mark.parametrize(("text", "shown"), [
    ("RAG                Date     2026-01-01", "RAG Date 2026-01-01"),
    ("  a  ", " a "),
    ("a\u3000\u3000b", "a b"), ("a\u00a0\u00a0b", "a b"), ("a\u2000\u200ab", "a b"),
    ("a \u3000\u205f\u202f\u1680b", "a b"), ("a\u2800\u2800b", "a b"),
    ("a\u3164\u3164b", "a b"), ("a\uffa0 b", "a b"), ("a\u115f\u1160b", "a b"),
    ("复习\u3000\u3000RAG  笔记", "复习 RAG 笔记"),
    # Escaped characters break a run: what was there stays visible.
    ("a \t b", "a \\t b"), ("a \x1b  b", "a \\x1b b"),
])
def test_line_collapses_blank_runs(text: str, shown: str) -> None:
    assert inert_line(text) == shown


@pytest.mark.parametrize("blank", ALL_ZS)
def test_line_collapses_runs_of_every_space_separator(blank: str) -> None:
    assert inert_line(f"a{blank}{blank}b") == "a b"


def test_line_escapes_every_c0_c1_and_format_character() -> None:
    short = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
    for char in sorted(C0 | {"\x7f"} | C1):
        assert inert_line(char) == short.get(char, f"\\x{ord(char):02x}")
    format_chars = [chr(code) for code in range(sys.maxunicode + 1)
                    if unicodedata.category(chr(code)) == "Cf"]
    assert len(format_chars) > 150
    for char in format_chars:
        code = ord(char)
        expected = (char if char in JOINERS else f"\\x{code:02x}" if code < 0x100
                    else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        assert inert_line(char) == expected


class Hostile:
    """An object whose text is hostile."""

    def __str__(self) -> str:
        return "\x1b[2J\u202e"


@pytest.mark.parametrize(("value", "shown"), [
    (None, "None"), (42, "42"), (3.5, "3.5"), (True, "True"),
    (["a\x1b"], "['a\\x1b']"), (b"\x1b", "b'\\x1b'"), (Hostile(), "\\x1b[2J\\u202e"),
])
def test_line_turns_any_value_into_text(value: object, shown: str) -> None:
    assert inert_line(value) == shown
    assert inert_block(value) == shown


def test_an_int_too_long_for_text_is_named_not_raised() -> None:
    huge = 10**5000  # past Python's 4,300-digit limit: str() raises ValueError
    assert inert_line(huge) == "<int too large to show>"
    assert inert_block(huge) == "<int too large to show>"


# --- inert_block -------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "shown"), [
    ("a\nb\n", "a\nb\n"), ("a\r\nb\r\n", "a\nb\n"), ("a\rb", "a\\rb"), ("a\r\r\nb", "a\\r\nb"),
    ("\tx\n\t\ty", "    x\n        y"), ("  indented   spaces", "  indented   spaces"),
    ("\x1b[31mred\n\u202eleft\n", "\\x1b[31mred\n\\u202eleft\n"),
    ("a\u2028b\u2029c\x85d", "a\\u2028b\\u2029c\\x85d"),
    ("\x1b]52;c;SGVsbG8=\x07\n", "\\x1b]52;c;SGVsbG8=\\x07\n"),
    ("问题：\n  1. 复习\u3000\u3000RAG", "问题：\n  1. 复习\u3000\u3000RAG"),
    ("\ud800\n", "\\ud800\n"),
    ("", ""), ("plain", "plain"),
])
def test_block_keeps_lines_and_indentation(text: str, shown: str) -> None:
    assert inert_block(text) == shown


# --- properties --------------------------------------------------------------------------------

SPECIALS = sorted(DANGEROUS | BLANKS | JOINERS | {"\\", "[", "]", "\x1b[", "\x1b]8;;", "\r\n"})
any_chars = st.one_of(
    st.characters(),  # every code point except surrogates
    st.characters(categories=["Cs"]),
    st.sampled_from(SPECIALS),
)
any_text = st.lists(any_chars, max_size=60).map("".join)  # pieces, not only characters


@pytest.mark.slow
@PROPERTY
@given(any_text)
def test_line_output_is_inert_whatever_the_input(text: str) -> None:
    shown = inert_line(text)
    assert dangerous(shown) == []
    assert "\n" not in shown
    assert not any(a in BLANKS and b in BLANKS for a, b in zip(shown, shown[1:], strict=False))
    shown.encode("utf-8")  # no surrogate left to break the terminal's encoder
    assert inert_line(shown) == shown
    assert dangerous(inert_line(inert_line(text))) == []


@pytest.mark.slow
@PROPERTY
@given(any_text)
def test_block_output_is_inert_whatever_the_input(text: str) -> None:
    shown = inert_block(text)
    assert dangerous(shown, allowed=frozenset("\n")) == []
    assert shown.count("\n") == text.replace("\r\n", "\n").count("\n")
    shown.encode("utf-8")
    assert inert_block(shown) == shown
    assert dangerous(inert_block(inert_block(text)), allowed=frozenset("\n")) == []


printable = st.characters(exclude_categories=["Cc", "Cs", "Cf", "Zl", "Zp"])
printable_text = st.text(st.one_of(printable, st.sampled_from(sorted(JOINERS))), max_size=60)


def no_double_blank(text: str) -> bool:
    return not any(a in BLANKS and b in BLANKS for a, b in zip(text, text[1:], strict=False))


@PROPERTY
@given(printable_text.filter(no_double_blank))
def test_printable_text_without_double_blanks_is_unchanged(text: str) -> None:
    assert inert_line(text) == text
    assert inert_block(text) == text


@PROPERTY
@given(st.lists(printable_text, max_size=5).map("\n".join))
def test_printable_lines_are_unchanged_in_a_block(text: str) -> None:
    assert inert_block(text) == text


# --- through Rich, as the screen gets it ---------------------------------------------------------

RICH_SGR = re.compile(r"\x1b\[[0-9;]*m")
HOSTILE = [
    ("\x1b[2K\x1b[1A\x1b[32mSaved to plans/x.json", ["\\x1b[2K", "\\x1b[1A", "\\x1b[32mSaved"]),
    ("\x1b]52;c;SGVsbG8=\x07", ["\\x1b]52;c;SGVsbG8=\\x07"]),
    ("\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", ["\\x1b]8;;http://evil\\x1b\\link"]),
    ("\u202eevil", ["\\u202eevil"]),
    ("\x9b2K", ["\\x9b2K"]),
    ("\x1bP+q\x1b\\ \x9d0;x\x9c \x07", ["\\x1bP+q\\x1b\\", "\\x9d0;x\\x9c", "\\x07"]),
]


@pytest.fixture
def screen(monkeypatch: pytest.MonkeyPatch) -> Console:
    """A colour terminal whose output is kept in memory."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    return Console(file=io.StringIO(), force_terminal=True, color_system="truecolor", width=200)


def rendered(screen: Console, renderable: object) -> str:
    screen.print(renderable)
    output = screen.file.getvalue()
    assert RICH_SGR.search(output), "Rich styled nothing: the check below would prove little"
    return RICH_SGR.sub("", output)


def assert_inert(output: str, visible: list[str]) -> None:
    for raw in ("\x1b", "\x9b", "\x07", "\u202e", "\x9d", "\x9c"):
        assert raw not in output
    for text in visible:
        assert text in output


@pytest.mark.parametrize(("hostile", "visible"), HOSTILE)
def test_line_through_rich_sends_no_escape_sequence(
    screen: Console, hostile: str, visible: list[str]
) -> None:
    assert_inert(rendered(screen, Text(inert_line(hostile), style="bold red")), visible)


@pytest.mark.parametrize(("hostile", "visible"), HOSTILE)
def test_inert_text_in_tables_and_panels_stays_inert(
    screen: Console, hostile: str, visible: list[str]
) -> None:
    table = Table(title="Runs")
    table.add_column("Title", style="cyan")
    table.add_row(Text(inert_line(hostile)))
    panel = Panel(Text(inert_block(f"{hostile}\nsecond line")), title=Text(inert_line(hostile)))
    output = rendered(screen, table) + rendered(screen, panel)
    assert_inert(output, visible)
    assert "second line" in output


def test_markup_is_shown_literally(screen: Console) -> None:
    output = rendered(screen, Text(inert_line("[bold red]x[/] [link=http://evil]y[/link]"),
                                   style="green"))
    assert "[bold red]x[/] [link=http://evil]y[/link]" in output
    assert "\x1b]8" not in output
