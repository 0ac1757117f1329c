"""Finding card-shaped outlines in a photo and rectifying them to a flat, upright, fixed-size image.

A card is a convex quadrilateral (a rectangle seen in perspective). Candidates come from
the closed outlines in an edge map and from thin dark lines — or, when the recogniser is
not sure of what those hold (``candidates(lines=True)``), from the photo's long straight
edges alone, which draw the outline of a card whose edge runs into a checked cloth's, a
shadow's or the next card's, and from its edges in colour (``candidates(colour=True)``),
which hold a card as dark as the table in grey (a dark blue card on green felt). Each
outline's convex hull is reduced to four sides by keeping its four longest edges and
intersecting them, which restores a corner hidden under a finger; whether it is
card-shaped, and which of its sides are the short ones, is judged on the table, the
camera's perspective undone (``on_table``: a card photographed at 50° may look square). ``straight`` draws outlines from the photo's
strongest straight lines (Hough) instead, for enrolment, which has no other way to find a
card whose edge closes no outline of its own, and for the recogniser's wider look where no
outline it found is large. Nothing here knows how a card is printed: which
outline is the card, and which way up, is decided by the local features that match an
enrolled card (``vision.match``). The outlines serve to describe the card at a steady scale
(``recognize``), to read its title, to enrol a card from a photo, and to tell "no card" from
"a card I do not know".
"""
from __future__ import annotations

import cv2
import numpy as np

CARD_W, CARD_H = 240, 336          # canonical size of a rectified card (63 × 88 mm, portrait)
ASPECT = 63 / 88
FIND_SIDE = 512                    # the edge map is built at this size
MIN_SUPPORT = 0.35                 # each side of an outline must run along an edge for this share
LONG_LINE = 0.08                   # a straight edge this share of the photo's longer side is long ...
LINE_REACH = 0.1                   # ... and is drawn this share of its length longer at each end
STRAIGHT_LINES = 40                # the strongest straight lines (Hough) a card's sides are chosen from ...
LINE_VOTES = 0.08                  # ... each with edge pixels along this share of the photo's longer side
SIDE_SKEW = np.radians(30)         # a card's opposite sides in perspective are at most this far from parallel,
CORNER_TURN = np.radians(50)       # its neighbouring sides at least this far apart
STRAIGHT_SLACK = 0.3               # and its proportions those of a card to this share (``card_shaped``)
CANON = np.array([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]], np.float32)
UNIT = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
HALF_TURN = np.array([[-1, 0, CARD_W], [0, -1, CARD_H], [0, 0, 1]], np.float64)  # the card turned half round
FOCAL = 1.1                        # a camera's focal length in its picture's longer sides (``on_table``)
TABLE_SLACK = 0.5                  # an outline card-shaped only on the table is so to this share of the slack


def _line(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    return np.cross(np.append(p, 1.0), np.append(q, 1.0))


def _quad_from_hull(hull: np.ndarray) -> np.ndarray | None:
    """Four corners (clockwise on screen) of the quadrilateral that best explains a hull."""
    peri = cv2.arcLength(hull, True)
    poly = cv2.approxPolyDP(hull, 0.012 * peri, True).reshape(-1, 2).astype(np.float64)
    if len(poly) < 4:
        return None
    if len(poly) > 4:  # keep the four longest sides, in hull order, and intersect neighbours
        sides = [(np.linalg.norm(poly[(i + 1) % len(poly)] - poly[i]), i) for i in range(len(poly))]
        keep = sorted(i for _, i in sorted(sides, reverse=True)[:4])
        lines = [_line(poly[i], poly[(i + 1) % len(poly)]) for i in keep]
        corners = []
        for a, b in zip(lines, lines[1:] + lines[:1]):
            x = np.cross(a, b)
            if abs(x[2]) < 1e-9:
                return None
            corners.append(x[:2] / x[2])
        poly = np.array(corners)
    quad = poly.astype(np.float32)
    if not cv2.isContourConvex(quad):
        return None
    if cv2.contourArea(quad) > 1.35 * cv2.contourArea(hull.astype(np.float32)):
        return None  # the intersections ran far outside the outline: not a rectangle's sides
    return _clockwise(quad)


def _outlines(gray: np.ndarray):
    """Closed outlines from two sources: edges (the card against the table) and thin dark
    lines (a frame printed on the card, which stays closed when the card touches others)."""
    for lo, hi in ((30, 90), (60, 160)):
        edges = cv2.dilate(cv2.Canny(gray, lo, hi), np.ones((3, 3), np.uint8))
        yield from cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)[0]
    dark = cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7)))
    _, lines = cv2.threshold(dark, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    yield from cv2.findContours(lines, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]


def _line_outlines(gray: np.ndarray):
    """Closed outlines drawn from the photo's long straight edges alone (OpenCV's line segment
    detector). A card whose edge joins the edges of a checked cloth, or of the cards it
    touches, has no closed outline in the edge map; but its sides are long straight lines,
    which the cloth's and the clutter's short edges are not. Each is drawn a little longer
    at both ends, so that sides broken off short of a corner (a coin, a finger) still meet."""
    segments = cv2.createLineSegmentDetector().detect(gray)[0]
    canvas = np.zeros_like(gray)
    for x1, y1, x2, y2 in (segments.reshape(-1, 4) if segments is not None else ()):
        length = np.hypot(x2 - x1, y2 - y1)
        if length < LONG_LINE * max(gray.shape):
            continue
        reach = LINE_REACH * np.array([x2 - x1, y2 - y1])
        cv2.line(canvas, tuple(int(v) for v in np.round([x1, y1] - reach)),
                 tuple(int(v) for v in np.round([x2, y2] + reach)), 255, 2)
    return cv2.findContours(canvas, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)[0]


def _strongest_lines(edges: np.ndarray) -> np.ndarray:
    """Up to ``STRAIGHT_LINES`` of the photo's straight lines as homogeneous 3-vectors
    (``a x + b y + c = 0``), strongest first (Hough votes), each a few pixels and degrees away
    from those kept before it: one edge gives one line, not a fan of near copies."""
    side = max(edges.shape)
    found = cv2.HoughLines(edges, 1, np.pi / 180, int(LINE_VOTES * side))
    if found is None:
        return np.zeros((0, 3))
    rho, theta = found[:300, 0].T.astype(np.float64)  # the strongest first
    turn = np.abs(theta[:, None] - theta[None])
    near = (((turn < np.radians(3)) & (np.abs(rho[:, None] - rho[None]) < 0.02 * side))
            | ((np.pi - turn < np.radians(3)) & (np.abs(rho[:, None] + rho[None]) < 0.02 * side)))
    kept, hidden = [], np.zeros(len(rho), bool)
    for k in range(len(rho)):
        if not hidden[k]:
            kept.append(k)
            if len(kept) == STRAIGHT_LINES:
                break
            hidden |= near[k]
    return np.stack([np.cos(theta[kept]), np.sin(theta[kept]), -rho[kept]], axis=1)


def _straight_quads(lines: np.ndarray, edges: np.ndarray, min_share: float) -> list[tuple[float, np.ndarray]]:
    """Quadrilaterals whose four sides are among ``lines``, the photo's strongest straight lines: two
    nearly parallel pairs (``SIDE_SKEW``) at an angle to each other (``CORNER_TURN``),
    meeting at four corners in or near the picture, convex, of a card's proportions, each
    side running along an edge of ``edges`` for ``MIN_SUPPORT`` of its length. Scored by
    area times the share of the sides on edges to the 8th power: the strong lines of ruled
    paper, a table's edge or a row of cards close large quadrilaterals whose sides follow
    edges only in part, a card's sides follow them all along. Every combination is tried at
    once (NumPy), ~20 ms.

    The lines come from the whole edge map, so a card's side counts even where its border
    is a printed texture, a shadow or another card breaks it into short edges that close no
    outline and that a line segment detector takes for many short segments."""
    h, w = edges.shape
    angle = np.arctan2(lines[:, 1], lines[:, 0]) % np.pi
    centre = np.array([w / 2, h / 2, 1.0])
    i, j = np.triu_indices(len(lines), 1)
    skew = np.abs(angle[i] - angle[j])
    skew = np.minimum(skew, np.pi - skew)
    facing = np.where(np.sum(lines[i, :2] * lines[j, :2], axis=1) < 0, -1.0, 1.0)  # normals the same way
    apart = np.abs(lines[i] @ centre - facing * (lines[j] @ centre))  # how far apart the two lines pass the centre
    pair = (skew < SIDE_SKEW) & (apart > 0.08 * max(h, w))
    first, second = i[pair], j[pair]
    heading = np.arctan2(np.sin(2 * angle[first]) + np.sin(2 * angle[second]),
                         np.cos(2 * angle[first]) + np.cos(2 * angle[second])) / 2  # the pair's mean direction
    a, b = np.triu_indices(len(first), 1)
    turn = np.abs(heading[a] - heading[b]) % np.pi
    a, b = a[np.minimum(turn, np.pi - turn) > CORNER_TURN], b[np.minimum(turn, np.pi - turn) > CORNER_TURN]
    A1, A2, B1, B2 = lines[first[a]], lines[second[a]], lines[first[b]], lines[second[b]]
    corners = np.stack([np.cross(A1, B1), np.cross(B1, A2), np.cross(A2, B2), np.cross(B2, A1)], axis=1)
    corners = corners[np.all(np.abs(corners[..., 2]) > 1e-9, axis=1)]
    quads = corners[..., :2] / corners[..., 2:]
    slack = 0.05 * max(h, w)
    quads = quads[np.all((quads > -slack) & (quads < np.array([w, h]) + slack), axis=(1, 2))]
    edge = np.roll(quads, -1, axis=1) - quads
    turns = edge[..., 0] * np.roll(edge, -1, axis=1)[..., 1] - edge[..., 1] * np.roll(edge, -1, axis=1)[..., 0]
    quads = quads[np.all(turns > 0, axis=1) | np.all(turns < 0, axis=1)]  # convex
    sides = np.linalg.norm(np.roll(quads, -1, axis=1) - quads, axis=2)
    across = np.minimum(sides[:, 0] + sides[:, 2], sides[:, 1] + sides[:, 3])
    along = np.maximum(sides[:, 0] + sides[:, 2], sides[:, 1] + sides[:, 3])
    area = 0.5 * np.abs(np.sum(quads[..., 0] * np.roll(quads, -1, axis=1)[..., 1]
                               - np.roll(quads, -1, axis=1)[..., 0] * quads[..., 1], axis=1))
    fit = ((np.abs(across / np.maximum(along, 1e-9) - ASPECT) <= STRAIGHT_SLACK * ASPECT)
           & (area >= min_share * h * w) & (area <= 0.98 * h * w) & (sides.min(axis=1) >= 12))
    quads, area = quads[fit], area[fit]
    # how far each side runs along an edge: a rough look at all, then a close one at the best
    support = _supports(edges, quads, 12)
    rough = support.min(axis=1) >= MIN_SUPPORT - 0.1
    quads, area, support = quads[rough], area[rough], support[rough]
    best = np.argsort(-(area * support.mean(axis=1) ** 8))[:80]
    quads, area = quads[best], area[best]
    support = _supports(edges, quads, 48)
    keep = support.min(axis=1) >= MIN_SUPPORT
    quads, score = quads[keep], area[keep] * support[keep].mean(axis=1) ** 8
    order = np.argsort(-score)
    out: list[tuple[float, np.ndarray]] = []
    for k in order:  # the best of near copies (lines a pixel apart give the same card twice)
        if not any(np.abs(quads[k] - q).max() < 4 for _, q in out):
            out.append((float(score[k]), _clockwise(quads[k].astype(np.float32))))
            if len(out) == 24:
                break
    return out


def _clockwise(quad: np.ndarray) -> np.ndarray:
    """The corners in clockwise order on screen (y down)."""
    x, y = quad[:, 0], quad[:, 1]
    return np.ascontiguousarray(quad[::-1] if np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y) < 0 else quad)


def candidates(bgr: np.ndarray, min_share: float = 0.04, lines: bool = False, colour: bool = False
               ) -> list[np.ndarray]:
    """Plausible card outlines in ``bgr`` (corner arrays in its pixel coordinates), best first:
    by area, weighed by how well their sides follow edges of the photo (``_support``). With
    ``lines``, the outlines drawn by its long straight edges (``_line_outlines``) instead of
    the closed ones of its edge map: slower (~20 ms), for the recogniser's wider look. With
    ``colour``, those closed in its colour edges (``_colour_edges``) that have two sides its
    grey edges lack (~8 ms, for the wider look too): a card as dark as the table it lies
    on lacks them along most of its outline. The others are left out: the grey edges have
    them already, or they are no card's — the photo's own border, closed in colour, and a
    panel printed on a card, whose edge against the card's next panel only the colour
    shows, were described and crowded the card out of a hard photo each."""
    scale, gray, _, edges = _edge_map(bgr)
    grey = edges
    if colour:  # the outlines closed in its colour edges with two sides its grey edges lack
        thin = _colour_edges(bgr)
        edges = cv2.dilate(thin, np.ones((5, 5), np.uint8))
        found_in = cv2.findContours(cv2.dilate(thin, np.ones((3, 3), np.uint8)), cv2.RETR_LIST,
                                    cv2.CHAIN_APPROX_SIMPLE)[0]
    else:
        found_in = _line_outlines(gray) if lines else _outlines(gray)
    area = gray.shape[0] * gray.shape[1]
    found: list[tuple[float, np.ndarray]] = []
    for c in found_in:
        _, _, w, h = cv2.boundingRect(c)  # most outlines are specks: their box, let alone hull, is too small
        if w * h < min_share * area:
            continue
        hull = cv2.convexHull(c)
        a = cv2.contourArea(hull)
        if not min_share * area <= a <= 0.98 * area:
            continue
        quad = _quad_from_hull(hull)
        if quad is None:
            continue
        sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
        if sides.min() < 12 or max(proportions(quad, gray.shape)) < 0.4:
            continue
        if any(np.abs(quad - q).max() < 4 for _, q in found):
            continue
        support = _support(edges, quad)
        if support.min() < MIN_SUPPORT or colour and np.sum(_support(grey, quad) < MIN_SUPPORT) < 2:
            continue
        found.append((cv2.contourArea(quad) * float(support.mean()) ** 2, quad))
    found.sort(key=lambda t: -t[0])
    return [q / scale for _, q in found[:24]]


def straight(bgr: np.ndarray, min_share: float = 0.04) -> list[np.ndarray]:
    """Card-shaped outlines in ``bgr`` whose four sides are among its strongest straight lines
    (``_straight_quads``), best first, in its pixel coordinates: the outline of a card whose
    edge closes none (touched by a pencil, lying on another card, a printed texture for a
    border, an edge broken by a shadow or the cloth's checks). ~20 ms."""
    scale, _, thin, edges = _edge_map(bgr)
    return [q / scale for _, q in _straight_quads(_strongest_lines(thin), edges, min_share)]


def _edge_map(bgr: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """``bgr`` at ``FIND_SIDE`` pixels at most: the scale, its grey (lightly blurred), its edges
    (Canny) and those widened (so that a side a pixel off an edge still runs along it)."""
    scale, small = _shrunk(bgr)
    gray = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (3, 3), 0)
    thin = cv2.Canny(gray, 30, 90)
    return scale, gray, thin, cv2.dilate(thin, np.ones((5, 5), np.uint8))


def _colour_edges(bgr: np.ndarray) -> np.ndarray:
    """The edges (Canny) of ``bgr`` at the edge map's size in colour: at each pixel the
    channel that changes most. A dark blue card on green felt, a red one on brown wood, are
    as dark as the table in grey, and their edge is lost there; in colour it is plain."""
    return cv2.Canny(cv2.GaussianBlur(_shrunk(bgr)[1], (3, 3), 0), 30, 90)


def _shrunk(bgr: np.ndarray) -> tuple[float, np.ndarray]:
    """``bgr`` at ``FIND_SIDE`` pixels at most, and the scale it was shrunk by."""
    h, w = bgr.shape[:2]
    scale = min(1.0, FIND_SIDE / max(h, w))
    return scale, cv2.resize(bgr, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)


def _support(edges: np.ndarray, quad: np.ndarray, samples: int = 48) -> np.ndarray:
    """For each side of ``quad``, the share of its length that runs along an edge of the photo.

    A card's sides are straight edges all along (but where a finger covers them); the hull
    of a heap of clutter has sides that cut across the table."""
    return _supports(edges, quad[None], samples)[0]


def _supports(edges: np.ndarray, quads: np.ndarray, samples: int) -> np.ndarray:
    """``_support`` of many quadrilaterals at once (an array of them, one row of four shares each):
    each side sampled at ``samples`` points, looked up in the edge map as one flat array."""
    h, w = edges.shape
    t = np.linspace(0.05, 0.95, samples)
    ahead = np.roll(quads, -1, axis=1)
    x = np.clip(np.round(quads[:, :, None, 0] * (1 - t) + ahead[:, :, None, 0] * t).astype(np.int32), 0, w - 1)
    y = np.clip(np.round(quads[:, :, None, 1] * (1 - t) + ahead[:, :, None, 1] * t).astype(np.int32), 0, h - 1)
    return (edges > 0).ravel()[y * w + x].sum(axis=2) / samples


def homography(quad: np.ndarray, turn: int = 0) -> np.ndarray:
    """Canonical card coordinates → image coordinates, for ``quad`` turned ``turn`` quarter turns."""
    return cv2.getPerspectiveTransform(CANON, np.roll(quad, -turn, axis=0).astype(np.float32))


def skew(quad: np.ndarray) -> float:
    """How far ``quad`` is from a parallelogram: the longest of its sides over the one
    opposite, or the other way round (1 for a card seen straight down; its far end shorter the
    more steeply it is seen)."""
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    return float(max(sides[0] / sides[2], sides[2] / sides[0], sides[1] / sides[3], sides[3] / sides[1]))


def on_table(quad: np.ndarray, shape: tuple[int, ...]) -> tuple[float, float]:
    """The lengths, up to one scale, of the outline's sides 0 (and 2) and 1 (and 3) on the
    table: what the camera's perspective shortened given back. A card photographed at 45°
    shows its far end much shorter than its near one and the sides running away from the
    camera shorter than they are, so that its outline may look square, or twice as long as
    it is wide; which sides are the long ones, and whether it is card-shaped at all, is
    decided on the table, not in the photo.

    The camera is taken for a pinhole looking at the picture's centre, with a focal length
    of ``FOCAL`` times the picture's longer side: between a phone's main camera (~0.8) and
    its twice zoom (~1.6). Its own is not in the photo (a crop moves the centre, a zoom
    lengthens it), and estimating it from the one outline (its sides at right angles on the
    table) answers anything for a quadrilateral that is no card's, or whose picture was
    cropped. A focal length somewhat off undoes the perspective somewhat less or more (the
    short sides are still found at top and bottom at 55° with either of those cameras); a
    card seen straight down has none to undo, whatever it is.
    """
    h, w = shape[:2]
    H = cv2.getPerspectiveTransform(UNIT, (quad - np.array([w / 2, h / 2])).astype(np.float32))
    first, second = np.linalg.norm(np.diag([1 / (FOCAL * max(h, w))] * 2 + [1.0]) @ H[:, :2], axis=0)
    return float(first), float(second)


def card_homography(quad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Canonical card coordinates → image coordinates for the outline ``quad`` in an image of
    ``shape``, turned so that its short sides on the table are at top and bottom."""
    return homography(quad, portrait_turn(quad, shape))


def portrait_turn(quad: np.ndarray, shape: tuple[int, ...]) -> int:
    """The quarter turn (0 or 1) that puts the outline's shorter sides on the table
    (``on_table``) at top and bottom."""
    first, second = on_table(quad, shape)
    return 0 if first <= second else 1


def card_shaped(quad: np.ndarray, shape: tuple[int, ...], slack: float = 0.25) -> bool:
    """Whether the outline's sides are in about a card's proportion (63 : 88), to ``slack``
    of it, as the photo shows them — or on the table (``on_table``), to ``TABLE_SLACK`` of
    that: a card tilted far enough is no card's shape in the photo, but the perspective a
    focal length assumed undoes also makes a card of some trapezoids that are none (a
    printed panel and a pencil along it)."""
    apparent, on_the_table = proportions(quad, shape)
    return (abs(apparent - ASPECT) <= slack * ASPECT
            or abs(on_the_table - ASPECT) <= TABLE_SLACK * slack * ASPECT)


def proportions(quad: np.ndarray, shape: tuple[int, ...]) -> tuple[float, float]:
    """The outline's shorter side over its longer one: in the photo, and on the table (``on_table``)."""
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    pairs = (sides[0] + sides[2], sides[1] + sides[3]), on_table(quad, shape)
    return tuple(float(min(pair) / max(*pair, 1e-9)) for pair in pairs)


def corners(H: np.ndarray) -> np.ndarray:
    """The card's four corners (4 × 2, clockwise from its top left) seen through ``H``."""
    return cv2.perspectiveTransform(CANON[None], H)[0]


def rectify(image: np.ndarray, H: np.ndarray, size: tuple[int, int] = (CARD_W, CARD_H), margin: int = 0) -> np.ndarray:
    """The card seen through ``H`` at ``size`` (w, h), with ``margin`` extra pixels on every side."""
    w, h = size
    S = np.array([[CARD_W / w, 0, 0], [0, CARD_H / h, 0], [0, 0, 1]], np.float64)
    T = np.array([[1, 0, -margin], [0, 1, -margin], [0, 0, 1]], np.float64)
    M = H @ S @ T
    return cv2.warpPerspective(image, M, (w + 2 * margin, h + 2 * margin),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
