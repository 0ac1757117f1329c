"""The phone app's routes over HTTP: manifest, service worker, offline page, colour switch.

What a browser makes of them (installable, controlled, offline, dark) is in test_phone_app.py.
"""
import json
import re
import shutil
from pathlib import Path

from companion import create_app
from companion.web import pwa
from conftest import Phone

STATIC = Path(__file__).resolve().parent.parent / "static"


def test_manifest(client):
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response.mimetype == "application/manifest+json"
    manifest = json.loads(response.get_data(as_text=True))
    assert manifest["name"] == "Table Referee" and manifest["short_name"]
    assert (manifest["start_url"], manifest["scope"], manifest["display"]) == ("/", "/", "standalone")
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["theme_color"]) and re.fullmatch(r"#[0-9a-f]{6}", manifest["background_color"])
    for icon in manifest["icons"]:
        assert client.get(icon["src"]).mimetype == "image/png"
    assert {(i["sizes"], i["purpose"]) for i in manifest["icons"]} == {
        ("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")}
    german = client.get("/manifest.webmanifest", headers={"Accept-Language": "de"})
    assert json.loads(german.get_data(as_text=True))["name"] == "Tisch-Schiedsrichter"
    assert "Accept-Language" in german.headers["Vary"]


def test_the_manifest_takes_the_phones_colours(client):
    """The splash screen and the window's bar of the installed app in the scheme the phone shows:
    the colours chosen on the page, else the browser's hint, else light (a dark phone's splash was
    always the light page's)."""
    def colours(**headers):
        body = json.loads(client.get("/manifest.webmanifest", headers=headers).get_data(as_text=True))
        return body["theme_color"], body["background_color"]

    light = colours()
    assert light == (pwa.THEME_COLORS["light"], "#fbf4e4")
    assert colours(**{"Sec-CH-Prefers-Color-Scheme": '"dark"'}) == (pwa.THEME_COLORS["dark"], "#15100c")
    client.set_cookie(pwa.THEME_COOKIE, "dark")
    assert colours() == (pwa.THEME_COLORS["dark"], "#15100c")
    client.set_cookie(pwa.THEME_COOKIE, "light")
    assert colours(**{"Sec-CH-Prefers-Color-Scheme": '"dark"'}) == light  # chosen beats the hint
    assert "Cookie" in client.get("/manifest.webmanifest").headers["Vary"]


def test_every_page_links_the_manifest_icons_and_the_worker(client):
    html = client.get("/").get_data(as_text=True)
    assert '<link rel="manifest" href="/manifest.webmanifest"' in html
    assert '<link rel="apple-touch-icon" href="/static/apple-touch-icon.png">' in html
    assert 'src="/static/pwa.js" data-worker="/sw.js" data-scope="/"' in html
    assert html.count('name="theme-color"') == 2 and 'media="(prefers-color-scheme: dark)"' in html


def test_worker_is_served_from_the_root_never_stale_and_keeps_the_whole_shell(client):
    response = client.get("/sw.js")
    assert response.status_code == 200 and response.mimetype == "text/javascript"
    assert response.headers["Cache-Control"] == "no-cache"
    assert client.get("/sw.js", headers={"If-None-Match": response.headers["ETag"]}).status_code == 304
    code = response.get_data(as_text=True)
    shell = json.loads(re.search(r"^const SHELL = (.*);$", code, re.M).group(1))
    wanted = {"/static/" + p.relative_to(STATIC).as_posix() for p in STATIC.rglob("*")
              if p.suffix in (".css", ".js", ".svg", ".png") and p.name != "sw.js"}
    assert set(shell) == wanted | {"/offline"}
    assert {"/static/app.css", "/static/pwa.js", "/static/vendor/htmx-2.0.11.min.js"} <= set(shell)
    assert STATIC.joinpath("sw.js").read_text() in code  # the worker itself, unchanged after the constants


def test_a_changed_static_file_makes_a_new_worker_version(tmp_path):
    """Nothing to bump by hand: the worker's version is a hash of the files it keeps."""
    def version(static: Path) -> str:
        app = create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True})
        app.static_folder = str(static)
        try:
            return re.search(r'^const VERSION = "(\w+)";$', app.test_client().get("/sw.js").get_data(as_text=True), re.M).group(1)
        finally:
            app.extensions["companion.live"].stop()

    copy = tmp_path / "static"
    shutil.copytree(STATIC, copy)
    before = version(copy)
    assert version(copy) == before
    with open(copy / "app.css", "a") as css:
        css.write("\n.new { color: red; }\n")
    assert version(copy) != before


def test_offline_page_says_its_language_and_colours(app):
    phone = Phone(app)
    response = phone.get("/offline")
    assert response.status_code == 200 and 'id="offline"' in response.get_data(as_text=True)
    assert response.headers["X-Offline-Page"] == "en/auto"
    phone.post("/lang", {"lang": "de"})
    phone.post("/theme", {"theme": "dark"})
    assert phone.get("/offline").headers["X-Offline-Page"] == "de/dark"
    assert 'data-offline-page="de/dark"' in phone.get("/").get_data(as_text=True)


def test_theme_switch_is_remembered_per_phone_and_rendered_on_html(app):
    phone = Phone(app)
    assert "data-theme" not in phone.get("/rules").get_data(as_text=True)
    response = phone.post("/theme", {"theme": "dark", "next": "/rules?q=door"})
    assert response.status_code == 303 and response.headers["Location"] == "/rules?q=door"
    cookie = phone.client.get_cookie("companion_theme")
    assert cookie.value == "dark" and cookie.http_only and cookie.same_site == "Lax"
    html = phone.get("/rules").get_data(as_text=True)
    assert '<html lang="en" data-theme="dark">' in html
    assert '<meta name="theme-color" content="#24160c">' in html and html.count('name="theme-color"') == 1
    assert 'value="dark" class="link current" aria-current="true"' in html

    assert Phone(app).get("/rules").get_data(as_text=True).count("data-theme=") == 0  # another phone: its own
    phone.post("/theme", {"theme": "auto"})
    assert phone.client.get_cookie("companion_theme") is None
    assert 'value="auto" class="link current"' in phone.get("/").get_data(as_text=True)


def test_theme_switch_refuses_nonsense(app):
    phone = Phone(app)
    assert phone.post("/theme", {"theme": "purple"}).status_code == 400
    assert phone.post("/theme", {"theme": "light", "next": "//evil.example/"}).headers["Location"] == "/"
    phone.csrf = "forged"
    assert phone.post("/theme", {"theme": "light"}).status_code == 400
