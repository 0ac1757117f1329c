"""The real server: several processes on one database, kill -9, and simultaneous taps."""
from __future__ import annotations

import http.client
import json
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

from liveserver import LiveServer
from sse import Reader

pytestmark = pytest.mark.slow


def call(base: str, method: str, path: str, body=None, token=None, timeout: float = 30):
    url = urlparse(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=timeout)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn.request(method, path, json.dumps(body) if body is not None else None, headers)
    response = conn.getresponse()
    data = json.loads(response.read() or b"null")
    conn.close()
    return response.status, data


def stream_lines(base: str, path: str, token: str):
    url = urlparse(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
    response = conn.getresponse()
    assert response.status == 200
    for raw in response:
        yield raw.decode()


def new_table(base: str, players=("Ann", "Ben", "Cid")):
    status, body = call(base, "POST", "/api/v1/tables", {"name": "Real", "host": {"name": players[0], "sex": "female"}})
    assert status == 201, body
    tokens = {players[0]: body["token"]}
    join = body["join_url"].rsplit("/", 1)[-1]
    for name in players[1:]:
        status, joined = call(base, "POST", f"/api/v1/join/{join}", {"name": name, "sex": "male"})
        assert status == 201, joined
        tokens[name] = joined["token"]
    return body["table"]["id"], tokens


@pytest.fixture
def data_dir(tmp_path):
    path = tmp_path / "data"
    path.mkdir()
    return path


def test_a_change_on_one_process_reaches_a_stream_on_another(data_dir):
    """Two independent server processes share one SQLite file: no state lives in one process."""
    a = LiveServer(data_dir).start()
    b = LiveServer(data_dir).start()
    try:
        table_id, tokens = new_table(a.url)
        reader = Reader(lambda: stream_lines(b.url, f"/api/v1/tables/{table_id}/stream", tokens["Cid"]))
        first = json.loads(reader.next(event="state")["data"])
        status, _ = call(a.url, "POST", f"/api/v1/tables/{table_id}/actions", {"action": "level.up"}, tokens["Ben"])
        assert status == 200
        second = json.loads(reader.next(event="state", timeout=10)["data"])
        assert second["version"] == first["version"] + 1
        assert {p["name"]: p["level"] for p in second["players"]}["Ben"] == 2
    finally:
        a.stop()
        b.stop()


def test_state_survives_kill_9_exactly(data_dir):
    server = LiveServer(data_dir, workers=2).start()
    table_id, tokens = new_table(server.url)
    for name, action in [("Ben", "level.up"), ("Ben", "level.up"), ("Cid", "level.up"), ("Ann", "sex.set")]:
        body = {"action": action, **({"sex": "male"} if action == "sex.set" else {})}
        assert call(server.url, "POST", f"/api/v1/tables/{table_id}/actions", body, tokens[name])[0] == 200
    _, before = call(server.url, "GET", f"/api/v1/tables/{table_id}", token=tokens["Ann"])
    _, history_before = call(server.url, "GET", f"/api/v1/tables/{table_id}/history", token=tokens["Ann"])
    server.kill()  # SIGKILL to master and workers: no clean shutdown
    server = LiveServer(data_dir).start()
    try:
        _, after = call(server.url, "GET", f"/api/v1/tables/{table_id}", token=tokens["Ann"])
        _, history_after = call(server.url, "GET", f"/api/v1/tables/{table_id}/history", token=tokens["Ann"])
        assert after == before and history_after == history_before
        # and the log replays to exactly the stored state
        from click.testing import CliRunner

        from companion.cli import main
        result = CliRunner().invoke(main, ["tables", "verify", "--data-dir", str(data_dir)])
        assert result.exit_code == 0, result.output
    finally:
        server.stop()


def test_simultaneous_taps_all_count(data_dir):
    """Many phones tapping one player at once on a 2-worker server: the exact result."""
    server = LiveServer(data_dir, workers=2).start()
    try:
        table_id, tokens = new_table(server.url)
        url = f"/api/v1/tables/{table_id}/actions"
        results: list[tuple[int, dict]] = []
        lock = threading.Lock()

        def tap(action, token):
            body = {"action": action, "seat": seat_ben}
            if action == "level.down":  # the host's correction of Ben's level: a recorded house ruling
                body["override"] = "level.causes"
            outcome = call(server.url, "POST", url, body, token)
            with lock:
                results.append(outcome)

        _, state = call(server.url, "GET", f"/api/v1/tables/{table_id}", token=tokens["Ann"])
        seat_ben = next(p["seat"] for p in state["table"]["players"] if p["name"] == "Ben")

        def burst(action, count, token):
            threads = [threading.Thread(target=tap, args=(action, token)) for _ in range(count)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()

        burst("level.up", 8, tokens["Ann"])  # the host taps Ben up 8 times at once: 1 -> 9
        assert [s for s, _ in results] == [200] * 8
        results.clear()
        burst("level.down", 8, tokens["Ann"])  # 9 -> 1
        assert [s for s, _ in results] == [200] * 8
        results.clear()
        burst("level.up", 16, tokens["Ann"])  # only 8 fit below 10; the rest are refused by the rule
        statuses = sorted(s for s, _ in results)
        assert statuses == [200] * 8 + [422] * 8
        assert {b["rule"] for s, b in results if s == 422} == {"level.win-by-kill"}
        _, state = call(server.url, "GET", f"/api/v1/tables/{table_id}", token=tokens["Ann"])
        assert {p["name"]: p["level"] for p in state["table"]["players"]}["Ben"] == 9
        _, history = call(server.url, "GET", f"/api/v1/tables/{table_id}/history", token=tokens["Ann"])
        seqs = [e["seq"] for e in history["events"]]
        assert seqs == list(range(len(seqs), 0, -1))  # no gaps, no duplicates
        assert sum(e["kind"] == "level.changed" for e in history["events"]) == 24
    finally:
        server.stop()


def test_serve_prints_the_url_and_a_qr_code(data_dir):
    server = LiveServer(data_dir, qr=True).start()
    try:
        output = server.output()
        assert f"Table Referee is open at {server.url}" in output
        assert "Scan to open it on a phone" in output and "█" in output
        assert (data_dir / "secret_key").stat().st_mode & 0o077 == 0  # the generated key is private
        status, body = call(server.url, "GET", "/api/v1/nothing")
        assert status == 404 and "error" in body
    finally:
        server.stop()


def _post_image(base: str, data: bytes, content_type: str = "image/jpeg"):
    url = urlparse(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    conn.request("POST", "/api/v1/vision/recognize", data, {"Content-Type": content_type})
    response = conn.getresponse()
    body = json.loads(response.read() or b"null")
    conn.close()
    return response.status, body


def _peak_rss_mib(pid: int) -> float:
    """The highest resident size (VmHWM) of a process and its children, in MiB."""
    import subprocess

    pids = [pid] + [int(p) for p in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True,
                                                   text=True).stdout.split()]
    peak = 0.0
    for p in pids:
        for line in open(f"/proc/{p}/status"):
            if line.startswith("VmHWM:"):
                peak = max(peak, int(line.split()[1]) / 1024)
    return peak


def test_scans_hostile_uploads_and_an_enrolment_at_once(data_dir, tmp_path):
    """Phones scanning together while the CLI enrols more cards and someone sends hostile
    uploads: every answer is a valid verdict or a clear 4xx, and worker memory stays bounded."""
    import subprocess
    import sys

    import cv2

    from bench import card_photos as cp
    from test_vision import png

    names = {c["id"]: c["names"]["en"] for c in json.loads(
        (Path(__file__).resolve().parent.parent / "card_db" / "data" / "munchkin-base.json").read_text())["cards"]}
    ids = sorted(names)[:40]
    first, later = tmp_path / "first", tmp_path / "later"
    for folder, chunk in ((first, ids[:20]), (later, ids[20:])):
        folder.mkdir()
        for card_id in chunk:
            cv2.imwrite(str(folder / f"{card_id}.png"), cp.face(cp.card_for(card_id, names[card_id])))

    def enrol(folder):
        return subprocess.run([sys.executable, "-m", "companion", "vision", "enroll", str(folder), "--kind", "scan",
                               "--data-dir", str(data_dir)], capture_output=True, text=True)

    assert enrol(first).returncode == 0
    photos = {card_id: cp.photo(cp.face(cp.card_for(card_id, names[card_id])), "medium", seed=i, size=(1280, 960))
              for i, card_id in enumerate(ids[:20:2])}
    server = LiveServer(data_dir, workers=2).start()
    try:
        answers, errors = [], []

        def phone(k):
            try:
                for card_id, data in list(photos.items())[k::4]:
                    answers.append((card_id, *_post_image(server.url, data)))
            except Exception as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        def attacker():
            for data, kind in ((png(50_000, 50_000), "image/png"), (b"", "image/jpeg"),
                               (b"x" * (13 * 1024 * 1024), "image/jpeg"), (b"<svg/>", "image/svg+xml")):
                try:
                    answers.append((None, *_post_image(server.url, data, kind)))
                except OSError:  # the server may close a 13 MB upload it refused early
                    answers.append((None, 413, {"error": "closed"}))

        threads = [threading.Thread(target=phone, args=(k,)) for k in range(4)] + [threading.Thread(target=attacker)]
        for t in threads:
            t.start()
        enrolled = enrol(later)
        for t in threads:
            t.join()
        # what the server logged goes with a failure: a phone's request once went unanswered
        # for 60 s in CI, and could not be made to again
        assert errors == [] and enrolled.returncode == 0, (errors, enrolled.stderr[-2000:], server.output()[-6000:])
        for card_id, status, body in answers:
            if card_id is None:
                assert status in (400, 413, 415), (status, body)
            else:
                assert status == 200 and body["card_id"] == card_id, body
        assert len(answers) == len(photos) + 4
        late = ids[25]  # enrolled while the server was running: it is recognised without a restart
        status, body = _post_image(server.url, cp.photo(cp.face(cp.card_for(late, names[late])), "easy", seed=3,
                                                         size=(1280, 960)))
        assert status == 200 and body["card_id"] == late, body
        assert _peak_rss_mib(server.proc.pid) < 400  # ~150 MiB measured; 50,000² pixels would be 7 GB
    finally:
        server.stop()
