"""Turning an image of a card into a reference: from a scan or image file, or from a phone photo.

A *scan* (or any image that is just the card face) is resized to the canonical size as it
is, turned upright if it is landscape. A *photo* shows the card on a table: the card is found
and rectified the same way as when recognising (against the frame of the cards already
enrolled, or as the largest card-shaped outline when none are). ``auto`` decides by looking
for an outline that leaves a real border of table around the card.
"""
from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np

from . import gate, image, locate
from .index import Index, Snapshot
from .frame import locate_card

KINDS = ("auto", "scan", "photo")
EXTENSIONS = {".jpg", ".jpeg", ".png", ".webp"}


class EnrollError(ValueError):
    """This image cannot become a reference (no card in it, unreadable...)."""


def reference(data: bytes, index: Index, kind: str = "auto") -> np.ndarray:
    """The rectified grey CARD_H × CARD_W reference for one image.

    Raises ``EnrollError``, or ``gate.Busy`` when this process is busy with other images.
    """
    if kind not in KINDS:
        raise EnrollError(f"kind must be one of {', '.join(KINDS)}")
    return gate.run(_reference, data, index.refresh().current, kind)


def _reference(data: bytes, snap: Snapshot, kind: str) -> np.ndarray:
    try:
        bgr = image.load(data, max_side=1600)
    except image.ImageError as exc:
        raise EnrollError(str(exc)) from None
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    if kind != "scan":
        found = locate_card(gray, bgr, snap.frame, snap.frame_weight, snap.frame_fine)
        h, w = gray.shape
        if found:
            H = found[0]
            corners = cv2.perspectiveTransform(locate.CANON[None], H)[0]
            share = cv2.contourArea(corners) / (h * w)
            if kind == "photo" or share < 0.8:
                return locate.rectify(gray, H, (locate.CARD_W, locate.CARD_H))
        if kind == "photo":
            raise EnrollError("No card found in the photo.")
    if gray.shape[1] > gray.shape[0]:
        gray = cv2.rotate(gray, cv2.ROTATE_90_CLOCKWISE)
    return cv2.resize(gray, (locate.CARD_W, locate.CARD_H), interpolation=cv2.INTER_AREA)


def folder(path: str | os.PathLike) -> dict[str, Path]:
    """Image files in ``path`` by card id (the file name without its extension)."""
    files = {}
    for p in sorted(Path(path).iterdir()):
        if p.is_file() and p.suffix.lower() in EXTENSIONS:
            files[p.stem] = p
    return files
