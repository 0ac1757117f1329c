"""Type-ahead search over every name of every card, forgiving typos and accents.

A query is folded like the names (see :mod:`card_db.normalize`), then each card scores
by its best-matching name: a name that starts with the query ranks first, then a word
that starts with it, then names holding every word of the query at the start of a word in
any order ("boots butt" finds "Boots of Butt-Kicking"), then the query anywhere inside,
then fuzzy matches (RapidFuzz's
``partial_ratio``, which tolerates a typo or two) above a cut-off, among the names
sharing the most letter trigrams with the query. Ties go to the shorter
name. The index is built from the database once per process and rebuilt when the card
database's version changes.
"""
from __future__ import annotations

import bisect
import re
import threading
from collections import Counter
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


def _trigrams(key: str) -> set[str]:
    padded = f"  {key} "
    return {padded[i:i + 3] for i in range(len(padded) - 2)}


class Index:
    """All names, folded, with their card's deck and kind.

    Exact matching runs as one regular-expression scan over all keys joined by newlines
    (C speed); fuzzy matching scores only the names that share the most trigrams with
    the query, so neither grows with the whole list in Python.
    """

    CANDIDATES = 300

    def __init__(self, rows: list[tuple], version: int):
        self.version = version
        self.card_ids = [r[0] for r in rows]
        self.langs = [r[1] for r in rows]
        self.names = [r[2] for r in rows]
        self.keys = [r[3] for r in rows]
        self.decks = [r[4] for r in rows]
        self.kinds = [r[5] for r in rows]
        self.starts: list[int] = []
        position = 1
        for key in self.keys:
            self.starts.append(position)
            position += len(key) + 1
        self.blob = "\n" + "\n".join(self.keys) + "\n"
        words = sorted({(word, i) for i, key in enumerate(self.keys) for word in key.split()})
        self.words = [word for word, _ in words]  # every word of every name, sorted: a prefix is a range
        self.word_names = [i for _, i in words]
        self.postings: dict[str, list[int]] = {}
        for i, key in enumerate(self.keys):
            for gram in _trigrams(key):
                self.postings.setdefault(gram, []).append(i)

    def _with_every_word(self, words: list[str]) -> set[int]:
        """The names in which every one of ``words`` starts a word, in whatever order."""
        found: set[int] | None = None
        for word in words:
            first = bisect.bisect_left(self.words, word)
            last = bisect.bisect_left(self.words, word + "\U0010ffff", first)  # every word with that prefix
            names = set(self.word_names[first:last])
            found = names if found is None else found & names
            if not found:
                return set()
        return found or set()

    def search(self, query: str, deck: str | None = None, kind: str | None = None, limit: int = 10) -> list[Hit]:
        q = fold(query)
        if not q:
            return []

        def allowed(i: int) -> bool:
            return (deck is None or self.decks[i] == deck) and (kind is None or self.kinds[i] == kind)

        best: dict[str, tuple[float, int]] = {}

        def slack(i: int) -> float:  # among equal matches, the name closest to the query's length first
            return min(len(self.keys[i]) - len(q), 99) / 100

        def offer(i: int, score: float):
            card = self.card_ids[i]
            current = best.get(card)
            if current is None or (score, -len(self.keys[i])) > (current[0], -len(self.keys[current[1]])):
                best[card] = (score, i)

        for match in re.finditer(re.escape(q), self.blob):
            at = match.start()
            i = bisect.bisect_right(self.starts, at) - 1
            if not allowed(i):
                continue
            if at == self.starts[i]:
                offer(i, 300 - slack(i))  # the name starts with the query
            elif self.blob[at - 1] == " ":
                offer(i, 200 - slack(i))  # a word of the name starts with it
            else:
                offer(i, 150)
        words = q.split()
        if len(words) > 1:
            for i in self._with_every_word(words):
                if allowed(i):
                    offer(i, 180 - slack(i))
        if len(best) < limit and len(q) >= 3:
            shared = Counter()
            for gram in _trigrams(q):
                shared.update(self.postings.get(gram, ()))
            candidates = [i for i, _ in shared.most_common(self.CANDIDATES * 2) if allowed(i)][: self.CANDIDATES]
            choices = {i: self.keys[i] for i in candidates}
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
