"""A total deadline for one network request, however slowly the other side answers."""

# The HTTP libraries' timeouts are per read: a server that sends a byte every few seconds never
# trips them. A watchdog thread ends such a request instead: it calls the caller's `end` (shut the
# request's sockets down, close the session), which makes the blocked read return at once, and
# leaving the block then raises DeadlinePassed. Closing a socket is not enough: on Linux a read
# blocked on it goes on until the next byte; shutdown() wakes it.

from __future__ import annotations

import contextlib
import socket
import threading
import weakref
from collections.abc import Callable
from types import TracebackType

# The total deadline is the per-read timeout plus this (README "A screen you can trust").
MARGIN_SECONDS = 5


class DeadlinePassed(TimeoutError):
    """A request was still running when its total deadline passed, and was ended."""

    def __init__(self) -> None:
        super().__init__("timed out")


class Deadline:
    """`with Deadline(seconds, end):` around one request; `end` is called once, from a watchdog
    thread, if the block still runs after `seconds`, and leaving the block then raises
    DeadlinePassed, whatever the request raised or returned. No thread outlives the block."""

    def __init__(self, seconds: float, end: Callable[[], object]) -> None:
        self._seconds = seconds
        self._end = end
        self._timer: threading.Timer | None = None
        self.passed = False

    def __enter__(self) -> Deadline:
        self._timer = threading.Timer(self._seconds, self._expire)
        # A watchdog never keeps the process alive, even if the block is left by an exit.
        self._timer.daemon = True
        self._timer.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        assert self._timer is not None
        self._timer.cancel()
        # Wait for an `end` already under way, so nothing of this request is left running.
        self._timer.join()
        if self.passed and (error is None or isinstance(error, Exception)):
            # Whatever the library made of its cut connection, it was the deadline.
            raise DeadlinePassed from None

    def _expire(self) -> None:
        self.passed = True
        # Best effort: the request may be ending by itself just now.
        with contextlib.suppress(Exception):
            self._end()


class Sockets:
    """The sockets of one HTTP client, so a watchdog can end a read blocked on any of them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # Weak: a connection the library closed and dropped is not kept open by this list.
        self._sockets: weakref.WeakSet[socket.socket] = weakref.WeakSet()

    def add(self, sock: object) -> None:
        if isinstance(sock, socket.socket):
            with self._lock:
                self._sockets.add(sock)

    def shut_down(self) -> None:
        """Shut every socket down both ways: a blocked read returns at once, as at a hang-up."""
        with self._lock:
            sockets = list(self._sockets)
        for sock in sockets:
            try:
                # socket.socket's own shutdown, also for a TLS socket: ssl.SSLSocket's would
                # drop its TLS state under the thread still reading it.
                socket.socket.shutdown(sock, socket.SHUT_RDWR)
            except OSError:  # already closed (or detached into its TLS socket)
                pass
