"""docs/deploy.md's nginx configuration, run for real in front of `companion serve`.

The configuration is read from the page, so the documentation cannot drift from what is
tested. Only the TLS listener is swapped for a loopback port.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from liveserver import LiveServer, free_port

pytestmark = pytest.mark.slow

DOC = Path(__file__).resolve().parent.parent / "docs" / "deploy.md"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def documented_config() -> str:
    text = DOC.read_text()
    block = re.search(r"<!-- nginx: tested by tests/test_deploy.py -->\n```nginx\n(.*?)```", text, re.S)
    assert block, "docs/deploy.md lost its nginx block"
    return block.group(1)


@pytest.fixture
def proxied(tmp_path, monkeypatch):
    if not os.path.exists(NGINX):
        if os.environ.get("CI"):
            pytest.fail("nginx is missing: .ci/run must install Debian's nginx-light")
        pytest.skip("nginx is not installed")
    monkeypatch.setenv("COMPANION_RATE_LIMIT_TRUST_LOOPBACK", "false")
    monkeypatch.setenv("COMPANION_RATE_LIMIT_CREATE", "2 per 10 minutes")
    data = tmp_path / "data"
    data.mkdir()
    app = LiveServer(data, extra=("--trusted-proxies", "1")).start()
    port = free_port()
    site = documented_config().replace("listen 443 ssl;", f"listen 127.0.0.1:{port};") \
        .replace("server 127.0.0.1:8000;", f"server 127.0.0.1:{app.port};")
    prefix = tmp_path / "nginx"
    for sub in ("logs", "tmp"):
        (prefix / sub).mkdir(parents=True)
    os.chmod(prefix / "tmp", 0o777)
    conf = prefix / "nginx.conf"
    conf.write_text(f"""
worker_processes 1;
error_log {prefix}/logs/error.log;
pid {prefix}/nginx.pid;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {prefix}/tmp/body;
    proxy_temp_path {prefix}/tmp/proxy;
    fastcgi_temp_path {prefix}/tmp/fastcgi;
    uwsgi_temp_path {prefix}/tmp/uwsgi;
    scgi_temp_path {prefix}/tmp/scgi;
{site}
}}
""")
    proc = subprocess.Popen([NGINX, "-p", str(prefix), "-c", str(conf), "-g", "daemon off;"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        app.kill()


def call(url, method="GET", body=None, token=None, headers=None):
    request = urllib.request.Request(url, data=json.dumps(body).encode() if body is not None else None, method=method,
                                     headers={"Content-Type": "application/json", **(headers or {}),
                                              **({"Authorization": f"Bearer {token}"} if token else {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


def test_the_documented_nginx_config_serves_pages_taps_and_live_streams(proxied):
    assert call(proxied + "/api/v1/health") == (200, {"status": "ok"})
    status, created = call(proxied + "/api/v1/tables", "POST", {"name": "T", "host": {"name": "Ann", "sex": "female"}},
                           headers={"X-Forwarded-For": "203.0.113.1"})
    assert status == 201
    table_id, ann = created["table"]["id"], created["token"]
    _, bob = call(f"{proxied}/api/v1/join/{created['join_url'].rsplit('/', 1)[-1]}", "POST", {"name": "Bob", "sex": "male"})

    with socket.create_connection(("127.0.0.1", int(proxied.rsplit(":", 1)[1])), timeout=30) as stream:
        stream.sendall(f"GET /api/v1/tables/{table_id}/stream HTTP/1.1\r\nHost: x\r\n"
                       f"Authorization: Bearer {bob['token']}\r\n\r\n".encode())
        seen = b""
        while b"id: 3\n" not in seen:  # the state on opening (version 3), unbuffered
            seen += stream.recv(65536)
        assert call(f"{proxied}/api/v1/tables/{table_id}/actions", "POST", {"action": "level.up"}, ann)[0] == 200
        while b"id: 4\n" not in seen:  # Ann's tap, through the proxy, at once
            seen += stream.recv(65536)
        assert b'"level": 2' in seen.split(b"id: 4\n", 1)[1]


def test_a_client_cannot_pick_its_own_address_through_the_proxy(proxied):
    statuses = [call(proxied + "/api/v1/tables", "POST", {"name": "T", "host": {"name": "Ann", "sex": "female"}},
                     headers={"X-Forwarded-For": f"203.0.113.{k}"})[0] for k in range(3)]
    assert statuses == [201, 201, 429]  # one client (the address nginx saw), whatever it claims
