"""A new reference among the cards already enrolled with it, its deck: which way up it is
stored (``turns``), and how much it looks like a card of that deck (``likeness``).

**Which way up.** A card taught from a phone photo is straightened long side down, but
nothing in the photo says which end is the top, so about half of a deck taught that way
was stored upside down. Recognition compares a photo both ways up, but what is learned
from the whole enrolled set is not: the cards of one print (``index.prints``) were found
as two prints, one each way up, each with its own common print and mean picture. So before
new references are stored, each is turned half round or not so that it agrees with the
cards whose thumbnail (``describe.coarse``) is most like it either way up — its
``NEIGHBOURS``, of its own print as a rule. A pair of cards tells only whether the two are
the same way up; the deck's consensus is the leading eigenvector of those pairwise
agreements (the sign each card takes in it), and then each new card in turn takes the way
the sum of its neighbours' agreements favours, the stored ones fixed. Which end of a deck
is up is set by the stored cards where it has stored neighbours, else by its majority as
given (a deck of scans stays as scanned). A card turns only when every one of its
neighbours favours the other way, by ``MARGIN`` together (summed correlations). Cards of
one print agree so (every neighbour of every card, in each design of bench/card_designs.py);
pictures that share nothing (noise) agree by chance, and seldom all ten: cards with
nothing in common stay as they were given.

**How like its deck.** The mean of a thumbnail's ``NEIGHBOURS`` highest correlations,
either way up, with the deck's thumbnails. Cards of one print share a frame, a title band,
a text box, so a card straightened from a photo to its own outline is as like its deck as
the others are; one cut to a wrong outline (a piece of the table with it, its picture's
frame) is much less so (``enroll.agreeing``).
"""
from __future__ import annotations

import cv2
import numpy as np

from . import describe

NEIGHBOURS = 10    # the cards most like a new one that decide its way up
MARGIN = 0.3       # summed agreement the other way it takes to turn a card
ROUNDS = 20        # passes over the new cards until none turns
POWER_STEPS = 200  # iterations for the consensus (the graph's leading eigenvector)
BLOCK = 512        # new cards compared with all at once (bounds the memory)


def upright(pictures: list[np.ndarray], stored: np.ndarray | None = None) -> tuple[list[np.ndarray], np.ndarray]:
    """``pictures`` (grey CARD_H × CARD_W cards, new to the deck) with those ``turns`` says
    to turn turned half round, and which those are (a bool each)."""
    if not pictures:
        return [], np.zeros(0, bool)
    turned = turns(np.stack([describe.coarse(g) for g in pictures]), stored)
    return [cv2.rotate(g, cv2.ROTATE_180) if turn else g for g, turn in zip(pictures, turned)], turned


def turns(new: np.ndarray, stored: np.ndarray | None = None) -> np.ndarray:
    """Which of the ``new`` cards to turn half round (a bool per row), given their coarse
    thumbnails (rows of ``describe.coarse``) and those of the ``stored`` cards, if any,
    which keep the way they are. A thumbnail turned half round is the same vector reversed
    (the thumbnail's cells are whole blocks of the card's pixels)."""
    n = len(new)
    if n == 0:
        return np.zeros(0, bool)
    every = _unit(np.concatenate([new, stored]) if stored is not None and len(stored) else new)
    k = min(NEIGHBOURS, len(every) - 1)
    if k < 1:
        return np.zeros(n, bool)
    near, weight = _neighbours(every, n, k)
    up = np.ones(len(every))                      # +1: as given (or stored), -1: turned
    among_new = np.where(near < n, weight, 0.0)
    consensus = _consensus(near, among_new, n)
    anchored = (weight - among_new).sum(axis=1)   # what the stored neighbours say of each new card
    if np.abs(anchored).sum() > 0:
        sign = np.sign(anchored @ consensus) or 1.0
    else:
        sign = np.sign(consensus.sum()) or 1.0
    up[:n] = np.where(sign * consensus < 0, -1.0, 1.0)
    for _ in range(ROUNDS):
        changed = False
        for i in range(n):
            want = 1.0 if weight[i] @ up[near[i]] >= 0 else -1.0
            if want != up[i]:
                up[i], changed = want, True
        if not changed:
            break
    say = weight * up[near]                       # each neighbour's word on each new card as given
    return (say < 0).all(axis=1) & (say.sum(axis=1) < -MARGIN)


def likeness(pictures: np.ndarray, deck: np.ndarray, own: np.ndarray | None = None) -> np.ndarray:
    """How like ``deck`` (thumbnails, rows) each of ``pictures`` is (see above); ``own``, when
    given, is each picture's row in ``deck``, left out of its own neighbours."""
    mine, theirs = _unit(pictures), _unit(deck)
    alike = np.maximum(mine @ theirs.T, mine @ theirs[:, ::-1].T)
    if own is not None:
        alike[np.arange(len(mine)), own] = -np.inf
    k = min(NEIGHBOURS, alike.shape[1] - (own is not None))
    if k < 1:
        return np.zeros(len(mine))
    return np.sort(alike, axis=1)[:, -k:].mean(axis=1)


def _unit(vectors: np.ndarray) -> np.ndarray:
    v = vectors.astype(np.float32)
    v = v - v.mean(axis=1, keepdims=True)
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9)


def _neighbours(every: np.ndarray, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """For each new card (the first ``n`` rows of ``every``), its ``k`` most alike cards
    either way up and how much more alike they are the same way up than turned (negative:
    the other way)."""
    turned = every[:, ::-1]
    near = np.empty((n, k), np.int64)
    weight = np.empty((n, k))
    for start in range(0, n, BLOCK):
        rows = every[start:min(start + BLOCK, n)]
        same, other = rows @ every.T, rows @ turned.T
        alike = np.maximum(same, other)
        alike[np.arange(len(rows)), np.arange(start, start + len(rows))] = -np.inf   # not itself
        top = np.argpartition(-alike, k - 1, axis=1)[:, :k]
        near[start:start + BLOCK] = top
        weight[start:start + BLOCK] = np.take_along_axis(same - other, top, axis=1)
    return near, weight


def _consensus(near: np.ndarray, weight: np.ndarray, n: int) -> np.ndarray:
    """Each new card's value in the leading eigenvector of the symmetric agreement graph
    among the new cards (``weight`` of each to its ``near`` neighbours): cards that agree
    share a sign."""
    rows = np.repeat(np.arange(n), near.shape[1])
    cols, w = near.ravel(), weight.ravel()
    keep = cols < n
    rows, cols, w = np.r_[rows[keep], cols[keep]], np.r_[cols[keep], rows[keep]], np.r_[w[keep], w[keep]]
    shift = np.bincount(rows, np.abs(w), minlength=n).max(initial=0)   # makes the leading eigenvalue the largest
    x = np.linspace(1.0, 2.0, n)                                        # not orthogonal to it by chance
    for _ in range(POWER_STEPS):
        x = np.bincount(rows, w * x[cols], minlength=n) + shift * x
        x /= max(np.linalg.norm(x), 1e-12)
    return x
