"""Cards in SQLite: their own recorded migrations, the bundled data, imports and exports.

A card is stored whole as JSON (the record the schema describes) with its deck, kind,
set and origin beside it for filtering; its names, folded for search, go in
``card_names``. Every import is one transaction: a file with a single bad record changes
nothing. ``card_meta.version`` grows with every change so search indexes know when to
rebuild.
"""
from __future__ import annotations

import hashlib
import json
from importlib import resources

import sqlite_utils
from sqlite_utils.migrations import Migrations

from .normalize import variants
from .schema import Problem, validate

MIGRATIONS = Migrations("card_db")
BUNDLED = "bundled"


@MIGRATIONS(name="001_cards")
def _m001_cards(db: sqlite_utils.Database) -> None:
    db["cards"].create({"id": str, "deck": str, "kind": str, "set_id": str, "origin": str, "data": str},
                       pk="id", not_null={"deck", "kind", "set_id", "origin", "data"})
    db["cards"].create_index(["kind"])
    db["card_names"].create({"card_id": str, "lang": str, "name": str, "key": str},
                            foreign_keys=[("card_id", "cards", "id")], not_null={"card_id", "lang", "name", "key"})
    db["card_names"].create_index(["card_id"])
    db["card_meta"].create({"key": str, "value": str}, pk="key")


class InvalidCards(ValueError):
    """An import that failed validation; ``problems`` says where, record by record."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        shown = "; ".join(str(p) for p in problems[:10])
        more = f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""
        super().__init__(f"{len(problems)} problem(s): {shown}{more}")


def migrate(db: sqlite_utils.Database) -> None:
    """Apply the card database's pending migrations (inside the caller's write lock if any)."""
    MIGRATIONS.apply(db)


def bundled_records() -> list[dict]:
    """The cards that ship with the app (the base game), as records."""
    records: list[dict] = []
    for entry in sorted(resources.files("card_db.data").iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            records.extend(json.loads(entry.read_text(encoding="utf-8"))["cards"])
    return records


def version(db: sqlite_utils.Database) -> int:
    row = db.execute("SELECT value FROM card_meta WHERE key = 'version'").fetchone()
    return int(row[0]) if row else 0


def load_bundled(db: sqlite_utils.Database) -> bool:
    """Load (or refresh) the bundled cards when they changed since last time; True if it did."""
    records = bundled_records()
    digest = hashlib.sha256(json.dumps(records, sort_keys=True).encode()).hexdigest()
    row = db.execute("SELECT value FROM card_meta WHERE key = 'bundled_sha256'").fetchone()
    if row and row[0] == digest:
        return False
    _write(db, records, BUNDLED, replace_origin=True)
    db.execute("INSERT OR REPLACE INTO card_meta (key, value) VALUES ('bundled_sha256', ?)", [digest])
    return True


def import_cards(db: sqlite_utils.Database, records: list, origin: str = "imported") -> int:
    """Validate and add or replace ``records`` in one transaction; returns how many.

    Raises :class:`InvalidCards` (and changes nothing) when any record is invalid, or
    when a record would replace a bundled card of the base game.
    """
    if not isinstance(records, list):
        raise InvalidCards([Problem(0, None, "", "expected a list of cards")])
    problems = validate(records)
    if not problems:
        ids = [r["id"] for r in records]
        marks = ",".join("?" * len(ids))
        bundled = {row[0] for row in db.execute(
            f"SELECT id FROM cards WHERE origin = ? AND id IN ({marks})", [BUNDLED, *ids])} if ids else set()
        problems = [Problem(i, r["id"], "id", "a bundled card of the base game has this id; choose another")
                    for i, r in enumerate(records) if r["id"] in bundled]
    if problems:
        raise InvalidCards(problems)
    _write(db, records, origin)
    return len(records)


def _write(db: sqlite_utils.Database, records: list[dict], origin: str, replace_origin: bool = False) -> None:
    own = not db.conn.in_transaction
    if own:
        db.conn.execute("BEGIN IMMEDIATE")
    try:
        if replace_origin:
            db.execute("DELETE FROM card_names WHERE card_id IN (SELECT id FROM cards WHERE origin = ?)", [origin])
            db.execute("DELETE FROM cards WHERE origin = ?", [origin])
        for record in records:
            db.execute("DELETE FROM card_names WHERE card_id = ?", [record["id"]])
            db.execute("INSERT OR REPLACE INTO cards (id, deck, kind, set_id, origin, data) VALUES (?,?,?,?,?,?)",
                       [record["id"], record["deck"], record["kind"], record["set"], origin,
                        json.dumps(record, ensure_ascii=False, sort_keys=True)])
            names = [(lang, name) for lang, name in record["names"].items()]
            names += [(lang, name) for lang, more in record.get("aka", {}).items() for name in more]
            rows = [(record["id"], lang, name, key) for lang, name in names for key in variants(name)]
            db.conn.executemany("INSERT INTO card_names (card_id, lang, name, key) VALUES (?,?,?,?)", rows)
        db.execute("INSERT INTO card_meta (key, value) VALUES ('version', '1') "
                   "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1")
        if own:
            db.conn.execute("COMMIT")
    except BaseException:
        if own:
            db.conn.execute("ROLLBACK")
        raise


def get(db: sqlite_utils.Database, card_id: str) -> dict | None:
    row = db.execute("SELECT data, origin FROM cards WHERE id = ?", [card_id]).fetchone()
    if row is None:
        return None
    return {**json.loads(row[0]), "origin": row[1]}


def export(db: sqlite_utils.Database, origin: str | None = None) -> list[dict]:
    """Cards as records (the import format), all or one origin's, ordered by id."""
    sql, params = "SELECT data FROM cards", []
    if origin:
        sql, params = sql + " WHERE origin = ?", [origin]
    return [json.loads(row[0]) for row in db.execute(sql + " ORDER BY id", params)]


def name_rows(db: sqlite_utils.Database) -> list[tuple]:
    """``(card_id, lang, name, key, deck, kind)`` for every name, for the search index."""
    return db.execute(
        "SELECT n.card_id, n.lang, n.name, n.key, c.deck, c.kind FROM card_names n JOIN cards c ON c.id = n.card_id"
    ).fetchall()


def count(db: sqlite_utils.Database) -> int:
    return db.execute("SELECT count(*) FROM cards").fetchone()[0]
