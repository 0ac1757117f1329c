"""Live updates: every phone's stream carries each new version; reconnecting catches up."""
import json
import re
import time

from sse import Reader, client_lines

from companion import db, live, store

#: every test here runs on the embedded SQLite store and on PostgreSQL (tests/pg.py)
STORE_BACKENDS = ("sqlite", "postgres")


class Stream:
    """A phone's open event stream, read in its own thread like a browser would."""

    def __init__(self, client, url, headers=None):
        self.response = None
        self.reader = Reader(lambda: self._open(client, url, headers or {}))

    def _open(self, client, url, headers):
        self.response = client.get(url, buffered=False, headers=headers)
        assert self.response.status_code == 200 and self.response.mimetype == "text/event-stream"
        return client_lines(self.response)

    def next(self, **kw):
        return self.reader.next(**kw)

    def close(self):
        """Hang up. The server notices when it next writes; the app fixture ends the rest."""


def open_stream(phone, headers=None):
    stream = Stream(phone.client, f"/t/{phone.table_id}/stream", headers)
    return stream, stream


def test_other_phones_receive_the_change(phones):
    alice, bob, cleo = phones
    streams = [open_stream(p) for p in (alice, cleo)]
    first = [reader.next(event="board") for _, reader in streams]
    assert len({m["id"] for m in first}) == 1  # everyone starts at the same version
    bob.act("level.up")
    for response, reader in streams:
        message = reader.next(event="board")
        assert int(message["id"]) == int(first[0]["id"]) + 1
        assert re.search(r'data-name="Bob".*?class="level-value">2<', message["data"], re.S)
        response.close()


def test_own_sheet_in_stream_is_for_the_viewer(phones):
    alice, bob, cleo = phones
    response, reader = open_stream(cleo)
    assert '<h2>Cleo' in reader.next(event="board")["data"]
    response.close()


def test_a_phone_that_was_away_catches_up_on_reconnect(phones):
    alice, bob, cleo = phones
    response, reader = open_stream(cleo)
    seen = int(reader.next(event="board")["id"])
    response.close()  # the phone sleeps
    bob.act("level.up")
    bob.act("level.up")
    response, reader = open_stream(cleo, headers={"Last-Event-ID": str(seen)})
    message = reader.next(event="board")
    assert int(message["id"]) == seen + 2
    assert re.search(r'data-name="Bob".*?class="level-value">3<', message["data"], re.S)
    response.close()


def test_removed_player_stream_ends(phones):
    alice, bob, cleo = phones
    response, reader = open_stream(cleo)
    html = reader.next(event="board")["data"]
    seat = re.search(r'data-seat="([^"]+)" data-name="Cleo"', html).group(1)
    alice.act("player.remove", seat=seat)
    assert reader.next(event="gone")["event"] == "gone"
    response.close()
    response, reader = open_stream(cleo)  # reconnecting later (the phone slept): told at once, not refused
    assert reader.next(event="gone")["event"] == "gone"  # (Stream checks the 200 and the event-stream type)
    response.close()


def test_spectator_and_api_streams(api, app):
    client, table_id, tokens, _ = api
    response = reader = Stream(client, f"/api/v1/tables/{table_id}/stream", {"Authorization": f"Bearer {tokens['Ivo']}"})
    first = json.loads(reader.next(event="state")["data"])
    client.post(f"/api/v1/tables/{table_id}/actions", json={"action": "level.up"}, headers={"Authorization": f"Bearer {tokens['Jana']}"})
    second = json.loads(reader.next(event="state")["data"])
    assert second["version"] == first["version"] + 1
    assert [p["level"] for p in second["players"] if p["name"] == "Jana"] == [2]
    response.close()
    assert client.get(f"/api/v1/tables/{table_id}/stream").status_code == 401
    assert client.get("/w/not-a-token/stream").status_code == 404


def test_stream_without_seat_is_refused(app, phones):
    alice, _, _ = phones
    stranger = app.test_client()
    assert stranger.get(f"/t/{alice.table_id}/stream").status_code == 401


def test_a_change_committed_as_a_stream_starts_wakes_it(tmp_path, monkeypatch):
    """A stream takes its cursor (``ChangeFeed.cursor``), then reads the table: a change
    committed in between must still wake it. The process's watcher starts with its first
    stream, and connecting may take a while (a database under load; 0.3 s here): the
    stream waits until the watcher is watching. (It did not: the change was missed, and
    the phone saw it at the next keep-alive, 15 s later — two instances on PostgreSQL, in CI.)"""
    path = tmp_path / "tables.sqlite3"
    writer = db.connect(path)
    db.migrate(writer)
    state, seat, _ = store.create_table(writer, "Friday", "munchkin-1.6", "Ann", "female")
    connect = db.connect_store

    def slow(target):
        time.sleep(0.3)
        return connect(target)
    monkeypatch.setattr(db, "connect_store", slow)
    feed = live.ChangeFeed(str(path))
    try:
        cursor = feed.cursor(state.id)
        store.act(writer, state.id, seat, "level.up", {})
        assert feed.wait(state.id, cursor, timeout=5) != cursor
    finally:
        feed.stop()
