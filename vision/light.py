"""Evening out the light of a photo: shadows, dim rooms, dark corners and haze.

A phone's shadow over half the card, or an underexposed photo, leaves the ink there a
fraction of its contrast: too little for ORB's fixed corner threshold, so the card loses
its features where it is darker. Dividing the image by its local light level, a broad blur
of itself, gives that ink the contrast it has in good light.

References are not evened: a scan is evenly lit already, and what features and pixel
checks compare is unchanged by a smooth gain. Nor is a whole photo before its features are
found (``recognize``): evened out, a dark table's grain would be as strong as the card's
ink and take the features from it. Only a washed-out photo is changed as a whole, and only
by a gain and an offset (``stretched``): its table's grain and its card's ink stay as far
apart as they were.
"""
from __future__ import annotations

import cv2
import numpy as np

SPAN = 1 / 16     # the light is measured over this share of the image's longer side ...
STEP = 8          # ... on the image shrunk this many times (the same blur, ~40 times cheaper)
FLOOR = 8         # grey added before dividing, so that black noise is not amplified
LEVEL = 128       # where the local light level lands
SPREAD = 0.1      # a photo whose greys (this percentile to the one as far from the top) ...
NARROW = 128      # ... span fewer levels than this is stretched, ...
STRETCH = 200     # ... its 1st to 99th percentile to span this many (``stretched``), ...
MAX_GAIN = 4.0    # ... by at most this gain: a blank wall's noise is not made into edges


def even(gray: np.ndarray) -> np.ndarray:
    """``gray`` divided by its local light level, as ``uint8`` with that level at ``LEVEL``.

    The blur spans ``SPAN`` of the image's longer side: a 16th did better under a shadow
    across the card than a 10th or a 32nd on the benchmark's photos.
    """
    h, w = gray.shape
    small = cv2.resize(gray, (max(1, w // STEP), max(1, h // STEP)), interpolation=cv2.INTER_AREA)
    light = cv2.GaussianBlur(small.astype(np.float32) + FLOOR, (0, 0), max(h, w) * SPAN / STEP)
    light = cv2.resize(light, (w, h), interpolation=cv2.INTER_LINEAR)
    return np.clip((gray.astype(np.float32) + FLOOR) * (LEVEL / light), 0, 255).astype(np.uint8)


def percentiles(gray: np.ndarray, qs: tuple[float, ...]) -> list[float]:
    """``np.percentile(gray, qs)`` (linear between the two nearest greys) of a ``uint8``
    image, from its histogram: no sort, and none of the imports ``np.percentile`` makes the
    first time it is called (``numpy.ma``, ~12 ms in the first photo of a process)."""
    below = np.cumsum(np.bincount(gray.ravel(), minlength=256))  # greys at or below each level
    at = np.array(qs, np.float64) / 100 * (below[-1] - 1)       # the order statistics' ranks
    lo = np.floor(at)

    def ranked(k: np.ndarray) -> np.ndarray:  # the k-th smallest grey
        return np.searchsorted(below, k, side="right").astype(np.float64)
    a, b = ranked(lo), ranked(np.minimum(lo + 1, below[-1] - 1))
    return list(a + (at - lo) * (b - a))


def stretched(bgr: np.ndarray) -> np.ndarray:
    """``bgr`` with the bulk of its greys (1st to 99th percentile) stretched to span
    ``STRETCH`` levels when all of them (from the ``SPREAD`` percentile to the one as far
    from the top) span fewer than ``NARROW``: a hazy or washed-out photo (a dirty lens, a
    bright window behind the card) keeps the card's edges and ink at a third of their
    contrast everywhere, below the fixed thresholds of the edge map and of ORB's corners. A
    photo of ordinary contrast is returned as it is (the same array). A card lying far off
    on a plain cloth is a few per cent of the picture: judged by the bulk, the cloth alone,
    such a photo was washed out, and the card's cream was stretched to white, its ink
    outlines into halos."""
    gray = cv2.cvtColor(bgr[::4, ::4], cv2.COLOR_BGR2GRAY)
    lowest, low, high, highest = percentiles(gray, (SPREAD, 1, 99, 100 - SPREAD))
    if highest - lowest >= NARROW:
        return bgr
    gain = min(STRETCH / max(high - low, 1.0), MAX_GAIN)
    middle = (low + high) / 2
    return cv2.convertScaleAbs(bgr, alpha=gain, beta=127.5 - gain * middle)
