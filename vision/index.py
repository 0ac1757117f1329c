"""The enrolled reference cards: descriptions in one file that loads fast, images beside it.

Layout in the data directory::

    vision/index.npz          ids and the stacked descriptions (see ``describe.describe``)
    vision/refs/<card id>.png  the rectified reference image each description came from

Enrolling computes the new card's description only; the file is rewritten with the new row
(written to a temporary file and renamed, so a reader never sees half an index). When the
description format changes (``FORMAT``), ``Index.rebuild`` re-describes the stored images.
"""
from __future__ import annotations

import os
import re
import tempfile
import threading
from pathlib import Path

import cv2
import numpy as np

from . import describe

FORMAT = 1
FIELDS = ("coarse", "fine", "title", "template")
CARD_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,79}$")


class Snapshot:
    """One consistent state of the index: what recognition reads (never changed in place).

    ``Index`` swaps in a new snapshot in one assignment when the file changes, so a
    recognition running in another thread keeps the ids and the arrays that belong together.
    """

    def __init__(self, ids: list[str], arrays: dict):
        self.ids = ids
        self.arrays = arrays
        self.position = {card_id: i for i, card_id in enumerate(ids)}
        self.mean = self.coarse = self.frame = self.frame_weight = self.frame_fine = self.frame_title = None
        if ids:
            coarse = arrays["coarse"].astype(np.float32)
            self.mean = coarse.mean(axis=0)
            centred = coarse - self.mean
            centred -= centred.mean(axis=1, keepdims=True)
            self.coarse = centred / np.maximum(np.linalg.norm(centred, axis=1, keepdims=True), 1e-9)
            templates = arrays["template"].astype(np.float32)
            self.frame = templates.mean(axis=0)
            spread = templates.std(axis=0)
            # how much of each pixel is the shared frame rather than the card's own art
            self.frame_weight = np.sqrt(self.frame ** 2 / (self.frame ** 2 + spread ** 2 + 1e-6))
            self.frame_fine = arrays["fine"].astype(np.float32).mean(axis=0)
            self.frame_title = arrays["title"].astype(np.float32).mean(axis=0)

    def __len__(self) -> int:
        return len(self.ids)


class Index:
    """Enrolled descriptions, backed by ``root``; reloads when another process writes.

    ``current`` is the latest ``Snapshot``; recognition reads that, once per photo.
    """

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self.path = self.root / "index.npz"
        self._lock = threading.Lock()
        self._stamp: int | None = None
        self._set([], {f: None for f in FIELDS})

    # -- reading ---------------------------------------------------------------------------
    def _set(self, ids: list[str], arrays: dict) -> None:
        self.current = Snapshot(ids, arrays)

    @property
    def ids(self) -> list[str]:
        return self.current.ids

    @property
    def arrays(self) -> dict:
        return self.current.arrays

    def refresh(self) -> "Index":
        """Load the file if it changed since the last look (one ``stat`` when it did not)."""
        try:
            stamp = self.path.stat().st_mtime_ns
        except FileNotFoundError:
            stamp = None
        if stamp == self._stamp:
            return self
        with self._lock:
            if stamp is None:
                self._set([], {f: None for f in FIELDS})
            else:
                with np.load(self.path, allow_pickle=False) as data:
                    if int(data["format"]) != FORMAT:
                        raise RuntimeError("The card image index is from another version; "
                                           "run `companion vision rebuild`.")
                    self._set([str(i) for i in data["ids"]], {f: data[f] for f in FIELDS})
            self._stamp = stamp
        return self

    def __len__(self) -> int:
        return len(self.ids)

    def reference_path(self, card_id: str) -> Path:
        return self.root / "refs" / f"{card_id}.png"

    def enrolled(self, card_id: str) -> bool:
        """Whether ``card_id`` has a reference image: one ``stat``, the index is not loaded."""
        return self.reference_path(card_id).exists()

    # -- writing ---------------------------------------------------------------------------
    def add(self, entries: dict[str, np.ndarray]) -> None:
        """Store rectified grey reference cards (CARD_H × CARD_W ``uint8``) by card id, in one write."""
        for card_id in entries:
            if not CARD_ID.match(card_id):
                raise ValueError(f"{card_id!r} is not a card id (lower-case letters, digits, '-', '_', '.').")
        self.refresh()
        refs = self.root / "refs"
        refs.mkdir(parents=True, exist_ok=True)
        with self._lock:
            snap = self.current
            ids = list(snap.ids)
            rows = {f: (list(snap.arrays[f]) if snap.ids else []) for f in FIELDS}
            position = dict(snap.position)
            for card_id, gray in entries.items():
                cv2.imwrite(str(refs / f"{card_id}.png"), gray)
                desc = describe.describe(gray)
                if card_id in position:
                    for f in FIELDS:
                        rows[f][position[card_id]] = desc[f]
                else:
                    position[card_id] = len(ids)
                    ids.append(card_id)
                    for f in FIELDS:
                        rows[f].append(desc[f])
            arrays = {f: np.stack(rows[f]) for f in FIELDS}
            self._write(ids, arrays)
            self._set(ids, arrays)

    def remove(self, card_id: str) -> bool:
        self.refresh()
        with self._lock:
            snap = self.current
            if card_id not in snap.position:
                return False
            keep = [i for i, c in enumerate(snap.ids) if c != card_id]
            ids = [snap.ids[i] for i in keep]
            arrays = {f: snap.arrays[f][keep] for f in FIELDS}
            if ids:
                self._write(ids, arrays)
            else:
                self.path.unlink(missing_ok=True)
            self.reference_path(card_id).unlink(missing_ok=True)
            self._set(ids, arrays)
        return True

    def rebuild(self) -> int:
        """Describe every stored reference image again (after a change of ``FORMAT``)."""
        refs = sorted((self.root / "refs").glob("*.png")) if (self.root / "refs").exists() else []
        self.path.unlink(missing_ok=True)
        self._stamp = None
        self._set([], {f: None for f in FIELDS})
        entries = {p.stem: cv2.imread(str(p), cv2.IMREAD_GRAYSCALE) for p in refs}
        if entries:
            self.add(entries)
        return len(entries)

    def _write(self, ids: list[str], arrays: dict) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".index-", suffix=".npz")
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez(fh, format=np.int64(FORMAT), ids=np.array(ids), **arrays)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self._stamp = self.path.stat().st_mtime_ns
