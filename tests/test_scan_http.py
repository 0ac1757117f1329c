"""Scanning through HTTP: the table's scan form, teaching a card from its page, the JSON
endpoint, and hostile uploads that must answer a clear 4xx while the server keeps serving."""
from __future__ import annotations

import io
import json
import re
import resource
from html import unescape as html_unescape
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from bench import card_photos as cp
from companion import scanning
from vision import image as vision_image
from vision import locate

from conftest import become_operator
from test_vision import png

CARDS = json.loads((Path(__file__).resolve().parent.parent / "card_db" / "data" / "munchkin-base.json")
                   .read_text())["cards"]
BY_ID = {c["id"]: c for c in CARDS}
LEARNED = re.compile(r'/cards/([^/"]+)/learned\.png\?v=\d+')


def face(card_id):
    return cp.face(cp.card_for(card_id, BY_ID[card_id]["names"]["en"]))


def photo(card_id, seed=1, tier="easy", size=(1024, 768)):
    return cp.photo(face(card_id), tier, seed=seed, size=size)


@pytest.fixture
def enrolled(app):
    """Reference scans of 30 bundled cards (monsters, items, enhancers...) in the app's data dir."""
    index = scanning.index_for(app.config["DATA_DIR"])
    ids = [c["id"] for c in CARDS if c["kind"] in ("monster", "item", "monster_enhancer", "one_shot")][::3][:30]
    for must in ("boots-of-butt-kicking", "net-troll", "enraged", "drooling-slime"):
        if must not in ids:
            ids.append(must)
    refs = {}
    for card_id in ids:
        gray = cv2.cvtColor(face(card_id), cv2.COLOR_BGR2GRAY)
        refs[card_id] = cv2.resize(gray, (locate.CARD_W, locate.CARD_H), interpolation=cv2.INTER_AREA)
    index.add(refs)
    return ids


def scan(phone, data, filename="photo.jpg", htmx=True):
    return phone.post(f"/t/{phone.table_id}/scan", {"photo": (io.BytesIO(data), filename)}, htmx=htmx,
                      content_type="multipart/form-data")


def test_scan_an_item_then_add_it_with_one_tap(phones, enrolled):
    alice, _, _ = phones
    answer = scan(alice, photo("boots-of-butt-kicking"))
    html = answer.get_data(as_text=True)
    assert answer.status_code == 200, html
    assert 'data-card="boots-of-butt-kicking"' in html and "That is" in html and "Boots of Butt-Kicking" in html
    assert 'data-action="card.play"' in html and 'href="/cards/boots-of-butt-kicking"' in html
    added = alice.act("item.add", card="boots-of-butt-kicking")
    assert added.status_code == 200 and "Boots of Butt-Kicking" in added.get_data(as_text=True)


def test_scan_during_a_fight_offers_the_fight_uses(phones, enrolled):
    alice, bob, _ = phones
    alice.act("combat.start")
    html = scan(bob, photo("net-troll", seed=4, tier="medium")).get_data(as_text=True)
    assert 'data-card="net-troll"' in html and "Into the fight" in html
    bob.act("combat.monster.add", card="net-troll")
    html = scan(bob, photo("enraged", seed=5)).get_data(as_text=True)
    assert 'data-card="enraged"' in html and "On Net Troll" in html


def test_scan_of_an_unknown_card_abstains_and_says_why(phones, enrolled):
    alice, _, _ = phones
    stranger = cp.deck(1, seed=404, prefix="stranger")[0]
    html = scan(alice, cp.photo(cp.face(stranger), "easy", seed=2, size=(1024, 768))).get_data(as_text=True)
    assert 'data-card=""' in html and 'data-reason="no_confident_match"' in html
    assert "not one the app knows well enough" in html


def test_scan_needs_a_seat_and_a_csrf_token(phones, enrolled, client):
    alice, _, _ = phones
    assert client.post(f"/t/{alice.table_id}/scan", data={"photo": (io.BytesIO(b"x"), "a.jpg")},
                       content_type="multipart/form-data").status_code in (400, 403)
    forged = alice.client.post(f"/t/{alice.table_id}/scan", data={"photo": (io.BytesIO(photo("net-troll")), "a.jpg")},
                               content_type="multipart/form-data")
    assert forged.status_code == 400 and "CSRF" in forged.get_data(as_text=True)


def test_scan_page_works_without_javascript(phones, enrolled):
    alice, _, _ = phones
    page = alice.get(f"/t/{alice.table_id}/scan").get_data(as_text=True)
    assert 'capture="environment"' in page and 'accept="image/*"' in page and "<noscript>" in page
    answer = scan(alice, photo("boots-of-butt-kicking", seed=9), htmx=False)
    assert answer.status_code == 200 and "<html" in answer.get_data(as_text=True)
    assert 'data-card="boots-of-butt-kicking"' in answer.get_data(as_text=True)


def test_the_table_page_has_the_camera_button(phones):
    alice, _, _ = phones
    html = alice.get(f"/t/{alice.table_id}").get_data(as_text=True)
    assert 'id="scan-photo"' in html and 'capture="environment"' in html and 'for="scan-photo"' in html


def test_hostile_uploads_answer_4xx_on_the_page(phones, enrolled):
    alice, _, _ = phones
    cases = [(b"", 400), (photo("net-troll")[:3000], 400), (b"plain text, renamed", 415),
             (b'<svg xmlns="http://www.w3.org/2000/svg"/>', 415), (png(50_000, 50_000), 413)]
    for data, status in cases:
        answer = scan(alice, data)
        assert answer.status_code == status, (data[:20], answer.get_data(as_text=True))
        assert 'class="notice refused"' in answer.get_data(as_text=True)
    assert scan(alice, photo("net-troll")).status_code == 200


def test_api_recognize_names_the_card_in_the_asked_language(client, enrolled):
    answer = client.post("/api/v1/vision/recognize?lang=de", data=photo("drooling-slime", seed=3, tier="medium"),
                         content_type="image/jpeg")
    assert answer.status_code == 200, answer.json
    body = answer.json
    assert body["card_id"] == "drooling-slime" and body["name"] == "Sabbernder Schleim"
    assert body["candidates"][0]["confidence"] >= 0.5 and body["candidates"][0]["kind"] == "monster"
    assert len(body["corners"]) == 4 and body["elapsed_ms"] > 0
    multipart = client.post("/api/v1/vision/recognize", data={"photo": (io.BytesIO(photo("enraged")), "x.jpg")},
                            content_type="multipart/form-data")
    assert multipart.json["card_id"] == "enraged"


def big_exif_jpeg() -> bytes:
    img = Image.new("RGB", (640, 480), (90, 120, 60))
    exif = img.getexif()
    exif[0x010E] = "x" * 65_000
    buf = io.BytesIO()
    img.save(buf, "JPEG", exif=exif.tobytes())
    return buf.getvalue()


@pytest.mark.parametrize("data, content_type, status, reason", [
    (b"", "image/jpeg", 400, "empty"),
    (cp.photo(cp.face(cp.deck(1)[0]), "easy", seed=1, size=(640, 480))[:4000], "image/jpeg", 400, "corrupt"),
    (b"\xff\xd8\xff\xe0" + b"\x00" * 100, "image/jpeg", 415, "not_an_image"),
    (b"just some words", "image/jpeg", 415, "not_an_image"),
    (b'<svg xmlns="http://www.w3.org/2000/svg" width="5" height="5"/>', "image/svg+xml", 415, "not_an_image"),
    (png(50_000, 50_000), "image/png", 413, "too_many_pixels"),
    (b"{}", "application/json", 415, "not_an_image"),
])
def test_api_hostile_uploads(client, enrolled, data, content_type, status, reason):
    answer = client.post("/api/v1/vision/recognize", data=data, content_type=content_type)
    assert answer.status_code == status and answer.json["reason"] == reason and answer.json["error"]


def test_api_oversized_body_is_refused_before_reading(client):
    answer = client.post("/api/v1/vision/recognize", data=b"\xff" * (vision_image.MAX_BYTES + 100 * 1024),
                         content_type="image/jpeg")
    assert answer.status_code == 413 and answer.json["error"]


def test_hostile_uploads_keep_memory_bounded_and_the_server_serving(client, enrolled):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    for _ in range(3):
        client.post("/api/v1/vision/recognize", data=png(50_000, 50_000), content_type="image/png")
        client.post("/api/v1/vision/recognize", data=png(7_000, 7_000, b"\x00" * 100), content_type="image/png")
        assert client.post("/api/v1/vision/recognize", data=big_exif_jpeg(), content_type="image/jpeg").status_code == 200
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mib < 300, f"peak memory grew by {grown_mib:.0f} MiB"
    assert client.post("/api/v1/vision/recognize", data=photo("net-troll"), content_type="image/jpeg").json["card_id"]


def test_teach_a_card_from_its_page_with_a_phone_photo(app, phones, enrolled):
    alice, _, _ = phones
    become_operator(alice, app)  # Alice started the server and opened its admin link
    new = next(c["id"] for c in CARDS if c["kind"] == "item" and c["id"] not in enrolled)
    page = alice.get(f"/cards/{new}").get_data(as_text=True)
    assert "Teach the scanner this card" in page
    taught = alice.post(f"/cards/{new}/enroll", {"photo": (io.BytesIO(photo(new, seed=11, size=(1600, 1200))), "p.jpg")},
                        content_type="multipart/form-data")
    assert taught.status_code == 200 and "The scanner knows this card now." in taught.get_data(as_text=True)
    shown = LEARNED.search(taught.get_data(as_text=True))  # the picture it learned, shown at once to be checked
    assert shown and shown.group(1) == new
    picture = alice.client.get(html_unescape(shown.group(0)))
    assert picture.status_code == 200 and picture.mimetype == "image/png"
    learned = cv2.imdecode(np.frombuffer(picture.data, np.uint8), cv2.IMREAD_GRAYSCALE)
    flat = cv2.resize(cv2.cvtColor(face(new), cv2.COLOR_BGR2GRAY), learned.shape[::-1]).astype(np.float64)
    alike = max(np.corrcoef(learned.ravel(), f.ravel())[0, 1] for f in (flat, flat[::-1, ::-1]))
    assert alike > 0.5, alike  # the card itself, not a piece of the table
    html = scan(alice, photo(new, seed=12, tier="medium")).get_data(as_text=True)
    assert f'data-card="{new}"' in html
    refused = alice.post(f"/cards/{new}/enroll", {"photo": (io.BytesIO(b"nope"), "p.jpg")},
                         content_type="multipart/form-data")
    assert refused.status_code == 400 and "not a JPEG, PNG or WebP" in refused.get_data(as_text=True)
    assert alice.post("/cards/no-such-card/enroll", {"photo": (io.BytesIO(b"x"), "p.jpg")},
                      content_type="multipart/form-data").status_code == 404


def test_title_reading_names_a_card_with_no_enrolled_image(client, ocr):
    """Nothing enrolled at all: the title alone names the card (accents read and folded)."""
    for card_id, title, tier in (("net-troll", "Net Troll", "easy"), ("enraged", "Wütend", "medium"),
                                 ("drooling-slime", "Sabbernder Schleim", "easy")):
        face_img = cp.face(cp.card_for(card_id, title))
        answer = client.post("/api/v1/vision/recognize", data=cp.photo(face_img, tier, seed=5, size=(1024, 768)),
                             content_type="image/jpeg").json
        assert answer["card_id"] == card_id and answer["source"] == "title", answer
        assert answer["title"] == title and answer["candidates"][0]["confidence"] >= 0.5


def test_title_reading_names_a_card_missing_from_the_enrolled_ones(client, enrolled, ocr):
    missing = next(c for c in CARDS if c["kind"] == "item" and c["id"] not in enrolled)
    answer = client.post("/api/v1/vision/recognize", data=photo(missing["id"], seed=6), content_type="image/jpeg").json
    assert answer["card_id"] == missing["id"] and answer["source"] == "title", answer
    # a card whose title is in no database still gets no name
    stranger = cp.deck(1, seed=405, prefix="stranger")[0]
    answer = client.post("/api/v1/vision/recognize", data=cp.photo(cp.face(stranger), "easy", seed=2, size=(1024, 768)),
                         content_type="image/jpeg").json
    assert answer["card_id"] is None and answer["reason"] == "no_confident_match", answer


def test_titles_are_not_read_when_no_enrolled_card_is_in_the_card_database(client, app, ocr):
    """Cards of another game (``--any-id``): a title read could only name a Munchkin card, so
    it is not read — the card database's Net Troll, photographed, is not named by its title."""
    index = scanning.index_for(app.config["DATA_DIR"])
    index.add({c.id: cv2.resize(cv2.cvtColor(cp.face(c), cv2.COLOR_BGR2GRAY), (locate.CARD_W, locate.CARD_H))
               for c in cp.deck(3, seed=406, prefix="other-game")})
    troll = cp.photo(cp.face(cp.card_for("net-troll", "Net Troll")), "easy", seed=5, size=(1024, 768))
    answer = client.post("/api/v1/vision/recognize", data=troll, content_type="image/jpeg").json
    assert answer["card_id"] is None and answer["title"] is None, answer
    index.add({"net-troll": cv2.resize(cv2.cvtColor(cp.face(cp.card_for("enraged", "Wütend")), cv2.COLOR_BGR2GRAY),
                                       (locate.CARD_W, locate.CARD_H))})  # one card of the database enrolled
    answer = client.post("/api/v1/vision/recognize", data=troll, content_type="image/jpeg").json
    assert answer["title"] == "Net Troll", answer


def test_without_title_reading_the_unenrolled_card_is_unknown(app, enrolled):
    from companion.db import connect

    missing = next(c for c in CARDS if c["kind"] == "item" and c["id"] not in enrolled)
    index = scanning.index_for(app.config["DATA_DIR"])
    answer = scanning.recognize(connect(app.config["DATABASE"]), index, photo(missing["id"], seed=6), read_titles=False)
    assert answer["card_id"] is None and answer["title"] is None


def test_an_index_from_an_earlier_version_is_named_and_rebuilt_not_a_crash(app, client, enrolled):
    """After an upgrade that changed the index format, a scan answers 503 with what the operator
    does, the CLI says the same, and `companion vision rebuild` brings the cards back."""
    from click.testing import CliRunner

    from companion.cli import main

    path = Path(app.config["DATA_DIR"]) / "vision" / "index.npz"
    with open(path, "wb") as fh:  # what an earlier version wrote: another format number
        import numpy as np

        np.savez(fh, format=np.int64(1), ids=np.array(["net-troll"]))
    answer = client.post("/api/v1/vision/recognize", data=photo("net-troll"), content_type="image/jpeg")
    assert answer.status_code == 503 and answer.json["reason"] == "index_outdated"
    assert "companion vision rebuild" in answer.json["error"]
    runner = CliRunner()
    listed = runner.invoke(main, ["vision", "list", "--data-dir", app.config["DATA_DIR"]])
    assert listed.exit_code == 1 and "companion vision rebuild" in listed.output and "Traceback" not in listed.output
    rebuilt = runner.invoke(main, ["vision", "rebuild", "--data-dir", app.config["DATA_DIR"]])
    assert rebuilt.exit_code == 0 and f"from {len(enrolled)} reference image(s)" in rebuilt.output
    answer = client.post("/api/v1/vision/recognize", data=photo("net-troll"), content_type="image/jpeg")
    assert answer.status_code == 200 and answer.json["card_id"] == "net-troll"
