"""A server that sends one header line a second and never finishes: deadlines are measured
on it."""

from __future__ import annotations

import socket
import threading
import time

INTERVAL = 1.0  # seconds between the server's header lines
LIFETIME = 60.0  # the server stops trickling (and hangs up) after this, whatever happens


class TrickleServer:
    """HTTP on 127.0.0.1 that answers every request with `HTTP/1.1 200 OK`, then one header line
    every INTERVAL seconds, never the blank line that ends them. It hangs up after LIFETIME
    seconds, or at once when stopped."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.2)
        self._stop = threading.Event()
        self._until = time.monotonic() + LIFETIME
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self.requests: list[bytes] = []  # each request's first line
        self.lines_sent = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def __enter__(self) -> TrickleServer:
        self._start(self._accept)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        # The accepting thread first: once it is done, no connection thread starts.
        self._threads[0].join(timeout=10)
        for thread in self._threads[1:]:
            thread.join(timeout=10)
        self._listener.close()

    def _start(self, target, *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        with self._lock:
            self._threads.append(thread)
        thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set() and time.monotonic() < self._until:
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            self._start(self._trickle, connection)

    def _trickle(self, connection: socket.socket) -> None:
        with connection:
            connection.settimeout(5)
            try:
                self._read_request(connection)
                connection.sendall(b"HTTP/1.1 200 OK\r\n")
                number = 0
                while not self._stop.wait(INTERVAL) and time.monotonic() < self._until:
                    connection.sendall(b"X-Still-Thinking-%d: yes\r\n" % number)
                    number += 1
                    with self._lock:
                        self.lines_sent += 1
            except OSError:  # the client hung up: what a deadline does
                return

    def _read_request(self, connection: socket.socket) -> None:
        """The whole request (head and body), so the client is waiting only for the answer."""
        with connection.makefile("rb") as reader:
            first = reader.readline()
            length = 0
            while (line := reader.readline()) not in (b"\r\n", b"\n", b""):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            reader.read(length)
        with self._lock:
            self.requests.append(first.strip())
