"""Reading a card's title: the OCR fallback and tie-breaker (optional extra ``[ocr]``).

Uses the PP-OCR text recogniser that RapidOCR's wheel (``rapidocr``) ships, run by
``onnxruntime``, so nothing is downloaded at run time. Only the *recogniser* runs, on the
title band of the already rectified card (detection is unnecessary: the layout says where
the title is), and its per-frame character probabilities are kept with what it read
(``Reading``), so that how well any title explains the picture can be asked as well
(``Reading.likelihood``). Its character set covers the Latin titles of the English, German,
French, Dutch and Italian cards, accents included; it has no Cyrillic, so Russian titles are
not read (matching folds accents anyway, see ``card_db.normalize``).

Without the extra installed, ``reader()`` is ``None`` and recognition works from images alone.
"""
from __future__ import annotations

import importlib.util
import math
import threading
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from . import describe, gate, locate

#: (text, confidence 0..1) for a BGR or grey image of one line of text (``Reading`` from this
#: module's reader: with the likelihood of other texts too).
Reader = Callable[[np.ndarray], tuple[str, float]]

BAND_WIDTH = 640                 # the title band is rectified at this width before reading
_reader: Reader | None = None
_tried = False
_lock = threading.Lock()
_loading = 0.0                   # seconds this process spent loading the recogniser (``setup_seconds``)


def reader() -> Reader | None:
    """The process-wide title reader, or ``None`` when the ``[ocr]`` extra is not installed.

    The recogniser itself is loaded on the first title read (~0.15 s), not here: most photos
    are named by their images alone, and a ``companion vision recognize`` call, or a
    server's first scan, would otherwise pay it for nothing."""
    global _reader, _tried
    with _lock:
        if not _tried:
            _tried = True
            model = _shipped_model()
            if model is not None and importlib.util.find_spec("onnxruntime") is not None:
                _reader = _on_first_read(model)
    return _reader


def _shipped_model() -> Path | None:
    """The text recogniser's model in RapidOCR's installed package (``models/*rec*.onnx``),
    found without importing the package: its import reads RapidOCR's model table with
    OmegaConf (~0.55 s, four times what loading the model takes), which a ``companion vision
    recognize`` call for one photo paid on its first read. ``None`` without the package, or
    when it holds no single such model (``pyproject.toml`` keeps RapidOCR 3, which does)."""
    spec = importlib.util.find_spec("rapidocr")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = [path for folder in spec.submodule_search_locations for path in Path(folder).glob("models/*rec*.onnx")]
    return found[0] if len(found) == 1 else None


def _on_first_read(model: Path) -> Reader:
    """A reader that loads the recogniser ``model`` when it first reads."""
    run_lock = gate.lock()  # the engine is loaded and used by one thread at a time
    recogniser = None

    def read(img: np.ndarray) -> Reading:
        nonlocal recogniser
        global _loading
        with run_lock:
            if recogniser is None:
                started = time.perf_counter()
                recogniser = _Recogniser(model)
                _loading += time.perf_counter() - started
            return recogniser.read(img)
    read.model = f"{model.name}:{model.stat().st_size}"  # what it reads with (``texts`` keys its readings by it)
    return read


def setup_seconds() -> float:
    """The seconds this process has spent loading the recogniser (once, on its first read):
    set-up, like loading the index, not the work of the photo that happened to read first
    (``recognize``'s ``elapsed_ms`` leaves it out)."""
    return _loading


class Reading(tuple):
    """What was read on one line: ``(text, confidence)`` like any reader's answer, and how
    likely the picture shows some other text (``likelihood``).

    A title under blur or glare is read a letter or two wrong ("Tiny Sorsl" for "Tiny
    Scroll"), and a string compared with a string says only how many letters differ. The
    recogniser's per-frame probabilities say more: how well each title the card could have
    explains the picture, every way of lining its letters up with the frames counted
    (connectionist temporal classification, the model's own training objective). "Tiny
    Scroll" then explains that picture e^13 times better than the next title of its game.
    """

    def __new__(cls, text: str, confidence: float, probs: np.ndarray, classes: "_Classes"):
        reading = super().__new__(cls, (text, confidence))
        reading._probs, reading._classes = probs, classes
        return reading

    def likelihood(self, text: str) -> float:
        """The log-likelihood that the line shows ``text``: capitals and small letters alike
        (a title printed in capitals is read either way), spaces as gaps between letters
        (read or not), a character the recogniser does not know as impossible. 0 is
        certain; each letter the picture does not show costs ~5–20."""
        return _ctc_likelihood(self._probs, self._classes, [ch for ch in text if not ch.isspace()])

    @property
    def best(self) -> float:
        """The log-likelihood of what was read (its frames' likeliest characters): the
        likeliest text, nearly, to compare a title's ``likelihood`` with."""
        return float(np.log(np.maximum(self._probs.max(axis=1), 1e-30)).sum())


class _Classes:
    """The recogniser's characters: which of its output classes each character is, small
    and capital alike, and which are gaps (CTC's blank, the space)."""

    def __init__(self, characters: list[str]):
        self.of: dict[str, list[int]] = {}
        for i, ch in enumerate(characters[1:-1], start=1):  # 0 is the blank, the last the space
            self.of.setdefault(ch, []).append(i)
        self.gap = [0, len(characters) - 1]

    def columns(self, ch: str) -> list[int]:
        return sorted({*self.of.get(ch, ()), *self.of.get(ch.lower(), ()), *self.of.get(ch.upper(), ())})


class _Recogniser:
    """The PP-OCR recogniser run on one line of text as RapidOCR 3 runs it without detection,
    so that its answers — and the thresholds fitted on them — are the same: the line resized
    to the model's height (keeping its proportions, never narrower than ``LINE``), its
    pixels scaled to −1 … 1, padded on the right; the frames' likeliest classes decoded
    greedily (repeats merged, CTC's blanks dropped) with the mean of their probabilities,
    each rounded to five places, as the confidence. Its per-frame probabilities are kept for
    ``Reading.likelihood``. The model names its characters in its own metadata."""

    LINE = (320, 48)  # the narrowest line the model is given, and its height (px)

    def __init__(self, model: Path):
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.log_severity_level = 4        # its warnings about unused initialisers are not ours
        options.enable_cpu_mem_arena = False  # memory handed back after each read, as RapidOCR sets it
        # its threads wait for the next read without spinning: a read is followed by the photo's
        # OpenCV work on both cores, which they slowed by a third (2 ORB descriptions on two
        # threads 36 ms after a read, 22 ms without the spin; the outside ribbon set's photos
        # ~15 ms sooner on average, ~30 ms those taking the wider look, the same answers)
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        self.input = self.session.get_inputs()[0].name
        characters = self.session.get_modelmeta().custom_metadata_map["character"].splitlines()
        self.characters = ["", *characters, " "]  # class 0 is CTC's blank, the last the space
        self.classes = _Classes(self.characters)

    def read(self, img: np.ndarray) -> Reading:
        if img.ndim == 2:
            img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
        narrowest, height = self.LINE
        ratio = img.shape[1] / img.shape[0]
        width = int(height * max(narrowest / height, ratio))
        resized = min(width, math.ceil(height * ratio))
        line = cv2.resize(img, (resized, height)).astype(np.float32).transpose(2, 0, 1) / 255
        padded = np.zeros((3, height, width), np.float32)
        padded[:, :, :resized] = (line - 0.5) / 0.5
        probs = self.session.run(None, {self.input: padded[None]})[0][0]
        best = probs.argmax(axis=1)
        kept = best != 0
        kept[1:] &= best[1:] != best[:-1]
        text = "".join(self.characters[c] for c in best[kept])
        confidence = float(np.mean([round(float(p), 5) for p in probs.max(axis=1)[kept]] or [0]).round(5))
        return Reading(text.strip(), confidence, probs, self.classes)


def _ctc_likelihood(probs: np.ndarray, classes: _Classes, letters: list[str]) -> float:
    """log P(``letters`` | the frames' class probabilities ``probs``) under CTC: the sum over
    every path of frames that collapses to them (repeats merged, gaps dropped), by the
    forward recursion over the letters interleaved with gaps."""
    if any(not classes.columns(ch) for ch in letters):
        return -math.inf
    tiny = 1e-30
    gap = np.log(np.maximum(probs[:, classes.gap].sum(axis=1), tiny))
    if not letters:
        return float(gap.sum())
    emit = np.log(np.maximum(np.stack([probs[:, classes.columns(ch)].sum(axis=1) for ch in letters], axis=1), tiny))
    n = len(letters)
    repeat = np.array([False] + [letters[k] == letters[k - 1] for k in range(1, n)])
    on_gap = np.full(n + 1, -np.inf)   # paths ending on the gap before letter k (k = n: after the last)
    on_letter = np.full(n, -np.inf)    # paths ending on letter k
    on_gap[0], on_letter[0] = gap[0], emit[0, 0]
    for t in range(1, len(probs)):
        before = np.r_[-np.inf, on_letter]                       # letter k-1, into the gap before letter k
        gaps = np.logaddexp(on_gap, before) + gap[t]
        skip = np.where(repeat, -np.inf, np.r_[-np.inf, on_letter[:-1]])  # letter k-1 straight on (not a repeat)
        on_letter = np.logaddexp(np.logaddexp(on_letter, on_gap[:-1]), skip) + emit[t]
        on_gap = gaps
    return float(np.logaddexp(on_gap[-1], on_letter[-1]))


def band(gray: np.ndarray, H: np.ndarray) -> np.ndarray:
    """The title band of the card seen through ``H``, flat and BAND_WIDTH wide (grey)."""
    x0, y0, x1, y1 = describe.TITLE
    w = BAND_WIDTH
    h = max(8, round(w * (y1 - y0) * locate.CARD_H / ((x1 - x0) * locate.CARD_W)))
    box = (x0 * locate.CARD_W, y0 * locate.CARD_H, (x1 - x0) * locate.CARD_W, (y1 - y0) * locate.CARD_H)
    return area(gray, H, box, (w, h))


def area(gray: np.ndarray, H: np.ndarray, box: tuple[float, float, float, float], size: tuple[int, int]
         ) -> np.ndarray:
    """The part ``box`` (x, y, width, height in canonical card px) of the card seen through
    ``H`` (canonical card → ``gray``), flat at ``size`` (width, height): what is read."""
    x, y, w, h = box
    src = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)
    corners = cv2.perspectiveTransform(src[None], H)[0]
    M = cv2.getPerspectiveTransform(np.array([[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]], np.float32),
                                    corners)
    return cv2.warpPerspective(gray, M, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)
