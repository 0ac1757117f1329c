"""Turning an image of a card into a reference: from a scan or image file, or from a phone photo.

A *scan* (or any image that is just the card face) is resized to the canonical size as it
is, turned upright if it is landscape. A *photo* shows the card on a table: the largest
card-shaped outline (``locate``; the best of the photo's straight lines when no closed one
is the card) whose every side parts the card from something else and runs along an edge
(a checked cloth draws outlines of its own), its sides fitted to the card's edges
(``sides``), is straightened to the canonical size, long side down. No frame or layout is
assumed; which way up the card was photographed does not matter to recognition (its
features are the same turned), and the index stores each new reference the way up its
deck is (``vision.deck``). Beside a deck, a photo's reference that looks much less like
the deck's cards than they do like each other is cut again from another of the photo's
outlines at the same place (``agreeing``). ``auto`` decides by looking for an outline that
leaves a real border of table around the card — and takes an image of a card's
proportions, or one whose outline is a frame printed square and centred on the card (a
lattice border, an inner line), for the face it is; in a camera's picture (3 : 4 or
9 : 16) an outline along the picture's own edges, which a table's texture can draw, is not
taken for the card, and a camera's picture is a photo whatever its outlines. A photo so
found is cut out as ``photo`` cuts it (before, ``auto`` took its first closed outline as
it was); only when no card is found in it is it taken for the face (a card face scanned
at a camera's proportions has none; refusing it would fail a whole enrolment). Before all
that, ``auto`` looks for one card lying alone on a plain ground (``_on_a_page``): a card
scanned on a flatbed lies on an A4 page, which has nearly a card's proportions.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from . import deck, describe, gate, image, locate, sides
from .index import Index

KINDS = ("auto", "scan", "photo")
EXTENSIONS = {".jpg", ".jpeg", ".png", ".webp"}
PHOTO_SHARE = 0.8                # an outline covering less of the image than this is a card on a table ...
FACE_ASPECT = 0.03               # ... unless the image has a card's proportions to within this share ...
FACE_SQUARE = 0.015              # ... or the outline is this close to square and centred (a printed frame)
FRAME_MARGIN = 0.1               # an outline this near three of the image's sides ...
FRAME_SHARE = 0.5                # ... and covering this share of it is printed on its card (``_printed_frame``)
FRAME_SQUARE = 0.9               # ... when it fills this share of its bounding box (square to the image)
FRAME_EDGE = 0.01                # ... and keeps this far from every side (one along them is the table's)
PLAIN, PLAIN_NOISE = (5, 12), 5  # grey levels from the image's median (this many times its noise, within those):
                                 # the plain ground of a page (``_on_a_page``) ...
PAGE_CARD = (0.02, 0.35)         # ... on which one patch covering this share of the image ...
PAGE_FILL = 0.9                  # ... and filling this share of its smallest rectangle, of a card's proportions ...
PAGE_FIT = 0.003                 # its sides fitted to its edges when none moves further than this share of the image's side
PAGE_STRAY = 0.03                # ... lies, with at most this share of the ground not plain, is a card on a page
CAMERA_ASPECTS = (3 / 4, 9 / 16)  # a camera's picture (either way round): its own edge is not a card's ...
EDGE_CORNER = 0.03               # ... an outline with every corner this close to one of the image's
CARD_SLACK = 0.2                 # an outline's proportions must be a card's to this share (``card_shaped``)
GROW = 1.3                       # a straight-line outline this many times larger, holding the one found ...
GROW_SUPPORT = 0.6               # ... with this share of every side on an edge, is the card instead
GROW_FROM = 8                    # (of the best this many)
MISSHAPEN = 0.08                 # a fitted outline this share off a card's proportions (on the table) has a
                                 # side on a line printed inside the card: it is moved out (``_lengthened``)
DISTINCT = 12.0                  # colour levels (B, G, R) between the strips either side of a card's side ...
DISTINCT_BAND = (0.01, 0.04)     # ... this share of the outline's size inside and outside it
SAME_OUTLINE = 0.02              # outlines whose corners are this share of the photo's side apart are one
ALTERNATIVES = 6                 # outlines of a photo straightened when its first is unlike its deck ...
SAME_PLACE = 0.5                 # ... that cover this share of the first, or it of them (``agreeing``)
DOUBT = 0.8                      # a reference less like its deck than this share of the usual is looked at again
SWITCH = 0.1                     # ... and another outline taken when this much more like the deck
DECK_MIN = 12                    # with fewer cards enrolled there is no deck to compare with
DECK_SAMPLE = 300                # cards whose likeness to the deck tells what is usual


class EnrollError(ValueError):
    """This image cannot become a reference (no card in it, unreadable...)."""


def reference(data: bytes, index: Index, kind: str = "auto") -> np.ndarray:
    """The rectified grey CARD_H × CARD_W reference for one image.

    Raises ``EnrollError``, or ``gate.Busy`` when this process is busy with other images.
    """
    if kind not in KINDS:
        raise EnrollError(f"kind must be one of {', '.join(KINDS)}")
    return gate.run(_reference, data, kind)


def _reference(data: bytes, kind: str) -> np.ndarray:
    try:
        bgr = image.load(data, max_side=1600)
    except image.ImageError as exc:
        raise EnrollError(str(exc)) from None
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    lying = _on_a_page(gray) if kind == "auto" else None
    if lying is not None:
        return _cut_from_page(bgr, gray, lying)
    if kind != "scan":
        outlines = _outlines(bgr, gray, kind)
        if _is_photo(gray, outlines, kind):
            try:
                return _photographed(bgr, gray, outlines)
            except EnrollError:
                if kind == "photo":
                    raise                  # auto: a picture with no card outline is the face itself
    return describe.canonical(gray)


def _is_photo(gray: np.ndarray, outlines: list[np.ndarray], kind: str) -> bool:
    """Whether an image is to be cut out as a photo of a card on a table (and not taken for
    the card face): always for ``photo``; for ``auto``, unless its first outline is a border
    printed on the card (``_printed_frame``: a face drawn at 2 : 3, 3 : 4 or 4 : 5), when it
    has a camera's proportions (a card's are not), or its first outline leaves table around
    it and is no frame printed on a card face (``_card_face``)."""
    if kind != "auto":
        return kind == "photo"
    if outlines and _printed_frame(gray.shape, outlines[0]):
        return False
    if _camera(gray.shape):
        return True
    h, w = gray.shape
    return bool(outlines) and cv2.contourArea(outlines[0]) / (h * w) < PHOTO_SHARE \
        and not _card_face(gray.shape, outlines[0])


def _on_a_page(gray: np.ndarray) -> np.ndarray | None:
    """The outline of a card lying alone on a plain ground — a flatbed scan of a card on an
    A4 page, whose proportions (1 : 1.41) are nearly a card's (1 : 1.40), so that it was
    taken for a card face: the whole page became the reference — or None. The ground is
    what lies near the image's median (``PLAIN_NOISE`` times the noise there, within
    ``PLAIN`` grey levels: a card's white border on white paper is not seen); what does not, closed
    over a hundredth of the image's side, must be one patch covering ``PAGE_CARD`` of the
    image that fills ``PAGE_FILL`` of its smallest rectangle (rounded corners allowed; a
    card seen askance is a photo's business) of a card's proportions, and nearly nothing
    else (``PAGE_STRAY``). It may touch the image's edges: a card pushed into the scanner's
    corner closes no outline of its own. Images of a camera's proportions are photos."""
    h, w = gray.shape
    if _camera(gray.shape):
        return None
    smooth = cv2.medianBlur(gray, 3)                      # the scanner's noise and dust, not the card's edge
    off = np.abs(smooth.astype(np.int16) - int(np.median(smooth)))
    inked = (off > np.clip(PLAIN_NOISE * 1.4826 * float(np.median(off)), *PLAIN)).astype(np.uint8)
    k = max(3, round(0.01 * max(h, w)))
    inked = cv2.morphologyEx(inked, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    contours, _ = cv2.findContours(inked, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    patch = max(contours, key=cv2.contourArea)
    area = cv2.contourArea(patch)
    if not PAGE_CARD[0] * h * w <= area < PAGE_CARD[1] * h * w:
        return None
    inside = np.zeros_like(inked)
    cv2.drawContours(inside, [patch], -1, 1, thickness=cv2.FILLED)
    if np.count_nonzero(inked & (1 - inside)) > PAGE_STRAY * (h * w - area):
        return None                                       # more than one thing on the page
    centre, (rw, rh), angle = cv2.minAreaRect(patch)
    if area < PAGE_FILL * rw * rh or abs(min(rw, rh) / max(rw, rh) - locate.ASPECT) > CARD_SLACK * locate.ASPECT:
        return None
    return cv2.boxPoints((centre, (rw + 1, rh + 1), angle)).astype(np.float32)  # (to the outer pixels' edges)


def _cut_from_page(bgr: np.ndarray, gray: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The card ``_on_a_page`` found at ``quad``: its sides fitted to its edges when none moves
    further than ``PAGE_FIT`` of the image's side, straightened at the scan's own size and
    brought down to the reference's as a scan is (``describe.canonical``)."""
    fitted, _ = sides.Photo(bgr).fit(quad)
    if np.abs(fitted - quad).max() <= PAGE_FIT * max(gray.shape):
        quad = fitted
    edges = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    size = (round(edges.min()), round(edges.max()))
    return describe.canonical(locate.rectify(gray, locate.card_homography(quad, gray.shape), size=size))


def _camera(shape: tuple[int, int]) -> bool:
    """Whether an image has a camera's proportions (3 : 4 or 9 : 16, either way round)."""
    h, w = shape
    return any(abs(min(h, w) / max(h, w) - a) <= 0.01 for a in CAMERA_ASPECTS)


def _photographed(bgr: np.ndarray, gray: np.ndarray, outlines: list[np.ndarray]) -> np.ndarray:
    """The card in a photo: the first outline ``_choices`` offers, straightened."""
    photo = sides.Photo(bgr)
    first = next(_choices(bgr, gray, outlines, photo), None)
    if first is None:
        raise EnrollError("No card found in the photo: lay the card on a plain surface that contrasts with its "
                          "edge and photograph it from above, or teach the scanner a scan of the card face.")
    return _straightened(bgr, gray, *first, photo)


def _choices(bgr: np.ndarray, gray: np.ndarray, outlines: list[np.ndarray],
             photo: sides.Photo) -> Iterator[tuple[np.ndarray, list[np.ndarray]]]:
    """The outlines that may be the card in a photo, best first, each with the straight-line
    outlines it may grow to (``_straightened``): closed outlines whose every side parts two
    different regions (``_distinct``) and runs along an edge (``sides.Photo.fit`` finds one
    near it), then such outlines of straight lines; then those that only part two regions,
    and only after them the other outlines of either kind. A checked cloth or a wood's grain
    closes card-shaped outlines of its own, larger than the card, whose sides run between
    stretches of the same cloth; one around the card and a piece of the cloth with it may
    part two regions, but most of its sides follow no edge. An outline within
    ``SAME_OUTLINE`` of one offered already is not offered again."""
    lines = _straight(bgr, gray.shape)
    parting = [q for q in lines if _distinct(bgr, q)]
    closed = [q for q in outlines if _distinct(bgr, q)]
    near, offered = SAME_OUTLINE * max(gray.shape), []

    def edged(quads):  # lazily: an outline is fitted only when those before it failed
        return (q for q in quads if photo.fit(q)[1].min() > 0)
    for found, grow in ((edged(closed), parting), (edged(parting), parting), (closed, parting), (parting, parting),
                        (outlines, lines), (lines, lines)):
        for quad in found:
            if not any(np.abs(quad - q).max() < near for q in offered):
                offered.append(quad)
                yield quad, grow


def alternatives(data: bytes, kind: str = "photo") -> list[np.ndarray]:
    """The references a photo may give, that of kind ``photo`` first: each of the first
    ``ALTERNATIVES`` outlines ``_choices`` offers that lies where the first does (covering
    ``SAME_PLACE`` of it, or it of them: not another card beside it), straightened. Empty
    when the image is not a photo of a card on a table (a scan; ``auto``: a card face).
    Raises ``gate.Busy`` as ``reference`` does."""
    return [] if kind == "scan" else gate.run(_alternatives, data, kind)


def _alternatives(data: bytes, kind: str) -> list[np.ndarray]:
    try:
        bgr = image.load(data, max_side=1600)
    except image.ImageError:
        return []
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    if kind == "auto" and _on_a_page(gray) is not None:
        return []                                         # cut by the page's plain ground, exactly
    outlines = _outlines(bgr, gray, kind)
    if not _is_photo(gray, outlines, kind):
        return []
    photo = sides.Photo(bgr)
    found = []
    for quad, grow in _choices(bgr, gray, outlines, photo):
        if found and not _same_place(found[0][0], quad):
            continue
        found.append((quad, grow))
        if len(found) == ALTERNATIVES:
            break
    return [_straightened(bgr, gray, quad, grow, photo) for quad, grow in found]


def _same_place(first: np.ndarray, quad: np.ndarray) -> bool:
    """Whether ``quad`` and ``first`` overlap by ``SAME_PLACE`` of the smaller of the two."""
    a, b = (cv2.convexHull(q.astype(np.float32)) for q in (first, quad))
    inter, _ = cv2.intersectConvexConvex(a, b)
    return inter >= SAME_PLACE * min(cv2.contourArea(a), cv2.contourArea(b))


def agreeing(refs: dict[str, np.ndarray], photos: dict[str, bytes], stored: np.ndarray | None = None,
             kind: str = "photo") -> dict[str, np.ndarray]:
    """``refs`` (new references by card id, of ``kind``), each straightened from its image
    in ``photos`` again to another of its outlines (``alternatives``) where that is much
    more like its deck: the ``stored`` cards' thumbnails (``describe.coarse``), if any, and
    the other new ones (``deck.likeness``). A reference less like its deck than ``DOUBT`` of
    what is usual among the deck's cards is looked at again, and another outline at the
    same place is taken when it is ``SWITCH`` more like the deck (the first such, in
    ``_choices``' order, within ``SWITCH`` of the best): cut to a wrong outline (a piece of
    the table with the card, its picture's frame), a reference is named for photos of other
    cards of its design. With fewer than ``DECK_MIN`` cards there is no deck to compare with."""
    ids = list(refs)
    if not ids:
        return refs
    new = np.stack([describe.coarse(refs[card_id]) for card_id in ids])
    every = np.concatenate([new, stored.astype(np.float32)]) if stored is not None and len(stored) else new
    if len(every) < DECK_MIN:
        return refs
    like = deck.likeness(new, every, own=np.arange(len(ids)))
    sample = np.unique(np.linspace(0, len(every) - 1, min(len(every), DECK_SAMPLE)).astype(np.int64))
    usual = float(np.median(deck.likeness(every[sample], every, own=sample)))
    out = dict(refs)
    for i, card_id in enumerate(ids):
        if card_id not in photos or like[i] >= DOUBT * usual:
            continue
        others = np.delete(every, i, axis=0)
        choices = alternatives(photos[card_id], kind)
        if not choices:
            continue
        alike = deck.likeness(np.stack([describe.coarse(c) for c in choices]), others)
        better = np.nonzero((alike >= like[i] + SWITCH) & (alike >= alike.max() - SWITCH))[0]
        if len(better):
            out[card_id] = choices[better[0]]
    return out


def _outlines(bgr: np.ndarray, gray: np.ndarray, kind: str) -> list[np.ndarray]:
    """The photo's card-shaped closed outlines (``locate.candidates``), best first; for a
    photo, or an image of a camera's proportions, not one along the image's own edges (the
    table's texture all round draws that)."""
    return [q for q in locate.candidates(bgr) if locate.card_shaped(q, gray.shape, CARD_SLACK)
            and not ((kind == "photo" or _camera(gray.shape)) and _whole_image(gray.shape, q))]


def _distinct(bgr: np.ndarray, quad: np.ndarray) -> bool:
    """Whether every side of ``quad`` parts two different regions: the mean colours of the
    strips just inside and just outside it (``DISTINCT_BAND`` of the outline's size, along
    the middle 80 % of the side) lie ``DISTINCT`` apart. A card differs from the table on
    each side; two stretches of the same cloth do not, however sharp the line between its
    checks."""
    q = np.asarray(quad, np.float64)
    h, w = bgr.shape[:2]
    size = np.sqrt(cv2.contourArea(q.astype(np.float32)))
    along = np.linspace(0.1, 0.9, 24)[:, None]
    depth = np.linspace(*DISTINCT_BAND, 4)[:, None, None] * size
    for p, r in zip(q, np.roll(q, -1, axis=0)):
        normal = np.array([r[1] - p[1], p[0] - r[0]]) / max(np.linalg.norm(r - p), 1e-9)
        if np.dot(normal, (p + r) / 2 - q.mean(axis=0)) < 0:
            normal = -normal                                      # outward
        means = []
        for sign in (1, -1):
            pts = (p + along * (r - p))[None] + sign * depth * normal
            x = np.clip(np.round(pts[..., 0]).astype(np.int32), 0, w - 1)
            y = np.clip(np.round(pts[..., 1]).astype(np.int32), 0, h - 1)
            means.append(bgr[y, x].reshape(-1, 3).astype(np.float64).mean(axis=0))
        if np.linalg.norm(means[0] - means[1]) < DISTINCT:
            return False
    return True


def _straight(bgr: np.ndarray, shape: tuple[int, int]) -> list[np.ndarray]:
    """Card-shaped outlines drawn by the photo's straight lines (``locate.straight``), best first."""
    return [q for q in locate.straight(bgr) if locate.card_shaped(q, shape, CARD_SLACK) and not _whole_image(shape, q)]


def _straightened(bgr: np.ndarray, gray: np.ndarray, quad: np.ndarray, lines: list | None = None,
                  photo: sides.Photo | None = None) -> np.ndarray:
    """The card whose outline ``quad`` is, straightened, its sides first fitted to its edges
    (``sides.Photo.fit``, on ``photo`` when it is smoothed already: a printed frame or a
    quantised line gives way to the card's edge). When an outline drawn by the photo's
    straight lines (``lines``, else ``_straight``) holds this one and is ``GROW`` times its
    size, each of its sides fitted to an edge along most of its length (``GROW_SUPPORT``:
    where it crosses another card its edge may not show), that is the card: a closed
    outline can be a part of it (a poster's art above its title band, one half of a card
    printed in two). Otherwise, when the outline fitted is no card's shape (``MISSHAPEN``),
    one of its sides stopped at a line printed inside the card (a lattice border's inner
    edge, a column of medallions) and is moved out to the card's edge (``_lengthened``)."""
    photo = photo or sides.Photo(bgr)
    found, _ = photo.fit(quad)
    card, area = found, GROW * cv2.contourArea(found)
    for outline in (lines if lines is not None else _straight(bgr, gray.shape))[:GROW_FROM]:
        fitted, support = photo.fit(outline)
        if (cv2.contourArea(fitted) >= area and support.min() >= GROW_SUPPORT
                and locate.card_shaped(fitted, gray.shape, CARD_SLACK) and _holds(fitted, found, max(gray.shape))):
            card, area = fitted, cv2.contourArea(fitted)     # the largest of those
    if card is found and _off_shape(found, gray.shape) > MISSHAPEN:
        longer = _lengthened(bgr, found, photo)
        card = found if longer is None else longer
    return locate.rectify(gray, locate.card_homography(card, gray.shape))


def _lengthened(bgr: np.ndarray, quad: np.ndarray, photo: sides.Photo) -> np.ndarray | None:
    """The fitted outline ``quad``, which has no card's proportions, with one side moved out
    until it has, and fitted again: if it is too square, one of its short sides stopped short
    of the card's end, if too thin one of its long sides. Of the two sides either may be, the
    one whose new place runs along an edge most; the outline it gives must have every side on
    an edge, a card's proportions to ``MISSHAPEN`` and every side parting two regions
    (``_distinct``: a side moved onto the table's grain does not). None when neither does."""
    q = np.asarray(quad, np.float64)
    lengths = np.linalg.norm(np.roll(q, -1, axis=0) - q, axis=1)
    even, odd = (lengths[0] + lengths[2]) / 2, (lengths[1] + lengths[3]) / 2   # sides 0 and 2; 1 and 3
    short, long = min(even, odd), max(even, odd)
    if short / long > locate.ASPECT:      # too square: the long sides lengthen, a short side moves
        stretch, moved = short / locate.ASPECT / long, (1, 3) if even > odd else (0, 2)
    else:                                 # too thin: the short sides lengthen, a long side moves
        stretch, moved = long * locate.ASPECT / short, (1, 3) if even < odd else (0, 2)
    best, best_support = None, 0.0
    for k in moved:                       # side k runs from corner k to corner k + 1
        out = q.copy()
        out[k] = q[k - 1] + stretch * (q[k] - q[k - 1])
        out[(k + 1) % 4] = q[(k + 2) % 4] + stretch * (q[(k + 1) % 4] - q[(k + 2) % 4])
        fitted, support = photo.fit(out.astype(np.float32))
        if (support.min() > 0 and support[k] > best_support and _off_shape(fitted, bgr.shape[:2]) <= MISSHAPEN
                and _distinct(bgr, fitted)):
            best, best_support = fitted, support[k]
    return best


def _off_shape(quad: np.ndarray, shape: tuple[int, int]) -> float:
    """How far the outline's proportions on the table (``locate.proportions``) are from a
    card's, as a share of them."""
    return abs(locate.proportions(quad, shape)[1] - locate.ASPECT) / locate.ASPECT


def _holds(outer: np.ndarray, inner: np.ndarray, side: int) -> bool:
    """Whether every corner of ``inner`` lies inside ``outer`` (or within 1 % of the photo's side)."""
    contour = outer.reshape(-1, 1, 2).astype(np.float32)
    return all(cv2.pointPolygonTest(contour, (float(x), float(y)), True) > -0.01 * side for x, y in inner)


def _whole_image(shape: tuple[int, int], quad: np.ndarray) -> bool:
    """Whether the outline ``quad`` is the image's own edge: each corner within
    ``EDGE_CORNER`` of the image's longer side from one of its corners."""
    h, w = shape
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    near = EDGE_CORNER * max(h, w)
    return all(np.linalg.norm(corners - q, axis=1).min() <= near for q in quad)


def _printed_frame(shape: tuple[int, int], quad: np.ndarray) -> bool:
    """Whether the outline ``quad`` is a border printed on a card face, whatever the face's
    proportions (the image is the card): square to the image's sides (``FRAME_SQUARE``:
    rounded corners allowed), inside it and clear of its edges (``FRAME_EDGE``: the
    table's texture or a vignette draws outlines along them), standing as it does (both
    upright or both across), covering at least ``FRAME_SHARE`` of it and within
    ``FRAME_MARGIN`` of three or four of its sides (under a title band, or all round). A
    card photographed on a table lies so only when it fills the picture (then the face and
    the cut-out are nearly the same picture) or is pushed against three sides of it: laid
    upright in the middle of an upright camera's picture it leaves table on two sides at
    least, as its proportions are not the camera's, and in a picture taken across it
    stands otherwise than the picture."""
    h, w = shape
    (x0, y0), (x1, y1) = quad.min(axis=0), quad.max(axis=0)
    area = cv2.contourArea(quad.astype(np.float32))
    margins = (x0 / w, (w - x1) / w, y0 / h, (h - y1) / h)
    if (x1 - x0 > y1 - y0) != (w > h) or area < FRAME_SHARE * h * w or min(margins) < FRAME_EDGE:
        return False
    square = area >= FRAME_SQUARE * (x1 - x0) * (y1 - y0)  # (a card turned 3° on a table is not)
    return square and sum(m <= FRAME_MARGIN for m in margins) >= 3


def _card_face(shape: tuple[int, int], quad: np.ndarray) -> bool:
    """Whether an image with the outline ``quad`` well inside it is a card face all the same
    (``auto``): the image itself has a card's proportions, or the outline is square to the
    image's sides and centred in it — a frame printed on the card (a border, an inner
    line), not a card lying on a table, which no photo shows so exactly."""
    h, w = shape
    if abs(min(h, w) / max(h, w) - locate.ASPECT) <= FACE_ASPECT * locate.ASPECT:
        return True
    (x0, y0), (x1, y1) = quad.min(axis=0), quad.max(axis=0)
    square = cv2.contourArea(quad) >= (1 - FACE_SQUARE) * (x1 - x0) * (y1 - y0)
    return bool(square and abs(x0 - (w - x1)) <= FACE_SQUARE * w and abs(y0 - (h - y1)) <= FACE_SQUARE * h)


def folder(path: str | os.PathLike) -> list[Path]:
    """The image files in ``path``, by name; not hidden ones (``._net-troll.jpg``: the
    resource forks a Mac leaves beside each file it copies to a USB stick, ``.DS_Store``)."""
    return [p for p in sorted(Path(path).iterdir())
            if p.is_file() and p.suffix.lower() in EXTENSIONS and not p.name.startswith(".")]
