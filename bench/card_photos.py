"""Synthetic Munchkin-like card faces and phone-like photos of them, for tests and benchmarks.

No real card art may ship with the project, so recognition is measured on generated cards
that are as hard as the real ones in the ways that matter:

* every face shares one frame and layout (cream border, dark frame line, title band, art
  box, rules text box, a number at the bottom) — like one game's cards do;
* the art is black line drawing on parchment (the base game is not in colour), so colour
  alone identifies nothing;
* ``twin`` faces copy another face's art and rules text and differ **only in the title**.

Photos put one face on a cluttered table (other cards, coins, dice, paper) with a 3-D tilt,
any in-plane rotation, uneven light, a glare spot, blur, sensor noise, a finger over a corner,
a slight bend, and JPEG compression. Three documented tiers (``TIERS``) set how much of each;
a tier with ``covered`` also lays another card, a face-down card or paper over part of the card.

Everything is seeded: ``face(card)`` and ``photo(face, tier, seed)`` give the same pixels for
the same arguments, so a failing test case can be regenerated exactly.
"""
from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass

import cv2
import numpy as np

FACE_W, FACE_H = 400, 560  # 63 × 88 mm at about 6.4 px/mm
PARCHMENT = (176, 214, 232)  # BGR
INK = (40, 38, 45)
WORDS = ("the of and gains loses level monster treasure curse item bonus against elves dwarves halflings "
         "clerics wizards thieves warriors run away bad stuff draw discard play usable only by big helmet "
         "armor boots sword potion goes up one two three plus minus turn combat card hand").split()
SYLLABLES = ("gob lin tro ll dra gon orc ish sli me vam pir ka zor bel mun chk ax er ion ul tar ny ix ost ra "
             "wen dor fl am hel mut pot ty bun cra bby").split()


@dataclass(frozen=True)
class Card:
    """What a generated face shows: ``art`` and ``text`` seeds are shared by twins."""
    id: str
    title: str
    art: int
    text: int
    number: str


def title_for(rng: random.Random) -> str:
    words = ["".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 3))).capitalize()
             for _ in range(rng.randint(1, 3))]
    return " ".join(words)[:22]


def deck(n: int, seed: int = 1, twins_every: int = 25, prefix: str = "syn") -> list[Card]:
    """``n`` cards; every ``twins_every``-th card is the twin of the one before it."""
    rng = random.Random(seed)
    cards: list[Card] = []
    for i in range(n):
        title = title_for(rng)
        if twins_every and i % twins_every == twins_every - 1 and cards:
            twin = cards[-1]
            cards.append(Card(f"{prefix}-{seed}-{i:05d}", title, twin.art, twin.text, twin.number))
        else:
            cards.append(Card(f"{prefix}-{seed}-{i:05d}", title, rng.getrandbits(32), rng.getrandbits(32),
                              str(rng.randint(1, 20)) if rng.random() < 0.5 else f"{rng.randint(1, 9)}00 Gold"))
    return cards


def card_for(card_id: str, title: str) -> Card:
    """A face for a real card id (tests and demos): its title, art and text seeded by the id."""
    seed = int.from_bytes(hashlib.sha256(card_id.encode()).digest()[:8], "big")
    return Card(card_id, title, seed & 0xFFFFFFFF, seed >> 32, str(seed % 19 + 1))


def _frame() -> np.ndarray:
    """The shared frame: the same for every card (like one game's card template)."""
    rng = np.random.default_rng(7)
    img = np.empty((FACE_H, FACE_W, 3), np.float32)
    img[:] = PARCHMENT
    grain = cv2.GaussianBlur(rng.normal(0, 9, (FACE_H, FACE_W)).astype(np.float32), (0, 0), 3)
    img += grain[..., None]
    img[:12, :] = img[-12:, :] = (205, 228, 240)
    img[:, :12] = img[:, -12:] = (205, 228, 240)
    img = np.clip(img, 0, 255).astype(np.uint8)
    cv2.rectangle(img, (14, 14), (FACE_W - 15, FACE_H - 15), (50, 60, 90), 5)
    cv2.rectangle(img, (30, 28), (FACE_W - 31, 78), (60, 90, 140), 2)      # title band
    cv2.rectangle(img, (36, 90), (FACE_W - 37, 330), (45, 45, 55), 2)      # art box
    cv2.rectangle(img, (36, 342), (FACE_W - 37, 512), (90, 110, 140), 1)   # rules text box
    cv2.circle(img, (FACE_W // 2, 535), 14, (60, 90, 140), 2)              # ornament
    return img


_FRAME = None


def frame() -> np.ndarray:
    global _FRAME
    if _FRAME is None:
        _FRAME = _frame()
    return _FRAME.copy()


def _art(img: np.ndarray, seed: int) -> None:
    """Black line art in the art box: strokes, curves, hatched shapes, eyes."""
    rng = random.Random(seed)
    x0, y0, x1, y1 = 44, 98, FACE_W - 45, 322
    sub = img[y0:y1, x0:x1]
    h, w = sub.shape[:2]
    for _ in range(rng.randint(3, 6)):  # big figure outlines
        pts = np.array([[rng.randint(0, w), rng.randint(0, h)] for _ in range(rng.randint(4, 8))], np.int32)
        pts = cv2.convexHull(pts)
        if rng.random() < 0.4:
            cv2.fillPoly(sub, [pts], tuple(rng.randint(150, 215) for _ in range(3)))
        cv2.polylines(sub, [pts], True, INK, rng.randint(2, 4), cv2.LINE_AA)
    for _ in range(rng.randint(6, 14)):  # curves
        cx, cy = rng.randint(0, w), rng.randint(0, h)
        cv2.ellipse(sub, (cx, cy), (rng.randint(8, 70), rng.randint(6, 50)), rng.randint(0, 180),
                    rng.randint(0, 180), rng.randint(180, 360), INK, rng.randint(1, 3), cv2.LINE_AA)
    for _ in range(rng.randint(2, 4)):  # hatching
        cx, cy, r = rng.randint(20, w - 20), rng.randint(20, h - 20), rng.randint(10, 30)
        for k in range(-r, r, 5):
            cv2.line(sub, (cx + k, cy - r), (cx + k + r // 2, cy + r), INK, 1, cv2.LINE_AA)
    for _ in range(rng.randint(1, 3)):  # eyes
        cx, cy = rng.randint(20, w - 20), rng.randint(20, h - 20)
        cv2.circle(sub, (cx, cy), rng.randint(5, 12), (240, 240, 240), -1)
        cv2.circle(sub, (cx, cy), rng.randint(2, 4), INK, -1)


def _text(img: np.ndarray, seed: int, number: str) -> None:
    rng = random.Random(seed)
    y = 366
    while y < 500:
        line, x = [], 46
        while True:
            word = rng.choice(WORDS)
            (tw, _), _ = cv2.getTextSize(word + " ", cv2.FONT_HERSHEY_SIMPLEX, 0.45, 1)
            if x + tw > FACE_W - 46:
                break
            line.append(word)
            x += tw
        cv2.putText(img, " ".join(line), (46, y), cv2.FONT_HERSHEY_SIMPLEX, 0.45, INK, 1, cv2.LINE_AA)
        y += 19
    cv2.putText(img, number, (52, 545), cv2.FONT_HERSHEY_SIMPLEX, 0.55, INK, 1, cv2.LINE_AA)


def face(card: Card) -> np.ndarray:
    """The card's face as a FACE_H × FACE_W BGR image."""
    img = frame()
    _art(img, card.art)
    _text(img, card.text, card.number)
    scale = 1.1
    (tw, th), _ = cv2.getTextSize(card.title, cv2.FONT_HERSHEY_COMPLEX, scale, 2)
    while tw > FACE_W - 80 and scale > 0.35:
        scale -= 0.05
        (tw, th), _ = cv2.getTextSize(card.title, cv2.FONT_HERSHEY_COMPLEX, scale, 2)
    cv2.putText(img, card.title, ((FACE_W - tw) // 2, 53 + th // 2), cv2.FONT_HERSHEY_COMPLEX, scale, INK, 2,
                cv2.LINE_AA)
    return img


@dataclass(frozen=True)
class Tier:
    """How hard a photo is. Ranges are (low, high) drawn uniformly."""
    name: str
    tilt: tuple[float, float]          # degrees out of the table plane
    fill: tuple[float, float]          # share of the frame the card covers
    light: float                       # strength of the light gradient (0 = even)
    glare: float                       # chance of a glare spot
    finger: float                      # chance of a finger over a corner
    bend: float                        # chance of a slight bend
    blur: tuple[float, float]          # Gaussian sigma in px at 1600 × 1200
    motion: float                      # chance of motion blur
    noise: tuple[float, float]         # sensor noise sigma
    jpeg: tuple[int, int]              # JPEG quality
    clutter: tuple[int, int]           # number of other objects on the table
    covered: tuple[float, float] = (0.0, 0.0)  # share of the card under one thing lying over it


TIERS = {
    "easy": Tier("easy", (0, 12), (0.35, 0.70), 0.15, 0.0, 0.0, 0.0, (0.0, 0.6), 0.0, (1, 3), (85, 95), (0, 3)),
    "medium": Tier("medium", (5, 25), (0.20, 0.70), 0.35, 0.5, 0.3, 0.3, (0.3, 1.2), 0.2, (2, 5), (65, 90),
                   (2, 6)),
    "hard": Tier("hard", (20, 35), (0.15, 0.45), 0.55, 1.0, 0.6, 0.6, (0.8, 2.0), 0.4, (4, 8), (45, 70), (4, 10)),
}


def _table(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    base = np.array([rng.uniform(30, 140), rng.uniform(40, 150), rng.uniform(50, 170)], np.float32)
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    grain = cv2.resize(rng.normal(0, 14, (h // 16 + 1, w // 2 + 1)).astype(np.float32), (w, h))
    img += grain[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


TABLES = ("wood", "cloth", "felt", "desk")


def _surface(rng: np.random.Generator, kind: str, w: int, h: int) -> np.ndarray:
    """A textured table top: wood grain, woven cloth, felt, or a plain desk with a seam."""
    if kind == "wood":
        base = np.array([rng.uniform(40, 90), rng.uniform(80, 130), rng.uniform(120, 190)], np.float32)
        ys = np.arange(h, dtype=np.float32)[:, None]
        xs = np.arange(w, dtype=np.float32)[None, :]
        warp = cv2.resize(rng.normal(0, 1, (8, 8)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        grain = np.sin((ys + 40 * warp) / rng.uniform(6, 14) + xs * 0.002) * 18
        streak = cv2.resize(rng.normal(0, 10, (h // 4 + 1, 4)).astype(np.float32), (w, h))
        tex = grain + streak
    elif kind == "cloth":
        base = np.array([rng.uniform(60, 200), rng.uniform(60, 200), rng.uniform(60, 200)], np.float32)
        ys, xs = np.arange(h, dtype=np.float32)[:, None], np.arange(w, dtype=np.float32)[None, :]
        period = rng.uniform(3, 6)
        tex = (np.sin(xs / period) * np.sin(ys / period)) * 14 + rng.normal(0, 6, (h, w)).astype(np.float32)
        if rng.random() < 0.5:  # checks
            tex += ((xs // 60 + ys // 60) % 2) * 30 - 15
    elif kind == "felt":
        base = np.array([rng.uniform(30, 80), rng.uniform(90, 140), rng.uniform(30, 70)], np.float32)
        tex = cv2.GaussianBlur(rng.normal(0, 14, (h, w)).astype(np.float32), (0, 0), 1.2)
    else:  # desk
        base = np.array([rng.uniform(150, 230)] * 3, np.float32) * rng.uniform(0.85, 1.0, 3).astype(np.float32)
        tex = cv2.GaussianBlur(rng.normal(0, 4, (h, w)).astype(np.float32), (0, 0), 2)
        seam = int(rng.uniform(0.2, 0.8) * h)
        tex[seam:seam + 3] -= 60
    img = base[None, None, :] + tex[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def _face_down(prng: random.Random) -> np.ndarray:
    """The back of a card: a border and a repeated pattern, the same for every card."""
    back = np.full((FACE_H, FACE_W, 3), (40, 60, 120), np.uint8)
    cv2.rectangle(back, (20, 20), (FACE_W - 21, FACE_H - 21), (90, 170, 220), 6)
    for y in range(50, FACE_H - 40, 40):
        for x in range(50, FACE_W - 40, 40):
            cv2.circle(back, (x, y), 10, (70, 120, 180), 2, cv2.LINE_AA)
    cv2.putText(back, "DOOR" if prng.random() < 0.5 else "TREASURE", (70, FACE_H // 2),
                cv2.FONT_HERSHEY_TRIPLEX, 1.3, (200, 230, 250), 2, cv2.LINE_AA)
    return back


def _paste(dst: np.ndarray, src: np.ndarray, H: np.ndarray) -> None:
    """Draw ``src`` through homography ``H`` onto ``dst``, blending its anti-aliased edge (and,
    for a BGRA ``src``, its alpha: a card's rounded corners)."""
    h, w = dst.shape[:2]
    sh, sw = src.shape[:2]
    corners = cv2.perspectiveTransform(np.array([[[0, 0], [sw, 0], [sw, sh], [0, sh]]], np.float32), H)[0]
    x0, y0 = np.maximum(np.floor(corners.min(0)).astype(int) - 2, 0)
    x1, y1 = np.minimum(np.ceil(corners.max(0)).astype(int) + 2, [w, h])
    if x1 <= x0 or y1 <= y0:
        return
    Hs = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ H
    size = (int(x1 - x0), int(y1 - y0))
    warped = cv2.warpPerspective(src[:, :, :3], Hs, size, flags=cv2.INTER_LINEAR)
    alpha = src[:, :, 3] if src.shape[2] == 4 else np.full((sh, sw), 255, np.uint8)
    mask = cv2.warpPerspective(alpha, Hs, size, flags=cv2.INTER_LINEAR)
    alpha = mask.astype(np.float32) / 255
    region = dst[y0:y1, x0:x1]
    region[:] = cv2.blendLinear(warped, region, alpha, 1 - alpha)


def _rot(deg: float) -> np.ndarray:
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[c, -s], [s, c]])


def _clutter(img: np.ndarray, rng: np.random.Generator, prng: random.Random, n: int, card_px: float,
             others=None) -> None:
    """``others`` (prng → a face) draws the other cards on the table, else parchment cards;
    with it the table also gets pencils and face-down cards."""
    h, w = img.shape[:2]
    kinds = ["card", "card", "coin", "die", "paper"] + (["pencil", "back", "card"] if others else [])
    for _ in range(n):
        kind = prng.choice(kinds)
        if kind == "pencil":
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
            a = rng.uniform(0, math.pi)
            length = card_px * rng.uniform(0.8, 1.4)
            d = np.array([math.cos(a), math.sin(a)]) * length / 2
            p0, p1 = (int(cx - d[0]), int(cy - d[1])), (int(cx + d[0]), int(cy + d[1]))
            col = tuple(int(c) for c in rng.uniform(30, 230, 3))
            cv2.line(img, p0, p1, col, max(3, int(card_px * 0.03)), cv2.LINE_AA)
            cv2.circle(img, p1, max(2, int(card_px * 0.015)), (40, 40, 40), -1, cv2.LINE_AA)
            continue
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        if kind == "coin":
            r = int(card_px * rng.uniform(0.08, 0.14))
            col = tuple(int(c) for c in rng.uniform([20, 120, 150], [80, 190, 220]))
            cv2.circle(img, (int(cx), int(cy)), r, col, -1, cv2.LINE_AA)
            cv2.circle(img, (int(cx), int(cy)), int(r * 0.8), tuple(max(0, c - 40) for c in col), 2, cv2.LINE_AA)
        elif kind == "die":
            s = card_px * rng.uniform(0.08, 0.12)
            box = cv2.boxPoints(((cx, cy), (s, s), rng.uniform(0, 90))).astype(np.int32)
            cv2.fillPoly(img, [box], (235, 235, 240), cv2.LINE_AA)
            for _ in range(prng.randint(1, 6)):
                p = (int(cx + rng.uniform(-s / 3, s / 3)), int(cy + rng.uniform(-s / 3, s / 3)))
                cv2.circle(img, p, max(2, int(s / 10)), (20, 20, 20), -1, cv2.LINE_AA)
        else:
            if kind == "card" and others is not None:
                other = others(prng)
                scale = card_px * rng.uniform(0.6, 1.0) / FACE_H
            elif kind == "card":
                other = face(Card("clutter", title_for(prng), prng.getrandbits(32), prng.getrandbits(32), "1"))
                scale = card_px * rng.uniform(0.5, 0.9) / FACE_H
            elif kind == "back":
                other = _face_down(prng)
                scale = card_px * rng.uniform(0.8, 1.0) / FACE_H
            else:
                other = np.full((FACE_H, int(FACE_W * 1.3), 3), 245, np.uint8)
                for y in range(40, FACE_H - 40, 24):
                    cv2.line(other, (30, y), (other.shape[1] - 30, y), (120, 120, 120), 2)
                scale = card_px * rng.uniform(0.7, 1.1) / FACE_H
            oh, ow = other.shape[:2]
            A = _rot(rng.uniform(0, 360)) * scale
            t = np.array([cx, cy]) - A @ np.array([ow / 2, oh / 2])
            H = np.vstack([np.hstack([A, t[:, None]]), [0, 0, 1]])
            _paste(img, other, H)


def _cover(img: np.ndarray, H: np.ndarray, prng: random.Random, share: tuple[float, float], others=None) -> None:
    """Lay one thing over the card (``H``: face → photo) so that it hides a share in ``share``
    of it: another card of the design (``others``), a face-down card or a sheet of paper,
    turned any way, coming in from any side — as a card half under the next one on a game
    table is. It lies on the table, so it is seen in the card's perspective."""
    kind = prng.choice(["card", "back", "paper"] if others else ["back", "paper"])
    if kind == "card":
        other, scale = others(prng), prng.uniform(0.9, 1.0)
    elif kind == "back":
        other, scale = _face_down(prng), 1.0
    else:
        other = np.full((FACE_H, int(FACE_W * 1.3), 3), 245, np.uint8)
        for y in range(40, FACE_H - 40, 24):
            cv2.line(other, (30, y), (other.shape[1] - 30, y), (120, 120, 120), 2)
        scale = prng.uniform(1.0, 1.3)
    oh, ow = other.shape[:2]
    target = prng.uniform(*share)
    heading = prng.uniform(0, 2 * math.pi)
    away = np.array([math.cos(heading), math.sin(heading)])
    A = _rot(prng.uniform(0, 360)) * scale
    centre = np.array([FACE_W / 2, FACE_H / 2])

    def placed(d: float) -> np.ndarray:  # the thing's corners on the face, its middle d px away
        t = centre + away * d - A @ np.array([ow / 2, oh / 2])
        return np.vstack([np.hstack([A, t[:, None]]), [0, 0, 1]])

    def hidden(d: float) -> float:  # the share of the face it hides, on a quarter-size mask
        M = placed(d)
        quad = cv2.perspectiveTransform(np.array([[[0, 0], [ow, 0], [ow, oh], [0, oh]]], np.float32), M)[0]
        mask = np.zeros((FACE_H // 4, FACE_W // 4), np.uint8)
        cv2.fillPoly(mask, [np.round(quad / 4).astype(np.int32)], 1)
        return float(mask.mean())

    near, far = 0.0, float(FACE_W + FACE_H + ow + oh)
    for _ in range(24):  # bisection: the further away, the less it hides
        mid = (near + far) / 2
        near, far = (mid, far) if hidden(mid) > target else (near, mid)
    _paste(img, other, H @ placed(far))


def _card_homography(rng: np.random.Generator, tier: Tier, w: int, h: int) -> np.ndarray:
    """A pinhole-camera view of the card: tilt, in-plane turn, size, and a place fully in frame."""
    f = 0.9 * w
    tilt = math.radians(rng.uniform(*tier.tilt))
    axis = rng.uniform(0, 2 * math.pi)
    spin = math.radians(rng.uniform(0, 360))
    fill = rng.uniform(*tier.fill)
    corners = np.array([[-FACE_W / 2, -FACE_H / 2], [FACE_W / 2, -FACE_H / 2], [FACE_W / 2, FACE_H / 2],
                        [-FACE_W / 2, FACE_H / 2]])
    corners = corners @ _rot(math.degrees(spin)).T
    ax = np.array([math.cos(axis), math.sin(axis), 0.0])
    K = np.array([[0, -ax[2], ax[1]], [ax[2], 0, -ax[0]], [-ax[1], ax[0], 0]])
    R = np.eye(3) + math.sin(tilt) * K + (1 - math.cos(tilt)) * K @ K
    pts3 = np.hstack([corners, np.zeros((4, 1))]) @ R.T
    for _ in range(40):
        z = 1000.0
        proj = f * pts3[:, :2] / (z + pts3[:, 2:3])
        area = cv2.contourArea(proj.astype(np.float32))
        proj *= math.sqrt(fill * w * h / area)
        lo, hi = proj.min(0), proj.max(0)
        span = hi - lo
        if span[0] < w * 0.98 and span[1] < h * 0.98:
            break
        fill *= 0.9
    off = np.array([rng.uniform(-lo[0], w - hi[0]), rng.uniform(-lo[1], h - hi[1])])
    dst = (proj + off).astype(np.float32)
    src = np.array([[0, 0], [FACE_W, 0], [FACE_W, FACE_H], [0, FACE_H]], np.float32)
    return cv2.getPerspectiveTransform(src, dst)


def _bend(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    h, w = img.shape[:2]
    amp = rng.uniform(3, 8)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    if rng.random() < 0.5:
        map_x, map_y = xs, ys + amp * np.sin(np.pi * xs / w)
    else:
        map_x, map_y = xs + amp * np.sin(np.pi * ys / h), ys
    return cv2.remap(img, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def photo(card_face: np.ndarray, tier: str | Tier = "medium", seed: int = 0, size: tuple[int, int] = (1600, 1200),
          quality: int | None = None, table: str | None = None, others=None, where: list | None = None) -> bytes:
    """A JPEG photo (bytes) of ``card_face`` lying on a cluttered table.

    ``table`` (one of ``TABLES``) gives the table a texture (else a plain grain); ``others``
    (a function of a ``random.Random`` returning a face) draws the cards lying around it,
    which then also get pencils and face-down cards for company. ``where``, when given, gets
    the card's four corners in the photo (pixels, clockwise from the face's top left)."""
    t = TIERS[tier] if isinstance(tier, str) else tier
    rng = np.random.default_rng(seed)
    prng = random.Random(seed)
    w, h = size
    s = w / 1600
    img = _table(rng, w, h) if table is None else _surface(rng, table, w, h)
    H = _card_homography(rng, t, w, h)
    if where is not None:
        fh, fw = card_face.shape[:2]
        where.extend(cv2.perspectiveTransform(np.array([[[0, 0], [fw, 0], [fw, fh], [0, fh]]], np.float32), H)[0])
    card_px = math.sqrt(abs(np.linalg.det(H[:2, :2]))) * FACE_H
    _clutter(img, rng, prng, prng.randint(*t.clutter), card_px, others)
    src = _bend(card_face, rng) if rng.random() < t.bend else card_face
    _paste(img, src, H)
    if t.covered[1] > 0:  # its own random numbers: the rest of the photo is as without it
        _cover(img, H, random.Random(f"cover-{seed}"), t.covered, others)
    out = img.astype(np.float32)
    ys, xs = np.mgrid[0:h:8, 0:w:8].astype(np.float32)  # smooth fields on a coarse grid, then resized
    gain = np.ones_like(xs)
    if t.light:  # uneven light: a linear gradient plus a soft vignette
        a = rng.uniform(0, 2 * math.pi)
        grad = ((xs / w - 0.5) * math.cos(a) + (ys / h - 0.5) * math.sin(a)) * 2 * t.light
        gain = 1 + grad * 0.6 - ((xs / w - 0.5) ** 2 + (ys / h - 0.5) ** 2) * t.light
    glare = np.zeros_like(xs)
    if rng.random() < t.glare:
        c = cv2.perspectiveTransform(np.array([[[rng.uniform(0.15, 0.85) * FACE_W,
                                                 rng.uniform(0.15, 0.85) * FACE_H]]], np.float32), H)[0, 0]
        r = card_px * rng.uniform(0.06, 0.14)
        glare = np.exp(-((xs - c[0]) ** 2 + (ys - c[1]) ** 2) / (2 * r * r)) * rng.uniform(120, 220)
    out = cv2.add(cv2.multiply(out, cv2.merge([cv2.resize(gain, (w, h))] * 3)),
                  cv2.merge([cv2.resize(glare, (w, h))] * 3))
    if rng.random() < t.finger:  # a fingertip over one corner of the card
        k = prng.randrange(4)
        corner = cv2.perspectiveTransform(np.array([[[(0, FACE_W)[k in (1, 2)], (0, FACE_H)[k in (2, 3)]]]],
                                                   np.float32), H)[0, 0]
        centre = cv2.perspectiveTransform(np.array([[[FACE_W / 2, FACE_H / 2]]], np.float32), H)[0, 0]
        d = corner - centre
        d /= np.linalg.norm(d)
        tip = corner - d * card_px * rng.uniform(0.0, 0.08)
        axes = (int(card_px * rng.uniform(0.09, 0.13)), int(card_px * 0.45))
        ang = math.degrees(math.atan2(d[1], d[0])) - 90
        ctr = tip + d * axes[1]
        skin = tuple(float(c) for c in rng.uniform([110, 150, 200], [150, 185, 235]))
        cv2.ellipse(out, (int(ctr[0]), int(ctr[1])), axes, ang, 0, 360, skin, -1, cv2.LINE_AA)
    sigma = rng.uniform(*t.blur) * s
    if sigma > 0.2:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    if rng.random() < t.motion:
        n = int(rng.integers(3, 8))
        kern = np.zeros((n, n), np.float32)
        kern[n // 2, :] = 1 / n
        M = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), rng.uniform(0, 180), 1)
        kern = cv2.warpAffine(kern, M, (n, n))
        out = cv2.filter2D(out, -1, kern / max(kern.sum(), 1e-6))
    noise = np.empty_like(out)
    cv2.setRNGSeed(seed)
    cv2.randn(noise, 0, rng.uniform(*t.noise))
    img = cv2.add(out, noise).clip(0, 255).astype(np.uint8)
    q = quality if quality is not None else int(rng.integers(t.jpeg[0], t.jpeg[1] + 1))
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
    assert ok
    return buf.tobytes()


LIGHTS = ("shadow", "dim", "haze", "bright")


def relit(data: bytes, light: str, seed: int) -> bytes:
    """The JPEG photo ``data`` under other light, again as a JPEG (quality 90): ``shadow`` —
    a soft-edged shadow (a phone's or a hand's held over the table) leaving 45 % of the light
    on one side of a line at any angle near the middle of the picture —, ``dim``: an
    underexposed photo (gamma 1.8, at most 80 % of full scale), darkest in the dark, or
    ``haze``: a washed-out photo (a dirty lens, a bright window behind the card), 30 % of
    the contrast around a light grey, or ``bright``: an overexposed photo (the camera metered
    the dark table, or a lamp straight above: gamma 0.6, 1.5 times the light), the card's
    cream and its lighter inks clipped to white."""
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR).astype(np.float32)
    h, w = img.shape[:2]
    if light == "shadow":
        rng = np.random.default_rng(seed)
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        a, off = rng.uniform(0, 2 * math.pi), rng.uniform(-0.2, 0.2)
        across = (xs / w - 0.5) * math.cos(a) + (ys / h - 0.5) * math.sin(a) - off
        img *= (1 - 0.55 / (1 + np.exp(-across * 40)))[..., None]
    elif light == "dim":
        img = (img / 255) ** 1.8 * 200
    elif light == "haze":
        img = 90 + 0.3 * img
    elif light == "bright":
        img = (img / 255) ** 0.6 * 1.5 * 255
    else:
        raise ValueError(f"light must be one of {', '.join(LIGHTS)}")
    ok, buf = cv2.imencode(".jpg", np.clip(img, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return buf.tobytes()
