"""Benchmark: the rule search (#6) — how often the right entry comes first, and how fast.

Runs the relevance set (tests/rule_questions.toml: plain questions in six languages with
the entry that must answer them) as asked, and again with one typo in the longest word of
each question (a thumb on a phone keyboard), then times every question over several rounds
on the process's in-memory FTS5 index. Reports the share answered first / within three,
the index build time and per-question latency (p50/p95/p99).

Run:  python bench/rule_search.py [--rounds 20]
"""
from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time
import tomllib
from pathlib import Path

from companion import rulesearch

QUESTIONS = Path(__file__).resolve().parent.parent / "tests" / "rule_questions.toml"


def typo(question: str, rng: random.Random) -> str:
    """The question with two neighbouring letters swapped in its longest word."""
    words = question.split()
    i = max(range(len(words)), key=lambda k: len(words[k]))
    w = words[i]
    if len(w) >= 4:
        j = rng.randrange(1, len(w) - 2)
        words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2:]
    return " ".join(words)


def score(index, cases) -> tuple[int, int]:
    first = top3 = 0
    for ask, lang, expected in cases:
        hits = [h.rule_id for h in index.search(ask, lang, 3)]
        first += hits[:1] == [expected]
        top3 += expected in hits
    return first, top3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    rng = random.Random(6)
    raw = tomllib.loads(QUESTIONS.read_text())["q"]
    cases = [(q["ask"], q["lang"], q.get("first") or q["top3"]) for q in raw]
    typos = [(typo(ask, rng), lang, expected) for ask, lang, expected in cases]

    started = time.perf_counter()
    index = rulesearch.RuleIndex()
    build_ms = (time.perf_counter() - started) * 1000

    times = []
    for _ in range(args.rounds):
        for ask, lang, _expected in cases + typos:
            t0 = time.perf_counter()
            index.search(ask, lang, 5)
            times.append((time.perf_counter() - t0) * 1000)
    times.sort()

    def pct(p):
        return times[min(len(times) - 1, int(p / 100 * len(times)))]

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"entries: {len(rulesearch.TEXTS['en'])} x {len(rulesearch.TEXTS)} languages; index built in {build_ms:.0f} ms")
    for label, subset in (("as asked", cases), ("one typo", typos)):
        first, top3 = score(index, subset)
        print(f"{label:9}: {len(subset)} questions, right entry first {first}/{len(subset)} "
              f"({100 * first / len(subset):.0f}%), within three {top3}/{len(subset)} ({100 * top3 / len(subset):.0f}%)")
    print(f"latency over {len(times)} searches: p50 {pct(50):.2f} ms, p95 {pct(95):.2f} ms, p99 {pct(99):.2f} ms, "
          f"mean {statistics.mean(times):.2f} ms")


if __name__ == "__main__":
    main()
