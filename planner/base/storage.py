"""Writes to disk: exclusive durable plan files and atomic JSON records."""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path

from planner.base.i18n import t

FILE_MODE = 0o600
DIR_MODE = 0o700
# "x" and no links: never overwrite a plan the person already saved, never write through a link.
_EXCLUSIVE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def to_json(data: object, indent: int | None = None) -> bytes:
    """The on-disk form of a JSON file: UTF-8, newline-terminated."""
    # Records default to one line: with an indent Python falls back to its pure-Python encoder,
    # several milliseconds per run for files that `planner show` presents anyway.
    return (json.dumps(data, ensure_ascii=False, indent=indent) + "\n").encode("utf-8")


def make_private_dir(path: Path) -> None:
    """Create a folder readable only by its owner (0700); fail if it already exists."""
    os.mkdir(path, DIR_MODE)
    try:
        # umask may only remove bits; chmod makes the mode exact whatever umask says.
        os.chmod(path, DIR_MODE)
    except BaseException:
        remove_empty_dir(path)
        raise


def remove_empty_dir(path: Path) -> None:
    """Take back a folder this run just made, if nothing is in it."""
    try:
        os.rmdir(path)
    except OSError:
        pass


def ensure_dir(path: Path) -> None:
    """Create a folder (0700) unless it already exists as a real folder."""
    try:
        make_private_dir(path)
    except FileExistsError:
        if path.is_symlink() or not path.is_dir():
            raise NotADirectoryError(t("{path} exists and is not a folder", path=path)) from None


def create_exclusive(path: Path, data: bytes) -> None:
    """Write a new file that must not exist yet, flushed to disk; leave nothing partial."""
    fd = os.open(path, _EXCLUSIVE, FILE_MODE)
    try:
        write_all(fd, data)
        os.fsync(fd)
        os.close(fd)
        fd = -1
        sync_dir(path.parent)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        # We created it a moment ago with O_EXCL, so removing the partial file is ours to do.
        _unlink_quietly(path)
        raise


def write_atomic(path: Path, data: bytes) -> None:
    """Replace `path` with `data` all at once: temporary file, flush, rename."""
    temp = path.with_name(f".{path.name}.{os.urandom(4).hex()}.tmp")
    fd = os.open(temp, _EXCLUSIVE, FILE_MODE)
    try:
        write_all(fd, data)
        os.fsync(fd)
        os.close(fd)
        fd = -1
        os.replace(temp, path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        _unlink_quietly(temp)
        raise


def replace_keeping(path: Path, data: bytes, backup: Path) -> None:
    """`path` replaced whole by `data`, its old bytes kept first as `backup` (created
    exclusively: a hard link, or a copy where links cannot be made), which is taken back when
    the replacing fails."""
    try:
        os.link(path, backup)
    except OSError:
        # A file system without hard links: the old bytes copied into a new file.
        create_exclusive(backup, read_regular_file(path, MIB))
    try:
        write_atomic(path, data)
    except BaseException:
        os.unlink(backup)
        raise


def write_all(fd: int, data: bytes) -> None:
    """Every byte of `data` to `fd` (a write may take only part of it)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def sync_dir(path: str | os.PathLike[str]) -> None:
    """Make a new directory entry durable (the file's own fsync does not cover its name)."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


class FileRefused(ValueError):
    """A file planner was asked to read is not a regular file of bounded size.

    str() is the line naming the file; `reason` is the same without the path in front, for a
    listing whose row already names the file.
    """

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


MIB = 1024 * 1024
# O_NONBLOCK: opening a FIFO must not wait for a writer (no effect on regular files).
_READ = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK


def read_regular_file(path: Path | str, limit: int, follow_links: bool = True) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; FileRefused for anything else.

    Raises FileNotFoundError when it does not exist and OSError when it cannot be read; a FIFO,
    a device, a folder (or, with follow_links=False, any symbolic link) is refused without
    waiting, and so is a file larger than `limit`, before its contents are read.
    """
    flags = _READ if follow_links else _READ | os.O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except OSError as error:
        if error.errno == errno.ELOOP and not follow_links:
            raise FileRefused(
                t("{path} is a symbolic link, which is not followed here", path=path),
                t("is a symbolic link, which is not followed here")) from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = file_kind(info.st_mode)
            raise FileRefused(t("{path} is not a regular file ({kind})", path=path, kind=kind),
                              t("is not a regular file ({kind})", kind=kind))
        if info.st_size > limit:
            raise _too_large(path, limit)
        # Read one byte past the limit: a file that grows while being read is refused too.
        parts, left = [], limit + 1
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            parts.append(chunk)
            left -= len(chunk)
        data = b"".join(parts)
        if len(data) > limit:
            raise _too_large(path, limit)
        return data
    finally:
        os.close(fd)


def _too_large(path: Path | str, limit: int) -> FileRefused:
    size = _size(limit)
    return FileRefused(t("{path} is larger than {size}", path=path, size=size),
                       t("is larger than {size}", size=size))


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words: 'a FIFO', 'a device', ..."""
    if stat.S_ISDIR(mode):
        return t("a folder")
    if stat.S_ISFIFO(mode):
        return t("a FIFO")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return t("a device")
    if stat.S_ISSOCK(mode):
        return t("a socket")
    return t("not a plain file")


def _size(limit: int) -> str:
    return f"{limit // MIB} MiB" if limit % MIB == 0 else t("{count:,} bytes", count=limit)
