"""Table Referee: a phone companion and referee for Munchkin at a real table.

:func:`create_app` is the Flask application factory (flaskr style): configuration comes
from ``test_config`` or the environment, the database is migrated on start, and nothing
is loaded at import time.
"""
from __future__ import annotations

import time
from datetime import timedelta
from importlib import resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flask import Flask


def create_app(test_config: dict | None = None) -> Flask:
    """Build the app. ``test_config`` overrides any setting (``DATA_DIR`` among them).

    Flask and the app's modules are imported here, not when the package is: the CLI's
    commands that need no server (``companion vision``, ``companion cards``) start ~0.2 s
    sooner without them."""
    from flask import Flask
    from werkzeug.middleware.proxy_fix import ProxyFix

    from . import datadir, db, i18n, postgres, store
    from .live import ChangeFeed
    from .web import register
    from .web.security import csrf

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
        DATABASE_URL=None,  # postgresql://…: the tables live there, shared by several instances (docs/deploy.md)
        DATABASE_POOL_SIZE=10,  # PostgreSQL connections per worker process
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
        MAX_OPEN_STREAMS=4500,  # live streams per process (`companion serve` sets it from --connections)
        MAX_STREAMS_PER_TABLE=100,  # a table's phones, and as many for its spectators; more is a script, not a table
        STREAM_RETRY_AFTER=5,  # seconds a refused stream is told to wait
        TRUSTED_PROXIES=0,  # reverse proxies in front whose X-Forwarded-* headers are believed (docs/deploy.md)
        TABLE_IDLE_DAYS=60,  # a table nobody changed for this long is deleted (0: never) ...
        TABLE_IDLE_SWEEP_SECONDS=6 * 3600,  # ... at start, and when a table is opened this long after the last sweep
    )
    app.config.from_prefixed_env("COMPANION")
    app.config.update(config)
    if str(app.config.get("PUBLIC_URL") or "").startswith("https://"):
        app.config["SESSION_COOKIE_SECURE"] = True  # served over HTTPS: the seat cookie never travels in clear
    if app.config["TRUSTED_PROXIES"]:
        hops = int(app.config["TRUSTED_PROXIES"])
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops, x_prefix=hops)

    conn = db.connect(app.config["DATABASE"])
    try:
        db.migrate(conn)
    finally:
        conn.conn.close()
    url = app.config["DATABASE_URL"]
    if url and not postgres.is_url(url):
        raise ValueError(f"DATABASE_URL must be a postgresql:// URL, not {url!r}")
    tables = db.connect_store(db.store_target(app.config))
    try:
        if url:
            postgres.migrate(tables)
        if app.config["TABLE_IDLE_DAYS"]:
            store.expire_idle(tables, float(app.config["TABLE_IDLE_DAYS"]))
            app.extensions["companion.swept_at"] = time.monotonic()
    finally:
        tables.conn.close()
    if url:
        app.extensions["companion.pg_pool"] = postgres.Pool(url, int(app.config["DATABASE_POOL_SIZE"]))
    app.teardown_appcontext(db.close_db)
    app.extensions["companion.live"] = ChangeFeed(db.store_target(app.config), app.config["LIVE_POLL_INTERVAL"])

    csrf.init_app(app)
    i18n.init_app(app)
    register(app)
    return app
