"""README "中文界面": the compiled Chinese catalog is inside the wheel, not only in an editable
install."""

from __future__ import annotations

import gettext
import io
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
CATALOG = "planner/locale/zh/LC_MESSAGES/planner.mo"

pytestmark = pytest.mark.slow  # builds a wheel


def test_the_wheel_carries_the_chinese_catalog(tmp_path: Path) -> None:
    # A clone of the committed sources, without the catalog built here: the build makes it.
    source = tmp_path / "source"
    subprocess.run(["git", "clone", "--quiet", "--no-local", str(ROOT), str(source)],
                   check=True, timeout=120)
    assert not (source / CATALOG).exists()
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
         "--disable-pip-version-check", "--wheel-dir", str(tmp_path / "dist"), str(source)],
        capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("planner-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        data = archive.read(CATALOG)
        names = archive.namelist()
    assert not any(name.startswith("po/") for name in names)
    catalog = gettext.GNUTranslations(io.BytesIO(data))
    assert catalog.gettext("Type SAVE to save this plan; anything else cancels: ") == \
        "输入 SAVE 保存这个计划，输入其他内容则取消："
