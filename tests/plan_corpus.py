"""Generated plan arguments, valid, near and broken, and what checking each must give."""

from __future__ import annotations

import datetime as dt
import re
import unicodedata

from hypothesis import strategies as st

NOTES = frozenset({"N1", "N2", "N3"})
FIELDS = ("title", "note_ids", "date", "minutes")
LIMIT = 4096
# Trimming removes space characters (category Zs) only, never tabs, newlines or controls.
SPACES = "".join(chr(code) for code in range(0x3001) if unicodedata.category(chr(code)) == "Zs")
_ASCII_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)


def title_ok(value: object) -> bool:
    """A string that is 1-80 printable characters (spaces allowed inside) after trimming."""
    if not isinstance(value, str):
        return False
    title = value.strip(SPACES)
    return 1 <= len(title) <= 80 and all(
        char.isprintable() or unicodedata.category(char) == "Zs" for char in title
    )


def note_ids_ok(value: object) -> bool:
    """A list of 1-3 distinct known note IDs."""
    return (
        isinstance(value, list)
        and 1 <= len(value) <= 3
        and all(isinstance(item, str) and item in NOTES for item in value)
        and len(set(value)) == len(value)
    )


def date_ok(value: object) -> bool:
    """A string of ASCII digits YYYY-MM-DD that is a real calendar date, a day inside each end
    of the calendar (README "A screen you can trust": 0001-01-02 to 9999-12-30)."""
    if not isinstance(value, str) or not _ASCII_DATE.fullmatch(value):
        return False
    try:
        day = dt.date(int(value[:4]), int(value[5:7]), int(value[8:]))
    except ValueError:
        return False
    return dt.date(1, 1, 2) <= day <= dt.date(9999, 12, 30)


def minutes_ok(value: object) -> bool:
    """An integer (not a bool, not a float) from 1 to 120."""
    return type(value) is int and 1 <= value <= 120


FIELD_OK = {"title": title_ok, "note_ids": note_ids_ok, "date": date_ok, "minutes": minutes_ok}


def expected(data: object, text: str) -> dict | None:
    """The plan the README's rules say `text` (the JSON of `data`) must give, or None."""
    if len(text.encode("utf-8", "surrogatepass")) > LIMIT:
        return None
    if not isinstance(data, dict) or set(data) != set(FIELDS):
        return None
    if not all(FIELD_OK[name](data[name]) for name in FIELDS):
        return None
    return {**data, "title": data["title"].strip(SPACES)}


title_chars = st.one_of(
    st.characters(categories=("L", "M", "N", "P", "S", "Zs")),
    st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),  # CJK ideographs
    st.sampled_from("\u3000 "),
)
titles = st.text(title_chars, min_size=1, max_size=80).map(str.strip).filter(lambda title: title)
note_id_lists = st.lists(st.sampled_from(sorted(NOTES)), min_size=1, max_size=3, unique=True)
dates = st.dates(min_value=dt.date(1000, 1, 1), max_value=dt.date(9999, 12, 30)).map(
    dt.date.isoformat)
minutes = st.integers(min_value=1, max_value=120)
valid_plans = st.fixed_dictionaries(
    {"title": titles, "note_ids": note_id_lists, "date": dates, "minutes": minutes}
)
json_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.sampled_from(["N1", "N2", "N3", "2026-10-05", "RAG basics"]),
)
json_values = st.recursive(
    json_leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(
            st.one_of(st.sampled_from(FIELDS), st.text(max_size=10)), children, max_size=5
        ),
    ),
    max_leaves=12,
)
forbidden_chars = st.characters(categories=("Cc", "Cf", "Cs", "Co", "Zl", "Zp"))


@st.composite
def titles_with_forbidden_char(draw: st.DrawFn) -> str:
    """A title with a control, format, surrogate or separator character inside it."""
    return draw(titles)[:39] + draw(forbidden_chars) + draw(titles)[:39]


whitespace_titles = st.text(st.sampled_from(" \t\n\r\u3000\u00a0\u2028\u2003"), max_size=10)
long_titles = st.text(title_chars, min_size=81, max_size=120)


@st.composite
def dates_with_one_change(draw: st.DrawFn) -> str:
    """A valid date with one character replaced, inserted or removed, or padded."""
    date = draw(dates)
    index = draw(st.integers(min_value=0, max_value=len(date)))
    char = draw(
        st.one_of(
            st.characters(categories=("Nd",)),
            st.sampled_from(" \t\n/T-0\u3000\uff10"),
        )
    )
    how = draw(st.sampled_from(["replace", "insert", "remove"]))
    if how == "insert" or index == len(date):
        return date[:index] + char + date[index:]
    if how == "replace":
        return date[:index] + char + date[index + 1 :]
    return date[:index] + date[index + 1 :]


calendar_like_dates = st.builds(
    "{:04d}-{:02d}-{:02d}".format,
    st.integers(min_value=0, max_value=9999),
    st.integers(min_value=0, max_value=99),
    st.integers(min_value=0, max_value=99),
)


@st.composite
def note_ids_with_repeat(draw: st.DrawFn) -> list:
    """One to three known IDs with one of them repeated."""
    ids = draw(st.lists(st.sampled_from(sorted(NOTES)), min_size=1, max_size=2, unique=True))
    repeated = draw(st.sampled_from(ids))
    return draw(st.permutations([*ids, repeated]))


BAD_VALUES = {
    "title": st.one_of(json_values, titles_with_forbidden_char(), whitespace_titles, long_titles),
    "note_ids": st.one_of(
        json_values,
        st.just([]),
        st.lists(st.sampled_from(sorted(NOTES)), min_size=4, max_size=6),
        note_ids_with_repeat(),
        st.lists(st.one_of(st.sampled_from(sorted(NOTES)), json_leaves), min_size=1, max_size=3),
        st.sampled_from(sorted(NOTES)),
    ),
    "date": st.one_of(json_values, dates_with_one_change(), calendar_like_dates),
    "minutes": st.one_of(
        json_values,
        st.integers(max_value=0),
        st.integers(min_value=121),
        minutes.map(float),
        minutes.map(str),
        st.booleans(),
    ),
}
spaces = st.text(st.sampled_from(" \u3000"), max_size=3)
padded_titles = st.builds(lambda left, title, right: left + title + right, spaces, titles, spaces)
# A dictionary of the four fields, each value either valid or arbitrary, so that both outcomes
# (accepted and rejected) are reached often.
near_plans = st.fixed_dictionaries(
    {
        "title": st.one_of(padded_titles, st.text(max_size=90), json_values),
        "note_ids": st.one_of(note_id_lists, json_values),
        "date": st.one_of(
            dates,
            dates_with_one_change(),
            dates.map(lambda date: date.replace("-", "")),
            json_values,
        ),
        "minutes": st.one_of(minutes, st.integers(min_value=-5, max_value=200), json_values),
    }
)


@st.composite
def mutated_plans(draw: st.DrawFn) -> tuple[dict, str | None]:
    """A valid plan with one thing wrong, and the field the error must name (None: an extra)."""
    plan = draw(valid_plans)
    how = draw(st.sampled_from(["replace", "add", "remove"]))
    if how == "add":
        key = draw(st.one_of(st.sampled_from(["approved", "path", "command"]), st.text()))
        if key in FIELDS:
            key += "_"
        plan[key] = draw(json_values)
        return plan, None
    name = draw(st.sampled_from(FIELDS))
    if how == "remove":
        del plan[name]
    else:
        plan[name] = draw(BAD_VALUES[name].filter(lambda value: not FIELD_OK[name](value)))
    return plan, name
