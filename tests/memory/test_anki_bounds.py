"""Anki packages bounded whatever they hold: a member that inflates past its bound (a zip bomb,
a zstd bomb) is stopped while it streams, and a collection whose revlog is made costly to read
is interrupted; each is one line naming the file, exit 2, memory.json unchanged and nothing left
in the temporary folder. The packages are made by Anki's own code, then damaged."""

from __future__ import annotations

import datetime as _dt
import os
import sqlite3
import time
import zipfile
from pathlib import Path

import pytest
from conftest import run_planner

from planner.memory import anki

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("anki")]

REVIEWS = 1500
# The costly revlog: `type` computed from a few MiB string on every row (about 10 ms a row,
# some 15 s for the whole table, unbounded). SQLite computes it on INSERT too: the rows go in
# with a cheap string, and the schema is then edited to the costly one.
COSTLY_TYPE = ("type INTEGER GENERATED ALWAYS AS (length(replace(printf('%.*c', {width} + kind, "
               "'x'), 'x', 'yy')) * 0 + kind) VIRTUAL")


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A small collection with REVIEWS revlog entries, exported by Anki as a legacy .apkg
    (collection.anki21) and a new .colpkg (collection.anki21b)."""
    from anki.collection import Collection, DeckIdLimit, ExportAnkiPackageOptions

    folder = tmp_path_factory.mktemp("anki-bounds")
    col = Collection(str(folder / "work.anki2"))
    model = col.models.by_name("Basic")
    deck = col.decks.id("Default")
    for number in range(10):
        note = col.new_note(model)
        note["Front"], note["Back"] = f"question {number}", "answer"
        col.add_note(note, deck)
    cards = sorted(col.find_cards(""))
    start = int(_dt.datetime(2025, 3, 1, 8, tzinfo=_dt.UTC).timestamp() * 1000)
    for number in range(REVIEWS):
        col.db.execute("INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type)"
                       " VALUES (?, ?, -1, 3, 1, 0, 0, 8000, 1)", start + number * 3_600_000,
                       cards[number % len(cards)])
    legacy = folder / "legacy.apkg"
    col.export_anki_package(out_path=str(legacy), limit=DeckIdLimit(deck),
                            options=ExportAnkiPackageOptions(
                                with_scheduling=True, with_deck_configs=True, with_media=False,
                                legacy=True))
    new = folder / "new.colpkg"
    col.export_collection_package(str(new), include_media=False, legacy=False)
    col.reopen()
    col.close(downgrade=True)
    return {"legacy.apkg": legacy, "new.colpkg": new}


def _repacked(source: Path, target: Path, member: str, data: bytes,
              compress: int = zipfile.ZIP_STORED) -> Path:
    """`source` with `member` replaced by `data`, every other member as Anki wrote it."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as package:
        for info in old.infolist():
            if info.filename != member:
                package.writestr(info, old.read(info.filename))
        package.writestr(member, data, compress_type=compress)
    return target


def zip_bomb(folder: Path, exported: dict[str, Path]) -> Path:
    """collection.anki21 deflated from 100 MiB of zeros: about 100 KiB packed, so it may
    unpack to 64 MiB only."""
    target = folder / "bomb.apkg"
    with zipfile.ZipFile(exported["legacy.apkg"]) as old, zipfile.ZipFile(target, "w") as package:
        for info in old.infolist():
            if info.filename != "collection.anki21":
                package.writestr(info, old.read(info.filename))
        info = zipfile.ZipInfo("collection.anki21")
        info.compress_type = zipfile.ZIP_DEFLATED
        with package.open(info, "w", force_zip64=True) as member:
            zeros = bytes(1 << 20)
            for _ in range(100):
                member.write(zeros)
    return target


def zstd_bomb(folder: Path, exported: dict[str, Path]) -> Path:
    """collection.anki21b a few KiB of zstd that unpack to 200 MiB: its zip entry says the few
    KiB, so only counting the stream finds it."""
    import zstandard

    compressor = zstandard.ZstdCompressor(level=3)
    chunks = compressor.compressobj()
    packed = b"".join(chunks.compress(bytes(1 << 20)) for _ in range(200)) + chunks.flush()
    return _repacked(exported["new.colpkg"], folder / "zstd-bomb.colpkg", "collection.anki21b",
                     packed)


def costly(folder: Path, exported: dict[str, Path]) -> Path:
    """The legacy package with its revlog's `type` made costly to compute on every row planner
    reads (a generated column: the table, its name and its columns are all still there)."""
    with zipfile.ZipFile(exported["legacy.apkg"]) as old:
        database = folder / "costly.anki21"
        database.write_bytes(old.read("collection.anki21"))
    with sqlite3.connect(database) as connection:
        connection.executescript(f"""
            ALTER TABLE revlog RENAME TO plain;
            CREATE TABLE revlog (id INTEGER PRIMARY KEY, cid INTEGER, usn INTEGER, ease INTEGER,
                ivl INTEGER, lastIvl INTEGER, factor INTEGER, time INTEGER, kind INTEGER,
                {COSTLY_TYPE.format(width=1)});
            INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, kind)
                SELECT id, cid, usn, ease, ivl, lastIvl, factor, time, type FROM plain;
            DROP TABLE plain;
            VACUUM;
        """)
        connection.execute("PRAGMA writable_schema = ON")
        connection.execute("UPDATE sqlite_master SET sql = replace(sql, '1 + kind', "
                           "'2000000 + kind') WHERE name = 'revlog'")
        connection.execute("PRAGMA writable_schema = OFF")
    connection.close()
    data = database.read_bytes()
    database.unlink()
    return _repacked(exported["legacy.apkg"], folder / "costly.apkg", "collection.anki21", data,
                     zipfile.ZIP_DEFLATED)


@pytest.fixture
def temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary folder every planner started here uses."""
    folder = tmp_path / "temp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    return folder


def _refused(home: Path, temp: Path, path: Path, words: str, **env: str) -> float:
    """`planner fit --anki path`: one line naming it and holding `words`, exit 2, memory.json
    as it was, the temporary folder empty; how long it took."""
    memory = home / "memory.json"
    memory.write_text('{"version": 1, "parameters": null, "reset_at": "2026-01-01T00:00:00Z", '
                      '"previous": {}}\n', encoding="utf-8")
    before = memory.read_bytes()
    started = time.monotonic()
    done = run_planner("fit", "--anki", str(path), env={**os.environ, **env})
    took = time.monotonic() - started
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert str(path) in lines[0] and words in lines[0], lines[0]
    assert done.stdout == ""
    assert memory.read_bytes() == before
    assert list(temp.iterdir()) == []
    return took


def test_a_zip_bomb_is_one_line_and_nothing_stays_in_the_temporary_folder(home, exported,
                                                                           tmp_path, temp):
    bomb = zip_bomb(tmp_path, exported)
    assert bomb.stat().st_size < 1024 * 1024
    _refused(home, temp, bomb, "collection.anki21 unpacks to more than 64 MiB")


def test_a_zstd_bomb_is_counted_while_it_streams(home, exported, tmp_path, temp):
    bomb = zstd_bomb(tmp_path, exported)
    with zipfile.ZipFile(bomb) as package:
        # The zip's own sizes are small: nothing but the stream says how much it unpacks to.
        assert package.getinfo("collection.anki21b").file_size < 100 * 1024
    _refused(home, temp, bomb, "collection.anki21b unpacks to more than 64 MiB")


def test_the_bound_is_100_times_the_packed_size_past_64_mib_and_never_past_2_gib():
    mib = 1024 * 1024
    assert anki.inflate_limit(1000) == 64 * mib
    assert anki.inflate_limit(10 * mib) == 1000 * mib
    assert anki.inflate_limit(1024 * mib) == 2048 * mib
    assert anki.QUERY_SECONDS == 10.0


def test_a_costly_collection_is_interrupted_after_the_query_bound(home, exported, tmp_path,
                                                                  temp):
    slow = costly(tmp_path, exported)
    # Lowered from 10 s for the test by PLANNER_ANKI_QUERY_SECONDS: read whole, it takes ~15 s.
    took = _refused(home, temp, slow, "took more than 0.5 s",
                    PLANNER_ANKI_QUERY_SECONDS="0.5")
    # Far below the whole read (~15 s, longer on a busy machine), with room for a loaded one:
    # 4 s was once exceeded (4.07 s) while other work held both cores.
    assert took < 10


def test_the_variable_only_lowers_the_bound(monkeypatch):
    for value, seconds in (("0.5", 0.5), ("60", 10.0), ("-1", 10.0), ("nan", 10.0),
                           ("x", 10.0)):
        monkeypatch.setenv(anki.QUERY_SECONDS_VARIABLE, value)
        assert anki.query_seconds() == seconds


def test_the_same_packages_undamaged_are_read_whole(exported):
    for path in exported.values():
        history = anki.read_history(path)
        assert len(history.reviews) == REVIEWS
        assert "future" not in history.skipped


def test_anki_entries_from_the_future_are_skipped_and_counted(exported):
    # The reviews run hourly from 2025-03-01: as of a moment in the middle, the later ones are
    # from the future; up to a day ahead still counts (clocks differ).
    start = _dt.datetime(2025, 3, 1, 8, tzinfo=_dt.UTC)
    now = start + _dt.timedelta(hours=999)
    history = anki.read_history(exported["new.colpkg"], now=now)
    assert len(history.reviews) == 1000 + 24
    assert history.skipped["future"] == REVIEWS - 1024
    assert max(review.reviewed_at for review in history.reviews) <= now + _dt.timedelta(days=1)
