"""The one module that owns the database connections and the schema migrations.

Two stores: the **local SQLite file** in the data directory holds the cards, the rule index
and (by default) the tables too; with ``DATABASE_URL`` set to a ``postgresql://`` URL the
tables, seats and event log live in PostgreSQL instead (:mod:`companion.postgres`), shared
by several instances. :func:`get_db` is the request's SQLite connection, :func:`get_store`
the request's connection to wherever the tables are.

Every connection runs in WAL mode (readers never block the writer, and a crash — even
``kill -9`` — loses no committed transaction), waits for a busy writer instead of
failing, and is in autocommit mode so the store can open ``BEGIN IMMEDIATE``
transactions itself. Migrations (sqlite-utils' own) are applied in order and recorded in the database;
they only ever add, never drop.
"""
from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from pathlib import Path

import sqlite_utils
from card_db import store as card_store
from sqlite_utils.migrations import Migrations

from . import postgres


def connect(path: str | Path) -> sqlite_utils.Database:
    """A new connection to the database at ``path``, configured for concurrent use."""
    conn = sqlite3.connect(str(path), isolation_level=None, timeout=10, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA busy_timeout=10000")
    conn.execute("PRAGMA foreign_keys=ON")
    return sqlite_utils.Database(conn)


def get_db() -> sqlite_utils.Database:
    """The request's connection, opened on first use and closed at teardown."""
    from flask import current_app, g  # here, not at the top: the CLI's commands open the database without Flask

    if "db" not in g:
        g.db = connect(current_app.config["DATABASE"])
    return g.db


def connect_store(target: str | Path):
    """A new connection to the table store at ``target``: a ``postgresql://`` URL or the SQLite file."""
    return postgres.connect(str(target)) if postgres.is_url(str(target)) else connect(target)


def store_target(config) -> str:
    """Where an app's tables live: its ``DATABASE_URL`` when set, else its SQLite file."""
    return config.get("DATABASE_URL") or config["DATABASE"]


def get_store():
    """The request's connection to the table store (the SQLite one itself by default; a
    connection borrowed from the process's pool on PostgreSQL), given back at teardown."""
    from flask import current_app, g

    if "store" not in g:
        pool = current_app.extensions.get("companion.pg_pool")
        g.store = pool.borrow() if pool is not None else get_db()
    return g.store


def close_db(_exc=None) -> None:
    from flask import current_app, g

    store = g.pop("store", None)
    if isinstance(store, postgres.PostgresStore):
        current_app.extensions["companion.pg_pool"].give_back(store)
    db = g.pop("db", None)
    if db is not None:
        db.conn.close()


MIGRATIONS = Migrations("companion")


@MIGRATIONS(name="001_tables_seats_events")
def _m001_tables(db: sqlite_utils.Database) -> None:
    db["tables"].create(
        {"id": str, "name": str, "profile_id": str, "join_token": str, "spectator_token": str,
         "version": int, "state": str, "created_at": str},
        pk="id", not_null={"name", "profile_id", "join_token", "spectator_token", "version", "state"},
    )
    db["tables"].create_index(["join_token"], unique=True)
    db["tables"].create_index(["spectator_token"], unique=True)
    db["seats"].create(
        {"id": str, "table_id": str, "token_hash": str, "created_at": str},
        pk="id", foreign_keys=[("table_id", "tables", "id")], not_null={"table_id", "token_hash"},
    )
    db["seats"].create_index(["token_hash"], unique=True)
    db["events"].create(
        {"id": int, "table_id": str, "seq": int, "kind": str, "actor": str, "payload": str,
         "reason": str, "created_at": str, "undoes": int, "undone_by": int},
        pk="id", foreign_keys=[("table_id", "tables", "id")],
        not_null={"table_id", "seq", "kind", "payload", "created_at"},
    )
    db["events"].create_index(["table_id", "seq"], unique=True)


@MIGRATIONS(name="002_idempotency_keys")
def _m002_idempotency(db: sqlite_utils.Database) -> None:
    """The ``Idempotency-Key`` of each action, so that a tap retried after a lost answer applies once."""
    db["idempotency_keys"].create(
        {"table_id": str, "seat": str, "key": str, "seq": int, "created_at": str},
        pk=("table_id", "seat", "key"), foreign_keys=[("table_id", "tables", "id")], not_null={"seq", "created_at"},
    )


@MIGRATIONS(name="003_idempotency_fingerprints")
def _m003_fingerprints(db: sqlite_utils.Database) -> None:
    """What each key's request asked for (store._fingerprint): a key reused for another request is
    refused rather than answered with the first one's change. Keys recorded before have none."""
    db["idempotency_keys"].add_column("fingerprint", str)


def migrate(db: sqlite_utils.Database) -> None:
    """Apply pending migrations (the app's and the card database's, recorded in
    ``_sqlite_migrations``) and load the bundled cards if they changed.

    The outer ``BEGIN IMMEDIATE`` takes the write lock first, so several worker processes
    starting at once apply each migration exactly once.
    """
    db.conn.execute("BEGIN IMMEDIATE")
    try:
        MIGRATIONS.apply(db)
        card_store.migrate(db)
        card_store.load_bundled(db)
        db.conn.execute("COMMIT")
    except BaseException:
        db.conn.execute("ROLLBACK")
        raise


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")
