"""A scripted OpenAI-compatible server on 127.0.0.1 (Chat Completions and the Responses API),
standard library only.

In tests: start a `StubServer` with a queue of `Reply` objects (or a responder function), point
`base_url` at `server.url`, and read `server.requests` afterwards. As a process (benchmarks):

    python tests/stub_server.py --port 0 --bench            # tool call for tool_choice "auto",
                                                             # explanation for "none", forever
    python tests/stub_server.py --port 0 --bench --api responses   # the same as Responses
    python tests/stub_server.py --port 8765 --script replies.json [--loop]

The process prints one line `READY http://127.0.0.1:PORT` on stdout once it listens, then serves
until SIGTERM or SIGINT. A script file is a JSON list of replies, each an object with the
fields of `Reply`: {"status": 200, "body": {...} or "text", "headers": {}, "delay": 0,
"drop": false}.
"""

from __future__ import annotations

import argparse
import json
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CHAT_PATHS = ("/chat/completions", "/v1/chat/completions")
# POST {base_url}/responses: answered from the same queue of replies.
RESPONSES_PATHS = ("/responses", "/v1/responses")
TOOL_NAME = "save_review_plan"
PLAN = {"title": "RAG basics", "note_ids": ["N1", "N2"], "date": "2026-10-05", "minutes": 20}


# --- response bodies ---------------------------------------------------------------------------


def usage(
    prompt: int = 700, completion: int = 40, hit: int | None = 640, miss: int | None = None
) -> dict:
    """A usage object as DeepSeek returns it (cache split included unless hit is None)."""
    data = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if hit is not None:
        data["prompt_cache_hit_tokens"] = hit
        data["prompt_cache_miss_tokens"] = prompt - hit if miss is None else miss
    return data


def completion(
    message: dict | None = None,
    finish_reason: object = "stop",
    *,
    usage_data: dict | None = None,
    choices: list | None = None,
    completion_id: str = "chatcmpl-stub",
    model: str = "stub-model",
) -> dict:
    """A Chat Completions body; `choices` replaces the single choice built from message."""
    if choices is None:
        choices = [{"index": 0, "message": message, "finish_reason": finish_reason}]
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": 1_790_000_000,
        "model": model,
        "choices": choices,
        "usage": usage() if usage_data is None else usage_data,
    }


def tool_call(
    arguments: object = None,
    *,
    call_id: str = "call_0001",
    name: str = TOOL_NAME,
    call_type: str = "function",
) -> dict:
    """One tool call; `arguments` that is a dict becomes JSON text, anything else stays as is."""
    if arguments is None:
        arguments = PLAN
    if isinstance(arguments, dict):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return {"id": call_id, "type": call_type, "function": {"name": name, "arguments": arguments}}


def assistant_tool_message(*calls: dict, content: str | None = None) -> dict:
    """The assistant message of a tool-call reply (one call by default)."""
    return {"role": "assistant", "content": content, "tool_calls": list(calls) or [tool_call()]}


def tool_call_reply(
    arguments: object = None,
    *,
    calls: Iterable[dict] | None = None,
    finish_reason: object = "tool_calls",
    usage_data: dict | None = None,
    **call_fields: object,
) -> dict:
    """A whole reply proposing one call (or `calls`), finish_reason tool_calls by default."""
    chosen = list(calls) if calls is not None else [tool_call(arguments, **call_fields)]
    message = {"role": "assistant", "content": None, "tool_calls": chosen}
    return completion(message, finish_reason, usage_data=usage_data)


def text_reply(
    text: str, *, finish_reason: object = "stop", usage_data: dict | None = None
) -> dict:
    """A whole reply with a plain text answer and no tool call."""
    return completion({"role": "assistant", "content": text}, finish_reason, usage_data=usage_data)


def error_body(
    message: str, error_type: str = "invalid_request_error", code: object = None
) -> dict:
    """An OpenAI-style error body: {"error": {"message", "type", "param", "code"}}."""
    return {"error": {"message": message, "type": error_type, "param": None, "code": code}}


# --- Responses API bodies (shapes: tests/provider_replies.py cites them) -----------------------


def responses_usage(
    input_tokens: int = 700, output_tokens: int = 40, cached: int = 640, reasoning: int = 0
) -> dict:
    """A Responses usage object (input and output tokens with their details)."""
    return {"input_tokens": input_tokens, "input_tokens_details": {"cached_tokens": cached},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": reasoning},
            "total_tokens": input_tokens + output_tokens}


def response(
    output: list,
    status: str = "completed",
    *,
    usage_data: dict | None = None,
    incomplete: dict | None = None,
    error: dict | None = None,
    response_id: str = "resp_stub",
    model: str = "stub-model",
) -> dict:
    """A Responses body (object "response") with the given output items."""
    return {"id": response_id, "object": "response", "created_at": 1_790_000_000,
            "status": status, "error": error, "incomplete_details": incomplete,
            "model": model, "output": output, "store": False,
            "usage": responses_usage() if usage_data is None else usage_data}


def function_call_item(
    arguments: object = None, *, call_id: object = "call_0001", name: str = TOOL_NAME,
    item_id: str = "fc_0001",
) -> dict:
    """A function_call output item; `arguments` that is a dict becomes JSON text."""
    if arguments is None:
        arguments = PLAN
    if isinstance(arguments, dict):
        arguments = json.dumps(arguments, ensure_ascii=False)
    item = {"id": item_id, "type": "function_call", "status": "completed",
            "arguments": arguments, "call_id": call_id, "name": name}
    if call_id is None:
        del item["call_id"]
    return item


def message_item(text: str, item_id: str = "msg_0001") -> dict:
    """An assistant message output item with one output_text part."""
    return {"id": item_id, "type": "message", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def reasoning_item(summary: str = "", item_id: str = "rs_0001",
                   encrypted: str = "gAAAAABstub-encrypted-reasoning==") -> dict:
    """A reasoning output item with its encrypted content (include reasoning.encrypted_content)."""
    parts = [{"type": "summary_text", "text": summary}] if summary else []
    return {"id": item_id, "type": "reasoning", "summary": parts,
            "encrypted_content": encrypted}


# --- the server --------------------------------------------------------------------------------


@dataclass
class Reply:
    """One scripted answer: status, body (dict/list → JSON, str/bytes as is), extra headers.

    `delay` waits that many seconds before answering; `drop` closes the connection without
    sending anything at all.
    """

    status: int = 200
    body: object = None
    headers: dict = field(default_factory=dict)
    delay: float = 0.0
    drop: bool = False

    def encoded(self) -> tuple[bytes, dict]:
        """The body bytes and the headers to send with them."""
        headers = {key.lower(): value for key, value in self.headers.items()}
        if isinstance(self.body, bytes):
            data = self.body
            headers.setdefault("content-type", "application/octet-stream")
        elif isinstance(self.body, str):
            data = self.body.encode("utf-8")
            headers.setdefault("content-type", "text/plain; charset=utf-8")
        else:
            data = json.dumps(self.body, ensure_ascii=False).encode("utf-8")
            headers.setdefault("content-type", "application/json")
        return data, headers

    @classmethod
    def from_json(cls, data: dict) -> Reply:
        """A reply from one entry of a script file."""
        return cls(**data)


@dataclass
class Received:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict  # names in lower case
    raw: bytes
    body: object  # the decoded JSON body, or None when it was not JSON


Responder = Callable[[Received], Reply]


def by_tool_choice(proposal: Reply, explanation: Reply) -> Responder:
    """A responder for endless runs: a proposal for tool_choice "auto", else an explanation."""

    def respond(received: Received) -> Reply:
        body = received.body if isinstance(received.body, dict) else {}
        return proposal if body.get("tool_choice") == "auto" else explanation

    return respond


def bench_responder(api: str = "chat") -> Responder:
    """The benchmark's two replies: propose the default plan, then explain the result."""
    explained = "The program reported the result; nothing else was done."
    if api == "responses":
        return by_tool_choice(
            Reply(body=response([reasoning_item(), function_call_item()])),
            Reply(body=response([message_item(explained)])),
        )
    return by_tool_choice(Reply(body=tool_call_reply()), Reply(body=text_reply(explained)))


class StubServer:
    """A scripted Chat Completions server in a background thread; a context manager."""

    def __init__(
        self,
        replies: Iterable[Reply] = (),
        *,
        responder: Responder | None = None,
        loop: bool = False,
        port: int = 0,
        keep_requests: bool = True,
    ) -> None:
        self.replies: list[Reply] = list(replies)
        self.responder = responder
        self.loop = loop
        # A process answering forever (benchmarks) does not keep every request it saw.
        self.keep_requests = keep_requests
        self.requests: list[Received] = []
        self._next = 0
        self._lock = threading.Lock()
        # Set on stop, so that delayed answers end at once instead of holding threads.
        self.stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """The base_url to configure: http://127.0.0.1:PORT."""
        return f"http://127.0.0.1:{self.port}"

    def add(self, *replies: Reply) -> None:
        """Queue more scripted replies."""
        with self._lock:
            self.replies.extend(replies)

    def start(self) -> StubServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def chat_requests(self) -> list[Received]:
        """The requests sent to a Chat Completions path."""
        return [r for r in self.requests if r.path in CHAT_PATHS]

    def responses_requests(self) -> list[Received]:
        """The requests sent to a Responses path."""
        return [r for r in self.requests if r.path in RESPONSES_PATHS]

    def _answer_for(self, received: Received) -> Reply:
        with self._lock:
            if self.keep_requests:
                self.requests.append(received)
            if self.responder is not None:
                return self.responder(received)
            if self._next >= len(self.replies):
                if not (self.loop and self.replies):
                    return Reply(500, error_body("stub server: no scripted reply left"))
                self._next = 0
            reply = self.replies[self._next]
            self._next += 1
            return reply


def _handler_for(server: StubServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as a real API server does
        disable_nagle_algorithm = True  # no 40 ms stalls between header and body segments

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            headers = {name.lower(): value for name, value in self.headers.items()}
            received = Received(self.command, self.path.split("?")[0], headers, raw, body)
            if received.path not in CHAT_PATHS + RESPONSES_PATHS:
                with server._lock:
                    if server.keep_requests:
                        server.requests.append(received)
                self._send(Reply(404, error_body(f"stub server: no route {received.path}")))
                return
            self._send(server._answer_for(received))

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            self._send(Reply(404, error_body("stub server: only POST /chat/completions and "
                                             "/responses")))

        def _send(self, reply: Reply) -> None:
            if reply.delay and server.stopping.wait(reply.delay):
                self.close_connection = True
                return
            if reply.drop:
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return
            data, headers = reply.encoded()
            try:
                self.send_response(reply.status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the client gave up (e.g. its timeout); nothing left to do
                self.close_connection = True

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

    return Handler


# --- as a process ------------------------------------------------------------------------------


def _script_replies(path: str) -> list[Reply]:
    with open(path, encoding="utf-8") as file:
        data = json.load(file)
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise SystemExit(f"{path}: must be a JSON list of reply objects")
    try:
        return [Reply.from_json(item) for item in data]
    except TypeError as error:
        raise SystemExit(f"{path}: a reply has an unknown field ({error})") from None


# How long a stopped server process has to end after SIGTERM before it gets SIGKILL, and how
# long it then has: bounded, so a server that does not stop fails its test instead of outliving
# the suite.
TERM_GRACE = 10.0
KILL_GRACE = 10.0


class ServerProcess:
    """This file run as its own process (as the benchmarks run it), a context manager: started
    with `args` (`--bench`, `--script FILE`), `url` once it says READY; stopped with SIGTERM,
    then SIGKILL if it has not ended within TERM_GRACE seconds, and always waited for."""

    def __init__(self, *args: str) -> None:
        import os
        import subprocess

        # Not under libfaketime (make test-clock): the server is the tests' tool, not the
        # program whose clock is moved, and the library's moved clock made its timed waits
        # outlast the wait for it to stop.
        env = {name: value for name, value in os.environ.items()
               if name not in ("LD_PRELOAD", "FAKETIME")}
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--port", "0", *args], stdout=subprocess.PIPE, text=True,
            env=env)
        self.returncode: int | None = None
        try:
            ready = self.process.stdout.readline().split()  # type: ignore[union-attr]
            assert ready[:1] == ["READY"] and len(ready) == 2, ready
        except BaseException:
            self.kill()
            raise
        self.url = ready[1]

    def stop(self) -> int:
        """SIGTERM, then SIGKILL after TERM_GRACE seconds; the exit code (-9 when killed)."""
        import subprocess

        if self.returncode is None:
            self.process.terminate()
            try:
                self.returncode = self.process.wait(timeout=TERM_GRACE)
            except subprocess.TimeoutExpired:
                self.kill()
            self.process.stdout.close()  # type: ignore[union-attr]
        assert self.returncode is not None
        return self.returncode

    def kill(self) -> None:
        self.process.kill()
        self.returncode = self.process.wait(timeout=KILL_GRACE)

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> None:
    """Serve until SIGTERM/SIGINT; print READY <url> once listening."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--bench", action="store_true", help="answer by tool_choice, forever")
    mode.add_argument("--script", help="a JSON list of replies, answered in order")
    parser.add_argument("--loop", action="store_true", help="start the script over when done")
    parser.add_argument("--api", choices=("chat", "responses"), default="chat",
                        help="the wire format of the --bench replies")
    args = parser.parse_args(argv)
    if args.bench:
        server = StubServer(responder=bench_responder(args.api), port=args.port,
                            keep_requests=False)
    else:
        replies = _script_replies(args.script)
        server = StubServer(replies, loop=args.loop, port=args.port, keep_requests=False)
    done = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: done.set())
    with server:
        print(f"READY {server.url}", flush=True)
        done.wait()


if __name__ == "__main__":
    main(sys.argv[1:])
