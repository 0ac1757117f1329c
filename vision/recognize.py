"""From photo bytes to the enrolled card it shows — or a reasoned "unknown card".

Steps, holding one of the process's few slots for image work (``gate``): decode safely
(``image``), find the card's outlines (``locate``) and pick and line up the card by the
game's frame (``frame``), rank every enrolled card by the coarse vector (one matrix
product), re-rank the best ``SHORTLIST`` by the fine image and the title band, each with a
small search over shifts, and turn the best score and its lead over the runner-up into a
confidence (``confidence``). Below ``ACCEPT`` the answer is "unknown card", with the
reason — unless the title, read when the images leave doubt (``title``), names the card.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from . import describe, gate, image, locate, title
from .frame import locate_card
from .index import Index, Snapshot

SHORTLIST = 12
MARGIN = 8                       # px of context around the rectified card for the shift search
ACCEPT = 0.5                     # confidence needed to name a card
TIE_BREAK = 0.9                  # below this image confidence the title is read too (when it can be)
TITLE_SIMILAR = 0.9              # a title read must be this like a card's name (0..1, accents folded)
TITLE_ONLY = 0.95                # ... and this alike, naming no other card, to name a card on its own
TITLE_OCR = 0.6                  # and read with this confidence
UNFRAMED_OUTLINES = 4            # outlines whose title is read when no card is enrolled
TRY_OUTLINES = 3                 # outlines identified before giving up on a confident match
# Confidence = logistic(W_SCORE·score + W_LEAD·lead + BIAS), fitted on the generated photos of
# bench/vision.py (see docs/benchmarks.md); lead is the margin over the best *other* card.
W_SCORE, W_LEAD, BIAS = 19.66, 19.69, -7.48
IMAGE_BLUR_LIMIT = 0.002         # the same over the whole photo (at FIND_SIDE), when no card was found
BLUR_LIMIT = 0.005               # mean squared Laplacian of the flattened card: below it, blame the blur


@dataclass
class Candidate:
    card_id: str
    score: float
    confidence: float

    def as_dict(self) -> dict:
        return {"card_id": self.card_id, "score": round(self.score, 4), "confidence": round(self.confidence, 4)}


@dataclass
class Result:
    """The answer for one photo. ``card_id`` is set only when the match is confident."""
    candidates: list[Candidate] = field(default_factory=list)
    reason: str | None = None        # no_card | too_blurry | no_confident_match | nothing_enrolled
    message: str = ""
    elapsed_ms: float = 0.0
    corners: list[list[float]] | None = None
    source: str | None = None        # image | title | image+title: what named the card
    title: str | None = None         # the title as read (only when the title was read)
    outlines: list[np.ndarray] = field(default_factory=list, repr=False)  # canonical card → photo, best first

    @property
    def card_id(self) -> str | None:
        return self.candidates[0].card_id if self.reason is None and self.candidates else None

    def as_dict(self) -> dict:
        return {"card_id": self.card_id, "reason": self.reason, "message": self.message,
                "candidates": [c.as_dict() for c in self.candidates],
                "elapsed_ms": round(self.elapsed_ms, 1), "corners": self.corners,
                "source": self.source if self.card_id else None, "title": self.title}


MESSAGES = {
    "no_card": "No card found in the photo: hold the phone above the card so that all of it is in the picture.",
    "too_blurry": "The photo is too blurry to tell the card: hold still, or move a little further away.",
    "no_confident_match": "This card is not one the app knows well enough to name (not enrolled, or the "
                          "photo is too poor). Choose from the suggestions or search by name.",
    "nothing_enrolled": "No card images are enrolled yet (companion vision enroll).",
}


def confidence(score: float, lead: float) -> float:
    z = W_SCORE * score + W_LEAD * lead + BIAS
    return 1 / (1 + math.exp(-max(-60.0, min(60.0, z))))


def _shortlist(index: Snapshot, flat: np.ndarray) -> list[int]:
    core = flat[MARGIN:-MARGIN, MARGIN:-MARGIN]
    q = cv2.resize(core, describe.COARSE, interpolation=cv2.INTER_AREA).ravel() - index.mean
    scores = index.coarse @ describe.zn(q)
    k = min(SHORTLIST, len(scores))
    top = np.argpartition(-scores, k - 1)[:k]
    return list(top[np.argsort(-scores[top])])


def _fine_scores(index: Snapshot, flat: np.ndarray, rows: list[int]) -> list[float]:
    """Fine image and title band, each with the shared frame taken out and a small shift search."""
    fw, fh = describe.FINE
    mf = round(MARGIN * fw / locate.CARD_W)
    full = cv2.resize(flat, (fw + 2 * mf, fh + 2 * mf), interpolation=cv2.INTER_AREA)
    full -= np.pad(index.frame_fine, mf)
    x0, y0, x1, y1 = describe.title_box()
    band = flat[y0:y1 + 2 * MARGIN, x0:x1 + 2 * MARGIN] - np.pad(index.frame_title, MARGIN)
    out = []
    for r in rows:
        s_fine = describe.best_shift_score(full, index.arrays["fine"][r] - index.frame_fine)
        s_title = describe.best_shift_score(band, index.arrays["title"][r] - index.frame_title)
        out.append(min(s_fine, s_title))  # both must agree: twins differ in the title, look-alike titles in the art
    return out


#: Card ids whose names are like a title read from a photo, best first, with similarity 0..1.
NameMatcher = Callable[[str], list[tuple[str, float]]]


def recognize(data: bytes, index: Index, read_title: title.Reader | None = None,
              match_name: NameMatcher | None = None) -> Result:
    """Recognise the card in the photo ``data`` against ``index``.

    Raises ``image.ImageError`` for bytes that are not a usable image, and ``gate.Busy``
    when too many photos are being recognised or enrolled in this process already.

    With ``read_title`` (``title.reader()``) and ``match_name`` (names from the card
    database) the title is read when the images leave doubt: it names cards that have no
    enrolled image, and breaks ties between close image matches.
    """
    snapshot = index.refresh().current  # one consistent state, even if an enrolment lands meanwhile
    return gate.run(_photo, data, snapshot, read_title, match_name)  # a few at once; gate.Busy beyond


def _photo(data: bytes, snapshot: Snapshot, read_title: title.Reader | None,
           match_name: NameMatcher | None) -> Result:
    t0 = time.perf_counter()
    bgr = image.load(data)
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    result = _recognize(gray, bgr, snapshot)
    if read_title and match_name and result.outlines and (
            result.reason is not None or result.candidates[0].confidence < TIE_BREAK):
        _by_title(gray, result, read_title, match_name)
    result.elapsed_ms = (time.perf_counter() - t0) * 1000
    return result


def _by_title(gray: np.ndarray, result: Result, read_title: title.Reader, match_name: NameMatcher) -> None:
    """Read the title and let it name or confirm the card (see ``recognize``).

    A confident image match knows which way up the card is; otherwise both ways are read,
    on each outline offered (several when no frame could pick one).
    """
    views = [result.outlines[0]] if result.reason is None else [
        H2 for H in result.outlines for H2 in (H, H @ _half_turn())]
    best = None
    for H in views:
        text, ocr = read_title(title.band(gray, H))
        matches = match_name(text) if len(text) >= 3 else []
        if matches and (best is None or matches[0][1] * ocr > best[1] * best[2]):
            runner_up = matches[1][1] if len(matches) > 1 else 0.0
            best = (matches[0][0], matches[0][1], ocr, text, runner_up)
        if best and best[1] >= 0.99 and best[2] >= 0.9:
            break
    if best is None:
        return
    card_id, similar, ocr, text, runner_up = best
    result.title = text
    if similar < TITLE_SIMILAR or ocr < TITLE_OCR:
        return
    sure = similar * ocr
    ids = [c.card_id for c in result.candidates[:2]]
    if card_id in ids:  # the title agrees with one of the two best images: that one
        cand = result.candidates.pop(ids.index(card_id))
        cand.confidence = max(cand.confidence, sure)
        result.candidates.insert(0, cand)
        result.source = "image+title"
    elif similar >= TITLE_ONLY and runner_up < TITLE_SIMILAR and (
            result.reason is not None or sure >= TIE_BREAK > result.candidates[0].confidence):
        # the title alone: it must be nearly exact and name one card only
        result.candidates.insert(0, Candidate(card_id, similar, sure))
        del result.candidates[5:]
        result.source = "title"
    else:
        return
    result.reason, result.message = None, ""


def _recognize(gray: np.ndarray, bgr: np.ndarray, index: Snapshot) -> Result:
    if not len(index):  # no frame to compare with: the largest card-shaped outlines, for the title
        found = locate_card(gray, bgr, None)
        return Result(reason="nothing_enrolled", message=MESSAGES["nothing_enrolled"],
                      outlines=found[:UNFRAMED_OUTLINES])
    found = locate_card(gray, bgr, index.frame, index.frame_weight, index.frame_fine)
    if not found:
        reason = "too_blurry" if blurred(gray) else "no_card"
        return Result(reason=reason, message=MESSAGES[reason])
    best: tuple[list[Candidate], float, np.ndarray] | None = None
    for outline in found[:TRY_OUTLINES]:
        cands, sharp = _identify(gray, outline, index)
        if best is None or cands[0].confidence > best[0][0].confidence:
            best = (cands, sharp, outline)
        if cands[0].confidence >= ACCEPT:
            break
    cands, sharp, H = best
    corners = cv2.perspectiveTransform(locate.CANON[None], H)[0]
    result = Result(candidates=cands, corners=[[round(float(x), 1), round(float(y), 1)] for x, y in corners],
                    source="image", outlines=[H])
    if cands[0].confidence < ACCEPT:
        result.reason = "too_blurry" if sharp < BLUR_LIMIT else "no_confident_match"
        result.message = MESSAGES[result.reason]
    return result


def blurred(gray: np.ndarray) -> bool:
    """Whether the whole photo lacks fine detail while it has coarse detail: shaken or out of
    focus, rather than a picture of a bare table (which lacks both)."""
    scale = locate.FIND_SIDE / max(gray.shape)
    small = np.log1p(cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA).astype(np.float32))
    coarse = cv2.resize(small, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
    fine_energy = float(np.mean(cv2.Laplacian(small, cv2.CV_32F) ** 2))
    coarse_energy = float(np.mean(cv2.Laplacian(coarse, cv2.CV_32F) ** 2))
    return fine_energy < IMAGE_BLUR_LIMIT and fine_energy < 0.15 * coarse_energy


def _identify(gray: np.ndarray, H: np.ndarray, index: Snapshot) -> tuple[list[Candidate], float]:
    """The best five enrolled cards for the card seen through ``H``, and how sharp it is."""
    best: tuple[float, list] | None = None
    sharp = 0.0
    for turn in (0, 2):  # the frame usually tells up from down; check the other way too
        Ht = H if turn == 0 else H @ _half_turn()
        flat = describe.flatten(locate.rectify(gray, Ht, margin=MARGIN), locate.CARD_W)
        if turn == 0:
            core = flat[MARGIN:-MARGIN, MARGIN:-MARGIN]
            sharp = float(np.mean(cv2.Laplacian(core, cv2.CV_32F) ** 2))
        rows = _shortlist(index, flat)
        scores = _fine_scores(index, flat, rows)
        ranked = sorted(zip(scores, (index.ids[r] for r in rows)), reverse=True)
        if best is None or ranked[0][0] > best[0]:
            best = (ranked[0][0], ranked)
    ranked = best[1]
    cands = []
    for i, (s, card_id) in enumerate(ranked[:5]):
        rival = ranked[1][0] if i == 0 and len(ranked) > 1 else ranked[0][0] if i else 0.0
        cands.append(Candidate(card_id, s, confidence(s, s - rival)))
    return cands, sharp


def _half_turn() -> np.ndarray:
    """Canonical coordinates turned 180° about the card's centre."""
    return np.array([[-1, 0, locate.CARD_W], [0, -1, locate.CARD_H], [0, 0, 1]], np.float64)
