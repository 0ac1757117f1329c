"""Finding the card among the outlines by the frame every card of the game shares.

The mean of the enrolled references *is* the game's frame (``Snapshot.frame``: blurred,
``frame_fine``: sharp). Each outline, in its upright turns and as the card's edge or as a
printed line inside it, is compared with the blurred frame; the best few are lined up
exactly (``refine``) and compared again with the sharp one.
"""
from __future__ import annotations

import cv2
import numpy as np

from . import describe, locate

REFINE_TOP = 4                   # outlines that are refined and compared at the fine scale
FIT_SLACK = 0.05                 # outlines fitting the frame this close to the best compete on size


def locate_card(gray: np.ndarray, bgr: np.ndarray, frame: np.ndarray | None,
                weight: np.ndarray | None = None, frame_fine: np.ndarray | None = None) -> list[np.ndarray]:
    """The outlines that look most like a card of this game, the right way up, best first,
    as homographies from canonical card coordinates to the photo.

    Every outline is tried in its upright turns and as the card's edge or a printed frame
    line, against the frame blurred (``coarse_view``); the best few are aligned exactly
    (``refine``) and compared again at the fine scale. Among those that fit nearly as well as
    the best, the largest comes first (the card photographed fills more of the picture than
    the cards lying around it); the others follow, in case it turns out not to be a card the
    index knows.
    """
    quads = locate.candidates(bgr)
    if not quads:
        return []
    if frame is None:  # nothing to compare with: card-shaped outlines, largest first, long side up
        out = []
        for q in quads:
            sides = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
            across, along = sides[0] + sides[2], sides[1] + sides[3]
            if 0.5 <= min(across, along) / max(across, along) <= 0.9:
                out.append(locate.homography(q, 0 if across <= along else 1))
        return out
    weight = np.ones_like(frame) if weight is None else weight
    ref = describe.zn(frame * weight)
    tw, th = describe.TEMPLATE
    # outlines are compared on a copy about twice the template's scale, so that warping
    # down to the template does not alias the thin printed lines
    h, w = gray.shape
    scale = min(1.0, 4 * th / float(np.ptp(quads[0], axis=0).max()))
    small = cv2.resize(gray, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    fits: list[tuple[float, float, np.ndarray]] = []
    for q in quads:
        area = cv2.contourArea(q)
        best = None
        for turn in _upright_turns(q):
            for inset in locate.INSETS:
                H = locate.homography(q, turn, inset)
                Hs = np.diag([scale, scale, 1.0]) @ H
                view = cv2.resize(locate.rectify(small, Hs, (2 * tw, 2 * th)), describe.TEMPLATE,
                                  interpolation=cv2.INTER_AREA)
                s = float(describe.zn(describe.coarse_view(view) * weight) @ ref)
                if best is None or s > best[0]:
                    best = (s, area / inset ** 2, H)
        fits.append(best)
    fits.sort(key=lambda f: -f[0])
    refined = []
    for _, _, H in fits[:REFINE_TOP]:
        H = refine(gray, H, frame_fine)
        corners = cv2.perspectiveTransform(locate.CANON[None], H)[0]
        refined.append((_fine_fit(gray, H, frame_fine), cv2.contourArea(corners), H))
    top = max(f[0] for f in refined)
    refined.sort(key=lambda f: (f[0] < top - FIT_SLACK, -f[1] if f[0] >= top - FIT_SLACK else -f[0]))
    return [H for _, _, H in refined]


def _fine_fit(gray: np.ndarray, H: np.ndarray, frame_fine: np.ndarray) -> float:
    """How well the rectified card lines up with the frame at the fine scale (−1 … 1)."""
    fw, fh = describe.FINE
    view = cv2.resize(locate.rectify(gray, H, (fw * 4, fh * 4)), describe.FINE, interpolation=cv2.INTER_AREA)
    return float(describe.zn(describe.flatten(view)) @ describe.zn(frame_fine))


def _upright_turns(q: np.ndarray) -> tuple[int, ...]:
    """Quarter turns that put the outline's shorter sides at top and bottom (both when unclear)."""
    sides = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
    across, along = sides[0] + sides[2], sides[1] + sides[3]
    if across < 0.9 * along:
        return (0, 2)
    if along < 0.9 * across:
        return (1, 3)
    return (0, 1, 2, 3)


def refine(gray: np.ndarray, H: np.ndarray, frame_fine: np.ndarray) -> np.ndarray:
    """Line the outline up with the game's frame, one axis at a time.

    Averaged along rows, the flattened card becomes a profile of its horizontal printed lines
    (card edge, frame line, title band, art box...); the same for columns. Searching every
    scale and shift of the photo's profiles against the frame's finds where the card really
    is, even when the outline found was a printed line inside the edge or a few per cent off
    — a global search, so parallel lines cannot trap it the way a local optimiser is trapped.
    """
    fw, fh = describe.FINE
    m = round(0.16 * fw)
    o = 4  # rectify at four times the size, then shrink: no aliasing of thin lines
    big = locate.rectify(gray, H, (fw * o, fh * o), margin=m * o)
    patch = describe.flatten(cv2.resize(big, (fw + 2 * m, fh + 2 * m), interpolation=cv2.INTER_AREA), fw)
    ty, sy = _fit_axis(patch[:, m + fw // 5:m + 4 * fw // 5].mean(axis=1),
                       frame_fine[:, fw // 5:4 * fw // 5].mean(axis=1), m)
    tx, sx = _fit_axis(patch[m + fh // 5:m + 4 * fh // 5, :].mean(axis=0),
                       frame_fine[fh // 5:4 * fh // 5, :].mean(axis=0), m)
    W = np.array([[sx, 0, tx - m], [0, sy, ty - m], [0, 0, 1]], np.float64)  # frame → patch without margin
    S = np.diag([locate.CARD_W / fw, locate.CARD_H / fh, 1.0])
    return H @ S @ W @ np.linalg.inv(S)


_SCALES = np.linspace(0.86, 1.14, 29)


def _fit_axis(seen: np.ndarray, frame: np.ndarray, m: int) -> tuple[float, float]:
    """Offset and scale mapping frame positions into ``seen`` (which has ``m`` extra each side)."""
    n = len(frame)
    c = (n - 1) / 2
    shifts = np.arange(-m, m + 0.01, 0.5)
    s, t = np.meshgrid(_SCALES, shifts, indexing="ij")
    pos = (m + c + t.reshape(-1, 1)) + s.reshape(-1, 1) * (np.arange(n) - c)   # (options, n)
    sampled = np.interp(pos.ravel(), np.arange(len(seen)), seen).reshape(pos.shape)
    sampled -= sampled.mean(axis=1, keepdims=True)
    f = frame - frame.mean()
    score = (sampled @ f) / (np.linalg.norm(sampled, axis=1) * np.linalg.norm(f) + 1e-9)
    k = int(np.argmax(score))
    scale, shift = float(s.ravel()[k]), float(t.ravel()[k])
    return m + c + shift - scale * c, scale
