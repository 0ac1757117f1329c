"""Draw the home-screen icons in static/: the favicon's crossed swords, cream on brown.

    .venv/bin/python scripts/icons.py

The web app manifest names ``icon-192.png`` and ``icon-512.png`` (rounded, for launchers
that show the icon as it is) and ``icon-maskable-512.png`` (full bleed, the swords inside
the central circle a launcher may crop to); iOS takes ``apple-touch-icon.png`` (180 px, full
bleed: it rounds the corners itself). Drawn 4x larger and scaled down, for smooth edges.
"""
from __future__ import annotations

import math
from pathlib import Path

from PIL import Image, ImageDraw

STATIC = Path(__file__).resolve().parent.parent / "static"
BROWN, CREAM = (59, 35, 20, 255), (251, 231, 194, 255)  # the top bar's colours (#3b2314, #fbe7c2)
SUPERSAMPLE = 4

#: One sword pointing up, in units of the emblem's height, centred on (0, 0): polygons and the pommel.
BLADE = [(0, -0.5), (0.055, -0.42), (0.055, 0.2), (-0.055, 0.2), (-0.055, -0.42)]
GUARD = [(-0.15, 0.2), (0.15, 0.2), (0.15, 0.26), (-0.15, 0.26)]
GRIP = [(-0.03, 0.26), (0.03, 0.26), (0.03, 0.4), (-0.03, 0.4)]
POMMEL = ((0, 0.44), 0.05)


def _turned(points, angle, centre, scale):
    cos, sin = math.cos(angle), math.sin(angle)
    return [(centre[0] + scale * (x * cos - y * sin), centre[1] + scale * (x * sin + y * cos)) for x, y in points]


def draw(size: int, emblem: float, full_bleed: bool) -> Image.Image:
    """An icon ``size`` px square whose crossed swords span ``emblem`` of it."""
    big = size * SUPERSAMPLE
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    pen = ImageDraw.Draw(image)
    if full_bleed:
        pen.rectangle((0, 0, big, big), fill=BROWN)
    else:
        pen.rounded_rectangle((0, 0, big - 1, big - 1), radius=big * 0.22, fill=BROWN)
    angles = (math.radians(45), math.radians(-45))
    # the emblem's bounding box at scale 1, to centre it and make its longer side ``emblem``
    corners = [p for a in angles for shape in (BLADE, GUARD, GRIP) for p in _turned(shape, a, (0, 0), 1)]
    pommels = [_turned([POMMEL[0]], a, (0, 0), 1)[0] for a in angles]
    left = min(min(x for x, _ in corners), min(x for x, _ in pommels) - POMMEL[1])
    right = max(max(x for x, _ in corners), max(x for x, _ in pommels) + POMMEL[1])
    top = min(y for _, y in corners)
    bottom = max(max(y for _, y in corners), max(y for _, y in pommels) + POMMEL[1])
    scale = big * emblem / max(right - left, bottom - top)
    centre = (big / 2 - scale * (left + right) / 2, big / 2 - scale * (top + bottom) / 2)
    for angle in angles:
        for shape in (BLADE, GUARD, GRIP):
            pen.polygon(_turned(shape, angle, centre, scale), fill=CREAM)
        (px, py), radius = _turned([POMMEL[0]], angle, centre, scale)[0], POMMEL[1] * scale
        pen.ellipse((px - radius, py - radius, px + radius, py + radius), fill=CREAM)
    return image.resize((size, size), Image.LANCZOS)


def main() -> None:
    for name, size, emblem, full_bleed in (("icon-192.png", 192, 0.72, False), ("icon-512.png", 512, 0.72, False),
                                           ("icon-maskable-512.png", 512, 0.56, True),  # inside the 80 % safe circle
                                           ("apple-touch-icon.png", 180, 0.66, True)):
        image = draw(size, emblem, full_bleed)
        (image if not full_bleed else image.convert("RGB")).save(STATIC / name, optimize=True)
        print(STATIC / name)


if __name__ == "__main__":
    main()
