"""Benchmark: type-ahead card search latency with 5,000 cards (names in several languages).

Builds a fresh database with the bundled base game plus synthetic cards up to --cards
(each with an English name and, for most, German/Italian/Russian-looking names), then
times queries as a phone types them: every prefix of real names (3+ letters), names with
one typo, folded accents, and names in other scripts. Reports p50/p95/p99 per query and
the time to (re)build the in-memory index once the card set changes.

Run:  python bench/card_search.py            (default 5,000 cards, 2,000 queries)
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import tempfile
import time
from pathlib import Path

from card_db import search, store
from companion.db import connect, migrate

SYLLABLES = ["gob", "lin", "tro", "ll", "dra", "gon", "orc", "ish", "sli", "me", "vam", "pir", "ka", "zor", "bel",
             "mun", "chk", "ax", "er", "ion", "ul", "tar", "ny", "ix", "ost", "ra", "wen", "dor", "fl", "am"]
CYRILLIC = "абвгдежзиклмнопрстуфхцчшыэюя"


def word(rng, n):
    return "".join(rng.choice(SYLLABLES) for _ in range(n)).capitalize()


def synthetic(rng, i):
    name = " ".join(word(rng, rng.randint(1, 3)) for _ in range(rng.randint(1, 4)))
    names = {"en": f"{name} {i}"}
    if rng.random() < 0.7:
        names["de"] = f"{word(rng, 2)}ü{word(rng, 1).lower()} {i}"
    if rng.random() < 0.5:
        names["it"] = f"{word(rng, 3)} {i}"
    if rng.random() < 0.5:
        names["ru"] = "".join(rng.choice(CYRILLIC) for _ in range(rng.randint(5, 14))).capitalize() + f" {i}"
    kind = rng.choice(["monster", "item"])
    record = {"id": f"synthetic-{i}", "deck": "door" if kind == "monster" else "treasure", "kind": kind,
              "set": "synthetic", "names": names}
    if kind == "monster":
        record["monster"] = {"level": rng.randint(1, 20), "treasures": rng.randint(1, 5)}
    else:
        record["item"] = {"bonus": rng.randint(0, 5), "slot": "none", "gold": 100 * rng.randint(0, 9)}
    return record


def typo(rng, text):
    if len(text) < 5:
        return text
    i = rng.randrange(1, len(text) - 1)
    return text[:i] + text[i + 1:] if rng.random() < 0.5 else text[:i] + text[i + 1] + text[i] + text[i + 2:]


def queries(rng, names, count):
    """``(kind, query, card id)``: prefixes as typed, one-typo names, and whole names."""
    out = []
    while len(out) < count:
        card_id, name = rng.choice(names)
        choice = rng.random()
        if choice < 0.5:  # typing: a prefix of 3+ letters
            out.append(("prefix", name[: rng.randint(3, max(3, len(name)))], card_id))
        elif choice < 0.8:
            out.append(("typo", typo(rng, name), card_id))
        else:
            out.append(("whole name", name.lower(), card_id))
    return out


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cards", type=int, default=5000)
    parser.add_argument("--queries", type=int, default=2000)
    args = parser.parse_args()
    rng = random.Random(7)
    path = Path(tempfile.mkdtemp(prefix="bench-cards-")) / "cards.sqlite3"
    db = connect(path)
    migrate(db)
    extra = [synthetic(rng, i) for i in range(max(0, args.cards - store.count(db)))]
    store.import_cards(db, extra, origin="synthetic")
    names = [(r["id"], n) for r in store.export(db) for n in r["names"].values()]

    started = time.perf_counter()
    search.index_for(db, "bench")
    build_ms = (time.perf_counter() - started) * 1000

    timings = []
    found: dict[str, list[tuple[bool, bool]]] = {}
    for kind, query, card_id in queries(rng, names, args.queries):
        started = time.perf_counter()
        hits = search.search(db, query, limit=10, cache_key="bench")
        timings.append((time.perf_counter() - started) * 1000)
        ids = [h.card_id for h in hits]
        found.setdefault(kind, []).append((ids[:1] == [card_id], card_id in ids))
    result = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "cards": store.count(db), "names": len(names), "queries": len(timings),
        "index_build_ms": round(build_ms, 1),
        "query_ms": {"p50": round(pct(timings, 50), 2), "p95": round(pct(timings, 95), 2),
                     "p99": round(pct(timings, 99), 2), "mean": round(statistics.mean(timings), 2)},
        # a short prefix may fit many names, so top-1 is expected to be low there; the card
        # being among the 10 suggestions is what a phone needs
        "found": {kind: {"queries": len(v), "top1": round(sum(a for a, _ in v) / len(v), 3),
                         "top10": round(sum(b for _, b in v) / len(v), 3)} for kind, v in sorted(found.items())},
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
