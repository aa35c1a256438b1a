"""The build: compiles the Chinese catalog into the package before the modules are copied."""

import runpy
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithCatalogs(build_py):
    """build_py that first writes planner/locale/zh/LC_MESSAGES/planner.mo from po/zh/*.po."""

    def run(self) -> None:
        runpy.run_path(str(Path(__file__).parent / "po" / "build.py"))["build"]()
        super().run()


setup(cmdclass={"build_py": BuildWithCatalogs})
