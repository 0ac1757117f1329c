"""From photo bytes to the enrolled card it shows — or a reasoned "unknown card".

Steps, holding one of the process's few slots for image work (``gate``): decode safely
(``image``); describe the photo by its local features, once as a whole and once more for
each of the largest card-shaped outlines (``locate``) straightened to the reference size
and its light evened out (``light``), so that a small or tilted card is described at the
scale its reference was, and a shaded one with the contrast it has in good light, and look
their visual words up (``_look``); shortlist the enrolled cards and verify each geometrically,
looking again through the first homography, and by its pixels (``match``); verify the
cards that look like the best one too (twins: ``_lookalikes``), and when two cards both
verify (same art, near-identical titles) compare them only where they differ
(``_decide``). When that names no card (none is sure, or the card sure of fails the checks a
card about to be named passes: ``_verdict``), a second look adds the next outlines,
those of the photo's strongest straight lines (the best one only beside a large outline)
and those where an enrolled print's frame lies (``match.frames``: a card whose edge
closes no outline), shortlisted and verified as the first look's were; most cards the
first look misses are named there. When that names none either, a wider look adds the
outlines that the photo's long straight edges draw and those its colour edges close, the
photo at half size and as it was decoded (when that is larger than the working size),
and a longer shortlist; when
that is not sure either, a last look straightens the first outline widened (a rectangle
printed on the card may be all that was found), and the photo is described squeezed
along two directions (``_foreshortened``: a card far from straight down whose outline no
finder closes is seen square in one). When no look is sure, the card that has
the inliers to be named but whose pixels disagree is fitted again from where it was found
(``_fit_again``): a homography fitted on pairs crowded in one part of the card is off
elsewhere. Nothing depends on how the cards are
printed: what all enrolled cards share is learned from them and left out (``index``).

The confidence is the weakest of three calibrated checks (``confidence``): enough inliers
beyond those of a typical other shortlisted card (the frame and the rules-text font let any
card of a game line up with any other a little), enough agreement of the aligned pixels
and, when another card verified as well, a clear lead where the two differ — and, for a
card about to be named whose print has twins enrolled, a fourth: it agrees with the photo
where those twins differ (``_agreement``), so that a card with its art and another title
is not named for it; and a fifth for any card about to be named: its lines agree with the
photo's where the cards of its print differ (``match.art``), so that a card of the same
layout, with a background patch, a motif or title words in the same place but other art,
is not named for it; with a title reader, the text there is read when that agreement is
low (``_read_where_twins_differ``): read as on the card's reference and on no other card
of its print, it is agreement enough, read as something else it is none. When something
lies over that place (another card, paper, a hand), it tells nothing, and the card is
named on the rest unless the text there reads as another title. A card that runs out
of the picture is not named (``runs_out``): it is most often the one beside the card
meant. Below
``ACCEPT`` the answer is "unknown card" with the reason and the suggestions — unless the
title, read when the images leave doubt (``title``), names the card. The three thresholds
are fitted by ``bench/vision.py --calibrate`` on card designs that the benchmark's report
does not include (see docs/vision.md).
"""
from __future__ import annotations

import difflib
import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np
from rapidfuzz import fuzz
from rapidfuzz.distance import Editops, Levenshtein

from . import describe, differ, features, gate, header, image, light, locate, match, title
from .index import Index, Snapshot, cells

ACCEPT = 0.5                     # confidence needed to name a card
TIE_BREAK = 0.9                  # below this image confidence the title is read too (when it can be)
TITLE_SIMILAR = 0.9              # a title read must be this like a card's name (0..1, accents folded)
TITLE_ONLY = 0.95                # ... and this alike, naming no other card, to name a card on its own
TITLE_OCR = 0.6                  # and read with this confidence
UNFRAMED_OUTLINES = 4            # outlines whose title is read when no card is enrolled
SMALLEST = 0.015                 # outlines covering less of the photo than this are not looked at,
OUTLINE_SLACK = 0.3              # nor those further than this from a card's proportions (``locate.card_shaped``)
CARD_OUTLINES = 2                # card-shaped outlines described again, straightened
SECOND_OUTLINES = 4              # ... and up to this many when the first look finds no card it is sure of,
LINE_OUTLINES = 2                # ... and this many drawn by the photo's long straight edges (not
LINE_NEAR = 0.02                 # within this share of the photo's side of one already described),
COLOUR_OUTLINES = 1              # and this many closed in the photo's colour edges only (a card as dark as the table),
STRAIGHT_OUTLINES = 3            # and this many of the photo's strongest straight lines (``locate.straight``),
STRAIGHT_BESIDE = 1              # (this many when an outline of the first look is large, SMALL_CARD: on
                                 # ruled paper or among cards those may be the paper's or a neighbour's;
                                 # 3 named 4 more of an outside set's hard photos, at +24 ms on its p95);
FIRST_STRAIGHT = 1               # the first of those is described in the first look already when no
                                 # closed outline of it is large (SMALL_CARD): a third of the ribbon
                                 # photos that took a second look are named there, ~90 ms sooner
FRAME_OUTLINES = 2               # and this many where the enrolled prints' frames lie (``match.frames``),
FRAME_SHORTLIST = 2              # ... each shortlisting this many cards by its thumbnail on its own
WIDER = 2                        # ... with a shortlist by words this many times as long, and the photo
                                 # at half size
HALF_FEATURES = 1500             # described by this many features, and as it was decoded, when that is
FINER = 1.25                     # this many times the working size and no outline of the first look
SMALL_CARD = 0.1                 # covers this share of the photo, by PHOTO_FEATURES whose corners score
DECODED_FAST = 14                # this much by FAST (10 at the working size; at 1,600 px those scoring 14
                                 # are already more than ORB keeps, and finding the weaker ones took a
                                 # third of its time: the same features for 86 of 90 photos): their words, on
RESCALED_SHORTLIST = 3           # their own, shortlist this many cards; and of the cards with most votes
CONSISTENT_AMONG = 48            # by words (this many) and by the rescaled photo's words (this many),
CONSISTENT_RESCALED = 48         # with their word pairs fitted by a homography each, the best
CONSISTENT = 3                   # this many fits are verified (``match.consistent_shortlist``; 16 by the
                                 # rescaled words left hard ribbon photos whose card they ranked 33rd, ~50th)
SEARCHED = 2                     # of the cards by words, this many are searched for too when their word pairs fit
                                 # no card (all listed by words in a wider look, and those by the rescaled photo's)
LOOK_AGAIN = 4                   # aligned cards (most inliers first) looked at again (``match.refine``) ...
LOOK_AGAIN_SHARE = 1 / 3         # ... when they have this share of the best one's inliers
OUTLINE_SIZE = (300, 420)        # ... at this size (px)
WIDEN = 0.3                      # a last look straightens the first outline widened by this share a side,
LAST_SHORTLIST = 3               # and verifies this many cards its words shortlist;
FORESHORTEN = 1.4                # when that is not sure either, the photo squeezed to 1 / this along each of
FORESHORTEN_TURNS = (0, 90)      # ... these directions (degrees; a card seen ~45° from straight down, seen
FORESHORTENED_FEATURES = 1500    # ... square again) is described by this many features a view, and
FORESHORTENED_SHORTLIST = 3      # ... this many cards its words shortlist, and of its fitted word pairs, verified
LOCAL_MEAN = 8                   # cards verified at least, for their mean picture to count
REFIT_CARDS = 1                  # when no look is sure, this many cards are fitted again (``_fit_again``),
REFIT_DENSE = 0.25               # ... and keep the new homography when their pixels then agree this well
                                 # (so too a card found in the photo foreshortened: ``_foreshortened``)
LOOKALIKE = differ.TWINS         # thumbnails correlating this well: the same art (a twin) ...
LOOKALIKES = 4                   # ... and this many of them verified beside the best card
RIVAL_SHARE = 0.5                # a second card with this share of the best inliers or dense score is a rival
OVERLAP = 0.05                   # two cards sure of that overlap by this share of either: the one on top is meant
# Calibrated checks (bench/vision.py --calibrate, on held-out designs): each is a logistic
# step centred on its threshold, and the confidence is the lowest of them.
MIN_EXCESS, EXCESS_STEP = 20.0, 3.0
MIN_DENSE, DENSE_STEP = 0.175, 0.03
MIN_MARGIN, MARGIN_STEP = 0.08, 0.02
MIN_AGREE, AGREE_STEP = 0.16, 0.015  # (set on the calibration designs by hand: see ``_agreement``)
MIN_ART, ART_STEP = 0.49, 0.03   # (set by hand, below the calibration designs' named cards: see ``match.art``),
ART_DENSE = 0.5                  # unless the pixels agree this well overall (``dense``): no card of other art does
SEEN_EXCESS = 2 * MIN_EXCESS     # a card held back where its print's twins differ, whose inliers beyond,
SEEN_DENSE = 0.4                 # ... pixels and lines agree this well, is a card not enrolled with its art:
SEEN_ART = 0.7                   # ... no wider look (``_under_another_title``; set on the outside sets)
PLAIN_MIDDLE = 0.12              # no wider look either when the first outline lies this near the photo's middle
PLAIN_SHARE = 0.15               # ... (of its diagonal), covers this share of it or more, wholly in it,
PLAIN_SKEW = 1.3                 # ... its opposite sides at most this many times as long as each other
PLAIN_SHARP = 0.1                # ... and this sharp (``_sharpness``), and no look was sure of a card (``_plainly_seen``)
TEXT_DOUBT = 0.35                # a card agreeing less than this where its twins differ has the text there read:
READ_ART, READ_DENSE = 0.7, 0.5  # ... and so has a card whose lines and pixels agree less than these (``_verdict``)
TEXT_OTHERS = 3                  # below MIN_AGREE it is named when it reads as on its reference and not as on
                                 # this many other cards of its print (nor its twins); at or above, not named
TEXT_SURE = 0.9                  # when it and its reference are read this surely (OCR) and are less alike
TEXT_UNLIKE = 0.7                # than this (``difflib``'s ratio): another title (``_read_where_twins_differ``);
TEXT_UNLIKE_PART = 0.8           # covered there, than this (the best stretch, ``_alike(part=True)``)
TEXT_NEAR = 0.8                  # read with a letter or so wrong, as its reference to this (ratio) ...
TEXT_APART = 0.25                # ... and this much more than as any other: its own title (a blurred twin);
TEXT_LIKELIER = 10.0             # or its own title explains the reading this much better (log-likelihood)
TEXT_COST = 3.0                  # ... than any other's, and at most this much worse a letter than what was read
                                 # (worse than that: another title, ``_costlier``)
TEXT_LETTER = 9.0                # neither, when a letter inside its title is read as another this surely (``_other_letter``)
TEXT_SCALE = 4                   # the text is read at this many times the canonical card's size,
TEXT_PAD = 4                     # ... with this many card px around the box
RUNS_OUT = 0.03                  # a card with a corner this far outside the photo (of its diagonal) is not named
ASIDE_SIZE = 2.0                 # nor one beside a closed outline of 1 / this to this times its size in the photo,
ASIDE_OVER = 0.2                 # ... at most this share of which lies over it, whose middle lies nearer the
ASIDE_NEARER = 0.03              # ... photo's middle by this share of the photo's diagonal (``aside``),
ASIDE_EDGE = 0.01                # ... and each corner this share of it inside the photo's edge
ASIDE_SMALLEST = 0.065           # (for a card covering this share of the photo or more; a smaller one only
ASIDE_FAR = 0.25                 # ... when its middle lies this share of the diagonal from the photo's, and
ASIDE_LARGER = 2.0               # ... a card of its print at least this many times its size (``match.frames``)
ASIDE_MIDDLE = 0.12              # ... lies with its middle within this share of it of the photo's)
IMAGE_BLUR_LIMIT = 0.002         # mean squared Laplacian of the whole photo (at FIND_SIDE), when no card was found
BLUR_LIMIT = 0.005               # the same of the flattened card: below it, blame the blur


@dataclass
class Candidate:
    card_id: str
    score: float                     # correlation of the aligned pixels (−1 … 1)
    confidence: float
    inliers: int = 0                 # features verified by the homography

    def as_dict(self) -> dict:
        return {"card_id": self.card_id, "score": round(self.score, 4), "confidence": round(self.confidence, 4),
                "inliers": self.inliers}


@dataclass
class Result:
    """The answer for one photo. ``card_id`` is set only when the match is confident."""
    candidates: list[Candidate] = field(default_factory=list)
    reason: str | None = None        # no_card | too_blurry | cut_off | no_confident_match | nothing_enrolled
    message: str = ""
    elapsed_ms: float = 0.0
    corners: list[list[float]] | None = None  # the card's, in the photo's own pixels
    source: str | None = None        # image | title | image+title: what named the card
    title: str | None = None         # the title as read (only when it was read), or the letters read where twins differ
    outlines: list[np.ndarray] = field(default_factory=list, repr=False)  # canonical card → photo, best first
    margin: float | None = field(default=None, repr=False)  # the first card's lead over a rival (``match.tell_apart``)
    excess: float = field(default=0.0, repr=False)          # its inliers beyond a typical other card's
    art: float | None = field(default=None, repr=False)     # its lines' agreement where its print's cards differ

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
    "cut_off": "Part of the card is outside the photo: hold the phone so that all of the card is in the picture.",
    "no_confident_match": "This card is not one the app knows well enough to name (not enrolled, or the "
                          "photo is too poor). Choose from the suggestions or search by name.",
    "nothing_enrolled": "No card images are enrolled yet (companion vision enroll).",
}


def _step(x: float, at: float, width: float) -> float:
    return 1 / (1 + math.exp(-max(-60.0, min(60.0, (x - at) / width))))


def confidence(m: match.Match) -> float:
    """The weakest of the calibrated checks passed by ``m`` (0 … 1; ``ACCEPT`` at every threshold,
    ``_checked``); 0 when the card runs out of the picture (``runs_out``) or lies beside the
    card the photo is aimed at (``aside``)."""
    return 0.0 if m.cut or m.aside else _checked(m)


def _checked(m: match.Match, lead: bool = True) -> float:
    """The weakest of the calibrated checks passed by ``m``, wherever it lies in the picture
    (with ``lead`` False, but its lead over its rivals); 0 when the text where its print's
    twins differ reads as another title (``_read_where_twins_differ``). Read there as on its
    reference and as on no rival's, its title is told: that is lead and agreement enough."""
    if m.H is None or m.read is False:
        return 0.0
    c = min(_step(m.excess, MIN_EXCESS, EXCESS_STEP), _step(m.dense, MIN_DENSE, DENSE_STEP))
    if m.margin is not None and lead and m.read is None:
        c = min(c, _step(m.margin, MIN_MARGIN, MARGIN_STEP))
    if m.agree is not None and m.read is None:
        c = min(c, _step(m.agree, MIN_AGREE, AGREE_STEP))
    if m.art is not None:  # (a title read as its own tells it from its twins, not from other art)
        c = min(c, max(_step(m.art, MIN_ART, ART_STEP), _step(m.dense, ART_DENSE, DENSE_STEP)))
    return c


def _short_lead(m: match.Match, others: list[match.Match]) -> bool:
    """Whether ``m``, wholly in the picture, would be named but for its lead over its
    rivals where they differ (``MIN_MARGIN``), which it has nonetheless, and each rival
    (``others`` with a margin, ``_decide``) lies where it does (``_same_place``): two
    titles of a like length on a coloured ribbon, softened, are alike blobs (the lead of
    the right twin 0.07–0.08 on easy photos of a design it was not tuned on), while their
    letters are plain to read. A rival lying elsewhere — a card beside the one meant — is
    told apart by no text: the letters there are that card's own."""
    return (not m.cut and m.margin is not None and 0 <= m.margin < MIN_MARGIN
            and _checked(m, lead=False) >= ACCEPT
            and all(_same_place(m, r) for r in others if r.margin is not None and r.H is not None))


def _same_place(a: match.Match, b: match.Match) -> bool:
    """Whether the cards ``a`` and ``b`` are seen at one place: their middles within a tenth
    of ``a``'s diagonal in the photo (a twin aligned on its own, or through ``a``'s homography)."""
    corners = locate.corners(a.H)
    return bool(np.linalg.norm(_middle(a) - _middle(b)) < 0.1 * np.linalg.norm(corners[2] - corners[0]))


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
    t0, setup = time.perf_counter(), title.setup_seconds()
    bgr, decoded = image.load_both(data)  # (``decoded`` decodes the finer image when the wider look asks)
    bgr = light.stretched(bgr)
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    _, width, height = header.read(data)
    result = _recognize(gray, bgr, snapshot, to_photo=max(width, height) / max(gray.shape), decoded=decoded,
                        read_title=read_title)
    if read_title and match_name and result.outlines and (
            result.reason is not None or result.candidates[0].confidence < TIE_BREAK):
        _by_title(gray, result, read_title, match_name)
    result.elapsed_ms = (time.perf_counter() - t0 - (title.setup_seconds() - setup)) * 1000  # (the reader's load)
    return result


def _by_title(gray: np.ndarray, result: Result, read_title: title.Reader, match_name: NameMatcher) -> None:
    """Read the title and let it name or confirm the card (see ``recognize``).

    A confident image match knows which way up the card is; otherwise both ways are read,
    on each outline offered (several when no frame could pick one).
    """
    views = [result.outlines[0]] if result.reason is None else [
        H2 for H in result.outlines for H2 in (H, H @ locate.HALF_TURN)]
    best = None
    for H in views:
        text, ocr = read_title(title.band(gray, H))
        matches = match_name(text) if len(text) >= 3 else []
        if matches and (best is None or _title_rank(matches[0][1], ocr) > _title_rank(best[1], best[2])):
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


def _title_rank(similar: float, ocr: float) -> tuple[bool, float]:
    """How good one reading of the title is: one that may name a card (alike and read
    surely enough) before any that may not — a band cut short through a poor homography
    reads a confident half title — then by likeness times the reader's confidence."""
    return similar >= TITLE_SIMILAR and ocr >= TITLE_OCR, similar * ocr


def _outlines(bgr: np.ndarray, lines: bool = False, colour: bool = False) -> list[np.ndarray]:
    """The card-shaped outlines in ``bgr`` (``locate.candidates``), best first."""
    return _card_shaped(locate.candidates(bgr, SMALLEST, lines=lines, colour=colour), bgr.shape)


def _straight_outlines(bgr: np.ndarray) -> list[np.ndarray]:
    """The card-shaped outlines of the strongest straight lines in ``bgr`` (``locate.straight``), best first."""
    return _card_shaped(locate.straight(bgr, SMALLEST), bgr.shape)


def _card_shaped(quads: list[np.ndarray], shape: tuple[int, ...]) -> list[np.ndarray]:
    """Those of ``quads`` in a card's proportions to ``OUTLINE_SLACK`` (``locate.card_shaped``)."""
    return [q for q in quads if locate.card_shaped(q, shape, OUTLINE_SLACK)]


def _recognize(gray: np.ndarray, bgr: np.ndarray, index: Snapshot, to_photo: float,
               decoded: Callable[[], np.ndarray] | None = None, read_title: title.Reader | None = None) -> Result:
    """The answer for the photo ``gray`` (``bgr`` in colour; ``decoded``: gives the same in
    colour as it was decoded, when that is larger, see ``image.load_both``); its corners in the
    photo's own pixels, ``to_photo`` times those of ``gray``. With ``read_title``, the text
    where the print's twins differ is read when the card agrees little there
    (``_read_where_twins_differ``)."""
    if not len(index):  # nothing to compare with: the largest card-shaped outlines, for the title
        return Result(reason="nothing_enrolled", message=MESSAGES["nothing_enrolled"],
                      outlines=[locate.card_homography(q, gray.shape) for q in _outlines(bgr)[:UNFRAMED_OUTLINES]])
    # the outlines are looked for while the whole photo is described (two threads)
    quads, whole = gate.together(functools.partial(_outlines, bgr), functools.partial(features.photo, gray))
    outlines = [locate.card_homography(q, gray.shape) for q in quads]
    small = all(cv2.contourArea(q.astype(np.float32)) < SMALL_CARD * gray.size for q in quads[:CARD_OUTLINES])
    near = LINE_NEAR * max(gray.shape)
    known = list(quads[:SECOND_OUTLINES])
    straight: list[np.ndarray] = []  # the outlines of the photo's strongest straight lines, once looked for

    def fresh(found: list[np.ndarray], n: int) -> list[np.ndarray]:
        """The first ``n`` of ``found`` not within ``near`` of an outline described already."""
        new = [q for q in found if not any(np.abs(q - k).max() < near for k in known)][:n]
        known.extend(new)
        return [locate.card_homography(q, gray.shape) for q in new]

    # where the enrolled prints' frames lie (``match.frames``): looked for once, by the second look
    # or, before it, to tell whether a small card far off lies aside (``aside``)
    framed = functools.cache(functools.partial(match.frames, index, whole, gray, FRAME_OUTLINES))

    def find_straight() -> list[np.ndarray]:  # (once: kept for the second look)
        straight.extend(_straight_outlines(bgr))
        return straight
    # when no closed outline is large, the best outline of the photo's strongest straight lines is
    # described too (``FIRST_STRAIGHT``), looked for while the closed outlines are described (beside
    # a large outline, a card not enrolled, a title one letter off on other art, got the pixels
    # to be named through it: 0.169 -> 0.18)
    first_straight = min(FIRST_STRAIGHT, STRAIGHT_OUTLINES) if small else 0
    look = _look(gray, index, outlines[:CARD_OUTLINES], whole,
                 more=(lambda found: (fresh(found, first_straight), []), [find_straight]) if first_straight else None)
    checked = _check(gray, index, look, (match.SHORTLIST, match.PLACED_SHORTLIST, match.COARSE_SHORTLIST, 0, 0), [])
    verdict = _verdict(index, checked, gray, read_title) if checked and confidence(checked[0]) >= ACCEPT else None
    if verdict is not None:
        _set_aside(verdict[0], checked, quads, gray.shape, framed)
    if verdict is None or confidence(verdict[0]) < ACCEPT and not _under_another_title(verdict[0]):
        held = verdict[0] if verdict is not None else None
        # the first look's card is not named (none sure, or its twins or its text said otherwise,
        # but for its art plainly seen under another title: ``_under_another_title``):

        def second_outlines(*found):  # (the straight lines', unless the first look found them, and the frames')
            more = (STRAIGHT_OUTLINES if small else STRAIGHT_BESIDE) - first_straight
            return fresh(straight, more), fresh(found[-1], FRAME_OUTLINES)

        def wider_outlines(edges, coloured):
            return fresh(edges, LINE_OUTLINES) + fresh(coloured, COLOUR_OUTLINES), []
        # a second look: the next closed outlines, those of the photo's strongest straight lines
        # (a card among others or on ruled paper, its own edge closing none, whose printed panels
        # or the clutter's outlines were all the outlines found: beside a large outline only the
        # best, ``STRAIGHT_BESIDE``) and those where an enrolled print's frame lies
        # (``match.frames``: the card touching the next, a coin on its corner, has its frame all
        # the same), verified as the first look's were; most cards the first look misses are
        # found here, at less than half the wider look's cost
        look = _look(gray, index, outlines[CARD_OUTLINES:SECOND_OUTLINES], before=look,
                     more=(second_outlines, [find_straight] * (not first_straight)
                           + [framed]))
        checked = _check(gray, index, look, (match.SHORTLIST, match.PLACED_SHORTLIST, match.COARSE_SHORTLIST, 0, 0),
                         checked)
        verdict = None
        if checked and confidence(checked[0]) >= ACCEPT:
            second = _verdict(index, checked, gray, read_title)
            if held is not None and second[0].row == held.row:
                _still_held(held, second[0])
            _set_aside(second[0], checked, quads, gray.shape, framed)
            if confidence(second[0]) >= ACCEPT:
                verdict = second
            elif held is None:
                held = second[0]
        if verdict is None and not (held is None and _plainly_seen(quads, outlines, gray)):
            # a wider look, when the second is not sure either (unless neither look was sure of any
            # card and the first outline is plainly the card photographed, ``_plainly_seen``: it is
            # not enrolled): the outlines the long straight edges draw (a card whose edge joins the
            # cloth's, the shadow's or another card's has none in the edge map) and those closed in
            # its colour edges only (a card as dark as the table in grey), the photo at half size
            # described as well — and when no outline of the first look is large, the photo as
            # decoded (the card may lie far off) —, a longer shortlist by words, and the cards of
            # the looks before that a shortlist brings again verified again with the richer features
            look = _look(gray, index, [], rescaled=True, before=look,
                         more=(wider_outlines, [functools.partial(_outlines, bgr, lines=True),
                                                functools.partial(_outlines, bgr, colour=True)]),
                         decoded=decoded if small else None)
            checked = _check(gray, index, look, (WIDER * match.SHORTLIST, match.PLACED_SHORTLIST,
                                                 match.COARSE_SHORTLIST, RESCALED_SHORTLIST, CONSISTENT), checked)
            if (not checked or confidence(checked[0]) < ACCEPT) and outlines:
                # a last look, only when the wider one is not sure either: the first outline widened
                # (``_widened``), on its own features, never taking the place of a surer answer
                last = _check(gray, index, _look(gray, index, [_widened(outlines[0])]),
                              (LAST_SHORTLIST, 0, 0, 0, 0), [])
                if last and (not checked or confidence(last[0]) > confidence(checked[0])):
                    checked = last
            if not checked or confidence(checked[0]) < ACCEPT:
                # and a look at the photo foreshortened (``_foreshortened``), likewise; a card found
                # there counts only when its pixels agree by REFIT_DENSE, as one fitted again does: the
                # layout and a title one letter off lined a card not enrolled up with an enrolled one
                # there (0.177; the cards found so on the outside sets 0.26 and 0.49)
                n = FORESHORTENED_SHORTLIST
                squeezed = _check(gray, index, _look(gray, index, [], foreshortened=True), (0, 0, 0, n, n), [])
                if (squeezed and squeezed[0].dense >= REFIT_DENSE
                        and (not checked or confidence(squeezed[0]) > confidence(checked[0]))):
                    checked = squeezed
        if verdict is None:
            if checked and confidence(checked[0]) < ACCEPT:
                _fit_again(index, checked, gray)
            if not checked or checked[0].H is None:
                if not quads:
                    reason = "too_blurry" if blurred(gray) else "no_card"
                    return Result(reason=reason, message=MESSAGES[reason])
                if not checked:
                    reason = "too_blurry" if _sharpness(gray, outlines[0]) < BLUR_LIMIT else "no_confident_match"
                    return Result(reason=reason, message=MESSAGES[reason], outlines=outlines[:2])
            verdict = _verdict(index, checked, gray, read_title)
            if held is not None and verdict[0].row == held.row:
                _still_held(held, verdict[0])
            _set_aside(verdict[0], checked, quads, gray.shape, framed)
    best, short = verdict
    cands = [Candidate(index.ids[m.row], m.dense, confidence(m), m.inliers) for m in checked[:5]]
    H = best.H if best.H is not None else outlines[0]
    corners = locate.corners(H) * to_photo
    sure = cands[0].confidence >= ACCEPT
    result = Result(candidates=cands, corners=[[round(float(x), 1), round(float(y), 1)] for x, y in corners],
                    source="image+title" if best.read else "image", title=best.text,
                    outlines=[H] if sure else ([H] if best.H is not None and not best.aside else []) + outlines[:1],
                    margin=best.margin, excess=best.excess, art=best.art)
    if cands[0].confidence < ACCEPT:
        result.reason = ("too_blurry" if _sharpness(gray, H) < BLUR_LIMIT else  # (cut_off: it would be named, whole)
                         "cut_off" if best.cut and _checked(best) >= ACCEPT else "no_confident_match")
        result.message = MESSAGES[result.reason]
    return result


def _verdict(index: Snapshot, checked: list[match.Match], gray: np.ndarray,
             read_title: title.Reader | None) -> tuple[match.Match, bool]:
    """The card ``checked`` names, if any, put first (``_decide``), and whether it would be
    named but for too short a lead (``_short_lead``): the first card's lines are compared
    with the photo's where its print's cards differ (``match.art``); a card about to be named has its
    agreement where its print's twins differ measured (``_agreement``) and, with a title
    reader, the text there read when that leaves doubt (``_read_where_twins_differ``) — or
    when its lines and pixels agree only moderately (below ``READ_ART`` and ``READ_DENSE``):
    a card not enrolled, "Howling Crown of Flama", lined up with "Mad Gauntlets of Flame"
    by motifs their art shares and "of Flam" (lines 0.55, pixels 0.36, its twins' place
    agreeing by 0.65), was named, and its title says another card (``bench/outside_set.py
    --design ribbon --seed 9 --unknown 0.5``, photo 330); of 1,244 photos named rightly on four
    samples, the 4 that agree so little had their text read already. The
    first look's card goes through this before the wider look is left out: a card sure of
    by its inliers and pixels alone (another print's card with the card's art, or a twin)
    may not be named by it, and the card meant is then found by the wider look (a hard
    photo of the outside ribbon set, answered "not sure" after the first look until
    2026-11-29)."""
    best = _decide(index, checked, gray)
    best.art = match.art(index, best) if best.H is not None else None
    short = _short_lead(best, checked)
    if confidence(best) >= ACCEPT or short:
        best.agree = _agreement(index, best, gray)
        if read_title and (short or best.covered or best.agree is not None and best.agree < TEXT_DOUBT
                           or best.art is not None and best.art < READ_ART and best.dense < READ_DENSE):
            _read_where_twins_differ(index, best, gray, read_title, short,
                                     [m.row for m in checked if m is not best and m.H is not None])
    return best, short


def _under_another_title(m: match.Match) -> bool:
    """Whether the first look's card ``m``, not named, is plainly the picture photographed —
    inliers, pixels and lines well beyond what naming needs (``SEEN_EXCESS``, ``SEEN_DENSE``,
    ``SEEN_ART``), wholly in the picture — and was held back only where its print's twins
    differ (``MIN_AGREE``) or by its text read there as another title: the photo shows its
    art under another title, a card not enrolled (its twin, a reprint). The wider look would
    find that card again and keep it held back (``_still_held``), and a card it found
    elsewhere would not be the card photographed: "not sure" is answered at once, without
    it. On the eight outside samples 100 of the 384 photos of cards not enrolled were
    answered so, after the first look (~180 ms where every look took ~600), and no photo of
    an enrolled card was held back so; docs/benchmarks.md, 2026-11-30 morning."""
    return (m.H is not None and not m.cut and m.excess >= SEEN_EXCESS and m.dense >= SEEN_DENSE
            and m.art is not None and m.art >= SEEN_ART
            and (m.read is False or m.read is None and m.agree is not None and m.agree < MIN_AGREE))


def _plainly_seen(quads: list[np.ndarray], outlines: list[np.ndarray], gray: np.ndarray) -> bool:
    """Whether the photo's first outline (``quads[0]``, straightened through ``outlines[0]``)
    is plainly the card photographed — wholly in the picture, its middle within
    ``PLAIN_MIDDLE`` of the photo's (of its diagonal), covering ``PLAIN_SHARE`` of it or
    more, seen nearly straight down (no side more than ``PLAIN_SKEW`` times as long as the
    one opposite) and sharp (``PLAIN_SHARP``) —, so that when neither the first look nor
    the second found an enrolled card, the wider look is left out: what it adds (outlines
    drawn by long edges or colour, the photo at half size and as decoded, foreshortened,
    the first outline widened) is for a card whose outline was not found, that lies far off,
    is seen steeply or blurred; a card plainly seen that no look named is not enrolled.

    Photos of cards not enrolled took every look, and filled the slowest 5 % of the outside
    samples (where the p95 lies). On nine of them (2,853 photos, ``bench/outside_set.py
    --seed 4|5|6``), 135 photos went on to the wider look: 97 of cards not enrolled, of
    which this holds for 27 (21 with no card sure of: ``_recognize`` asks that too, a card
    held back may have a twin of another print that only the wider look's longer shortlist
    brings), and 38 of enrolled cards (22 named there), for none of which it holds — the
    first outline of those is small, off the middle, steep or blurred, or not the card
    (docs/benchmarks.md, 2026-12-02)."""
    if not quads:
        return False
    quad, (h, w) = quads[0], gray.shape
    if np.any(quad < 0) or np.any(quad > np.array([w, h], np.float32)):
        return False
    if np.linalg.norm(quad.mean(axis=0) - np.array([w / 2, h / 2])) > PLAIN_MIDDLE * math.hypot(w, h):
        return False
    if cv2.contourArea(quad.astype(np.float32)) < PLAIN_SHARE * w * h:
        return False
    if locate.skew(quad) > PLAIN_SKEW:
        return False
    return _sharpness(gray, outlines[0]) >= PLAIN_SHARP


def _still_held(first: match.Match, again: match.Match) -> None:
    """The card the first look was sure of but did not name (``_verdict``), found again by
    a later look (the second or the wider, ``again``): what held it back still does — the lower agreement where its
    print's twins differ, the shorter lead over its rivals, a reading as another title, the
    lines that agree less where its print's cards differ (``match.art``). The
    wider look is taken to find the card meant, not to judge that one anew: through the
    richer features' homography a card not enrolled with an enrolled card's art and another
    title agreed with it there by 0.17 where it had by 0.10, and was named for it
    (``--twin-strangers``, a medium poster photo). The lines, though, are judged through
    the better fit of the two (the one whose pixels agree more, ``dense``): a card the
    first look fitted by a corner of its art (22 inliers, pixels 0.18) had lines that
    agreed by 0.488 there and by 0.82 through the second look's whole-card fit (35
    inliers, 0.38), and was held back for the first (an outside ribbon photo)."""
    if first.agree is not None:
        again.agree = first.agree if again.agree is None else min(first.agree, again.agree)
    if first.margin is not None and again.margin is not None:
        again.margin = min(first.margin, again.margin)
    if first.read is False:
        again.read = False
    if first.art is not None and again.art is not None and first.dense > again.dense:
        again.art = min(first.art, again.art)


def runs_out(H: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Whether the card seen through ``H`` reaches out of the photo of ``shape``: a corner
    more than ``RUNS_OUT`` of its diagonal outside. The card a player means is in the
    picture; one cut by its edge is most often a card lying beside it — named for it when the
    card meant did not verify (glare, blur), or named for a card that is not enrolled
    (``bench/vision.py --among-enrolled``: 12 of 23 such answers; none of 457 right ones).
    Such a card is suggested, not named, and the photo is looked at again."""
    corners = locate.corners(H)
    h, w = shape[:2]
    outside = float(np.max(np.maximum(0, np.maximum(-corners, corners - np.float32([w, h])))))
    return outside > RUNS_OUT * float(np.linalg.norm(corners[0] - corners[2]))


def aside(H: np.ndarray, outlines: list[np.ndarray], shape: tuple[int, ...],
          others: list[np.ndarray] = (), frames: Callable[[], list[np.ndarray]] | None = None) -> bool:
    """Whether the card seen through ``H`` lies beside the card the photo is aimed at. A
    player aims at the card they mean; among the game's own cards, a card beside it, sure
    of, was named for it when the card meant was not (its art under glare, a card not
    enrolled): 5 of the 10 wrong answers and false accepts of ``bench/vision.py --designs
    lattice,tavern --among-enrolled --read``, none of its 485 right answers
    (docs/benchmarks.md, 2026-11-30 afternoon). Such a card is suggested, not named, and
    the photo is looked at again for the card in the middle.

    Aside is a card framed as a player frames the card they mean (``ASIDE_SMALLEST`` of the
    picture or more) when one of the closed ``outlines`` (``_outlines``) of about its size
    (within ``ASIDE_SIZE`` times), hardly over it (``ASIDE_OVER`` of that outline),
    wholly in the picture (``ASIDE_EDGE``: a card running out of it is not aimed at,
    ``runs_out``) and not mostly on another card seen in the photo (``others``, their
    corners: a panel printed on it), has its middle nearer the photo's middle by
    ``ASIDE_NEARER`` of the photo's diagonal.

    A smaller card is a photo taken from far off, where which card lies nearest the middle
    says little: with the check above, 122 of 494 photos of cards 3–6 % of the picture were
    no longer named (the neighbours named in those wrong answers cover 6.8–16 %); with an
    outline of its size in the middle and the card a quarter of the diagonal off, 26 of them.
    Such a card lies aside only when it lies far from the middle (``ASIDE_FAR``) and a card of
    an enrolled print at least ``ASIDE_LARGER`` times its size lies in the middle
    (``ASIDE_MIDDLE``), found by its print's frame (``frames``: ``match.frames``, asked only
    then): the card aimed at, large in the middle, its own edge closing no outline (cards
    over it), under a small enrolled card at the edge of the picture that was named for it
    (``bench/outside_set.py --design ribbon --seed 9 --photos 400 --unknown 0.5``, photo 13)."""
    corners = locate.corners(H).astype(np.float32)
    size = cv2.contourArea(corners)
    middle = np.float32([shape[1] / 2, shape[0] / 2])
    diagonal = float(np.hypot(shape[0], shape[1]))
    edge = ASIDE_EDGE * diagonal
    off = float(np.linalg.norm(corners.mean(axis=0) - middle))
    least, most, nearer = size / ASIDE_SIZE, ASIDE_SIZE * size, off - ASIDE_NEARER * diagonal
    if size < ASIDE_SMALLEST * shape[0] * shape[1]:
        if frames is None or off < ASIDE_FAR * diagonal:
            return False
        outlines, least, most, nearer = frames(), ASIDE_LARGER * size, math.inf, ASIDE_MIDDLE * diagonal
    for q in outlines:
        q = q.astype(np.float32)
        area = cv2.contourArea(q)
        if not least < area < most:
            continue
        if q.min() < edge or q[:, 0].max() > shape[1] - edge or q[:, 1].max() > shape[0] - edge:
            continue
        if cv2.intersectConvexConvex(q, corners)[0] > ASIDE_OVER * area:
            continue
        if any(cv2.intersectConvexConvex(q, o.astype(np.float32))[0] > area / 2 for o in others):
            continue
        if float(np.linalg.norm(q.mean(axis=0) - middle)) < nearer:
            return True
    return False


def _set_aside(m: match.Match, checked: list[match.Match], outlines: list[np.ndarray],
               shape: tuple[int, ...], frames: Callable[[], list[np.ndarray]]) -> None:
    """Mark the card ``m`` about to be named ``aside`` when it lies beside the card the photo
    is aimed at, the other cards ``checked`` that have the inliers to be named
    (``MIN_EXCESS``) being the cards seen in the photo besides it (``frames``: see ``aside``)."""
    if confidence(m) >= ACCEPT:
        seen = [locate.corners(o.H) for o in checked if o is not m and o.H is not None and o.excess >= MIN_EXCESS]
        m.aside = aside(m.H, outlines, shape, seen, frames)


def _widened(H: np.ndarray) -> np.ndarray:
    """The outline ``H`` with ``WIDEN`` of its size added on every side. When the card's own
    edge closes no outline (a dark border on a table as dark, a face-down card under it),
    the first outline is often a rectangle printed on it (its art's frame, an inner panel);
    straightened through that alone, the text around it stays tilted, widened the whole card
    is seen straight."""
    w, h = locate.CARD_W, locate.CARD_H
    return H @ np.array([[1 + 2 * WIDEN, 0, -WIDEN * w], [0, 1 + 2 * WIDEN, -WIDEN * h], [0, 0, 1]])


def _foreshortened(gray: np.ndarray, turn: float) -> tuple[np.ndarray, np.ndarray]:
    """The features of ``gray`` squeezed to 1 / ``FORESHORTEN`` along the direction ``turn``
    (degrees), their places mapped back into ``gray``: a card photographed ~45° from
    straight down is foreshortened so, and squeezed along its tilt it is square again. Local
    features are made for a change of scale and turn, not for one of shape: the whole
    photo's features of such a card at twice its reference's size aligned with 10 inliers
    where the card straightened had 52 (``bench/outside_set.py --seed 3``, a hard photo,
    a coin and a die on one side and another card at the top: no outline found). Squeezed
    two ways (along and across the picture), one lies within 45° of any tilt's direction."""
    c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
    along = np.array([[c, -s], [s, c]])
    squeeze = along @ np.diag([1 / FORESHORTEN, 1.0]) @ along.T
    h, w = gray.shape
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64) @ squeeze.T
    shift = -corners.min(axis=0)
    width, height = np.ceil(corners.max(axis=0) + shift).astype(int)
    M = np.hstack([squeeze, shift[:, None]]).astype(np.float32)
    p, d = features.photo(light.even(cv2.warpAffine(gray, M, (int(width), int(height)), flags=cv2.INTER_AREA)),
                          FORESHORTENED_FEATURES)
    back = cv2.invertAffineTransform(M)
    return (p @ back[:, :2].T + back[:, 2]).astype(np.float32), d


def _check(gray: np.ndarray, index: Snapshot, look: "_Look", sizes: tuple[int, int, int, int, int],
           done: list[match.Match]) -> list[match.Match]:
    """Shortlist (``sizes``: by words, by placed words, by thumbnail, by words of the rescaled photo,
    and by how well one homography fits the word pairs of more cards with many votes:
    ``CONSISTENT_AMONG``, ``match.consistent_shortlist``) and verify: align every card, look
    again through the ``LOOK_AGAIN`` best alignments that are not far behind the best
    (``match.settle``): a card with a third of the best one's inliers would not win by
    looking again, and each look costs ~8 ms. The cards ``done`` by an earlier look that a
    shortlist brings again are verified again with this look's features (a card whose own
    outline only the wider look straightened is found then); the others count as they were.
    Verifying those again too named no photo of the outside sets that this does not (the
    card a wider look names was never one of the first look's that had verified) and cost
    ~6 % of their p95 (docs/benchmarks.md, 2026-11-29 afternoon). Rank all by inliers (with
    ``excess``), those that could be named first: a larger, sharper neighbour running out of
    the picture (``runs_out``, no confidence) had hidden a card named surely beside it.
    With none, a card running out of the picture stays first (``cut_off``)."""
    by_words, by_place, by_thumbnail, by_rescaled, by_consistent = sizes
    by_votes = match.shortlist(index, look.words, size=max(by_words, CONSISTENT_AMONG if by_consistent else 0))
    by_rescaled_votes = match.shortlist(index, look.rescaled,
                                        size=max(by_rescaled, CONSISTENT_RESCALED if by_consistent else 0))
    listed = by_votes[:by_words] + match.shortlist(index, look.placed, size=by_place)
    listed += match.coarse_shortlist(index, look.views, size=by_thumbnail)
    listed += by_rescaled_votes[:by_rescaled]
    seeded = {}
    if by_consistent:  # the cards with most votes, by the words of either look at the photo, fitted by their pairs
        among = {m.row for m in by_votes + by_rescaled_votes}
        every = tuple(np.concatenate(part) for part in zip(look.words, look.rescaled))
        fits = match.consistent_shortlist(index, every, sorted(among), look.pts, gray.shape)
        verified = {m.row for m in listed} | {m.row for m in done}
        seeded = {m.row: m for m in fits if m.row in verified}  # a homography for cards verified anyway
        listed += [m for m in fits if m.row not in verified][:by_consistent]
    # where a print's frame lies a card of it does: the likeliest by its picture, fitted there
    for m in match.where_framed(index, look.framed, gray, FRAME_SHORTLIST):
        if m.H is not None and m.inliers > (seeded[m.row].inliers if m.row in seeded else 0):
            seeded[m.row] = m
        listed.append(m)
    listed_rows = {m.row for m in listed}
    kept = [m for m in done if m.row not in listed_rows | seeded.keys()]  # not listed again: as they were,
    for m in kept:                                                          # but for their lead, weighed anew
        m.margin = None                                                     # among this look's cards (``_decide``)
    rows, fresh = {m.row for m in kept}, []
    for m in [match.Match(m.row, m.votes) for m in done] + listed:
        if m.row not in rows:
            rows.add(m.row)
            if m.row in seeded:  # with the homography its word pairs (or its frame) gave
                m.H, m.inliers, m.spread = seeded[m.row].H, seeded[m.row].inliers, seeded[m.row].spread
            fresh.append(m)
    # the cards whose word pairs fit no card are searched for (``match.align``) when the votes rank them high
    searched = {m.row for m in by_votes[:by_words if by_consistent else SEARCHED] + by_rescaled_votes[:by_rescaled]}
    aligned = gate.share(lambda m: match.align(index, m, look.photo, gray, m.row in searched), fresh)
    aligned += gate.share(lambda m: match.align(index, m, look.photo, gray), _lookalikes(index, aligned, rows))
    best = sorted((m for m in aligned if m.H is not None), key=lambda m: -m.inliers)[:LOOK_AGAIN]
    again = {m.row for m in best if m.inliers >= LOOK_AGAIN_SHARE * best[0].inliers}
    checked = kept + gate.share(lambda m: match.settle(index, m, gray, look_again=m.row in again), aligned)
    for m in checked:
        m.cut = m.H is not None and runs_out(m.H, gray.shape)
    checked.sort(key=lambda m: (-m.inliers, -m.votes))
    others = _the_others(index, checked)
    if others:
        for k, m in enumerate(checked):
            if m.H is not None:
                m.dense = min(m.dense, match.compare(index, m, others(k)))
    _rank(checked)
    return checked


def _the_others(index: Snapshot, checked: list[match.Match]) -> Callable[[int], np.ndarray] | None:
    """For the card ``checked[k]``, the mean picture of the other cards checked with it, to
    be taken out of both pictures compared: what cards that look like the photo share with
    it says nothing. With several prints (games) enrolled, the mean of those of the card's
    own print, when there are enough of them. None with fewer than ``LOCAL_MEAN`` checked."""
    if len(checked) < LOCAL_MEAN:
        return None
    rows = [m.row for m in checked]
    thumbs, prints = describe.unthumb(index.arrays["thumb"][rows]), index.group[rows]

    def mean(k: int) -> np.ndarray:
        mine = prints == prints[k]
        if np.count_nonzero(mine) < LOCAL_MEAN:
            mine[:] = True
        return (thumbs[mine].sum(axis=0) - thumbs[k]) / (np.count_nonzero(mine) - 1)
    return mean


def _rank(checked: list[match.Match]) -> None:
    """Give each checked card its ``excess`` — what sets a card apart is its inliers beyond a
    typical other card's — and put the cards that could be named first (one wholly in the
    picture and sure of: the one meant), each part in the order it had."""
    for i, m in enumerate(checked):
        m.excess = m.inliers - float(np.median([o.inliers for o in checked[:i] + checked[i + 1:]] or [0]))
    checked.sort(key=lambda m: confidence(m) < ACCEPT)


def _fit_again(index: Snapshot, checked: list[match.Match], gray: np.ndarray) -> None:
    """When no card checked is sure: the ``REFIT_CARDS`` with most inliers among those that
    have the inliers to be named (``MIN_EXCESS``) but whose pixels do not agree
    (``MIN_DENSE``) or that run out of the picture are fitted again (``match.refit``) and
    compared through the new homography; it is kept when the pixels agree better, and well
    (``REFIT_DENSE``), and it explains no fewer of the card's features. A card fitted by
    its title or one corner of its art, off by a fifth of the card elsewhere, is then named:
    3 more of an outside set's hard photos (ribbon, 281 → 284 of 297) and 1 of the split
    design's, no card named wrongly and no false accept on any benchmark set
    (docs/benchmarks.md, 2026-11-29). Its pixels then agree by 0.33–0.37; a homography
    searched for anew lifts a card that is not in the photo too, a little — a card with a
    title one letter off and other art, 0.169 → 0.179, was named for it (a small set made
    by bench/outside_set.py) —, so an agreement just over ``MIN_DENSE`` is not enough here.
    Only photos no look was sure of reach this, and of the outside ribbon set's, about one
    in three has such a card."""
    tried = [m for m in sorted(checked, key=lambda m: -m.inliers)
             if m.H is not None and m.excess >= MIN_EXCESS and (m.dense < MIN_DENSE or m.cut)][:REFIT_CARDS]
    others, changed = _the_others(index, checked), False
    for m in tried:
        fitted = match.refit(index, m, gray)
        if fitted is None or fitted.inliers < m.inliers or fitted.spread < match.MIN_SPREAD:
            continue
        match.look_through(index, fitted, gray)
        if others:
            fitted.dense = min(fitted.dense, match.compare(index, fitted, others(checked.index(m))))
        if fitted.dense > m.dense and fitted.dense >= REFIT_DENSE:
            m.H, m.inliers, m.spread, m.seen, m.shown, m.dense = (fitted.H, fitted.inliers, fitted.spread,
                                                                  fitted.seen, fitted.shown, fitted.dense)
            m.cut = runs_out(m.H, gray.shape)
            changed = True
    if changed:
        checked.sort(key=lambda m: (-m.inliers, -m.votes))
        _rank(checked)


def _lookalikes(index: Snapshot, checked: list[match.Match], rows: set[int]) -> list[match.Match]:
    """The cards that look like the best verified one — same art, another title: their
    thumbnails correlate above ``LOOKALIKE`` — and that no shortlist brought (up to
    ``LOOKALIKES``), to be verified as well: a twin must be compared where the two differ
    (``_decide``), not named for its twin because the word votes happened to miss it."""
    best = max(checked, key=lambda m: m.inliers, default=None)
    if best is None or best.H is None:
        return []
    alike = np.nonzero(index.coarse @ index.coarse[best.row] >= LOOKALIKE)[0]
    fresh = [int(r) for r in alike[np.argsort(-(index.coarse[alike] @ index.coarse[best.row]))] if r not in rows]
    rows.update(fresh[:LOOKALIKES])
    return [match.Match(r, 0.0) for r in fresh[:LOOKALIKES]]


@dataclass
class _Look:
    """What the photo shows so far: its features (positions in the photo, descriptors, and
    the two indexed for verification with the partners their words found, ``match.PhotoPairs``), the
    straightened outlines' thumbnails each way up (``describe.coarse``), and the enrolled features their visual
    words found (``match.correspondences``, each with the row in ``pts`` of the photo
    feature it pairs with; for the outlines' features also by word at their place on the
    card, each way up, ``match.placed_correspondences``; for the features of the photo at
    other sizes, on their own: ``rescaled``; and where a print's frame lies, the outline and
    its picture each way up: ``framed``). A wider look adds to the one
    ``before`` it (``_look``) rather than looking up again what was looked up."""
    pts: np.ndarray
    desc: np.ndarray
    photo: match.PhotoPairs
    views: list[np.ndarray]
    words: tuple[np.ndarray, np.ndarray]
    placed: tuple[np.ndarray, np.ndarray]
    rescaled: tuple[np.ndarray, np.ndarray]
    framed: list[tuple[np.ndarray, list[np.ndarray]]] = field(default_factory=list)  # frames' outlines, pictures


def _look(gray: np.ndarray, index: Snapshot, outlines: list[np.ndarray],
          whole: tuple[np.ndarray, np.ndarray] | None = None, rescaled: bool = False, before: _Look | None = None,
          more: tuple[Callable[..., list[np.ndarray]], list[Callable[[], list]]] | None = None,
          decoded: Callable[[], np.ndarray] | None = None, foreshortened: bool = False) -> _Look:
    """Describe the photo: the whole photo (its features ``whole``, described already while
    its outlines were looked for; none in a wider look), each outline straightened
    to ``OUTLINE_SIZE`` (positions mapped back into the photo; with ``more``, a function and
    its tasks: the tasks, finders of further outlines, run while the others are described,
    and the outlines the function picks from what they found are described too — but of
    those where a print's frame lies only the picture, which shortlists on its own,
    ``_Look.framed``) and, with
    ``rescaled``, the photo at other sizes — at half size (a large card blurred by a shaking
    hand is sharp there, and near its reference's size) and, when the image ``decoded`` gives is ``FINER``
    times larger than ``gray``, as it was decoded (a card lying far off, often too small for
    an outline of its own, keeps its detail there: ``image.load_both``) — or, with
    ``foreshortened``, only the photo squeezed along each of ``FORESHORTEN_TURNS``
    (``_foreshortened``) — and look their words up in ``index``, while all the features so
    far (``before``'s too) are indexed for verification. The rescaled photo's features are
    shortlisted on their own: mixed with those of the working size their votes are drowned.

    The outlines and the half-size photo are described with their light evened out
    (``light.even``): a card half in shadow or in a dim room keeps its features there. The
    photo as decoded is not, as the whole photo is not (a dark table's grain would take the
    features)."""
    w, h = OUTLINE_SIZE
    to_card = np.diag([locate.CARD_W / w, locate.CARD_H / h, 1.0])

    def outline(H):
        straight = light.even(locate.rectify(gray, H, OUTLINE_SIZE))
        p, d = features.photo(straight, features.CARD_FEATURES)
        return p, d, pictures(straight)

    def pictures(straight):  # an outline straightened: its thumbnail each way up
        small = cv2.resize(straight, (locate.CARD_W, locate.CARD_H), interpolation=cv2.INTER_AREA)
        return describe.coarse_both_ways(small)

    def framed_pictures(H):
        return H, pictures(light.even(locate.rectify(gray, H, OUTLINE_SIZE)))

    finer = decoded() if rescaled and decoded is not None else None

    def as_decoded():
        fine = cv2.cvtColor(light.stretched(finer), cv2.COLOR_BGR2GRAY)
        p, d = features.photo(fine, fast=DECODED_FAST)
        return p * np.array([gray.shape[1] / fine.shape[1], gray.shape[0] / fine.shape[0]], np.float32), d

    def half_photo():
        halved_photo = cv2.resize(gray, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        p, d = features.photo(light.even(halved_photo), HALF_FEATURES)
        return 2 * p, d

    if foreshortened:
        sizes = [functools.partial(_foreshortened, gray, turn) for turn in FORESHORTEN_TURNS]
    else:
        sizes = ([as_decoded] if finer is not None and finer.shape[0] >= FINER * gray.shape[0]
                 else []) + ([half_photo] if rescaled else [])
    pick, finders = more if more else (None, [])
    # the heaviest first, so that the two threads finish together: the photo as decoded (up to
    # ~40 ms), the finders of further outlines (~15 ms each, apart: together on one thread
    # they left the other idle), the half-size photo, the outlines (~5 ms each)
    first, last = sizes[:-1], sizes[-1:]  # (the photo as decoded), (the half-size photo)
    described = gate.together(*first, *finders, *last, *(functools.partial(outline, H) for H in outlines))
    a, b, c = len(first), len(finders), len(last)
    rescaled_features, found = described[:a] + described[a + b:a + b + c], described[a:a + b]
    described = described[a + b + c:]
    framed: list[tuple[np.ndarray, list[np.ndarray]]] = []
    if pick:
        # the outlines where a print's frame lies only shortlist by their pictures (``_check``):
        # their features, voting with the others', crowded out cards those had brought, and
        # among those verified against, they drew a card's partners off its own place
        further, frames = pick(*found)
        described += gate.together(*(functools.partial(outline, H) for H in further))
        framed = gate.together(*(functools.partial(framed_pictures, H) for H in frames))
        outlines = outlines + further
    pts, desc = whole if whole is not None else (np.zeros((0, 2), np.float32), np.zeros((0, 32), np.uint8))
    all_pts, all_desc, views, placed_desc, placed_where, placed_rows = [pts], [desc], [], [], [], []
    start = len(pts) + (len(before.pts) if before is not None else 0)  # the rows in ``_Look.pts`` from here
    for H, (p, d, thumbs) in zip(outlines, described):
        views += thumbs
        if len(p):
            on_card = cv2.perspectiveTransform(p[None], to_card)[0]
            all_pts.append(cv2.perspectiveTransform(on_card[None], H)[0])
            all_desc.append(d)
            turned = np.array([locate.CARD_W, locate.CARD_H], np.float32) - on_card
            placed_desc += [d, d]
            placed_where += [cells(on_card), cells(turned)]
            placed_rows += [np.arange(start, start + len(d))] * 2
            start += len(d)
    all_pts += [p for p, _ in reversed(rescaled_features)]  # the half-size photo's first
    rescaled_desc = np.concatenate([np.zeros((0, 32), np.uint8)] + [d for _, d in reversed(rescaled_features)])
    desc = np.concatenate(all_desc)
    if before is not None:
        all_pts.insert(0, before.pts)
    pts, desc_so_far = np.concatenate(all_pts).astype(np.float32), np.ascontiguousarray(
        np.concatenate(([before.desc] if before is not None else []) + [desc, rescaled_desc]))

    first = len(before.pts) if before is not None else 0

    def moved(pairs: match.Pairs, rows: np.ndarray) -> match.Pairs:  # their photo features' rows in ``pts``
        g, weight, photo = pairs
        return g, weight, rows[photo]

    def look_up():  # each look-up shared by its word tables (``match._look_up``)
        return (moved(match.correspondences(index, desc), np.arange(first, first + len(desc)))
                if len(desc) else match.NO_PAIRS,
                moved(match.placed_correspondences(index, np.concatenate(placed_desc), np.concatenate(placed_where)),
                      np.concatenate(placed_rows)) if placed_desc else match.NO_PAIRS,
                moved(match.correspondences(index, rescaled_desc), first + len(desc) + np.arange(len(rescaled_desc)))
                if len(rescaled_desc) else match.NO_PAIRS)
    # the photo's features are indexed (one thread, ~10 ms) while their words are looked up
    searched, found = gate.together(functools.partial(match.PhotoFeatures, pts, desc_so_far), look_up)
    if before is not None:
        found = [tuple(np.concatenate(pair) for pair in zip(mine, theirs))
                 for mine, theirs in zip((before.words, before.placed, before.rescaled), found)]
    return _Look(pts, desc_so_far, match.PhotoPairs(index, searched, found),
                 (before.views if before is not None else []) + views, *found, framed=framed)


def _decide(index: Snapshot, checked: list[match.Match], gray: np.ndarray) -> match.Match:
    """Put the card that best explains the photo first; when others verified nearly as well
    (look-alike titles), or verified at all while they look like it (twins), the one that
    wins where they differ, with its lead. When two of them are each sure of on their own
    and lie apart, the photo shows two cards: the one on top or aimed at is meant
    (``_meant``), and only cards seen where it is are its rivals. Compared where they
    differ, two cards lying apart told nothing, and neither was named: ``--among-enrolled``
    named 472 of 494 photos so, 486 this way (and 8 → 7 wrong), and a hard photo of the
    outside ribbon set's second sample, its card 67 inliers beside a neighbour's 115."""
    best = checked[0]
    if best.H is None:
        return best
    alike = index.coarse @ index.coarse[best.row]
    for m in checked[1:]:
        if m.H is None and alike[m.row] >= LOOKALIKE:
            # a twin that did not verify on its own: its art lies where the best card's does
            m.H, m.inliers, m.excess, m.seen, m.shown = best.H, best.inliers, best.excess, best.seen, best.shown
            m.cut = best.cut
            m.dense = match.compare(index, m)
    rivals = [m for m in checked[1:] if m.H is not None and not m.cut and (
        m.inliers >= RIVAL_SHARE * best.inliers or m.dense >= RIVAL_SHARE * best.dense > 0
        or alike[m.row] >= LOOKALIKE)]
    if all(confidence(m) < ACCEPT for m in [best, *rivals]):
        rivals = []  # none could be named, whichever wins where they differ
    contenders = [best, *rivals]
    sure = [m for m in contenders if not m.cut and _checked(m, lead=False) >= ACCEPT]
    if any(not _same_place(sure[0], m) for m in sure[1:]):
        # two cards in the photo, each sure of on its own: the one on top, or aimed at, is
        # meant, and only cards seen where it is are its rivals (what a card lying elsewhere
        # shows where they differ tells nothing)
        best = _meant(index, sure, gray.shape)
        contenders = [best] + [m for m in contenders if m is not best and _same_place(best, m)]
        rivals = contenders[1:]
    leads: dict[tuple[int, int], float] = {}

    def lead(a: match.Match, b: match.Match) -> float:
        """``a``'s lead over ``b`` where they differ (``match.tell_apart``), each pair compared
        once: the one's lead is the other's, negated (each comparison lays one reference onto
        the other, ~30 ms; a deck taught from photos has several rivals a photo)."""
        if (b.row, a.row) in leads:
            return -leads[b.row, a.row]
        if (a.row, b.row) not in leads:
            leads[a.row, b.row] = match.tell_apart(index, a, b, gray)
        return leads[a.row, b.row]
    for r in rivals:  # a small tournament: the winner of each comparison meets the next rival
        if lead(best, r) < 0:  # (the best card's lead, as the margin is: what MIN_MARGIN was fitted on)
            best = r
    if rivals:
        best.margin = min(lead(best, r) for r in contenders if r is not best)
        for r in contenders:
            if r is not best:
                r.margin = -best.margin
    checked.remove(best)
    checked.insert(0, best)
    return best


def _meant(index: Snapshot, sure: list[match.Match], shape: tuple[int, ...]) -> match.Match:
    """Of cards each sure of on its own, not all at one place, the one the player means: the
    one nearest the middle of the picture (it is aimed at), unless another lies over it
    (``_over``): a card is laid on the others to be shown, and the one under it can lie
    nearer the middle."""
    best = min(sure, key=lambda m: _off_middle(m, shape))
    for m in sure:
        if m is not best and (_over(index, m, best) or 0.0) > 0:
            best = m
    return best


def _over(index: Snapshot, a: match.Match, b: match.Match) -> float | None:
    """How much better the card ``a`` than ``b`` explains the photo where their outlines
    overlap (``match.compare`` of each there): above 0, ``a`` lies on top. None when they
    overlap by less than ``OVERLAP`` of either card: there, what shows is one card's or the
    table's."""
    agree = []
    scale = np.float32([describe.THUMB[0] / locate.CARD_W, describe.THUMB[1] / locate.CARD_H])
    for m, other in ((a, b), (b, a)):
        quad = locate.corners(np.linalg.inv(m.H) @ other.H) * scale  # the other's outline, in m's picture
        mask = np.zeros(describe.THUMB[::-1], np.uint8)
        cv2.fillConvexPoly(mask, np.round(quad * 16).astype(np.int32), 1, cv2.LINE_8, 4)
        where = mask.ravel().astype(bool)
        if m.shown is not None:
            where &= m.shown  # (the overlap's share counts the cells compare looks at)
        if where.mean() < OVERLAP:
            return None
        agree.append(match.compare(index, m, where=where))
    return agree[0] - agree[1]


def _middle(m: match.Match) -> np.ndarray:
    """The middle of the card ``m`` in the photo (working-size pixels)."""
    return cv2.perspectiveTransform(np.float32([[[locate.CARD_W / 2, locate.CARD_H / 2]]]), m.H)[0, 0]


def _off_middle(m: match.Match, shape: tuple[int, ...]) -> float:
    """How far the middle of the card ``m`` lies from the middle of the photo of ``shape``."""
    return float(np.linalg.norm(_middle(m) - np.float32([shape[1] / 2, shape[0] / 2])))


def _agreement(index: Snapshot, m: match.Match, gray: np.ndarray) -> float | None:
    """How much better the card ``m`` agrees with the photo than other cards of its print
    do where its print's twins differ (``differ.lead``), or None when its print has no
    twins enrolled: a card with its art and another title — its twin, not enrolled — agrees
    with it everywhere else. ``MIN_AGREE`` lies midway between the highest lead of such a
    card (0.11) and the lowest percentile of the named cards' own (0.21) on the calibration
    designs, which the benchmark does not report; on the four it reports, every named card
    led by more (0.18 and more, far off and tilted too), and 3 of 90 such cards did.

    None as well, with ``m.covered`` set, when something lies over that place in the photo
    (``differ.hidden``: another card, paper, a hand): covered, the card's own title agrees
    no better than another's would (on the bench's photos with a tenth to 30 % of the card
    covered, a quarter of the cards of prints with twins were held back for it, named by
    nothing else). Its twins enrolled still have to lose where they differ (``_decide``)."""
    box, others = index.differ_others(m.row)
    ref = index.reference(index.ids[m.row]) if box is not None and others else None
    if ref is None:
        return None
    m.covered = differ.hidden(gray, m.H, ref, box, index.differ_ring(m.row))
    return None if m.covered else differ.lead(gray, m.H, ref, box, others)


def _read_where_twins_differ(index: Snapshot, m: match.Match, gray: np.ndarray, read_title: title.Reader,
                             short: bool, rivals: list[int]) -> None:
    """Read the text where the twins of ``m``'s print differ (its title, mostly) on the
    photo through ``m.H`` and on ``m``'s reference, and set ``m.read`` (and ``m.text``, the
    text as read on the photo: what the answer's ``title`` shows). The agreement there (``_agreement``) and the lead over its
    rivals (``_decide``) compare pixels: glare or blur over a short title can sink them
    while the letters stay plain to read, and a card with ``m``'s art and another title
    can agree with it a little.

    * Below ``MIN_AGREE``, or with too short a lead (``short``, ``_short_lead``; not to be named):
      ``True`` when the photo reads as the reference and not as the first ``TEXT_OTHERS``
      other cards of the print, ``m``'s twins enrolled nor the other cards verified in the
      photo (``rivals``, rows) — else the place shows what those cards share, and tells
      nothing. Read with a letter or two wrong (blur, glare: "Anclont Ring of Lighe" for
      "Ancient Ring of Light"), ``True`` too when it is that like the reference's
      (``TEXT_NEAR``) and clearly less like each of those others' (``TEXT_APART``): of an
      outside set's twins held back with a short lead, 3 of 8 photos read so, none exactly.
      Not when a letter inside the title reads plainly as another (``_other_letter``): a
      card not enrolled whose title is the card's a letter off, on its art or another's,
      is not named for it. (One a letter off only where the reader may have misread it
      would be: a reprint's corrected typo, the same card.) Read worse
      than that, ``True`` when the reader's frames are explained by the card's own title
      clearly better than by each of those others' and not much worse than by what was read
      (``_likeliest``).
    * At or above it (to be named, but below ``TEXT_DOUBT``, or agreeing only moderately
      overall, ``_verdict``), or covered there (``m.covered``:
      the card is named unless the text says otherwise — a card whose alignment is off
      there looks covered too): ``False`` when both are read surely (``TEXT_SURE``) and are
      unlike (``TEXT_UNLIKE``, ``_alike``; covered, or read as fewer letters at one end of
      its own title, ``_one_end``, what is read may be part of the title,
      and its best stretch must be as like as ``TEXT_UNLIKE_PART``: "toadarcher" under a
      homography off at the title, which made it look covered, was like "theslimearcher" by
      0.75 there, its twin enrolled named for it) — or, both read at all (the reference
      too: "Mad Gauntlets" read at 0.77 on one, photo 330 of ``--seed 9 --unknown 0.5``,
      "Howling Crown" on the photo), when the card's own title
      explains the reader's frames too poorly (``_costlier``) and, covered, no stretch of
      the reading is as like as ``TEXT_UNLIKE_PART`` (what shows of a covered title is the
      card's, and the letters under the cover cost its title dearly): another title.

    ~7–17 ms a read (and the reader's first load, ~0.15 s a process; a reference's text is
    read once and kept in the data directory, ``_text_on``), for the cards that agree
    little (below ``TEXT_DOUBT``: most photos of prints whose titles agree little, as the
    ledger's, the split's and an outside set's ribbon; few of the others'), the photo's."""
    box, _ = index.differ_others(m.row)
    if box is None:
        return
    reading, own_reading = _reading_in(read_title, gray, m.H, box), _text_on(read_title, index, m.row, box)
    seen, own = _letters(reading), _letters(own_reading)
    if own is None:
        return
    if m.agree is not None and m.agree < MIN_AGREE or short:
        alike = np.flatnonzero(index.coarse @ index.coarse[m.row] >= LOOKALIKE)
        others = [r for r in dict.fromkeys([int(r) for r in index.differ_rows[index.group[m.row]] if r >= 0][:TEXT_OTHERS]
                                           + alike.tolist() + rivals) if r != m.row]
        theirs = [_text_on(read_title, index, row, box) for row in others]
        if not _other_letter(reading, own_reading[0]) and (
                seen is not None and _reads_as(seen[0], own[0], [_letters(t) for t in theirs])
                or _likeliest(reading, own_reading[0], [t[0] for t in theirs if t is not None])):
            m.read, m.text = True, reading[0].strip()
    elif seen is not None:
        part = m.covered or _one_end(seen[0], own[0])
        alike = _alike(seen[0], own[0], part=part)
        if (min(seen[1], own[1]) >= TEXT_SURE and alike < (TEXT_UNLIKE_PART if part else TEXT_UNLIKE)
                or _costlier(reading, own_reading[0]) and (not part or alike < TEXT_UNLIKE_PART)):
            m.read, m.text = False, reading[0].strip()


def _reads_as(seen: str, own: str, theirs: list[tuple[str, float] | None]) -> bool:
    """Whether the letters ``seen`` on the photo are those of the card's reference (``own``)
    and not those of the other cards (``theirs``, ``_letters``): the same, or — a letter or
    two wrong — like it by ``TEXT_NEAR`` and each other's less by ``TEXT_APART``."""
    exact = own == seen
    near = 1.0 if exact else _alike(seen, own, part=False)
    return near >= TEXT_NEAR and not any(
        other is not None and (other[0] == seen if exact else _alike(seen, other[0], part=False) > near - TEXT_APART)
        for other in theirs)


def _likeliest(reading: tuple[str, float] | None, own: str, theirs: list[str]) -> bool:
    """Whether the text the photo shows there (``reading``, a ``title.Reading``) is the
    card's own title (``own``, as read on its reference) rather than any of the other
    cards' (``theirs``): the recogniser's frames explain it ``TEXT_LIKELIER`` better (log-
    likelihood), and not much worse than what it read there — ``TEXT_COST`` a letter at
    most: a title blurred beyond reading ("Tiny Sorsl", "Drasy Ohaal") costs its own
    card's title 0.6–1.4 a letter (the outside sets' hard photos), another title, plainly
    printed (an enrolled card's art under a title of its own), 4.9 and more.

    The letters compared as strings (``_reads_as``) say how many differ, not which: a
    blurred "Tiny Scroll" read "tinysorsl" is as far from it as from many a title."""
    cost = _own_cost(reading, own)
    if cost is None:
        return False
    mine, over = cost
    return over <= 0 and all(mine - reading.likelihood(other) >= TEXT_LIKELIER for other in theirs)


def _own_cost(reading: tuple[str, float] | None, own: str) -> tuple[float, float] | None:
    """The log-likelihood of the card's own title ``own`` under the reader's frames
    (``reading``, a ``title.Reading``), and by how much more than ``TEXT_COST`` a letter it
    explains them worse than what was read (above 0: another title, ``_costlier``; at most
    0: a blurred reading of it may be, ``_likeliest``). None without the frames or for a
    title of fewer than two letters."""
    likelihood = getattr(reading, "likelihood", None)
    letters = sum(not ch.isspace() for ch in own)
    if likelihood is None or letters < 2:
        return None
    mine = likelihood(own)
    return mine, reading.best - mine - TEXT_COST * letters


def _costlier(reading: tuple[str, float] | None, own: str) -> bool:
    """Whether the card's own title (``own``, as read on its reference) explains the
    reader's frames (``reading``, a ``title.Reading``) worse than what it read there by more
    than ``TEXT_COST`` a letter: another title, plainly printed, however many of its letters
    it shares and however surely it was read. A title that shares most of its letters with
    the card's ("The Minotaur Pruest", read surely, for "The Minotaur Thiif": ``difflib``'s
    ratio 0.79) is as like as a blurred reading of the card's own, and a title read less
    surely than ``TEXT_SURE`` ("Ghuul Squnre", 0.84, for "Holy Spear", where the place
    looked covered) was not compared at all; the frames say more — 4.9 and 7.3 a letter
    there, where the 1,199 photos named rightly on four outside samples cost their own
    title 1.5 a letter at most when read with ``TITLE_OCR`` or more (docs/benchmarks.md,
    2026-12-02)."""
    cost = _own_cost(reading, own)
    return cost is not None and cost[1] > 0


def _other_letter(reading: tuple[str, float] | None, own: str) -> bool:
    """Whether the text read (``reading``, a ``title.Reading``) has letters inside the card's
    own title (``own``, as read on its reference) read as others so plainly that the own
    title explains the reader's frames worse by more than ``TEXT_LETTER`` a letter: a title
    one letter off, not the card's own blurred. Letters at either end are forgiven (the
    reading is taken with the own title's ends there): the box where twins differ cuts a
    title's first or last letter often, and a letter missing there costs the card's own
    title up to 35.

    A card not enrolled, "Wyrern Squire" on other art, was read so exactly for "Wyvern
    Squire", an enrolled card whose lead over a rival was short, and was named for it
    (``bench/outside_set.py --seed 8``, an easy photo): the letter cost its title 14. A
    letter inside its own title read wrong cost at most 6.3 (blurred, covered) on six
    outside samples (docs/benchmarks.md, 2026-12-03), but for a reference itself read with a
    letter too many ("of" read "off", 12–21), where the text is read for doubt only."""
    likelihood = getattr(reading, "likelihood", None)
    if likelihood is None:
        return False
    seen, mine = _folded(reading[0]), _folded(own)
    ops = Levenshtein.editops(mine, seen)
    at_ends = [op for op in ops if op.src_pos == 0 or op.src_pos >= len(mine) - 1]
    inside = len(ops) - len(at_ends)
    if not inside:
        return False
    ends_as_read = Editops([(op.tag, op.src_pos, op.dest_pos) for op in at_ends], len(mine), len(seen)).apply(mine, seen)
    return likelihood(seen) - likelihood(ends_as_read) > TEXT_LETTER * inside


def _one_end(seen: str, own: str) -> bool:
    """Whether the letters read on the photo (``seen``) are fewer than those of the card's own
    title (``own``, as read on its reference) and are those at one end of it (to a letter,
    like it by ``TEXT_UNLIKE_PART``: each of its ends as long as ``seen``, a letter more or
    less, compared whole): what shows of a title whose other end lies under
    something that ``differ.hidden`` did not find (a cover over a few letters of a long
    title changes too little of the place), read as the part it is, not as another title.
    On ``bench/vision.py --designs lattice,tavern --covered 0.1,0.3`` 15 photos, read
    "gonbbyd" for "Gonbbydraer", "helhela" for "Romewen Helhela", were held back as another
    title until 2026-12-02 (the right card only suggested). A title printed shorter than
    the enrolled card's and equal to one end of it (its twin or reprint not enrolled) is
    then named for it."""
    if len(seen) >= len(own):
        return False
    ends = [end for n in range(max(1, len(seen) - 1), min(len(own), len(seen) + 2)) for end in (own[:n], own[-n:])]
    return max(fuzz.ratio(seen, end) for end in ends) >= 100 * TEXT_UNLIKE_PART


def _alike(seen: str, own: str, part: bool) -> float:
    """How alike (0 … 1) the letters read on the photo are to those on the card's reference:
    ``difflib``'s ratio, or with ``part`` (the place partly covered) that of the best-matching
    stretch of the longer (``rapidfuzz``'s partial ratio), so that the visible half of the
    card's own title is as its title, and a part of another title is not."""
    if part:
        return fuzz.partial_ratio(seen, own) / 100
    return difflib.SequenceMatcher(None, seen, own).ratio()


def _text_on(read_title: title.Reader, index: Snapshot, row: int, box: tuple[int, int, int, int],
             write: bool = True) -> tuple[str, float] | None:
    """``_reading_in`` the stored reference of card ``row``, read once for that picture, place
    and reader (``texts``: kept in the data directory, and written there now unless ``write``
    is False): a server, or `recognize` calls for one photo or many, read the same cards'
    references again and again, and they change only when a card is taught again."""
    key = _text_key(index, row, box)
    found = index.texts.get(read_title, key)
    if found is False:
        found = _reading_in(read_title, index.reference(index.ids[row]), np.eye(3), box)
        index.texts.put(read_title, key, found, write=write)
    return found


def _text_key(index: Snapshot, row: int, box: tuple[int, int, int, int]) -> tuple:
    """What a reading of card ``row``'s reference in ``box`` depends on: the card, the
    place, the picture (``Snapshot.reference_stamp``) and how the place is cut out."""
    card_id = index.ids[row]
    return card_id, tuple(box), index.reference_stamp(card_id), TEXT_PAD, TEXT_SCALE


def read_references(index: Index, read_title: title.Reader) -> int:
    """Read the text where its print's twins differ on every enrolled card's reference that
    has such a place, and keep it (``_text_on``): `companion vision enroll` does, so that no
    recognition reads a reference (~17 ms each). Returns how many were read now."""
    snapshot, fresh, keys = index.refresh().current, 0, set()
    for row in range(len(snapshot)):
        box, _ = snapshot.differ_others(row)
        if box is not None:
            key = _text_key(snapshot, row, box)
            keys.add(key)
            fresh += snapshot.texts.get(read_title, key) is False
            _text_on(read_title, snapshot, row, box, write=False)
    snapshot.texts.flush(keep=keys)  # and the readings of cards taught again or removed let go
    return fresh


def _reading_in(read_title: title.Reader, gray: np.ndarray | None, H: np.ndarray, box: tuple[int, int, int, int]
                ) -> tuple[str, float] | None:
    """What the reader reads in ``box`` of the card seen through ``H`` (canonical card →
    ``gray``): its answer (text, confidence), None without a picture."""
    if gray is None:
        return None
    x, y, w, h = box
    w, h = w + 2 * TEXT_PAD, h + 2 * TEXT_PAD
    return read_title(title.area(gray, H, (x - TEXT_PAD, y - TEXT_PAD, w, h), (w * TEXT_SCALE, h * TEXT_SCALE)))


def _letters(reading: tuple[str, float] | None) -> tuple[str, float] | None:
    """The letters and digits (case folded) of a ``reading`` and the reader's confidence, or
    None when they are fewer than two, hold no letter or were read with less confidence
    than ``TITLE_OCR``."""
    if reading is None:
        return None
    letters, ocr = _folded(reading[0]), reading[1]
    if ocr < TITLE_OCR or len(letters) < 2 or not any(ch.isalpha() for ch in letters):
        return None
    return letters, ocr


def _folded(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def _sharpness(gray: np.ndarray, H: np.ndarray) -> float:
    """Mean squared Laplacian of the flattened card seen through ``H``."""
    flat = describe.flatten(locate.rectify(gray, H, (200, 280)))
    return float(np.mean(cv2.Laplacian(flat, cv2.CV_32F) ** 2))


def blurred(gray: np.ndarray) -> bool:
    """Whether the whole photo lacks fine detail while it has coarse detail: shaken or out of
    focus, rather than a picture of a bare table (which lacks both)."""
    scale = locate.FIND_SIDE / max(gray.shape)
    small = np.log1p(cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA).astype(np.float32))
    coarse = cv2.resize(small, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
    fine_energy = float(np.mean(cv2.Laplacian(small, cv2.CV_32F) ** 2))
    coarse_energy = float(np.mean(cv2.Laplacian(coarse, cv2.CV_32F) ** 2))
    return fine_energy < IMAGE_BLUR_LIMIT and fine_energy < 0.15 * coarse_energy
