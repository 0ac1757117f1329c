"""Benchmark: how fast a tap on one phone reaches every other phone of its table.

Starts the real server (`companion serve`, one worker process by default) on loopback with a
fresh data directory, opens TABLES × CLIENTS phone streams (the same HTML board stream the
phones use), then taps "level up/down" on random phones at a steady rate and measures

- action latency: the POST of the action until its answer;
- fan-out: from sending the tap until *every other* phone of that table has received the
  board of the new version (the slowest of them, per tap);
- the server's memory (RSS of all its processes) with every stream open.

Run:  python bench/live_fanout.py            (defaults: 50 tables × 6 phones, 600 taps)
      python bench/live_fanout.py --instances 2
            two instances (`companion serve --database-url`) on one PostgreSQL server behind
            one nginx, which spreads the phones and the taps over both: a tap served by one
            instance must reach the phones streaming from the other. Without --database-url
            a throw-away PostgreSQL server is started (tests/pg.py; Debian's postgresql and
            nginx-light installed, as scripts/test does).
Only loopback traffic; bounded in taps and time; stops by itself.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

HOST = "127.0.0.1"
ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


async def http(port: int, method: str, path: str, body: dict | None = None, token: str | None = None):
    reader, writer = await asyncio.open_connection(HOST, port)
    payload = json.dumps(body).encode() if body is not None else b""
    headers = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{port}", "Connection: close",
               f"Content-Length: {len(payload)}", "Content-Type: application/json"]
    if token:
        headers.append(f"Authorization: Bearer {token}")
    writer.write(("\r\n".join(headers) + "\r\n\r\n").encode() + payload)
    await writer.drain()
    raw = await reader.read()
    writer.close()
    head, _, data = raw.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    if b"chunked" in head.lower():
        data = dechunk(data)
    return status, json.loads(data or b"null")


def dechunk(data: bytes) -> bytes:
    out, rest = b"", data
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            break
        out, rest = out + rest[:size], rest[size + 2:]
    return out


class Phone:
    """One open board stream; records when each version arrived."""

    def __init__(self, table_id: str, seat: str, token: str):
        self.table_id, self.seat, self.token = table_id, seat, token
        self.arrivals: dict[int, float] = {}
        self.waiters: dict[int, asyncio.Future] = {}
        self.ready = asyncio.get_running_loop().create_future()

    async def listen(self, port: int):
        reader, writer = await asyncio.open_connection(HOST, port, limit=1 << 20)
        writer.write((f"GET /t/{self.table_id}/stream HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
                      f"Authorization: Bearer {self.token}\r\nAccept: text/event-stream\r\n\r\n").encode())
        await writer.drain()
        current = None
        while True:
            line = await reader.readline()
            if not line:
                return
            if line.startswith(b"id: "):
                current = int(line[4:])
            elif line.startswith(b"event: board") and current is not None:
                now = time.perf_counter()
                self.arrivals[current] = now
                if not self.ready.done():
                    self.ready.set_result(current)
                future = self.waiters.pop(current, None)
                if future and not future.done():
                    future.set_result(now)

    def arrival(self, version: int) -> asyncio.Future:
        future = asyncio.get_running_loop().create_future()
        if version in self.arrivals:
            future.set_result(self.arrivals[version])
        else:
            self.waiters[version] = future
        return future


def rss_kib(root_pid: int) -> int:
    """Resident memory of a process and all its descendants, in KiB (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry))
    total, todo = 0, [root_pid]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, []))
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def start_server(stack: ExitStack, args, database_url: str | None = None) -> tuple[int, int]:
    """One `companion serve` with its defaults, apart from port, data and database; returns (port, pid)."""
    port = free_port()
    data = Path(tempfile.mkdtemp(prefix="bench-live-"))
    server = subprocess.Popen(
        [sys.executable, "-m", "companion", "serve", "--host", HOST, "--port", str(port), "--workers", str(args.workers),
         "--data-dir", str(data), "--no-qr", "--public-url", f"http://{HOST}:{port}",
         *(["--database-url", database_url] if database_url else [])],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    def stop():
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)

    stack.callback(stop)
    return port, server.pid


def start_proxy(stack: ExitStack, upstreams: list[int]) -> int:
    """nginx on a free port spreading requests over ``upstreams`` (as docs/deploy.md, several servers)."""
    port = free_port()
    prefix = Path(tempfile.mkdtemp(prefix="bench-nginx-"))
    (prefix / "tmp").mkdir()
    os.chmod(prefix / "tmp", 0o777)
    servers = "\n".join(f"        server {HOST}:{p};" for p in upstreams)
    (prefix / "nginx.conf").write_text(f"""
worker_processes 1;
error_log {prefix}/error.log;
pid {prefix}/nginx.pid;
events {{ worker_connections 8192; }}
worker_rlimit_nofile 20000;
http {{
    access_log off;
    client_body_temp_path {prefix}/tmp/body;
    proxy_temp_path {prefix}/tmp/proxy;
    upstream table_referee {{
{servers}
        keepalive 64;
    }}
    server {{
        listen {HOST}:{port};
        location / {{
            proxy_pass http://table_referee;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_buffering off;
            proxy_read_timeout 360s;
        }}
    }}
}}
""")
    proxy = subprocess.Popen(["/usr/sbin/nginx", "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-g", "daemon off;"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    stack.callback(lambda: (proxy.terminate(), proxy.wait(timeout=10)))
    return port


async def ready(port: int) -> None:
    for _ in range(300):
        try:
            await http(port, "GET", "/api/v1/profiles")
            return
        except (OSError, ValueError, IndexError):
            await asyncio.sleep(0.1)
    raise RuntimeError(f"nothing answers on port {port}")


async def run(args) -> dict:
    with ExitStack() as stack:
        if args.instances == 1:
            port, pid = start_server(stack, args)
            pids = [pid]
            await ready(port)
        else:
            url = args.database_url
            if not url:
                sys.path.insert(0, str(ROOT / "tests"))
                from pg import Cluster

                cluster = Cluster()
                stack.callback(cluster.stop)
                url = cluster.new_database()
            instances = [start_server(stack, args, url) for _ in range(args.instances)]
            for p, _ in instances:
                await ready(p)
            pids = [pid for _, pid in instances]
            port = start_proxy(stack, [p for p, _ in instances])
            await ready(port)
        return await measure(args, port, pids)


async def measure(args, port: int, pids: list[int]) -> dict:
    """Open the phones' streams through ``port``, tap at the steady rate, and measure."""
    def rss() -> int:
        return sum(rss_kib(pid) for pid in pids)

    rss_idle = rss()
    tables: list[list[Phone]] = []
    for t in range(args.tables):
        status, created = await http(port, "POST", "/api/v1/tables", {"name": f"T{t}", "host": {"name": "P0", "sex": "female"}})
        assert status == 201, created
        table_id = created["table"]["id"]
        join = created["join_url"].rsplit("/", 1)[-1]
        phones = [Phone(table_id, created["seat"], created["token"])]
        for c in range(1, args.clients):
            status, joined = await http(port, "POST", f"/api/v1/join/{join}", {"name": f"P{c}", "sex": "male"})
            assert status == 201, joined
            phones.append(Phone(table_id, joined["seat"], joined["token"]))
        tables.append(phones)
    everyone = [p for phones in tables for p in phones]
    listeners = [asyncio.create_task(p.listen(port)) for p in everyone]
    await asyncio.wait_for(asyncio.gather(*(p.ready for p in everyone)), 60)
    rss_streaming = rss()

    rng = random.Random(1)
    levels = {(p.table_id, p.seat): 1 for p in everyone}
    busy: set[str] = set()
    action_ms: list[float] = []
    fanout_ms: list[float] = []
    errors = 0

    async def tap(phones: list[Phone]):
        nonlocal errors
        phone = rng.choice(phones)
        key = (phone.table_id, phone.seat)
        action = "level.up" if levels[key] < 5 and rng.random() < 0.6 or levels[key] == 1 else "level.down"
        start = time.perf_counter()
        status, body = await http(port, "POST", f"/api/v1/tables/{phone.table_id}/actions", {"action": action}, phone.token)
        action_ms.append((time.perf_counter() - start) * 1000)
        if status != 200:
            errors += 1
            return
        levels[key] += 1 if action == "level.up" else -1
        version = body["table"]["version"]
        others = [p for p in phones if p is not phone]
        arrivals = await asyncio.wait_for(asyncio.gather(*(p.arrival(version) for p in others)), 30)
        fanout_ms.append((max(arrivals) - start) * 1000)

    delayed = 0

    async def tap_free_table():
        nonlocal delayed
        free = [phones for phones in tables if phones[0].table_id not in busy]
        if not free:  # every table is waiting for its last tap: the server is saturated
            delayed += 1
            while not free:
                await asyncio.sleep(0.005)
                free = [phones for phones in tables if phones[0].table_id not in busy]
        phones = rng.choice(free)
        busy.add(phones[0].table_id)
        try:
            await tap(phones)
        finally:
            busy.discard(phones[0].table_id)

    started = time.perf_counter()
    pending = []
    for i in range(args.taps):  # a steady rate of taps spread over random tables
        pending.append(asyncio.create_task(tap_free_table()))
        await asyncio.sleep(max(0.0, started + (i + 1) / args.rate - time.perf_counter()))
    await asyncio.gather(*pending)
    elapsed = time.perf_counter() - started
    for task in listeners:
        task.cancel()
    return {
        "tables": args.tables, "clients_per_table": args.clients, "streams": len(everyone),
        "instances": args.instances, "workers": args.workers, "taps": args.taps,
        "rate_per_s": round(args.taps / elapsed, 1), "errors": errors,
        "taps_delayed_all_tables_busy": delayed,
        "fanout_ms": {"p50": round(pct(fanout_ms, 50), 1), "p95": round(pct(fanout_ms, 95), 1),
                      "p99": round(pct(fanout_ms, 99), 1), "max": round(max(fanout_ms), 1)},
        "action_ms": {"p50": round(pct(action_ms, 50), 1), "p95": round(pct(action_ms, 95), 1),
                      "mean": round(statistics.mean(action_ms), 1)},
        "server_rss_mib": {"idle": round(rss_idle / 1024, 1), "all_streams_open": round(rss_streaming / 1024, 1),
                           "after_taps": round(rss() / 1024, 1)},
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--taps", type=int, default=600)
    parser.add_argument("--rate", type=float, default=20.0, help="taps per second across all tables")
    parser.add_argument("--workers", type=int, default=2, help="per instance, as `companion serve` (its default: 2)")
    parser.add_argument("--instances", type=int, default=1,
                        help="more than one: instances on PostgreSQL behind nginx")
    parser.add_argument("--database-url", default=None,
                        help="PostgreSQL for --instances > 1 (default: a throw-away server)")
    args = parser.parse_args()
    result = asyncio.run(run(args))
    result["machine"] = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    result["date"] = time.strftime("%Y-%m-%d")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
