"""The phone app around the pages: installable, usable when the server is gone, light or dark.

- ``/manifest.webmanifest`` makes the site installable on the home screen (name, icons,
  standalone window, theme colours).
- ``/sw.js`` is the service worker (``static/sw.js``). It is served from the root so that it
  may control every page, and it is given, in front of its code, the shell it keeps (the
  static files and the offline page) and a version derived from their contents: any change
  to a static file or to the offline page's templates makes a new worker that drops the old
  cache, with nothing to bump by hand.
- ``/offline`` is what a navigation shows when the server cannot be reached.
- ``POST /theme`` remembers this phone's colours (light, dark, or following the phone) in a
  cookie, so the page is rendered with them and never flashes the other scheme first.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from flask import Blueprint, Response, current_app, render_template, request, url_for
from flask_babel import gettext

from .. import i18n
from ..referee.rules import Refused
from .pages import back

bp = Blueprint("pwa", __name__)

THEME_COOKIE = "companion_theme"
THEMES = ("light", "dark")  # no cookie: follow the phone (prefers-color-scheme)
#: The browser's bar colour per scheme: the top bar's brown (static/app.css), darker at night.
THEME_COLORS = {"light": "#3b2314", "dark": "#24160c"}
#: The page's own colour per scheme (--paper in static/app.css): the splash screen while the app starts.
BACKGROUNDS = {"light": "#fbf4e4", "dark": "#15100c"}
SHELL_SUFFIXES = (".css", ".js", ".svg", ".png")
#: Templates the offline page is made of: a change to them is a change to the shell.
OFFLINE_TEMPLATES = ("offline.html", "base.html")


def theme() -> str | None:
    """The colours this phone chose (``"light"`` or ``"dark"``), or None to follow the phone."""
    chosen = request.cookies.get(THEME_COOKIE)
    return chosen if chosen in THEMES else None


@bp.app_context_processor
def helpers():
    return {"theme": theme(), "THEME_COLORS": THEME_COLORS, "offline_key": offline_key()}


def _icon(name: str, size: int, purpose: str) -> dict:
    return {"src": url_for("static", filename=name), "sizes": f"{size}x{size}", "type": "image/png", "purpose": purpose}


@bp.get("/manifest.webmanifest")
def manifest():
    """The manifest in this phone's colours: a manifest cannot follow the phone's scheme by itself,
    so the colours chosen on the page (the cookie), else the scheme the browser says it shows
    (the Sec-CH-Prefers-Color-Scheme hint, where it is sent), else light — a dark phone's splash
    screen was always light."""
    home = url_for("pages.home")
    hint = request.headers.get("Sec-CH-Prefers-Color-Scheme", "").strip('"')
    scheme = theme() or (hint if hint in THEMES else "light")
    body = {
        "name": gettext("Table Referee"),
        "short_name": gettext("Referee"),
        "lang": i18n.language(),
        "id": home,
        "start_url": home,
        "scope": home,
        "display": "standalone",
        "theme_color": THEME_COLORS[scheme],
        "background_color": BACKGROUNDS[scheme],
        "icons": [_icon("icon-192.png", 192, "any"), _icon("icon-512.png", 512, "any"),
                  _icon("icon-maskable-512.png", 512, "maskable")],
    }
    response = Response(json.dumps(body, ensure_ascii=False), mimetype="application/manifest+json")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Vary"] = "Cookie, Accept-Language, Sec-CH-Prefers-Color-Scheme"
    return response


def _shell() -> tuple[list[str], str]:
    """The URLs the worker keeps and their version (a hash of their files), once per process."""
    found = current_app.extensions.get("companion.shell")
    if found is None:
        static = Path(current_app.static_folder)
        files = sorted(p for p in static.rglob("*") if p.suffix in SHELL_SUFFIXES and p.name != "sw.js")
        digest = hashlib.sha256()
        for path in files:
            digest.update(path.relative_to(static).as_posix().encode() + b"\0" + path.read_bytes())
        for name in OFFLINE_TEMPLATES:
            digest.update(current_app.jinja_env.loader.get_source(current_app.jinja_env, name)[0].encode())
        urls = [url_for("static", filename=p.relative_to(static).as_posix()) for p in files]
        found = current_app.extensions["companion.shell"] = (urls + [url_for("pwa.offline")], digest.hexdigest()[:16])
    return found


@bp.get("/sw.js")
def worker():
    shell, version = _shell()
    code = Path(current_app.static_folder, "sw.js").read_text(encoding="utf-8")
    head = (f"const VERSION = {json.dumps(version)};\nconst SHELL = {json.dumps(shell)};\n"
            f"const OFFLINE = {json.dumps(url_for('pwa.offline'))};\n")
    response = Response(head + code, mimetype="text/javascript")
    response.headers["Cache-Control"] = "no-cache"  # a phone checks for a new worker on every visit
    response.add_etag()
    return response.make_conditional(request)


@bp.get("/offline")
def offline():
    """The page a navigation shows when the server cannot be reached (kept by the worker).

    ``X-Offline-Page`` says which language and colours it was made with: a phone that changes
    either gets its kept copy replaced (``static/pwa.js`` tells the worker)."""
    response = Response(render_template("offline.html"), mimetype="text/html")
    response.headers["X-Offline-Page"] = offline_key()
    return response


def offline_key() -> str:
    """The language and colours a page is rendered with, e.g. ``de/dark`` or ``en/auto``."""
    return f"{i18n.language()}/{theme() or 'auto'}"


@bp.post("/theme")
def set_theme():
    """Remember this phone's colours (a cookie; "auto" forgets them) and go back where it was."""
    chosen = request.form.get("theme")
    if chosen not in (*THEMES, "auto"):
        raise Refused("Unknown colour scheme.", status=400)
    response = back()
    if chosen == "auto":
        response.delete_cookie(THEME_COOKIE, samesite="Lax", httponly=True)
    else:
        response.set_cookie(THEME_COOKIE, chosen, max_age=i18n.COOKIE_MAX_AGE, samesite="Lax", httponly=True)
    return response
