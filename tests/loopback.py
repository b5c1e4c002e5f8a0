"""The GitHub fake (``tests/github_fake.py``) served over HTTP on 127.0.0.1, for tests that run
perfbot in a fresh process, as the workflows do (``responses`` only intercepts requests made in
the test's own process).

    with LoopbackGitHub() as gh:          # gh is a GitHubFake whose api_url is the loopback URL
        pr = gh.add_pull(...)
        subprocess.run(["perfbot", "post", ...], env={**os.environ, **gh.env()})
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace
from typing import Any

from github_fake import GitHubFake

__all__ = ["LoopbackGitHub"]


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def _any(self) -> None:
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else None
        req = SimpleNamespace(
            method=self.command,
            url=f"{self.server.base}{self.path}",
            body=body,
            headers={k: v for k, v in self.headers.items()},
        )
        with self.server.lock:
            status, headers, text = self.server.fake._dispatch(req)
        data = text.encode("utf-8")
        self.send_response(status)
        for k, v in headers.items():
            if k.lower() not in ("content-length", "connection"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if data:
            self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _any

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: GitHubFake
    base: str
    lock: threading.Lock


class LoopbackGitHub:
    """Start a loopback HTTP server and a :class:`GitHubFake` whose API root it is."""

    def __init__(self, **kwargs: Any) -> None:
        self.server = _Server(("127.0.0.1", 0), _Handler)
        host, port = self.server.server_address[:2]
        self.server.base = f"http://{host}:{port}"
        self.server.lock = threading.Lock()
        self.fake = GitHubFake(api_url=self.server.base, **kwargs)
        self.server.fake = self.fake
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> GitHubFake:
        self._thread.start()
        return self.fake

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)
