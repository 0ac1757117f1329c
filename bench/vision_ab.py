#!/usr/bin/env python3
"""Two versions of the scanner on the same photos, taking turns photo by photo.

What: every photo of one or more photo folders (as ``bench/outside_set.py`` writes them:
``cards/``, ``photos/``, ``truth.csv``) recognised by this checkout's code and by another
revision's, in two worker processes that take turns — photo 1 by A then B, photo 2 by B
then A, and so on — never at once. Prints top-1, wrong answers, false accepts and the
p50 / p90 / p95 latency of each, per folder, and the photos answered otherwise.

Why: the shared two-core machine the benchmarks run on changes speed by half within
minutes (the yardstick of ``bench/vision.py`` read 15.8 ms and 30.8 ms on one day), so two
runs one after the other compare the machine as much as the code. Taking turns, both
versions meet the same drift.

Usage:
    python bench/vision_ab.py --before REV DIR [DIR ...] [--every N] [--rows out.json]

REV is checked out into a temporary git worktree (removed afterwards); each version
enrols each folder's cards with its own ``companion vision enroll`` into a temporary data
directory and recognises with the title reader when the ``[ocr]`` extra is installed, as
``companion vision recognize`` does (one photo at a time, JPEG bytes to answer).
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def worker() -> None:
    """Answer ``<data dir> <photo path>`` lines on stdin, one JSON line each, with the code of
    the working directory (a checkout of the version being measured)."""
    sys.path.insert(0, os.getcwd())
    from vision import recognize, title
    from vision.index import Index

    reader, indexes = title.reader(), {}
    for line in sys.stdin:
        data_dir, path = line.rstrip("\n").split("\t")
        if data_dir not in indexes:
            indexes[data_dir] = Index(Path(data_dir) / "vision")
        result = recognize.recognize(Path(path).read_bytes(), indexes[data_dir], reader)
        print(json.dumps({"named": result.card_id, "ms": result.elapsed_ms}), flush=True)


def enrol(tree: Path, cards: Path, data_dir: Path) -> None:
    subprocess.run([sys.executable, "-m", "companion", "vision", "enroll", str(cards), "--data-dir", str(data_dir)],
                   cwd=tree, check=True, capture_output=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--before", required=True, help="the git revision to compare this checkout with")
    ap.add_argument("--every", type=int, default=1, help="only every Nth photo of each folder")
    ap.add_argument("--rows", help="write every photo's two answers to this JSON file")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="vision-ab-") as tmp:
        before = Path(tmp) / "before"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(before), args.before], cwd=ROOT, check=True)
        try:
            rows = compare([("before", before), ("after", ROOT)], args.folders, Path(tmp), args.every)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT, check=True)
    if args.rows:
        Path(args.rows).write_text(json.dumps(rows))
    report(rows, ["before", "after"], [f.name for f in args.folders])


def compare(trees: list[tuple[str, Path]], folders: list[Path], tmp: Path, every: int) -> list[dict]:
    """Each folder enrolled by each tree, then its photos recognised by both in turns."""
    for name, tree in trees:
        for folder in folders:
            enrol(tree, folder / "cards", tmp / name / folder.name)
    workers = [subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--worker"], cwd=tree,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for _, tree in trees]
    rows = []
    try:
        for folder in folders:
            with (folder / "truth.csv").open(newline="") as f:
                truth = list(csv.DictReader(f))[::every]
            for k, r in enumerate(truth):
                path = folder / "photos" / r["photo"]
                answers: dict[int, dict] = {}
                for i in (range(len(trees)) if k % 2 == 0 else reversed(range(len(trees)))):
                    workers[i].stdin.write(f"{tmp / trees[i][0] / folder.name}\t{path}\n")
                    workers[i].stdin.flush()
                    answers[i] = json.loads(workers[i].stdout.readline())
                rows.append({"folder": folder.name, "photo": str(path), "tier": r["tier"],
                             "truth": r["card_id"] or None, "answers": [answers[i] for i in range(len(trees))]})
    finally:
        for w in workers:
            w.stdin.close()
            w.wait()
    return rows


def report(rows: list[dict], names: list[str], folders: list[str]) -> None:
    print("| version | folder | top-1 | wrong | FA | p50 ms | p90 ms | p95 ms |")
    print("|---|---|---|---|---|---|---|---|")
    for i, name in enumerate(names):
        for folder in folders + (["**all**"] if len(folders) > 1 else []):
            rs = [r for r in rows if folder in ("**all**", r["folder"])]
            known = [r for r in rs if r["truth"]]
            named = [r["answers"][i]["named"] for r in known]
            right = sum(n == r["truth"] for n, r in zip(named, known))
            wrong = sum(n is not None and n != r["truth"] for n, r in zip(named, known))
            fa = sum(r["answers"][i]["named"] is not None for r in rs if not r["truth"])
            ms = np.array([r["answers"][i]["ms"] for r in rs])
            print(f"| {name} | {folder} | {right} / {len(known)} ({100 * right / max(len(known), 1):.1f} %) | {wrong} "
                  f"| {fa} / {len(rs) - len(known)} | {np.percentile(ms, 50):.0f} | {np.percentile(ms, 90):.0f} "
                  f"| {np.percentile(ms, 95):.0f} |")
    otherwise = [r for r in rows if len({a["named"] for a in r["answers"]}) > 1]
    print(f"{len(otherwise)} photos answered otherwise:")
    for r in otherwise:
        print(f"  {r['photo']} ({r['tier']}, {r['truth'] or 'not enrolled'}): "
              + ", ".join(f"{n} {a['named']}" for n, a in zip(names, r["answers"])))


if __name__ == "__main__":
    worker() if sys.argv[1:] == ["--worker"] else main()
