"""The table store (companion/store.py) on both of its databases: the embedded SQLite file
and PostgreSQL (a real server, tests/pg.py). The same functions, the same answers; writers
from several connections at once all count, exactly once."""
from __future__ import annotations

import threading

import pytest

from companion import db, postgres, store
from companion.referee.rules import Refused

STORE_BACKENDS = ("sqlite", "postgres")


@pytest.fixture
def opener(store_backend, database_url, tmp_path):
    """Opens a new connection to one migrated store (each thread of a test opens its own)."""
    target = database_url or str(tmp_path / "tables.sqlite3")
    first = db.connect_store(target)
    if database_url:
        postgres.migrate(first)
    else:
        db.migrate(first)
    opened = [first]

    def open_one():
        conn = db.connect_store(target)
        opened.append(conn)
        return conn

    yield open_one
    for conn in opened:
        conn.conn.close()


@pytest.fixture
def conn(opener):
    return opener()


def _table(conn):
    state, host, _ = store.create_table(conn, "Friday", "munchkin-1.6", "Ann", "female")
    join = store.tokens(conn, state.id)["join"]
    state, ben, _ = store.join_table(conn, join, "Ben", "male")
    return state.id, host, ben


def test_a_table_is_created_joined_changed_and_replays_to_its_snapshot(conn):
    table_id, host, ben = _table(conn)
    state, seq = store.act(conn, table_id, ben, "level.up", {})
    assert state.players[ben].level == 2 and seq == state.version == 4
    assert store.load(conn, table_id).players[ben].level == 2
    assert store.names(conn, table_id) == {host: "Ann", ben: "Ben"}
    assert [r.seq for r in store.history(conn, table_id)] == [4, 3, 2, 1]
    assert [r.seq for r in store.history(conn, table_id, limit=2)] == [4, 3]
    assert store.event(conn, table_id, 4).kind == "level.changed"
    assert store.verify(conn, table_id) and table_id in store.table_ids(conn)
    assert store.seat_for_token(conn, "not a token") is None
    with pytest.raises(store.NotFound):
        store.load(conn, "no-such-table")
    with pytest.raises(store.NotFound):
        store.act(conn, "no-such-table", ben, "level.up", {})


def test_a_refused_action_writes_nothing(conn):
    table_id, _, ben = _table(conn)
    before = store.load(conn, table_id).to_json()
    with pytest.raises(Refused):
        store.act(conn, table_id, ben, "level.kill", {"levels": 1})  # no kill without a fight
    assert store.load(conn, table_id).to_json() == before and len(store.history(conn, table_id)) == 3


def test_a_stale_version_is_refused_and_an_undo_is_recorded_once(conn):
    table_id, host, ben = _table(conn)
    state, seq = store.act(conn, table_id, ben, "level.up", {})
    with pytest.raises(Refused) as stale:
        store.act(conn, table_id, ben, "level.up", {}, expected_version=state.version - 1)
    assert stale.value.status == 409
    state, undo_seq = store.undo(conn, table_id, host, seq, reason="wrong button")
    assert state.players[ben].level == 1 and store.event(conn, table_id, seq).undone_by == undo_seq
    with pytest.raises(Refused) as again:
        store.undo(conn, table_id, host, seq)
    assert again.value.status == 409


def test_house_rulings_are_the_overridden_changes(conn):
    table_id, host, ben = _table(conn)
    store.act(conn, table_id, ben, "level.up", {})
    store.act(conn, table_id, host, "level.down", {"seat": ben, "override": "level.causes"}, reason="typo")
    rulings = store.house_rulings(conn, table_id)
    assert [(r.kind, r.payload["override"]["rule"], r.reason) for r in rulings] == [("level.changed", "level.causes", "typo")]


def test_removing_a_player_rotates_the_invitation(conn):
    table_id, host, ben = _table(conn)
    old = store.tokens(conn, table_id)["join"]
    store.act(conn, table_id, host, "player.remove", {"seat": ben})
    assert store.tokens(conn, table_id)["join"] != old
    with pytest.raises(store.NotFound):
        store.join_table(conn, old, "Ben again", "male")


def test_an_idle_table_expires_with_its_log(conn):
    old_id, _, _ = _table(conn)
    new_id, _, _ = _table(conn)
    conn.execute("UPDATE events SET created_at = ? WHERE table_id = ?", ["2020-01-01T00:00:00.000+00:00", old_id])
    assert store.expire_idle(conn, 30) == [old_id]
    assert store.table_ids(conn) == [new_id]
    assert conn.execute("SELECT count(*) FROM events WHERE table_id = ?", [old_id]).fetchone()[0] == 0


def test_writers_on_many_connections_all_count_exactly_once(opener):
    """Eight connections tapping the same table at once: every tap one event, no gaps."""
    conn = opener()
    table_id, host, ben = _table(conn)
    errors: list[BaseException] = []

    def tap(times: int):
        mine = opener()
        try:
            for _ in range(times):
                store.act(mine, table_id, host, "dice.roll", {"count": 1, "sides": 6})
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=tap, args=(10,)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    seqs = [r.seq for r in store.history(conn, table_id)]
    assert seqs == list(range(83, 0, -1))
    assert store.load(conn, table_id).version == 83 and store.verify(conn, table_id)


def test_a_retried_action_applies_once_even_when_the_retries_race(opener):
    conn = opener()
    table_id, _, ben = _table(conn)
    answers: list[int] = []

    def retry():
        answers.append(store.act(opener(), table_id, ben, "level.up", {}, idempotency_key="tap-1")[1])

    threads = [threading.Thread(target=retry) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers == [4] * 6
    assert store.load(conn, table_id).players[ben].level == 2 and len(store.history(conn, table_id)) == 4


def test_a_key_reused_for_another_request_is_refused_and_changes_nothing(conn):
    """A retry is the same request again; the same key on another request (a client reusing its
    keys by mistake) answered the first request's change as if it were this one's (2026-11-30)."""
    table_id, ann, ben = _table(conn)
    _, seq = store.act(conn, table_id, ben, "level.up", {"seat": ben}, idempotency_key="tap-1")
    assert store.act(conn, table_id, ben, "level.up", {"seat": ben}, idempotency_key="tap-1")[1] == seq  # a retry
    version = store.load(conn, table_id).version
    with pytest.raises(Refused) as exc:
        store.act(conn, table_id, ben, "level.up", {"seat": ann}, idempotency_key="tap-1")
    assert exc.value.status == 422 and f"change #{seq}" in exc.value.message
    with pytest.raises(Refused):
        store.act(conn, table_id, ben, "sex.set", {"seat": ben, "sex": "female"}, idempotency_key="tap-1")
    after = store.load(conn, table_id)
    assert after.version == version and after.players[ann].level == 1 and after.players[ben].level == 2
    # what the app adds itself (the moment of a claim: "_now") is not part of the request
    store.act(conn, table_id, ben, "dice.roll", {"_now": 1.0}, idempotency_key="roll-1")
    assert store.act(conn, table_id, ben, "dice.roll", {"_now": 2.0}, idempotency_key="roll-1")[1] == version + 1
    # another seat's key of the same name is another key
    assert store.act(conn, table_id, ann, "level.up", {"seat": ann}, idempotency_key="tap-1")[1] == version + 2


def test_joins_at_once_all_get_their_own_seat(opener):
    conn = opener()
    table_id, _, _ = _table(conn)
    join = store.tokens(conn, table_id)["join"]
    seats: list[str] = []

    def sit(n: int):
        seats.append(store.join_table(opener(), join, f"Player {n}", "male")[1])

    threads = [threading.Thread(target=sit, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    state = store.load(conn, table_id)
    assert len(set(seats)) == 4 and set(seats) <= set(state.players) and len(state.players) == 6
    assert store.verify(conn, table_id)


def test_migrating_again_changes_nothing(opener, store_backend):
    conn = opener()
    table_id, _, _ = _table(conn)
    if store_backend == "postgres":
        threads = [threading.Thread(target=postgres.migrate, args=(opener(),)) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        applied = conn.execute("SELECT count(*) FROM companion_migrations").fetchone()[0]
        assert applied == len(postgres.MIGRATIONS)
    else:
        db.migrate(conn)
    assert store.verify(conn, table_id)
