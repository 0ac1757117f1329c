"""Evening out the light of a photo: shadows, dim rooms and dark corners.

A phone's shadow over half the card, or an underexposed photo, leaves the ink there a
fraction of its contrast: too little for ORB's fixed corner threshold, so the card loses
its features where it is darker. Dividing the image by its local light level, a broad blur
of itself, gives that ink the contrast it has in good light.

References are not evened: a scan is evenly lit already, and what features and pixel
checks compare is unchanged by a smooth gain. Nor is a whole photo before its features are
found (``recognize``): evened out, a dark table's grain would be as strong as the card's
ink and take the features from it.
"""
from __future__ import annotations

import cv2
import numpy as np

SPAN = 1 / 16     # the light is measured over this share of the image's longer side ...
STEP = 8          # ... on the image shrunk this many times (the same blur, ~40 times cheaper)
FLOOR = 8         # grey added before dividing, so that black noise is not amplified
LEVEL = 128       # where the local light level lands


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
