"""Where cards with the same art differ — the title, a number — and whether a photo agrees
with a card there.

Two enrolled cards with the same art (twins) are told apart where their references differ
(``match.tell_apart``, with ``region``). That place also tells an enrolled card from a card
that is *not* enrolled but has its art — the other twin, a reprint under another name: its
features and its picture agree with the enrolled card nearly everywhere, and the scanner
named it for the enrolled card (89 photos in 90: ``bench/vision.py --twin-strangers``). Where the
twins of a print differ is learned from those enrolled when the index is written
(``learn``): the box around what differs, the median over a few pairs, and a few other
cards of the print as they look there (its titles in general: the band, the font). A named
card must agree with the photo there clearly better than those others do (``lead``): its
own title, not just any title of its game. A print with no twins enrolled has no such box,
and nothing is checked.
"""
from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from . import describe, locate

TWINS = 0.6                      # thumbnails correlating this well show the same art (``recognize.LOOKALIKE``)
DIFFER = 0.10                    # flattened references differing by this much differ there
SHIFT = 3                        # px (of a CARD_W-wide card) the aligned photo may be off
EDGE = 4                         # px at the reference's edge not compared (the two cuts differ there)
CORNER = 14                      # px square at each corner not compared (a rounded corner: the table)
ONTO_STEPS = 40                  # ECC iterations laying one reference onto another at half size (``onto``),
ONTO_FINE_STEPS = 8              # ... then at full size ...
ONTO_PX = 12                     # ... which may move a corner this far (card px); references further apart
                                 # are not two straightenings of one picture
LEARN_CARDS = 1500               # twins are looked for among this many cards of a print at most ...
LEARN_PAIRS = 8                  # ... and where they differ learned from this many pairs, the most alike
OTHERS = 12                      # cards of the print whose look at that place is kept, to compare with,
MIN_OTHERS = 4                   # ... and with fewer than this many (besides the twins) nothing is checked
FLAT = 0.02                      # a card this plain there (std of its softened look) shows nothing to compare
PAD = 28                         # px around a place that its softening depends on (3 σ of flatten's blur)
SOFT = 1.5                       # px (σ) a picture is softened by where two cards are compared ...
SHARP = 0.6                      # ... and where a photo's card must agree with its title (``lead``)
AROUND = 12                      # px around that place, where the print's cards look alike (``ring``), ...
AROUND_SAME = 0.9                # ... (this share of them within DIFFER of their median there) ...
AROUND_PX = 150                  # ... when that is at least this many px (else nothing is said there) ...
AROUND_SEEN = 0.6                # ... where a photo that shows it agrees with the card this well (``hidden``)
AROUND_SHIFT = 10                # ... within this many px (card px) of where the card's homography puts it
AROUND_TURNS = (-3.0, -1.5, 0.0, 1.5, 3.0)  # ... turned by one of these many degrees
_UPRIGHT = np.eye(3)                                        # a reference as it is ...
_TURNED = locate.HALF_TURN  # ... turned half round
Box = tuple[int, int, int, int]  # x, y, w, h on the card (CARD_W × CARD_H)


def soft(gray: np.ndarray) -> np.ndarray:
    """The card's ink without its light, softened (what is compared where cards differ)."""
    return cv2.GaussianBlur(describe.flatten(gray), (0, 0), SOFT)


def region(fa: np.ndarray, fb: np.ndarray) -> tuple[np.ndarray, np.ndarray, Box | None]:
    """Where the references ``fa`` and ``fb`` (``soft``) differ: the homography ``W``
    laying ``fb`` onto ``fa`` (``onto``: two references straightened from photos are a few
    pixels apart, and unaligned they would differ everywhere, not just where the title is),
    ``fb`` laid so, and the bounding box of the pixels that differ then — a title, a number
    —, or None when they do not differ. Left out: the ``EDGE`` pixels along either reference's cut,
    the rounded corners (``CORNER``: the table shows there in a photo) and the thin lines a
    fraction of a pixel of misalignment leaves along sharp edges. The band left out along
    the cuts widens by as far as ``W`` moves a corner: two references cut from photos
    disagree about where the card ends by that much, one showing the table or the card's
    border where the other shows the card (a band as thick as the title itself)."""
    W = onto(fa, fb)
    size = (fb.shape[1], fb.shape[0])
    fb = cv2.warpPerspective(fb, W, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                             borderMode=cv2.BORDER_REPLICATE)
    edge = EDGE + int(round(_moved(W)))
    inside = np.zeros(fa.shape, np.uint8)            # where both references show the card, not their cut's edge
    inside[edge:-edge, edge:-edge] = 1
    for ys in (slice(0, CORNER), slice(-CORNER, None)):   # nor a rounded corner, where the table shows
        for xs in (slice(0, CORNER), slice(-CORNER, None)):
            inside[ys, xs] = 0
    inside &= cv2.warpPerspective(inside, W, size, flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP)
    differ = (np.abs(fa - fb) > DIFFER).astype(np.uint8) & inside
    differ = cv2.morphologyEx(differ, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))  # thin lines along strong edges:
    differ = cv2.dilate(differ, np.ones((5, 5), np.uint8))                      # what the alignment left over
    if differ.sum() < 40:
        return W, fb, None
    x, y, w, h = cv2.boundingRect(differ)
    return W, fb, (x, y, w, h)


def seen(gray: np.ndarray, H: np.ndarray, box: Box, sigma: float = SOFT, shift: int = SHIFT) -> np.ndarray:
    """The photo straightened through ``H`` (a card's homography), ``soft``, in ``box`` and
    ``shift`` pixels around it (the homography may be that far off): what ``found`` looks in."""
    return soft_around(locate.rectify(gray, H, margin=shift), box, shift, sigma)


def soft_around(f: np.ndarray, box: Box, margin: int = 0, sigma: float = SOFT) -> np.ndarray:
    """``soft`` of the card picture ``f`` (with ``margin`` px more on every side) in ``box``
    and ``margin`` around it, worked out on a window only ``PAD`` px wider (what softening
    there depends on; a fifth of the time of the whole card, the same to 1 %)."""
    x, y, w, h = box
    x0, y0 = max(0, x - PAD), max(0, y - PAD)
    x1, y1 = min(f.shape[1], x + w + 2 * margin + PAD), min(f.shape[0], y + h + 2 * margin + PAD)
    window = cv2.GaussianBlur(describe.flatten(f[y0:y1, x0:x1], card_width=f.shape[1]), (0, 0), sigma)
    return window[y - y0:y - y0 + h + 2 * margin, x - x0:x - x0 + w + 2 * margin]


def crop(f: np.ndarray, box: Box) -> np.ndarray:
    x, y, w, h = box
    return f[y:y + h, x:x + w]


def found(there: np.ndarray, look: np.ndarray) -> float:
    """How well ``look`` (a card ``soft`` in a box) is found in ``there`` (``seen`` in that
    box), ``SHIFT`` pixels either way (normalised correlation, −1 … 1)."""
    return float(cv2.matchTemplate(there, look, cv2.TM_CCOEFF_NORMED).max())


def _moved(W: np.ndarray, starts: tuple[np.ndarray, ...] = (_UPRIGHT, _TURNED)) -> float:
    """How far (card px) the homography ``W`` from ``onto`` moves a corner of the card, from
    the nearest of ``starts`` (as it is, turned half round); NaN when ``W`` is not finite."""
    corners = cv2.perspectiveTransform(locate.CANON[None], W)[0]
    return min(float(np.abs(corners - cv2.perspectiveTransform(locate.CANON[None], start)[0]).max())
               for start in starts)


def onto(fa: np.ndarray, fb: np.ndarray) -> np.ndarray:
    """The homography taking ``fa``'s card coordinates to where ``fb`` (another reference,
    flattened) shows the same: OpenCV's ECC alignment, started from the two references as
    they are and from ``fb`` turned half round (a card taught from a photo may have been
    straightened upside down), the better fit kept. The identity when neither converges
    within ``ONTO_PX`` a corner of its start — those references are not two prints of one
    picture, and are compared as they are."""
    half = np.diag([0.5, 0.5, 1.0])                  # first at half size: 4 times faster
    small = [cv2.resize(f, (f.shape[1] // 2, f.shape[0] // 2), interpolation=cv2.INTER_AREA) for f in (fa, fb)]
    best, fit = np.eye(3), -1.0
    for start in _UPRIGHT, _TURNED:
        try:
            r, W = cv2.findTransformECC(*small, (half @ start @ np.linalg.inv(half)).astype(np.float32),
                                        cv2.MOTION_HOMOGRAPHY,
                                        (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, ONTO_STEPS, 1e-4), None, 1)
        except cv2.error:
            continue
        W = np.linalg.inv(half) @ W.astype(np.float64) @ half
        if _moved(W, (start,)) <= ONTO_PX and r > fit:  # (False when NaN)
            best, fit = W, r
    if fit < 0:
        return best
    try:                                             # and the last fraction of a pixel at full size
        _, W = cv2.findTransformECC(fa, fb, best.astype(np.float32), cv2.MOTION_HOMOGRAPHY,
                                    (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, ONTO_FINE_STEPS, 1e-4), None, 1)
    except cv2.error:
        return best
    return W.astype(np.float64) if np.all(np.isfinite(W)) else best


def learn(coarse: np.ndarray, group: np.ndarray, reference: Callable[[int], np.ndarray | None]) -> dict:
    """For each print (``group``), where its twins differ and how other cards look there,
    for ``lead``: ``differ_box`` (prints × 4: x, y, w, h; w = 0 when the print has no
    twins enrolled, or fewer than ``MIN_OTHERS`` other cards not ``FLAT`` there — a plain
    picture "matches" anything), ``differ_rows`` (prints × ``OTHERS``: those cards, −1
    where there are fewer) and ``differ_looks`` (them in the box, softened as ``lead``
    compares them, ``SHARP``, padded to the largest box) and ``differ_ring`` (prints ×
    ``wide(box)``'s size, padded: where around the box the print's cards look alike, ``ring``).

    Twins are the pairs of a print's cards (the first ``LEARN_CARDS``) whose thumbnails
    (``coarse``: unit rows, their print's mean taken out) correlate at ``TWINS``; the box is
    the median of the ``LEARN_PAIRS`` most alike pairs' boxes (``region``), so that a pair
    whose references differ more widely (one taught from a blurred photo) does not stretch
    it. ``reference(row)``: the stored reference image of a card."""
    prints = int(group.max()) + 1 if len(group) else 0
    boxes = np.zeros((prints, 4), np.int32)
    rows = np.full((prints, OTHERS), -1, np.int64)
    soft_refs: dict[int, np.ndarray | None] = {}
    looks: dict[int, list[np.ndarray]] = {}
    rings: dict[int, np.ndarray] = {}

    def softened(row: int) -> np.ndarray | None:
        if row not in soft_refs:
            gray = reference(row)
            soft_refs[row] = None if gray is None else soft(gray)
        return soft_refs[row]

    for g in range(prints):
        members = np.flatnonzero(group == g)[:LEARN_CARDS]
        alike = coarse[members] @ coarse[members].T
        i, j = np.nonzero(np.triu(alike >= TWINS, k=1))
        pair_boxes = []
        for k in np.argsort(-alike[i, j], kind="stable")[:LEARN_PAIRS]:
            fa, fb = softened(int(members[i[k]])), softened(int(members[j[k]]))
            if fa is not None and fb is not None:
                box = region(fa, fb)[2]
                if box is not None:
                    pair_boxes.append(box)
        if not pair_boxes:
            continue
        box = tuple(int(v) for v in np.median(np.array(pair_boxes), axis=0))
        twins = set(members[i].tolist()) | set(members[j].tolist())
        others = [int(r) for r in members if int(r) not in twins]
        picked: list[tuple[int, np.ndarray]] = []
        spread = np.linspace(0, len(others) - 1, min(OTHERS, len(others))).astype(int).tolist()
        for k in dict.fromkeys(spread + list(range(len(others)))):  # spread over the print, then any
            f = reference(others[k])         # each with its picture there, unless it is plain there
            look = None if f is None else soft_around(f, box, sigma=SHARP)
            if look is not None and float(look.std()) >= FLAT:
                picked.append((others[k], look))
            if len(picked) == OTHERS:
                break
        if len(picked) >= MIN_OTHERS:
            boxes[g] = box
            rows[g, :len(picked)] = [row for row, _ in picked]
            looks[g] = [look for _, look in picked]
            rings[g] = ring([reference(row) for row in [*(row for row, _ in picked), *sorted(twins)]], box)
    h, w = int(boxes[:, 3].max(initial=0)), int(boxes[:, 2].max(initial=0))
    padded = np.zeros((prints, OTHERS, h, w), np.float16)
    for g, kept in looks.items():
        for k, look in enumerate(kept):
            padded[g, k, :look.shape[0], :look.shape[1]] = look
    rh, rw = (max((r.shape[k] for r in rings.values()), default=0) for k in (0, 1))
    ring_masks = np.zeros((prints, rh, rw), np.uint8)
    for g, mask in rings.items():
        ring_masks[g, :mask.shape[0], :mask.shape[1]] = mask
    return {"differ_box": boxes, "differ_rows": rows, "differ_looks": padded, "differ_ring": ring_masks}


def lead(gray: np.ndarray, H: np.ndarray, ref: np.ndarray, box: Box, others: list[np.ndarray]) -> float | None:
    """How much better the card whose stored reference is ``ref`` agrees with the photo seen
    through ``H`` in ``box`` than ``others`` (other cards of its print there) do on
    average, both softened by only ``SHARP`` so that the letters count, not only where the
    words lie (a short title is a blob like any other short title): 0.18–0.73 for the card
    itself on the bench's photos, below 0.16 for 87 in 90 cards with its art and another
    title. None when the card is plain there (a constant picture "matches" anything)."""
    mine = soft_around(ref, box, sigma=SHARP)
    if not others or float(mine.std()) < FLAT:
        return None                  # plain there (another game's card in a mixed print): nothing to say
    there = seen(gray, H, box, SHARP)
    return found(there, mine) - float(np.mean([found(there, look) for look in others]))


def wide(box: Box) -> Box:
    """``box`` and the ``AROUND`` px around it, as far as the card goes."""
    x, y, w, h = box
    x0, y0 = max(0, x - AROUND), max(0, y - AROUND)
    return x0, y0, min(locate.CARD_W, x + w + AROUND) - x0, min(locate.CARD_H, y + h + AROUND) - y0


def ring(refs: list[np.ndarray | None], box: Box) -> np.ndarray:
    """Where in ``wide(box)``, outside ``box``, the print's cards (``refs``: their stored
    references) look alike: ``AROUND_SAME`` of them within ``DIFFER`` of their median
    there (1, else 0; ``uint8``). Not the whole ring: a title longer than most runs on past
    the box, where another card shows paper, and one card's letters there would make
    another title look covered. Nor the card's cut and rounded corners (``EDGE``,
    ``CORNER``), where a photo shows the table."""
    x0, y0, w, h = around_box = wide(box)
    looks = np.stack([soft_around(f, around_box, sigma=SHARP) for f in refs if f is not None])
    same = (np.abs(looks - np.median(looks, axis=0)) <= DIFFER).mean(axis=0) >= AROUND_SAME
    ys, xs = np.mgrid[y0:y0 + h, x0:x0 + w]
    bx, by, bw, bh = box
    inside = (xs >= bx) & (xs < bx + bw) & (ys >= by) & (ys < by + bh)
    cut = (xs < EDGE) | (ys < EDGE) | (xs >= locate.CARD_W - EDGE) | (ys >= locate.CARD_H - EDGE)
    corner = ((xs < CORNER) | (xs >= locate.CARD_W - CORNER)) & ((ys < CORNER) | (ys >= locate.CARD_H - CORNER))
    return (same & ~inside & ~cut & ~corner).astype(np.uint8)


def hidden(gray: np.ndarray, H: np.ndarray, ref: np.ndarray, box: Box, mask: np.ndarray | None) -> bool:
    """Whether something lies over ``box`` of the card seen through ``H`` in the photo —
    another card, a sheet of paper, a hand: the photo agrees with the card's reference
    ``ref`` less than ``AROUND_SEEN`` around the box where every card of the print looks
    alike (``mask``, from ``ring``: the title's band, its frame, the edge of the art), so
    that a card with another title agrees there as well as the card itself (``around``):
    0.66 and more on the bench's photos of such cards, uncovered, but one whose card was
    aligned 8 px off there (0.36: ``recognize`` reads the text there), 0.52 and more on the
    cards' own photos, and 0.69 at most on the covered photos the place held back. Under
    cover, the place tells the card from its twins no more than a blank would. False when
    there is too little of such a ring, or it is plain (nothing to tell by)."""
    fit = around(gray, H, ref, box, mask)
    return fit is not None and fit < AROUND_SEEN


def around(gray: np.ndarray, H: np.ndarray, ref: np.ndarray, box: Box, mask: np.ndarray | None) -> float | None:
    """How well the photo seen through ``H`` agrees with the card's reference ``ref``
    around ``box`` where ``mask`` (``ring``) says the print's cards look alike (normalised
    correlation, −1 … 1, the best of it moved ``AROUND_SHIFT`` px and turned
    ``AROUND_TURNS``); None without a mask, with fewer than ``AROUND_PX`` pixels in it,
    or when the card is plain there."""
    if mask is None or int(mask.sum()) < AROUND_PX:
        return None
    around_box = wide(box)
    mine = soft_around(ref, around_box, sigma=SHARP)
    if float(mine[mask > 0].std()) < FLAT:
        return None
    ring_px = mask.astype(np.float32)
    there = seen(gray, H, around_box, SHARP, AROUND_SHIFT)
    size = (mine.shape[1], mine.shape[0])
    best = -1.0
    for turn in AROUND_TURNS:  # the photo's card may be that far off here, even where its title is plain to see
        M = cv2.getRotationMatrix2D((size[0] / 2, size[1] / 2), turn, 1.0)
        fit = cv2.matchTemplate(there, cv2.warpAffine(mine, M, size, borderMode=cv2.BORDER_REPLICATE),
                                cv2.TM_CCOEFF_NORMED, mask=cv2.warpAffine(ring_px, M, size))
        fit = fit[np.isfinite(fit)]  # (a shift where the photo is flat there divides by zero)
        best = max(best, float(fit.max()) if fit.size else -1.0)
    return best
