"""Which enrolled card a photo shows: shortlist by visual words, verify by geometry and pixels.

1. ``correspondences``: every photo feature's words are looked up in the index's word
   tables; an enrolled feature sharing a word with a photo feature, and within
   ``MAX_HAMMING`` bits of it, has found a partner.
2. ``shortlist``: each enrolled card scores the rarity (``idf``) of the words of its
   features that found a partner, features the cards have in common left out. The best
   ``SHORTLIST`` go on; this ranks 5,000 cards nearly as fast as 300. The features of a
   straightened outline know their place on the card, so they are looked up as *placed
   words* too (``placed_correspondences``): glyphs of the rules text are in every card, but
   not at the same place. ``coarse_shortlist``
   adds the cards whose thumbnail is most like the straightened outlines': art of large
   flat shapes has few corners but a distinctive picture.
3. ``verify``: for one shortlisted card, its features matched to the photo's give a
   homography (RANSAC);
   the *inliers* — features that land where that card has them — count, once the card's
   outline through it is a plausible card (convex, not too small, not folded) and the
   inliers cover enough of the card. The photo is then warped onto the reference and the
   flattened pixels compared (``dense``), the enrolled cards' mean picture taken out of
   both: a card made of the same motifs as another matches some features, but not the
   picture as a whole, and the frame every card shares says nothing either way.
4. ``tell_apart``: two cards that both verify (same art, a title that differs by a letter)
   are compared only where their references differ, each through its own homography.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from . import describe, features, locate
from .index import CELLS, Snapshot

MAX_HAMMING = 56                 # bits: descriptors further apart are not the same point
SHORTLIST = 6                    # cards shortlisted by words ...
PLACED_SHORTLIST = 3             # ... by placed words (a straightened outline's features) ...
COARSE_SHORTLIST = 3             # ... and by thumbnail, verified geometrically
MIN_PAIRS = 8                    # correspondences needed to try a homography
MAX_PAIRS = 400                  # the closest this many are given to RANSAC
RANSAC_ITERATIONS = 1000
RANSAC_PX = 6.0                  # reprojection error (photo pixels at working size) of an inlier
MIN_SPREAD = 0.12                # inliers must span this share of the card's area
DIFFER = 0.10                    # flattened references differing by this much differ there
SHIFT = 3                        # px (of a CARD_W-wide card) the aligned photo may be off


@dataclass
class Match:
    """One enrolled card checked against the photo."""
    row: int
    votes: float
    inliers: int = 0
    H: np.ndarray | None = None      # canonical card coordinates → photo (working size)
    dense: float = 0.0               # correlation of the aligned pixels, less what all cards show (−1 … 1)
    excess: float = 0.0              # inliers beyond those of a typical other card (``recognize``)
    margin: float | None = None      # lead over a card that verified as well (see ``tell_apart``)
    seen: np.ndarray | None = None   # the photo through ``H``, flattened at THUMB size


def correspondences(snap: Snapshot, desc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Enrolled features that share a word with a photo feature and are within
    ``MAX_HAMMING`` bits of it (their numbers, with repeats), and each such word's weight."""
    return _look_up(snap, desc, features.words(desc, snap.bits), snap.tables)


def placed_correspondences(snap: Snapshot, desc: np.ndarray, where: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Like ``correspondences``, for features of a straightened outline at the cells ``where``
    (``index.cells``): only enrolled features with the same word *at the same place* count."""
    keys = features.words(desc, snap.bits) * CELLS[0] * CELLS[1] + where[None, :]
    return _look_up(snap, desc, keys, snap.placed)


def _look_up(snap: Snapshot, desc: np.ndarray, keys: np.ndarray, tables) -> tuple[np.ndarray, np.ndarray]:
    """The enrolled features filed under the photo features' ``keys`` in each of ``tables``
    (sorted keys, feature numbers, weights) and near enough to them in bits."""
    found, weights = [], []
    for t, (sorted_keys, gids, idf) in enumerate(tables):
        lo = np.searchsorted(sorted_keys, keys[t], "left")
        n = np.searchsorted(sorted_keys, keys[t], "right") - lo
        total = int(n.sum())
        if not total:
            continue
        at = np.repeat(lo, n) + np.arange(total) - np.repeat(np.cumsum(n) - n, n)
        g = gids[at]
        ok = features.hamming(snap.descriptors[g], desc[np.repeat(np.arange(len(desc)), n)]) < MAX_HAMMING
        found.append(g[ok])
        weights.append(idf[at[ok]])
    if not found:
        return np.zeros(0, np.int64), np.zeros(0, np.float32)
    return np.concatenate(found), np.concatenate(weights)


def shortlist(snap: Snapshot, g: np.ndarray, weight: np.ndarray, size: int = SHORTLIST) -> list[Match]:
    """The cards whose features found the rarest partners, best first."""
    keep = ~snap.common[g]
    g, weight = g[keep], weight[keep]
    if not len(g):
        return []
    feature, at = np.unique(g, return_inverse=True)
    best = np.zeros(len(feature), np.float32)
    np.maximum.at(best, at, weight)                  # a feature counts once, by its rarest word
    votes = np.bincount(feature // snap.per_card, weights=best, minlength=len(snap.ids))
    top = np.argsort(-votes)[:size]
    return [Match(int(r), float(votes[r])) for r in top if votes[r] > 0]


def coarse_shortlist(snap: Snapshot, views: list[np.ndarray], size: int = COARSE_SHORTLIST) -> list[Match]:
    """The cards whose thumbnail is most like one of ``views`` (``describe.coarse`` of the
    straightened outlines, each way up), best first."""
    if not views:
        return []
    q = np.stack([v - snap.mean for v in views])
    q -= q.mean(axis=1, keepdims=True)
    q /= np.maximum(np.linalg.norm(q, axis=1, keepdims=True), 1e-9)
    best = (snap.coarse @ q.T).max(axis=1)
    top = np.argsort(-best)[:size]
    return [Match(int(r), 0.0) for r in top]


_BF = cv2.BFMatcher(cv2.NORM_HAMMING)


def verify(snap: Snapshot, m: Match, photo_pts: np.ndarray, photo_desc: np.ndarray, gray: np.ndarray) -> Match:
    """Fill in ``m``'s inliers, homography and dense score (``gray``: the photo at working size).

    Every feature of the card but the common ones is matched to its nearest photo feature
    (brute force, one card at a time), closer than ``MAX_HAMMING`` bits, each photo feature
    used once; RANSAC (PROSAC, closest pairs tried first) fits the homography."""
    k = snap.per_card
    g = m.row * k + np.arange(int(snap.arrays["count"][m.row]))
    g = g[~snap.common[g]]
    if len(g) < MIN_PAIRS or len(photo_desc) < MIN_PAIRS:
        return m
    found = _BF.match(snap.descriptors[g], photo_desc)
    if len(found) < MIN_PAIRS:
        return m
    q = np.array([d.queryIdx for d in found])
    p = np.array([d.trainIdx for d in found])
    ham = np.array([d.distance for d in found])
    ok = ham < MAX_HAMMING
    g, p, ham = g[q[ok]], p[ok], ham[ok]
    order = np.lexsort((ham, p))                     # each photo feature one enrolled feature, its closest
    p, g, ham = p[order], g[order], ham[order]
    first = np.r_[True, p[1:] != p[:-1]]
    p, g, ham = p[first], g[first], ham[first]
    if len(p) < MIN_PAIRS:
        return m
    order = np.argsort(ham, kind="stable")[:MAX_PAIRS]  # closest first: PROSAC tries those first
    src, dst = snap.points[g[order]], photo_pts[p[order]]
    H, mask = cv2.findHomography(src, dst, cv2.USAC_PROSAC, RANSAC_PX, maxIters=RANSAC_ITERATIONS, confidence=0.995)
    if H is None or not _plausible(H, gray.shape):
        return m
    inl = mask.ravel().astype(bool)
    hull = cv2.convexHull(src[inl].astype(np.float32)) if inl.sum() >= 3 else None
    if hull is None or cv2.contourArea(hull) < MIN_SPREAD * locate.CARD_W * locate.CARD_H:
        return m
    m.inliers, m.H = int(inl.sum()), H
    m.seen = describe.unthumb(describe.thumb(locate.rectify(gray, H)))
    m.dense = compare(snap, m, snap.thumb_mean)
    return m


def compare(snap: Snapshot, m: Match, mean: np.ndarray) -> float:
    """The correlation of the photo seen through ``m.H`` and ``m``'s reference, ``mean`` taken
    out of both."""
    return float(describe.zn(m.seen - mean) @ describe.zn(describe.unthumb(snap.arrays["thumb"][m.row]) - mean))


def _soft(gray: np.ndarray) -> np.ndarray:
    return cv2.GaussianBlur(describe.flatten(gray), (0, 0), 1.5)


def _plausible(H: np.ndarray, shape: tuple[int, int]) -> bool:
    """Whether the card's outline through ``H`` could be a card lying in the photo."""
    corners = cv2.perspectiveTransform(locate.CANON[None], H)[0]
    if not cv2.isContourConvex(corners):
        return False
    area = cv2.contourArea(corners)
    h, w = shape[:2]
    if area < 0.01 * h * w or area > 4 * h * w:
        return False
    sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
    return bool(min(sides[0] / sides[2], sides[2] / sides[0], sides[1] / sides[3], sides[3] / sides[1]) > 0.4)


def tell_apart(snap: Snapshot, a: Match, b: Match, gray: np.ndarray) -> float:
    """How much better ``a`` than ``b`` explains the photo where their references differ
    (difference of correlations, −2 … 2; 0 when the references do not differ at all).

    The region is the bounding box of the pixels that differ (a title, a number); each card
    is compared there through its own homography, allowing a shift of ``SHIFT`` pixels
    either way for what the homography is off."""
    ra, rb = snap.reference(snap.ids[a.row]), snap.reference(snap.ids[b.row])
    if ra is None or rb is None:
        return 0.0
    fa, fb = _soft(ra), _soft(rb)
    differ = cv2.dilate((np.abs(fa - fb) > DIFFER).astype(np.uint8), np.ones((5, 5), np.uint8))
    if differ.sum() < 40:
        return 0.0
    x, y, w, h = cv2.boundingRect(differ)
    m = SHIFT

    def fit(ref: np.ndarray, H: np.ndarray) -> float:
        seen = _soft(locate.rectify(gray, H, margin=m))[y:y + h + 2 * m, x:x + w + 2 * m]
        return float(cv2.matchTemplate(seen, ref[y:y + h, x:x + w], cv2.TM_CCOEFF_NORMED).max())
    return fit(fa, a.H) - fit(fb, b.H)
