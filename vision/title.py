"""Reading a card's title: the OCR fallback and tie-breaker (optional extra ``[ocr]``).

Uses RapidOCR (``rapidocr`` with ``onnxruntime``), whose wheel ships its PP-OCR models, so
nothing is downloaded at run time. Only its *recogniser* runs, on the title band of the
already rectified card (detection is unnecessary: the layout says where the title is). Its
character set covers the Latin titles of the English, German, French, Dutch and Italian
cards, accents included; it has no Cyrillic, so Russian titles are not read (matching folds
accents anyway, see ``card_db.normalize``).

Without the extra installed, ``reader()`` is ``None`` and recognition works from images alone.
"""
from __future__ import annotations

import importlib.util
import logging
import threading
from collections.abc import Callable

import cv2
import numpy as np

from . import describe, gate, locate

#: (text, confidence 0..1) for a BGR or grey image of one line of text.
Reader = Callable[[np.ndarray], tuple[str, float]]

BAND_WIDTH = 640                 # the title band is rectified at this width before reading
_reader: Reader | None = None
_tried = False
_lock = threading.Lock()


def reader() -> Reader | None:
    """The process-wide title reader, or ``None`` when the ``[ocr]`` extra is not installed.

    The OCR engine itself is loaded on the first title read (~0.7 s), not here: most photos
    are named by their images alone, and a ``companion vision recognize`` call, or a
    server's first scan, would otherwise pay it for nothing."""
    global _reader, _tried
    with _lock:
        if not _tried:
            _tried = True
            if all(importlib.util.find_spec(name) is not None for name in ("rapidocr", "onnxruntime")):
                _reader = _on_first_read()
    return _reader


def _on_first_read() -> Reader:
    """A reader that loads RapidOCR's engine when it first reads."""
    run_lock = gate.lock()  # the engine is loaded and used by one thread at a time
    engine = None

    def read(img: np.ndarray) -> tuple[str, float]:
        nonlocal engine
        with run_lock:
            if engine is None:
                from rapidocr import RapidOCR

                logging.getLogger("RapidOCR").setLevel(logging.WARNING)
                engine = RapidOCR(params={"Global.log_level": "warning"})
            out = engine(img, use_det=False, use_cls=False)
        texts, scores = out.txts or ("",), out.scores or (0.0,)
        return " ".join(t.strip() for t in texts).strip(), float(min(scores))
    return read


def band(gray: np.ndarray, H: np.ndarray) -> np.ndarray:
    """The title band of the card seen through ``H``, flat and BAND_WIDTH wide (grey)."""
    x0, y0, x1, y1 = describe.TITLE
    w = BAND_WIDTH
    h = max(8, round(w * (y1 - y0) * locate.CARD_H / ((x1 - x0) * locate.CARD_W)))
    box = (x0 * locate.CARD_W, y0 * locate.CARD_H, (x1 - x0) * locate.CARD_W, (y1 - y0) * locate.CARD_H)
    return area(gray, H, box, (w, h))


def area(gray: np.ndarray, H: np.ndarray, box: tuple[float, float, float, float], size: tuple[int, int]
         ) -> np.ndarray:
    """The part ``box`` (x, y, width, height in canonical card px) of the card seen through
    ``H`` (canonical card → ``gray``), flat at ``size`` (width, height): what is read."""
    x, y, w, h = box
    src = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)
    corners = cv2.perspectiveTransform(src[None], H)[0]
    M = cv2.getPerspectiveTransform(np.array([[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]], np.float32),
                                    corners)
    return cv2.warpPerspective(gray, M, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)
