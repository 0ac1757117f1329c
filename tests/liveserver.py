"""Start the real server (`companion serve`, gunicorn) as a child process for tests."""
from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import json
import time
import urllib.error
import urllib.request
from pathlib import Path


PORTS = (20000, 32000)  # below Linux's ephemeral ports (32768–60999): no client connection holds them


def free_port() -> int:
    """A loopback port that is free now. Under pytest-xdist (scripts/test) each worker draws
    only from its own block of ports: two workers starting servers at once never choose the
    same port before either has bound it (one would wait for its server and talk to the
    other's). The kernel's own choice (binding port 0) cannot be split so: Linux hands
    out ports of one parity there."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    mine = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
    block = (PORTS[1] - PORTS[0]) // workers
    first = PORTS[0] + mine * block
    while True:
        port = random.randrange(first, first + block)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port


class LiveServer:
    """``companion serve`` on 127.0.0.1 with its own data directory."""

    def __init__(self, data_dir: Path, workers: int | None = 1, port: int | None = None, qr: bool = False,
                 extra: tuple[str, ...] = ()):
        self.qr = qr
        self.data_dir = data_dir
        self.workers = workers
        self.extra = extra
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None

    def start(self) -> "LiveServer":
        env = {**os.environ, "COMPANION_DATA": str(self.data_dir)}
        self.log = open(self.data_dir.parent / f"server-{self.port}.log", "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1", "--port", str(self.port),
             *(["--workers", str(self.workers)] if self.workers else []), "--public-url", self.url, *([] if self.qr else ["--no-qr"]), *self.extra],
            env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}; see {self.log.name}")
            try:
                with urllib.request.urlopen(self.url + "/api/v1/profiles", timeout=1):
                    return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("server did not start in 30 s")

    def kill(self, sig=signal.SIGKILL) -> None:
        """Kill the whole process group (gunicorn master and workers) with ``sig``."""
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)
            self.proc.wait(timeout=20)
        if getattr(self, "log", None):
            self.log.close()

    stop = kill

    def output(self) -> str:
        return Path(self.log.name).read_text(errors="replace")


def call(server: LiveServer, method: str, path: str, body=None, token: str | None = None):
    """One JSON request to ``server``: ``(status, answer)``, errors included."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(server.url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"Bearer {token}"} if token else {})})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def api_table(server: LiveServer, profile: str, name: str):
    """A table opened by Ann over the JSON API and joined by Bob and Cid.

    Returns ``(table_id, tokens, seats, act)``; ``act(who, action, expect=200, **params)`` posts
    one action as that player and checks the status.
    """
    status, body = call(server, "POST", "/api/v1/tables", {"name": name, "profile": profile,
                                                            "host": {"name": "Ann", "sex": "female"}})
    assert status == 201, body
    tokens, seats = {"Ann": body["token"]}, {"Ann": body["seat"]}
    join = body["join_url"].rsplit("/", 1)[-1]
    for player in ("Bob", "Cid"):
        status, joined = call(server, "POST", f"/api/v1/join/{join}", {"name": player, "sex": "male"})
        assert status == 201, joined
        tokens[player], seats[player] = joined["token"], joined["seat"]
    table_id = body["table"]["id"]

    def act(who, action, expect=200, **params):
        status, answer = call(server, "POST", f"/api/v1/tables/{table_id}/actions", {"action": action, **params},
                              tokens[who])
        assert status == expect, answer
        return answer

    return table_id, tokens, seats, act
