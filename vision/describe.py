"""What is compared: light-independent versions of a rectified card at three scales.

``flatten`` takes the logarithm of the grey levels and subtracts a blurred copy, so uneven
light (a multiplication) becomes a slowly varying offset and is removed; what is left is the
ink. From the flattened card come

* the **coarse** vector (20 × 28 values) that ranks every enrolled card in one matrix product;
* the **fine** image (50 × 70) that re-ranks the best few with a small search over shifts;
* the **title** band at full width, where cards that share their art still differ.

All cards of a game share a frame, so the mean of the enrolled coarse vectors is subtracted
before comparing: what remains is what tells cards apart.
"""
from __future__ import annotations

import cv2
import numpy as np

from .locate import CARD_H, CARD_W

COARSE = (20, 28)
FINE = (50, 70)
TITLE = (0.07, 0.045, 0.93, 0.145)  # x0, y0, x1, y1 as shares of the card: where the title is printed
TEMPLATE = (40, 56)


def flatten(gray: np.ndarray, card_width: float | None = None) -> np.ndarray:
    """Ink without light: log grey minus its blur, clipped (float32, same size).

    The blur is a fixed share of the card's width (``card_width``, default the image's width),
    so a card flattened with a margin around it matches one flattened without.
    """
    g = np.log1p(gray.astype(np.float32))
    sigma = (card_width or gray.shape[1]) / 28
    hp = g - cv2.GaussianBlur(g, (0, 0), sigma)
    return np.clip(hp, -0.6, 0.6)


def zn(a: np.ndarray) -> np.ndarray:
    """Zero mean, unit length (flattened float32)."""
    v = a.astype(np.float32).ravel()
    v = v - v.mean()
    n = np.linalg.norm(v)
    return v / n if n > 1e-9 else v


def title_box() -> tuple[int, int, int, int]:
    """The title band in pixels of a CARD_W × CARD_H card."""
    x0, y0, x1, y1 = TITLE
    return round(x0 * CARD_W), round(y0 * CARD_H), round(x1 * CARD_W), round(y1 * CARD_H)


def coarse_view(small: np.ndarray, card_width: float | None = None) -> np.ndarray:
    """A TEMPLATE-sized card flattened and blurred by 5% of its width, so that an outline a
    few per cent off still lines up with the frame's thin printed lines."""
    w = card_width or small.shape[1]
    return cv2.GaussianBlur(flatten(small, w), (0, 0), w / 20)


def template(gray: np.ndarray) -> np.ndarray:
    """The small view of a card that photo outlines are checked against (see ``recognize``)."""
    return coarse_view(cv2.resize(gray, TEMPLATE, interpolation=cv2.INTER_AREA))


def describe(gray: np.ndarray) -> dict[str, np.ndarray]:
    """The stored description of a rectified grey CARD_H × CARD_W card (no margin)."""
    flat = flatten(gray)
    x0, y0, x1, y1 = title_box()
    return {
        "coarse": cv2.resize(flat, COARSE, interpolation=cv2.INTER_AREA).ravel(),
        "fine": cv2.resize(flat, FINE, interpolation=cv2.INTER_AREA).astype(np.float16),
        "title": flat[y0:y1, x0:x1].astype(np.float16),
        "template": template(gray).astype(np.float16),
    }


def best_shift_score(query: np.ndarray, ref: np.ndarray) -> float:
    """Highest normalised correlation of ``ref`` inside the slightly larger ``query``."""
    res = cv2.matchTemplate(query.astype(np.float32), ref.astype(np.float32), cv2.TM_CCOEFF_NORMED)
    return float(res.max())
