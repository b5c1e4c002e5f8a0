"""Faults between perfbot and GitHub, on a real socket (a scripted HTTP server on 127.0.0.1, so
urllib3's own retry and sleep code runs): waits are bounded, a list cannot go on forever, and a
write is never sent twice behind the caller's back (audit items 8 and 9). ``time.sleep`` is
recorded, not slept."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from perfbot.github.client import Client, GitHubError, NetworkError, RateLimitedError

SECONDARY = {"message": "You have exceeded a secondary rate limit. Please wait a few minutes."}
PRIMARY = {"message": "API rate limit exceeded for installation ID 1."}


class Scripted:
    """Answers requests from a script: (status, headers, body) or "slow" / "drop" after reading
    the request. The last entry repeats. Every request is recorded as (method, path)."""

    def __init__(self, script):
        self.script = list(script)
        self.seen: list[tuple[str, str]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _any(self):
                n = int(self.headers.get("Content-Length") or 0)
                if n:
                    self.rfile.read(n)
                outer.seen.append((self.command, self.path))
                step = outer.script.pop(0) if len(outer.script) > 1 else outer.script[0]
                if step == "drop":
                    self.close_connection = True
                    self.connection.close()
                    return
                if step == "slow":
                    threading.Event().wait(2.5)
                    step = (201, {}, {"id": 1})
                status, headers, body = step
                if callable(body):
                    body = body(self)
                data = json.dumps(body).encode()
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = _any

            def log_message(self, *a):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def sleeps(monkeypatch):
    got: list[float] = []
    monkeypatch.setattr(time, "sleep", lambda s: got.append(s))
    monkeypatch.setattr(Client, "write_interval", None)
    return got


@pytest.fixture
def serve():
    servers = []

    def start(*script):
        s = Scripted(script)
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.close()


def client(s, **kw):
    return Client("org/models", "t", s.url, **kw)


def test_a_short_wait_is_waited_a_day_long_one_is_not(serve, sleeps):
    s = serve(
        (403, {"Retry-After": "3"}, SECONDARY),
        (200, {}, {"number": 1}),
        (403, {"Retry-After": "86400"}, SECONDARY),
    )
    c = client(s)
    assert c.pull(1)["number"] == 1 and sleeps == [3]
    with pytest.raises(RateLimitedError) as err:
        c.pull(1)
    assert "rate limited, try again later" in str(err.value)
    assert sleeps == [3] and len(s.seen) == 3  # 5 x 6 h before


def test_a_primary_limit_an_hour_away_is_not_waited_for(serve, sleeps):
    reset = str(int(time.time()) + 3600)
    s = serve((403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset}, PRIMARY))
    with pytest.raises(RateLimitedError):
        client(s).pull(1)
    assert sleeps == [] and len(s.seen) == 1


def test_all_waits_together_stay_within_the_budget(serve, sleeps):
    s = serve((429, {"Retry-After": "100"}, {"message": "slow down"}))
    with pytest.raises(RateLimitedError):
        client(s, retries=10).pull(1)
    assert sleeps == [100, 100, 100] and sum(sleeps) <= 300


def test_exhausted_secondary_limit_says_rate_limited(serve, sleeps):
    s = serve((403, {}, SECONDARY))
    with pytest.raises(RateLimitedError) as err:
        client(s, retries=2, secondary_rate_wait=1).pull(1)
    assert "None" not in str(err.value) and "try again later" in str(err.value)


def test_a_post_answered_late_is_sent_once(serve, sleeps):
    s = serve("slow")
    with pytest.raises(NetworkError):
        client(s, timeout=1).create_issue_comment(1, "hello")
    assert [m for m, _ in s.seen] == ["POST"]  # 6 POSTs before


def test_a_dropped_get_is_retried_a_dropped_post_is_not(serve, sleeps):
    s = serve("drop", (200, {}, {"number": 1}), "drop")
    c = client(s)
    assert c.pull(1)["number"] == 1
    with pytest.raises(NetworkError):
        c.create_issue_comment(1, "hello")
    assert [m for m, _ in s.seen] == ["GET", "GET", "POST"]


def test_a_patch_answered_with_a_5xx_is_sent_once(serve, sleeps):
    s = serve((502, {}, {"message": "Server Error"}))
    with pytest.raises(GitHubError) as err:
        client(s).edit_issue_comment(7, "x")
    assert err.value.status == 502 and [m for m, _ in s.seen] == ["PATCH"]


def test_a_list_that_never_ends_is_cut(serve, sleeps):
    def page(handler):
        return [{"id": len(s.seen)}]

    s = serve((200, {}, page))
    s.script = [(200, {"Link": f'<{s.url}/next?page=2>; rel="next"'}, page)]
    with pytest.raises(GitHubError) as err:
        client(s).issue_comments(1)
    assert "more than 100 pages" in str(err.value)
    assert len(s.seen) == 100  # 2,001 before
