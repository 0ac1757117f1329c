"""Hostile uploads and several processes (issue 14): sizes refused from the header before any
pixel is decoded, on every path that decodes (scan page, JSON API, teaching a card, CLI);
at most a few photos at once, then 503; memory bounded and handed back after large photos
(measured in a fresh process); enrolments from several processes at the same moment all
kept; and `companion serve` with two workers teaching and scanning at once (gevent: the
image work on native threads). Real files, real OpenCV, real processes; nothing is timed."""
from __future__ import annotations

import http.client
import io
import json
import os
import re
import subprocess
import sys
import threading
import time
import zlib
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner
from PIL import Image

from bench import card_photos as cp
from companion.cli import main
from vision import gate, locate
from vision.index import Index

from liveserver import LiveServer

ROOT = Path(__file__).resolve().parent.parent
API = "/api/v1/vision/recognize"
CARDS = json.loads((ROOT / "card_db" / "data" / "munchkin-base.json").read_text())["cards"]


def flat_png(width: int, height: int) -> bytes:
    """A complete, valid single-colour PNG: a few hundred KB for 8000 × 8000 pixels (64 MP,
    192 MB decoded). The rows are compressed one at a time, never held all at once here."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")
    squeeze, row, idat = zlib.compressobj(9), b"\x00" + b"\x80" * (3 * width), []
    for _ in range(height):
        idat.append(squeeze.compress(row))
    idat.append(squeeze.flush())
    ihdr = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", b"".join(idat)) + chunk(b"IEND", b"")


def encoded(width: int, height: int, ext: str = ".png") -> bytes:
    """A real image of that size, through OpenCV's encoder (grey with a diagonal line)."""
    img = np.full((height, width, 3), 128, np.uint8)
    cv2.line(img, (0, 0), (width - 1, height - 1), (20, 200, 40), 3)
    return cv2.imencode(ext, img)[1].tobytes()


def claiming(fmt: str, width: int, height: int) -> bytes:
    """A real small JPEG or WebP whose header is changed to claim ``width`` × ``height``."""
    img = Image.new("RGB", (64, 64), (90, 120, 60))
    buf = io.BytesIO()
    if fmt == "JPEG":
        img.save(buf, "JPEG")
        data = bytearray(buf.getvalue())
        sof = data.index(b"\xff\xc0")
        data[sof + 5:sof + 9] = height.to_bytes(2, "big") + width.to_bytes(2, "big")
    else:
        img.save(buf, "WEBP", exif=Image.Exif().tobytes())  # EXIF: the extended (VP8X) header
        data = bytearray(buf.getvalue())
        assert data[12:16] == b"VP8X"
        data[24:30] = (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    return bytes(data)


def other_format(fmt: str) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (200, 280), (200, 30, 30)).save(buf, fmt)
    return buf.getvalue()


def card_photo(seed: int = 1) -> bytes:
    return cp.photo(cp.face(cp.deck(1, seed=seed)[0]), "easy", seed=seed, size=(800, 600))


HOSTILE = [  # (bytes, content type, status, reason)
    (encoded(3000, 1), "image/png", 422, "too_small"),
    (encoded(1, 3000), "image/png", 422, "too_small"),
    (encoded(4000, 300, ".jpg"), "image/jpeg", 422, "bad_aspect"),
    (flat_png(8000, 8000), "image/png", 413, "too_many_pixels"),
    (claiming("JPEG", 9000, 9000), "image/jpeg", 413, "too_many_pixels"),
    (claiming("WEBP", 9000, 9000), "image/webp", 413, "too_many_pixels"),
    (claiming("JPEG", 5000, 20), "image/jpeg", 422, "too_small"),
    (other_format("GIF"), "image/gif", 415, "not_an_image"),
    (other_format("BMP"), "image/bmp", 415, "not_an_image"),
    (other_format("TIFF"), "image/tiff", 415, "not_an_image"),
    (b"%PDF-1.7\n" + b"0" * 500, "application/octet-stream", 415, "not_an_image"),
]


@pytest.mark.parametrize("data, content_type, status, reason", HOSTILE)
def test_api_refuses_each_bad_image_with_its_reason(client, data, content_type, status, reason):
    answer = client.post(API, data=data, content_type=content_type)
    assert answer.status_code == status, answer.json
    assert answer.json["reason"] == reason and answer.json["error"]


def test_the_scan_page_refuses_a_strip_and_says_why(phones):
    alice, _, _ = phones
    answer = alice.post(f"/t/{alice.table_id}/scan", {"photo": (io.BytesIO(encoded(3000, 1)), "strip.png")},
                        htmx=True, content_type="multipart/form-data")
    html = answer.get_data(as_text=True)
    assert answer.status_code == 422 and 'class="notice refused"' in html
    assert "too small to show a card" in html and "at least 32 pixels" in html  # in the phone's language


def test_teaching_a_card_refuses_bad_images(app, operator):
    for data in (encoded(3000, 1), flat_png(8000, 8000)):
        page = operator.get("/cards/net-troll").get_data(as_text=True)
        token = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
        answer = operator.post("/cards/net-troll/enroll", content_type="multipart/form-data",
                               data={"csrf_token": token, "photo": (io.BytesIO(data), "card.png")})
        html = answer.get_data(as_text=True)
        assert answer.status_code == 400 and 'class="notice refused"' in html, html[:500]
        assert "pixels" in html
    assert not (Path(app.config["DATA_DIR"]) / "vision" / "index.npz").exists()


def test_the_cli_refuses_bad_image_files(tmp_path):
    data = ["--data-dir", str(tmp_path / "data")]
    strip, huge = tmp_path / "strip.png", tmp_path / "net-troll.png"
    strip.write_bytes(encoded(3000, 1))
    huge.write_bytes(flat_png(8000, 8000))
    runner = CliRunner()
    answer = runner.invoke(main, ["vision", "recognize", str(strip), "--json", *data])
    assert answer.exit_code == 1 and json.loads(answer.output)["reason"] == "too_small"
    refused = runner.invoke(main, ["vision", "enroll", str(huge), *data])
    assert refused.exit_code == 1 and "8000 × 8000 pixels; at most 40 megapixels" in refused.output


def test_beyond_the_slots_a_photo_waits_in_line_then_hears_busy(client, monkeypatch):
    """Every slot held by other work: the photo waits ``WAIT`` seconds, then 503 with Retry-After."""
    monkeypatch.setattr(gate, "WAIT", 0.05)
    started, release = threading.Barrier(gate.SLOTS + 1), threading.Event()

    def busy_elsewhere():
        with gate.slot():
            started.wait()
            release.wait()

    holders = [threading.Thread(target=busy_elsewhere) for _ in range(gate.SLOTS)]
    for t in holders:
        t.start()
    started.wait()
    try:
        answer = client.post(API, data=card_photo(), content_type="image/jpeg")
        assert answer.status_code == 503 and answer.json["reason"] == "busy"
        assert int(answer.headers["Retry-After"]) > 0
    finally:
        release.set()
        for t in holders:
            t.join()
    assert client.post(API, data=card_photo(), content_type="image/jpeg").status_code == 200


def test_a_full_queue_is_busy_at_once(monkeypatch):
    """With the line full, a photo is turned away without waiting (its upload is not kept)."""
    monkeypatch.setattr(gate, "QUEUE", 0)
    with gate.slot(), gate.slot():
        with pytest.raises(gate.Busy):
            with gate.slot(wait=600):
                pass
    with gate.slot():
        pass


GEVENT = """
from gevent import monkey
monkey.patch_all()
from gevent.monkey import get_original
from vision import gate
native_id = get_original("threading", "get_ident")
print(gate.run(native_id) != native_id())
"""


def test_under_gevent_the_image_work_leaves_the_event_loop_free():
    """`companion serve` runs gevent: a photo is worked on by a native thread, not the loop's."""
    pytest.importorskip("gevent")
    ran = subprocess.run([sys.executable, "-c", GEVENT], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert ran.stdout.strip() == "True", ran.stderr


def _slow_identity(x: int) -> tuple[int, int]:
    """``x`` and the native thread that worked on it, after a short wait that lets go of the GIL."""
    time.sleep(0.002 * (x % 3))
    return x, threading.get_ident()


def test_a_photos_work_is_shared_by_two_threads_and_answered_in_order():
    answers = gate.share(_slow_identity, list(range(40)))
    assert [x for x, _ in answers] == list(range(40))          # every item once, in the items' order
    assert len({ident for _, ident in answers}) == 2           # the caller and one helper took turns
    assert gate.share(_slow_identity, [7]) == [(7, threading.get_ident())]   # one item: no helper
    assert gate.share(_slow_identity, []) == []
    assert gate.together(lambda: "a", lambda: "b", lambda: "c") == ["a", "b", "c"]


def test_an_error_in_shared_work_is_raised_to_the_caller_once_both_threads_stop():
    seen = []

    def work(x):
        seen.append(x)
        if x == 5:
            raise ValueError("card 5 is broken")
        time.sleep(0.001)
        return x
    with pytest.raises(ValueError, match="card 5 is broken"):
        gate.share(work, list(range(200)))
    settled = len(seen)
    time.sleep(0.05)
    assert len(seen) == settled < 200   # nothing runs on after the error, and the rest was not started


SHARED_UNDER_GEVENT = """
from gevent import monkey
monkey.patch_all()
import time
from gevent.monkey import get_original
from vision import gate
native_id, native_sleep = get_original("threading", "get_ident"), get_original("time", "sleep")

def work(x):
    native_sleep(0.002)
    return x, native_id()

answers = gate.run(gate.share, work, list(range(30)))
print([x for x, _ in answers] == list(range(30)), len({t for _, t in answers}), native_id() in {t for _, t in answers})
"""


def test_under_gevent_the_shared_work_runs_on_two_native_threads_off_the_loop():
    """The helper is a native thread (gevent's patched one would be a greenlet of the loop's
    thread, and the work would wait on a gevent lock from a native thread: it would hang)."""
    pytest.importorskip("gevent")
    ran = subprocess.run([sys.executable, "-c", SHARED_UNDER_GEVENT], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert ran.stdout.split() == ["True", "2", "False"], ran.stderr


# -- memory, measured in a fresh process whose peak is this work's alone -----------------------

def _vm(field: str) -> float:
    """``VmHWM`` (the peak) or ``VmRSS`` (now) of this process, in MiB."""
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise LookupError(field)


def _memory_of_uploads(data_dir: str) -> dict:
    """Runs in a fresh process: the app answers hostile uploads, then large allowed photos
    from four phones at once; how far the peak and the resident memory grew."""
    from companion import create_app

    app = create_app({"DATA_DIR": data_dir, "TESTING": True})
    client = app.test_client()
    assert client.post(API, data=card_photo(), content_type="image/jpeg").status_code == 200  # warm up
    hostile = [(flat_png(8000, 8000), "image/png"), (claiming("JPEG", 9000, 9000), "image/jpeg"),
               (claiming("WEBP", 16000, 16000), "image/webp"), (encoded(3000, 1), "image/png")]
    large = [flat_png(w, h) for w, h in ((6000, 6000), (5000, 4000), (7000, 5000), (4000, 3000))]
    peak, resident = _vm("VmHWM"), _vm("VmRSS")
    statuses = [client.post(API, data=data, content_type=kind).status_code for data, kind in hostile]
    hostile_peak = _vm("VmHWM") - peak

    answers = []

    def phone(k: int) -> None:
        own = app.test_client()
        for i in range(3):
            answers.append(own.post(API, data=large[(i + k) % 4], content_type="image/png").status_code)

    phones = [threading.Thread(target=phone, args=(k,)) for k in range(4)]
    for t in phones:
        t.start()
    for t in phones:
        t.join()
    app.extensions["companion.live"].stop()
    return {"statuses": statuses, "hostile_peak": hostile_peak, "answers": answers,
            "large_peak": _vm("VmHWM") - peak, "kept": _vm("VmRSS") - resident}


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_memory_stays_bounded_and_is_handed_back(tmp_path):
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        got = pool.submit(_memory_of_uploads, str(tmp_path / "data")).result()
    assert got["statuses"] == [413, 413, 413, 422]
    assert got["hostile_peak"] < 40, got        # nothing was decoded (8000² would be 192 MB)
    assert got["answers"] == [200] * 12, got
    # 35 MP PNGs decode at 4 bytes a pixel (~135 MiB), two at a time (gate.SLOTS)
    assert got["large_peak"] < 330, got          # ~240 measured; four at once ~400, the old decode ~500
    assert got["kept"] < 64, got                 # malloc_trim handed the freed heaps back


# -- the scanner's index, changed by several processes at once --------------------------------

ENROL = """
import sys, time
from pathlib import Path
from companion import scanning
from vision.index import Index

data_dir, go, files = sys.argv[1], Path(sys.argv[2]), sys.argv[3:]
index = Index(Path(data_dir) / "vision")
while not go.exists():
    time.sleep(0.005)
for f in files:  # one enrolment per card, as a card page sends them
    scanning.enroll(None, index, {Path(f).stem: (f, Path(f).read_bytes())}, kind="scan", any_id=True)
"""


def test_enrolments_from_several_processes_at_once_are_all_kept(tmp_path):
    deck = cp.deck(36, seed=21)
    for card in deck:  # scans at the reference size: little time decoding, most of it enrolling
        cv2.imwrite(str(tmp_path / f"{card.id}.png"), cv2.resize(cp.face(card), (locate.CARD_W, locate.CARD_H)))
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    workers = [subprocess.Popen([sys.executable, "-c", ENROL, str(tmp_path / "data"), str(go),
                                 *(str(tmp_path / f"{c.id}.png") for c in deck[k::3])],
                                env=env, stderr=subprocess.PIPE, text=True) for k in range(3)]
    go.touch()  # all three start enrolling at the same moment
    for w in workers:
        _, errors = w.communicate(timeout=300)
        assert w.returncode == 0, errors
    index = Index(tmp_path / "data" / "vision").refresh()
    assert sorted(index.ids) == sorted(c.id for c in deck)
    assert all(index.enrolled(c.id) for c in deck)
    assert len(index.arrays["coarse"]) == len(deck)


class Browser:
    """One browser on a live server: its session cookie, one connection per call."""

    def __init__(self, url: str):
        self.port = int(url.rsplit(":", 1)[1])
        self.cookie = ""

    def call(self, method: str, path: str, body: bytes | None = None, content_type: str | None = None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        headers = {"Cookie": self.cookie} if self.cookie else {}
        if content_type:
            headers["Content-Type"] = content_type
        conn.request(method, path, body, headers)
        response = conn.getresponse()
        data = response.read()
        conn.close()
        if response.getheader("Set-Cookie"):
            self.cookie = response.getheader("Set-Cookie").split(";", 1)[0]
        return response.status, data


def form(fields: dict[str, str], photo: bytes) -> tuple[bytes, str]:
    """A multipart form with the photo as its ``photo`` field, as a phone's browser sends it."""
    cut = "----table-referee-upload"
    parts = [f'--{cut}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
             for k, v in fields.items()]
    parts.append(f'--{cut}\r\nContent-Disposition: form-data; name="photo"; filename="card.png"\r\n'
                 "Content-Type: image/png\r\n\r\n".encode() + photo + b"\r\n")
    return b"".join(parts) + f"--{cut}--\r\n".encode(), f"multipart/form-data; boundary={cut}"


@pytest.mark.slow
def test_two_workers_teach_and_scan_at_once(tmp_path):
    """`companion serve` with two workers: the operator teaches 24 cards from six phones at
    once (each request may land on either worker) and every card is kept; then six phones
    scan at once, reading titles too, and every photo is answered."""
    data_dir = tmp_path / "data"
    cards = [c for c in CARDS if c["kind"] in ("monster", "item")][:30]
    faces = {c["id"]: cp.face(cp.card_for(c["id"], c["names"]["en"])) for c in cards}
    server = LiveServer(data_dir, workers=2).start()
    try:
        operator = Browser(server.url)
        assert operator.call("GET", "/admin/" + (data_dir / "admin_secret").read_text().strip())[0] == 303
        status, page = operator.call("GET", f"/cards/{cards[0]['id']}")
        token = re.search(rb'name="csrf_token" value="([^"]+)"', page).group(1).decode()
        taught = []

        def teach(chunk):
            for card in chunk:
                scan = cv2.imencode(".png", cv2.resize(faces[card["id"]], (locate.CARD_W * 2, locate.CARD_H * 2)))[1]
                body, kind = form({"csrf_token": token}, scan.tobytes())
                taught.append(operator.call("POST", f"/cards/{card['id']}/enroll", body, kind)[0])

        phones = [threading.Thread(target=teach, args=(cards[k:24:6],)) for k in range(6)]
        for t in phones:
            t.start()
        for t in phones:
            t.join()
        assert taught == [200] * 24
        assert sorted(Index(data_dir / "vision").refresh().ids) == sorted(c["id"] for c in cards[:24])

        answers = []

        def scan(chunk):  # six of the cards were never taught: those are named by their titles, if at all
            for i, card in chunk:
                photo = cp.photo(faces[card["id"]], "medium", seed=i, size=(1024, 768))
                status, body = Browser(server.url).call("POST", API, photo, "image/jpeg")
                answers.append((status, card["id"], json.loads(body)))

        phones = [threading.Thread(target=scan, args=(list(enumerate(cards))[k::6],)) for k in range(6)]
        for t in phones:
            t.start()
        for t in phones:
            t.join()
        assert len(answers) == 30 and all(status == 200 for status, _, _ in answers), answers
        named = [(card_id, body["card_id"]) for _, card_id, body in answers if body["card_id"]]
        assert all(a == b for a, b in named) and len(named) >= 24, answers
    finally:
        server.stop()
