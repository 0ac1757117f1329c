"""Turning an image of a card into a reference: from a scan or image file, or from a phone photo.

A *scan* (or any image that is just the card face) is resized to the canonical size as it
is, turned upright if it is landscape. A *photo* shows the card on a table: the largest
card-shaped outline (``locate``; the best of the photo's straight lines when no closed one
is the card) whose every side parts the card from something else and runs along an edge
(a checked cloth draws outlines of its own), its sides fitted to the card's edges
(``sides``), is straightened to the canonical size, long side down. No frame or layout is
assumed; which way up the card was photographed does not matter to
recognition (its features are the same turned), so a reference enrolled upside down is
recognised all the same. ``auto`` decides by looking for an outline that leaves a real
border of table around the card — and takes an image of a card's proportions, or one whose
outline is a frame printed square and centred on the card (a lattice border, an inner
line), for the face it is; in a camera's picture (3 : 4 or 9 : 16) an outline along the
picture's own edges, which a table's texture can draw, is not taken for the card.
"""
from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np

from . import describe, gate, image, locate, sides
from .index import Index

KINDS = ("auto", "scan", "photo")
EXTENSIONS = {".jpg", ".jpeg", ".png", ".webp"}
PHOTO_SHARE = 0.8                # an outline covering less of the image than this is a card on a table ...
FACE_ASPECT = 0.03               # ... unless the image has a card's proportions to within this share ...
FACE_SQUARE = 0.015              # ... or the outline is this close to square and centred (a printed frame)
CAMERA_ASPECTS = (3 / 4, 9 / 16)  # a camera's picture (either way round): its own edge is not a card's ...
EDGE_CORNER = 0.03               # ... an outline with every corner this close to one of the image's
CARD_SLACK = 0.2                 # an outline's proportions must be a card's to this share (``card_shaped``)
GROW = 1.3                       # a straight-line outline this many times larger, holding the one found ...
GROW_SUPPORT = 0.6               # ... with this share of every side on an edge, is the card instead
GROW_FROM = 8                    # (of the best this many)
DISTINCT = 12.0                  # colour levels (B, G, R) between the strips either side of a card's side ...
DISTINCT_BAND = (0.01, 0.04)     # ... this share of the outline's size inside and outside it


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
    if kind != "scan":
        h, w = gray.shape
        camera = any(abs(min(h, w) / max(h, w) - a) <= 0.01 for a in CAMERA_ASPECTS)
        # a photo outlined by its own edges (the table's texture all round) is no card
        outlines = [q for q in locate.candidates(bgr) if locate.card_shaped(q, CARD_SLACK)
                    and not ((kind == "photo" or camera) and _whole_image(gray.shape, q))]
        if kind == "photo":
            return _photographed(bgr, gray, outlines)
        first = outlines[0] if outlines else None
        if first is not None and cv2.contourArea(first) / (h * w) < PHOTO_SHARE and not _card_face(gray.shape, first):
            return _straightened(bgr, gray, first)
    return describe.canonical(gray)


def _photographed(bgr: np.ndarray, gray: np.ndarray, outlines: list[np.ndarray]) -> np.ndarray:
    """The card in a photo: the first closed outline whose every side parts two different
    regions (``_distinct``) and runs along an edge (``sides.Photo.fit`` finds one near it), else
    the first such outline of straight lines; failing that, the first outline that only
    parts two regions, and only when none does, the first outline of either kind. A checked
    cloth or a wood's grain closes card-shaped outlines of its own, larger than the card,
    whose sides run between stretches of the same cloth; one around the card and a piece of
    the cloth with it may part two regions, but most of its sides follow no edge."""
    lines = _straight(bgr, gray.shape)
    parting = [q for q in lines if _distinct(bgr, q)]
    closed = [q for q in outlines if _distinct(bgr, q)]
    photo = sides.Photo(bgr)

    def edged(quads):  # lazily: an outline is fitted only when those before it failed
        return (q for q in quads if photo.fit(q)[1].min() > 0)
    for found, grow in ((edged(closed), parting), (edged(parting), parting), (closed, parting), (parting, parting),
                        (outlines, lines), (lines, lines)):
        first = next(iter(found), None)
        if first is not None:
            return _straightened(bgr, gray, first, grow, photo)
    raise EnrollError("No card found in the photo.")


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
    return [q for q in locate.straight(bgr) if locate.card_shaped(q, CARD_SLACK) and not _whole_image(shape, q)]


def _straightened(bgr: np.ndarray, gray: np.ndarray, quad: np.ndarray, lines: list | None = None,
                  photo: sides.Photo | None = None) -> np.ndarray:
    """The card whose outline ``quad`` is, straightened, its sides first fitted to its edges
    (``sides.Photo.fit``, on ``photo`` when it is smoothed already: a printed frame or a
    quantised line gives way to the card's edge). When an outline drawn by the photo's
    straight lines (``lines``, else ``_straight``) holds this one and is ``GROW`` times its size, each of its sides fitted to an edge along most of
    its length (``GROW_SUPPORT``: where it crosses another card its edge may not show),
    that is the card: a closed outline can be a part of it (a poster's art above its title
    band, one half of a card printed in two)."""
    photo = photo or sides.Photo(bgr)
    found, _ = photo.fit(quad)
    card, area = found, GROW * cv2.contourArea(found)
    for outline in (lines if lines is not None else _straight(bgr, gray.shape))[:GROW_FROM]:
        fitted, support = photo.fit(outline)
        if (cv2.contourArea(fitted) >= area and support.min() >= GROW_SUPPORT
                and locate.card_shaped(fitted, CARD_SLACK) and _holds(fitted, found, max(gray.shape))):
            card, area = fitted, cv2.contourArea(fitted)     # the largest of those
    return locate.rectify(gray, locate.homography(card, locate.portrait_turn(card)))


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


def folder(path: str | os.PathLike) -> dict[str, Path]:
    """Image files in ``path`` by card id (the file name without its extension)."""
    files = {}
    for p in sorted(Path(path).iterdir()):
        if p.is_file() and p.suffix.lower() in EXTENSIONS:
            files[p.stem] = p
    return files
