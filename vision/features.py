"""Local features: ORB keypoints and binary descriptors, and the visual words made of them.

ORB (FAST corners with rotated BRIEF descriptors over an image pyramid) is unchanged by a
card turned any way in the picture, by its size in the photo and by moderate perspective,
and it describes a whole phone photo in ~15 ms. A reference card keeps ``REF_FEATURES``
keypoints spread over a grid of cells, so that a busy printed border cannot take them all
and leave the art with none.

*Visual words* (``words``) are fixed subsets of a descriptor's bits (``word_bits`` bits in
each of ``TABLES`` different subsets): two descriptors of the same point of the same card
share a word in some table with good probability, two unrelated ones rarely. Looking the
photo's words up among every enrolled card's ranks the whole index in a few milliseconds,
without finding the card first, and yields the candidate correspondences that the
geometric check then verifies (``vision.match``).
"""
from __future__ import annotations

import functools
import math

import cv2
import numpy as np

REF_FEATURES = 400             # keypoints kept per reference card
GRID = (4, 6)                  # cells across and down that share them
PHOTO_FEATURES = 3000          # keypoints described in the whole photo
CARD_FEATURES = 900            # ... and in each rectified card outline
PHOTO_FAST = 10                # FAST score a photo's corner needs (low: a blurred card keeps some)
TABLES = 12                    # word tables (bit subsets)
_ORDER = np.random.default_rng(20240616).permuted(np.tile(np.arange(256), (TABLES, 1)), axis=1)


def word_bits(cards: int) -> int:
    """Bits per word for an index of ``cards``: more cards, longer words, so that the
    chance collisions to check stay about as many (16 bits at 300 cards, 20 at 5,000)."""
    return int(min(21, max(16, 16 + math.ceil(math.log2(max(cards, 1) / 300)))))


def _orb(n: int, fast: int = 12) -> cv2.ORB:
    return cv2.ORB_create(nfeatures=n, scaleFactor=1.25, nlevels=8, edgeThreshold=15, patchSize=31,
                          fastThreshold=fast)


def _arrays(kps, desc) -> tuple[np.ndarray, np.ndarray]:
    if desc is None or not kps:
        return np.zeros((0, 2), np.float32), np.zeros((0, 32), np.uint8)
    return np.array([k.pt for k in kps], np.float32), desc


def reference(gray: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Keypoint positions (K × 2 float32, pixels of ``gray``) and descriptors (K × 32 uint8) of a
    rectified reference card, at most ``REF_FEATURES``, spread over ``GRID`` cells."""
    kps = _orb(REF_FEATURES * 6, fast=8).detect(gray, None)
    return _arrays(*_orb(REF_FEATURES).compute(gray, [kps[i] for i in _spread(kps, gray.shape)]))


def _spread(kps, shape: tuple[int, ...]) -> np.ndarray:
    """Which of ``kps`` a reference keeps, in order: strongest first, at most a quota in each
    ``GRID`` cell; the kept ones cell by cell (cells in the order their strongest comes), each
    cell's strongest first. (Counted in numpy: the same keypoints, in the same order, as one
    Python loop over the ~2,400 candidates took a third of describing a card.)"""
    if not kps:
        return np.zeros(0, np.int64)
    h, w = shape[:2]
    gx, gy = GRID
    quota = max(1, REF_FEATURES // (gx * gy))
    pts = cv2.KeyPoint_convert(kps).astype(np.float64)
    order = np.argsort(-np.array([k.response for k in kps], np.float64), kind="stable")  # strongest first
    cell = (np.minimum(gx - 1, (pts[:, 0] * gx / w).astype(np.int64))
            + gx * np.minimum(gy - 1, (pts[:, 1] * gy / h).astype(np.int64)))[order]
    by_cell = np.argsort(cell, kind="stable")
    grouped = cell[by_cell]
    start = np.r_[0, np.flatnonzero(grouped[1:] != grouped[:-1]) + 1]
    rank = np.empty(len(cell), np.int64)  # each one's place among its cell's, strongest first
    rank[by_cell] = np.arange(len(cell)) - np.repeat(start, np.diff(np.r_[start, len(cell)]))
    first = np.full(gx * gy, len(cell))  # where each cell's strongest comes
    np.minimum.at(first, cell, np.arange(len(cell)))
    keep = np.flatnonzero(rank < quota)
    return order[keep[np.lexsort((keep, first[cell[keep]]))]]


def photo(gray: np.ndarray, n: int = PHOTO_FEATURES, fast: int = PHOTO_FAST) -> tuple[np.ndarray, np.ndarray]:
    """Keypoint positions and descriptors of a grey image (a photo, or a rectified outline):
    the ``n`` strongest of the corners whose FAST score reaches ``fast``."""
    return _arrays(*_orb(n, fast=fast).detectAndCompute(gray, None))


@functools.lru_cache(maxsize=None)
def _word_lookups(bits: int) -> tuple[tuple[tuple[int, np.ndarray], ...], ...]:
    """Per table, for each descriptor byte that holds some of its word's bits: what each of
    the byte's 256 values adds to the word (``uint32``, read-only)."""
    value = np.arange(256)
    tables = []
    for t in range(TABLES):
        per_byte: dict[int, np.ndarray] = {}
        for k, b in enumerate(_ORDER[t, :bits].tolist()):
            add = per_byte.setdefault(b >> 3, np.zeros(256, np.uint32))
            add |= (((value >> (7 - (b & 7))) & 1) << k).astype(np.uint32)
        for add in per_byte.values():
            add.flags.writeable = False
        tables.append(tuple(sorted(per_byte.items())))
    return tuple(tables)


def words(desc: np.ndarray, bits: int) -> np.ndarray:
    """The visual word of each descriptor in each table: (TABLES, n) int64.

    Bit ``k`` of table ``t``'s word is bit ``_ORDER[t, k]`` of the descriptor (bit 0 is the
    first byte's highest). The bits are gathered a byte at a time through lookup tables
    (``_word_lookups``), not one at a time: the 2 million features of 5,000 cards take
    ~1 s instead of ~5.
    """
    out = np.empty((TABLES, len(desc)), np.int64)
    columns = np.ascontiguousarray(desc.T)
    word = np.empty(len(desc), np.uint32)
    part = np.empty_like(word)
    for t, lookups in enumerate(_word_lookups(bits)):
        word.fill(0)
        for byte, add in lookups:
            np.take(add, columns[byte], out=part)
            word |= part
        out[t] = word
    return out


_ROW = np.dtype((np.void, 32))   # a descriptor as one 32-byte item


def hamming(a: np.ndarray, rows_a: np.ndarray, b: np.ndarray, rows_b: np.ndarray) -> np.ndarray:
    """Bit distances between the descriptors ``a[rows_a]`` and ``b[rows_b]`` (n × 32 uint8
    arrays, equally many rows picked from each), as ``uint16``.

    The rows are picked as 32-byte items and their four 64-bit words' bit counts added one
    by one: half the time of picking rows of bytes and summing along them (the visual
    words' ~60,000 candidate pairs a look-up, ``match._look_up``)."""
    x = np.ascontiguousarray(a).view(_ROW).ravel()[rows_a].view(np.uint64).reshape(-1, 4)
    x ^= np.ascontiguousarray(b).view(_ROW).ravel()[rows_b].view(np.uint64).reshape(-1, 4)
    bits = np.bitwise_count(x)
    total = bits[:, 0].astype(np.uint16)
    total += bits[:, 1]
    total += bits[:, 2]
    total += bits[:, 3]
    return total
