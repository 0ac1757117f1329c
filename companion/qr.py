"""QR codes of join URLs: SVG for the phone screen, block characters for the terminal."""
from __future__ import annotations

import functools
import io

import qrcode
import qrcode.image.svg
from markupsafe import Markup


@functools.lru_cache(maxsize=256)
def svg(data: str) -> Markup:
    """An inline SVG QR code (no script, no style: safe under the app's CSP); cached per URL."""
    image = qrcode.make(data, image_factory=qrcode.image.svg.SvgPathImage, border=4,
                        error_correction=qrcode.constants.ERROR_CORRECT_M)
    return Markup(image.to_string(encoding="unicode"))


def terminal(data: str) -> str:
    """The QR code drawn with half-block characters, light on dark, for ``companion serve``."""
    code = qrcode.QRCode(border=2, error_correction=qrcode.constants.ERROR_CORRECT_L)
    code.add_data(data)
    out = io.StringIO()
    code.print_ascii(out=out, invert=True)
    return out.getvalue()
