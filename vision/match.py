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
   flat shapes has few corners but a distinctive picture. ``consistent_shortlist`` takes,
   of a longer list by votes, the cards whose pairs one homography fits best.
3. ``align``: for one shortlisted card that its word pairs fit (or that the votes rank
   high), its features matched to the photo's give a homography (MAGSAC++); the
   *inliers* — features that land where that card has them — count once the card's
   outline through it is a plausible card (convex, not too small, not folded).
   ``settle``: for the best aligned cards the photo is looked at again through that
   homography (``refine``), and the inliers must cover enough of the card. The photo
   is then warped onto the reference and the flattened pixels compared (``dense``), the
   mean picture of the card's print (its game, ``index.prints``) taken out of both: a card
   made of the same motifs as another matches some features, but not the picture as a
   whole, and the frame its game's cards share says nothing either way. ``refit``: when
   no card is sure, one whose homography is off by more than ``refine`` reaches is fitted
   again, its features paired with the photo's within a wide radius of their places.
4. ``frames``: where a card of an enrolled print lies, by the frame its cards share (the
   common print) fitted alone — an outline to straighten where the photo's edges close none.
5. ``tell_apart``: two cards that both verify (same art, a title that differs by a letter)
   are compared only where their references differ, each through its own homography.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from . import describe, differ, features, gate, locate
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
REFINE_FEATURES = 1500          # features of the photo straightened through a first homography ...
REFINE_RADIUS = 12.0             # ... that count when this close (card px) to where the reference has one ...
REFINE_PX = 3.0                  # ... and fit the refined homography to within this (card px)
REFIT_MARGIN = 40                # ``refit``: the photo straightened with this margin (card px) around the card,
REFIT_RADIUS = 60.0              # ... its features paired with the reference's this far off (card px) ...
REFIT_PX = 4.0                   # ... and fitted to within this (card px)
FRAMES = 2                       # cards of one print located by its frame (``frames``)
ART_SHARE = 0.5                  # ``art`` compares the pixels where the print's cards differ most: this share,
ART_SOFT = 3.0                   # ... each thumbnail less itself softened by this (σ, THUMB px)
NO_PAIRS = (np.zeros(0, np.int64), np.zeros(0, np.float32), np.zeros(0, np.int64))  # no correspondences


@dataclass
class Match:
    """One enrolled card checked against the photo."""
    row: int
    votes: float
    inliers: int = 0
    H: np.ndarray | None = None      # canonical card coordinates → photo (working size)
    dense: float = 0.0               # correlation of the aligned pixels, less what all cards show (−1 … 1)
    art: float | None = None         # its lines' agreement where the cards of its print differ most (``art``)
    excess: float = 0.0              # inliers beyond those of a typical other card (``recognize``)
    margin: float | None = None      # lead over a card that verified as well (see ``tell_apart``)
    agree: float | None = None       # lead over its print's cards where its twins differ (``differ.lead``)
    covered: bool = False            # ... that place lies under something in the photo (``differ.hidden``)
    cut: bool = False                # the card through ``H`` runs out of the photo (``recognize.runs_out``)
    aside: bool = False              # ... or another card lies nearer the photo's middle (``recognize.aside``)
    read: bool | None = None         # the text there read as on its reference, as another's, or not read
    text: str | None = None          # ... the text there as read on the photo (``recognize._read_where_twins_differ``)
    seen: np.ndarray | None = None   # the photo through ``H``, flattened at THUMB size
    shown: np.ndarray | None = None  # the pixels of ``seen`` not clipped white (``describe.shown``; None: all)
    spread: float = 0.0              # the share of the card's area its inliers span


#: Correspondences: enrolled features (their numbers, with repeats), each pair's weight, and
#: the photo features (rows of the descriptors looked up) they pair with.
Pairs = tuple[np.ndarray, np.ndarray, np.ndarray]


def correspondences(snap: Snapshot, desc: np.ndarray) -> Pairs:
    """Enrolled features that share a word with a photo feature and are within
    ``MAX_HAMMING`` bits of it, each such pair weighed by the word's rarity times how alike
    the two descriptors are (``_look_up``)."""
    return _look_up(snap, desc, features.words(desc, snap.bits), snap.tables)


def placed_correspondences(snap: Snapshot, desc: np.ndarray, where: np.ndarray) -> Pairs:
    """Like ``correspondences``, for features of a straightened outline at the cells ``where``
    (``index.cells``): only enrolled features with the same word *at the same place* count."""
    keys = features.words(desc, snap.bits) * CELLS[0] * CELLS[1] + where[None, :]
    return _look_up(snap, desc, keys, snap.placed)


def _look_up(snap: Snapshot, desc: np.ndarray, keys: np.ndarray, tables) -> Pairs:
    """The enrolled features filed under the photo features' ``keys`` in each of ``tables``
    (``index._unpack``: runs of one key) and near enough to them in bits, each weighed by
    its word's rarity and by (1 − distance / ``MAX_HAMMING``)²: a blurred photo finds chance
    partners for any card's features at 40–55 bits, its own card's at fewer; counting close
    pairs more put the photographed card among the first six twice as often where the
    art is sparse (bench/vision.py, split design)."""
    def one(t: int) -> Pairs:
        run_keys, starts, counts, gids, idf = tables[t]
        if not len(run_keys):
            return NO_PAIRS
        pos = np.minimum(_search_sorted(run_keys, keys[t]), len(run_keys) - 1)
        asked = np.nonzero(run_keys[pos] == keys[t])[0]
        run = pos[asked]
        n = counts[run].astype(np.int64)
        total = int(n.sum())
        if not total:
            return NO_PAIRS
        at = np.repeat(starts[run], n) + np.arange(total) - np.repeat(np.cumsum(n) - n, n)
        g, photo = gids[at], np.repeat(asked, n)
        ham = features.hamming(snap.descriptors, g, desc, photo)
        ok = ham < MAX_HAMMING
        return g[ok], np.repeat(idf[run], n)[ok] * (1 - ham[ok] / MAX_HAMMING) ** 2, photo[ok]

    pairs = gate.share(one, list(range(len(tables))))  # the tables shared by two threads
    if not pairs:
        return NO_PAIRS
    return tuple(np.concatenate(part) for part in zip(*pairs))


def _search_sorted(haystack: np.ndarray, needles: np.ndarray) -> np.ndarray:
    """``np.searchsorted(haystack, needles)``, the needles looked up in order: more than
    twice as fast for thousands of random keys (each search starts where memory is warm)."""
    order = np.argsort(needles, kind="stable")
    pos = np.empty(len(needles), np.int64)
    pos[order] = np.searchsorted(haystack, needles[order])
    return pos


def shortlist(snap: Snapshot, pairs: Pairs, size: int = SHORTLIST) -> list[Match]:
    """The cards whose features found the rarest partners, best first."""
    g, weight, _ = pairs
    keep = ~snap.common[g]
    g, weight = g[keep], weight[keep]
    if not len(g):
        return []
    feature, at = np.unique(g, return_inverse=True)
    best = np.zeros(len(feature), np.float32)
    np.maximum.at(best, at, weight)                  # a feature counts once, by its best word
    votes = np.bincount(feature // snap.per_card, weights=best, minlength=len(snap.ids))
    votes /= np.sqrt(np.maximum(snap.arrays["count"], 1))  # a card with more features has more chances
    top = np.argsort(-votes)[:size]
    return [Match(int(r), float(votes[r])) for r in top if votes[r] > 0]


def consistent_shortlist(snap: Snapshot, pairs: Pairs, rows: list[int], pts: np.ndarray,
                         shape: tuple[int, int]) -> list[Match]:
    """The cards ``rows`` (shortlisted by votes, long) whose ``pairs`` themselves agree on
    where the card lies, those that agree best first: each card's pairs — every
    partner a word found, not only the nearest — are fitted by one homography (MAGSAC++, and
    PROSAC, the likeliest pairs first, when its outline is no card, as in ``align``), and
    the card comes with it, and with as many inliers as its own features have among them
    (at least ``MIN_PAIRS``). ``pts``: the photo features' places, in a photo of ``shape``.

    Where the cards share their rules text's vocabulary and motifs, many cards collect as
    many votes as the one photographed, which sits far down the list by votes (12th to 58th
    on hard photos of the split design, glare over its art); but only its pairs fall where
    one card's features would, and such a fit puts it first. A feature counts once however
    many photo features it pairs with: the photo at several sizes describes the same point
    two or three times. ``align`` pairs each feature with its nearest photo feature only:
    with a word printed a dozen times in the photo the nearest is often another copy, and a
    card found here may align through this homography alone."""
    g, weight, photo = pairs
    among = np.zeros(len(snap.ids), bool)
    among[rows] = True
    keep = among[g // snap.per_card] & ~snap.common[g]
    pair, at = np.unique(g[keep] * len(pts) + photo[keep], return_inverse=True)  # each pair once, by feature
    best = np.zeros(len(pair), np.float32)
    np.maximum.at(best, at, weight[keep])            # weighed by its best word
    g, photo = pair // len(pts), pair % len(pts)
    cards, starts = np.unique(g // snap.per_card, return_index=True)

    def fit(run: tuple[int, int, int]) -> Match | None:
        row, a, b = run
        if len(np.unique(g[a:b])) < MIN_PAIRS:
            return None
        order = a + np.argsort(-best[a:b], kind="stable")  # the likeliest first, for PROSAC
        src, dst = snap.points[g[order]], pts[photo[order]]
        H, mask = cv2.findHomography(src, dst, cv2.USAC_MAGSAC, RANSAC_PX, maxIters=RANSAC_ITERATIONS,
                                     confidence=0.995)
        if H is None or not _plausible(H, shape):
            H, mask = cv2.findHomography(src, dst, cv2.USAC_PROSAC, RANSAC_PX, maxIters=RANSAC_ITERATIONS,
                                         confidence=0.995)
            if H is None or not _plausible(H, shape):
                return None
        own = np.unique(g[order][mask.ravel().astype(bool)])
        if len(own) < MIN_PAIRS:
            return None
        return Match(int(row), 0.0, H=H, inliers=len(own), spread=_spread(snap.points[own]))
    found = [m for m in gate.share(fit, list(zip(cards, starts, np.r_[starts[1:], len(g)]))) if m is not None]
    return sorted(found, key=lambda m: -m.inliers)


def frames(snap: Snapshot, whole: tuple[np.ndarray, np.ndarray], gray: np.ndarray, size: int) -> list[np.ndarray]:
    """Where cards of the enrolled prints lie in the photo, by their frame alone: up to
    ``size`` outlines (corners in the photo, most inliers first) through which a print's
    frame features (``Snapshot.frames``, the common print on one of its cards) fit the
    features of the whole photo (``whole``: places and descriptors; not those of outlines
    straightened, whose places are only as right as their outline) — up to ``FRAMES``
    cards a print, each found among the photo features that no card found before covers.
    As in ``align``: each frame feature its nearest photo feature, each photo feature by
    its closest, MAGSAC++ on the closest ``MAX_PAIRS``, a plausible card only; the
    ``size`` kept are looked again through (``_looked_again``, with the frame's features),
    which places them to a pixel or two.

    Which card it is the frame cannot say, but where it is, it can: a card whose edge closes
    no outline of its own — touching the next card, a coin on a corner, lying on another
    card — has its frame all the same. Without a learned frame (a print too small, a plain
    border) there is nothing to fit, and nothing is found."""
    if not snap.frames or len(whole[0]) < MIN_PAIRS:
        return []
    found: list[tuple[int, np.ndarray, np.ndarray]] = []
    photo = PhotoFeatures(*whole)
    pts = photo.pts
    for g in snap.frames:
        q, p, ham = photo.nearest(snap.descriptors[g])
        free = np.ones(len(pts), bool)
        for _ in range(FRAMES):
            keep = free[p]
            fit = _fit_nearest(snap, g, q[keep], p[keep], ham[keep], pts)
            H, mask = fit[:2] if fit is not None else (None, None)
            if H is None or not _plausible(H, gray.shape) or int(mask.sum()) < MIN_PAIRS:
                break
            found.append((int(mask.sum()), H, g))
            on_card = cv2.perspectiveTransform(pts[None].astype(np.float64), np.linalg.inv(H))[0]
            free &= ~((on_card[:, 0] >= 0) & (on_card[:, 0] <= locate.CARD_W)
                      & (on_card[:, 1] >= 0) & (on_card[:, 1] <= locate.CARD_H))
    found.sort(key=lambda t: -t[0])
    quads = []
    for inliers, H, g in found[:size]:
        again = _looked_again(snap, g, H, gray, inliers)  # the frame seen straight
        quads.append(locate.corners(H if again is None else again[0]))
    return quads


def coarse_shortlist(snap: Snapshot, views: list[np.ndarray], size: int = COARSE_SHORTLIST) -> list[Match]:
    """The cards whose thumbnail is most like one of ``views`` (``describe.coarse`` of the
    straightened outlines, each way up), best first."""
    if not views:
        return []
    top = np.argsort(-_likeness(snap, views).max(axis=1))[:size]
    return [Match(int(r), 0.0) for r in top]


def _likeness(snap: Snapshot, views: list[np.ndarray]) -> np.ndarray:
    """How like each card's thumbnail each of ``views`` is (cards × views: the correlation
    of each view and the card, each less the mean of the card's print)."""
    q = np.stack(views)[None] - snap.means[:, None]  # each view less each print's mean
    q -= q.mean(axis=2, keepdims=True)
    q /= np.maximum(np.linalg.norm(q, axis=2, keepdims=True), 1e-9)
    alike = (snap.coarse @ q.reshape(-1, q.shape[2]).T).reshape(len(snap.coarse), *q.shape[:2])
    return alike[np.arange(len(alike)), snap.group]  # each card against the views less its print's mean


def where_framed(snap: Snapshot, framed: list[tuple[np.ndarray, list[np.ndarray]]], gray: np.ndarray, size: int
                 ) -> list[Match]:
    """For each outline where a print's frame lies (``frames``; ``framed``: its homography
    ``H`` and its picture as it is and turned half round, ``describe.coarse``), the ``size``
    cards whose thumbnail is most like that picture, each fitted where the outline puts it:
    its own features paired near their places through ``H``, the way up its thumbnail
    agreed with (``_looked_again``; the cards shared by two threads). A ``Match`` with that
    homography and its inliers, or without one when it fits none (``align`` tries it then).

    Not aligned among all the photo's features first: in a wider look they are ~10,000, and
    the nearest of them to a card's feature is more often a chance partner; where the card
    lies is known already."""
    tries = []
    for H, views in framed:
        mine = _likeness(snap, views)
        tries += [(int(row), H if mine[row].argmax() == 0 else H @ locate.HALF_TURN)  # the way up it agreed with
                  for row in np.argsort(-mine.max(axis=1))[:size]]

    def fitted(row_way: tuple[int, np.ndarray]) -> Match:
        m = Match(row_way[0], 0.0)
        fit = _looked_again(snap, _own_features(snap, m.row), row_way[1], gray, 0)
        if fit is not None:
            m.H, m.inliers, m.spread = fit[0], len(fit[1]), _spread(fit[1])
        return m
    return gate.share(fitted, tries)


LSH = {"algorithm": 6, "table_number": 12, "key_size": 18, "multi_probe_level": 1}  # FLANN's LSH index
LSH_SEED = 20261125


class PhotoFeatures:
    """The photo's keypoints (working-size pixels) and descriptors in an LSH index, where
    the features of a card verified (``align``) or of a print's frame (``frames``) look up
    their nearest photo feature.

    An LSH index (FLANN: 12 hash tables of 18 bits, neighbouring buckets probed) rather
    than brute force: ~1.4 ms a card against the ~8,000 features of a wider look, where 6
    tables of 12 bits took ~2.4 ms (their fuller buckets are compared one by one); it finds
    98 % of the partners brute force finds within 40 bits (99 % with 6 × 12), and RANSAC
    needs only enough of them. (8 tables of 16 bits, as fast and quicker to build, found
    97 %: two cards fewer named on the calibration designs.)
    FLANN draws its hash tables from OpenCV's random generator, which goes on from
    whatever used it last: seeded here, the same photo gets the same tables and so the
    same answer every time, whatever was recognised before."""

    def __init__(self, pts: np.ndarray, desc: np.ndarray):
        self.pts, self.desc = pts, desc
        cv2.setRNGSeed(LSH_SEED)  # this thread's generator (OpenCV keeps one per thread)
        self._index = cv2.flann_Index(desc, LSH) if len(desc) >= MIN_PAIRS else None

    def __len__(self) -> int:
        return len(self.desc)

    def nearest(self, query: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For the ``query`` descriptors that found a partner within ``MAX_HAMMING`` bits:
        their rows, the partners' rows and the distances. FLANN's own index answers in arrays
        (−1 where a query found no candidate): the same partners ``FlannBasedMatcher`` finds
        through the same index, without a Python object per query (a fifth less time)."""
        rows, dist = self._index.knnSearch(query, 1, params={})
        p, ham = rows[:, 0].astype(np.int64), dist[:, 0].astype(np.float32)
        ok = (p >= 0) & (ham < MAX_HAMMING)
        return np.flatnonzero(ok), p[ok], ham[ok]


class PhotoPairs:
    """What a look knows of the photo for verification (``align``): its features in an LSH
    index (``searched``: their places ``pts``, working-size pixels, and descriptors
    ``desc``) and the partners the visual words found them among the enrolled features
    (``pairs``: all the look-ups of the look, ``correspondences``), filed by card.

    The word look-ups are a hashing of their own (12 tables of 16 bits or more, no
    neighbouring buckets): they miss more partners of each feature than the LSH index, but
    whether a card's features fit the photo at all they tell for ~0.5 ms a card (its pairs
    are at hand), where a search in the index costs ~2.4 ms of thread time. Most cards
    shortlisted fit none."""

    def __init__(self, snap: Snapshot, searched: PhotoFeatures, pairs: list[Pairs]):
        self.pts, self.desc, self._index = searched.pts, searched.desc, searched
        g = np.concatenate([part[0] for part in pairs])
        p = np.concatenate([part[2] for part in pairs])
        card = g // snap.per_card
        order = np.argsort(card.astype(np.min_scalar_type(len(snap.ids))), kind="stable")  # (a radix sort)
        self._g, self._p = g[order], p[order]
        self._ham = features.hamming(snap.descriptors, self._g, self.desc, self._p).astype(np.float32)
        self._starts = np.searchsorted(card[order], np.arange(len(snap.ids) + 1))

    def __len__(self) -> int:
        return len(self.desc)

    def by_word(self, snap: Snapshot, row: int, g: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For card ``row``'s features ``g`` (``_own_features``, in order): the positions in
        ``g`` of those whose words found a partner, each with its nearest such partner's row
        and the distance in bits (a pair found through several words counts once)."""
        at = slice(self._starts[row], self._starts[row + 1])
        mine, p, ham = self._g[at], self._p[at], self._ham[at]
        own = ~snap.common[mine]
        q = np.searchsorted(g, mine[own])
        closest = _closest_per(q, ham[own])
        return q[closest], p[own][closest], ham[own][closest]

    def nearest(self, query: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``PhotoFeatures.nearest`` among these features."""
        return self._index.nearest(query)


def align(snap: Snapshot, m: Match, photo: PhotoPairs, gray: np.ndarray, search: bool = False) -> Match:
    """Fill in ``m``'s first homography and inliers (``gray``: the photo at working size).

    Every feature of the card but the common ones finds its nearest photo feature
    (``PhotoPairs.nearest``), each photo feature used once, by its closest; MAGSAC++ fits
    the homography to the closest ``MAX_PAIRS`` pairs. (PROSAC, which tries the closest pairs
    first, settled for a model that explains one corner of the card, or a degenerate one
    whose outline is no card, where MAGSAC++ found the whole card: bench/vision.py, lattice
    design.) When MAGSAC++'s model has some weight but its outline is no card — a blurred
    card with few good pairs — PROSAC gives a second opinion. A card that comes with a
    homography already (``consistent_shortlist``) keeps it unless this one has more
    inliers. ``settle`` then checks it, after looking again through it when asked.

    A card is searched for so only when the pairs its visual words found fit a card as
    well (``PhotoPairs.by_word``), or with ``search`` (the votes rank it high: its pairs by
    word may be too few, a blurred card's features 40–55 bits off its reference's). Most
    cards shortlisted fit none either way, and are left unaligned for a fifth of the cost:
    on the outside sets (2,150 photos of three designs) the same answers, the p95 8–21 %
    lower (docs/benchmarks.md, 2026-12-03)."""
    g = _own_features(snap, m.row)
    if len(g) < MIN_PAIRS or len(photo) < MIN_PAIRS:
        return m
    if not search and _fitted(snap, g, photo.by_word(snap, m.row, g), photo.pts, gray) is None:
        return m
    fitted = _fitted(snap, g, photo.nearest(snap.descriptors[g]), photo.pts, gray)
    if fitted is None:
        return m
    H, inl, src = fitted
    if m.H is not None and m.inliers >= int(inl.sum()):
        return m  # its word pairs placed it better (``consistent_shortlist``)
    m.inliers, m.H, m.spread = int(inl.sum()), H, _spread(src[inl])
    return m


def _fitted(snap: Snapshot, g: np.ndarray, pairs: tuple[np.ndarray, np.ndarray, np.ndarray], pts: np.ndarray,
            gray: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``align``'s homography from the ``pairs`` of ``g`` and the photo features at ``pts``,
    its inlier mask and the pairs' places on the card; None when no plausible card fits."""
    fit = _fit_nearest(snap, g, *pairs, pts)
    if fit is None:
        return None
    H, mask, src, dst = fit
    if H is not None and not _plausible(H, gray.shape) and int(mask.sum()) >= MIN_PAIRS:
        # a model of some weight whose outline is no card: PROSAC's, from the closest pairs
        H, mask = cv2.findHomography(src, dst, cv2.USAC_PROSAC, RANSAC_PX, maxIters=RANSAC_ITERATIONS,
                                     confidence=0.995)
    if H is None or not _plausible(H, gray.shape):
        return None
    return H, mask.ravel().astype(bool), src


def _fit_nearest(snap: Snapshot, g: np.ndarray, q: np.ndarray, p: np.ndarray, ham: np.ndarray, pts: np.ndarray
                 ) -> tuple[np.ndarray | None, np.ndarray, np.ndarray, np.ndarray] | None:
    """``align``'s fit of the enrolled features ``g[q]`` to their nearest photo features
    ``p`` (``ham`` bits apart; places ``pts``): each photo feature by its closest, MAGSAC++ on
    the closest ``MAX_PAIRS`` pairs. The homography (None when none is found), its inlier
    mask and the pairs' places on the card and in the photo; None with fewer than
    ``MIN_PAIRS`` pairs."""
    if len(p) < MIN_PAIRS:
        return None
    closest = _closest_per(p, ham)                   # each photo feature one enrolled feature, its closest
    q, p, ham = q[closest], p[closest], ham[closest]
    if len(p) < MIN_PAIRS:
        return None
    order = np.argsort(ham, kind="stable")[:MAX_PAIRS]
    src, dst = snap.points[g[q[order]]], pts[p[order]]
    H, mask = cv2.findHomography(src, dst, cv2.USAC_MAGSAC, RANSAC_PX, maxIters=RANSAC_ITERATIONS, confidence=0.995)
    return H, mask, src, dst


def settle(snap: Snapshot, m: Match, gray: np.ndarray, look_again: bool) -> Match:
    """Finish checking an ``align``-ed ``m``: with ``look_again`` (and enough inliers) improve
    its homography by ``refine``; drop it unless its inliers span ``MIN_SPREAD`` of the card;
    then compare its pixels (``dense``)."""
    if m.H is None:
        return m
    if look_again and m.inliers >= MIN_PAIRS:
        refine(snap, m, gray)
    if m.spread < MIN_SPREAD:
        m.inliers, m.H = 0, None
        return m
    look_through(snap, m, gray)
    return m


def look_through(snap: Snapshot, m: Match, gray: np.ndarray) -> None:
    """The photo seen through ``m.H``, flattened (``m.seen``, and where it is not clipped
    white, ``m.shown``), and its pixels compared with ``m``'s reference (``m.dense``)."""
    straight = locate.rectify(gray, m.H)
    m.seen, m.shown = describe.unthumb(describe.thumb(straight)), describe.shown(straight)
    m.dense = compare(snap, m)


def refine(snap: Snapshot, m: Match, gray: np.ndarray) -> None:
    """Look again where ``m.H`` puts the card: the photo straightened through it at the
    reference's size is described anew, and each of the card's features is paired with the
    most alike feature found near its own place; a homography fitted to those pairs replaces
    ``m.H``, and its inliers ``m.inliers`` (``m.spread`` widened to theirs), when it
    explains more of the card.

    A first homography from a photo's features, matched among thousands, rests on few pairs
    when the card is small, blurred or under glare, and is off where it has none; seen
    straight and at its own scale the card shows many more of its features, each where it
    should be. A card that lined up by chance (a motif it shares with the photographed one)
    finds few of its other features in their places, so the check also sharpens. Otherwise
    ``m`` is left as it was."""
    again = _looked_again(snap, _own_features(snap, m.row), m.H, gray, m.inliers)
    if again is not None:
        m.H, m.inliers = again[0], len(again[1])
        m.spread = max(m.spread, _spread(again[1]))


def _looked_again(snap: Snapshot, g: np.ndarray, H: np.ndarray, gray: np.ndarray, inliers: int
                  ) -> tuple[np.ndarray, np.ndarray] | None:
    """``refine``'s look: the enrolled features ``g`` paired with the photo straightened
    through ``H``, each with its most alike feature near its place, and fitted; the new
    homography and the places of its inliers on the card, or None unless more than
    ``inliers`` fit it and the card through it is plausible."""
    straight = locate.rectify(gray, H)
    p, d = features.photo(straight, REFINE_FEATURES)
    if len(p) < MIN_PAIRS or len(g) < MIN_PAIRS:
        return None
    ref = snap.points[g]
    i, j, ham = _pairs_near(snap, g, p, d, REFINE_RADIUS)
    if len(i) < max(MIN_PAIRS, inliers):
        return None
    closest = _closest_per(i, ham)                   # each reference feature its most alike near feature
    i, j = i[closest], j[closest]
    if len(i) < max(MIN_PAIRS, inliers):
        return None
    D, mask = cv2.findHomography(ref[i], p[j], cv2.USAC_MAGSAC, REFINE_PX, maxIters=RANSAC_ITERATIONS,
                                 confidence=0.995)
    if D is None or int(mask.sum()) <= inliers:
        return None
    if not _plausible(H @ D, gray.shape):
        return None
    return H @ D, ref[i[mask.ravel().astype(bool)]]


def refit(snap: Snapshot, m: Match, gray: np.ndarray) -> Match | None:
    """``m`` fitted again from where ``m.H`` puts it, for a homography off by more than
    ``refine`` reaches: a new ``Match`` (then refined), or None when no fit is found.

    ``align`` fits the pairs it found among all the photo's features, and when they crowd
    in one part of the card (the title, a corner of the art; the rest blurred or flat) the
    homography is right there and off by a fifth of the card elsewhere: the pixels compared
    through it do not agree, the card may seem to run out of the picture, and ``refine``,
    which pairs features within ``REFINE_RADIUS``, finds none of the rest in place. Here the
    photo is straightened through ``m.H`` with ``REFIT_MARGIN`` around it and described anew,
    and each feature of the card is paired with its most alike one within ``REFIT_RADIUS``
    (each photo feature used once): a search over a neighbourhood of the card, not the
    photo, where its own features outnumber the chance partners of a card it is not."""
    straight = locate.rectify(gray, m.H, margin=REFIT_MARGIN)
    p, d = features.photo(straight, REFINE_FEATURES)
    g = _own_features(snap, m.row)
    if len(p) < MIN_PAIRS or len(g) < MIN_PAIRS:
        return None
    p = p - REFIT_MARGIN                             # card coordinates of ``m.H``
    ref = snap.points[g]
    i, j, ham = _pairs_near(snap, g, p, d, REFIT_RADIUS)
    closest = _closest_per(i, ham)                   # each reference feature its most alike photo feature ...
    i, j, ham = i[closest], j[closest], ham[closest]
    closest = _closest_per(j, ham)                   # ... and each photo feature one reference feature
    i, j = i[closest], j[closest]
    if len(i) < MIN_PAIRS:
        return None
    D, mask = cv2.findHomography(ref[i], p[j], cv2.USAC_MAGSAC, REFIT_PX, maxIters=RANSAC_ITERATIONS,
                                 confidence=0.995)
    if D is None or not _plausible(m.H @ D, gray.shape):
        return None
    inl = mask.ravel().astype(bool)
    fitted = Match(m.row, m.votes, inliers=int(inl.sum()), H=m.H @ D, spread=_spread(ref[i[inl]]))
    refine(snap, fitted, gray)
    return fitted


def _pairs_near(snap: Snapshot, g: np.ndarray, p: np.ndarray, d: np.ndarray, radius: float
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs of an enrolled feature (``g[i]``) and a photo feature (``p[j]``, ``d[j]``: card
    coordinates and descriptors) within ``radius`` of each other on the card and
    ``MAX_HAMMING`` bits: ``i``, ``j`` and their distances in bits."""
    ref = snap.points[g]
    dx, dy = ref[:, 0, None] - p[None, :, 0], ref[:, 1, None] - p[None, :, 1]
    i, j = np.nonzero(dx * dx + dy * dy < radius ** 2)
    ham = features.hamming(snap.descriptors, g[i], d, j)
    ok = ham < MAX_HAMMING
    return i[ok], j[ok], ham[ok]


def _own_features(snap: Snapshot, row: int) -> np.ndarray:
    """The numbers of card ``row``'s features, those its print has in common left out."""
    g = row * snap.per_card + np.arange(int(snap.arrays["count"][row]))
    return g[~snap.common[g]]


def _closest_per(key: np.ndarray, ham: np.ndarray) -> np.ndarray:
    """The positions of the closest pair (least ``ham``) of each value of ``key``, by key."""
    order = np.lexsort((ham, key))
    ranked = key[order]
    return order[np.r_[True, ranked[1:] != ranked[:-1]]] if len(order) else order


def _spread(points: np.ndarray) -> float:
    """The share of the card's area that ``points`` (card coordinates) span."""
    if len(points) < 3:
        return 0.0
    return cv2.contourArea(cv2.convexHull(points.astype(np.float32))) / (locate.CARD_W * locate.CARD_H)


def compare(snap: Snapshot, m: Match, mean: np.ndarray | None = None, where: np.ndarray | None = None) -> float:
    """The correlation of the photo seen through ``m.H`` and ``m``'s reference, ``mean`` (by
    default the mean picture of the card's print) taken out of both, where the photo is not
    clipped white (``m.shown``) — and, given ``where`` (THUMB cells, flat), only there."""
    if mean is None:
        mean = snap.thumb_means[snap.group[m.row]]
    seen, ref = (m.seen - mean).ravel(), (describe.unthumb(snap.arrays["thumb"][m.row]) - mean).ravel()
    cells = m.shown if where is None else where if m.shown is None else where & m.shown
    if cells is not None:
        seen, ref = seen[cells], ref[cells]
    return float(describe.zn(seen) @ describe.zn(ref))


def art(snap: Snapshot, m: Match) -> float | None:
    """How well the photo seen through ``m.H`` and ``m``'s reference agree in their lines
    and shapes (each thumbnail less itself softened by ``ART_SOFT`` px: what is left is the
    outline of the art's objects, letters, edges; not a plain background or a large shaded
    patch) where the cards of ``m``'s print differ most from one another (the ``ART_SHARE``
    of the thumbnail's pixels with the widest spread among them, ``index``'s
    ``thumb_spreads``: not the frame they share) and the photo is not clipped white
    (normalised correlation, −1 … 1).

    A card that is not enrolled but shares a layout, a background patch, a motif at the
    same place or title words with an enrolled card lines up with it (19–53 inliers on the
    outside night and cartoon sets' fourth samples) and its pixels agree with it a little
    (``dense`` 0.17–0.33; 0.47–0.49 where the print's cards differ, for the patch that
    cards of its layout share at one place); its lines there do not: 0.29–0.45 for those
    seven, where of the 6,300 photos of enrolled cards on seven outside samples all but two
    that were named agree by 0.49 and more (a hard, blurred cartoon photo, 0.37; a dark,
    noisy night photo, 0.37, whose pixels agree by 0.66 overall: ``recognize.ART_DENSE``),
    and on the calibration designs by 0.72 and more. None with fewer cards enrolled than a
    print's mean needs (no spread), or when ``m`` was not aligned."""
    spreads = snap.thumb_spreads
    if spreads is None or m.seen is None:
        return None
    spread = spreads[snap.group[m.row]].ravel()
    if not spread.any():
        return None
    cells = spread >= np.quantile(spread, 1 - ART_SHARE)
    if m.shown is not None:
        cells = cells & m.shown
    seen = m.seen.reshape(describe.THUMB[::-1]).astype(np.float32)
    ref = describe.unthumb(snap.arrays["thumb"][m.row]).reshape(seen.shape)
    lines = [(f - cv2.GaussianBlur(f, (0, 0), ART_SOFT)).ravel()[cells] for f in (seen, ref)]
    return float(describe.zn(lines[0]) @ describe.zn(lines[1]))


def _plausible(H: np.ndarray, shape: tuple[int, int]) -> bool:
    """Whether the card's outline through ``H`` could be a card lying in the photo."""
    corners = locate.corners(H)
    if not cv2.isContourConvex(corners):
        return False
    area = cv2.contourArea(corners)
    h, w = shape[:2]
    if area < 0.01 * h * w or area > 4 * h * w:
        return False
    return locate.skew(corners) < 2.5  # no side shorter than 0.4 times the one opposite


def tell_apart(snap: Snapshot, a: Match, b: Match, gray: np.ndarray) -> float:
    """How much better ``a`` than ``b`` explains the photo where their references differ
    (difference of correlations, −2 … 2; 0 when the references do not differ at all).

    The region is the bounding box of the pixels that differ (a title, a number), ``b``'s
    reference first laid onto ``a``'s (``differ.region``). Each card is compared there
    through its own homography and through the other's, the better of the two counting,
    allowing a shift of ``differ.SHIFT`` pixels either way for what the homography is off.
    (Through its own only, a twin whose homography was the poorer — fewer inliers, a shadow
    over its half — lost where the photo showed its title.)"""
    ra, rb = snap.reference(snap.ids[a.row]), snap.reference(snap.ids[b.row])
    if ra is None or rb is None:
        return 0.0
    fa = differ.soft(ra)
    W, fb, box = differ.region(fa, differ.soft(rb))
    if box is None:
        return 0.0
    seen = [differ.seen(gray, H, box) for H in (a.H, b.H @ W)]

    def fit(ref: np.ndarray) -> float:
        return max(differ.found(s, differ.crop(ref, box)) for s in seen)
    return fit(fa) - fit(fb)
