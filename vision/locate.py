"""Finding the card in a photo and rectifying it to a flat, upright, fixed-size image.

The card is a convex quadrilateral (a rectangle seen in perspective). Candidates come from
the closed outlines in an edge map; each outline's convex hull is reduced to four sides by
keeping its four longest edges and intersecting them, which restores a corner hidden under a
finger. Which candidate is the card, which way up, and whether the outline is the card's edge
or its printed frame line is decided by comparing each rectified candidate with the game's
shared frame (the mean of the enrolled cards, see ``describe.frame_template``).
"""
from __future__ import annotations

import cv2
import numpy as np

CARD_W, CARD_H = 200, 280          # canonical size of a rectified card (63 × 88 mm, portrait)
ASPECT = 63 / 88
FIND_SIDE = 512                    # the edge map is built at this size
INSETS = (1.0, 0.94)               # the outline found may be a frame line printed inside the edge
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


def candidates(bgr: np.ndarray, min_share: float = 0.04) -> list[np.ndarray]:
    """Plausible card outlines in ``bgr`` (corner arrays in its pixel coordinates), largest first."""
    h, w = bgr.shape[:2]
    scale = min(1.0, FIND_SIDE / max(h, w))
    small = cv2.resize(bgr, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    gray = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (3, 3), 0)
    area = gray.shape[0] * gray.shape[1]
    found: list[tuple[float, np.ndarray]] = []
    for c in _outlines(gray):
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
        found.append((cv2.contourArea(quad), quad))
    found.sort(key=lambda t: -t[0])
    return [q / scale for _, q in found[:24]]


def homography(quad: np.ndarray, turn: int = 0, inset: float = 1.0) -> np.ndarray:
    """Canonical card coordinates → image coordinates, for ``quad`` turned ``turn`` quarter turns.

    ``inset`` < 1 says the quad is a frame line covering that share of the card's width and
    height, so the card itself extends beyond it.
    """
    q = np.roll(quad, -turn, axis=0).astype(np.float32)
    dx, dy = CARD_W * (1 - inset) / 2, CARD_H * (1 - inset) / 2
    inner = np.array([[dx, dy], [CARD_W - dx, dy], [CARD_W - dx, CARD_H - dy], [dx, CARD_H - dy]], np.float32)
    return cv2.getPerspectiveTransform(inner, q)


def rectify(image: np.ndarray, H: np.ndarray, size: tuple[int, int] = (CARD_W, CARD_H), margin: int = 0) -> np.ndarray:
    """The card seen through ``H`` at ``size`` (w, h), with ``margin`` extra pixels on every side."""
    w, h = size
    S = np.array([[CARD_W / w, 0, 0], [0, CARD_H / h, 0], [0, 0, 1]], np.float64)
    T = np.array([[1, 0, -margin], [0, 1, -margin], [0, 0, 1]], np.float64)
    M = H @ S @ T
    return cv2.warpPerspective(image, M, (w + 2 * margin, h + 2 * margin),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
