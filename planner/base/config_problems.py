"""config.json where a problem with it is reported rather than ended on (`planner where`, the
`planner init` questions): the config, or the line saying why it cannot be used."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from planner.base import config, storage, strictjson
from planner.base.config import Config, ConfigError


def config_or_problem(path: Path, home: Path | None = None) -> tuple[Config | None, str | None]:
    """load_config's config and None, or None and the line saying why it cannot be used."""
    try:
        return config.load_config(path, home), None
    except ConfigError as error:
        return None, str(error)


def config_as_written(path: Path) -> tuple[dict[str, Any], str | None]:
    """What config.json holds as written when load_config can use it; else {} and why not."""
    try:
        config.load_config(path)
        data = strictjson.loads(storage.read_regular_file(path, storage.MIB).decode("utf-8"))
    except (ConfigError, OSError, ValueError) as error:
        return {}, str(error)
    return (data if isinstance(data, dict) else {}), None
