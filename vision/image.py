"""Decoding untrusted image bytes safely: size, format and shape checked before any pixel is decoded.

A phone upload may be anything: zero bytes, a truncated JPEG, a text file renamed ``.jpg``,
an SVG, a 50,000 × 50,000 PNG that is a few kilobytes on the wire but gigabytes decoded, a
3000 × 1 strip, a photo with megabytes of EXIF. The format and the size are read from the
file's header (``header``) and checked (``check``) before Pillow sees the bytes; Pillow then
opens only that format and must agree on the size. An upload's JPEG (less than twice the
working size long) is then decoded by OpenCV, to the same pixels sooner (``_decode``).
A JPEG that libjpeg's DCT scaling (1/2, 1/4, 1/8) brings to within ``NEAR_WORK`` of the
working size — a phone camera's 4032 × 3024 or 2016 × 1512 photo — is decoded at that scale
by OpenCV and used as it comes (``_scaled_to_work``): ~15 ms where the full decode and the resize
to the working size took ~25 (of a photo's ~170, the machine at half speed). Other large JPEGs are decoded straight at a
reduced scale (libjpeg's DCT scaling), which is both the memory bound and most of the speed;
PNG and WebP are decoded whole (4 bytes a pixel, at most ~160 MB) and shrunk by a whole
factor in Pillow before any copy is made; what is transparent in them is laid on white.
After a large image the freed memory is handed back to the system (``gate.release_memory``).
"""
from __future__ import annotations

import functools
import io
from collections.abc import Callable

import cv2
import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from . import gate, header

MAX_BYTES = 12 * 1024 * 1024       # a phone JPEG is 2–6 MB; the browser sends ~0.3 MB
MAX_PIXELS = 40_000_000            # 40 MP: more than a phone camera's usual 12–24 MP photo
MIN_SIDE = 32                      # a card needs more than this many pixels across
MAX_ASPECT = 8                     # longer side / shorter side: a card photo is ~1.4, a panorama ~4
FORMATS = ("JPEG", "PNG", "WEBP")  # what is decoded at all (``header`` reads exactly these)
WORK_SIDE = 1024                   # longest side the recogniser works at
NEAR_WORK = 0.97                   # ... or a little less, when a JPEG's DCT scaling lands there (``_scaled_to_work``)
TRIM_ABOVE = 4_000_000             # after images of more pixels, memory is handed back (see ``gate``)

Image.preinit()  # Pillow's usual decoders (JPEG, PNG, ...) now, not in the first photo (~20 ms)


class ImageError(ValueError):
    """The bytes are not an image this module will decode; ``reason`` is a short code."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


def check(width: int, height: int) -> None:
    """Refuse a size before decoding: too many pixels, a side too short, or too long and thin."""
    if width * height > MAX_PIXELS:
        raise ImageError("too_many_pixels", f"The image is {width} × {height} pixels; at most "
                                            f"{MAX_PIXELS // 1_000_000} megapixels are accepted.")
    if min(width, height) < MIN_SIDE:
        raise ImageError("too_small", f"The image is {width} × {height} pixels; each side must be "
                                      f"at least {MIN_SIDE} pixels.")
    if max(width, height) > MAX_ASPECT * min(width, height):
        raise ImageError("bad_aspect", f"The image is {width} × {height} pixels; its longer side may be "
                                       f"at most {MAX_ASPECT} times its shorter side.")


def load(data: bytes, max_side: int = WORK_SIDE) -> np.ndarray:
    """Decode ``data`` to a BGR ``uint8`` array whose longest side is at most ``max_side``.

    Upright as the phone saw it (EXIF orientation applied). Raises ``ImageError``.
    """
    return load_both(data, max_side)[0]


def load_both(data: bytes, max_side: int = WORK_SIDE) -> tuple[np.ndarray, Callable[[], np.ndarray]]:
    """``load``'s image, and a function that gives the image as it is decoded before it is
    brought down to ``max_side``: less than about twice as long (libjpeg's scaling and
    Pillow's ``reduce`` go by whole factors), the same array when it was not longer. A card
    lying far off keeps detail there that the working size averages away (``recognize``'s
    wider look). When the working image was decoded straight at its size (``_scaled_to_work``),
    the function decodes the photo again, once, and only when asked: few photos need it."""
    if not data:
        raise ImageError("empty", "The upload is empty (0 bytes).")
    if len(data) > MAX_BYTES:
        raise ImageError("too_large", f"The image is larger than {MAX_BYTES // (1024 * 1024)} MB.")
    try:
        fmt, width, height = header.read(data)
    except header.HeaderError as exc:
        raise ImageError("corrupt" if exc.truncated else "not_an_image", str(exc)) from None
    check(width, height)
    size = (width, height)
    scaled = _scaled_to_work(fmt, size, max_side)
    decoded = _decoded(data, fmt, size, max_side, scaled)
    h, w = decoded.shape[:2]
    if max(h, w) <= max_side:
        if scaled is not None:  # decoded at the working size: the finer image is decoded when asked
            return decoded, functools.cache(lambda: _decoded(data, fmt, size, max_side))
        return decoded, lambda: decoded
    scale = max_side / max(h, w)
    return cv2.resize(decoded, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA), lambda: decoded


def _decoded(data: bytes, fmt: str, size: tuple[int, int], max_side: int, scaled: int | None = None) -> np.ndarray:
    """``_decode``, handing the memory back after a large image (the full-size buffers are gone by now)."""
    try:
        return _decode(data, fmt, size, max_side, scaled)
    finally:
        if size[0] * size[1] > TRIM_ABOVE:
            gate.release_memory()


def _scaled_to_work(fmt: str, size: tuple[int, int], max_side: int) -> int | None:
    """OpenCV's flag to decode a JPEG of ``size`` at the largest DCT scale (1/2, 1/4, 1/8)
    that brings its longest side to between ``NEAR_WORK`` times ``max_side`` and
    ``max_side``; None for other formats and when no scale lands there. libjpeg averages
    each block of pixels as it decodes: the working image comes at the cost of a decode a
    quarter of the size, without the full decode and the resize."""
    if fmt != "JPEG":
        return None
    for factor, flag in ((2, cv2.IMREAD_REDUCED_COLOR_2), (4, cv2.IMREAD_REDUCED_COLOR_4),
                         (8, cv2.IMREAD_REDUCED_COLOR_8)):
        if NEAR_WORK * max_side <= -(-max(size) // factor) <= max_side:  # (libjpeg rounds up)
            return flag
    return None


def _decode(data: bytes, fmt: str, size: tuple[int, int], max_side: int, scaled: int | None = None) -> np.ndarray:
    """Pillow's decode of ``data`` in OpenCV's BGR order (read-only), upright, at most about
    twice ``max_side`` long. Pillow writes the bytes in that order itself: 2 ms for a
    1600 × 1200 photo, where its RGB array and OpenCV's swap took 5–8 ms.

    A colour or grey JPEG that is neither scaled by libjpeg nor shrunk (less than twice
    ``max_side`` long: the browser's 1,600 px uploads) is decoded by OpenCV instead, once
    Pillow has read its header: the same libjpeg-turbo, straight into BGR and turned by its
    EXIF orientation — the very pixels of Pillow's decode, turn and copy (every orientation,
    baseline and progressive; a test compares them), ~11 ms where those took 14–20 ms. A CMYK
    one is not (its colours come out a level apart). With ``scaled`` (``_scaled_to_work``), a
    colour or grey JPEG is decoded by OpenCV at that scale."""
    try:
        if fmt == "WEBP":  # registered by its plugin alone, not by Pillow loading all forty of its formats
            from PIL import WebPImagePlugin  # noqa: F401  (its library takes ~50 ms to load)
        img = Image.open(io.BytesIO(data), formats=(fmt,))
        if img.size != size:
            raise ImageError("corrupt", f"The image's header says {size[0]} × {size[1]} pixels, "
                                        f"its data {img.width} × {img.height}.")
        if fmt == "JPEG":
            if img.mode in ("RGB", "L") and (scaled is not None or max(size) < 2 * max_side):
                return _opencv_jpeg(data, scaled or cv2.IMREAD_COLOR)  # (unscaled: libjpeg would not scale it)
            img.draft("RGB", (max_side, max_side))
        img.load()
        img = _shrink(img, max_side)
        ImageOps.exif_transpose(img, in_place=True)  # no copy when the photo is upright already
        if img.mode in ("RGBA", "LA", "PA") or "transparency" in img.info:
            img = _on_white(img)
        if img.mode != "RGB":
            img = img.convert("RGB")
        return np.frombuffer(img.tobytes("raw", "BGR"), np.uint8).reshape(img.height, img.width, 3)
    except ImageError:
        raise
    except UnidentifiedImageError:
        raise ImageError("not_an_image", "This is not a JPEG, PNG or WebP image.") from None
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise ImageError("corrupt", f"The image could not be decoded ({exc}).") from None


def _opencv_jpeg(data: bytes, flag: int = cv2.IMREAD_COLOR) -> np.ndarray:
    """OpenCV's decode of the JPEG ``data`` (see ``_decode``); ``ImageError`` when it cannot
    decode it (a truncated file: OpenCV answers nothing). A file damaged inside may still be
    decoded, as Pillow decodes it, with libjpeg's warning on stderr (Pillow kept quiet)."""
    bgr = cv2.imdecode(np.frombuffer(data, np.uint8), flag)
    if bgr is None:
        raise ImageError("corrupt", "The image could not be decoded (damaged or truncated JPEG data).")
    return bgr


def _on_white(img: Image.Image) -> Image.Image:
    """An image with transparency laid on white, as a scan or a print shows it: a card face
    exported with transparent rounded corners keeps whatever lies under them (often black),
    which dropping the alpha would show."""
    rgba = img.convert("RGBA")
    return Image.alpha_composite(Image.new("RGBA", rgba.size, (255, 255, 255, 255)), rgba)


def _shrink(img: Image.Image, max_side: int) -> Image.Image:
    """Average whole blocks of pixels (Pillow's ``reduce``) so the image is less than twice
    ``max_side``: the full-size decode is never copied, and the final resize stays OpenCV's."""
    factor = max(img.size) // max_side
    if factor < 2:
        return img
    if img.mode not in ("L", "RGB", "RGBA"):  # palette, 16-bit, ...: averaged as colours
        img = img.convert("RGB")
    return img.reduce(factor)
