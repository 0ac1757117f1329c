"""Table Referee: a phone companion and referee for Munchkin at a real table.

:func:`create_app` is the Flask application factory (flaskr style): configuration comes
from ``test_config`` or the environment, the database is migrated on start, and nothing
is loaded at import time.
"""
from __future__ import annotations

from datetime import timedelta
from importlib import resources

from flask import Flask
from flask_wtf.csrf import CSRFProtect

from . import datadir, db
from .live import ChangeFeed

csrf = CSRFProtect()


def create_app(test_config: dict | None = None) -> Flask:
    """Build the app. ``test_config`` overrides any setting (``DATA_DIR`` among them)."""
    app = Flask(
        __name__,
        template_folder=str(resources.files("companion.templates")),
        static_folder=str(resources.files("companion.static")),
    )
    config = dict(test_config or {})
    data_dir = datadir.resolve(config.pop("DATA_DIR", None))
    app.config.from_mapping(
        DATA_DIR=str(data_dir),
        DATABASE=str(data_dir / "companion.sqlite3"),
        SECRET_KEY=datadir.secret_key(data_dir),
        PUBLIC_URL=None,  # the base URL phones reach (set by `companion serve`); else the request's
        MAX_CONTENT_LENGTH=64 * 1024,
        SESSION_COOKIE_NAME="companion_seat",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        PERMANENT_SESSION_LIFETIME=timedelta(days=60),
        WTF_CSRF_TIME_LIMIT=None,  # a phone may sit on the table page all evening
        WTF_CSRF_CHECK_DEFAULT=False,  # checked in web.security for form posts to real routes only
        LIVE_POLL_INTERVAL=0.05,
        STREAM_MAX_SECONDS=300,  # streams end and reconnect so dead connections free their threads
        STREAM_KEEPALIVE_SECONDS=15,
    )
    app.config.from_prefixed_env("COMPANION")
    app.config.update(config)

    conn = db.connect(app.config["DATABASE"])
    try:
        db.migrate(conn)
    finally:
        conn.conn.close()
    app.teardown_appcontext(db.close_db)
    app.extensions["companion.live"] = ChangeFeed(app.config["DATABASE"], app.config["LIVE_POLL_INTERVAL"])

    csrf.init_app(app)
    from . import i18n
    from .web import register

    i18n.init_app(app)
    register(app)
    return app
