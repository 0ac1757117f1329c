"""The table store: tables, seats and the event log, in SQLite or PostgreSQL.

Each change is one write transaction that locks the table, reads its current state, asks
the referee for the event, appends the event with the next sequence number and writes
the new state snapshot. Writers of one table are serialised (SQLite's ``BEGIN IMMEDIATE``
write lock; PostgreSQL's row lock on the table, ``SELECT … FOR UPDATE``), so two phones
tapping at the same moment both count and neither overwrites the other; the snapshot and
the log commit together, so a crash leaves either both or neither. :func:`verify` replays
a table's log and compares it with its snapshot.

All SQL of the app's tables lives here, written once for both databases (``?``
placeholders, no JSON functions; :class:`companion.postgres.PostgresStore` adapts it);
views and the action layer call these functions with :func:`companion.db.get_store`.
"""
from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Callable, Iterator

import sqlite_utils

from .db import now
from .postgres import PostgresStore
from .referee import table as referee
from .referee.rules import Refused
from .referee.table import Event, TableState


#: A connection to the table store: the SQLite file's, or PostgreSQL's.
Conn = sqlite_utils.Database | PostgresStore


def new_token() -> str:
    """An unguessable capability token: 144 random bits, URL-safe."""
    return secrets.token_urlsafe(18)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Seat:
    """A player's seat at a table, found from its secret token."""

    table_id: str
    seat: str


@dataclass(frozen=True)
class Recorded:
    """An event as stored in the log."""

    seq: int
    kind: str
    actor: str | None
    payload: dict
    reason: str | None
    created_at: str
    undoes: int | None
    undone_by: int | None

    @property
    def event(self) -> Event:
        return Event(self.kind, self.payload)


class NotFound(LookupError):
    """No table, seat or event answers to the given id or token."""


class Transaction:
    """One write transaction. On SQLite, ``BEGIN IMMEDIATE``: the one write lock is taken
    before anything is read. On PostgreSQL writers lock the table they change (:func:`_lock`)."""

    def __init__(self, db):
        self.conn = db.conn
        self.postgres = _postgres(db)

    def __enter__(self):
        self.conn.execute("BEGIN" if self.postgres else "BEGIN IMMEDIATE")
        return self

    def __exit__(self, exc_type, exc, tb):
        self.conn.execute("ROLLBACK" if exc_type else "COMMIT")
        return False


def _postgres(db) -> bool:
    return getattr(db, "dialect", "sqlite") == "postgres"


def _lock(db, table_id: str) -> None:
    """Inside a transaction: make this writer of ``table_id`` wait for the one before it
    (SQLite's transaction already holds the database's single write lock)."""
    if _postgres(db) and not db.lock_table(table_id):
        raise NotFound("no such table")


# --- reading ------------------------------------------------------------------------------

def load(db: Conn, table_id: str) -> TableState:
    row = db.execute("SELECT state FROM tables WHERE id = ?", [table_id]).fetchone()
    if row is None:
        raise NotFound("no such table")
    return TableState.from_json(json.loads(row[0]))


def tokens(db: Conn, table_id: str) -> dict:
    """The table's join and spectator tokens (shown to seated players for the QR code)."""
    row = db.execute("SELECT join_token, spectator_token FROM tables WHERE id = ?", [table_id]).fetchone()
    if row is None:
        raise NotFound("no such table")
    return {"join": row[0], "spectator": row[1]}


def was_removed(db: Conn, table_id: str, token: str) -> bool:
    """Whether ``token`` held a seat at ``table_id`` whose player the host has removed since."""
    row = db.execute(
        "SELECT seats.id, tables.state FROM seats JOIN tables ON tables.id = seats.table_id "
        "WHERE seats.token_hash = ? AND seats.table_id = ?",
        [token_hash(token), table_id],
    ).fetchone()
    return row is not None and not any(p["seat"] == row[0] for p in json.loads(row[1])["players"])


def table_for_join(db: Conn, join_token: str) -> str:
    row = db.execute("SELECT id FROM tables WHERE join_token = ?", [join_token]).fetchone()
    if row is None:
        raise NotFound("This invitation is not valid. Scan the table's QR code again.")
    return row[0]


def table_for_spectator(db: Conn, spectator_token: str) -> str:
    row = db.execute("SELECT id FROM tables WHERE spectator_token = ?", [spectator_token]).fetchone()
    if row is None:
        raise NotFound("This spectator link is not valid.")
    return row[0]


def seat_for_token(db: Conn, token: str) -> Seat | None:
    """The seat a secret token belongs to, or ``None`` (unknown token or player removed)."""
    row = db.execute(
        "SELECT seats.id, seats.table_id, tables.state FROM seats JOIN tables ON tables.id = seats.table_id "
        "WHERE seats.token_hash = ?",
        [token_hash(token)],
    ).fetchone()
    if row is None:
        return None
    seat_id, table_id, state = row
    if not any(p["seat"] == seat_id for p in json.loads(state)["players"]):
        return None
    return Seat(table_id, seat_id)


def history(db: Conn, table_id: str, limit: int | None = None) -> list[Recorded]:
    """The table's events, newest first."""
    sql = f"SELECT {_COLUMNS} FROM events WHERE table_id = ? ORDER BY seq DESC"
    params: list = [table_id]
    if limit:
        sql += " LIMIT ?"
        params.append(limit)
    return [_recorded(row) for row in db.execute(sql, params).fetchall()]


def house_rulings(db: Conn, table_id: str) -> list[Recorded]:
    """The changes the host let through against a rule (house rulings), oldest first."""
    rows = db.execute(f"SELECT {_COLUMNS} FROM events WHERE table_id = ? ORDER BY seq", [table_id]).fetchall()
    return [rec for rec in map(_recorded, rows) if rec.payload.get("override") is not None]


def event(db: Conn, table_id: str, seq: int) -> Recorded:
    row = db.execute(f"SELECT {_COLUMNS} FROM events WHERE table_id = ? AND seq = ?", [table_id, seq]).fetchone()
    if row is None:
        raise NotFound("There is no such change in this table's history.")
    return _recorded(row)


def names(db: Conn, table_id: str) -> dict[str, str]:
    """Every name a seat at this table has had, including players who left."""
    rows = db.execute("SELECT payload FROM events WHERE table_id = ? AND kind = 'player.joined' ORDER BY seq",
                      [table_id]).fetchall()
    return {payload["seat"]: payload["name"] for payload in (json.loads(row[0]) for row in rows)}


def changes_since(db: Conn, after_id: int) -> tuple[int, list[str]]:
    """The newest event id and the tables with events after ``after_id`` (for live updates)."""
    rows = db.execute("SELECT id, table_id FROM events WHERE id > ? ORDER BY id", [after_id]).fetchall()
    if not rows:
        return after_id, []
    return rows[-1][0], sorted({r[1] for r in rows})


def last_event_id(db: Conn) -> int:
    return db.execute("SELECT coalesce(max(id), 0) FROM events").fetchone()[0]


_COLUMNS = "seq, kind, actor, payload, reason, created_at, undoes, undone_by"


def _recorded(row) -> Recorded:
    seq, kind, actor, payload, reason, created_at, undoes, undone_by = row
    return Recorded(seq, kind, actor, json.loads(payload), reason, created_at, undoes, undone_by)


def events(db: Conn, table_id: str) -> Iterator[Event]:
    for kind, payload in db.execute("SELECT kind, payload FROM events WHERE table_id = ? ORDER BY seq", [table_id]):
        yield Event(kind, json.loads(payload))


def verify(db: Conn, table_id: str) -> bool:
    """Whether replaying the table's log gives exactly its stored snapshot."""
    return referee.replay(list(events(db, table_id))).to_json() == load(db, table_id).to_json()


def table_ids(db: Conn) -> list[str]:
    return [r[0] for r in db.execute("SELECT id FROM tables ORDER BY created_at")]


# --- writing ------------------------------------------------------------------------------

def expire_idle(db: Conn, idle_days: float) -> list[str]:
    """Delete the tables nobody has changed for ``idle_days`` (their log, seats and keys with
    them); returns their ids. Run at start and, now and then, when a table is opened
    (``actions``): a server left on does not keep every game forever."""
    cutoff = (datetime.now(timezone.utc) - timedelta(days=idle_days)).isoformat(timespec="milliseconds")
    with Transaction(db):
        ids = [row[0] for row in db.execute(
            "SELECT table_id FROM events GROUP BY table_id HAVING MAX(created_at) < ?", [cutoff]).fetchall()]
        for table_id in ids:
            for table in ("idempotency_keys", "events", "seats"):
                db.execute(f"DELETE FROM {table} WHERE table_id = ?", [table_id])
            db.execute("DELETE FROM tables WHERE id = ?", [table_id])
    return ids


def _append(db, state: TableState | None, event: Event, actor: str | None, reason: str | None,
            undoes: int | None = None) -> tuple[TableState, int]:
    new = referee.apply(state, event)
    db.execute(
        "INSERT INTO events (table_id, seq, kind, actor, payload, reason, created_at, undoes) VALUES (?,?,?,?,?,?,?,?)",
        [new.id, new.version, event.kind, actor, json.dumps(event.payload), reason, now(), undoes],
    )
    if _postgres(db):
        db.announce(new.id)
    if state is None:
        return new, new.version
    db.execute("UPDATE tables SET state = ?, version = ?, profile_id = ? WHERE id = ?",
               [json.dumps(new.to_json()), new.version, new.profile_id, new.id])
    return new, new.version


def _add_seat(db, table_id: str, seat: str | None = None) -> tuple[str, str]:
    seat, token = seat or secrets.token_urlsafe(6), new_token()
    db.execute("INSERT INTO seats (id, table_id, token_hash, created_at) VALUES (?,?,?,?)",
               [seat, table_id, token_hash(token), now()])
    return seat, token


def create_table(db: Conn, name: str, profile_id: str, host_name: str, host_sex: str,
                 options: dict | None = None):
    """Open a table and seat its creator as host; returns ``(state, seat, seat_token)``."""
    table_id = secrets.token_urlsafe(9)
    created = referee.create(table_id, name, profile_id, options)
    state = referee.apply(None, created)
    seat = secrets.token_urlsafe(6)
    joined = referee.join(state, seat, host_name, host_sex)  # checks before anything is written
    with Transaction(db):
        db.execute(
            "INSERT INTO tables (id, name, profile_id, join_token, spectator_token, version, state, created_at) "
            "VALUES (?,?,?,?,?,?,?,?)",
            [table_id, state.name, profile_id, new_token(), new_token(), state.version, json.dumps(state.to_json()), now()],
        )
        _append(db, None, created, None, None)
        _, token = _add_seat(db, table_id, seat)
        state, _ = _append(db, state, joined, seat, None)
    return state, seat, token


def join_table(db: Conn, join_token: str, name: str, sex: str):
    """Seat a new player at the table the join token opens; returns ``(state, seat, seat_token)``."""
    with Transaction(db):
        table_id = table_for_join(db, join_token)
        _lock(db, table_id)
        state = load(db, table_id)
        seat, token = _add_seat(db, table_id)
        state, _ = _append(db, state, referee.join(state, seat, name, sex), seat, None)
    return state, seat, token


def act(db: Conn, table_id: str, actor: str, action: str, params: dict,
        reason: str | None = None, expected_version: int | None = None,
        idempotency_key: str | None = None) -> tuple[TableState, int]:
    """Check and record one action; returns the new state and the event's sequence number.

    With ``idempotency_key``, the same key from the same seat records the action once: a
    retry (the answer was lost on the way) answers the change the first try made. Removing a
    player rotates the table's invitation, so the old QR code no longer seats anyone.
    """
    return _write(db, table_id, expected_version,
                  lambda state: (referee.decide(state, actor, action, params), actor, reason, None),
                  (actor, idempotency_key, _fingerprint(action, params)) if idempotency_key is not None else None,
                  rotate_invitation=action == "player.remove")


def _fingerprint(action: str, params: dict) -> str:
    """What a request asked for, in short: the action and the parameters as sent (not those the app
    adds, named ``_…``: the card looked up, the time of a claim), so that a key reused for another
    request is told apart from a retry."""
    asked = {k: v for k, v in params.items() if not k.startswith("_")}
    return hashlib.sha256(json.dumps([action, asked], sort_keys=True, default=str).encode()).hexdigest()


def undo(db: Conn, table_id: str, actor: str, seq: int, reason: str | None = None,
         expected_version: int | None = None) -> tuple[TableState, int]:
    """Undo event ``seq`` with its compensating event; only its author or the host may."""

    def decide(state: TableState):
        target = event(db, table_id, seq)
        if actor not in state.players:
            raise Refused("You no longer have a seat at this table.", status=403)
        if not referee.may_undo(state, actor, target.actor):
            raise Refused("Only the host or whoever made a change can undo it.", rule="table.host", status=403)
        if target.undone_by:
            raise Refused("That change was already undone (change #{undone_by}).", status=409, undone_by=target.undone_by)
        return referee.inverse(state, target.event, actor), actor, reason, seq

    state, new_seq = _write(db, table_id, expected_version, decide)
    return state, new_seq


def _write(db, table_id: str, expected_version: int | None, decide: Callable,
           idempotency: tuple[str, str, str] | None = None, rotate_invitation: bool = False) -> tuple[TableState, int]:
    """Decide and record one event in one write transaction. ``idempotency`` is ``(seat, key,
    fingerprint)``: a key already recorded answers the change it made instead of deciding again —
    if it was recorded for the same request; for another one it is refused (422), nothing done."""
    with Transaction(db):
        _lock(db, table_id)
        if idempotency is not None:
            row = db.execute("SELECT seq, fingerprint FROM idempotency_keys WHERE table_id = ? AND seat = ? AND key = ?",
                             [table_id, *idempotency[:2]]).fetchone()
            if row is not None:
                if row[1] is not None and row[1] != idempotency[2]:  # (keys recorded before fingerprints: none)
                    raise Refused("This Idempotency-Key was already used for another request (change #{seq}); "
                                  "each new action needs a new key.", status=422, seq=row[0])
                return load(db, table_id), row[0]
        state = load(db, table_id)
        if expected_version is not None and expected_version != state.version:
            raise Refused(
                "The table has changed since you looked (version {expected_version}, now {version}); check the new state and try again.", status=409, expected_version=expected_version, version=state.version)
        event, actor, reason, undoes = decide(state)
        state, seq = _append(db, state, event, actor, reason, undoes)
        if undoes is not None:
            db.execute("UPDATE events SET undone_by = ? WHERE table_id = ? AND seq = ?", [seq, table_id, undoes])
        if idempotency is not None:
            db.execute("INSERT INTO idempotency_keys (table_id, seat, key, fingerprint, seq, created_at) "
                       "VALUES (?,?,?,?,?,?)", [table_id, *idempotency, seq, now()])
        if rotate_invitation:
            db.execute("UPDATE tables SET join_token = ? WHERE id = ?", [new_token(), table_id])
    return state, seq
