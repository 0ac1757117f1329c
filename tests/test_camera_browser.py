"""The scanner's live camera view in a real browser, fed by Chromium's fake camera (#16).

Chromium plays a video file as its camera (``--use-file-for-fake-video-capture``): the test
makes that file from a generated phone photo of an enrolled card (the lattice design of
bench/card_designs.py), so the card the server names can only come from the frame the
page took from the live view. The real server runs the real recogniser. A second Chromium
has a camera the player refuses: there the scan button falls back to the file input (the
phone's camera app); over plain http on a LAN address it is the file input from the start.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest
from playwright.sync_api import expect

from liveserver import LiveServer
from test_browser import CHROMIUM, DOCS, open_table, ready

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CARDS = ["boots-of-butt-kicking", "net-troll", "enraged", "huge-rock", "gazebo", "flaming-armor", "potted-plant",
         "bullrog"]
#: What the fake camera films: 1920 × 1080, what the page asks the camera for.
FILM = (1920, 1080)
#: A host name for 127.0.0.1 that is not the server's own machine to the browser: plain http
#: there is not a secure context, as a phone on the LAN sees the server.
LAN_HOST = "lan.test"


def draw(card_id: str) -> np.ndarray:
    from bench import card_designs as cd
    from bench import card_photos as cp

    cards = {c["id"]: c for c in json.loads((DOCS.parent / "card_db" / "data" / "munchkin-base.json").read_text())["cards"]}
    return cd.face("lattice", cp.card_for(card_id, cards[card_id]["names"]["en"]))


def photo(card_id: str, seed: int, size: tuple[int, int]) -> bytes:
    from bench import card_photos as cp

    return cp.photo(draw(card_id), "medium", seed=seed, size=size, quality=92, table="wood")


def y4m(image: np.ndarray, frames: int = 2) -> bytes:
    """``image`` (BGR, even width and height) as a still YUV4MPEG2 video in I420."""
    h, w = image.shape[:2]
    planes = cv2.cvtColor(image, cv2.COLOR_BGR2YUV_I420).tobytes()
    return f"YUV4MPEG2 W{w} H{h} F30:1 Ip A1:1 C420jpeg\n".encode() + (b"FRAME\n" + planes) * frames


def chromium(playwright, *args: str):
    if not shutil.which(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: .ci/run must install Debian's chromium")
        pytest.skip("Debian's chromium is not installed")
    return playwright.chromium.launch(executable_path=CHROMIUM, args=[
        "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", *args])


@pytest.fixture(scope="module")
def playwright():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def film(tmp_path_factory) -> Path:
    """The fake camera's video: a phone photo of Boots of Butt-Kicking on a wooden table."""
    path = tmp_path_factory.mktemp("camera") / "boots.y4m"
    frame = cv2.imdecode(np.frombuffer(photo("boots-of-butt-kicking", 31, FILM), np.uint8), cv2.IMREAD_COLOR)
    path.write_bytes(y4m(frame))
    return path


@pytest.fixture(scope="module")
def camera_browser(playwright, film):
    """Chromium whose camera films ``film``; the permission prompt is answered yes."""
    browser = chromium(playwright, "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                       f"--use-file-for-fake-video-capture={film}")
    yield browser
    browser.close()


@pytest.fixture(scope="module")
def refusing_browser(playwright):
    """Chromium with a camera the player does not allow (no fake-ui flag: nobody answers the
    browser's question yes), which also reaches the server as a LAN address over plain http."""
    browser = chromium(playwright, "--use-fake-device-for-media-stream", f"--host-resolver-rules=MAP {LAN_HOST} 127.0.0.1")
    yield browser
    browser.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One server for the module, its scanner taught the cards from their faces."""
    root = tmp_path_factory.mktemp("server")
    data, scans = root / "data", root / "scans"
    data.mkdir()
    scans.mkdir()
    for card_id in CARDS:
        cv2.imwrite(str(scans / f"{card_id}.png"), draw(card_id))
    enrolled = subprocess.run([sys.executable, "-m", "companion", "vision", "enroll", str(scans), "--kind", "scan",
                               "--data-dir", str(data)], capture_output=True, text=True)
    assert enrolled.returncode == 0, enrolled.stderr
    server = LiveServer(data, workers=2).start()
    yield server
    server.stop()


def jpeg_size(body: bytes) -> tuple[int, int]:
    """Width and height of the JPEG inside a multipart upload."""
    image = cv2.imdecode(np.frombuffer(body[body.index(b"\xff\xd8\xff"):body.rindex(b"\xff\xd9") + 2], np.uint8),
                         cv2.IMREAD_COLOR)
    return image.shape[1], image.shape[0]


def test_the_live_camera_view_takes_the_photo_the_scanner_recognises(camera_browser, server):
    errors: list[str] = []
    page = open_table(camera_browser, errors, server, "Aric", "male", service_workers="block")  # (a route sees no worker's requests)
    uploads = []
    page.route("**/scan", lambda route: (uploads.append(route.request.post_data_buffer), route.continue_()))

    page.locator("label.scan-button").click()
    viewfinder = page.locator("#viewfinder")
    expect(viewfinder).to_be_visible()
    expect(page.locator("#viewfinder-take")).to_be_focused()
    expect(page.locator("#viewfinder-video")).to_have_js_property("readyState", 4)
    assert page.evaluate("[document.getElementById('viewfinder-video').videoWidth,"
                         " document.getElementById('viewfinder-video').videoHeight]") == list(FILM)
    page.evaluate("window.filming = document.getElementById('viewfinder-video').srcObject")
    page.locator("#viewfinder-take").click()

    expect(viewfinder).to_be_hidden()
    answer = page.locator("#scan-answer[data-card=boots-of-butt-kicking]")
    expect(answer).to_be_visible(timeout=20_000)
    expect(answer).to_contain_text("That is Boots of Butt-Kicking")
    expect(page.locator("#viewfinder-video")).to_have_js_property("srcObject", None)
    assert page.evaluate("window.filming.getTracks().every((t) => t.readyState === 'ended')")  # the camera is off
    assert len(uploads) == 1 and jpeg_size(uploads[0]) == (1600, 900)  # the frame, shrunk like a chosen photo
    expect(page.locator("#scan-photo")).to_be_focused()
    assert errors == []


def test_cancel_and_escape_stop_the_camera(camera_browser, server):
    errors: list[str] = []
    page = open_table(camera_browser, errors, server, "Suzan", "female")
    for close in (lambda: page.locator("#viewfinder-cancel").click(), lambda: page.keyboard.press("Escape")):
        page.locator("label.scan-button").click()
        expect(page.locator("#viewfinder")).to_be_visible()
        expect(page.locator("#viewfinder-video")).to_have_js_property("readyState", 4)
        page.evaluate("window.filming = document.getElementById('viewfinder-video').srcObject")
        close()
        expect(page.locator("#viewfinder")).to_be_hidden()
        # the dialog's close event (a task after it is hidden) stops the camera, then lets go of it
        expect(page.locator("#viewfinder-video")).to_have_js_property("srcObject", None)
        assert page.evaluate("window.filming.getTracks().every((t) => t.readyState === 'ended')")
        expect(page.locator("#scan-photo")).to_be_focused()
    expect(page.locator("#scan-answer")).to_have_count(0)  # nothing was sent
    assert errors == []


def test_a_refused_camera_hands_over_to_the_file_input(refusing_browser, server, tmp_path):
    """On the server's machine (a secure context) the player has said no to the camera (the
    browser's setting for the site): the browser refuses (NotAllowedError), the page says so
    and the same tap opens the file input; the next tap opens the file input at once."""
    errors: list[str] = []
    page = open_table(refusing_browser, errors, server, "Aric", "male")
    cdp = page.context.new_cdp_session(page)
    cdp.send("Browser.setPermission", {"permission": {"name": "camera"}, "setting": "denied", "origin": server.url,
                                       "browserContextId": cdp.send("Target.getTargetInfo")["targetInfo"]["browserContextId"]})
    assert page.evaluate("window.isSecureContext && navigator.mediaDevices.enumerateDevices()"
                         ".then((all) => all.some((d) => d.kind === 'videoinput'))")  # there is a camera
    boots = tmp_path / "boots.jpg"
    boots.write_bytes(photo("boots-of-butt-kicking", 32, (4000, 3000)))

    with page.expect_file_chooser() as chooser:
        page.locator("label.scan-button").click()
    expect(page.locator("#scan-status")).to_have_text(
        "The camera view did not open: take the photo with the camera app instead.")
    expect(page.locator("#viewfinder")).to_be_hidden()
    chooser.value.set_files(str(boots))
    expect(page.locator("#scan-answer[data-card=boots-of-butt-kicking]")).to_be_visible(timeout=20_000)

    net_troll = tmp_path / "net-troll.jpg"
    net_troll.write_bytes(photo("net-troll", 33, (4000, 3000)))
    with page.expect_file_chooser() as chooser:
        page.locator("label.scan-button").click()
    expect(page.locator("#viewfinder")).to_be_hidden()
    chooser.value.set_files(str(net_troll))
    expect(page.locator("#scan-answer[data-card=net-troll]")).to_be_visible(timeout=20_000)
    assert errors == []


def test_plain_http_on_the_lan_keeps_the_camera_app(refusing_browser, server, tmp_path):
    """Over plain http from another machine the browser offers no camera: the scan button is
    the file input, as it always was, with no message."""
    errors: list[str] = []
    lan = SimpleNamespace(url=server.url.replace("127.0.0.1", LAN_HOST))
    page = open_table(refusing_browser, errors, lan, "Aric", "male")
    assert page.evaluate("!window.isSecureContext && !navigator.mediaDevices")
    net_troll = tmp_path / "net-troll.jpg"
    net_troll.write_bytes(photo("net-troll", 33, (4000, 3000)))
    with page.expect_file_chooser() as chooser:
        page.locator("label.scan-button").click()
    chooser.value.set_files(str(net_troll))
    expect(page.locator("#scan-answer[data-card=net-troll]")).to_be_visible(timeout=20_000)
    expect(page.locator("#scan-status")).to_have_text("")
    assert errors == []


def test_axe_finds_nothing_serious_in_the_viewfinder(camera_browser, server):
    """The open viewfinder, in English and German, light and dark (tests/test_accessibility.py)."""
    from test_accessibility import Audit
    from test_accessibility import phone as axe_phone

    errors: list[str] = []
    found = {}
    for lang in ("en", "de"):
        audit = Audit(lang)
        page = axe_phone(camera_browser, lang, errors)
        page.goto(server.url + "/")
        page.fill("input[name=player_name]", "Alice")
        page.check("input[name=sex][value=female]")
        page.click("button.primary")
        ready(page)
        page.locator("label.scan-button").click()
        expect(page.locator("#viewfinder")).to_be_visible()
        audit.check(page, "table page, the camera's viewfinder open", menus=False)
        expect(page.locator("#viewfinder")).to_be_visible()
        found.update(audit.found)
        page.context.close()
    assert found == {}, json.dumps(found, indent=1, ensure_ascii=False)
    assert errors == []
