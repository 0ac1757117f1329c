"""Several instances on PostgreSQL (`companion serve --database-url`): real servers, each
with its own data directory, sharing the tables through one PostgreSQL server
(tests/pg.py). A tap on one instance reaches the phones of another; kill -9 of an instance
during writes loses nothing committed; the CLI reads the same tables."""
from __future__ import annotations

import http.client
import json
import threading

import pytest
from click.testing import CliRunner

from companion import db, postgres, store
from companion.cli import main
from liveserver import LiveServer
from sse import Reader
from test_server import call, new_table, stream_lines

pytestmark = pytest.mark.slow


@pytest.fixture
def url(pg_cluster):
    return pg_cluster.new_database()


def instance(tmp_path, name: str, url: str, workers: int = 1) -> LiveServer:
    data = tmp_path / name
    data.mkdir()
    return LiveServer(data, workers=workers, extra=("--database-url", url)).start()


def test_a_tap_on_one_instance_reaches_the_phones_of_another(tmp_path, url):
    a, b = instance(tmp_path, "a", url), instance(tmp_path, "b", url, workers=2)
    try:
        table_id, tokens = new_table(a.url)
        # the table made on A is seen, joined and changed through B: nothing lives in one instance
        status, seen = call(b.url, "GET", f"/api/v1/tables/{table_id}", token=tokens["Ben"])
        assert status == 200 and [p["name"] for p in seen["table"]["players"]] == ["Ann", "Ben", "Cid"]
        on_b = Reader(lambda: stream_lines(b.url, f"/api/v1/tables/{table_id}/stream", tokens["Cid"]))
        on_a = Reader(lambda: stream_lines(a.url, f"/api/v1/tables/{table_id}/stream", tokens["Ann"]))
        first = json.loads(on_b.next(event="state")["data"])
        on_a.next(event="state")
        assert call(a.url, "POST", f"/api/v1/tables/{table_id}/actions", {"action": "level.up"}, tokens["Ben"])[0] == 200
        second = json.loads(on_b.next(event="state", timeout=10)["data"])
        assert second["version"] == first["version"] + 1
        assert {p["name"]: p["level"] for p in second["players"]}["Ben"] == 2
        assert call(b.url, "POST", f"/api/v1/tables/{table_id}/actions", {"action": "level.up"}, tokens["Cid"])[0] == 200
        assert json.loads(on_a.next(event="state", timeout=10)["data"])["version"] == second["version"]
        third = json.loads(on_a.next(event="state", timeout=10)["data"])
        assert third["version"] == second["version"] + 1
        assert {p["name"]: p["level"] for p in third["players"]}["Cid"] == 2
        assert "tables: postgresql://" in a.output()
    finally:
        a.stop()
        b.stop()


GREEN_BORROWS = """
import sys
from companion import postgres            # imported before the patching, as `companion serve` does
from gevent import monkey
monkey.patch_all()
import gevent
pool = postgres.Pool(sys.argv[1], size=4)  # made after it, as create_app does
def borrow():
    store = pool.borrow()
    store.execute("SELECT pg_sleep(0.05)").fetchone()
    pool.give_back(store)
jobs = [gevent.spawn(borrow) for _ in range(20)]
gevent.joinall(jobs, timeout=20, raise_error=True)
print(sum(job.successful() for job in jobs))
"""


def test_greenlets_borrowing_from_a_new_pool_at_once_never_block_the_worker(url):
    """Opening the pool starts its threads (greenlets under gevent), which switches: a second
    greenlet arriving meanwhile must wait cooperatively, not block the whole process."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", GREEN_BORROWS, url], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["20"]


def test_an_instance_answers_many_phones_at_once_from_its_first_request(tmp_path, url):
    """The first requests of a worker open its connection pool together: none may wait on another
    for ever."""
    a = instance(tmp_path, "a", url)
    table_id, tokens = new_table(a.url)
    a.stop()
    b = instance(tmp_path, "b", url, workers=1)
    try:
        answers: list[int] = []

        def look():
            answers.append(call(b.url, "GET", f"/api/v1/tables/{table_id}", token=tokens["Ann"], timeout=10)[0])

        threads = [threading.Thread(target=look) for _ in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert answers == [200] * 16
    finally:
        b.stop()


def test_taps_on_two_instances_at_once_all_count(tmp_path, url):
    a, b = instance(tmp_path, "a", url), instance(tmp_path, "b", url)
    try:
        table_id, tokens = new_table(a.url)
        results: list[int] = []

        def tap(server: LiveServer, n: int):
            for i in range(n):
                results.append(call(server.url, "POST", f"/api/v1/tables/{table_id}/actions",
                                    {"action": "dice.roll", "count": 1, "sides": 6}, tokens["Ann"])[0])

        threads = [threading.Thread(target=tap, args=(server, 10)) for server in (a, b, a, b)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results == [200] * 40
        _, history = call(b.url, "GET", f"/api/v1/tables/{table_id}/history", token=tokens["Ann"])
        seqs = [e["seq"] for e in history["events"]]
        assert seqs == list(range(len(seqs), 0, -1)) and len(seqs) == 4 + 40
    finally:
        a.stop()
        b.stop()


def test_kill_9_during_writes_loses_nothing_committed(tmp_path, url):
    a, b = instance(tmp_path, "a", url, workers=2), instance(tmp_path, "b", url)
    table_id, tokens = new_table(b.url)
    answered: list[int] = []
    stop = threading.Event()

    def hammer():
        while not stop.is_set():
            try:
                status, _ = call(a.url, "POST", f"/api/v1/tables/{table_id}/actions",
                                 {"action": "dice.roll", "count": 2, "sides": 6}, tokens["Ben"])
            except (OSError, http.client.HTTPException):
                return  # the instance is gone (also mid-answer: an incomplete read)
            if status == 200:
                answered.append(status)

    threads = [threading.Thread(target=hammer) for _ in range(4)]
    try:
        for t in threads:
            t.start()
        while len(answered) < 20:
            threading.Event().wait(0.02)
        a.kill()  # SIGKILL to master and workers, in the middle of the taps
        stop.set()
        for t in threads:
            t.join()
        status, history = call(b.url, "GET", f"/api/v1/tables/{table_id}/history", token=tokens["Ann"])
        seqs = [e["seq"] for e in history["events"]]
        assert seqs == list(range(len(seqs), 0, -1))  # no gap, no half-written change
        assert len(seqs) - 4 >= len(answered)  # every answered tap is there (one may have committed unanswered)
        conn = db.connect_store(url)
        try:
            assert store.verify(conn, table_id)
        finally:
            conn.close()
        # B goes on serving the table
        assert call(b.url, "POST", f"/api/v1/tables/{table_id}/actions", {"action": "level.up"}, tokens["Ben"])[0] == 200
    finally:
        stop.set()
        a.stop()
        b.stop()


def test_the_cli_reads_and_verifies_the_tables_in_postgres(tmp_path, url):
    conn = db.connect_store(url)
    postgres.migrate(conn)
    state, _, _ = store.create_table(conn, "Friday", "munchkin-1.6", "Ann", "female")
    conn.close()
    runner = CliRunner()
    listed = runner.invoke(main, ["tables", "list", "--data-dir", str(tmp_path / "d"), "--database-url", url])
    assert listed.exit_code == 0 and state.id in listed.output and "Ann 1" in listed.output
    verified = runner.invoke(main, ["tables", "verify", "--data-dir", str(tmp_path / "d")],
                             env={"COMPANION_DATABASE_URL": url})
    assert verified.exit_code == 0 and "All 1 table(s) match" in verified.output


def test_a_wrong_database_url_is_a_clear_error(tmp_path, pg_cluster):
    runner = CliRunner()
    wrong = runner.invoke(main, ["tables", "list", "--data-dir", str(tmp_path), "--database-url", "mysql://x/y"])
    assert wrong.exit_code == 2 and "postgresql://" in wrong.output
    secret = pg_cluster.url("no_such_database").replace("postgres@", "postgres:hunter2@")
    missing = runner.invoke(main, ["tables", "list", "--data-dir", str(tmp_path), "--database-url", secret])
    assert missing.exit_code == 1 and "no_such_database" in missing.output and "hunter2" not in missing.output


def test_a_change_is_announced_when_it_commits_and_not_before(url):
    """One note for the change that committed, none for the one refused and rolled back —
    and none missed because it committed before the listener first asked for a note (it
    listens from the call on: the test used to race against that)."""
    listener, writer = db.connect_store(url), db.connect_store(url)
    postgres.migrate(writer)
    state, _, _ = store.create_table(writer, "Friday", "munchkin-1.6", "Ann", "female")
    seat = next(iter(state.players))
    stopped = threading.Event()
    notes = postgres.notifications(listener, stopped, wait=0.2)
    with pytest.raises(store.Refused):  # refused: rolled back, nothing announced
        store.act(writer, state.id, seat, "level.kill", {"levels": 1})
    store.act(writer, state.id, seat, "level.up", {})
    threading.Timer(2, stopped.set).start()
    assert list(notes) == [state.id]
    listener.close()
    writer.close()
