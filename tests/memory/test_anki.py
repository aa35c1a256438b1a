"""README "A memory fitted to you": Anki's review history, from packages made by Anki's own code
(the `anki` wheel, a test
dependency only) in both generations, with the decoy, and a bare collection.anki2; and every
kind of bad file refused in one line, exit 2, memory.json unchanged."""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import random
import sqlite3
import zipfile
from pathlib import Path

import learner
import pytest
from conftest import run_planner

from planner.memory import anki

# Anki's own code takes a second to start, and building the packages ten more: one worker
# builds them once for every test here.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("anki")]

CARDS, DAYS = 80, 200
RATINGS = {"again": 1, "hard": 2, "good": 3, "easy": 4}
# Entries that must be skipped, by reason: (type, ease) and how many.
SKIPPED = {"filtered": ((3, 3), 3), "manual": ((4, 0), 2), "no_rating": ((1, 0), 4)}


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A collection with a simulated learner's revlog, exported by Anki itself: legacy and new
    .apkg and .colpkg, and the bare legacy collection.anki2."""
    from anki.collection import Collection, DeckIdLimit, ExportAnkiPackageOptions

    folder = tmp_path_factory.mktemp("anki")
    col = Collection(str(folder / "work.anki2"))
    model = col.models.by_name("Basic")
    deck = col.decks.id("Default")
    for number in range(CARDS):
        note = col.new_note(model)
        note["Front"], note["Back"] = f"question {number}", "answer"
        col.add_note(note, deck)
    card_ids = sorted(col.find_cards(""))
    start = _dt.datetime(2025, 3, 1, 8, tzinfo=_dt.UTC)
    seen: set[str] = set()
    used: set[int] = set()
    for card, moment, rating in learner.history(CARDS, DAYS, seed=7, start=start):
        milliseconds = int(moment.timestamp() * 1000)
        while milliseconds in used:
            milliseconds += 1
        used.add(milliseconds)
        kind = 1 if card in seen else 0
        seen.add(card)
        col.db.execute("INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type)"
                       " VALUES (?, ?, -1, ?, 1, 0, 0, 8000, ?)", milliseconds,
                       card_ids[int(card[1:])], RATINGS[rating], kind)
    extra = int(start.timestamp() * 1000) + 7
    for (kind, ease), count in SKIPPED.values():
        for _ in range(count):
            extra += 1
            col.db.execute("INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time,"
                           " type) VALUES (?, ?, -1, ?, 0, 0, 0, 0, ?)", extra, card_ids[0],
                           ease, kind)
    found: dict[str, Path] = {}
    for legacy in (True, False):
        name = "legacy" if legacy else "new"
        options = ExportAnkiPackageOptions(with_scheduling=True, with_deck_configs=True,
                                           with_media=False, legacy=legacy)
        found[f"{name}.apkg"] = folder / f"{name}.apkg"
        col.export_anki_package(out_path=str(found[f"{name}.apkg"]), options=options,
                                limit=DeckIdLimit(deck))
    for legacy in (False, True):
        name = "legacy" if legacy else "new"
        found[f"{name}.colpkg"] = folder / f"{name}.colpkg"
        col.export_collection_package(str(found[f"{name}.colpkg"]), include_media=False,
                                      legacy=legacy)
        col.reopen()
    col.close(downgrade=True)
    bare = folder / "bare" / "collection.anki2"
    bare.parent.mkdir()
    bare.write_bytes((folder / "work.anki2").read_bytes())
    found["collection.anki2"] = bare
    return found


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_every_generation_reads_the_same_history_and_never_the_decoy(packages):
    histories = {name: anki.read_history(path) for name, path in packages.items()}
    members = {name: history.member for name, history in histories.items()}
    assert members == {"legacy.apkg": "collection.anki21", "new.apkg": "collection.anki21b",
                       "new.colpkg": "collection.anki21b", "legacy.colpkg": "collection.anki21",
                       "collection.anki2": None}
    for name in ("new.apkg", "new.colpkg", "legacy.colpkg"):
        # The newer packages also hold a decoy collection.anki2 with one card and no reviews.
        assert "collection.anki2" in zipfile.ZipFile(packages[name]).namelist()
    first = histories["collection.anki2"]
    assert len(first.reviews) == len(learner.history(CARDS, DAYS, seed=7))
    assert first.skipped == {"filtered": 3, "manual": 2, "no_rating": 4, "bad_time": 0}
    for history in histories.values():
        assert history.reviews == first.reviews and history.skipped == first.skipped


def test_fit_with_an_anki_package_reads_it_only_and_counts_what_it_skipped(home, packages):
    before = {name: (digest(path), path.stat().st_mtime_ns) for name, path in packages.items()}
    done = run_planner("fit", "--anki", str(packages["new.colpkg"]), "--json")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    anki_source = shown["sources"][1]
    assert anki_source == {"kind": "anki", "name": str(packages["new.colpkg"]),
                           "reviews": len(learner.history(CARDS, DAYS, seed=7)),
                           "skipped": {"filtered": 3, "manual": 2, "no_rating": 4}}
    assert shown["reviews"] == anki_source["reviews"]
    assert shown["adopted"] == (shown["log_loss"] < shown["previous"]["log_loss"]
                                and shown["rmse_bins"] < shown["previous"]["rmse_bins"])
    after = {name: (digest(path), path.stat().st_mtime_ns) for name, path in packages.items()}
    assert after == before
    # Nothing of the package is copied into the home: only what planner keeps itself.
    kept = {path.name for path in home.rglob("*") if path.is_file()}
    assert kept <= {"memory.json", "memory-cache.txt", "memory-cache-ids.txt"}
    table = run_planner("fit", "--anki", str(packages["legacy.apkg"]))
    assert table.returncode == 0, table.stderr
    assert "filtered 3, manual 2, no_rating 4" in table.stdout


def bad_files(folder: Path, packages: dict[str, Path]) -> dict[str, tuple[Path, str]]:
    """Each kind of bad input, and a word its one line must hold."""
    rng = random.Random(24)
    whole = packages["new.colpkg"].read_bytes()
    damaged = folder / "damaged.colpkg"
    damaged.write_bytes(whole[: len(whole) // 2])
    foreign = folder / "notes.sqlite"
    with sqlite3.connect(foreign) as connection:
        connection.execute("CREATE TABLE notes (id INTEGER, text TEXT)")
    connection.close()
    noise = folder / "noise.apkg"
    noise.write_bytes(rng.randbytes(5000))
    zstd = folder / "zstd.colpkg"
    with zipfile.ZipFile(zstd, "w") as package:
        package.writestr("collection.anki21b", b"\x28\xb5\x2f\xfd" + rng.randbytes(3000))
        package.writestr("collection.anki2", b"decoy")
    empty = folder / "empty.apkg"
    with zipfile.ZipFile(empty, "w") as package:
        package.writestr("media", b"{}")
    return {"damaged zip": (damaged, "damaged zip"), "not Anki": (foreign, "not an Anki"),
            "random bytes": (noise, "not an Anki"), "corrupt zstd": (zstd, "zstd"),
            "no collection": (empty, "no Anki collection")}


def test_bad_files_are_one_line_exit_2_and_memory_unchanged(home, packages, tmp_path):
    memory = home / "memory.json"
    memory.write_text('{"version": 1, "parameters": null, "reset_at": "2026-01-01T00:00:00Z", '
                      '"previous": {}}\n', encoding="utf-8")
    before = memory.read_bytes()
    for kind, (path, words) in bad_files(tmp_path, packages).items():
        done = run_planner("fit", "--anki", str(path))
        assert done.returncode == 2, (kind, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1, (kind, lines)
        assert str(path) in lines[0] and words in lines[0], (kind, lines[0])
        assert "Traceback" not in done.stderr and done.stdout == ""
        assert memory.read_bytes() == before
