#!/usr/bin/env python3
"""An outsider's photo set for benchmarking the card recogniser.

What: enrolled reference scans of invented cards plus phone-like photos of those cards (and of
cards that are not enrolled) lying on tables among clutter, with a truth file naming the card in
each photo.

Why: the project's own photo generator and its recogniser come from the same hands and may share
blind spots.  This generator was written from a plain description of the reviewer's acceptance
set only -- without reading the recogniser or the project's generator -- so a benchmark on it
cannot flatter the recogniser by construction.

Designs: `ribbon` (title on a ribbon band above framed, engraved art inside a lattice border),
`cartoon` (big black title over bright, thick-outlined art on a white card) and `night` (dark
full-bleed art, a gem badge with the level, the title on a dark bar along the bottom).

Usage:
    python bench/outside_set.py OUT_DIR [--design {ribbon,cartoon,night}] [--cards 300]
                                [--photos 950] [--unknown 0.05] [--seed 1] [--jobs 2]
Writes OUT_DIR/cards/<id>.png, OUT_DIR/photos/<NNNN>.jpg, OUT_DIR/truth.csv,
OUT_DIR/titles.csv and OUT_DIR/README.txt.  Output depends only on the arguments.
"""

import argparse
import csv
import math
import shlex
import sys
import time
from dataclasses import dataclass
from functools import lru_cache
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

FACE_W, FACE_H = 500, 700
HALF = np.array([31.5, 44.1])            # half card size in mm
TITLE_ZONE = 0.17                        # fraction of the card's height holding the title
TITLE_SIDE = {"ribbon": -1, "cartoon": -1, "night": 1}   # title at the top (-1) or bottom (1)
SQUARE = np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)])
TIERS = ("easy", "medium", "hard")
PHOTO_SIZES = ((1600, 1200), (2016, 1512), (1280, 960), (1600, 1200), (1200, 1600), (1512, 2016))
AA = cv2.LINE_AA

TIER = {  # ranges (lo, hi) and probabilities per difficulty tier
    "easy": dict(tilt=(0, 15), cover=(.30, .60), quality=(85, 95), clutter=(1, 4), faceup=1,
                 focus=(0, .5), dof=(.5, 2), motion=(.1, 1, 3), noise=(.004, .01),
                 glare=(.3, .1, .3), shade=(.2, .15, .3), finger=.1, curl=3, light=.12,
                 vignette=.15, exposure=(.95, 1.1), cast=.04, lens=(0, .03), ca=.0003),
    "medium": dict(tilt=(10, 30), cover=(.20, .45), quality=(72, 88), clutter=(3, 7), faceup=2,
                   focus=(.3, 1), dof=(2, 4), motion=(.5, 2, 6), noise=(.01, .022),
                   glare=(.6, .25, .5), shade=(.5, .2, .4), finger=.25, curl=8, light=.22,
                   vignette=.25, exposure=(.8, 1.12), cast=.08, lens=(.01, .05), ca=.0007),
    "hard": dict(tilt=(25, 45), cover=(.15, .35), quality=(50, 75), clutter=(5, 10), faceup=3,
                 focus=(.6, 1.5), dof=(3, 7), motion=(.7, 3, 11), noise=(.02, .04),
                 glare=(.85, .4, .75), shade=(.7, .3, .5), finger=.35, curl=14, light=.32,
                 vignette=.35, exposure=(.7, 1.15), cast=.12, lens=(.02, .07), ca=.0012),
}


def pick(rng, seq):
    """One element of a sequence, as a plain Python value."""
    return seq[int(rng.integers(len(seq)))]


# --------------------------------------------------------------------------------- titles

ADJ = ("Cursed Mighty Sneaky Rusty Golden Flaming Frozen Tiny Giant Hairy Wicked Holy Shiny "
       "Greasy Ancient Mad Spiky Lucky Rotten Silent Howling Crimson Sleepy Angry Royal Dire "
       "Feral Mystic Bent Broken").split()
NOUN = ("Sword Helm Boots Cloak Axe Shield Ring Amulet Hammer Dagger Staff Wand Potion Scroll "
        "Lance Bow Gauntlets Crown Mace Lantern Club Spear Chalice Mirror Horn Belt Flail Sabre "
        "Orb Tome").split()
BEAST = ("Goblin Troll Orc Dragon Kobold Ogre Wraith Lich Harpy Gnome Imp Hydra Ghoul Wyvern "
         "Bugbear Slime Minotaur Basilisk Gremlin Banshee Werewolf Squid Duck Bat Toad").split()
ROLE = "Lord King Queen Shaman Knight Thief Wizard Priest Brute Archer Chef Bard Squire Hunter Witch".split()
THING = "Doom Speed Flame Frost Greed Light Shadows Sorrow Stench Thunder Wisdom Luck Ages Madness Teeth Glory".split()
SYLLABLES = "ka lo mi ra tu en or an gre th el is ve no sa ri um ba de fo ul ix wa ter".split()


def new_title(rng, used):
    """A fresh English-like fantasy name not yet in `used`."""
    while True:
        a, n, b, r, t = (pick(rng, s) for s in (ADJ, NOUN, BEAST, ROLE, THING))
        title = pick(rng, (f"{a} {n}", f"{n} of {t}", f"{b} {r}", f"{a} {b}",
                           f"{a} {n} of {t}", f"The {b} {r}"))
        if title not in used:
            used.add(title)
            return title


def one_letter_off(rng, title, used):
    """`title` with one letter of one word changed, mostly a vowel ("Goblin Lord" -> "Goblin Lard")."""
    words = title.split()
    changeable = [k for k, word in enumerate(words) if word not in ("The", "of")]
    while True:
        k = pick(rng, changeable)
        vowels = [i for i, ch in enumerate(words[k]) if i and ch in "aeiou"]
        i = pick(rng, vowels) if vowels and rng.random() < .75 else int(rng.integers(1, len(words[k])))
        old = words[k][i]
        new = pick(rng, [c for c in ("aeiou" if old in "aeiou" else "rtnslmdkbg") if c != old])
        cand = " ".join(words[:k] + [words[k][:i] + new + words[k][i + 1:]] + words[k + 1:])
        if cand not in used:
            used.add(cand)
            return cand


@dataclass(frozen=True)
class Card:
    """A card: its art and rules text are fully determined by the two seeds."""
    id: str
    title: str
    art: int
    text: int


def unknown_cards(n_photos, unknown):
    """How many cards that are not enrolled a set of `n_photos` photos, `unknown` of them of
    such cards, draws from (each shown about twice, three at least)."""
    return max(3, math.ceil(n_photos * unknown / 2))


def build_cards(n_enrolled, n_unknown, seed):
    """Enrolled cards (every 20th a twin of the previous one, every 20th+10 a one-letter-off
    name of the previous one) followed by unknown cards (a third twins of enrolled cards, a
    third with near-identical names of enrolled cards, a third unrelated)."""
    rng = np.random.default_rng([seed, 0])
    used, cards = set(), []
    seeds = lambda: (int(rng.integers(2**31)), int(rng.integers(2**31)))
    for i in range(1, n_enrolled + n_unknown + 1):
        cid = f"ob-{i:04d}"
        if i <= n_enrolled:
            if i % 20 == 0:
                cards.append(Card(cid, new_title(rng, used), cards[-1].art, cards[-1].text))
            elif i % 20 == 10:
                cards.append(Card(cid, one_letter_off(rng, cards[-1].title, used), *seeds()))
            else:
                cards.append(Card(cid, new_title(rng, used), *seeds()))
            continue
        twin = cards[int(rng.integers(n_enrolled))]
        kind = (i - n_enrolled) % 3
        if kind == 1:
            cards.append(Card(cid, new_title(rng, used), twin.art, twin.text))
        elif kind == 2:
            cards.append(Card(cid, one_letter_off(rng, twin.title, used), *seeds()))
        else:
            cards.append(Card(cid, new_title(rng, used), *seeds()))
    return cards


# ----------------------------------------------------------------------- drawing helpers

def _c(col):
    return tuple(float(v) for v in col)


def _fix(pts):
    return [np.round(np.asarray(pts, np.float64) * 16).astype(np.int32).reshape(-1, 1, 2)]


def fill(img, pts, col):
    """Anti-aliased filled polygon with sub-pixel vertices."""
    cv2.fillPoly(img, _fix(pts), _c(col), AA, 4)


def stroke(img, pts, col, width, closed=False):
    """Anti-aliased polyline."""
    cv2.polylines(img, _fix(pts), closed, _c(col), max(1, int(round(width))), AA, 4)


def _ellipse(x, y, ax, ay, n=40):
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.stack([x + ax * np.cos(t), y + ay * np.sin(t)], 1)


def _star(n, r1, r2):
    t = np.arange(2 * n) * np.pi / n
    r = np.where(np.arange(2 * n) % 2 == 0, r1, r2)
    return np.stack([r * np.sin(t), -r * np.cos(t)], 1)


def _heart():
    t = np.linspace(0, 2 * np.pi, 60)
    y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t)) / 17
    return np.stack([np.sin(t) ** 3 * .95, y + .1], 1)


def _crescent():
    a = np.radians(np.linspace(60, 300, 30))
    outer = np.stack([.85 * np.cos(a), .85 * np.sin(a)], 1)
    inner = np.stack([.3 + .66 * np.cos(a[::-1]), .66 * np.sin(a[::-1])], 1)
    return np.vstack([outer, inner])


def _smooth(pts, rounds=3):
    """Chaikin corner cutting: turns a closed control polygon into a smooth outline."""
    pts = np.asarray(pts, float)
    for _ in range(rounds):
        nxt = np.roll(pts, -1, axis=0)
        pts = np.stack([.75 * pts + .25 * nxt, .25 * pts + .75 * nxt], 1).reshape(-1, 2)
    return pts


def _bezier(ctrl, n=40):
    """Points on the Bezier curve with the given control points (de Casteljau)."""
    t = np.linspace(0, 1, n)[:, None, None]
    pts = np.broadcast_to(np.asarray(ctrl, float), (n, len(ctrl), 2))
    while pts.shape[1] > 1:
        pts = (1 - t) * pts[:, :-1] + t * pts[:, 1:]
    return pts[:, 0]


def _round_rect(x0, y0, x1, y1, r):
    corners = ((x1 - r, y0 + r, -90), (x1 - r, y1 - r, 0), (x0 + r, y1 - r, 90), (x0 + r, y0 + r, 180))
    return np.vstack([[(cx + r * math.cos(math.radians(a0 + d)), cy + r * math.sin(math.radians(a0 + d)))
                       for d in range(0, 91, 10)] for cx, cy, a0 in corners])


# ------------------------------------------------------------------------ motif library
# Each motif is a list of primitives in a [-1, 1] box.  Colour slots: 0 main, 1 second,
# 2 light, 3 ink, 4 metal, 5 wood.  P polygon, S smoothed polygon, L polyline, C Bezier curve.

def P(pts, c): return ("P", pts, c)
def S(pts, c): return ("S", pts, c)
def L(pts, c, w): return ("L", pts, c, w)
def C(pts, c, w): return ("C", pts, c, w)
def E(x, y, ax, ay, c): return ("P", _ellipse(x, y, ax, ay), c)
def O(x, y, ax, ay, c, w): return ("L", np.vstack([_ellipse(x, y, ax, ay)] * 2)[:41], c, w)
def R(x0, y0, x1, y1, c): return ("P", [(x0, y0), (x1, y0), (x1, y1), (x0, y1)], c)


MOTIFS = {
    "shield": [P([(-.7, -.85), (.7, -.85), (.72, -.1), (0, .92), (-.72, -.1)], 0), L([(0, -.85), (0, .86)], 1, .12),
               L([(-.71, -.3), (.71, -.3)], 1, .12), E(0, -.3, .17, .17, 2)],
    "sword": [P([(-.09, .42), (-.09, -.72), (0, -.98), (.09, -.72), (.09, .42)], 4), R(-.45, .4, .45, .52, 1),
              R(-.07, .52, .07, .84, 5), E(0, .91, .12, .09, 1)],
    "axe": [R(-.06, -.9, .06, .95, 5),
            S([(.04, -.82), (.5, -.98), (.85, -.55), (.8, -.12), (.5, -.3), (.04, -.42)], 4)],
    "pine": [R(-.1, .35, .1, .92, 5),
             P([(0, -.95), (.42, -.35), (.22, -.35), (.62, .38), (-.62, .38), (-.22, -.35), (-.42, -.35)], 1)],
    "oak": [P([(-.12, 0), (.12, 0), (.18, .92), (-.18, .92)], 5), E(-.35, -.15, .4, .35, 1),
            E(.35, -.15, .4, .35, 1), E(0, -.45, .5, .42, 1)],
    "star": [P(_star(5, .95, .4), 1), P(_star(5, .45, .2), 2)],
    "potion": [R(-.14, -.62, .14, -.15, 2), E(0, .35, .58, .55, 0), E(.2, .2, .12, .12, 2), R(-.12, -.85, .12, -.6, 5)],
    "skull": [P([(-.36, .2), (.36, .2), (.3, .78), (-.3, .78)], 2), E(0, -.2, .66, .6, 2),
              E(-.26, -.18, .17, .19, 3), E(.26, -.18, .17, .19, 3), P([(0, .05), (.09, .22), (-.09, .22)], 3)],
    "crown": [P([(-.75, .45), (-.8, -.5), (-.4, -.05), (0, -.72), (.4, -.05), (.8, -.5), (.75, .45)], 1),
              R(-.76, .3, .76, .58, 0), E(0, .44, .1, .09, 2), E(-.45, .44, .08, .08, 2), E(.45, .44, .08, .08, 2)],
    "moon": [P(_crescent(), 2)],
    "sun": [P(_star(12, .95, .6), 1), E(0, 0, .52, .52, 1), E(-.18, -.1, .07, .07, 3), E(.18, -.1, .07, .07, 3)],
    "key": [R(-.07, -.35, .07, .9, 1), R(.07, .55, .36, .68, 1), R(.07, .77, .3, .9, 1), O(0, -.6, .3, .3, 1, .14)],
    "ring": [O(0, .2, .55, .5, 1, .16), P([(0, -.78), (.24, -.5), (0, -.25), (-.24, -.5)], 0)],
    "heart": [P(_heart(), 0)],
    "gem": [P([(-.6, -.3), (-.3, -.7), (.3, -.7), (.6, -.3), (0, .82)], 0), L([(-.6, -.3), (.6, -.3)], 2, .04),
            L([(-.3, -.7), (-.15, -.3), (0, .82), (.15, -.3), (.3, -.7)], 2, .04)],
    "mountain": [P([(-.95, .7), (-.35, -.55), (0, -.05), (.3, -.78), (.95, .7)], 4),
                 P([(.3, -.78), (.45, -.47), (.3, -.4), (.16, -.5)], 2)],
    "tower": [P([(-.52, -.78), (-.32, -.78), (-.32, -.62), (-.1, -.62), (-.1, -.78), (.1, -.78), (.1, -.62),
                 (.32, -.62), (.32, -.78), (.52, -.78), (.52, -.45), (.42, -.45), (.48, .92), (-.48, .92),
                 (-.42, -.45), (-.52, -.45)], 4),
              P([(-.16, .92), (-.16, .5), (0, .34), (.16, .5), (.16, .92)], 3), R(-.06, -.25, .06, 0, 3)],
    "flame": [S([(0, -.98), (.3, -.45), (.58, .15), (.38, .78), (0, .92), (-.38, .78), (-.58, .15), (-.32, -.3),
                 (-.12, -.05)], 0),
              S([(0, -.2), (.25, .3), (.18, .72), (-.18, .72), (-.25, .3)], 1)],
    "eye": [S([(-.95, 0), (-.4, -.45), (.4, -.45), (.95, 0), (.4, .45), (-.4, .45)], 2), E(0, 0, .36, .36, 0),
            E(0, 0, .15, .15, 3)],
    "bow": [C([(.15, -.92), (-.75, 0), (.15, .92)], 5, .1), L([(.15, -.92), (.15, .92)], 3, .02),
            L([(-.8, 0), (.72, 0)], 5, .05), P([(.7, -.1), (.96, 0), (.7, .1)], 4)],
    "hammer": [R(-.06, -.45, .06, .95, 5), R(-.55, -.88, .55, -.4, 4)],
    "mushroom": [P([(-.2, -.05), (.2, -.05), (.26, .88), (-.26, .88)], 2),
                 S([(-.9, .05), (-.7, -.55), (0, -.88), (.7, -.55), (.9, .05)], 0),
                 E(-.35, -.35, .12, .1, 2), E(.25, -.5, .1, .09, 2), E(.45, -.15, .09, .08, 2)],
    "cloud": [E(-.45, .1, .38, .3, 2), E(.45, .1, .38, .3, 2), E(0, -.15, .48, .42, 2), E(0, .2, .5, .28, 2)],
    "bolt": [P([(.12, -.96), (-.48, .1), (-.06, .1), (-.22, .96), (.46, -.16), (.05, -.16), (.3, -.96)], 1)],
    "book": [R(-.72, -.62, .72, .58, 0), R(-.64, .58, .66, .72, 2), L([(0, -.62), (0, .58)], 3, .04),
             E(-.36, -.05, .16, .2, 1), E(.36, -.05, .16, .2, 1)],
    "bone": [R(-.62, -.12, .62, .12, 2)] + [E(x, y, .16, .16, 2) for x in (-.72, .72) for y in (-.16, .16)],
    "wolf": [P([(-.58, -.3), (-.44, -.96), (-.12, -.46)], 0), P([(.58, -.3), (.44, -.96), (.12, -.46)], 0),
             S([(-.62, -.48), (.62, -.48), (.58, .18), (0, .94), (-.58, .18)], 0), E(-.24, -.12, .1, .07, 2),
             E(.24, -.12, .1, .07, 2), E(0, .72, .13, .09, 3)],
    "goblin": [P([(-.35, -.15), (-.96, -.45), (-.4, .18)], 1), P([(.35, -.15), (.96, -.45), (.4, .18)], 1),
               E(0, 0, .46, .58, 1), E(-.18, -.1, .12, .09, 2), E(.18, -.1, .12, .09, 2),
               C([(-.22, .3), (0, .42), (.22, .3)], 3, .04)],
    "helmet": [C([(-.55, -.2), (-.95, -.5), (-.85, -.95)], 2, .1), C([(.55, -.2), (.95, -.5), (.85, -.95)], 2, .1),
               S([(-.6, .45), (-.62, -.2), (0, -.82), (.62, -.2), (.6, .45)], 4), R(-.46, 0, .46, .12, 3),
               R(-.06, .12, .06, .6, 4)],
    "snake": [C([(-.8, .7), (-.3, .9), (.3, .2), (-.3, -.3), (.4, -.7)], 1, .16), E(.48, -.74, .17, .12, 1),
              E(.52, -.78, .04, .04, 3)],
    "fish": [P([(.45, 0), (.92, -.45), (.92, .45)], 0),
             S([(-.78, 0), (-.15, -.48), (.55, -.15), (.55, .15), (-.15, .48)], 0), E(-.42, -.08, .08, .08, 3)],
    "chest": [R(-.75, -.1, .75, .7, 5), S([(-.75, -.1), (-.7, -.55), (0, -.72), (.7, -.55), (.75, -.1)], 5),
              L([(-.75, -.1), (.75, -.1)], 4, .08), R(-.12, -.15, .12, .2, 1)],
}
MOTIF_NAMES = sorted(MOTIFS)
SMALL_MOTIFS = ("star", "cloud", "moon", "bolt", "gem", "sun")


def daylight_backdrop(rng, w, h, pal):
    """The ribbon art's backdrop: a pale sky gradient over a rolling hill."""
    skies = ((235, 215, 170), (170, 225, 240), (200, 230, 200), (210, 170, 190), (150, 190, 215))
    top, bottom = np.array(pick(rng, skies), float), np.array(pick(rng, skies), float)
    t = np.linspace(0, 1, h)[:, None, None]
    img = np.empty((h, w, 3), np.uint8)
    img[:] = (top * (1 - t) + bottom * t).astype(np.uint8)
    ground = pick(rng, ((60, 110, 90), (70, 130, 150), (90, 100, 110), (50, 90, 70)))
    hill = np.c_[np.linspace(-60, w + 60, 7), h * (.72 + rng.uniform(-.06, .06, 7))]
    fill(img, _smooth(np.vstack([hill, [(w + 60, h + 80), (-60, h + 80)]])), ground)
    return img


def paper_backdrop(rng, w, h, pal):
    """The cartoon art's backdrop: white paper, a soft blob of a palette colour, a floor shadow."""
    img = np.full((h, w, 3), 250, np.uint8)
    blob = _ellipse(0, 0, h * .42, h * .38, 9) * rng.uniform(.85, 1.15, (9, 1)) + (w / 2, h * .5)
    fill(img, _smooth(blob), np.array(pick(rng, pal)) * .4 + 150)
    fill(img, _ellipse(w / 2, h * .9, w * .3, h * .05), (200, 200, 200))
    return img


NIGHT_ZENITHS = ((40, 12, 5), (55, 25, 15), (45, 15, 30), (30, 20, 20), (70, 35, 10))
NIGHT_HORIZONS = ((120, 60, 50), (90, 70, 110), (130, 90, 60), (70, 60, 60), (100, 50, 90), (60, 90, 140))
NIGHT_GROUNDS = ((22, 28, 16), (30, 20, 22), (28, 16, 14), (18, 30, 30))


def night_backdrop(rng, w, h, pal):
    """The night art's backdrop: a dark sky fading to a dusky horizon, a glow of a palette colour,
    stars and a black hill -- sky, glow, stars and hill line differ from card to card."""
    zenith, horizon = np.array(pick(rng, NIGHT_ZENITHS), float), np.array(pick(rng, NIGHT_HORIZONS), float)
    t = np.linspace(0, 1, h)[:, None, None]
    yy, xx = np.arange(h)[:, None], np.arange(w)[None, :]
    gx, gy, gr = w * rng.uniform(.25, .75), h * rng.uniform(.25, .55), h * rng.uniform(.15, .35)
    glow = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * gr ** 2))[..., None]
    sky = glow * np.array(pick(rng, pal), float)  # (in place from here: the same sums, fewer copies)
    sky *= rng.uniform(.4, .9)
    sky += zenith * (1 - t) + horizon * t
    img = np.clip(sky, 0, 255, out=sky).astype(np.uint8)
    for _ in range(int(rng.integers(20, 120))):
        b = rng.uniform(110, 255)
        cv2.circle(img, (int(rng.integers(w)), int(rng.integers(int(h * .7)))), int(rng.integers(1, 3)),
                   (b, b * .95, b * .85), -1, AA)
    hill = np.c_[np.linspace(-60, w + 60, 7), h * (rng.uniform(.55, .7) + rng.uniform(-.06, .06, 7))]
    fill(img, _smooth(np.vstack([hill, [(w + 60, h + 80), (-60, h + 80)]])), pick(rng, NIGHT_GROUNDS))
    return img


RIBBON_STYLE = dict(colours=[(60, 70, 150), (50, 120, 160), (70, 120, 60), (140, 90, 60), (110, 70, 110),
                             (60, 140, 200), (80, 80, 80), (40, 60, 110)],
                    light=(200, 228, 238), ink=(35, 40, 55), metal=(165, 165, 160), wood=(50, 90, 140),
                    ink_w=2, hatch=True, backdrop=daylight_backdrop)
CARTOON_STYLE = dict(colours=[(40, 40, 230), (40, 220, 250), (60, 200, 60), (220, 120, 30), (200, 60, 160),
                              (30, 140, 250), (180, 120, 250), (220, 210, 40)],
                     light=(255, 255, 255), ink=(0, 0, 0), metal=(205, 205, 210), wood=(40, 110, 190),
                     ink_w=5, hatch=False, backdrop=paper_backdrop)
NIGHT_STYLE = dict(colours=[(120, 55, 35), (55, 45, 130), (55, 105, 45), (115, 55, 100), (45, 95, 140),
                            (130, 110, 35), (85, 80, 90), (35, 75, 160)],
                   light=(225, 220, 200), ink=(12, 8, 8), metal=(130, 125, 118), wood=(30, 50, 80),
                   ink_w=3, hatch=False, backdrop=night_backdrop)


def draw_motif(img, name, centre, size, angle, mirror, cols, style):
    """Draw motif `name` of width `size` px centred at `centre`, rotated and maybe mirrored."""
    s = size / 2
    ca, sa = math.cos(angle), math.sin(angle)
    rot = np.array([[ca, -sa], [sa, ca]]) * s
    sign = np.array([-1.0 if mirror else 1.0, 1.0])
    mask = np.zeros(img.shape[:2], np.uint8) if style["hatch"] else None
    for prim in MOTIFS[name]:
        kind, pts, ci = prim[:3]
        pts = _smooth(pts) if kind == "S" else _bezier(pts) if kind == "C" else pts
        p = (np.asarray(pts, float) * sign) @ rot.T + centre
        if kind in "PS":
            fill(img, p, cols[ci])
            stroke(img, p, style["ink"], style["ink_w"], closed=True)
            if mask is not None:
                fill(mask, p, (255,))
        else:
            stroke(img, p, style["ink"], prim[3] * s + 2 * style["ink_w"])
            stroke(img, p, cols[ci], prim[3] * s)
    if mask is not None:  # engraving-like hatching on the shadow side
        ys, xs = np.nonzero(mask)
        keep = ((xs + ys) % 6 < 2) & ((xs - centre[0]) + (ys - centre[1]) > .25 * s)
        ys, xs = ys[keep], xs[keep]
        img[ys, xs] = img[ys, xs] * .45 + np.array(style["ink"]) * .55


def render_art(seed, w, h, style):
    """Card art from the shared motif library: the style's backdrop, small ornaments, side motifs,
    a main motif."""
    rng = np.random.default_rng(seed)
    pal = style["colours"]
    i, j = rng.choice(len(pal), 2, replace=False)
    cols = (pal[i], pal[j], style["light"], style["ink"], style["metal"], style["wood"])
    img = style["backdrop"](rng, w, h, pal)
    for _ in range(int(rng.integers(0, 4))):
        draw_motif(img, pick(rng, SMALL_MOTIFS), np.array([rng.uniform(.1, .9) * w, rng.uniform(.1, .3) * h]),
                   rng.uniform(.1, .18) * h, rng.uniform(-.4, .4), False, cols, style)
    for _ in range(int(rng.integers(0, 3))):
        x = pick(rng, (rng.uniform(.12, .28), rng.uniform(.72, .88)))
        draw_motif(img, pick(rng, MOTIF_NAMES), np.array([x * w, rng.uniform(.55, .75) * h]),
                   rng.uniform(.28, .42) * h, rng.uniform(-.5, .5), bool(rng.integers(2)), cols, style)
    draw_motif(img, pick(rng, MOTIF_NAMES), np.array([w * rng.uniform(.42, .58), h * rng.uniform(.46, .54)]),
               h * rng.uniform(.62, .8), rng.uniform(-.45, .45), bool(rng.integers(2)), cols, style)
    return img


def fake_word(rng):
    """A pronounceable non-word, or now and then a real little word or a number."""
    if rng.random() < .2:
        return pick(rng, ("the", "of", "you", "and", "to", "+1", "+2", "-3", "may", "is", "a"))
    return "".join(pick(rng, SYLLABLES) for _ in range(int(rng.integers(1, 4))))


def draw_rules(img, box, rng, ink, fonts):
    """Fake rules text, word-wrapped into box = (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = box
    font, scale = pick(rng, fonts), rng.uniform(.48, .6)
    line_h = int(cv2.getTextSize("Hg", font, scale, 1)[0][1] * 2.0)
    y, line = y0 + line_h, []
    for _ in range(int(rng.integers(3, 8)) * 12):
        word = fake_word(rng)
        word = word.capitalize() if not line and y == y0 + line_h else word
        if cv2.getTextSize(" ".join(line + [word]), font, scale, 1)[0][0] > x1 - x0:
            cv2.putText(img, " ".join(line), (x0, y), font, scale, _c(ink), 1, AA)
            y, line = y + line_h, []
            if y > y1:
                return
        line.append(word + ("." if rng.random() < .12 else ""))
    cv2.putText(img, " ".join(line), (x0, y), font, scale, _c(ink), 1, AA)


def fit_text(text, font, width, max_scale, thick):
    """Lines and font scale so the text fits `width`: one line, or two if one gets too small."""
    scale = min(max_scale, width / cv2.getTextSize(text, font, 1, thick)[0][0])
    words = text.split()
    if scale < .72 * max_scale and len(words) > 1:
        best = min(range(1, len(words)), key=lambda k: abs(len(" ".join(words[:k])) - len(" ".join(words[k:]))))
        lines = [" ".join(words[:best]), " ".join(words[best:])]
        widest = max(cv2.getTextSize(t, font, 1, thick)[0][0] for t in lines)
        return lines, min(max_scale * .8, width / widest)
    return [text], scale


def centred_text(img, lines, centre, font, scale, col, thick, gap=1.25, outline=None):
    """Draw lines of text centred at `centre` (x, y), optionally with an outline colour."""
    h = cv2.getTextSize("H", font, scale, thick)[0][1]
    y = centre[1] - (len(lines) - 1) * h * gap / 2 + h / 2
    for t in lines:
        w = cv2.getTextSize(t, font, scale, thick)[0][0]
        org = (int(centre[0] - w / 2), int(y))
        if outline is not None:
            cv2.putText(img, t, org, font, scale, _c(outline), thick + 4, AA)
        cv2.putText(img, t, org, font, scale, _c(col), thick, AA)
        y += h * gap


# ------------------------------------------------------------------------ card designs

RULE_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_DUPLEX,
              cv2.FONT_HERSHEY_TRIPLEX | cv2.FONT_ITALIC, cv2.FONT_HERSHEY_COMPLEX_SMALL)
# per deck: lattice dark, lattice light, ribbon, title ink
RIBBON_DECKS = (((40, 70, 50), (110, 170, 190), (40, 40, 150), (215, 235, 245)),
                ((30, 60, 100), (90, 190, 230), (120, 70, 30), (220, 240, 250)))
CARTOON_DECKS = ((60, 60, 220), (40, 190, 240))
NIGHT_DECKS = (((50, 30, 180), (150, 215, 245)), ((170, 80, 25), (245, 238, 228)))   # per deck: gem, title ink
NIGHT_BAR = FACE_H - round(FACE_H * TITLE_ZONE)   # top of the night design's title bar
NIGHT_RULES = (44, 470, 456, 550)                 # night rules text box, on a panel above the bar
NIGHT_GEM = (58, 58)                              # centre of the night design's level badge
ART_BOX = {"ribbon": (48, 128, 452, 430), "cartoon": (30, 118, 470, 470)}


@lru_cache(maxsize=None)
def round_mask(radius):
    """Alpha mask of the card outline with rounded corners."""
    m = np.zeros((FACE_H, FACE_W), np.uint8)
    fill(m, _round_rect(0, 0, FACE_W - 1, FACE_H - 1, radius), (255,))
    return m


@lru_cache(maxsize=None)
def ribbon_template(deck):
    """Everything the ribbon cards of one deck share: parchment, lattice border, medallions, band."""
    dark, light, band, _ = RIBBON_DECKS[deck]
    rng = np.random.default_rng(7)
    mottle = cv2.resize(rng.normal(0, 1, (14, 10)).astype(np.float32), (FACE_W, FACE_H), interpolation=cv2.INTER_CUBIC)
    img = np.clip(np.array([200, 226, 238], np.float32) * (1 + .035 * mottle[..., None]
                  + rng.normal(0, .015, (FACE_H, FACE_W, 1))), 0, 255).astype(np.uint8)
    lattice = np.empty_like(img)
    lattice[:] = dark
    for k in range(-FACE_H, FACE_W + FACE_H, 22):   # two families of diagonals, rings at crossings
        for a, b in (((k, 0), (k + FACE_H, FACE_H)), ((k, 0), (k - FACE_H, FACE_H))):
            cv2.line(lattice, a, b, _c(light), 5, AA)
            cv2.line(lattice, a, b, _c(dark), 1, AA)
    for y in range(0, FACE_H, 22):
        for x in range(11 if y % 44 else 0, FACE_W, 22):
            cv2.circle(lattice, (x, y), 5, _c(dark), 2, AA)
    border = np.ones((FACE_H, FACE_W), bool)
    border[26:-26, 26:-26] = False
    img[border] = lattice[border]
    for inset, th in ((3, 3), (26, 2)):
        cv2.rectangle(img, (inset, inset), (FACE_W - 1 - inset, FACE_H - 1 - inset), _c(dark), th, AA)
    x0, y0, x1, y1 = ART_BOX["ribbon"]
    cv2.rectangle(img, (x0 - 7, y0 - 7), (x1 + 6, y1 + 6), _c(dark), 3, AA)
    u = np.linspace(-1, 1, 30)
    for side in (-1, 1):     # ribbon tails, then the arched band
        tail = np.array([(118, 66), (90, 70), (102, 94), (88, 118), (126, 112)], float)
        if side > 0:
            tail[:, 0] = FACE_W - tail[:, 0]
        fill(img, tail, np.array(band) * .6)
        stroke(img, tail, dark, 2, True)
    top, bottom = np.c_[250 + 138 * u, 42 + 12 * u ** 2], np.c_[250 - 138 * u, 104 + 12 * u ** 2]
    fill(img, np.vstack([top, bottom]), band)
    stroke(img, np.vstack([top, bottom]), dark, 2, True)
    for cx in (64, FACE_W - 64):
        cv2.circle(img, (cx, 70), 46, _c(light), -1, AA)
        cv2.circle(img, (cx, 70), 46, _c(dark), 4, AA)
        cv2.circle(img, (cx, 70), 35, _c(dark), 2, AA)
    emblem = ("skull", "gem")[deck]
    draw_motif(img, emblem, np.array([64., 70.]), 48, 0, False, (band, light, (230, 240, 245), dark, (160,) * 3, dark),
               dict(RIBBON_STYLE, hatch=False))
    plaque = _round_rect(150, 626, 350, 670, 18)
    fill(img, plaque, light)
    stroke(img, plaque, dark, 2, True)
    return img


def render_ribbon(card):
    """The lattice-and-ribbon design: title on a band between medallions, engraved art, rules, value."""
    rng = np.random.default_rng(card.text)
    deck, number = int(rng.integers(2)), int(rng.integers(1, 6))
    footer = pick(rng, (f"{int(rng.integers(1, 10)) * 100} Gold", f"Level {number}", f"+{number} Bonus", "No Value"))
    dark, _, _, title_ink = RIBBON_DECKS[deck]
    img = ribbon_template(deck).copy()
    x0, y0, x1, y1 = ART_BOX["ribbon"]
    img[y0:y1, x0:x1] = render_art(card.art, x1 - x0, y1 - y0, RIBBON_STYLE)
    cv2.rectangle(img, (x0, y0), (x1 - 1, y1 - 1), _c(dark), 2, AA)
    font = cv2.FONT_HERSHEY_TRIPLEX
    lines, scale = fit_text(card.title, font, 244, 1.0, 2)
    centred_text(img, lines, (250, 76), font, scale, title_ink, 2 if scale > .6 else 1)
    centred_text(img, [str(number)], (FACE_W - 64, 70), font, 1.3, dark, 2)
    draw_rules(img, (56, 448, 444, 612), rng, (40, 45, 60), RULE_FONTS)
    centred_text(img, [footer], (250, 648), cv2.FONT_HERSHEY_COMPLEX, .62, dark, 1)
    return img


@lru_cache(maxsize=None)
def cartoon_template(deck):
    """Everything the cartoon cards of one deck share: white face, outline, coloured stripe."""
    img = np.full((FACE_H, FACE_W, 3), 250, np.uint8)
    stroke(img, _round_rect(12, 12, FACE_W - 13, FACE_H - 13, 22), (0, 0, 0), 4, closed=True)
    stripe = _round_rect(24, 616, FACE_W - 25, 676, 16)
    fill(img, stripe, CARTOON_DECKS[deck])
    stroke(img, stripe, (0, 0, 0), 3, closed=True)
    cv2.circle(img, (FACE_W - 70, 646), 24, (255, 255, 255), -1, AA)
    cv2.circle(img, (FACE_W - 70, 646), 24, (0, 0, 0), 3, AA)
    return img


def render_cartoon(card):
    """The cartoon design: big bold title, thick-outlined bright art, rules, a level stripe."""
    rng = np.random.default_rng(card.text)
    deck, number = int(rng.integers(2)), int(rng.integers(1, 6))
    footer = pick(rng, (f"{int(rng.integers(1, 10)) * 100} Gold", f"Level {number}", f"+{number} Bonus", "No Value"))
    img = cartoon_template(deck).copy()
    x0, y0, x1, y1 = ART_BOX["cartoon"]
    img[y0:y1, x0:x1] = render_art(card.art, x1 - x0, y1 - y0, CARTOON_STYLE)
    font = cv2.FONT_HERSHEY_DUPLEX
    lines, scale = fit_text(card.title.upper(), font, 430, 1.6, 5)
    centred_text(img, lines, (250, 68), font, scale, (0, 0, 0), 5 if scale > .9 else 3)
    draw_rules(img, (44, 492, 456, 604), rng, (20, 20, 20), RULE_FONTS[:3])
    centred_text(img, [footer], (200, 646), font, .95, (255, 255, 255), 2, outline=(0, 0, 0))
    centred_text(img, [str(number)], (FACE_W - 70, 646), font, 1.1, (0, 0, 0), 3)
    return img


def _over(colour, opacity, pts, col, alpha):
    """Lay the shape `pts` in colour `col` at opacity `alpha` over a premultiplied colour layer
    and its opacity (both float, changed in place)."""
    cover = np.zeros(opacity.shape, np.uint8)
    fill(cover, pts, (255,))           # drawn on 8 bits: OpenCV anti-aliases only those
    cover = cover.astype(np.float32) * (alpha / 255)
    colour *= 1 - cover[..., None]
    colour += cover[..., None] * np.array(col, np.float32)
    opacity *= 1 - cover
    opacity += cover


@lru_cache(maxsize=None)
def night_template(deck):
    """Everything the night cards of one deck share, as a premultiplied colour layer and its
    opacity to lay over the art: the dark title bar along the bottom edge with a thin rule of
    title ink, the smoked rules panel above it and the gem badge's setting and stone."""
    gem, ink = NIGHT_DECKS[deck]
    colour = np.zeros((FACE_H, FACE_W, 3), np.float32)
    opacity = np.zeros((FACE_H, FACE_W), np.float32)
    band = lambda y0, y1: [(0, y0), (FACE_W, y0), (FACE_W, y1), (0, y1)]
    _over(colour, opacity, band(NIGHT_BAR, FACE_H), (18, 10, 8), .8)
    _over(colour, opacity, band(NIGHT_BAR, NIGHT_BAR + 2), ink, .8)
    x0, y0, x1, y1 = NIGHT_RULES
    _over(colour, opacity, _round_rect(x0 - 12, y0 - 14, x1 + 12, y1 + 14, 12), (40, 22, 16), .6)
    cx, cy = NIGHT_GEM
    _over(colour, opacity, _ellipse(cx, cy, 40, 40), (20, 20, 20), 1)
    _over(colour, opacity, _ellipse(cx, cy, 37, 37), (70, 160, 200), 1)
    _over(colour, opacity, _ellipse(cx, cy, 29, 29), gem, 1)
    _over(colour, opacity, _ellipse(cx - 10, cy - 12, 13, 8), (255, 255, 255), .35)
    return colour, opacity


def render_night(card):
    """The night design: dark art up to the card's edges, rules on a smoked panel over it, the
    title in light letters on a dark bar along the bottom, the level in a gem badge."""
    rng = np.random.default_rng(card.text)
    deck, number = int(rng.integers(2)), int(rng.integers(1, 6))
    _, ink = NIGHT_DECKS[deck]
    colour, opacity = night_template(deck)
    art = render_art(card.art, FACE_W, FACE_H, NIGHT_STYLE)
    img = np.clip(art * (1 - opacity[..., None]) + colour + .5, 0, 255).astype(np.uint8)
    font = cv2.FONT_HERSHEY_COMPLEX
    lines, scale = fit_text(card.title, font, 430, 1.3, 2)
    centred_text(img, lines, (250, (NIGHT_BAR + FACE_H) / 2), font, scale, ink, 2)
    draw_rules(img, NIGHT_RULES, rng, (215, 222, 228), RULE_FONTS)
    centred_text(img, [str(number)], NIGHT_GEM, cv2.FONT_HERSHEY_DUPLEX, 1.2, (255, 255, 255), 2, outline=(0, 0, 0))
    return img


def render_face(card, design):
    """(BGR face, alpha mask) of a card in the chosen design."""
    if design == "ribbon":
        return render_ribbon(card), round_mask(14)
    if design == "night":
        return render_night(card), round_mask(24)
    return render_cartoon(card), round_mask(30)


@lru_cache(maxsize=None)
def card_back():
    """A face-down card: navy back, gold rhombus lattice, a sun medallion."""
    img = np.full((FACE_H, FACE_W, 3), (70, 30, 18), np.uint8)
    for k in range(-FACE_H, FACE_W + FACE_H, 40):
        cv2.line(img, (k, 0), (k + FACE_H // 2, FACE_H), (130, 80, 40), 3, AA)
        cv2.line(img, (k, 0), (k - FACE_H // 2, FACE_H), (130, 80, 40), 3, AA)
    for inset in (18, 30):
        stroke(img, _round_rect(inset, inset, FACE_W - inset, FACE_H - inset, 20), (60, 170, 210), 4, closed=True)
    cv2.ellipse(img, (250, 350), (150, 190), 0, 0, 360, (50, 25, 15), -1, AA)
    cv2.ellipse(img, (250, 350), (150, 190), 0, 0, 360, (60, 170, 210), 6, AA)
    draw_motif(img, "sun", np.array([250., 350.]), 220, 0, False, ((60, 170, 210),) * 6,
               dict(ink=(30, 90, 130), ink_w=3, hatch=False))
    return img, round_mask(14)


# -------------------------------------------------------------------------- table model

def _noise(rng, h, w, cells_y, cells_x, interp=cv2.INTER_CUBIC):
    """Smooth value noise: a coarse random grid resized to h x w."""
    return cv2.resize(rng.random((cells_y, cells_x), dtype=np.float32), (w, h), interpolation=interp)


def wood(rng, w, h):
    """Planks of wood: rings warped by noise, fine fibres, plank seams, any grain direction."""
    s = int(math.hypot(w, h)) + 4
    y = np.arange(s, dtype=np.float32)[:, None]
    rings = .5 + .5 * np.sin(2 * np.pi * (y / rng.uniform(12, 35) + 2.5 * _noise(rng, s, s, 5, 4)))
    v = .4 * rings ** 2 + .4 * _noise(rng, s, s, s // 3, 5, cv2.INTER_LINEAR) + .2 * _noise(rng, s, s, 6, 3)
    plank = rng.uniform(.2, .45) * s
    v *= np.where((y + rng.uniform(0, plank)) % plank < 2, .35, 1).astype(np.float32)
    rot = cv2.getRotationMatrix2D((s / 2, s / 2), rng.uniform(0, 180), 1)
    v = cv2.warpAffine(v, rot, (s, s))[(s - h) // 2:(s - h) // 2 + h, (s - w) // 2:(s - w) // 2 + w]
    dark = np.array(pick(rng, ((20, 45, 80), (30, 60, 105), (40, 80, 130), (25, 35, 55))), np.float32) / 255
    return dark + (dark * rng.uniform(1.6, 2.3) - dark) * v[..., None]


def cloth(rng, w, h):
    """Woven cloth: alternating warp and weft threads with mottling."""
    yy, xx = np.indices((h, w), dtype=np.float32)
    a = rng.uniform(-.3, .3)
    u, v = xx * math.cos(a) + yy * math.sin(a), -xx * math.sin(a) + yy * math.cos(a)
    p = rng.uniform(2.5, 5)
    over = (np.floor(u / p) + np.floor(v / p)) % 2 == 0
    thread = np.where(over, np.sin(np.pi * (u / p % 1)), np.sin(np.pi * (v / p % 1)))
    val = .75 + .25 * thread + .12 * (_noise(rng, h, w, 8, 8) - .5)
    base = np.array(pick(rng, ((170, 200, 215), (140, 90, 50), (50, 50, 150), (60, 120, 60),
                               (130, 130, 130), (120, 60, 110))), np.float32) / 255
    return base * val[..., None]


def felt(rng, w, h):
    """Green, red or blue gaming felt: fine fibre noise and a faint mottle."""
    fine = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), .8)
    val = 1 + .07 * fine + .1 * (_noise(rng, h, w, 6, 6) - .5)
    base = np.array(pick(rng, ((40, 110, 30), (40, 40, 140), (110, 60, 20), (35, 90, 35))), np.float32) / 255
    return base * val[..., None]


def desk(rng, w, h):
    """Laminate desk top: plain grey, white or beige with a faint texture."""
    val = 1 + .05 * (_noise(rng, h, w, 5, 5) - .5) + .02 * (_noise(rng, h, w, h // 4, 12, cv2.INTER_LINEAR) - .5)
    base = np.array(pick(rng, ((200, 200, 200), (225, 228, 230), (170, 190, 205), (120, 120, 125))), np.float32) / 255
    return base * val[..., None]


def table_surface(rng, w, h):
    """A random table surface at a random brightness, rendered at half size and enlarged."""
    tex = pick(rng, (wood, cloth, felt, desk))(rng, w // 2, h // 2)
    tex = cv2.resize(tex * rng.uniform(.7, 1.1), (w, h), interpolation=cv2.INTER_LINEAR)
    return np.clip(tex * 255, 0, 255).astype(np.uint8)


# ------------------------------------------------------------------------- camera model

class Camera:
    """Pinhole camera above the table plane.  Table coordinates are mm with the target card's
    centre at the origin; z points away from the camera (so heights above the table are -z)."""

    def __init__(self, w, h, f, rot, trans):
        self.w, self.h, self.f = w, h, f
        self.K = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
        self.R, self.T = rot, np.asarray(trans, float)
        self.H = self.K @ np.column_stack([rot[:, 0], rot[:, 1], self.T])

    def project(self, pts, z=0.0):
        """Image positions of table points (N x 2, at height -z) or 3-D points (N x 3)."""
        pts = np.atleast_2d(np.asarray(pts, float))
        if pts.shape[1] == 2:
            pts = np.column_stack([pts, np.full(len(pts), z)])
        cam = pts @ self.R.T + self.T
        return cam[:, :2] / cam[:, 2:] * self.f + self.K[:2, 2]

    def to_table(self, uv):
        """Table point seen at image position uv."""
        p = np.linalg.solve(self.H, np.array([uv[0], uv[1], 1.0]))
        return p[:2] / p[2]


def rot2(a):
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def place_target(rng, p, w, h):
    """Camera tilt, focal length and distance so the target card, turned by a random `spin`,
    covers the tier's share of the picture and lies fully inside it."""
    tilt = math.radians(rng.uniform(*p["tilt"]))
    psi = rng.uniform(0, 2 * np.pi)
    rot = cv2.Rodrigues(np.array([math.cos(psi), math.sin(psi), 0.0]) * tilt)[0]
    f = max(w, h) * rng.uniform(.7, .85)
    spin = rng.uniform(0, 2 * np.pi)
    corners = SQUARE * HALF @ rot2(spin).T
    cover, margin = rng.uniform(*p["cover"]), .05 * min(w, h)
    while True:
        dist = f * math.sqrt(4 * HALF.prod() * math.cos(tilt) / (cover * w * h))
        off = rng.uniform(-.15, .15, 2) * (w, h) * dist / f
        cam = Camera(w, h, f, rot, (off[0], off[1], dist))
        uv = cam.project(corners)
        if uv.min() > margin and (uv[:, 0].max() < w - margin) and (uv[:, 1].max() < h - margin):
            return cam, spin, tilt
        cover *= .97


def face_to_table(centre, angle, size=(FACE_W, FACE_H)):
    """3x3 map from a card-sized image's pixels to table mm, centred at `centre`, turned by `angle`."""
    r = np.eye(3)
    r[:2, :2] = rot2(angle)
    r[:2, 2] = centre
    sx, sy = 2 * HALF / size
    return r @ np.array([[sx, 0, -size[0] * sx / 2], [0, sy, -size[1] * sy / 2], [0, 0, 1]])


def paste_warped(scene, src, alpha, hom, gain=1.0):
    """Composite src (with alpha) into scene through homography hom; returns (x, y, alpha roi)."""
    sh, sw = alpha.shape
    quad = cv2.perspectiveTransform(np.array([[(0, 0), (sw, 0), (sw, sh), (0, sh)]], np.float64), hom)[0]
    x0, y0 = np.maximum(np.floor(quad.min(0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(quad.max(0)).astype(int), (scene.shape[1], scene.shape[0]))
    if x1 <= x0 or y1 <= y0:
        return None
    shrink = math.sqrt(cv2.contourArea(quad.astype(np.float32)) / (sw * sh))
    if shrink < .8:   # pre-shrink to avoid aliasing
        src = cv2.resize(src, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA)
        alpha = cv2.resize(alpha, (src.shape[1], src.shape[0]), interpolation=cv2.INTER_AREA)
        hom = hom @ np.diag([sw / src.shape[1], sh / src.shape[0], 1])
    hom = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]]) @ hom
    size = (int(x1 - x0), int(y1 - y0))
    img = cv2.warpPerspective(src, hom, size, flags=cv2.INTER_LINEAR).astype(np.float32) * gain
    a = cv2.warpPerspective(alpha, hom, size, flags=cv2.INTER_LINEAR).astype(np.float32)[..., None] / 255
    roi = scene[y0:y1, x0:x1]
    roi[:] = np.clip(roi * (1 - a) + img * a, 0, 255).astype(np.uint8)
    return x0, y0, a[..., 0]


def curl(face, alpha, rng, amount):
    """Slight card curl: bow the face along one axis and shade it like a bent sheet."""
    amp = rng.uniform(0, amount)
    u = np.linspace(-1, 1, FACE_W, dtype=np.float32)[None, :]
    v = np.linspace(-1, 1, FACE_H, dtype=np.float32)[:, None]
    xx, yy = np.meshgrid(np.arange(FACE_W, dtype=np.float32), np.arange(FACE_H, dtype=np.float32))
    across = u if rng.random() < .5 else v
    bend = amp * (across ** 2 - .4)
    mx, my = (xx, yy + bend) if across is u else (xx + bend, yy)
    face = cv2.remap(face, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    alpha = cv2.remap(alpha, mx, my, cv2.INTER_LINEAR, borderValue=0)
    shade = 1 + amp / 100 * across * rng.choice((-1, 1)) - amp / 150 * across ** 2
    return np.clip(face * shade[..., None], 0, 255).astype(np.uint8), alpha


# ------------------------------------------------------------------------------ clutter

@dataclass
class Item:
    """Something on the table: its footprint (table mm), height (mm) and a painter."""
    footprint: np.ndarray
    height: float
    paint: object


def coin_item(cam, centre, rng):
    """A metal coin with a rim, an embossed star and a highlight."""
    r, h = rng.uniform(8, 12.5), 2.0
    col = np.array(pick(rng, ((40, 170, 215), (185, 185, 190), (60, 110, 185))), float)
    circ = _ellipse(0, 0, 1, 1, 36)

    def paint(scene):
        fill(scene, cam.project(centre + r * circ), col * .5)
        fill(scene, cam.project(centre + r * circ, -h), col)
        stroke(scene, cam.project(centre + .8 * r * circ, -h), col * .7, 2, True)
        stroke(scene, cam.project(centre + .4 * r * _star(5, 1, .45), -h), col * .65, 2, True)
        fill(scene, cam.project(centre + r * _ellipse(-.35, -.35, .3, .18), -h), np.minimum(col * 1.35 + 40, 255))
    return Item(centre + r * circ, h, paint)


PIPS = {1: [(0, 0)], 2: [(-.5, -.5), (.5, .5)], 3: [(-.5, -.5), (0, 0), (.5, .5)],
        4: [(-.5, -.5), (.5, -.5), (-.5, .5), (.5, .5)], 5: [(-.5, -.5), (.5, -.5), (0, 0), (-.5, .5), (.5, .5)],
        6: [(-.5, -.5), (.5, -.5), (-.5, 0), (.5, 0), (-.5, .5), (.5, .5)]}


def die_item(cam, centre, rng, light):
    """A six-sided die in true perspective: visible faces shaded, pips on every visible face."""
    a = rng.uniform(13, 17)
    body, pip = pick(rng, (((235, 235, 235), (20, 20, 20)), ((40, 40, 200), (255, 255, 255)),
                           ((30, 30, 30), (255, 255, 255)), ((60, 150, 40), (255, 255, 255))))
    r2 = rot2(rng.uniform(0, 2 * np.pi))
    ex, ey = np.r_[r2[:, 0], 0], np.r_[r2[:, 1], 0]
    mid = np.r_[centre, -a / 2]
    faces = [(np.array([0., 0, -1]), ex, ey)] + [(s * e, np.cross(s * e, (0, 0, -1)), np.array([0., 0, -1]))
                                                 for e in (ex, ey) for s in (1, -1)]
    to_light = np.r_[-light, -1] / np.linalg.norm(np.r_[-light, -1])
    values = rng.permutation(6)[:5] + 1

    def paint(scene):
        order = []
        for (n, e1, e2), value in zip(faces, values):
            c = mid + n * a / 2
            cam_c = cam.R @ c + cam.T
            if (cam.R @ n) @ -cam_c > 0:
                order.append((-np.linalg.norm(cam_c), c, n, e1, e2, value))
        for _, c, n, e1, e2, value in sorted(order, key=lambda o: o[0]):
            quad = [c + (sx * e1 + sy * e2) * a / 2 for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
            fill(scene, cam.project(np.array(quad)), np.array(body) * (.55 + .45 * max(0, n @ to_light)))
            for px, py in PIPS[value]:
                ring = [c + (px * .55 + .1 * math.cos(t)) * a / 2 * e1 + (py * .55 + .1 * math.sin(t)) * a / 2 * e2
                        for t in np.linspace(0, 2 * np.pi, 12, endpoint=False)]
                fill(scene, cam.project(np.array(ring)), pip)
    return Item(centre + (SQUARE * a / 2) @ r2.T, a, paint)


def pencil_item(cam, centre, angle, rng):
    """A pencil: eraser, ferrule, painted body with a facet highlight, sharpened tip."""
    length, hw, z = rng.uniform(140, 185), 3.6, -3.6
    d, n = rot2(angle)[:, 0], rot2(angle)[:, 1]
    col = np.array(pick(rng, ((40, 200, 240), (40, 40, 190), (160, 90, 30), (50, 140, 50), (30, 30, 30))), float)
    tail = centre - d * length / 2
    seg = lambda s0, s1, w0, w1: np.array([tail + d * s0 - n * w0, tail + d * s1 - n * w1,
                                           tail + d * s1 + n * w1, tail + d * s0 + n * w0])
    parts = ((seg(0, 6, hw, hw), (150, 140, 230)), (seg(6, 13, hw, hw), (170, 170, 170)),
             (seg(13, length - 17, hw, hw), col), (seg(13, length - 17, 1.2, 1.2), np.minimum(col * 1.3 + 30, 255)),
             (seg(length - 17, length - 3, hw, 1), (120, 180, 220)), (seg(length - 3, length, 1, .1), (50, 50, 50)))

    def paint(scene):
        for part, c in parts:
            fill(scene, cam.project(part, z), c)
    return Item(seg(0, length, hw, hw), 7.0, paint)


def sheet_item(cam, centre, angle, rng):
    """A sheet of paper: plain, lined, or with scribbled notes; A4, notepad or index card."""
    wmm, hmm = pick(rng, ((210, 297), (100, 150), (76, 127)))
    paper = pick(rng, ((245, 248, 250), (215, 235, 245), (235, 240, 240)))
    img = np.full((int(hmm * 2), int(wmm * 2), 3), paper, np.uint8)
    kind = int(rng.integers(3))
    if kind >= 1:
        for y in range(40, img.shape[0], 16):
            cv2.line(img, (0, y), (img.shape[1], y), (210, 170, 140), 1, AA)
        cv2.line(img, (40, 0), (40, img.shape[0]), (150, 150, 230), 1, AA)
    if kind == 2:
        for y in range(54, min(img.shape[0], 300), 32):
            cv2.putText(img, " ".join(fake_word(rng) for _ in range(3)), (50, y),
                        cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, .5, (90, 80, 70), 1, AA)
    corners = (SQUARE * (wmm / 2, hmm / 2)) @ rot2(angle).T + centre
    hom = cam.H @ cv2.getPerspectiveTransform(
        np.float32([(0, 0), (img.shape[1], 0), (img.shape[1], img.shape[0]), (0, img.shape[0])]), np.float32(corners))
    alpha = np.full(img.shape[:2], 255, np.uint8)
    return Item(corners, .2, lambda scene: paste_warped(scene, img, alpha, hom))


def card_item(cam, face, alpha, centre, angle, height=.5, gain=1.0):
    """A flat card (face up or face down) lying on the table."""
    corners = (SQUARE * HALF) @ rot2(angle).T + centre
    hom = cam.H @ face_to_table(centre, angle)
    return Item(corners, height, lambda scene: paste_warped(scene, face, alpha, hom, gain))


def rect_distance(p, half, offset=(0, 0)):
    """Signed distance from point p to an axis-aligned rectangle (negative inside)."""
    q = np.abs(np.asarray(p) - offset) - half
    return np.linalg.norm(np.maximum(q, 0)) + min(q.max(), 0)


def spot_for(rng, cam, spin, radius, lift, touch, title_side=-1):
    """A table spot for a small object: clear of the target card, or (touch) just over its left
    or right edge or the short edge away from the title (at the top for title_side -1, at the
    bottom for 1) -- never near the title.  None if no spot was found."""
    title_half = np.array([HALF[0], HALF[1] * TITLE_ZONE])
    title_mid = (0, title_side * (HALF[1] - title_half[1]))
    for _ in range(60):
        if touch:
            edge = int(rng.integers(3))
            t = rng.uniform(-.9, .9)
            out = radius * rng.uniform(.3, .9)
            local = ((-1 if edge == 0 else 1) * (HALF[0] + out), -title_side * (t * HALF[1] * .6 + .3 * HALF[1])) \
                if edge < 2 else (t * HALF[0], -title_side * (HALF[1] + out))
            c = rot2(spin) @ local
        else:
            c = cam.to_table(rng.uniform(-.1, 1.1, 2) * (cam.w, cam.h))
        local = rot2(-spin) @ c
        clear_of_card = touch or rect_distance(local, HALF) > radius + 1
        if clear_of_card and rect_distance(local, title_half, title_mid) > radius + lift + 3:
            return c
    return None


def paint_layer(scene, cam, items, light, strength):
    """Paint items, first their soft shadows (cast away from the lamp) on what lies below."""
    if not items:
        return []
    h, w = scene.shape[:2]
    mask = np.zeros((h // 4, w // 4), np.float32)
    for it in items:
        fill(mask, cam.project(it.footprint + light * it.height) / 4, (1.0,))
    mask = cv2.GaussianBlur(mask, (0, 0), 1.5 + w / 800)
    ys, xs = np.nonzero(mask > .004)
    if len(xs):       # darken only the box the shadows fall in
        x0, y0, x1, y1 = xs.min() * 4, ys.min() * 4, xs.max() * 4 + 4, ys.max() * 4 + 4
        box = cv2.resize(mask, (w, h))[y0:y1, x0:x1]
        scene[y0:y1, x0:x1] = (scene[y0:y1, x0:x1] * (1 - strength * box[..., None])).astype(np.uint8)
    return [it.paint(scene) for it in items]


def paint_finger(scene, rng, tip, outward, size, light):
    """A fingertip coming from outside the card and resting on a card corner."""
    ang = math.atan2(outward[1], outward[0]) + rng.uniform(-.8, .8)
    d = np.array([math.cos(ang), math.sin(ang)])
    length, width = size * rng.uniform(1, 1.6), size * rng.uniform(.17, .23)
    ends = np.array([tip + d * width / 2, tip + d * length])
    h, w = scene.shape[:2]
    x0, y0 = np.maximum((ends.min(0) - 2 * width).astype(int), 0)
    x1, y1 = np.minimum((ends.max(0) + 2 * width).astype(int), (w, h))
    if x1 <= x0 or y1 <= y0:
        return
    roi = scene[y0:y1, x0:x1].astype(np.float32)
    finger, shadow = np.zeros(roi.shape[:2], np.float32), np.zeros(roi.shape[:2], np.float32)
    stroke(finger, ends - (x0, y0), (1.0,), width)       # round-capped: the cap ends at the tip
    stroke(shadow, ends - (x0, y0) + light * width * .4, (1.0,), width)
    shadow = cv2.GaussianBlur(shadow, (0, 0), width * .25)
    soft = cv2.GaussianBlur(finger, (0, 0), max(1, width * .04))
    skin = np.array(pick(rng, ((150, 180, 225), (130, 165, 215), (100, 135, 185), (70, 100, 145))), np.float32)
    colour = np.empty_like(roi)
    colour[:] = skin
    colour *= (.8 + .2 * cv2.GaussianBlur(finger, (0, 0), width * .15))[..., None]
    nail = _ellipse(width * .36, 0, width * .3, width * .3) @ rot2(ang).T + tip - (x0, y0)
    fill(colour, nail, np.minimum(skin * 1.12 + 25, 255))
    roi *= 1 - .35 * shadow[..., None]
    roi = roi * (1 - soft[..., None]) + colour * soft[..., None]
    scene[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)


# ---------------------------------------------------------------------- camera effects

@lru_cache(maxsize=8)
def _grid(w, h):
    """Pixel coordinates relative to the image centre, scaled by the half diagonal."""
    yy, xx = np.indices((h, w), dtype=np.float32)
    hd = math.hypot(w, h) / 2
    return (xx - w / 2) / hd, (yy - h / 2) / hd, hd


def _low(w, h, fn, k=8, blur=0.0):
    """Evaluate fn(x, y) (pixel coordinates) on a k times coarser grid, optionally blur it by
    `blur` pixels, and enlarge it to w x h."""
    y, x = np.mgrid[0:h:k, 0:w:k].astype(np.float32) + k / 2
    field = fn(x, y).astype(np.float32)
    if blur:
        field = cv2.GaussianBlur(field, (0, 0), blur / k)
    return cv2.resize(field, (w, h), interpolation=cv2.INTER_LINEAR)


def _blur(img, sigma):
    """Gaussian blur; large radii via a reduced copy for speed."""
    if sigma < 3:
        return cv2.GaussianBlur(img, (0, 0), sigma)
    k = sigma / 2
    small = cv2.resize(img, None, fx=1 / k, fy=1 / k, interpolation=cv2.INTER_AREA)
    return cv2.resize(cv2.GaussianBlur(small, (0, 0), 2), (img.shape[1], img.shape[0]))


def camera_effects(scene, rng, p, card_alpha, geo):
    """Glare, hand shadow, uneven light, defocus, motion blur, lens distortion, chromatic
    aberration, colour cast and sensor noise, in that order; returns a uint8 image."""
    h, w = scene.shape[:2]
    img = scene.astype(np.float32) / 255
    (cx, cy), size = geo["centre"], geo["size"]
    if rng.random() < p["glare"][0]:     # specular spot or streak on the glossy card
        (gx, gy), a = geo["glare_at"], rng.uniform(0, np.pi)
        la = size * rng.uniform(.08, .22)
        lb = la * rng.uniform(.15, 1)
        glare = _low(w, h, lambda x, y: np.exp(-.5 * (((x - gx) * math.cos(a) + (y - gy) * math.sin(a)) / la) ** 2
                                               - .5 * ((-(x - gx) * math.sin(a) + (y - gy) * math.cos(a)) / lb) ** 2))
        img = 1 - (1 - img) * (1 - rng.uniform(*p["glare"][1:]) * glare * card_alpha)[..., None]
    if rng.random() < p["shade"][0]:     # blurred shadow of the phone or a hand across the card
        (sx, sy), a = geo["centre"] + rng.normal(0, size * .6, 2), rng.uniform(0, np.pi)
        ra, rb = size * rng.uniform(.6, 1.4), size * rng.uniform(.25, .5)
        shade = _low(w, h, lambda x, y: ((((x - sx) * math.cos(a) + (y - sy) * math.sin(a)) / ra) ** 2
                                         + ((-(x - sx) * math.sin(a) + (y - sy) * math.cos(a)) / rb) ** 2 < 1) * 1.0,
                     blur=size * .12)
        img *= (1 - rng.uniform(*p["shade"][1:]) * shade)[..., None]
    gx, gy = rng.normal(0, 1, 2)       # lamp gradient direction
    gx, gy = gx / math.hypot(gx, gy), gy / math.hypot(gx, gy)
    tilt_light, vignette = p["light"] * rng.uniform(0, 1), p["vignette"] * rng.uniform(.3, 1)
    gain = _low(w, h, lambda x, y: (1 + tilt_light * (gx * (2 * x / w - 1) + gy * (2 * y / h - 1)))
                * (1 - vignette * ((2 * x / w - 1) ** 2 + (2 * y / h - 1) ** 2) / 2))
    img *= (gain * rng.uniform(*p["exposure"]))[..., None]
    sigma = rng.uniform(*p["focus"]) * w / 1600
    if sigma > .3:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    (dx, dy), reach = geo["far"], .6 * max(w, h)   # depth of field: sharp at the card, blurry far off
    ramp = _low(w, h, lambda x, y: np.clip(((x - cx) * dx + (y - cy) * dy) / reach, -.3, 1) ** 2)
    img += (_blur(img, rng.uniform(*p["dof"]) * w / 1600) - img) * ramp[..., None]
    if rng.random() < p["motion"][0]:
        n = int(rng.uniform(*p["motion"][1:])) | 1
        kernel = np.zeros((n, n), np.float32)
        a = rng.uniform(0, np.pi)
        cv2.line(kernel, (int(n / 2 - n / 2 * math.cos(a)), int(n / 2 - n / 2 * math.sin(a))),
                 (int(n / 2 + n / 2 * math.cos(a)), int(n / 2 + n / 2 * math.sin(a))), 1.0, 1)
        img = cv2.filter2D(img, -1, kernel / kernel.sum())
    xn, yn, hd = _grid(w, h)     # barrel distortion; blue and red scaled and shifted a little
    k, ca = rng.uniform(*p["lens"]), p["ca"] * rng.uniform(.5, 1)
    shift = rng.uniform(-1, 1, 2) * p["ca"] * 800
    scale = (1 + k * (xn * xn + yn * yn)) / (1 + k)
    chans = []
    for c, side in zip(cv2.split(img), (-1, 0, 1)):
        m, ox, oy = (float(v) for v in (hd * (1 - side * ca), w / 2 + side * shift[0], h / 2 + side * shift[1]))
        chans.append(cv2.remap(c, xn * scale * m + ox, yn * scale * m + oy, cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REFLECT))
    img = cv2.merge(chans)
    cast = pick(rng, ((1, 1, 1), (.82, .95, 1.12), (1.1, 1.0, .9)))   # neutral, warm lamp, cold daylight
    img *= (1 + (np.array(cast, np.float32) - 1) * rng.uniform(.3, 1) * p["cast"] / .12)
    sd = rng.uniform(*p["noise"])
    lum = cv2.cvtColor(np.clip(img, 0, 1), cv2.COLOR_BGR2GRAY)
    img += (rng.standard_normal((h, w), dtype=np.float32) * sd * (.5 + 1.2 * (1 - lum)))[..., None]
    chroma = rng.standard_normal((h // 2, w // 2, 3), dtype=np.float32) * sd * .6
    img += cv2.resize(chroma, (w, h), interpolation=cv2.INTER_LINEAR)
    return np.clip(img * 255 + .5, 0, 255).astype(np.uint8)


# ---------------------------------------------------------------------------- one photo

def render_photo(rng, target, others, tier, title_side=-1):
    """A phone photo of card `target` on a cluttered table; `others` may lie around face up.
    Coins, dice, the finger and (below the hard tier) glare keep off the title, which is at the
    top of the card for title_side -1 and at the bottom for 1."""
    p = TIER[tier]
    w, h = pick(rng, PHOTO_SIZES)
    cam, spin, tilt = place_target(rng, p, w, h)
    scene = table_surface(rng, w, h)
    light = rot2(rng.uniform(0, 2 * np.pi)) @ (rng.uniform(.3, 1), 0)
    strength = rng.uniform(.25, .5)
    under, over = [], []
    for _ in range(int(rng.integers(*p["clutter"]))):
        kind = pick(rng, ("coin", "coin", "coin", "die", "die", "pencil", "sheet", "back", "back"))
        if kind == "sheet":
            c = rng.normal(0, 30, 2) if rng.random() < .35 else cam.to_table(rng.uniform(0, 1, 2) * (w, h))
            under.insert(0, sheet_item(cam, c, rng.uniform(0, 2 * np.pi), rng))
        elif kind == "back":
            c = cam.to_table(rng.uniform(-.1, 1.1, 2) * (w, h))
            if np.linalg.norm(c) > 60:
                under.append(card_item(cam, *card_back(), c, rng.uniform(0, 2 * np.pi)))
        else:
            radius, height = {"coin": (12.5, 2), "die": (12, 17), "pencil": (4, 7)}[kind]
            touch = kind != "pencil" and rng.random() < .3
            c = spot_for(rng, cam, spin, radius, height * math.tan(tilt), touch, title_side)
            if kind == "pencil" and c is not None:
                ang = rng.uniform(0, 2 * np.pi)
                along = [rot2(-spin) @ (c + rot2(ang)[:, 0] * t) for t in np.linspace(-95, 95, 39)]
                if min(rect_distance(q, HALF) for q in along) > 5:
                    over.append(pencil_item(cam, c, ang, rng))
            elif c is not None:
                over.append(coin_item(cam, c, rng) if kind == "coin" else die_item(cam, c, rng, light))
    for other in others[:int(rng.integers(0, p["faceup"] + 1))]:
        for _ in range(20):
            uv = rng.uniform(-.15, 1.15, 2) * (w, h)
            c = cam.to_table(uv)
            if max(abs(uv[0] / w - .5), abs(uv[1] / h - .5)) > .38 and np.linalg.norm(c) > 80:
                under.append(card_item(cam, *other, c, rng.uniform(0, 2 * np.pi)))
                break
    paint_layer(scene, cam, under, light, strength * .6)
    face, alpha = curl(*target, rng, p["curl"])
    placed = paint_layer(scene, cam, [card_item(cam, face, alpha, np.zeros(2), spin, 1.0, rng.uniform(.88, 1.05))],
                         light, strength)[0]
    paint_layer(scene, cam, over, light, strength)
    to_img = lambda local, z=0.0: cam.project(np.array([rot2(spin) @ local]), z)[0]
    centre = to_img(np.zeros(2))
    size = math.sqrt(cv2.contourArea(cam.project((SQUARE * HALF) @ rot2(spin).T).astype(np.float32)))
    if rng.random() < p["finger"]:
        corner = np.array([rng.choice((-1, 1)) * HALF[0], -title_side * HALF[1]])
        tip = to_img(corner * .97)
        paint_finger(scene, rng, tip, tip - centre, size, light / np.linalg.norm(light))
    card_alpha = np.zeros((h, w), np.float32)
    if placed is not None:
        x0, y0, a = placed
        card_alpha[y0:y0 + a.shape[0], x0:x0 + a.shape[1]] = a
        for it in over:     # the card's gloss is hidden where things lie on it
            for z in (0, -it.height):
                fill(card_alpha, cam.project(it.footprint, z), (0.0,))
    far_dir = cam.R[2, :2]         # table direction in which depth grows
    far = to_img(rot2(-spin) @ far_dir * 20) - centre if np.linalg.norm(far_dir) > 1e-3 else rng.normal(0, 1, 2)
    ylo = -HALF[1] * (1 - 2 * TITLE_ZONE) if tier != "hard" else -HALF[1] * .9
    glare_x = rng.uniform(-.8, .8) * HALF[0]
    glare_y = -title_side * rng.uniform(ylo, HALF[1] * .9)
    geo = dict(centre=centre, size=size, far=far / (np.linalg.norm(far) + 1e-9),
               glare_at=to_img(np.array([glare_x, glare_y])))
    return camera_effects(scene, rng, p, card_alpha, geo)


# ------------------------------------------------------------------------------ workers

_STATE = {}


def _init(cards, design, out, seed):
    """Draw from now on with these cards, design, folder and seed (a process's state: the
    faces drawn for another set are forgotten)."""
    if _STATE.get("cards") is not cards or _STATE.get("design") != design:
        _face.cache_clear()
    _STATE.update(cards=cards, design=design, out=Path(out), seed=seed)


@lru_cache(maxsize=48)
def _face(index):
    return render_face(_STATE["cards"][index], _STATE["design"])


def scan(index):
    """Card number `index`'s flat scan (BGR, its corners on white, as from a flatbed scanner)."""
    face, alpha = _face(index)
    out = face.copy()
    edge = alpha < 255  # (blended only there: elsewhere the face shows as it is)
    a = alpha[edge][:, None].astype(np.float32) / 255
    out[edge] = (face[edge] * a + 255 * (1 - a)).astype(np.uint8)
    return out


def _write_scan(index):
    """Save the enrolled card's flat scan."""
    cv2.imwrite(str(_STATE["out"] / "cards" / f"{_STATE['cards'][index].id}.png"), scan(index))


def _write_photo(job):
    """Render and save photo number `n` of card `index`; returns the photo's file name."""
    n, index, tier = job
    rng = np.random.default_rng([_STATE["seed"], 1, n])
    count = len(_STATE["cards"])
    others = [_face(int(i)) for i in rng.choice([i for i in range(count) if i != index], 3, replace=False)]
    img = render_photo(rng, _face(index), others, tier, TITLE_SIDE[_STATE["design"]])
    name = f"{n:04d}.jpg"
    cv2.imwrite(str(_STATE["out"] / "photos" / name), img,
                [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(*TIER[tier]["quality"], endpoint=True))])
    return name


def plan_photos(n_photos, n_enrolled, n_cards, unknown, seed):
    """(photo number, card index, tier) for each photo: tiers in equal thirds, every enrolled
    card photographed in turn, `unknown` of the photos showing a card that is not enrolled."""
    rng = np.random.default_rng([seed, 2])
    tiers = rng.permutation([TIERS[i % 3] for i in range(n_photos)])
    is_unknown = np.zeros(n_photos, bool)
    is_unknown[rng.choice(n_photos, int(round(n_photos * unknown)), replace=False)] = True
    enrolled = np.concatenate([rng.permutation(n_enrolled) for _ in range(n_photos // n_enrolled + 1)])
    rounds = n_photos // (n_cards - n_enrolled) + 1
    strangers = np.concatenate([rng.permutation(np.arange(n_enrolled, n_cards)) for _ in range(rounds)])
    jobs, e, s = [], 0, 0
    for n in range(n_photos):
        if is_unknown[n]:
            jobs.append((n + 1, int(strangers[s]), str(tiers[n])))
            s += 1
        else:
            jobs.append((n + 1, int(enrolled[e]), str(tiers[n])))
            e += 1
    return jobs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--design", choices=("ribbon", "cartoon", "night"), default="ribbon")
    ap.add_argument("--cards", type=int, default=300)
    ap.add_argument("--photos", type=int, default=950)
    ap.add_argument("--unknown", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    out = Path(args.out_dir)
    (out / "cards").mkdir(parents=True, exist_ok=True)
    (out / "photos").mkdir(exist_ok=True)
    cards = build_cards(args.cards, unknown_cards(args.photos, args.unknown), args.seed)
    jobs = plan_photos(args.photos, args.cards, len(cards), args.unknown, args.seed)
    start = time.time()
    with Pool(args.jobs, _init, (cards, args.design, str(out), args.seed)) as pool:
        pool.map(_write_scan, range(args.cards), chunksize=8)
        print(f"{args.cards} scans in {time.time() - start:.0f}s", file=sys.stderr)
        for done, _ in enumerate(pool.imap_unordered(_write_photo, jobs, chunksize=2), 1):
            if done % 50 == 0:
                print(f"{done}/{len(jobs)} photos, {time.time() - start:.0f}s", file=sys.stderr)
    with open(out / "truth.csv", "w", newline="") as fh:
        wr = csv.writer(fh)
        wr.writerow(("photo", "card_id", "tier"))
        for n, index, tier in jobs:
            wr.writerow((f"{n:04d}.jpg", cards[index].id if index < args.cards else "", tier))
    with open(out / "titles.csv", "w", newline="") as fh:
        wr = csv.writer(fh)
        wr.writerow(("card_id", "title"))
        wr.writerows((c.id, c.title) for c in cards)
    argv_used = sys.argv if argv is None else ["bench/outside_set.py", *argv]
    (out / "README.txt").write_text(f"python {shlex.join(argv_used)}\ndesign: {args.design}\n")
    print(f"done in {time.time() - start:.0f}s: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
