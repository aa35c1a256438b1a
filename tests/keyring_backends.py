"""Keyring backends for the tests, chosen with PYTHON_KEYRING_BACKEND (never a real keyring).

`keyring_backends.FileKeyring` keeps entries in the JSON file named by PLANNER_TEST_KEYRING;
`keyring_backends.BrokenKeyring` fails every operation as a locked or broken OS keyring does,
with an error message that repeats what it was given.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from keyring.backend import KeyringBackend
from keyring.errors import KeyringError, PasswordDeleteError


class FileKeyring(KeyringBackend):
    """A keyring in one JSON file: {"service\\nuser": password}."""

    # Below the fail keyring's 0: used only when PYTHON_KEYRING_BACKEND names it. Once a test
    # has imported this module, keyring's own choice (a run in the test process that names no
    # backend) must not pick it, as a planner process, which never imports it, would not.
    priority = -1  # type: ignore[assignment]

    @property
    def _path(self) -> Path:
        return Path(os.environ["PLANNER_TEST_KEYRING"])

    def _load(self) -> dict:
        try:
            return json.loads(self._path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}

    def get_password(self, service: str, username: str) -> str | None:
        return self._load().get(f"{service}\n{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        entries = self._load()
        entries[f"{service}\n{username}"] = password
        self._path.write_text(json.dumps(entries), encoding="utf-8")

    def delete_password(self, service: str, username: str) -> None:
        entries = self._load()
        if entries.pop(f"{service}\n{username}", None) is None:
            raise PasswordDeleteError("no such entry")
        self._path.write_text(json.dumps(entries), encoding="utf-8")


class BrokenKeyring(KeyringBackend):
    """Every call fails, as a locked keyring or a dead D-Bus session does."""

    priority = -1  # type: ignore[assignment]  # only when named, as FileKeyring

    def get_password(self, service: str, username: str) -> str | None:
        raise KeyringError(f"the keyring is locked (asked for {service}/{username})")

    def set_password(self, service: str, username: str, password: str) -> None:
        # Echoes what it was given, as careless backends do: planner must not show it.
        raise KeyringError(f"cannot store {password!r}: the keyring is locked")

    def delete_password(self, service: str, username: str) -> None:
        raise KeyringError("the keyring is locked")
