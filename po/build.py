"""Compile the Chinese catalog: every po/zh/*.po, merged, into planner/locale/zh (planner.mo).

Run by the build (setup.py) and by make when a .po file changes; Babel is needed here only,
never when planner runs.
"""

import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
PARTS = ROOT / "po" / "zh"
TARGET = ROOT / "planner" / "locale" / "zh" / "LC_MESSAGES" / "planner.mo"


def merged(parts: Path = PARTS) -> Catalog:
    """One catalog from every part; a message translated two ways is an error."""
    catalog = Catalog(locale="zh_Hans_CN", domain="planner", fuzzy=False)
    seen: dict[object, str] = {}
    for part in sorted(parts.glob("*.po")):
        with part.open("rb") as stream:
            for message in read_po(stream, locale="zh_Hans_CN"):
                if not message.id:
                    continue
                if message.id in seen:
                    if catalog[message.id].string != message.string:
                        raise SystemExit(f"{part.name}: {message.id!r} is translated "
                                         f"differently in {seen[message.id]}")
                    continue
                seen[message.id] = part.name
                catalog[message.id] = message
    return catalog


def build(target: Path = TARGET) -> None:
    """Write the compiled catalog next to planner's modules (atomically)."""
    catalog = merged()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".mo.partial")
    with partial.open("wb") as stream:
        write_mo(stream, catalog, use_fuzzy=False)
    partial.replace(target)


if __name__ == "__main__":
    build(Path(sys.argv[1]) if len(sys.argv) > 1 else TARGET)
