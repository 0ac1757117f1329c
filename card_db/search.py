"""Type-ahead search over every name of every card, forgiving typos and accents.

A query is folded like the names (see :mod:`card_db.normalize`), then each card scores
by its best-matching name: a name that starts with the query ranks first, then a word
that starts with it, then the query anywhere inside, then fuzzy matches (RapidFuzz's
``partial_ratio``, which tolerates a typo or two) above a cut-off. Ties go to the shorter
name. The index is built from the database once per process and rebuilt when the card
database's version changes.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

import sqlite_utils
from rapidfuzz import fuzz, process

from . import store
from .normalize import fold

FUZZY_CUTOFF = 75


@dataclass(frozen=True)
class Hit:
    card_id: str
    name: str  # the name that matched
    lang: str
    score: float


class Index:
    """All names, folded, with their card's deck and kind, in parallel lists."""

    def __init__(self, rows: list[tuple], version: int):
        self.version = version
        self.card_ids = [r[0] for r in rows]
        self.langs = [r[1] for r in rows]
        self.names = [r[2] for r in rows]
        self.keys = [r[3] for r in rows]
        self.decks = [r[4] for r in rows]
        self.kinds = [r[5] for r in rows]

    def search(self, query: str, deck: str | None = None, kind: str | None = None, limit: int = 10) -> list[Hit]:
        q = fold(query)
        if not q:
            return []
        allowed = [i for i in range(len(self.keys))
                   if (deck is None or self.decks[i] == deck) and (kind is None or self.kinds[i] == kind)]
        best: dict[str, tuple[float, int]] = {}

        def offer(i: int, score: float):
            card = self.card_ids[i]
            current = best.get(card)
            if current is None or (score, -len(self.keys[i])) > (current[0], -len(self.keys[current[1]])):
                best[card] = (score, i)

        for i in allowed:
            key = self.keys[i]
            if key.startswith(q):
                offer(i, 300 - min(len(key) - len(q), 99) / 100)
            elif f" {q}" in f" {key}":
                offer(i, 200 - min(len(key) - len(q), 99) / 100)
            elif q in key:
                offer(i, 150)
        if len(best) < limit and len(q) >= 3:
            choices = {i: self.keys[i] for i in allowed}
            for _, score, i in process.extract(q, choices, scorer=fuzz.partial_ratio, score_cutoff=FUZZY_CUTOFF,
                                               limit=limit * 4):
                # partial_ratio aligns the shorter string inside the longer one: penalise names
                # much longer than the query, and names shorter than it even more
                key_len = len(self.keys[i])
                penalty = max(0, key_len - len(q) * 2) / 4 + max(0, len(q) - key_len) * 4
                if score - penalty >= FUZZY_CUTOFF:
                    offer(i, score - penalty)
        ranked = sorted(best.items(), key=lambda kv: (-kv[1][0], len(self.keys[kv[1][1]]), kv[0]))[:limit]
        return [Hit(card, self.names[i], self.langs[i], round(score, 2)) for card, (score, i) in ranked]


_lock = threading.Lock()
_indexes: dict[str, Index] = {}


def index_for(db: sqlite_utils.Database, cache_key: str) -> Index:
    """The search index of this database, rebuilt only when its cards changed."""
    current = store.version(db)
    index = _indexes.get(cache_key)
    if index is None or index.version != current:
        with _lock:
            index = _indexes.get(cache_key)
            if index is None or index.version != current:
                index = _indexes[cache_key] = Index(store.name_rows(db), current)
    return index


def search(db: sqlite_utils.Database, query: str, deck: str | None = None, kind: str | None = None,
           limit: int = 10, cache_key: str = "default") -> list[Hit]:
    """The best cards for ``query`` (any name, any language), optionally by deck and kind."""
    return index_for(db, cache_key).search(query, deck, kind, limit)
