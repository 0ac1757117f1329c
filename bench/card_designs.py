"""Card designs for the recognition benchmark: different frames, layouts and art, one generator each.

``bench/card_photos.py`` draws one design (parchment line art, title at the top); a
recogniser tuned to it can fail on any other. Here are more, as unlike each other as card
games are:

* ``lattice``   a lattice-patterned border, the title in a band between two corner
                medallions, coloured art composed of motifs every card draws from;
* ``poster``    full-bleed art under a thin white border, the title at the *bottom* on a
                dark strip, no rules text;
* ``ledger``    white card, heavy black frame, a small title at the top left, the art in a
                circle, a numbered table of text;
* ``split``     two-tone card, the title across the *middle* between art and text, stamp-
                like art of motifs;
* ``parchment`` the original (``card_photos.face``);
* ``tavern``    held out: never looked at while anything was tuned. Rounded corners (the
                table shows through them), a dark brown border, flat-coloured cartoon figures
                in thick black outlines, the title on a ribbon, a level and a treasure count
                along the bottom — closest to a printed fantasy card game, and the design
                ``bench/vision.py --designs tavern`` checks the others against.

Every design's deck has the hard cases: **twins** (same art, other title), **near-duplicate
names** (one letter changed, other art) and, for the motif designs, **look-alike art**
(unrelated cards built from the same few motifs). ``deck(design, n, seed)`` is seeded, and
``face(design, card)`` gives the same pixels for the same card.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Callable

import cv2
import numpy as np

from bench import card_photos as cp

W, H = cp.FACE_W, cp.FACE_H
FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX)


@dataclass(frozen=True)
class Design:
    name: str
    draw: Callable[[cp.Card], np.ndarray]
    motifs: bool                 # art from a shared pool of motifs (look-alike cards)


# -- art ------------------------------------------------------------------------------------

def _motif(img: np.ndarray, kind: int, centre, size: float, angle: float, colour, ink=(30, 30, 30)) -> None:
    """One of twelve motifs (star, tree, shield, moon, ...) drawn at ``centre``."""
    cx, cy = centre
    s = size

    def pts(poly):
        c, si = math.cos(angle), math.sin(angle)
        return np.array([[cx + s * (x * c - y * si), cy + s * (x * si + y * c)] for x, y in poly], np.int32)
    k = kind % 12
    if k == 0:    # star
        poly = [(math.cos(a) * (1 if i % 2 == 0 else 0.45), math.sin(a) * (1 if i % 2 == 0 else 0.45))
                for i, a in enumerate(np.linspace(0, 2 * math.pi, 10, endpoint=False))]
    elif k == 1:  # tree
        poly = [(0, -1), (0.6, 0.1), (0.25, 0.1), (0.25, 0.9), (-0.25, 0.9), (-0.25, 0.1), (-0.6, 0.1)]
    elif k == 2:  # shield
        poly = [(-0.7, -0.8), (0.7, -0.8), (0.7, 0.1), (0, 0.95), (-0.7, 0.1)]
    elif k == 3:  # sword
        poly = [(-0.08, -1), (0.08, -1), (0.08, 0.4), (0.35, 0.4), (0.35, 0.5), (0.08, 0.5), (0.08, 0.95),
                (-0.08, 0.95), (-0.08, 0.5), (-0.35, 0.5), (-0.35, 0.4), (-0.08, 0.4)]
    elif k == 4:  # house
        poly = [(-0.7, 0.9), (-0.7, -0.1), (0, -0.8), (0.7, -0.1), (0.7, 0.9)]
    elif k == 5:  # arrow
        poly = [(-0.9, -0.15), (0.3, -0.15), (0.3, -0.5), (0.95, 0), (0.3, 0.5), (0.3, 0.15), (-0.9, 0.15)]
    elif k == 6:  # crown
        poly = [(-0.8, 0.6), (-0.8, -0.6), (-0.4, -0.1), (0, -0.8), (0.4, -0.1), (0.8, -0.6), (0.8, 0.6)]
    elif k == 7:  # diamond
        poly = [(0, -1), (0.6, 0), (0, 1), (-0.6, 0)]
    elif k == 8:  # moon (two circles)
        cv2.circle(img, (int(cx), int(cy)), int(s), colour, -1, cv2.LINE_AA)
        cv2.circle(img, (int(cx + 0.45 * s * math.cos(angle)), int(cy + 0.45 * s * math.sin(angle))), int(0.8 * s),
                   tuple(int(c * 0.35 + 160) for c in colour), -1, cv2.LINE_AA)
        cv2.circle(img, (int(cx), int(cy)), int(s), ink, 2, cv2.LINE_AA)
        return
    elif k == 9:  # eye
        cv2.ellipse(img, (int(cx), int(cy)), (int(s), int(0.5 * s)), math.degrees(angle), 0, 360, colour, -1,
                    cv2.LINE_AA)
        cv2.circle(img, (int(cx), int(cy)), int(0.3 * s), ink, -1, cv2.LINE_AA)
        cv2.ellipse(img, (int(cx), int(cy)), (int(s), int(0.5 * s)), math.degrees(angle), 0, 360, ink, 2, cv2.LINE_AA)
        return
    elif k == 10:  # flower
        for a in np.linspace(0, 2 * math.pi, 6, endpoint=False):
            cv2.circle(img, (int(cx + 0.55 * s * math.cos(a + angle)), int(cy + 0.55 * s * math.sin(a + angle))),
                       int(0.4 * s), colour, -1, cv2.LINE_AA)
        cv2.circle(img, (int(cx), int(cy)), int(0.3 * s), ink, -1, cv2.LINE_AA)
        return
    else:         # cross-hatched square
        poly = [(-0.7, -0.7), (0.7, -0.7), (0.7, 0.7), (-0.7, 0.7)]
        p = pts(poly)
        cv2.fillPoly(img, [p], colour, cv2.LINE_AA)
        for t in np.linspace(-0.7, 0.7, 6):
            cv2.line(img, tuple(pts([(t, -0.7)])[0]), tuple(pts([(t, 0.7)])[0]), ink, 1, cv2.LINE_AA)
        cv2.polylines(img, [p], True, ink, 2, cv2.LINE_AA)
        return
    p = pts(poly)
    cv2.fillPoly(img, [p], colour, cv2.LINE_AA)
    cv2.polylines(img, [p], True, ink, 2, cv2.LINE_AA)


PALETTE = [(60, 80, 200), (50, 160, 70), (190, 120, 40), (40, 190, 220), (150, 60, 150), (200, 200, 60),
           (90, 90, 90), (30, 120, 230), (160, 40, 40), (120, 200, 160)]


def motif_art(img: np.ndarray, box, seed: int, n: tuple[int, int] = (4, 8), backdrop: bool = True) -> None:
    """Art composed of the shared motifs: a soft backdrop, then a few motifs from the pool."""
    rng = random.Random(seed)
    x0, y0, x1, y1 = box
    sub = img[y0:y1, x0:x1]
    h, w = sub.shape[:2]
    if backdrop:
        top = np.array(rng.choice(PALETTE), np.float32) * 0.4 + 150
        bottom = np.array(rng.choice(PALETTE), np.float32) * 0.4 + 110
        t = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
        sub[:] = np.clip(top * (1 - t) + bottom * t, 0, 255).astype(np.uint8)
        cv2.line(sub, (0, int(h * rng.uniform(0.55, 0.8))), (w, int(h * rng.uniform(0.55, 0.8))), (60, 70, 60), 2,
                 cv2.LINE_AA)  # a horizon
    for _ in range(rng.randint(*n)):
        _motif(sub, rng.randrange(12), (rng.uniform(0.1, 0.9) * w, rng.uniform(0.12, 0.88) * h),
               rng.uniform(0.08, 0.22) * min(w, h) * 1.6, rng.uniform(0, 2 * math.pi), rng.choice(PALETTE))


def _text_lines(img, box, seed: int, scale=0.42, colour=(35, 35, 35), font=cv2.FONT_HERSHEY_SIMPLEX, step=18):
    rng = random.Random(seed)
    x0, y0, x1, y1 = box
    y = y0 + step
    while y < y1 - 4:
        line, x = [], x0
        while True:
            word = rng.choice(cp.WORDS)
            (tw, _), _ = cv2.getTextSize(word + " ", font, scale, 1)
            if x + tw > x1:
                break
            line.append(word)
            x += tw
        cv2.putText(img, " ".join(line), (x0, y), font, scale, colour, 1, cv2.LINE_AA)
        y += step


def _title(img, text, box, colour, font=cv2.FONT_HERSHEY_DUPLEX, thickness=2, align="centre", start=1.0):
    x0, y0, x1, y1 = box
    scale = start
    (tw, th), _ = cv2.getTextSize(text, font, scale, thickness)
    while (tw > x1 - x0 - 8 or th > (y1 - y0) * 0.8) and scale > 0.3:
        scale -= 0.05
        (tw, th), _ = cv2.getTextSize(text, font, scale, thickness)
    x = x0 + 4 if align == "left" else (x0 + x1 - tw) // 2
    cv2.putText(img, text, (x, (y0 + y1 + th) // 2), font, scale, colour, thickness, cv2.LINE_AA)


# -- the designs -----------------------------------------------------------------------------

def _lattice(card: cp.Card) -> np.ndarray:
    img = np.full((H, W, 3), (70, 40, 110), np.uint8)                      # deep red-brown border
    for d in range(-H, W + H, 14):                                         # the lattice
        cv2.line(img, (d, 0), (d + H, H), (120, 170, 210), 2, cv2.LINE_AA)
        cv2.line(img, (d, 0), (d - H, H), (120, 170, 210), 2, cv2.LINE_AA)
    inner = (26, 26, W - 26, H - 26)
    cv2.rectangle(img, inner[:2], inner[2:], (215, 232, 240), -1)
    cv2.rectangle(img, inner[:2], inner[2:], (40, 60, 90), 3)
    for cx in (58, W - 58):                                                # corner medallions
        cv2.circle(img, (cx, 62), 30, (60, 150, 200), -1, cv2.LINE_AA)
        cv2.circle(img, (cx, 62), 30, (30, 50, 80), 3, cv2.LINE_AA)
        cv2.circle(img, (cx, 62), 16, (230, 240, 245), 2, cv2.LINE_AA)
    cv2.rectangle(img, (92, 42), (W - 92, 84), (90, 140, 190), -1)          # title band
    cv2.rectangle(img, (92, 42), (W - 92, 84), (30, 50, 80), 2)
    _title(img, card.title, (94, 42, W - 94, 84), (20, 20, 30), cv2.FONT_HERSHEY_TRIPLEX, 1, start=0.8)
    motif_art(img, (40, 100, W - 40, 340), card.art)
    cv2.rectangle(img, (40, 100), (W - 40, 340), (30, 50, 80), 2)
    _text_lines(img, (48, 352, W - 48, 500), card.text, 0.42)
    cv2.putText(img, card.number, (W // 2 - 20, 528), cv2.FONT_HERSHEY_TRIPLEX, 0.6, (30, 50, 80), 1, cv2.LINE_AA)
    return img


def _poster(card: cp.Card) -> np.ndarray:
    img = np.full((H, W, 3), 245, np.uint8)
    motif_art(img, (10, 10, W - 10, H - 10), card.art, n=(7, 12))
    strip = img[H - 110:H - 40, 10:W - 10].astype(np.float32)
    img[H - 110:H - 40, 10:W - 10] = (strip * 0.25 + 10).astype(np.uint8)  # dark strip under the title
    _title(img, card.title.upper(), (20, H - 110, W - 20, H - 40), (250, 250, 250), cv2.FONT_HERSHEY_SIMPLEX, 2,
           start=1.1)
    cv2.putText(img, card.number, (24, H - 18), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (60, 60, 60), 1, cv2.LINE_AA)
    return img


def _ledger(card: cp.Card) -> np.ndarray:
    img = np.full((H, W, 3), 250, np.uint8)
    cv2.rectangle(img, (8, 8), (W - 9, H - 9), (20, 20, 20), 14)
    _title(img, card.title, (28, 26, W - 90, 70), (20, 20, 20), cv2.FONT_HERSHEY_SIMPLEX, 2, "left", start=0.9)
    cv2.putText(img, card.number, (W - 84, 58), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (20, 20, 160), 2, cv2.LINE_AA)
    art = np.full((H, W, 3), 250, np.uint8)
    cp._art(art, card.art)                                                # line art, cut to a circle
    mask = np.zeros((H, W), np.uint8)
    cv2.circle(mask, (W // 2, 205), 118, 255, -1, cv2.LINE_AA)
    shifted = np.roll(art, (-5, 0), axis=(0, 1))
    img[mask > 0] = shifted[mask > 0]
    cv2.circle(img, (W // 2, 205), 118, (20, 20, 20), 3, cv2.LINE_AA)
    for i, y in enumerate(range(345, 520, 34)):                            # a numbered table of text
        cv2.line(img, (28, y), (W - 28, y), (150, 150, 150), 1)
        cv2.putText(img, str(i + 1), (34, y + 24), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (20, 20, 20), 1, cv2.LINE_AA)
    _text_lines(img, (62, 345, W - 30, 515), card.text, 0.4, step=34)
    return img


def _split(card: cp.Card) -> np.ndarray:
    img = np.empty((H, W, 3), np.uint8)
    img[:H // 2] = (200, 225, 190)
    img[H // 2:] = (180, 200, 235)
    motif_art(img, (30, 24, W - 30, 236), card.art, n=(3, 6), backdrop=False)
    cv2.rectangle(img, (0, 250), (W, 300), (50, 50, 50), -1)               # the title across the middle
    _title(img, card.title, (10, 250, W - 10, 300), (240, 230, 120), cv2.FONT_HERSHEY_COMPLEX, 2, start=1.0)
    _text_lines(img, (34, 310, W - 34, 500), card.text, 0.45, (60, 40, 30), cv2.FONT_HERSHEY_DUPLEX, 21)
    cv2.circle(img, (W - 40, H - 36), 18, (50, 50, 50), 2, cv2.LINE_AA)
    cv2.putText(img, card.number[:2], (W - 52, H - 30), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (50, 50, 50), 1, cv2.LINE_AA)
    return img


def _figure(img: np.ndarray, box, seed: int) -> None:
    """Cartoon art: a tinted backdrop, a floor, one to three figures of flat-coloured shapes
    (body, head, eyes, a weapon) in thick black outlines."""
    rng = random.Random(seed)
    x0, y0, x1, y1 = box
    sub = img[y0:y1, x0:x1]
    h, w = sub.shape[:2]
    sub[:] = np.array(rng.choice(PALETTE), np.float32) * 0.3 + 170
    floor = int(h * rng.uniform(0.7, 0.85))
    sub[floor:] = np.array(rng.choice(PALETTE), np.float32) * 0.5 + 80
    ink, thick = (20, 20, 20), 3
    n = rng.randint(1, 3)
    for k in range(n):
        cx = w * (k + 0.5 + rng.uniform(-0.15, 0.15)) / n
        size = h * rng.uniform(0.22, 0.38) / math.sqrt(n)
        body = (int(cx), int(floor - size * 0.6))
        axes = (int(size * rng.uniform(0.35, 0.6)), int(size * rng.uniform(0.5, 0.7)))
        colour = rng.choice(PALETTE)
        cv2.ellipse(sub, body, axes, rng.uniform(-20, 20), 0, 360, colour, -1, cv2.LINE_AA)
        cv2.ellipse(sub, body, axes, 0, 0, 360, ink, thick, cv2.LINE_AA)
        head = (int(cx + rng.uniform(-0.2, 0.2) * size), int(body[1] - axes[1] - size * 0.25))
        r = int(size * rng.uniform(0.22, 0.32))
        cv2.circle(sub, head, r, tuple(int(c) for c in rng.choice(PALETTE)), -1, cv2.LINE_AA)
        cv2.circle(sub, head, r, ink, thick, cv2.LINE_AA)
        for side in (-1, 1):  # eyes
            eye = (head[0] + side * r // 3, head[1] - r // 6)
            cv2.circle(sub, eye, max(3, r // 4), (245, 245, 245), -1, cv2.LINE_AA)
            cv2.circle(sub, eye, max(2, r // 9), ink, -1, cv2.LINE_AA)
        cv2.ellipse(sub, (head[0], head[1] + r // 3), (r // 2, r // 5), 0, 0, 180, ink, 2, cv2.LINE_AA)
        a = rng.uniform(-math.pi, 0)  # a weapon held out
        hand = (int(cx + axes[0] * 0.9), body[1])
        tip = (int(hand[0] + math.cos(a) * size), int(hand[1] + math.sin(a) * size))
        cv2.line(sub, hand, tip, (200, 200, 210), 6, cv2.LINE_AA)
        cv2.line(sub, hand, tip, ink, 2, cv2.LINE_AA)
    for _ in range(rng.randint(2, 5)):  # props: stars, coins, flames
        _motif(sub, rng.choice((0, 5, 7, 10)), (rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.6) * h),
               rng.uniform(0.05, 0.1) * w, rng.uniform(0, 2 * math.pi), rng.choice(PALETTE), ink)


RADIUS = 22  # the tavern card's corner radius in pixels (3.5 of 63 mm)


def _tavern(card: cp.Card) -> np.ndarray:
    """A BGRA face: alpha 0 outside the rounded corners, so a photo shows the table there."""
    img = np.full((H, W, 3), (30, 55, 85), np.uint8)                       # dark brown border
    cv2.rectangle(img, (14, 14), (W - 15, H - 15), (200, 228, 240), -1)    # cream panel
    cv2.rectangle(img, (14, 14), (W - 15, H - 15), (20, 35, 60), 2)
    ribbon = np.array([[22, 30], [W - 23, 30], [W - 38, 52], [W - 23, 74], [22, 74], [37, 52]], np.int32)
    cv2.fillPoly(img, [ribbon], (70, 150, 220), cv2.LINE_AA)
    cv2.polylines(img, [ribbon], True, (20, 35, 60), 2, cv2.LINE_AA)
    _title(img, card.title, (40, 30, W - 40, 74), (25, 25, 40), cv2.FONT_HERSHEY_COMPLEX, 2, start=0.95)
    _figure(img, (30, 86, W - 30, 330), card.art)
    cv2.rectangle(img, (30, 86), (W - 30, 330), (20, 20, 20), 3)
    _text_lines(img, (36, 340, W - 36, 492), card.text, 0.43, (40, 40, 50), cv2.FONT_HERSHEY_DUPLEX, 20)
    cv2.line(img, (30, 500), (W - 30, 500), (20, 35, 60), 2)
    level = card.number if card.number.isdigit() else "1"
    cv2.putText(img, f"Level {level}", (34, 530), cv2.FONT_HERSHEY_TRIPLEX, 0.6, (25, 25, 40), 1, cv2.LINE_AA)
    treasure = f"{1 + int(level) % 4} Treasure" if card.number.isdigit() else card.number
    (tw, _), _ = cv2.getTextSize(treasure, cv2.FONT_HERSHEY_TRIPLEX, 0.6, 1)
    cv2.putText(img, treasure, (W - 34 - tw, 530), cv2.FONT_HERSHEY_TRIPLEX, 0.6, (25, 25, 40), 1, cv2.LINE_AA)
    alpha = np.zeros((H, W), np.uint8)
    cv2.rectangle(alpha, (RADIUS, 0), (W - 1 - RADIUS, H - 1), 255, -1)
    cv2.rectangle(alpha, (0, RADIUS), (W - 1, H - 1 - RADIUS), 255, -1)
    for cx in (RADIUS, W - 1 - RADIUS):
        for cy in (RADIUS, H - 1 - RADIUS):
            cv2.circle(alpha, (cx, cy), RADIUS, 255, -1, cv2.LINE_AA)
    img[alpha == 0] = 0  # what an image editor leaves under transparent pixels
    return np.dstack([img, alpha])


DESIGNS = {d.name: d for d in (
    Design("parchment", cp.face, False),
    Design("lattice", _lattice, True),
    Design("poster", _poster, True),
    Design("ledger", _ledger, False),
    Design("split", _split, True),
    Design("tavern", _tavern, False),
)}
REPORTED = ("parchment", "lattice", "poster")   # the figures
CALIBRATION = ("ledger", "split")               # thresholds are fitted on these alone
HELD_OUT = ("tavern",)                          # never used to tune anything: a check from outside


def face(design: str, card: cp.Card) -> np.ndarray:
    """The card's face: BGR, or BGRA for a design with rounded corners (``tavern``)."""
    return DESIGNS[design].draw(card)


def printed(design: str, card: cp.Card) -> np.ndarray:
    """The face as a scanner sees it: BGR, rounded corners on the white of the scanner's lid."""
    img = face(design, card)
    if img.shape[2] == 3:
        return img
    alpha = img[:, :, 3:].astype(np.float32) / 255
    return (img[:, :, :3] * alpha + 255 * (1 - alpha)).astype(np.uint8)


def _near_name(title: str, rng: random.Random) -> str:
    """A title one letter away from ``title`` (changed, added or dropped)."""
    i = rng.randrange(len(title))
    op = rng.randrange(3)
    letter = rng.choice("aeioulnrst")
    if op == 0 and title[i] != " ":
        return title[:i] + letter + title[i + 1:]
    if op == 1:
        return title + "s"
    return title[:i] + title[i + 1:] if len(title) > 3 and title[i] != " " else title + "e"


def deck(design: str, n: int, seed: int = 1, prefix: str | None = None) -> list[cp.Card]:
    """``n`` cards of ``design``: every 20th the twin of the one before (same art and text,
    other title), every 15th named one letter away from an earlier card (other art)."""
    rng = random.Random(f"{design}-{seed}")
    prefix = prefix or design
    cards: list[cp.Card] = []
    titles: set[str] = set()
    for i in range(n):
        if i % 15 == 14 and cards:
            title = _near_name(rng.choice(cards).title, rng)
        else:
            title = cp.title_for(rng)
        while title.casefold() in titles:
            title = cp.title_for(rng)
        titles.add(title.casefold())
        if i % 20 == 19 and cards:
            twin = cards[-1]
            cards.append(cp.Card(f"{prefix}-{seed}-{i:05d}", title, twin.art, twin.text, twin.number))
        else:
            cards.append(cp.Card(f"{prefix}-{seed}-{i:05d}", title, rng.getrandbits(32), rng.getrandbits(32),
                                 str(rng.randint(1, 20)) if rng.random() < 0.5 else f"{rng.randint(1, 9)}00 Gold"))
    return cards
