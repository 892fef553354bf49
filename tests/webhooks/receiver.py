"""A real HTTP receiver for webhook tests: an http.server on 127.0.0.1 in a thread that
records every request and answers as the test scripted (a status, or hanging past the
sender's timeout)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HANG = -1  # a scripted answer: hold the request until the test ends (the sender times out)


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Receiver:
    url: str
    requests: list[Request] = field(default_factory=list)
    # Answers to the next requests, in order; 204 once they are used up.
    script: list[int] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self) -> int:
        with self.lock:
            return self.script.pop(0) if self.script else 204

    def bodies(self, event: str | None = None) -> list[Any]:
        """The JSON bodies received, of ``event`` only if given (X-Pirates-Event)."""
        return [r.json for r in self.requests if event is None or r.headers.get("x-pirates-event") == event]


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            headers = {k.lower(): v for k, v in self.headers.items()}
            with receiver.lock:
                receiver.requests.append(Request(self.path, headers, body))
            status = receiver.answer()
            if status == HANG:
                receiver.release.wait(60)
                return
            self.send_response(status)
            if 300 <= status < 400:
                self.send_header("Location", f"{receiver.url}elsewhere")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def running_receiver() -> Iterator[Receiver]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(Receiver("")))
    receiver = Receiver(f"http://127.0.0.1:{server.server_address[1]}/hook/")
    server.RequestHandlerClass = _handler(receiver)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        receiver.release.set()
        server.shutdown()
        server.server_close()
