"""Install advice for this environment (README "中文界面"): the command for the Python running
planner.

`pip install` alone reaches whichever Python comes first on the PATH (often the system's), not
the virtual environment planner runs in; `<this python> -m pip install` always reaches it.
"""

from __future__ import annotations

import shlex
import sys


def install_command(extra: str) -> str:
    """The command that installs planner's optional `extra` into the Python running planner."""
    python = sys.executable or "python3"
    return f"{shlex.quote(python)} -m pip install 'planner[{extra}]'"
