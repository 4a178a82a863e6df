"""A scripted HTTP server on 127.0.0.1 for the client's retry tests: it answers each request with
the next scripted reply (a status, headers and body, or a reset connection, or a stall) and
records what it received."""
from __future__ import annotations

import json
import socket
import struct
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    headers: Dict[str, str] = field(default_factory=dict)
    #: Close the connection with a TCP reset instead of answering.
    reset: bool = False
    #: Hold the request until the server stops (for timeouts).
    stall: bool = False


def envelope(data: Any, status: int = 200, **headers: str) -> Reply:
    return Reply(status, {"data": data, "error": None}, {"X-Request-Id": "req_ok", **headers})


def api_error(status: int, code: str, message: str = "refused", **headers: str) -> Reply:
    return Reply(status, {"data": None, "error": {"code": code, "message": message}}, {"X-Request-Id": f"req_{status}", **headers})


def proxy_page(status: int) -> Reply:
    """What a load balancer answers: HTML, not the API's envelope."""
    return Reply(status, f"<html><body><h1>{status} Bad Gateway</h1></body></html>", {"Content-Type": "text/html"})


@dataclass
class Received:
    method: str
    path: str
    headers: Dict[str, str]
    body: bytes


class FlakyServer:
    def __init__(self) -> None:
        self.script: List[Reply] = []
        self.received: List[Received] = []
        self._release = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                server.received.append(Received(self.command, self.path, dict(self.headers.items()), body))
                reply = server.script.pop(0) if server.script else Reply(500, "no reply scripted")
                if reply.stall:
                    server._release.wait(30)
                    self.close_connection = True
                    return
                if reply.reset:
                    # SO_LINGER 0: close() sends RST, as a dropped connection does.
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()
                    self.close_connection = True
                    return
                raw = reply.body if isinstance(reply.body, (bytes, str)) else json.dumps(reply.body)
                payload = raw.encode("utf-8") if isinstance(raw, str) else raw
                self.send_response(reply.status)
                headers = {"Content-Type": "application/json", **reply.headers}
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PATCH = do_DELETE = _serve

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def reply(self, *replies: Reply) -> None:
        self.script.extend(replies)

    def stop(self) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()


def json_body(received: Received) -> Optional[Any]:
    return json.loads(received.body) if received.body else None
