"""A Radicale CalDAV server for the tests (module-scoped), its calendar, a proxy before it."""

from __future__ import annotations

import http.client
import http.server
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    import caldav

USER = "alice"
PASSWORD = "Tr0ub4dor&3:planner"  # a colon and an ampersand: passed on as they are


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"radicale stopped: {log.read_text(errors='replace')}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"radicale did not start: {log.read_text(errors='replace')}")


@pytest.fixture(scope="module")
def radicale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real Radicale server with one user and its own storage; its URL. Stopped afterwards."""
    root = tmp_path_factory.mktemp("radicale")
    (root / "users").write_text(f"{USER}:{PASSWORD}\n", encoding="utf-8")
    port = free_port()
    (root / "config").write_text(
        f"[server]\nhosts = 127.0.0.1:{port}\n"
        f"[auth]\ntype = htpasswd\nhtpasswd_filename = {root / 'users'}\n"
        "htpasswd_encryption = plain\ndelay = 0\n"
        f"[storage]\nfilesystem_folder = {root / 'storage'}\n"
        "[rights]\ntype = owner_only\n[web]\ntype = none\n[logging]\nlevel = warning\n",
        encoding="utf-8")
    log = root / "log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "radicale", "--config", str(root / "config")],
            stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port, process, log)
        yield f"http://127.0.0.1:{port}/"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def calendar(radicale: str) -> caldav.Calendar:
    import caldav  # only the tests that ask for a calendar pay for it

    """A new, empty calendar of the user's, named 'planner reviews <random>'."""
    client = caldav.DAVClient(url=radicale, username=USER, password=PASSWORD,
                              enable_rfc6764=False)
    return client.principal().make_calendar(name=f"planner reviews {uuid.uuid4().hex[:8]}")


class Proxy:
    """An HTTP proxy in front of the server that records every request and can fail some."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.requests: list[tuple[str, str]] = []
        self.fail: Callable[[str, int], int | None] = lambda method, count: None
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def forward(self) -> None:
                proxy.requests.append((self.command, self.path))
                count = sum(1 for method, _ in proxy.requests if method == self.command)
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status = proxy.fail(self.command, count)
                if status is not None:
                    reply = f"failed on purpose ({PASSWORD} must never be shown)".encode()
                    self.send_response(status)
                    self.send_header("Content-Length", str(len(reply)))
                    self.end_headers()
                    self.wfile.write(reply)
                    return
                host, port = proxy.target.removeprefix("http://").strip("/").split(":")
                upstream = http.client.HTTPConnection(host, int(port), timeout=30)
                headers = {name: value for name, value in self.headers.items()
                           if name.lower() not in ("host", "connection", "accept-encoding")}
                upstream.request(self.command, self.path, body=body, headers=headers)
                answer = upstream.getresponse()
                data = answer.read()
                upstream.close()
                self.send_response(answer.status, answer.reason)
                for name, value in answer.getheaders():
                    if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_PUT = do_DELETE = do_PROPFIND = do_REPORT = do_OPTIONS = forward
            do_PROPPATCH = do_MKCALENDAR = do_HEAD = do_POST = forward

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def methods(self) -> Counter:
        return Counter(method for method, _ in self.requests)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def proxy(radicale: str) -> Iterator[Proxy]:
    front = Proxy(radicale)
    try:
        yield front
    finally:
        front.close()
