"""The enrolled reference cards: descriptions in one file that loads fast, images beside it.

Layout in the data directory::

    vision/index.npz          ids and the stacked descriptions (see ``describe.describe``):
                              ORB keypoints and descriptors, ~14 KB a card

    vision/index.lock         taken by whoever changes the index (empty)
    vision/refs/<card id>.png  the rectified reference image each description came from

Several processes share the directory: the server's workers (an enrolment from a card
page) and ``companion vision enroll`` while the server runs. Every change is a
read-modify-write of ``index.npz``, so it happens under an exclusive ``fcntl.flock`` on
``index.lock``: the writer reloads the file as it is *now*, adds its rows, and replaces the
file (a temporary file renamed over it, so a reader never sees half an index). Two
enrolments at the same moment therefore both land, one after the other. Readers take no
lock: each recognition compares the file's identity (inode, size, modification time) with
the one it loaded, one ``stat``, and reloads when another process has written. Loading
builds the visual-word tables (``Snapshot``): ~1 s for 300 cards, ~5 s for 1,000, 45 s for
5,000 (on a busy machine; storing the tables would make it a file read).

A lock file rather than the rows in the SQLite database: the reference images are files in
this directory anyway, the index is read whole as arrays, and
``vision/`` stays free of the database (see DESIGN.md). The kernel drops the lock when its
holder dies, so a killed enrolment leaves no stale lock behind. Several *machines* need this
directory on storage whose locks they share. When the description format changes
(``FORMAT``), ``Index.rebuild`` re-describes the stored images.
"""
from __future__ import annotations

import io
import os
import re
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np

from . import describe, features, locate

try:
    import fcntl
except ImportError:  # Windows: one process at a time changes the index (the lock is within it only)
    fcntl = None

FORMAT = 2


class OutdatedIndex(RuntimeError):
    """The index file was written by another version of the describing code: its stored
    reference images must be described again (``Index.rebuild``). ``reason`` as the upload
    refusals have (web: 503, the operator runs ``companion vision rebuild``)."""

    reason = "index_outdated"

    def __init__(self):
        super().__init__("The card image index is from another version of the app; "
                         "run `companion vision rebuild`.")
FIELDS = ("points", "descriptors", "count", "coarse", "thumb")
CARD_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,79}$")
COMMON_SHARE = 0.05              # a feature whose words this share of the cards also have is the cards' common print
COMMON_CARDS = 6                 # ... and at least this many (twins, one card in several languages, are not print)
COMMON_MIN_CARDS = 12            # with fewer cards enrolled nothing is taken for common print
CELLS = (6, 8)                   # "the same place" on a card: the same cell of this grid
STOP_SHARE, STOP_CARDS = 0.02, 12  # words in more cards than this share (or number) are not looked up


class Snapshot:
    """One consistent state of the index: what recognition reads (never changed in place).

    ``Index`` swaps in a new snapshot in one assignment when the file changes, so a
    recognition running in another thread keeps the ids and the arrays that belong together.

    Built here from the stored features: the *visual-word tables* (per table, every enrolled
    feature's word sorted, the feature's number and the word's weight ``idf``, the log of how
    rare the word is among the cards; words that many cards have are left out, as a search
    engine leaves out "the": they tell no card apart and would cost the most); the same
    tables of *placed words* (a word and the cell of the card it lies in, ``CELLS``), for
    features of a straightened outline, whose place on the card is known — a letter of the
    rules text is in every card, but not at the same place; and ``common``: the features whose words many cards
    have *at the same place* — the printed frame, a border pattern, corner medallions. (Art
    made of motifs that many cards share is not common: the motifs lie elsewhere on each
    card, and where they lie is what tells those cards apart.) Those are learned from
    the enrolled set, not assumed: with a single game's cards it is that game's frame, with
    cards of several designs each design's, and with few cards nothing. Likewise ``mean``
    and ``thumb_mean``, the mean pictures, are subtracted before pictures are compared.
    """

    def __init__(self, ids: list[str], arrays: dict, root: Path | None = None):
        self.ids = ids
        self.arrays = arrays
        self.root = root
        self.position = {card_id: i for i, card_id in enumerate(ids)}
        self.tables: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.placed: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # the same for (word, cell)
        self.bits = features.word_bits(len(ids))
        if not ids:
            return
        n, k = arrays["descriptors"].shape[:2]
        self.per_card = k
        self.points = arrays["points"].astype(np.float32).reshape(-1, 2)
        self.descriptors = np.ascontiguousarray(arrays["descriptors"].reshape(-1, 32))
        gids = np.nonzero((np.arange(k)[None, :] < arrays["count"][:, None]).ravel())[0].astype(np.int64)
        words = features.words(self.descriptors[gids], self.bits)
        owners = gids // k
        where = cells(self.points[gids])
        share = np.zeros((features.TABLES, len(gids)), np.float32)
        for t in range(features.TABLES):
            order = np.argsort(words[t], kind="stable")
            w, g = words[t][order], gids[order]
            df = _cards_with(w, owners[order], n)
            rare = df <= max(STOP_CARDS, STOP_SHARE * n)   # a word most cards have tells none apart: left out
            self.tables.append((w[rare], g[rare], np.log((n + 1) / df[rare]).astype(np.float32)))
            # the same word at the same place of the card: the print every card shares
            placed = words[t] * CELLS[0] * CELLS[1] + where
            placed_df = _cards_with(placed, owners, n)
            share[t] = placed_df / n
            order = np.argsort(placed, kind="stable")
            self.placed.append((placed[order], gids[order], np.log((n + 1) / placed_df[order]).astype(np.float32)))
        self.common = np.zeros(n * k, bool)
        if n >= COMMON_MIN_CARDS:
            self.common[gids] = np.median(share, axis=0) * n >= max(COMMON_SHARE * n, COMMON_CARDS)
        # the thumbnails less their mean (what every card shows), each of unit length
        thumbs = arrays["coarse"].astype(np.float32)
        self.mean = thumbs.mean(axis=0) if n >= COMMON_MIN_CARDS else np.zeros(thumbs.shape[1], np.float32)
        self.thumb_mean = (describe.unthumb(arrays["thumb"]).mean(axis=0) if n >= COMMON_MIN_CARDS
                           else np.zeros(arrays["thumb"].shape[1:], np.float32))
        centred = thumbs - self.mean
        centred -= centred.mean(axis=1, keepdims=True)
        self.coarse = centred / np.maximum(np.linalg.norm(centred, axis=1, keepdims=True), 1e-9)

    def __len__(self) -> int:
        return len(self.ids)

    def reference(self, card_id: str) -> np.ndarray | None:
        """The stored reference image of ``card_id`` (grey), or None if it is gone."""
        if self.root is None:
            return None
        gray = cv2.imread(str(self.root / "refs" / f"{card_id}.png"), cv2.IMREAD_GRAYSCALE)
        return None if gray is None else describe.canonical(gray)


def cells(points: np.ndarray) -> np.ndarray:
    """The cell of the card (a CELLS grid) each point lies in."""
    cx = np.clip((points[:, 0] * CELLS[0] / locate.CARD_W).astype(np.int64), 0, CELLS[0] - 1)
    cy = np.clip((points[:, 1] * CELLS[1] / locate.CARD_H).astype(np.int64), 0, CELLS[1] - 1)
    return cy * CELLS[0] + cx


def _cards_with(keys: np.ndarray, owners: np.ndarray, n: int) -> np.ndarray:
    """For each key, in how many cards it occurs (a card counted once however often it has it)."""
    per_card = np.unique(keys * n + owners)
    distinct, cards = np.unique(per_card // n, return_counts=True)
    return cards[np.searchsorted(distinct, keys)]


class Index:
    """Enrolled descriptions, backed by ``root``; reloads when another process writes.

    ``current`` is the latest ``Snapshot``; recognition reads that, once per photo.
    """

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self.path = self.root / "index.npz"
        self.lock_path = self.root / "index.lock"
        self._lock = threading.Lock()  # one loader or writer at a time in this process
        self._stamp: tuple | None = None
        self._set([], {f: None for f in FIELDS})

    # -- reading ---------------------------------------------------------------------------
    def _set(self, ids: list[str], arrays: dict) -> None:
        self.current = Snapshot(ids, arrays, self.root)

    @property
    def ids(self) -> list[str]:
        return self.current.ids

    @property
    def arrays(self) -> dict:
        return self.current.arrays

    def refresh(self) -> "Index":
        """Load the file if it changed since the last look (one ``stat`` when it did not)."""
        try:
            stamp = _identity(self.path.stat())
        except FileNotFoundError:
            stamp = None
        if stamp != self._stamp:
            with self._lock:
                self._load()
        return self

    def _load(self, force: bool = False) -> None:
        """Read the file as it is now, unless it is the one already loaded (hold ``_lock``)."""
        try:
            fh = open(self.path, "rb")
        except FileNotFoundError:
            self._set([], {f: None for f in FIELDS})
            self._stamp = None
            return
        with fh:
            stamp = _identity(os.fstat(fh.fileno()))
            if stamp == self._stamp and not force:
                return
            with np.load(fh, allow_pickle=False) as data:
                if "format" not in data.files or int(data["format"]) != FORMAT:
                    raise OutdatedIndex()
                self._set([str(i) for i in data["ids"]], {f: data[f] for f in FIELDS})
            self._stamp = stamp

    def __len__(self) -> int:
        return len(self.ids)

    def reference_path(self, card_id: str) -> Path:
        return self.root / "refs" / f"{card_id}.png"

    def enrolled(self, card_id: str) -> bool:
        """Whether ``card_id`` has a reference image: one ``stat``, the index is not loaded."""
        return self.reference_path(card_id).exists()

    # -- writing ---------------------------------------------------------------------------
    @contextmanager
    def _changing(self, reload: bool = True) -> Iterator[Snapshot]:
        """Hold the index for a change, in this process and across processes. Yields the
        index as the file is now (another process may just have written), or, without
        ``reload``, an empty one to start again from."""
        self.root.mkdir(parents=True, exist_ok=True)
        # the thread lock first: under gevent a second greenlet waits for it, not in flock
        with self._lock, open(self.lock_path, "ab") as held:
            if fcntl is not None:
                fcntl.flock(held, fcntl.LOCK_EX)  # released when the file is closed, or its process dies
            if reload:
                self._load(force=True)
                yield self.current
            else:
                yield Snapshot([], {f: None for f in FIELDS})

    def add(self, entries: dict[str, np.ndarray]) -> None:
        """Store grey reference card images (``uint8``, any size; stored at CARD_H × CARD_W)
        by card id, in one write."""
        for card_id in entries:
            if not CARD_ID.match(card_id):
                raise ValueError(f"{card_id!r} is not a card id (lower-case letters, digits, '-', '_', '.').")
        entries = {card_id: describe.canonical(gray) for card_id, gray in entries.items()}
        described = {card_id: describe.describe(gray) for card_id, gray in entries.items()}  # before the lock
        with self._changing() as snap:
            refs = self.root / "refs"
            refs.mkdir(exist_ok=True)
            for card_id, gray in entries.items():
                _replace(refs / f"{card_id}.png", cv2.imencode(".png", gray)[1].tobytes())
            self._store(snap, described)

    def remove(self, card_id: str) -> bool:
        with self._changing() as snap:
            if card_id not in snap.position:
                return False
            keep = [i for i, c in enumerate(snap.ids) if c != card_id]
            ids = [snap.ids[i] for i in keep]
            self._write(ids, {f: snap.arrays[f][keep] for f in FIELDS})
            self.reference_path(card_id).unlink(missing_ok=True)
        return True

    def rebuild(self) -> int:
        """Describe every stored reference image again (after a change of ``FORMAT``)."""
        with self._changing(reload=False) as empty:
            refs = sorted((self.root / "refs").glob("*.png"))
            self._store(empty, {p.stem: describe.describe(describe.canonical(cv2.imread(str(p), cv2.IMREAD_GRAYSCALE)))
                                for p in refs})
        return len(refs)

    def _store(self, snap: Snapshot, described: dict[str, dict]) -> None:
        """Write ``snap`` with the rows of ``described`` replaced or added (hold ``_changing``)."""
        ids = list(snap.ids)
        rows = {f: (list(snap.arrays[f]) if snap.ids else []) for f in FIELDS}
        position = dict(snap.position)
        for card_id, desc in described.items():
            if card_id not in position:
                position[card_id] = len(ids)
                ids.append(card_id)
                for f in FIELDS:
                    rows[f].append(desc[f])
            else:
                for f in FIELDS:
                    rows[f][position[card_id]] = desc[f]
        self._write(ids, {f: np.stack(rows[f]) if ids else None for f in FIELDS})

    def _write(self, ids: list[str], arrays: dict) -> None:
        """Replace the file (or remove it, when no card is left) and make it ``current``."""
        if ids:
            buf = io.BytesIO()
            np.savez(buf, format=np.int64(FORMAT), ids=np.array(ids), **arrays)
            self._stamp = _replace(self.path, buf.getvalue())
        else:
            self.path.unlink(missing_ok=True)
            self._stamp = None
        self._set(ids, arrays)


def _identity(st: os.stat_result) -> tuple:
    """What tells one version of the index file from the next (each write is a new file)."""
    return st.st_ino, st.st_size, st.st_mtime_ns


def _replace(path: Path, data: bytes) -> tuple:
    """Write ``data`` to ``path`` atomically (a temporary file renamed over it); its identity."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            stamp = _identity(os.fstat(fh.fileno()))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return stamp
