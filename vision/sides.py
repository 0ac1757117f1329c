"""Making a card's outline exact: each side moved onto the card's own edge, at full resolution.

An outline found at ``locate.FIND_SIDE`` pixels is a few pixels off at best, and often not
the card's edge at all but a frame printed on it (a lattice border, a thin inner line) or a
straight line quantised to a degree. For recognising a photo that does not matter; for
*enrolling* from a photo it does: the reference is the picture every later photo is
compared with, and twins or a print's shared frame are only told apart when references
line up to a pixel or two.

So each side is looked at across its whole length: along ``SAMPLES`` short cuts across it,
from ``REACH_IN`` of the card's width inside to ``REACH_OUT`` outside, the places where the
grey changes sharply (either way: a lattice border meets a table darker in one place and
lighter in the next) are collected, and the straight lines along which most cuts have one
(``SUPPORT``), at any small angle to the side, are fitted by least squares (and kept when
``FITTED`` of the cuts still have their edge on the fitted line). Which of a
side's lines is the card's edge is decided for all four sides together (``_margin``): the
card's edge lies the same distance outside a printed frame on every side, while a table's
edge or the next card runs along one side only.

This is done twice: on the grey, and on the colour (at each place the sharpest change of
blue, green or red). Grey places an edge most exactly (the camera's JPEG keeps colour at
half resolution); colour sees an edge grey cannot, between two regions as light as each
other — a dark brown border on a green felt. So a side takes the grey's line unless the
colour's lies ``FURTHER`` out: there the grey stopped at a frame printed inside the edge.
"""
from __future__ import annotations

import cv2
import numpy as np

SAMPLES = 64                     # cuts across each side, spread over its middle 80 %
REACH_IN = 0.03                  # a side is looked for this share of the card's width inside ...
REACH_OUT = 0.10                 # ... and this share outside (a printed border is ~5-7 % of it)
BLUR = 1.2                       # px: the photo is smoothed this much first (JPEG noise, the table's grain)
STEP = 7.0                       # grey levels a pixel: a change this sharp across a cut is an edge
SUPPORT = 0.5                    # a line is an edge when this share of the cuts have one on it ...
NEAR = 2                         # ... within this many pixels, and once fitted ...
FITTED = 0.4                     # ... this share within 1.5 px of it
TURN = 0.035                     # a line may run off the side by this share of its length (2°) ...
TURNS = 29                       # ... tried in this many steps
SAME_MARGIN = 0.01               # sides whose lines lie this share of the card's width apart agree ...
AGREE = 3                        # ... and this many sides must agree on the card's edge
FURTHER = 0.01                   # a side found on colour this share of the width outside grey's is taken


class Photo:
    """A colour photo smoothed once (``BLUR``), in grey and in colour, so that any number of
    outlines can be fitted to its edges (``fit``) without smoothing it again for each."""

    def __init__(self, bgr: np.ndarray):
        self.smoothed = [cv2.GaussianBlur(img, (0, 0), BLUR).astype(np.float32)
                         for img in (cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY), bgr)]

    def fit(self, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``quad`` (corners in the photo's pixels, clockwise) with each side moved onto the
        card's edge near it; and for each side the share of its cuts that found that edge (0
        for a side left where it was, no straight edge near it)."""
        return _fit(*self.smoothed, np.asarray(quad, np.float64))


def _fit(grey_image: np.ndarray, colour_image: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``Photo.fit`` on the smoothed grey and colour images: each side on the grey's edge, or
    the colour's where that lies ``FURTHER`` out."""
    centre = quad.mean(axis=0)
    lengths = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    width = min(lengths[0] + lengths[2], lengths[1] + lengths[3]) / 2
    grey, colour = (_edges(g, quad, centre, width) for g in (grey_image, colour_image))
    lines, support = [], np.zeros(4)
    for i, (g, c) in enumerate(zip(grey, colour)):
        chosen = c if c is not None and (g is None or c[0] > g[0] + FURTHER * width) else g
        if chosen is not None:
            _, support[i], line = chosen
        else:
            line = np.cross(np.append(quad[i], 1.0), np.append(quad[(i + 1) % 4], 1.0))
        lines.append(line)
    corners = []
    for i in range(4):                    # corner i is where side i - 1 meets side i
        x = np.cross(lines[i - 1], lines[i])
        if abs(x[2]) < 1e-9:
            return quad.astype(np.float32), np.zeros(4)
        corners.append(x[:2] / x[2])
    out = np.array(corners, np.float32)
    if not cv2.isContourConvex(out):
        return quad.astype(np.float32), np.zeros(4)
    return out, support


def _edges(g: np.ndarray, quad: np.ndarray, centre: np.ndarray, width: float) -> list[tuple | None]:
    """For each side of ``quad``, the line in the smoothed image ``g`` (grey, or colour) the
    four sides agree is the card's edge (``_margin``, ``_pick``), or None where it has none."""
    found = [_lines(g, quad[i], quad[(i + 1) % 4], centre, width) for i in range(4)]
    margin = _margin(found, width)
    return [_pick(candidates, margin, width) if candidates else None for candidates in found]


def _margin(found: list[list[tuple]], width: float) -> float:
    """How far outside the outline the card's edge is (a share of its width): the outermost
    distance at which ``AGREE`` sides have a line (within ``SAME_MARGIN``), else 0 (the
    outline is the edge)."""
    for m in sorted({offset / width for candidates in found for offset, _, _ in candidates}, reverse=True):
        if sum(any(abs(o / width - m) <= SAME_MARGIN for o, _, _ in c) for c in found) >= AGREE:
            return m
    return 0.0


def _pick(candidates: list[tuple], margin: float, width: float) -> tuple:
    """The side's line nearest the card's edge (``margin``)."""
    return min(candidates, key=lambda c: abs(c[0] / width - margin))


def _lines(g: np.ndarray, p: np.ndarray, q: np.ndarray, centre: np.ndarray, width: float) -> list[tuple]:
    """The straight edges in ``g`` (grey or colour) near the side ``p`` → ``q``: (offset
    outward in px at its middle, support, the line as a homogeneous 3-vector), each fitted
    by least squares."""
    d = q - p
    length = np.linalg.norm(d)
    n = np.array([-d[1], d[0]]) / length
    if np.dot(n, (p + q) / 2 - centre) < 0:
        n = -n                                                   # outward
    o = np.arange(-np.ceil(REACH_IN * width) - 1, np.ceil(REACH_OUT * width) + 2)
    s = np.linspace(0.1, 0.9, SAMPLES)
    pts = (p + s[:, None, None] * d + o[None, :, None] * n).astype(np.float32)
    across = cv2.remap(g, pts[..., 0], pts[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                       borderValue=(-1e4,) * 4)
    change = np.abs(across[:, 2:] - across[:, :-2]) / 2           # at o[1:-1]
    if change.ndim == 3:                                          # colour: the sharpest of B, G, R
        change = change.max(axis=2)
    change[change > 1000] = 0                                     # beyond the photo's edge
    peak = np.zeros_like(change, bool)
    peak[:, 1:-1] = (change[:, 1:-1] >= change[:, :-2]) & (change[:, 1:-1] > change[:, 2:]) & (change[:, 1:-1] > STEP)
    cut, at = np.nonzero(peak)
    if len(cut) == 0:
        return []
    offset = o[1:-1][at]
    along = s[cut] - 0.5
    # every slope at once: for each, the cuts with an edge at each offset (within NEAR)
    slopes = np.linspace(-TURN * length, TURN * length, TURNS)
    shifted = np.round(offset[None, :] - slopes[:, None] * along[None, :]).astype(np.int64)
    low = shifted.min() - NEAR
    hit = np.zeros((TURNS, shifted.max() + NEAR + 1 - low, SAMPLES), bool)
    k = np.broadcast_to(np.arange(TURNS)[:, None], shifted.shape)
    c = np.broadcast_to(cut[None, :], shifted.shape)
    for dd in range(-NEAR, NEAR + 1):
        hit[k, shifted - low + dd, c] = True
    share = hit.mean(axis=2)
    best = share.max(axis=0)
    out, taken = [], []
    for j in np.argsort(-best):
        if best[j] < SUPPORT:
            break
        if any(abs(j - t) <= 2 * NEAR for t in taken):
            continue
        taken.append(j)
        a, b = float(j + low), float(slopes[np.argmax(share[:, j])])
        for _ in range(2):                                       # least squares on the edges along it
            on = np.abs(offset - (a + b * along)) <= NEAR
            if on.sum() < 4:
                break
            b, a = np.polyfit(along[on], offset[on], 1)
        support = len(np.unique(cut[np.abs(offset - (a + b * along)) <= 1.5])) / SAMPLES
        if support < FITTED:
            continue
        start, end = p + (a - b / 2) * n, q + (a + b / 2) * n
        out.append((a, support, np.cross(np.append(start, 1.0), np.append(end, 1.0))))
    return out
