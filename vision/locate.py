"""Finding card-shaped outlines in a photo and rectifying them to a flat, upright, fixed-size image.

A card is a convex quadrilateral (a rectangle seen in perspective). Candidates come from
the closed outlines in an edge map and from thin dark lines — or, when the recogniser is
not sure of what those hold (``candidates(lines=True)``), from the photo's long straight
edges alone, which draw the outline of a card whose edge runs into a checked cloth's, a
shadow's or the next card's. Each outline's convex hull is
reduced to four sides by keeping its four longest edges and intersecting them, which
restores a corner hidden under a finger. Nothing here knows how a card is printed: which
outline is the card, and which way up, is decided by the local features that match an
enrolled card (``vision.match``). The outlines serve to describe the card at a steady scale
(``recognize``), to read its title, to enrol a card from a photo, and to tell "no card" from
"a card I do not know".
"""
from __future__ import annotations

import cv2
import numpy as np

CARD_W, CARD_H = 240, 336          # canonical size of a rectified card (63 × 88 mm, portrait)
ASPECT = 63 / 88
FIND_SIDE = 512                    # the edge map is built at this size
MIN_SUPPORT = 0.35                 # each side of an outline must run along an edge for this share
LONG_LINE = 0.08                   # a straight edge this share of the photo's longer side is long ...
LINE_REACH = 0.1                   # ... and is drawn this share of its length longer at each end
CANON = np.array([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]], np.float32)


def _line(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    return np.cross(np.append(p, 1.0), np.append(q, 1.0))


def _quad_from_hull(hull: np.ndarray) -> np.ndarray | None:
    """Four corners (clockwise on screen) of the quadrilateral that best explains a hull."""
    peri = cv2.arcLength(hull, True)
    poly = cv2.approxPolyDP(hull, 0.012 * peri, True).reshape(-1, 2).astype(np.float64)
    if len(poly) < 4:
        return None
    if len(poly) > 4:  # keep the four longest sides, in hull order, and intersect neighbours
        sides = [(np.linalg.norm(poly[(i + 1) % len(poly)] - poly[i]), i) for i in range(len(poly))]
        keep = sorted(i for _, i in sorted(sides, reverse=True)[:4])
        lines = [_line(poly[i], poly[(i + 1) % len(poly)]) for i in keep]
        corners = []
        for a, b in zip(lines, lines[1:] + lines[:1]):
            x = np.cross(a, b)
            if abs(x[2]) < 1e-9:
                return None
            corners.append(x[:2] / x[2])
        poly = np.array(corners)
    quad = poly.astype(np.float32)
    if not cv2.isContourConvex(quad):
        return None
    if cv2.contourArea(quad) > 1.35 * cv2.contourArea(hull.astype(np.float32)):
        return None  # the intersections ran far outside the outline: not a rectangle's sides
    x = quad[:, 0]
    y = quad[:, 1]
    if np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y) < 0:
        quad = quad[::-1]
    return np.ascontiguousarray(quad)


def _outlines(gray: np.ndarray):
    """Closed outlines from two sources: edges (the card against the table) and thin dark
    lines (a frame printed on the card, which stays closed when the card touches others)."""
    for lo, hi in ((30, 90), (60, 160)):
        edges = cv2.dilate(cv2.Canny(gray, lo, hi), np.ones((3, 3), np.uint8))
        yield from cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)[0]
    dark = cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7)))
    _, lines = cv2.threshold(dark, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    yield from cv2.findContours(lines, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]


def _line_outlines(gray: np.ndarray):
    """Closed outlines drawn from the photo's long straight edges alone (OpenCV's line segment
    detector). A card whose edge joins the edges of a checked cloth, or of the cards it
    touches, has no closed outline in the edge map; but its sides are long straight lines,
    which the cloth's and the clutter's short edges are not. Each is drawn a little longer
    at both ends, so that sides broken off short of a corner (a coin, a finger) still meet."""
    segments = cv2.createLineSegmentDetector().detect(gray)[0]
    canvas = np.zeros_like(gray)
    for x1, y1, x2, y2 in (segments.reshape(-1, 4) if segments is not None else ()):
        length = np.hypot(x2 - x1, y2 - y1)
        if length < LONG_LINE * max(gray.shape):
            continue
        reach = LINE_REACH * np.array([x2 - x1, y2 - y1])
        cv2.line(canvas, tuple(int(v) for v in np.round([x1, y1] - reach)),
                 tuple(int(v) for v in np.round([x2, y2] + reach)), 255, 2)
    return cv2.findContours(canvas, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)[0]


def candidates(bgr: np.ndarray, min_share: float = 0.04, lines: bool = False) -> list[np.ndarray]:
    """Plausible card outlines in ``bgr`` (corner arrays in its pixel coordinates), best first:
    by area, weighed by how well their sides follow edges of the photo (``_support``). With
    ``lines``, the outlines drawn by its long straight edges (``_line_outlines``) instead of
    the closed ones of its edge map: slower (~20 ms), for the recogniser's wider look."""
    h, w = bgr.shape[:2]
    scale = min(1.0, FIND_SIDE / max(h, w))
    small = cv2.resize(bgr, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    gray = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (3, 3), 0)
    area = gray.shape[0] * gray.shape[1]
    edges = cv2.dilate(cv2.Canny(gray, 30, 90), np.ones((5, 5), np.uint8))
    found: list[tuple[float, np.ndarray]] = []
    for c in (_line_outlines(gray) if lines else _outlines(gray)):
        hull = cv2.convexHull(c)
        a = cv2.contourArea(hull)
        if not min_share * area <= a <= 0.98 * area:
            continue
        quad = _quad_from_hull(hull)
        if quad is None:
            continue
        sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
        ratio = min(sides[0] + sides[2], sides[1] + sides[3]) / max(sides[0] + sides[2], sides[1] + sides[3])
        if ratio < 0.4 or sides.min() < 12:
            continue
        if any(np.abs(quad - q).max() < 4 for _, q in found):
            continue
        support = _support(edges, quad)
        if support.min() < MIN_SUPPORT:
            continue
        found.append((cv2.contourArea(quad) * float(support.mean()) ** 2, quad))
    found.sort(key=lambda t: -t[0])
    return [q / scale for _, q in found[:24]]


def _support(edges: np.ndarray, quad: np.ndarray, samples: int = 48) -> np.ndarray:
    """For each side of ``quad``, the share of its length that runs along an edge of the photo.

    A card's sides are straight edges all along (but where a finger covers them); the hull
    of a heap of clutter has sides that cut across the table."""
    h, w = edges.shape
    t = np.linspace(0.05, 0.95, samples)[:, None]
    out = np.empty(4)
    for i in range(4):
        pts = quad[i] * (1 - t) + quad[(i + 1) % 4] * t
        x = np.clip(pts[:, 0].round().astype(int), 0, w - 1)
        y = np.clip(pts[:, 1].round().astype(int), 0, h - 1)
        out[i] = np.mean(edges[y, x] > 0)
    return out


def homography(quad: np.ndarray, turn: int = 0) -> np.ndarray:
    """Canonical card coordinates → image coordinates, for ``quad`` turned ``turn`` quarter turns."""
    return cv2.getPerspectiveTransform(CANON, np.roll(quad, -turn, axis=0).astype(np.float32))


def portrait_turn(quad: np.ndarray) -> int:
    """The quarter turn (0 or 1) that puts the outline's shorter sides at top and bottom."""
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    return 0 if sides[0] + sides[2] <= sides[1] + sides[3] else 1


def card_shaped(quad: np.ndarray, slack: float = 0.25) -> bool:
    """Whether the outline's sides are in about a card's proportion (63 : 88)."""
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    across, along = sorted((sides[0] + sides[2], sides[1] + sides[3]))
    return abs(across / along - ASPECT) <= slack * ASPECT


def rectify(image: np.ndarray, H: np.ndarray, size: tuple[int, int] = (CARD_W, CARD_H), margin: int = 0) -> np.ndarray:
    """The card seen through ``H`` at ``size`` (w, h), with ``margin`` extra pixels on every side."""
    w, h = size
    S = np.array([[CARD_W / w, 0, 0], [0, CARD_H / h, 0], [0, 0, 1]], np.float64)
    T = np.array([[1, 0, -margin], [0, 1, -margin], [0, 0, 1]], np.float64)
    M = H @ S @ T
    return cv2.warpPerspective(image, M, (w + 2 * margin, h + 2 * margin),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
