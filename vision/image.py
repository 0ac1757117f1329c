"""Decoding untrusted image bytes safely: size and format checked before any pixel is decoded.

A phone upload may be anything: zero bytes, a truncated JPEG, a text file renamed ``.jpg``,
an SVG, a 50,000 × 50,000 PNG that is a few kilobytes on the wire but gigabytes decoded, a
photo with megabytes of EXIF. Pillow reads only the header on ``open``; the format and the
pixel count are checked there, and large JPEGs are decoded straight at a reduced scale
(libjpeg's DCT scaling), which is both the memory bound and most of the speed.
"""
from __future__ import annotations

import io
import warnings

import cv2
import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

MAX_BYTES = 12 * 1024 * 1024       # a phone JPEG is 2–6 MB; the browser sends ~0.3 MB
MAX_PIXELS = 50_000_000            # 50 MP: larger than any phone camera's photo
FORMATS = ("JPEG", "PNG", "WEBP")  # what Pillow may open; nothing else is even identified
WORK_SIDE = 1024                   # longest side the recogniser works at


class ImageError(ValueError):
    """The bytes are not an image this module will decode; ``reason`` is a short code."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


def load(data: bytes, max_side: int = WORK_SIDE) -> np.ndarray:
    """Decode ``data`` to a BGR ``uint8`` array whose longest side is at most ``max_side``.

    Upright as the phone saw it (EXIF orientation applied). Raises ``ImageError``.
    """
    if not data:
        raise ImageError("empty", "The upload is empty (0 bytes).")
    if len(data) > MAX_BYTES:
        raise ImageError("too_large", f"The image is larger than {MAX_BYTES // (1024 * 1024)} MB.")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(data), formats=FORMATS)
            if img.width * img.height > MAX_PIXELS:
                raise ImageError("too_many_pixels",
                                 f"The image is {img.width} × {img.height} pixels; at most "
                                 f"{MAX_PIXELS // 1_000_000} megapixels are accepted.")
            if img.format == "JPEG":
                img.draft("RGB", (max_side, max_side))
            img.load()
            img = ImageOps.exif_transpose(img)
    except ImageError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ImageError("too_many_pixels", f"The image has more than {MAX_PIXELS // 1_000_000} megapixels.") from None
    except UnidentifiedImageError:
        raise ImageError("not_an_image", "This is not a JPEG, PNG or WebP image.") from None
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise ImageError("corrupt", f"The image could not be decoded ({exc}).") from None
    if img.mode != "RGB":
        img = img.convert("RGB")
    bgr = cv2.cvtColor(np.asarray(img), cv2.COLOR_RGB2BGR)
    h, w = bgr.shape[:2]
    if max(h, w) > max_side:
        scale = max_side / max(h, w)
        bgr = cv2.resize(bgr, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    return bgr
