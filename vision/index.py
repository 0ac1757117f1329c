"""The enrolled reference cards: descriptions in one file that loads fast, images beside it.

Layout in the data directory::

    vision/index.npz          ids and the stacked descriptions (see ``describe.describe``):
                              ORB keypoints and descriptors, ~14 KB a card; and the tables
                              derived from them (``derive``: visual words, the prints cards
                              share and what is common in each, mean pictures), ~50 KB a card more
    vision/index.lock         taken by whoever changes the index (empty)
    vision/refs/<card id>.png  the rectified reference image each description came from (the id
                              percent-encoded where it holds more than ASCII letters, digits,
                              '-', '_', '.' and '~': ``reference_name``)
    vision/texts.json         what the title reader read on the references (``texts``; a cache)

Several processes share the directory: the server's workers (an enrolment from a card
page) and ``companion vision enroll`` while the server runs. Every change is a
read-modify-write of ``index.npz``, so it happens under an exclusive ``fcntl.flock`` on
``index.lock``: the writer reads the descriptions in the file as it is *now*, adds its rows,
derives the tables of the whole new set, and replaces the file (a temporary file renamed
over it, so a reader never sees half an index). Two enrolments at the same moment therefore
both land, one after the other. Readers take no lock: each recognition compares the file's
identity (inode, size, modification time) with the one it loaded, one ``stat``, and reloads
when another process has written. Loading is a file read (uncompressed ``np.savez``: the
tables are two thirds of the file, and decompressing would cost more than reading) and the
unpacking of the word tables into the arrays recognition searches: ~0.3 s for 1,000 cards,
~2 s for 5,000 on a 2-core machine shared with other work (docs/benchmarks.md). Deriving
the tables makes a write ~2 s longer at 1,000 cards and ~8 s at 5,000.

A lock file rather than the rows in the SQLite database: the reference images are files in
this directory anyway, the index is read whole as arrays, and
``vision/`` stays free of the database (see DESIGN.md). The kernel drops the lock when its
holder dies, so a killed enrolment leaves no stale lock behind. Several *machines* need this
directory on storage whose locks they share. When the file's format changes (``FORMAT``;
3 since it holds the derived tables, 4 since common print and mean pictures are per print, 5
since the looks where twins differ are kept sharper, ``differ.SHARP``),
``Index.rebuild`` re-describes the stored images.
"""
from __future__ import annotations

import os
import tempfile
import threading
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

import cv2
import numpy as np

from . import deck, describe, differ, features, locate, texts

try:
    import fcntl
except ImportError:  # Windows: one process at a time changes the index (the lock is within it only)
    fcntl = None

FORMAT = 5


class OutdatedIndex(RuntimeError):
    """The index file was written by another version of the describing code: its stored
    reference images must be described again (``Index.rebuild``). ``reason`` as the upload
    refusals have (web: 503, the operator runs ``companion vision rebuild``)."""

    reason = "index_outdated"

    def __init__(self):
        super().__init__("The card image index is from another version of the app; "
                         "run `companion vision rebuild`.")
FIELDS = ("points", "descriptors", "count", "coarse", "thumb")
CARD_ID_LENGTH = 80              # characters in a card id at most
NAME_BYTES = 250                 # bytes in its reference image's file name at most (file systems allow 255)
COMMON_SHARE = 0.05              # a feature whose words this share of the cards of its print have is common print
COMMON_CARDS = 6                 # ... and at least this many (twins, one card in several languages, are not print)
COMMON_MIN_CARDS = 12            # with fewer cards enrolled nothing is taken for common print
FRAME_FEATURES = 24              # a print's frame locates its cards when one card has this many common features
CELLS = (6, 8)                   # "the same place" on a card: the same cell of this grid
PRINT_TABLES = 3                 # placed-word tables that tell which cards share a print (``prints``) ...
PRINT_LINK = 8                   # ... by sharing this many placed words a table (chance: under 6) ...
ANCHORS = 512                    # ... with some of these cards (evenly spread over the index)
STOP_SHARE, STOP_CARDS = 0.02, 12  # words in more cards than this share (or number) are not looked up


class Snapshot:
    """One consistent state of the index: what recognition reads (never changed in place).

    ``Index`` swaps in a new snapshot in one assignment when the file changes, so a
    recognition running in another thread keeps the ids and the arrays that belong together.

    Besides the stored descriptions (``arrays``) it holds what ``derive`` computed from them
    when the file was written: the *visual-word tables* (per table, every enrolled
    feature's word sorted, the feature's number and the word's weight ``idf``, the log of how
    rare the word is among the cards; words that many cards have are left out, as a search
    engine leaves out "the": they tell no card apart and would cost the most); the same
    tables of *placed words* (a word and the cell of the card it lies in, ``CELLS``), for
    features of a straightened outline, whose place on the card is known — a letter of the
    rules text is in every card, but not at the same place; ``group``: the *print* each card
    shares with others (``prints``: cards of one game or edition, whose frame puts the same
    words at the same places); and ``common``: the features whose words many cards of their
    own print have *at the same place* — the printed frame, a border pattern, corner
    medallions. (Art made of motifs that many cards share is not common: the motifs lie
    elsewhere on each card, and where they lie is what tells those cards apart.) Those are
    learned from the enrolled set, not assumed: with a single game's cards it is that game's
    frame, with cards of several designs each design's — counted among that design's cards,
    not all, so that a game with a few hundred cards among thousands keeps its frame — and
    with few cards nothing; ``frames``, per print, its common print on the card that has
    most of it, which says where a card of the print lies (``match.frames``). Likewise
    ``means`` and ``thumb_means``, each print's mean
    pictures, are subtracted before a card's picture is compared, and ``thumb_spreads``
    says where a print's cards differ from one another (``match.art``; worked out on
    loading a file written before it was kept). And where each print's
    twins differ, with other cards' look there (``differ.learn``, from the stored
    references when the file is written; absent from files written before it was, which
    load as they are and check nothing there).
    The tables are stored compactly (``derive``); here they are only unpacked.
    """

    def __init__(self, ids: list[str], arrays: dict, derived: dict | None = None, root: Path | None = None):
        self.ids = ids
        self.arrays = arrays
        self.root = root
        self.texts = texts.Readings(root)  # what title readers read on the references (``recognize._text_on``)
        self.position = {card_id: i for i, card_id in enumerate(ids)}
        self.tables: list[tuple[np.ndarray, ...]] = []   # per word table, see ``_unpack``
        self.placed: list[tuple[np.ndarray, ...]] = []   # the same for (word, cell)
        self.bits = features.word_bits(len(ids))
        self.frames: list[np.ndarray] = []              # per print, its frame's features (``_frames``)
        self.thumb_spreads: np.ndarray | None = None     # per print, where its cards differ (``_means``)
        if not ids:
            return
        n, k = arrays["descriptors"].shape[:2]
        self.per_card = k
        self.points = arrays["points"].astype(np.float32).reshape(-1, 2)
        self.descriptors = np.ascontiguousarray(arrays["descriptors"].reshape(-1, 32))
        self.tables = _unpack(derived, "words", n)
        self.placed = _unpack(derived, "placed", n)
        self.common = derived["common"]
        self.group = derived["group"].astype(np.int64)
        self.means, self.thumb_means = derived["means"], derived["thumb_means"]
        self.thumb_spreads = derived.get("thumb_spreads")  # where each print's cards differ (``match.art``) ...
        if self.thumb_spreads is None:  # ... worked out here for a file written before it was kept
            self.thumb_spreads = _means(describe.unthumb(arrays["thumb"]), self.group, len(self.means), n, spread=True)
        self.coarse = centred(arrays["coarse"], self.means, self.group)
        # where each print's twins differ, and how other cards look there (``differ.learn``;
        # not in a file written before it was: then nothing is checked there)
        self.differ_box = derived.get("differ_box", np.zeros((len(self.means), 4), np.int32))
        self.differ_rows, self.differ_looks = derived.get("differ_rows"), derived.get("differ_looks")
        self.differ_rings = derived.get("differ_ring")  # (not in a file written before it was: no ring)
        self.frames = _frames(self.common, self.group, arrays["count"], k)

    def __len__(self) -> int:
        return len(self.ids)

    def reference(self, card_id: str) -> np.ndarray | None:
        """The stored reference image of ``card_id`` (grey), or None if it is gone."""
        return None if self.root is None else _picture(self.root, card_id)

    def reference_stamp(self, card_id: str) -> tuple[int, int] | None:
        """The stored reference image's size and modification time (ns) — another picture
        taught, another value —, or None if it is gone (``texts``)."""
        if self.root is None:
            return None
        try:
            st = reference_file(self.root, card_id).stat()
        except FileNotFoundError:
            return None
        return st.st_size, st.st_mtime_ns

    def differ_others(self, row: int) -> tuple[differ.Box | None, list[np.ndarray]]:
        """Where the twins of card ``row``'s print differ, and how other cards of that print
        (not ``row``) look there (``differ.learn``); (None, []) when its print has no twins."""
        g = self.group[row]
        x, y, w, h = (int(v) for v in self.differ_box[g])  # all 0 in a file written before it was learned
        if not w:
            return None, []
        return (x, y, w, h), [self.differ_looks[g, k, :h, :w].astype(np.float32)
                              for k, other in enumerate(self.differ_rows[g]) if other >= 0 and other != row]

    def differ_ring(self, row: int) -> np.ndarray | None:
        """Where around the place its twins differ card ``row``'s print looks alike
        (``differ.ring``, in ``differ.wide`` of that place), or None: no twins, or a file
        written before it was learned."""
        box = tuple(int(v) for v in self.differ_box[self.group[row]])
        if not box[2] or self.differ_rings is None:
            return None
        _, _, w, h = differ.wide(box)
        return self.differ_rings[self.group[row], :h, :w]


def check_card_id(card_id: str) -> None:
    """Refuse (``ValueError``) what cannot be a card id. An id is a file's name as a person
    gave it (``Net Troll``, ``Zauberstab-ü``, ``Хель``, ``card_001``): up to
    ``CARD_ID_LENGTH`` characters of any script, starting with a letter or digit, with no
    control characters, path separators or space at either end, and short enough for the
    file name of its reference image (``NAME_BYTES``: ~40 letters of a script beyond ASCII)."""
    if not (0 < len(card_id) <= CARD_ID_LENGTH and card_id[0].isalnum() and card_id.isprintable()
            and card_id == card_id.strip() and not any(c in card_id for c in "/\\")):
        raise ValueError(f"{card_id!r} is not a card id (up to {CARD_ID_LENGTH} letters, digits, spaces or "
                         "punctuation, starting with a letter or digit; no '/' or '\\').")
    if len(reference_name(card_id).encode()) > NAME_BYTES:
        raise ValueError(f"{card_id!r} is too long a card id for the file name of its image: shorten it.")


def reference_name(card_id: str) -> str:
    """The file name of ``card_id``'s reference image: the id percent-encoded (``Net%20Troll``,
    ``Zauberstab-%C3%BC``), which leaves the ids of the card database (``net-troll``) as they
    are and is read back by ``card_id_of``."""
    return urllib.parse.quote(card_id, safe="") + ".png"


def card_id_of(path: Path) -> str:
    """The card id whose reference image ``path`` is (``reference_name`` read back)."""
    return urllib.parse.unquote(path.stem)


def reference_file(root: Path, card_id: str) -> Path:
    """Where the index in ``root`` keeps ``card_id``'s reference image."""
    return root / "refs" / reference_name(card_id)


def _picture(root: Path, card_id: str) -> np.ndarray | None:
    gray = cv2.imread(str(reference_file(root, card_id)), cv2.IMREAD_GRAYSCALE)
    return None if gray is None else describe.canonical(gray)


def centred(coarse: np.ndarray, means: np.ndarray, group: np.ndarray) -> np.ndarray:
    """The thumbnails less their print's mean (what every card of it shows), each of unit length."""
    c = coarse.astype(np.float32) - means[group]
    c -= c.mean(axis=1, keepdims=True)
    return c / np.maximum(np.linalg.norm(c, axis=1, keepdims=True), 1e-9)


def derive(arrays: dict) -> dict[str, np.ndarray]:
    """What recognition needs beyond the descriptions of (at least one) card, computed once
    when the index is written and stored in the file beside them (see ``Snapshot``).

    Each word table is kept as runs of one key: the key, how many features it has (``counts``),
    in how many cards (``cards``, whence ``idf``) and the features' numbers in order
    (``features``), all tables' runs one after the other (``runs``: how many each table has);
    the features of the common print are not filed (``_without``: a file written before they
    were left out has them, and recognition leaves them out as it always did).
    Unpacked (``_unpack``) these are exactly the arrays sorting every other feature's word would
    give, at about a third of their size (keys and feature numbers ``uint32``, the counts in
    the smallest type that holds them). Also each card's print (``group``), ``common`` and
    each print's mean pictures.

    A feature is common when, in most tables, at least ``COMMON_SHARE`` of the cards of its
    own print (and ``COMMON_CARDS``) have its word at its place. With one game enrolled all
    cards are one print, and this is the share of the whole index.
    """
    n, k = arrays["descriptors"].shape[:2]
    gids = np.nonzero((np.arange(k)[None, :] < arrays["count"][:, None]).ravel())[0].astype(np.int64)
    words = features.words(arrays["descriptors"].reshape(-1, 32)[gids], features.word_bits(n))
    where = cells(arrays["points"].astype(np.float32).reshape(-1, 2)[gids])
    stop = max(STOP_CARDS, STOP_SHARE * n)  # a word most cards have tells none apart: not looked up
    packed: dict[str, list[tuple]] = {"words": [], "placed": []}
    sharing = np.empty((len(gids), features.TABLES), np.int64)  # cards with the feature's placed word
    per_feature = np.empty(n * k, np.int64)
    anchors = np.unique(np.linspace(0, n - 1, min(n, ANCHORS)).astype(np.int64))
    shared = np.zeros((n, len(anchors)), np.int64)  # placed words each card shares with each anchor
    for t in range(features.TABLES):
        key, count, cards, feature = _runs(words[t], gids, k)
        rare = cards <= stop
        packed["words"].append((key[rare], count[rare], cards[rare], feature[np.repeat(rare, count)]))
        # the same word at the same place of the card: the print cards share
        key, count, cards, feature = _runs(words[t] * CELLS[0] * CELLS[1] + where, gids, k)
        packed["placed"].append((key, count, cards, feature))
        per_feature[feature] = np.repeat(cards, count)
        sharing[:, t] = per_feature[gids]
        if t < PRINT_TABLES:
            shared += _shared(count, feature // k, anchors, n)
    group, sizes = prints(shared >= PRINT_LINK * PRINT_TABLES, anchors)
    common = np.zeros(n * k, bool)
    if n >= COMMON_MIN_CARDS:
        # common when enough cards have it, as a share of the cards of its own print (its group)
        size = sizes[group[gids // k]]
        share = (sharing / size[:, None]).astype(np.float32)
        common[gids] = (np.median(share, axis=1) * size.astype(np.float32)
                        >= np.maximum(COMMON_SHARE * size, COMMON_CARDS).astype(np.float32))
    thumbs = describe.unthumb(arrays["thumb"])
    derived = {"common": common, "group": group.astype(np.min_scalar_type(len(sizes))),
               "means": _means(arrays["coarse"].astype(np.float32), group, len(sizes), n),
               "thumb_means": _means(thumbs, group, len(sizes), n),
               "thumb_spreads": _means(thumbs, group, len(sizes), n, spread=True)}
    for name, tables in packed.items():
        tables = [_without(table, common) for table in tables]
        key, count, cards, feature = (np.concatenate(part) for part in zip(*tables))
        derived.update({f"{name}_keys": key.astype(np.uint32), f"{name}_features": feature.astype(np.uint32),
                        f"{name}_counts": count.astype(np.min_scalar_type(count.max(initial=0))),
                        f"{name}_cards": cards.astype(np.min_scalar_type(n)),
                        f"{name}_runs": np.array([len(table[0]) for table in tables], np.int64)})
    return derived


def _means(pictures: np.ndarray, group: np.ndarray, prints: int, n: int, spread: bool = False) -> np.ndarray:
    """The mean picture of the cards of each of ``prints`` prints (``index.prints``), and for the cards of none (the
    last group) that of all cards: a card alone is not its own mean, and with one game
    enrolled either is the mean of the whole index. None (zeros) with fewer than
    ``COMMON_MIN_CARDS`` cards enrolled. With ``spread``, the standard deviation of those
    pictures instead, pixel by pixel: where the print's cards differ from one another
    (``match.art``)."""
    means = np.zeros((prints, *pictures.shape[1:]), np.float32)
    if n >= COMMON_MIN_CARDS:
        of = np.std if spread else np.mean
        for g in range(prints - 1):
            means[g] = of(pictures[group == g], axis=0)
        means[-1] = of(pictures, axis=0)
    return means


def _shared(count: np.ndarray, owner: np.ndarray, anchors: np.ndarray, n: int) -> np.ndarray:
    """How many runs of one placed word (``count`` features each, whose cards are ``owner``,
    in run order) each card shares with each of the ``anchors`` (sorted card numbers): an
    ``n`` × anchors count."""
    run = np.repeat(np.arange(len(count)), count)
    distinct = np.r_[True, (run[1:] != run[:-1]) | (owner[1:] != owner[:-1])] if len(run) else np.zeros(0, bool)
    run, owner = run[distinct], owner[distinct]              # each card once per run
    size = np.bincount(run, minlength=len(count))
    start = np.cumsum(size) - size
    slot = np.searchsorted(anchors, owner)
    is_anchor = (slot < len(anchors)) & (anchors[np.minimum(slot, len(anchors) - 1)] == owner)
    a_run, a_slot = run[is_anchor], slot[is_anchor]
    a_run, a_slot = a_run[size[a_run] > 1], a_slot[size[a_run] > 1]  # a word no other card has links none
    reps = size[a_run]
    total = int(reps.sum())
    at = np.repeat(start[a_run], reps) + np.arange(total) - np.repeat(np.cumsum(reps) - reps, reps)
    pair = owner[at] * len(anchors) + np.repeat(a_slot, reps)
    return np.bincount(pair, minlength=n * len(anchors)).reshape(n, len(anchors))


def prints(linked: np.ndarray, anchors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which cards share a print (a frame, a border, a layout): each card's group and each
    group's size, from ``linked`` (cards × ``anchors``: the card shares enough placed words
    with the anchor card).

    Anchors that link to each other, directly or through other anchors, are one print; each
    card joins the print with which it shares the most anchors. Cards of no print of at least
    ``COMMON_MIN_CARDS`` (posters whose art fills the card, a game with a handful of cards
    enrolled, a card enrolled from a poor photo) make one group together, the last. So one
    game's cards are one group whether they share a frame or not."""
    among = linked[anchors]
    among |= among.T
    label = np.arange(len(anchors))
    while True:                       # each anchor takes the lowest label of those it links to
        lower = np.where(among, label[None, :], len(anchors)).min(axis=1, initial=len(anchors))
        lower = np.minimum(lower, label)[np.minimum(lower, label)]
        if np.array_equal(lower, label):
            break
        label = lower
    _, print_of = np.unique(label, return_inverse=True)
    card, anchor = np.nonzero(linked)
    found = print_of.max(initial=0) + 1
    votes = np.bincount(card * found + print_of[anchor], minlength=len(linked) * found).reshape(-1, found)
    group = np.where(votes.max(axis=1, initial=0) > 0, votes.argmax(axis=1), -1)
    sizes = np.bincount(group[group >= 0], minlength=found)
    big = sizes >= COMMON_MIN_CARDS
    number = np.full(len(sizes), big.sum())           # a small print's cards join the rest
    number[big] = np.arange(big.sum())
    group = np.where(group >= 0, number[np.maximum(group, 0)], big.sum())
    return group, np.bincount(group, minlength=big.sum() + 1)


def _runs(keys: np.ndarray, gids: np.ndarray, per_card: int) -> tuple[np.ndarray, ...]:
    """``keys`` (one per feature of ``gids``, below 2**32) sorted into runs of one key: each
    run's key, length and number of distinct cards, and the feature numbers in key order
    (ties in feature order, as a stable sort leaves them)."""
    order = np.argsort(keys.astype(np.uint16), kind="stable")  # two passes of numpy's radix sort,
    order = order[np.argsort((keys[order] >> 16).astype(np.uint16), kind="stable")]  # ~3x a general one
    key, feature = keys[order], gids[order]
    first = np.ones(len(key), bool)
    np.not_equal(key[1:], key[:-1], out=first[1:])
    new_card = first.copy()  # a card's features are in a row within a run: count where the card changes
    owner = feature // per_card
    new_card[1:] |= owner[1:] != owner[:-1]
    starts = np.flatnonzero(first)
    cards = np.add.reduceat(new_card, starts, dtype=np.int64) if len(starts) else np.zeros(0, np.int64)
    return key[starts], np.diff(starts, append=len(key)), cards, feature


def _frames(common: np.ndarray, group: np.ndarray, count: np.ndarray, per_card: int) -> list[np.ndarray]:
    """Per print, the features of its common print on the one card that has most of them
    (their numbers; ``FRAME_FEATURES`` at least, else none for that print): where a card of
    that print lies in a photo is where its frame is (``match.frames``). One card's, not
    every card's: each card of a print has nearly the same frame features at the same
    places, and a photo feature is paired with one of them only."""
    owner = np.flatnonzero(common) // per_card
    held = np.bincount(owner, minlength=len(count))
    frames = []
    for print_ in np.unique(group):
        rows = np.flatnonzero(group == print_)
        row = int(rows[np.argmax(held[rows])])
        if held[row] >= FRAME_FEATURES:
            g = row * per_card + np.arange(int(count[row]))
            frames.append(g[common[g]])
    return frames


def _without(table: tuple[np.ndarray, ...], common: np.ndarray) -> tuple[np.ndarray, ...]:
    """A table's runs (``_runs``) without the features of the common print: recognition
    leaves out every pair with one (``match.shortlist``, ``consistent_shortlist``): among
    5,000 cards three pairs in ten that a photo's words found, a sixth of the placed tables'
    entries (a quarter among 300). A run keeps its count of cards (its ``idf``, the common
    ones counted), and one left empty goes."""
    key, count, cards, feature = table
    keep = ~common[feature]
    count = np.bincount(np.repeat(np.arange(len(key)), count)[keep], minlength=len(key))
    kept = count > 0
    return key[kept], count[kept], cards[kept], feature[keep]


def _unpack(derived: dict, name: str, n: int) -> list[tuple[np.ndarray, ...]]:
    """The word tables ``name`` of ``derive`` as recognition reads them: per table the runs'
    keys (sorted, ``int64`` as the photo's words are), where each run starts among the
    feature numbers (``uint32``) and how long it is (as stored), the feature numbers
    (``uint32`` as stored, not copied) and each run's ``idf`` (``float32``). A photo's word
    is found by one binary search among the distinct keys, not two among every feature's;
    the placed tables have about as many runs as features, so the narrow types halve the
    memory a loaded index takes."""
    runs = np.cumsum(derived[f"{name}_runs"])[:-1]
    keys, counts, cards = (np.split(derived[f"{name}_{part}"], runs) for part in ("keys", "counts", "cards"))
    entries = np.cumsum([c.sum(dtype=np.int64) for c in counts])[:-1]
    return [(key.astype(np.int64), (np.cumsum(count, dtype=np.int64) - count).astype(np.uint32), count,
             feature, np.log((n + 1) / card.astype(np.int64)).astype(np.float32))
            for key, count, card, feature in zip(keys, counts, cards, np.split(derived[f"{name}_features"], entries))]


def cells(points: np.ndarray) -> np.ndarray:
    """The cell of the card (a CELLS grid) each point lies in."""
    cx = np.clip((points[:, 0] * CELLS[0] / locate.CARD_W).astype(np.int64), 0, CELLS[0] - 1)
    cy = np.clip((points[:, 1] * CELLS[1] / locate.CARD_H).astype(np.int64), 0, CELLS[1] - 1)
    return cy * CELLS[0] + cx


def _one_per_case(new: list[str], stored: list[str]) -> None:
    """Refuse card ids that differ from another only in case (``Troll`` beside ``troll``):
    each card's reference image is the file ``refs/<id>.png``, and on a file system that
    ignores case (macOS, Windows) the two would be one file. Letters beyond ASCII, which
    that name encodes (``reference_name``), follow the same rule: one rule for every id."""
    seen = {card_id.casefold(): card_id for card_id in stored}
    for card_id in new:
        other = seen.setdefault(card_id.casefold(), card_id)
        if other != card_id:
            raise ValueError(f"{card_id!r} differs from the card id {other!r} only in case: "
                             "their reference images would be one file where case is ignored.")


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
        self._set([], {f: None for f in FIELDS}, None)

    # -- reading ---------------------------------------------------------------------------
    def _set(self, ids: list[str], arrays: dict, derived: dict | None) -> None:
        self.current = Snapshot(ids, arrays, derived, self.root)

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

    def _load(self) -> None:
        """Read the file as it is now, unless it is the one already loaded (hold ``_lock``)."""
        try:
            fh = open(self.path, "rb")
        except FileNotFoundError:
            self._set([], {f: None for f in FIELDS}, None)
            self._stamp = None
            return
        with fh:
            stamp = _identity(os.fstat(fh.fileno()))
            if stamp == self._stamp:
                return
            with _opened(fh) as data:
                self._set([str(i) for i in data["ids"]], {f: data[f] for f in FIELDS},
                          {f: data[f] for f in data.files if f not in (*FIELDS, "format", "ids")})
            self._stamp = stamp

    def __len__(self) -> int:
        return len(self.ids)

    def reference_path(self, card_id: str) -> Path:
        return reference_file(self.root, card_id)

    def enrolled(self, card_id: str) -> bool:
        """Whether ``card_id`` has a reference image: one ``stat``, the index is not loaded."""
        return self.taught_at(card_id) is not None

    def taught_at(self, card_id: str) -> int | None:
        """When ``card_id``'s reference image was written (ns; a new picture, a new value), or
        None when it has none: one ``stat``, the index is not loaded."""
        try:
            return self.reference_path(card_id).stat().st_mtime_ns
        except FileNotFoundError:
            return None

    # -- writing ---------------------------------------------------------------------------
    @contextmanager
    def _changing(self, reload: bool = True) -> Iterator[tuple[list[str], dict]]:
        """Hold the index for a change, in this process and across processes. Yields the ids
        and descriptions as the file is now (another process may just have written), or,
        without ``reload``, none, to start again from. The stored tables are not read: the
        write derives them anew."""
        self.root.mkdir(parents=True, exist_ok=True)
        # the thread lock first: under gevent a second greenlet waits for it, not in flock
        with self._lock, open(self.lock_path, "ab") as held:
            if fcntl is not None:
                fcntl.flock(held, fcntl.LOCK_EX)  # released when the file is closed, or its process dies
            yield self._stored() if reload else ([], {f: None for f in FIELDS})

    def _stored(self, fields: tuple[str, ...] = FIELDS) -> tuple[list[str], dict]:
        """The ids and descriptions (``fields`` of them) in the file now (none without a file)."""
        try:
            fh = open(self.path, "rb")
        except FileNotFoundError:
            return [], {f: None for f in fields}
        with fh, _opened(fh) as data:
            return [str(i) for i in data["ids"]], {f: data[f] for f in fields}

    def add(self, entries: dict[str, np.ndarray]) -> None:
        """Store grey reference card images (``uint8``, any size; stored at CARD_H × CARD_W)
        by card id, in one write; each turned half round where the cards most like it are
        the other way up (``deck.turns``: the stored ones stay as they are)."""
        for card_id in entries:
            check_card_id(card_id)
        pictures, _ = deck.upright([describe.canonical(gray) for gray in entries.values()],
                                   self.thumbnails(without=entries) if entries else None)
        entries = dict(zip(entries, pictures))
        described = {card_id: describe.describe(gray) for card_id, gray in entries.items()}  # before the lock
        with self._changing() as (ids, arrays):
            _one_per_case(list(entries), ids)  # against the ids stored now, another process's too
            refs = self.root / "refs"
            refs.mkdir(exist_ok=True)
            for card_id, gray in entries.items():
                png = cv2.imencode(".png", gray)[1].tobytes()
                _replace(self.reference_path(card_id), lambda fh, png=png: fh.write(png))
            self._store(ids, arrays, described)

    def thumbnails(self, without=()) -> np.ndarray:
        """The stored cards' thumbnails (rows of ``describe.coarse``) but those of the ids in
        ``without`` (which a new enrolment replaces): the deck a new reference joins
        (``vision.deck``). Read from the file as it is now, that array only: the word tables
        are not unpacked (a CLI enrolment into 5,000 cards would load them for nothing)."""
        ids, arrays = self._stored(("coarse",))
        keep = [i for i, card_id in enumerate(ids) if card_id not in without]
        if not keep:
            return np.zeros((0, describe.COARSE[0] * describe.COARSE[1]), np.float32)
        return arrays["coarse"][keep].astype(np.float32)

    def remove(self, card_id: str) -> bool:
        with self._changing() as (ids, arrays):
            if card_id not in ids:
                return False
            keep = [i for i, c in enumerate(ids) if c != card_id]
            self._write([ids[i] for i in keep], {f: arrays[f][keep] for f in FIELDS})
            self.reference_path(card_id).unlink(missing_ok=True)
        return True

    def rebuild(self) -> int:
        """Describe every stored reference image again (after a change of ``FORMAT``), each
        first turned the way up the cards most like it are (``deck.turns``, all of them as
        one deck enrolled at once: an index taught from photos before references were so
        turned is stored one way up, as it would be now; a deck of scans stays as it is)."""
        with self._changing(reload=False) as (ids, arrays):
            # (not the temporary file of a write that was killed: ``_replace``'s start with a dot)
            paths = sorted(p for p in (self.root / "refs").glob("*.png") if not p.name.startswith("."))
            pictures, turned = deck.upright([describe.canonical(cv2.imread(str(p), cv2.IMREAD_GRAYSCALE))
                                             for p in paths])
            for k in np.flatnonzero(turned):
                png = cv2.imencode(".png", pictures[k])[1].tobytes()
                _replace(paths[k], lambda fh, png=png: fh.write(png))
            self._store(ids, arrays, {card_id_of(p): describe.describe(g) for p, g in zip(paths, pictures)})
        return len(paths)

    def _store(self, ids: list[str], arrays: dict, described: dict[str, dict]) -> None:
        """Write ``ids`` and ``arrays`` with the rows of ``described`` replaced or added (hold
        ``_changing``)."""
        ids = list(ids)
        rows = {f: (list(arrays[f]) if ids else []) for f in FIELDS}
        position = {card_id: i for i, card_id in enumerate(ids)}
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
        """Replace the file (or remove it, when no card is left) and make it ``current``. The
        tables derived from the descriptions are stored too, so that loading only reads
        (not compressed: it would cost more time than the disk it saves)."""
        derived = derive(arrays) if ids else None
        if ids:
            group = derived["group"].astype(np.int64)
            derived.update(differ.learn(centred(arrays["coarse"], derived["means"], group), group,
                                        lambda row: _picture(self.root, ids[row])))
            self._stamp = _replace(self.path, lambda fh: np.savez(fh, format=np.int64(FORMAT), ids=np.array(ids),
                                                                  **arrays, **derived))
        else:
            self.path.unlink(missing_ok=True)
            self._stamp = None
        self._set(ids, arrays, derived)


def _identity(st: os.stat_result) -> tuple:
    """What tells one version of the index file from the next (each write is a new file)."""
    return st.st_ino, st.st_size, st.st_mtime_ns


@contextmanager
def _opened(fh) -> Iterator[np.lib.npyio.NpzFile]:
    """The index file open for reading its arrays; ``OutdatedIndex`` if another ``FORMAT``."""
    with np.load(fh, allow_pickle=False) as data:
        if "format" not in data.files or int(data["format"]) != FORMAT:
            raise OutdatedIndex()
        yield data


def _replace(path: Path, write: Callable[[BinaryIO], object]) -> tuple:
    """Make ``path`` what ``write`` writes to a file, atomically (a temporary file renamed
    over it); its identity."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem[:32]}-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()  # the size and time on disk are those of the whole file
            stamp = _identity(os.fstat(fh.fileno()))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return stamp
