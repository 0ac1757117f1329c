"""Benchmark: card recognition accuracy, false accepts and latency on generated phone photos.

Enrols perfect scans of generated cards (``bench/card_photos.py``: one shared frame, line art,
every 25th card a twin that differs only in its title) at 300, 1,000 and 5,000 cards, then
recognises the same set of JPEG photos against each index: per tier (easy, medium, hard),
``--photos`` photos, a share of them (``--unknown``, 25%) of cards that
are not enrolled. Latency is per photo from JPEG bytes to answer, decoding included, one
photo at a time on one core.

Reported per tier and index size:
  named      share of enrolled-card photos answered with the right card (the top-1 figure)
  first      share where the right card is the first candidate, confident or not
  wrong      enrolled-card photos answered with a wrong card
  FA         photos of cards not enrolled that were answered with a card (false accepts)
  p50/p95    milliseconds per photo

``--calibrate`` instead fits the confidence (``vision.recognize.W_*``) on a separate set of
photos (other seeds) and prints the constants.

Run:  python bench/vision.py                       (600 photos × 3 index sizes, ~10 min)
      python bench/vision.py --ocr                 (titles read when the images leave doubt)
      python bench/vision.py --cards 300 --photos 50   (quick look)
"""
from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import card_photos as cp  # noqa: E402
from vision import locate, recognize  # noqa: E402
from vision.index import Index  # noqa: E402

SEED = 1


def scan(card) -> np.ndarray:
    gray = cv2.cvtColor(cp.face(card), cv2.COLOR_BGR2GRAY)
    return cv2.resize(gray, (locate.CARD_W, locate.CARD_H), interpolation=cv2.INTER_AREA)


def _make(job):
    card, tier, seed, size = job
    return cp.photo(cp.face(card), tier, seed=seed, size=size)


def photo_set(enrolled, strangers, tiers, n, unknown, size, base_seed):
    """[(tier, true card id or None, jpeg bytes)] — seeded, so every run sees the same photos."""
    rng = random.Random(base_seed)
    jobs, truth = [], []
    for t, tier in enumerate(tiers):
        for i in range(n):
            stranger = rng.random() < unknown
            card = rng.choice(strangers if stranger else enrolled)
            jobs.append((card, tier, base_seed + 100_000 * t + i, size))
            truth.append((tier, None if stranger else card.id))
    with Pool(os.cpu_count() or 1) as pool:
        photos = pool.map(_make, jobs, chunksize=8)
    return [(tier, cid, data) for (tier, cid), data in zip(truth, photos)]


def title_matcher(cards):
    """Names for the title reader: the generated cards' titles (the card database's role)."""
    from rapidfuzz import fuzz, process

    from card_db.normalize import fold

    keys = [fold(c.title) for c in cards]

    def match(text):
        hits = process.extract(fold(text), keys, scorer=fuzz.ratio, limit=3)
        return [(cards[i].id, score / 100) for _, score, i in hits]
    return match


def run(index, photos, read_title=None, match_name=None):
    rows = []
    for tier, truth, data in photos:
        t0 = time.perf_counter()
        r = recognize.recognize(data, index, read_title, match_name)
        ms = (time.perf_counter() - t0) * 1000
        top = r.candidates[0] if r.candidates else None
        second = r.candidates[1].score if len(r.candidates) > 1 else 0.0
        rows.append({"tier": tier, "truth": truth, "named": r.card_id, "first": top.card_id if top else None,
                     "score": top.score if top else 0.0, "lead": (top.score - second) if top else 0.0,
                     "reason": r.reason, "ms": ms})
    return rows


def report(rows, label):
    print(f"\n{label}")
    print("| tier | photos (enrolled + not) | named | first | wrong | FA | p50 ms | p95 ms |")
    print("|---|---|---|---|---|---|---|---|")
    groups = sorted({r["tier"] for r in rows}, key=list(cp.TIERS).index) + ["all"]
    for tier in groups:
        sel = [r for r in rows if tier == "all" or r["tier"] == tier]
        known = [r for r in sel if r["truth"]]
        strangers = [r for r in sel if not r["truth"]]
        named = sum(r["named"] == r["truth"] for r in known)
        first = sum(r["first"] == r["truth"] for r in known)
        wrong = sum(r["named"] not in (None, r["truth"]) for r in known)
        fa = sum(r["named"] is not None for r in strangers)
        ms = [r["ms"] for r in sel]
        print(f"| {tier} | {len(known)} + {len(strangers)} | {100 * named / len(known):.1f}% "
              f"| {100 * first / len(known):.1f}% | {wrong} | {fa} / {len(strangers)} "
              f"({100 * fa / max(1, len(strangers)):.1f}%) | {np.percentile(ms, 50):.0f} | {np.percentile(ms, 95):.0f} |")


def calibrate(rows):
    """Logistic regression of "the first candidate is right" on (score, lead)."""
    X = np.array([[r["score"], r["lead"], 1.0] for r in rows])
    y = np.array([float(r["truth"] is not None and r["first"] == r["truth"]) for r in rows])
    w = np.zeros(3)
    for _ in range(50_000):  # plain gradient descent; a small L2 term keeps separable data finite
        p = 1 / (1 + np.exp(-X @ w))
        w -= 1.0 * (X.T @ (p - y) / len(y) + 2e-5 * np.r_[w[:2], 0])
    p = 1 / (1 + np.exp(-X @ w))
    print(f"W_SCORE, W_LEAD, BIAS = {w[0]:.2f}, {w[1]:.2f}, {w[2]:.2f}")
    for th in (0.3, 0.5, 0.7, 0.9):
        acc = int(((p >= th) & (y == 1)).sum())
        bad = int(((p >= th) & (y == 0)).sum())
        print(f"  accept at {th}: right {acc} / {int(y.sum())}, wrong or not enrolled {bad} / {int((y == 0).sum())}")
    for r, pi, yi in zip(rows, p, y):
        if (pi < 0.5) == (yi == 1):
            print(f"  misfit: {r['tier']} truth={r['truth']} first={r['first']} score={r['score']:.3f} "
                  f"lead={r['lead']:.3f} p={pi:.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cards", default="300,1000,5000", help="index sizes, comma-separated")
    ap.add_argument("--photos", type=int, default=200, help="photos per tier")
    ap.add_argument("--unknown", type=float, default=0.25, help="share of photos of cards not enrolled")
    ap.add_argument("--size", default="1600x1200")
    ap.add_argument("--calibrate", action="store_true")
    ap.add_argument("--ocr", action="store_true", help="also read titles (needs the [ocr] extra)")
    args = ap.parse_args()
    sizes = [int(s) for s in args.cards.split(",")]
    size = tuple(int(v) for v in args.size.split("x"))
    tiers = list(cp.TIERS)
    full = cp.deck(max(sizes), seed=SEED)
    enrolled = full[:min(sizes)]           # photographed cards are enrolled at every index size
    # Cards that are not enrolled: other art, text and title. The generator's small syllable
    # vocabulary repeats some short titles; a stranger *named* like an enrolled card would be
    # that card as far as its title goes, so such exact namesakes are left out.
    titles = {c.title.casefold() for c in full}
    strangers = [c for c in cp.deck(600, seed=99, prefix="stranger") if c.title.casefold() not in titles][:500]
    print(f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"OpenCV {cv2.__version__}, photos {size[0]}×{size[1]} JPEG")
    t0 = time.perf_counter()
    photos = photo_set(enrolled, strangers, tiers, args.photos, 0.5 if args.calibrate else args.unknown, size,
                       base_seed=500_000 if args.calibrate else 0)
    print(f"generated {len(photos)} photos in {time.perf_counter() - t0:.0f} s")
    with tempfile.TemporaryDirectory() as tmp:
        indexes = {}
        for n in sizes:  # one index per size, each built as a user would (one enrolment run)
            root = Path(tmp) / str(n)
            t0 = time.perf_counter()
            Index(root).add({c.id: scan(c) for c in full[:n]})
            enrol_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            indexes[n] = Index(root).refresh()
            load_ms = (time.perf_counter() - t0) * 1000
            size_mb = (root / "index.npz").stat().st_size / 2 ** 20
            indexes[n].info = f"enrolment {enrol_s:.1f} s, index {size_mb:.0f} MB, loads in {load_ms:.0f} ms"
        reader = None
        if args.ocr:
            from vision import title
            reader = title.reader()
            if reader is None:
                raise SystemExit("--ocr needs the [ocr] extra: pip install '.[ocr]'")
        matchers = {n: title_matcher(full[:n]) if reader else None for n in sizes}
        # Photo by photo, every index in turn: the sizes see the same machine state, so their
        # latencies compare (one size after the other would mix in drift of the machine).
        rows = {n: [] for n in sizes}
        for k, photo in enumerate(photos):
            for n in sizes[k % len(sizes):] + sizes[:k % len(sizes)]:
                rows[n] += run(indexes[n], [photo], reader, matchers[n])
        if args.calibrate:
            calibrate(rows[sizes[0]])
            return
        for n in sizes:
            report(rows[n], f"{n} cards enrolled{', titles read when in doubt' if args.ocr else ''} "
                            f"({indexes[n].info})")

if __name__ == "__main__":
    main()
