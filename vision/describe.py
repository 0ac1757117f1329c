"""What is stored of a reference card, and the light-independent view used to compare pixels.

A reference is described by its local features (``features.reference``): up to
``features.REF_FEATURES`` keypoints with their 32-byte ORB descriptors, about 14 KB a card.
Nothing about the card's design is assumed: which of those features every card shares (a
printed frame, a border pattern, the rules-text font) is learned from the enrolled set
each time the index is written (``index.derive``).

``flatten`` takes the logarithm of the grey levels and subtracts a blurred copy, so uneven
light (a multiplication) becomes a slowly varying offset and is removed; what is left is the
ink. The final pixel checks (``vision.match``) compare flattened images, and a thumbnail of the
flattened card (``coarse``) is the second way to shortlist cards: art made of large flat
shapes has few corners, but a distinctive picture.
"""
from __future__ import annotations

import cv2
import numpy as np

from . import features
from .locate import CARD_H, CARD_W

TITLE = (0.07, 0.045, 0.93, 0.145)  # x0, y0, x1, y1 as shares of the card: where Munchkin prints the title
COARSE = (20, 28)                   # the thumbnail compared whole (the second shortlist)
THUMB = (60, 84)                    # the picture compared once aligned (``vision.match``)
CLIPPED = 250                       # a grey this light is the camera's white: anything lighter was lost,
CLIPPED_CELL = 0.9                  # a THUMB cell this much of which is white shows nothing of the card,
SHOWN_LEAST = 0.2                   # unless less than this share of the cells would be left (``shown``)


_LOG = np.log1p(np.arange(256, dtype=np.float32))  # log1p of each grey level, as float32 computes it


def flatten(gray: np.ndarray, card_width: float | None = None) -> np.ndarray:
    """Ink without light: log grey minus its blur, clipped (float32, same size).

    The blur is a fixed share of the card's width (``card_width``, default the image's width).
    A ``uint8`` image's logarithm is looked up (``_LOG``), not computed pixel by pixel: the
    same values in a twentieth of the time, and a photo's recognition flattens dozens of
    straightened cards.
    """
    g = cv2.LUT(gray, _LOG) if gray.dtype == np.uint8 else np.log1p(gray.astype(np.float32))
    sigma = (card_width or gray.shape[1]) / 28
    hp = cv2.GaussianBlur(g, (0, 0), sigma)
    np.subtract(g, hp, out=hp)
    return np.clip(hp, -0.6, 0.6, out=hp)


def zn(a: np.ndarray) -> np.ndarray:
    """Zero mean, unit length (flattened float32)."""
    v = a.astype(np.float32).ravel()
    v = v - v.mean()
    n = np.linalg.norm(v)
    return v / n if n > 1e-9 else v


def canonical(gray: np.ndarray) -> np.ndarray:
    """A card image (any size, portrait or landscape) as a CARD_H × CARD_W grey reference."""
    if gray.shape[1] > gray.shape[0]:
        gray = cv2.rotate(gray, cv2.ROTATE_90_CLOCKWISE)
    if gray.shape != (CARD_H, CARD_W):
        gray = cv2.resize(gray, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA)
    return gray


def coarse(gray: np.ndarray) -> np.ndarray:
    """The flattened card as a COARSE thumbnail, one vector (float32)."""
    return coarse_of(flatten(gray))


def coarse_of(flat: np.ndarray) -> np.ndarray:
    """``coarse`` of a card already flattened (``flatten``)."""
    return cv2.resize(flat, COARSE, interpolation=cv2.INTER_AREA).ravel()


def coarse_both_ways(gray: np.ndarray) -> list[np.ndarray]:
    """``coarse`` of the card as it is and turned half round, flattened once: the blur is the
    same either way up (a symmetric kernel, mirrored borders), so the turned thumbnail is the
    first one's cells turned, but for the order of the sums (~1e-7)."""
    flat = flatten(gray)
    return [coarse_of(flat), coarse_of(cv2.rotate(flat, cv2.ROTATE_180))]


def thumb(gray: np.ndarray) -> np.ndarray:
    """The flattened CARD_H × CARD_W card at THUMB size, as ``uint8`` (0.0 is 128)."""
    return thumb_of(flatten(gray))


def thumb_of(flat: np.ndarray) -> np.ndarray:
    """``thumb`` of a card already flattened (``flatten``)."""
    small = cv2.resize(flat, THUMB, interpolation=cv2.INTER_AREA)
    return np.clip(small * 212 + 128, 0, 255).astype(np.uint8)


def shown(gray: np.ndarray) -> np.ndarray | None:
    """The ``THUMB`` cells of a straightened photo of a card (``gray``, any size) that the
    camera did not clip to white, as a mask of ``thumb``'s pixels in order; None when it
    clipped none, or so many that the few left would say little (all are compared then).

    An overexposed photo (the camera metered a dark table, a lamp straight above) loses
    the light greys of the art and the panels: they are all one white, flat in the photo
    but not in the reference, and the right card's aligned pixels correlated as weakly as a
    stranger's. The ink on that white still shows: only cells nearly all white are left out."""
    white = cv2.resize((gray >= CLIPPED).astype(np.float32), THUMB, interpolation=cv2.INTER_AREA).ravel()
    clipped = white >= CLIPPED_CELL
    if not clipped.any() or clipped.mean() > 1 - SHOWN_LEAST:
        return None
    return ~clipped


def unthumb(t: np.ndarray) -> np.ndarray:
    return (t.astype(np.float32) - 128) / 212


def describe(gray: np.ndarray) -> dict[str, np.ndarray]:
    """The stored description of a rectified grey CARD_H × CARD_W card: its keypoints
    (float16 pixel positions), their descriptors and how many there are, padded to
    ``features.REF_FEATURES`` rows so that every card's arrays stack, its ``coarse``
    thumbnail and its ``thumb``."""
    pts, desc = features.reference(gray)
    k = features.REF_FEATURES
    points = np.zeros((k, 2), np.float16)
    descriptors = np.zeros((k, 32), np.uint8)
    n = min(k, len(pts))
    points[:n] = pts[:n]
    descriptors[:n] = desc[:n]
    flat = flatten(gray)  # (once for both thumbnails)
    return {"points": points, "descriptors": descriptors, "count": np.int32(n),
            "coarse": coarse_of(flat).astype(np.float16), "thumb": thumb_of(flat)}
