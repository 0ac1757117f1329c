"""vision/: safe decoding, the reference index, and recognition on generated phone photos."""
from __future__ import annotations

import io
import struct
import zlib

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from bench import card_photos as cp
from vision import enroll, header, image, locate, recognize
from vision.index import Index

SIZE = (800, 600)


def scan(card) -> np.ndarray:
    """A perfect "scan" of a generated card, as enrolment would store it."""
    gray = cv2.cvtColor(cp.face(card), cv2.COLOR_BGR2GRAY)
    return cv2.resize(gray, (locate.CARD_W, locate.CARD_H), interpolation=cv2.INTER_AREA)


@pytest.fixture(scope="module")
def deck():
    return cp.deck(40, seed=3, twins_every=10)


@pytest.fixture(scope="module")
def index(deck, tmp_path_factory):
    idx = Index(tmp_path_factory.mktemp("vision"))
    idx.add({c.id: scan(c) for c in deck})
    return idx


def png(width, height, rows=b"") -> bytes:
    """A PNG whose header claims ``width`` × ``height`` (the data may be far too short)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


# -- decoding --------------------------------------------------------------------------------

@pytest.mark.parametrize("data, reason", [
    (b"", "empty"),
    (b"Munchkin rules, not a photo\n" * 10, "not_an_image"),
    (b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>',
     "not_an_image"),
    (b"GIF89a" + b"\x00" * 40, "not_an_image"),
    (png(50_000, 50_000), "too_many_pixels"),
    (png(3000, 1), "too_small"),
    (png(4000, 400), "bad_aspect"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "corrupt"),                # ends inside the header
    (b"\xff\xd8\xff\xe1\x40\x00" + b"\x00" * 100, "corrupt"),  # ends inside a 16 KB EXIF segment
    (b"\xff" * (image.MAX_BYTES + 1), "too_large"),
])
def test_hostile_bytes_are_refused_with_a_reason(data, reason):
    with pytest.raises(image.ImageError) as err:
        image.load(data)
    assert err.value.reason == reason
    assert str(err.value)


def _pillow_saved(fmt: str, **options) -> bytes:
    img = Image.new("RGB", (123, 77), (10, 200, 30))
    buf = io.BytesIO()
    img.save(buf, fmt, **options)
    return buf.getvalue()


@pytest.mark.parametrize("fmt, options", [
    ("PNG", {}), ("JPEG", {}), ("JPEG", {"progressive": True}), ("JPEG", {"exif": b"Exif\x00\x00" + b"\x00" * 9000}),
    ("WEBP", {}), ("WEBP", {"lossless": True}), ("WEBP", {"exif": Image.Exif().tobytes()}),
])
def test_the_header_says_the_size_pillow_decodes(fmt, options):
    data = _pillow_saved(fmt, **options)
    assert header.read(data) == (fmt, 123, 77)
    assert image.load(data).shape == (77, 123, 3)


@pytest.mark.parametrize("width, height, reason", [
    (6325, 6325, "too_many_pixels"), (31, 500, "too_small"), (500, 31, "too_small"),
    (32 * 8 + 1, 32, "bad_aspect"), (400, 3201, "bad_aspect"),
    (6324, 6324, None), (32, 32, None), (32 * 8, 32, None), (400, 3200, None),
])
def test_the_size_limits(width, height, reason):
    if reason is None:
        image.check(width, height)
        return
    with pytest.raises(image.ImageError) as err:
        image.check(width, height)
    assert err.value.reason == reason and f"{width} × {height}" in str(err.value)


def test_the_smallest_and_thinnest_images_allowed_still_get_an_answer(index):
    for w, h in ((32, 32), (256, 32), (32, 256), (1600, 200)):
        result = recognize.recognize(cv2.imencode(".png", np.full((h, w, 3), 90, np.uint8))[1].tobytes(), index)
        assert result.card_id is None and result.reason in ("no_card", "too_blurry")


SOUND = [_pillow_saved(fmt, **options) for fmt, options in (
    ("PNG", {}), ("JPEG", {}), ("JPEG", {"progressive": True}), ("WEBP", {}), ("WEBP", {"exif": Image.Exif().tobytes()}))]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(SOUND), st.integers(0, 2000),
       st.lists(st.tuples(st.integers(0, 80), st.integers(0, 255)), max_size=6))
def test_damaged_files_are_decoded_or_refused_never_crash(data, cut, changes):
    """Bytes changed in the header, or cut anywhere: an image, or an ``ImageError`` with a reason."""
    damaged = bytearray(data[:cut])
    for at, value in changes:
        if at < len(damaged):
            damaged[at] = value
    try:
        image.load(bytes(damaged))
    except image.ImageError as exc:
        assert exc.reason in ("empty", "not_an_image", "corrupt", "too_many_pixels", "too_small", "bad_aspect")


def test_truncated_jpeg_is_refused():
    jpeg = cp.photo(cp.face(cp.deck(1)[0]), "easy", seed=1, size=(320, 240))
    with pytest.raises(image.ImageError) as err:
        image.load(jpeg[: len(jpeg) // 2])
    assert err.value.reason == "corrupt"


def test_large_photo_is_decoded_small_and_upright():
    img = Image.new("RGB", (4000, 3000), (200, 10, 10))
    img.paste((10, 10, 200), (0, 0, 4000, 100))           # a blue band along the top edge
    exif = img.getexif()
    exif[0x0112] = 6                                        # "rotate 90° clockwise to view"
    exif[0x010E] = "x" * 60_000                             # a bulky description tag
    buf = io.BytesIO()
    img.save(buf, "JPEG", exif=exif.tobytes())
    bgr = image.load(buf.getvalue())
    assert max(bgr.shape[:2]) <= image.WORK_SIDE
    assert bgr.shape[0] > bgr.shape[1]                      # portrait once the EXIF turn is applied
    assert bgr[bgr.shape[0] // 2, -3][0] > 150              # the blue band is now on the right


# -- the index ---------------------------------------------------------------------------------

def test_index_persists_replaces_and_removes(tmp_path, deck):
    idx = Index(tmp_path)
    idx.add({deck[0].id: scan(deck[0]), deck[1].id: scan(deck[1])})
    other = Index(tmp_path).refresh()                      # another process opening the same directory
    assert other.ids == [deck[0].id, deck[1].id]
    idx.add({deck[0].id: scan(deck[2])})                   # re-enrolling replaces, keeps the position
    assert other.refresh().ids == [deck[0].id, deck[1].id]
    assert np.array_equal(other.arrays["descriptors"][0], idx.arrays["descriptors"][0])
    assert idx.reference_path(deck[0].id).exists()
    assert idx.remove(deck[1].id) and not idx.remove("no-such-card")
    assert other.refresh().ids == [deck[0].id]
    assert not idx.reference_path(deck[1].id).exists()
    assert Index(tmp_path).rebuild() == 1


def test_index_refuses_bad_card_ids(tmp_path, deck):
    with pytest.raises(ValueError):
        Index(tmp_path).add({"../etc/passwd": scan(deck[0])})


# -- recognition -------------------------------------------------------------------------------

@pytest.mark.parametrize("tier", ["easy", "medium", "hard"])
def test_recognises_enrolled_cards_in_phone_photos(index, deck, tier):
    for i, card in enumerate(deck[1:40:6]):
        result = recognize.recognize(cp.photo(cp.face(card), tier, seed=100 + i, size=SIZE), index)
        assert result.card_id == card.id, (tier, i, result.as_dict())
        assert result.candidates[0].confidence >= recognize.ACCEPT
        assert result.elapsed_ms > 0 and len(result.corners) == 4


def test_cards_that_differ_only_in_the_title_are_told_apart(index, deck):
    twins = [(deck[i - 1], deck[i]) for i in range(9, 40, 10)]
    assert all(a.art == b.art and a.title != b.title for a, b in twins)
    for k, (a, b) in enumerate(twins):
        for card in (a, b):
            result = recognize.recognize(cp.photo(cp.face(card), "medium", seed=7 + k, size=SIZE), index)
            assert result.card_id == card.id, result.as_dict()


def test_unknown_cards_are_not_named(index):
    strangers = cp.deck(6, seed=77, prefix="stranger")
    for i, card in enumerate(strangers):
        result = recognize.recognize(cp.photo(cp.face(card), "medium", seed=i, size=SIZE), index)
        assert result.card_id is None, result.as_dict()
        assert result.reason in ("no_confident_match", "too_blurry")
        assert result.candidates and result.candidates[0].confidence < recognize.ACCEPT


def test_a_photo_without_a_card_says_so(index):
    table = np.full((600, 800, 3), (60, 90, 120), np.uint8)
    cv2.circle(table, (400, 300), 40, (30, 160, 200), -1)
    ok, buf = cv2.imencode(".jpg", table)
    result = recognize.recognize(buf.tobytes(), index)
    assert result.card_id is None and result.reason == "no_card" and result.message


def test_nothing_enrolled(tmp_path, deck):
    result = recognize.recognize(cp.photo(cp.face(deck[0]), "easy", seed=1, size=SIZE), Index(tmp_path))
    assert result.reason == "nothing_enrolled"


def test_enrol_from_a_phone_photo_then_recognise(index, deck, tmp_path):
    idx = Index(tmp_path)
    idx.add({c.id: scan(c) for c in deck[:20]})
    newcomer = cp.deck(1, seed=55, prefix="new")[0]
    ref = enroll.reference(cp.photo(cp.face(newcomer), "easy", seed=3, size=(1600, 1200)), idx, kind="auto")
    idx.add({newcomer.id: ref})
    result = recognize.recognize(cp.photo(cp.face(newcomer), "medium", seed=4, size=SIZE), idx)
    assert result.card_id == newcomer.id, result.as_dict()


def test_enrol_from_a_scan_file(tmp_path, deck):
    ok, buf = cv2.imencode(".png", cp.face(deck[0]))
    ref = enroll.reference(buf.tobytes(), Index(tmp_path), kind="scan")
    assert ref.shape == (locate.CARD_H, locate.CARD_W)
    with pytest.raises(enroll.EnrollError):
        enroll.reference(b"not an image", Index(tmp_path))


def test_a_very_blurred_photo_is_blamed_on_the_blur(index, deck):
    import dataclasses
    shaky = dataclasses.replace(cp.TIERS["easy"], blur=(16, 16))   # sigma 8 px at 800 × 600
    reasons = [recognize.recognize(cp.photo(cp.face(deck[i]), shaky, seed=i, size=SIZE), index).reason
               for i in range(0, 40, 5)]
    assert reasons.count("too_blurry") >= 6 and set(reasons) <= {"too_blurry", None}, reasons
