"""The phone app, in Debian's Chromium: installable, works on when the server is gone, keeps
the screen on at the table, dark in a dark room.

The server is reached at 127.0.0.1, which browsers count as a secure context: service workers
and the wake lock need one (a LAN address needs HTTPS, see docs/deploy.md).
"""
from __future__ import annotations

import os

import cv2
import numpy as np
import pytest
from playwright.sync_api import expect

from liveserver import LiveServer
from test_browser import DOCS, PHONE, browser, own_server, ready, server  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: Records every wake lock request a page makes (and how it ended), before any script of the page runs.
WAKE_LOCK_SPY = """
window.__wakeLock = {calls: [], settled: 0};
if (navigator.wakeLock) {
  const request = navigator.wakeLock.request.bind(navigator.wakeLock);
  navigator.wakeLock.request = function (type) {
    window.__wakeLock.calls.push(type);
    const asked = request(type);
    asked.then(() => window.__wakeLock.settled++, () => window.__wakeLock.settled++);
    return asked;
  };
}
"""

#: The luminance (0 dark … 1 light, WCAG) of the page's background.
BODY_LUMINANCE = """() => {
  const [r, g, b] = getComputedStyle(document.body).backgroundColor.match(/[\\d.]+/g).map(Number);
  const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}"""

#: Every visible piece of text whose contrast with what is behind it is under WCAG AA
#: (4.5:1, or 3:1 for large text), as "text: ratio".
LOW_CONTRAST = """() => {
  const rgba = (s) => s.match(/[\\d.]+/g).map(Number);
  const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const lum = ([r, g, b]) => 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  const behind = (el) => {
    for (; el; el = el.parentElement) {
      const c = rgba(getComputedStyle(el).backgroundColor);
      if (c.length < 4 || c[3] > 0.5) return c;
    }
    return [255, 255, 255];
  };
  const low = [];
  for (const el of document.querySelectorAll("body *")) {
    const text = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join("").trim();
    const style = getComputedStyle(el);
    if (!text || !el.getClientRects().length || style.visibility === "hidden" || el.closest("[hidden], .visually-hidden")) continue;
    const [a, b] = [lum(rgba(style.color)), lum(behind(el))];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const size = parseFloat(style.fontSize), bold = parseInt(style.fontWeight, 10) >= 700;
    const large = size >= 24 || (bold && size >= 18.66);
    if (ratio < (large ? 3 : 4.5)) low.push(`${text.slice(0, 40)}: ${ratio.toFixed(2)}`);
  }
  return low;
}"""


def phone(browser, errors, **context):
    """A phone-sized page (``context``: e.g. ``color_scheme="dark"``) that reports script errors."""
    page = browser.new_context(**PHONE, locale="en-GB", **context).new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    return page


def start_table(page, server, name: str = "Alice") -> str:
    """Open a table as its host on ``page``; the table's URL."""
    page.goto(server.url + "/")
    page.fill("input[name=player_name]", name)
    page.check("input[name=sex][value=female]")
    page.click("button.primary")
    ready(page)
    return page.url


def luminance(page) -> float:
    return page.evaluate(BODY_LUMINANCE)


def test_the_manifest_is_linked_valid_and_makes_the_page_installable(browser, server):
    errors: list[str] = []
    page = phone(browser, errors)
    page.goto(server.url + "/")
    href = page.eval_on_selector("link[rel=manifest]", "link => link.href")
    answer = page.request.get(href)
    assert answer.status == 200 and answer.headers["content-type"].startswith("application/manifest+json")
    manifest = answer.json()
    assert manifest["name"] == "Table Referee" and manifest["display"] == "standalone"
    assert manifest["start_url"] == "/" and manifest["scope"] == "/"
    sizes = {}
    for icon in manifest["icons"]:
        image = page.request.get(server.url + icon["src"])
        assert image.status == 200 and image.headers["content-type"] == "image/png", icon
        decoded = cv2.imdecode(np.frombuffer(image.body(), np.uint8), cv2.IMREAD_UNCHANGED)
        assert f"{decoded.shape[1]}x{decoded.shape[0]}" == icon["sizes"], icon
        sizes.setdefault(icon["purpose"], set()).add(icon["sizes"])
    assert sizes == {"any": {"192x192", "512x512"}, "maskable": {"512x512"}}
    touch = page.eval_on_selector("link[rel=apple-touch-icon]", "link => link.href")
    assert page.request.get(touch).headers["content-type"] == "image/png"
    assert page.locator("meta[name=theme-color]").count() == 2  # light and dark

    # Chromium's own verdict, once the worker runs: nothing keeps the page from being installed
    # (but the test's private window, which a phone's browser is not).
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    cdp = page.context.new_cdp_session(page)
    assert cdp.send("Page.getAppManifest")["errors"] == []
    problems = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert [p["errorId"] for p in problems if p["errorId"] != "in-incognito"] == []
    assert errors == []


def test_the_worker_controls_the_pages_and_shows_the_offline_page_when_the_server_is_gone(browser, own_server):
    server = own_server  # (it is stopped and started again: not the file's shared server)
    errors: list[str] = []
    page = phone(browser, errors)
    table = start_table(page, server)
    assert page.evaluate("navigator.serviceWorker.ready.then(r => r.active.scriptURL)") == server.url + "/sw.js"
    page.reload()
    ready(page)
    assert page.evaluate("navigator.serviceWorker.controller !== null")
    kept = page.evaluate("""async () => {
        const names = await caches.keys();
        const urls = [];
        for (const name of names) for (const r of await (await caches.open(name)).keys()) urls.push(new URL(r.url).pathname);
        return {names, urls};
    }""")
    assert len(kept["names"]) == 1 and kept["names"][0].startswith("table-referee-")
    for url in ("/offline", "/static/app.css", "/static/pwa.js", "/static/vendor/htmx-2.0.11.min.js",
                "/static/icon-512.png"):
        assert url in kept["urls"]
    assert not [u for u in kept["urls"] if not (u.startswith("/static/") or u == "/offline")]  # no page, API, stream
    assert errors == []

    server.kill()  # the laptop went to sleep: the worker answers with the offline page
    page.goto(server.url + "/rules")
    expect(page.locator("#offline")).to_be_visible()
    page.goto(table)
    expect(page.locator("#offline h1")).to_have_text("No connection")
    assert page.url == table
    assert luminance(page) > 0.8  # styled: the stylesheet came from the worker's cache

    again = LiveServer(server.data_dir, workers=1, port=server.port).start()  # the laptop wakes up
    try:
        page.wait_for_selector("#my-level", timeout=15_000)  # the offline page tried again by itself
        assert page.url == table
    finally:
        again.stop()


def test_the_offline_page_speaks_the_phones_language_after_a_switch(browser, server):
    errors: list[str] = []
    page = phone(browser, errors)
    page.goto(server.url + "/")
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.click("footer button[value=de]")
    page.wait_for_selector("html[lang=de]")
    offline = """async () => {
        for (const name of await caches.keys()) {
            const page = await (await caches.open(name)).match('/offline');
            if (page) return page.headers.get('X-Offline-Page');
        }
    }"""
    page.wait_for_function(f"() => ({offline})().then(key => key === 'de/auto')")
    assert errors == []


def test_a_table_keeps_the_screen_on(browser, server):
    errors: list[str] = []
    page = phone(browser, errors)
    page.context.add_init_script(WAKE_LOCK_SPY)
    page.goto(server.url + "/")
    assert page.evaluate("'wakeLock' in navigator")
    page.wait_for_load_state("load")
    assert page.evaluate("window.__wakeLock.calls") == []  # no table open: the screen may sleep

    start_table(page, server)
    page.wait_for_function("() => window.__wakeLock.settled >= 1")
    assert page.evaluate("window.__wakeLock.calls") == ["screen"]
    # The phone locks its screen and unlocks it again: the browser dropped the lock, it is asked again.
    page.evaluate("""() => {
        const show = (state) => {
            Object.defineProperty(document, 'visibilityState', {value: state, configurable: true});
            document.dispatchEvent(new Event('visibilitychange'));
        };
        show('hidden');
        show('visible');
    }""")
    page.wait_for_function("() => window.__wakeLock.calls.length >= 2")
    assert page.evaluate("window.__wakeLock.calls") == ["screen", "screen"]
    assert errors == []


def test_dark_when_the_phone_is_dark_and_the_switch_per_phone(browser, server):
    errors: list[str] = []
    page = phone(browser, errors, color_scheme="dark")
    table = start_table(page, server)
    assert luminance(page) < 0.05
    assert page.evaluate("getComputedStyle(document.documentElement).colorScheme") == "dark"

    # Readable in the dark: a refusal, a fight with both totals, every button.
    page.click("#me button[data-action='level.down']")  # Level 1 is the lowest
    page.locator(".notice.refused").wait_for()
    page.locator("#turn button[data-action='turn.door']").first.click()
    page.fill("#add-to-sheet input[name=q]", "maul rat")
    page.locator("#pick-results button[aria-label$='Add Maul Rat to the fight']").click()
    page.locator("#monsters-total").wait_for()
    assert page.evaluate(LOW_CONTRAST) == []
    for button in page.locator("footer form.themes button").all():  # big enough for a thumb
        box = button.bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44, button.inner_text()
    if os.environ.get("UPDATE_SCREENSHOTS"):  # the README's pair: the same screen at night and by day
        page.evaluate("document.getElementById('live').scrollIntoView()")  # the board (the invitation is above it)
        page.screenshot(path=str(DOCS / "screenshot-dark.png"), full_page=False)
        page.emulate_media(color_scheme="light")
        assert luminance(page) > 0.8
        page.screenshot(path=str(DOCS / "screenshot-light.png"), full_page=False)
        page.emulate_media(color_scheme="dark")
    for url in (table + "/history", server.url + "/rules?q=sell+items", server.url + "/cards/enraged",
                server.url + "/offline"):
        page.goto(url)
        assert page.evaluate(LOW_CONTRAST) == [], url
    page.goto(table)

    page.click("footer button[name=theme][value=light]")  # this phone wants light after all
    page.wait_for_selector("html[data-theme=light]")
    assert luminance(page) > 0.8
    page.reload()
    assert luminance(page) > 0.8  # remembered
    assert page.locator("footer button[name=theme][value=light]").get_attribute("aria-current") == "true"
    page.click("footer button[name=theme][value=auto]")
    page.wait_for_selector("html:not([data-theme])")
    assert luminance(page) < 0.05  # follows the phone again

    light = phone(browser, errors)  # a light phone that chose dark
    light.goto(server.url + "/rules")
    assert luminance(light) > 0.8
    light.click("footer button[name=theme][value=dark]")
    light.wait_for_selector("html[data-theme=dark]")
    assert luminance(light) < 0.05
    assert light.locator("meta[name=theme-color]").get_attribute("content") == "#24160c"
    assert [e for e in errors if "status of 422" not in e] == []  # the refused level down is a 422 by design


def test_behind_a_proxy_a_bad_gateway_shows_the_offline_page_and_it_comes_back(browser, own_server):
    """docs/deploy.md puts nginx in front: with the app gone, nginx answers 502 itself, which is
    no failed fetch — the phone showed nginx's bare "502 Bad Gateway" and stayed there after
    the app came back (2026-11-30). Now the worker shows the offline page for 502/503/504, and
    that page loads the table again once the answer is no gateway error."""
    server = own_server  # (it is stopped and started again: not the file's shared server)
    import http.server
    import threading
    import time

    errors: list[str] = []
    page = phone(browser, errors)
    table = start_table(page, server)
    page.evaluate("navigator.serviceWorker.ready")
    page.reload()
    ready(page)
    assert page.evaluate("navigator.serviceWorker.controller !== null")
    server.kill()

    class BadGateway(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(502)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<h1>502 Bad Gateway</h1><hr>nginx")

        do_HEAD = do_GET

        def log_message(self, *args):
            pass

    deadline = time.monotonic() + 15
    while True:  # the killed server's processes may hold the port a moment longer
        try:
            proxy = http.server.ThreadingHTTPServer(("127.0.0.1", server.port), BadGateway)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    try:
        page.goto(table)
        expect(page.locator("#offline h1")).to_have_text("No connection")
        page.wait_for_timeout(6000)  # a retry has seen the 502: still the offline page, no reload loop
        expect(page.locator("#offline h1")).to_have_text("No connection")
    finally:
        proxy.shutdown()
        proxy.server_close()
    again = LiveServer(server.data_dir, workers=1, port=server.port).start()  # the app is back behind the proxy
    try:
        page.wait_for_selector("#my-level", timeout=15_000)
        assert page.url == table
    finally:
        again.stop()
