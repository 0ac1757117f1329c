"""What an image file says about itself: its format and its size in pixels, from the header only.

The pixel and shape limits (``image.check``) must hold before a decoder allocates anything,
and a few kilobytes of PNG may announce 50,000 × 50,000 pixels. Pillow's ``Image.open`` is
lazy, but what each of its plugins reads or allocates on open is its own affair (its WebP
plugin builds the animation decoder, which allocates the canvas, and checks only its own
much larger bomb limit first). The three formats the app accepts state their size in the
first bytes, so they are read here, in a few lines each, from the bytes themselves:

* PNG: the IHDR chunk, which must come first;
* JPEG: the first start-of-frame (SOF) segment, skipping the segments before it by their
  lengths (an EXIF thumbnail inside APP1 is skipped with it);
* WebP: the VP8X canvas, or the VP8 (lossy) or VP8L (lossless) frame header.
"""
from __future__ import annotations

import struct

#: JPEG markers that start a frame and carry its size (not DHT C4, JPG C8, DAC CC).
SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}
#: JPEG markers without a length: TEM and the restart markers.
STANDALONE = {0x01, *range(0xD0, 0xD8)}
SOS = 0xDA


class HeaderError(ValueError):
    """No size could be read. ``truncated``: the bytes end before it (else they are not an image)."""

    def __init__(self, message: str, truncated: bool = False):
        super().__init__(message)
        self.truncated = truncated


def read(data: bytes) -> tuple[str, int, int]:
    """``(format, width, height)`` with format ``JPEG``, ``PNG`` or ``WEBP`` (Pillow's names).

    Raises ``HeaderError`` when the bytes are none of these, or end before the size.
    """
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return ("PNG", *_png(data))
    if data.startswith(b"\xff\xd8"):
        return ("JPEG", *_jpeg(data))
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return ("WEBP", *_webp(data))
    raise HeaderError("This is not a JPEG, PNG or WebP image.")


def _png(data: bytes) -> tuple[int, int]:
    if len(data) < 24:
        raise HeaderError("The PNG ends before its header.", truncated=True)
    if data[12:16] != b"IHDR":
        raise HeaderError("The PNG does not start with its header (IHDR).")
    return struct.unpack(">II", data[16:24])


def _jpeg(data: bytes) -> tuple[int, int]:
    i = 2
    while True:
        while i < len(data) and data[i] == 0xFF and i + 1 < len(data) and data[i + 1] == 0xFF:
            i += 1                                   # fill bytes before a marker
        if i + 4 > len(data):
            raise HeaderError("The JPEG ends before its frame header.", truncated=True)
        if data[i] != 0xFF:
            raise HeaderError("The JPEG's segments are broken before its frame header.")
        marker = data[i + 1]
        if marker in STANDALONE:
            i += 2
            continue
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if length < 2 or marker == SOS:
            raise HeaderError("The JPEG has no frame header before its image data.")
        if marker in SOF:
            if i + 9 > len(data):
                raise HeaderError("The JPEG ends inside its frame header.", truncated=True)
            height, width = struct.unpack(">HH", data[i + 5:i + 9])
            if height == 0:
                raise HeaderError("The JPEG states its height only after the image data (DNL), which is not accepted.")
            return width, height
        i += 2 + length


def _webp(data: bytes) -> tuple[int, int]:
    if len(data) < 30:
        raise HeaderError("The WebP ends before its header.", truncated=True)
    chunk = data[12:16]
    if chunk == b"VP8X":
        return (int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1)
    if chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L" and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    raise HeaderError("The WebP has no frame header this app reads.")
