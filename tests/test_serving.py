"""`companion serve` with its defaults under the loads a game night (or a stranger) brings.

Real server (gunicorn's gevent worker, companion/serving.py), real sockets: a flood of live
streams, the per-table stream cap, half-sent requests (slowloris), and a request over the size
limit followed by another on the same connection. Nothing here times the server: each test
checks that it *answers* (with generous timeouts), not how fast.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from liveserver import LiveServer

pytestmark = pytest.mark.slow


def call(url: str, method: str = "GET", body: dict | None = None, token: str | None = None):
    request = urllib.request.Request(url, data=json.dumps(body).encode() if body is not None else None, method=method,
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"Bearer {token}"} if token else {})})
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.status, json.loads(response.read() or b"null")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    live = LiveServer(tmp_path_factory.mktemp("serving") / "data", workers=None).start()  # serve's defaults
    yield live
    live.kill()


def new_table(server, name="T") -> tuple[str, str]:
    _, body = call(server.url + "/api/v1/tables", "POST", {"name": name, "host": {"name": "Ann", "sex": "female"}})
    return body["table"]["id"], body["token"]


async def open_stream(port: int, table_id: str, token: str, heads: list, received: list | None = None,
                      opening: asyncio.Semaphore | None = None, lost: list | None = None):
    """One phone's live stream (the API's JSON stream), held open until cancelled. With
    ``opening``, it is opened (connected, asked for, answered) while holding that semaphore:
    a test process starting a thousand connections at once can fall seconds behind writing
    their requests on a busy machine, and the server rightly closes a connection that sends
    no request head within ``serving.KEEPALIVE`` seconds (what lets half-sent requests go).
    A stream closed without a head is noted in ``lost`` (why)."""
    async with opening or contextlib.nullcontext():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(f"GET /api/v1/tables/{table_id}/stream HTTP/1.1\r\nHost: x\r\n"
                         f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n".encode())
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
        except (OSError, asyncio.IncompleteReadError) as exc:
            if lost is None:
                raise
            lost.append(repr(exc)[:80])
            return
    heads.append(head.decode("latin-1"))
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                return
            if received is not None:
                received.append(data)
    finally:
        writer.close()


def test_a_thousand_open_streams_leave_pages_taps_and_fan_out_answering(server):
    tables = [new_table(server, f"T{i}") for i in range(12)]
    heads: list[str] = []
    watched: list[bytes] = []
    lost: list[str] = []

    async def scenario():
        opening = asyncio.Semaphore(100)  # phones arrive over seconds, not all in one instant
        tasks = [asyncio.create_task(open_stream(server.port, *tables[k % 12], heads, watched if k == 0 else None,
                                                 opening, lost))
                 for k in range(1100)]
        for _ in range(600):
            if len(heads) + len(lost) == len(tasks):
                break
            await asyncio.sleep(0.1)
        home = await asyncio.to_thread(urllib.request.urlopen, server.url + "/", None, 60)
        table_id, token = tables[0]
        tapped = await asyncio.to_thread(call, f"{server.url}/api/v1/tables/{table_id}/actions", "POST",
                                         {"action": "level.up"}, token)
        for _ in range(300):  # the tap reaches the watching phone
            if b"id: 3\n" in b"".join(watched):  # version 3: the table after the tap
                break
            await asyncio.sleep(0.1)
        for task in tasks:
            task.cancel()
        return home.status, tapped[0]

    home, tap = asyncio.run(scenario())
    assert len(heads) == 1100 and all(" 200 " in h.split("\r\n")[0] + " " for h in heads), (len(heads), lost[:5])
    assert (home, tap) == (200, 200)
    after_tap = b"".join(watched).split(b"id: 3\n", 1)[-1]
    assert after_tap.startswith(b"event: state") and b'"level": 2' in after_tap


def test_a_table_past_its_stream_cap_gets_503_with_retry_after(server):
    table_id, token = new_table(server, "Crowded")
    heads: list[str] = []

    async def scenario():
        tasks = [asyncio.create_task(open_stream(server.port, table_id, token, heads)) for _ in range(250)]
        for _ in range(300):
            if len(heads) == len(tasks):
                break
            await asyncio.sleep(0.1)
        for task in tasks:
            task.cancel()

    asyncio.run(scenario())
    refused = [h for h in heads if h.startswith("HTTP/1.1 503")]
    # 100 streams a table in each of the default two worker processes
    assert len(heads) == 250 and len(refused) >= 50 and all("Retry-After: " in h for h in refused)
    time.sleep(1)  # the cancelled streams are counted out when their connections close
    status, _ = call(f"{server.url}/api/v1/tables/{table_id}", token=token)
    assert status == 200


def test_half_sent_requests_do_not_hang_the_server_and_are_cut(server):
    sockets = []
    for _ in range(300):
        s = socket.create_connection(("127.0.0.1", server.port), timeout=60)
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")  # and never the rest
        sockets.append(s)
    try:
        with urllib.request.urlopen(server.url + "/", timeout=60) as response:
            assert response.status == 200
        closed = 0
        for s in sockets:  # the server lets them go (keep-alive time to read a request)
            try:
                closed += s.recv(1024) == b""
            except (ConnectionResetError, TimeoutError):
                closed += 1
        assert closed == len(sockets)
    finally:
        for s in sockets:
            s.close()


def test_a_request_over_the_size_limit_leaves_the_connection_clean(server):
    table_id, token = new_table(server, "Big")
    body = json.dumps({"action": "level.up", "reason": "x" * 200_000}).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as s:
        s.sendall(f"POST /api/v1/tables/{table_id}/actions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
                  f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
        s.sendall(f"GET /api/v1/tables/{table_id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
        data = b""
        while True:
            try:
                chunk = s.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not chunk:
                break
            data += chunk
    assert data.startswith(b"HTTP/1.1 413")
    # the second request is answered as itself, or the server closed the connection; never garbage
    rest = data.split(b"HTTP/1.1 ", 2)[2:] if data.count(b"HTTP/1.1 ") > 1 else []
    assert all(r.startswith(b"200") for r in rest)
    status, state = call(f"{server.url}/api/v1/tables/{table_id}", token=token)
    assert status == 200 and state["table"]["version"] == 2  # the oversized action changed nothing


def test_a_retried_action_with_the_same_key_applies_once(server):
    table_id, token = new_table(server, "Retry")
    url = f"{server.url}/api/v1/tables/{table_id}/actions"

    def tap(key, action="level.up"):
        request = urllib.request.Request(url, data=json.dumps({"action": action}).encode(), method="POST",
                                         headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}",
                                                  "Idempotency-Key": key})
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())

    first, again = tap("tap-1"), tap("tap-1")
    assert first["event"]["seq"] == again["event"]["seq"] and again["table"]["players"][0]["level"] == 2
    assert tap("tap-2")["table"]["players"][0]["level"] == 3  # a new key is a new tap
    with pytest.raises(urllib.error.HTTPError) as reused:  # the same key for another request
        tap("tap-2", "level.down")
    assert reused.value.code == 422 and "already used for another request" in json.loads(reused.value.read())["error"]
    request = urllib.request.Request(url, data=b'{"action": "level.up"}', method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}",
                                              "Idempotency-Key": "x" * 200})
    with pytest.raises(urllib.error.HTTPError) as exc:
        urllib.request.urlopen(request, timeout=60)
    assert exc.value.code == 400


def test_removing_a_player_rotates_the_invitation(server):
    _, body = call(server.url + "/api/v1/tables", "POST", {"name": "Kick", "host": {"name": "Ann", "sex": "female"}})
    table_id, token, join = body["table"]["id"], body["token"], body["join_url"].rsplit("/", 1)[-1]
    _, bob = call(f"{server.url}/api/v1/join/{join}", "POST", {"name": "Bob", "sex": "male"})
    call(f"{server.url}/api/v1/tables/{table_id}/actions", "POST", {"action": "player.remove", "seat": bob["seat"]}, token)
    with pytest.raises(urllib.error.HTTPError) as exc:  # the old QR code seats nobody
        call(f"{server.url}/api/v1/join/{join}", "POST", {"name": "Bob again", "sex": "male"})
    assert exc.value.code == 404
    _, fresh = call(f"{server.url}/api/v1/tables/{table_id}", token=token)
    assert [p["name"] for p in fresh["table"]["players"]] == ["Ann"]


def test_health_and_the_operator_link_printed_at_start(server):
    assert call(server.url + "/api/v1/health") == (200, {"status": "ok"})
    secret = (server.data_dir / "admin_secret").read_text().strip()
    assert f"{server.url}/admin/{secret}" in server.output()
    assert "Traceback" not in server.output()  # the rate limiter's timer failed in each worker at start


def test_a_body_sent_a_byte_at_a_time_is_cut_and_answered_408(server):
    """A request's body must arrive within 10 s and a second per 16 KiB (serving.BodyDeadline):
    one trickled a byte a second used to hold its connection for ever (each read waited up to
    30 s), and ten thousand of them froze the server (2026-11-30)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as s:
        s.sendall(b"POST /api/v1/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 16384\r\n\r\n{")
        start, answer = time.monotonic(), b""
        s.settimeout(1)
        while time.monotonic() - start < 30:
            try:
                chunk = s.recv(4096)
            except TimeoutError:
                try:
                    s.sendall(b" ")  # one more byte a second
                except (BrokenPipeError, ConnectionResetError):
                    break
                continue
            except ConnectionResetError:
                break
            if not chunk:
                break
            answer += chunk
        took = time.monotonic() - start
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert 10 <= took < 20, took  # 10 s + 1 s for 16 KiB, then the connection is closed
    with urllib.request.urlopen(server.url + "/api/v1/health", timeout=10) as response:
        assert response.status == 200


def test_spectators_past_the_cap_do_not_shut_the_tables_players_out(server):
    """A spectator link shared widely: 250 spectator streams on one table (100 a worker process
    and then 503s); the table's own players still get their streams (2026-11-30: they got 503)."""
    _, body = call(server.url + "/api/v1/tables", "POST", {"name": "Watched", "host": {"name": "Ann", "sex": "female"}})
    table_id, token = body["table"]["id"], body["token"]
    watch = urllib.parse.urlparse(body["spectator_url"]).path.rstrip("/") + "/stream"  # /w/<token>/stream
    spectators: list[str] = []
    players: list[str] = []

    async def spectate(heads: list):
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(f"GET {watch} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode())
        await writer.drain()
        heads.append((await reader.readuntil(b"\r\n\r\n")).decode("latin-1"))
        try:
            while await reader.read(65536):
                pass
        finally:
            writer.close()

    async def scenario():
        crowd = [asyncio.create_task(spectate(spectators)) for _ in range(250)]
        for _ in range(300):
            if len(spectators) == len(crowd):
                break
            await asyncio.sleep(0.1)
        mine = [asyncio.create_task(open_stream(server.port, table_id, token, players)) for _ in range(6)]
        for _ in range(100):
            if len(players) == len(mine):
                break
            await asyncio.sleep(0.1)
        for task in crowd + mine:
            task.cancel()

    asyncio.run(scenario())
    assert sum(h.startswith("HTTP/1.1 503") for h in spectators) >= 50  # the spectators' own cap
    assert len(players) == 6 and all(h.startswith("HTTP/1.1 200") for h in players), players
