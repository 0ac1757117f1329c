"""The server's operator: the one person who may change what every table sees.

Importing cards and teaching the scanner change the card database and the scanner's
pictures for every table, so they belong to whoever started the server. On the command
line that is whoever can run ``companion cards import`` or ``companion vision enroll`` on the
data directory. In a browser it is whoever opens the admin link ``companion serve`` prints,
``/admin/<secret>`` (like Jupyter's token URL): the secret is made on first use and kept in
the data directory (:func:`companion.datadir.admin_secret`). The link marks the browser as
the operator's in its signed, HttpOnly session cookie; a wrong secret is a plain 404.

Views that only the operator may use are marked with :func:`operator_only`; ``web.security``
refuses them to everybody else before anything else happens (the body is not even read),
for pages and API alike. Pages ask :func:`is_operator` to show their forms to the operator only.
"""
from __future__ import annotations

import hashlib
import hmac
from pathlib import Path

from flask import Blueprint, Flask, abort, current_app, redirect, render_template, session, url_for
from flask_babel import gettext

from card_db import store as card_store

from .. import datadir
from ..db import get_db
from .render import is_htmx
from .security import error_response

bp = Blueprint("operator", __name__)

SESSION_KEY = "operator"


@bp.record_once
def load_secret(state) -> None:
    """Read (or make) the admin secret once, when the app is built."""
    app = state.app
    app.extensions["companion.admin_secret"] = datadir.admin_secret(Path(app.config["DATA_DIR"]))


def admin_url(app: Flask, base_url: str) -> str:
    """The operator's link, ``{base_url}/admin/<secret>``, for ``companion serve`` to print."""
    return f"{base_url.rstrip('/')}/admin/{app.extensions['companion.admin_secret']}"


def badge(secret: str) -> str:
    """What the operator's cookie holds: derived from the secret, never the secret itself,
    so a new secret (delete the file, restart) shuts out every browser that had the old one."""
    return hmac.new(secret.encode(), b"table-referee operator", hashlib.sha256).hexdigest()


@bp.app_template_global()
def is_operator() -> bool:
    """Whether this browser opened the admin link of this server's current secret."""
    held = session.get(SESSION_KEY)
    return isinstance(held, str) and hmac.compare_digest(held, badge(current_app.extensions["companion.admin_secret"]))


def operator_only(view):
    """Mark a view as the operator's alone; ``web.security`` enforces the mark."""
    view.operator_only = True
    return view


def refusal():
    """The 403 for anybody else: a page saying who may do this and how to become the operator; to
    htmx the toast every other error is (the whole page was swapped in where the form was)."""
    if is_htmx():
        return error_response(gettext("Importing cards and teaching the scanner change what every table sees, so only "
                                      "the operator of this server may do them: the person who started it."), 403)
    return render_template("operator_only.html"), 403


@bp.get("/admin/<secret>")
def enter(secret: str):
    """Open the admin link: this browser becomes the operator's; the secret leaves the address bar."""
    if not hmac.compare_digest(secret.encode(), current_app.extensions["companion.admin_secret"].encode()):
        abort(404)
    session[SESSION_KEY] = badge(current_app.extensions["companion.admin_secret"])
    session.permanent = True
    return redirect(url_for("operator.admin"), 303)


@bp.get("/admin")
@operator_only
def admin():
    """What the operator can do here, and where the data lives."""
    config = current_app.config
    return render_template("admin.html", data_dir=config["DATA_DIR"], database=config["DATABASE"],
                           count=card_store.count(get_db()))


@bp.post("/admin/leave")
@operator_only
def leave():
    """Stop being the operator in this browser (before handing the phone to a player)."""
    session.pop(SESSION_KEY, None)
    return redirect(url_for("pages.home"), 303)
